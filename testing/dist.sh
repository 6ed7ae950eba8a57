#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The tarball is enough to install armci-ofi, and what it installs is enough to use it:
# `make dist`; from the tarball alone, an out-of-tree configure, build and `make install`
# into a scratch prefix; a program (testing/pkg/ring.c) built with `pkg-config --cflags --libs
# armci` alone, on the installed headers and library, run under the launcher; Global Arrays' test program (from the tarball)
# linked with Debian's GA and the installed library; armci-info --version and the header
# agree; `make uninstall` leaves no file behind. The whole `make distcheck`, which runs
# every test again from the tarball, is the release procedure's (docs/release.md).
here=$(cd "$(dirname "$0")" && pwd)
top=${top_srcdir:-$here/..}
build=$(cd "${top_builddir:-.}" && pwd)
run="$here/run-mpi.sh"
. "$here/report.sh"
command -v pkg-config >/dev/null ||
    skip_all "dist: pkg-config is not installed (apt-get install pkg-config)"
mkvar() { sed -n "s/^$1 = //p" "$build/Makefile"; }
CC=$(mkvar CC)
ga_libs=$(mkvar GA_LIBS)
ver=$(sed -n 's/^#define ARMCI_OFI_VERSION_STRING "\(.*\)"$/\1/p' "$top/include/armci_ofi_version.h")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log=$work/log
prefix=$work/prefix

# 1. the tarball, unpacked elsewhere, configured and installed out of its tree
ok=1
tarball=armci-ofi-$ver.tar.gz
if (cd "$build" && make dist-gzip >"$log" 2>&1) && mv "$build/$tarball" "$work/" &&
    (cd "$work" && tar xzf "$tarball" && mkdir obj && cd obj &&
        "../armci-ofi-$ver/configure" --prefix="$prefix" CC="$CC" >>"$log" 2>&1 &&
        make -j2 >>"$log" 2>&1 && make install >>"$log" 2>&1); then
    ok=0
fi
report $ok "make dist; from the tarball alone: out-of-tree configure, make, make install" "$log"
[ $ok = 0 ] || {
    finish dist
    exit 1
}

# 2. a program that knows only the installed package
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
ok=1
flags=$(pkg-config --cflags --libs armci 2>>"$log")
# shellcheck disable=SC2086 # flags is a list of words
if [ -n "$flags" ] && $CC "$here/pkg/ring.c" -o "$work/ring" $flags >>"$log" 2>&1 &&
    LD_LIBRARY_PATH="$prefix/lib" TEST_TIMEOUT=60 "$run" 2 "$work/ring" >"$work/ring.log" 2>&1 &&
    [ "$(grep -c "right; built against armci-ofi $ver " "$work/ring.log")" = 2 ] &&
    LD_LIBRARY_PATH="$prefix/lib" ldd "$work/ring" | grep -q "libarmci.so.0 => $prefix/lib/"; then
    ok=0
fi
cat "$work/ring.log" >>"$log" 2>/dev/null
report $ok "a program built with pkg-config --cflags --libs armci alone ($flags) runs on the installed library" "$log"

# 3. Global Arrays' test program, from the tarball, on Debian's GA and the installed library
if [ -n "$ga_libs" ]; then
    ok=1
    src="$work/armci-ofi-$ver/testing/ga/t_ga.c"
    # shellcheck disable=SC2086 # the library lists are lists of words
    if $CC "$src" -o "$work/t_ga" $ga_libs $flags -lgfortran -lm >>"$log" 2>&1 &&
        LD_LIBRARY_PATH="$prefix/lib" TEST_TIMEOUT=120 "$run" 2 "$work/t_ga" >"$work/ga.log" 2>&1 &&
        grep -q ' 0 failed' "$work/ga.log"; then
        ok=0
    fi
    tail -5 "$work/ga.log" >>"$log" 2>/dev/null
    report $ok "Global Arrays' test program on Debian's GA and the installed library" "$log"
else
    skip "Global Arrays' test program on the installed library" \
        "Global Arrays is not installed (apt-get install libglobalarrays-dev)"
fi

# 4. the installed armci-info says the header's version
out=$(LD_LIBRARY_PATH="$prefix/lib" "$prefix/bin/armci-info" --version 2>&1)
[ "$out" = "armci-info (armci-ofi) $ver" ] && result ok "installed armci-info --version says $ver" ||
    result "it says: $out" "installed armci-info --version says $ver"

# 5. make uninstall leaves nothing but empty folders
(cd "$work/obj" && make uninstall >>"$log" 2>&1)
left=$(find "$prefix" -type f -o -type l 2>/dev/null)
[ -z "$left" ] && result ok "make uninstall leaves no file in the prefix" ||
    { result "left: $(echo $left | head -c 300)" "make uninstall leaves no file in the prefix"; }
finish dist
