# SPDX-License-Identifier: BSD-3-Clause
# GA 5.8.2's source, ready to configure (sourced by ga-check.sh and deb.sh, POSIX sh).
#   ga_src TARBALL WORK LOG: unpacks TARBALL into WORK once and runs GA's autogen.sh, whose
#   pinned autotools it would download are the system's here (a script that links them,
#   and the config.guess/sub automake ships: shared/ext/README.md). The tree is
#   WORK/ga-5.8.2; returns non-zero on failure, with autogen's output in LOG.
ga_src() {
    ga_tree=$2/ga-5.8.2
    [ -x "$ga_tree/configure" ] && return 0
    rm -rf "$ga_tree"
    mkdir -p "$2"
    tar xzf "$1" -C "$2" || return 1
    cat >"$ga_tree/travis/install-autotools.sh" <<'EOS' || return 1
#!/bin/sh
mkdir -p "$1/bin"
for t in m4 autoconf autoheader autom4te autoreconf autoscan autoupdate ifnames automake \
    aclocal libtool libtoolize; do
    p=$(command -v $t) && ln -sf "$p" "$1/bin/$t"
done
for f in config.guess config.sub; do
    ln -sf "$(ls /usr/share/automake-*/$f | tail -n 1)" "$1/bin/$f"
done
EOS
    (cd "$ga_tree" && ./autogen.sh) >"$3" 2>&1
}
