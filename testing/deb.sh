#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The Debian packages (packaging/debian): from the tarball of `make dist`,
# `dpkg-buildpackage -b` (tests off: make check ran them) makes libarmci-ofi0,
# libarmci-ofi-dev and armci-ofi-tools; lintian finds no error in them; they install with
# dpkg beside Debian's libarmci-mpi-dev, whose files stay as they were; with them alone a
# program builds through pkg-config and runs, Global Arrays' test program links Debian's GA
# with them and passes, armci-info and its manual pages are there; removing them leaves
# none of their files. Installing packages needs root: elsewhere this says so, as a skip.
here=$(cd "$(dirname "$0")" && pwd)
top=${top_srcdir:-$here/..}
build=$(cd "${top_builddir:-.}" && pwd)
run="$here/run-mpi.sh"
. "$here/report.sh"
[ "$(id -u)" = 0 ] || skip_all "deb: installs packages, which needs root"
for tool in dpkg-buildpackage dh lintian pkg-config; do
    command -v $tool >/dev/null ||
        skip_all "deb: $tool is not installed (apt-get install dpkg-dev debhelper lintian pkg-config)"
done
mkvar() { sed -n "s/^$1 = //p" "$build/Makefile"; }
ga_libs=$(mkvar GA_LIBS)
[ "$(mkvar MPI_FAMILY)" = openmpi ] ||
    skip_all "deb: the packages are built for Open MPI, Debian's default MPI; this build is for $(mkvar MPI_FAMILY)"
ver=$(sed -n 's/^#define ARMCI_OFI_VERSION_STRING "\(.*\)"$/\1/p' "$top/include/armci_ofi_version.h")
work=$(mktemp -d)
pkgs="libarmci-ofi0 libarmci-ofi-dev armci-ofi-tools"
cleanup() {
    dpkg -r $pkgs >/dev/null 2>&1
    rm -rf "$work"
}
trap cleanup EXIT
log=$work/log

# 1. the packages, from the tarball
ok=1
tarball=armci-ofi-$ver.tar.gz
if (cd "$build" && make dist-gzip >"$log" 2>&1) && mv "$build/$tarball" "$work/" &&
    (cd "$work" && tar xzf "$tarball" && cp -r "armci-ofi-$ver/packaging/debian" "armci-ofi-$ver/" &&
        cd "armci-ofi-$ver" && DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -us -uc -b >>"$log" 2>&1); then
    ok=0
fi
report $ok "dpkg-buildpackage -b from the tarball makes $pkgs" "$log"
[ $ok = 0 ] || {
    finish deb
    exit 1
}
changes=$(ls "$work"/armci-ofi_"$ver"_*.changes)
: >"$log"
lintian --fail-on error "$changes" >"$log" 2>&1
lint_rc=$?
errors=$(grep -c '^E: ' "$log")
[ $lint_rc = 0 ] && [ "$errors" = 0 ] && result ok "lintian: no error ($(grep -c '^W: ' "$log") warnings)" ||
    result "$errors errors" "lintian: no error"
grep '^[EW]: ' "$log" | head -20 | sed 's/^/#   /'

# 2. installed beside libarmci-mpi-dev
before=$(dpkg -L libarmci-mpi-dev 2>/dev/null | while read -r f; do [ -f "$f" ] && md5sum "$f"; done)
: >"$log"
ok=1
if dpkg -i "$work"/libarmci-ofi0_"$ver"_*.deb "$work"/libarmci-ofi-dev_"$ver"_*.deb \
    "$work"/armci-ofi-tools_"$ver"_*.deb >>"$log" 2>&1; then
    ok=0
fi
report $ok "dpkg -i installs the three packages" "$log"
after=$(dpkg -L libarmci-mpi-dev 2>/dev/null | while read -r f; do [ -f "$f" ] && md5sum "$f"; done)
if dpkg -s libarmci-mpi-dev >/dev/null 2>&1; then
    [ "$before" = "$after" ] && result ok "libarmci-mpi-dev stays installed, its files unchanged" ||
        result "its files changed" "libarmci-mpi-dev stays installed, its files unchanged"
else
    skip "libarmci-mpi-dev stays installed beside" "libarmci-mpi-dev is not installed (apt-get install libarmci-mpi-dev)"
fi

# 3. what a user does with them
unset PKG_CONFIG_PATH
flags=$(pkg-config --cflags --libs armci 2>>"$log")
ok=1
# shellcheck disable=SC2086 # flags is a list of words
if mpicc "$here/pkg/ring.c" -o "$work/ring" $flags >>"$log" 2>&1 &&
    TEST_TIMEOUT=60 "$run" 2 "$work/ring" >"$work/ring.log" 2>&1 &&
    [ "$(grep -c "right; built against armci-ofi $ver " "$work/ring.log")" = 2 ] &&
    ldd "$work/ring" | grep -q 'libarmci.so.0 => /lib/\|libarmci.so.0 => /usr/lib/'; then
    ok=0
fi
cat "$work/ring.log" >>"$log" 2>/dev/null
report $ok "a program built with pkg-config --cflags --libs armci ($flags) runs on the packages" "$log"
if [ -n "$ga_libs" ]; then
    ok=1
    # shellcheck disable=SC2086 # the library lists are lists of words
    if mpicc "$work/armci-ofi-$ver/testing/ga/t_ga.c" -o "$work/t_ga" $ga_libs $flags -lgfortran -lm \
        >>"$log" 2>&1 && TEST_TIMEOUT=120 "$run" 2 "$work/t_ga" >"$work/ga.log" 2>&1 &&
        grep -q ' 0 failed' "$work/ga.log"; then
        ok=0
    fi
    tail -5 "$work/ga.log" >>"$log" 2>/dev/null
    report $ok "Global Arrays' test program on Debian's GA and the packages" "$log"
else
    skip "Global Arrays' test program on the packages" \
        "Global Arrays is not installed (apt-get install libglobalarrays-dev)"
fi
out=$(armci-info --version 2>&1)
[ "$out" = "armci-info (armci-ofi) $ver" ] && result ok "armci-info --version says $ver" ||
    result "it says: $out" "armci-info --version says $ver"
if command -v man >/dev/null; then
    man -w armci-info >/dev/null 2>&1 && man -w 7 armci-ofi >/dev/null 2>&1 &&
        result ok "man finds armci-info(1) and armci-ofi(7)" ||
        result "not found" "man finds armci-info(1) and armci-ofi(7)"
else
    skip "man finds armci-info(1) and armci-ofi(7)" "man is not installed (apt-get install man-db)"
fi

# the guides armci-ofi(7) points to are installed (issue 61: they were not), with the
# Slurm job script docs/cluster.md shows (issue 60)
missing=
for d in README.md NEWS cluster.md tuning.md examples/job.sbatch; do
    ls /usr/share/doc/armci-ofi-tools/"$d"* >/dev/null 2>&1 || missing="$missing $d"
done
[ -z "$missing" ] && result ok "the docs and the job script are in /usr/share/doc/armci-ofi-tools" ||
    result "missing:$missing" "the docs and the job script are in /usr/share/doc/armci-ofi-tools"
# reproducible: nothing installed names the folder the packages were built in (issue 61:
# armci-info --json's build flags held it, in Debian's -ffile-prefix-map)
named=$(for f in $(dpkg -L $pkgs 2>/dev/null); do
    [ -f "$f" ] && ! [ -L "$f" ] && grep -l -F -a -- "$work" "$f"
done)
[ -z "$named" ] && result ok "no installed file names the build folder ($work)" ||
    result "named in: $(echo $named)" "no installed file names the build folder ($work)"

# 4. removed, nothing of theirs is left
files=$(dpkg -L $pkgs 2>/dev/null | while read -r f; do [ -f "$f" ] || [ -L "$f" ] && echo "$f"; done)
dpkg -r $pkgs >"$log" 2>&1
left=
for f in $files; do [ -e "$f" ] || [ -L "$f" ] && left="$left $f"; done
[ -n "$files" ] && [ -z "$left" ] && result ok "dpkg -r removes every file of the packages" ||
    result "left:${left:- (no file list)}" "dpkg -r removes every file of the packages"
finish deb
