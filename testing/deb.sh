#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The Debian packages (packaging/debian): from the tarball of `make dist`,
# `dpkg-buildpackage -b` (tests off: make check ran them) makes the library for each MPI
# family (libarmci-ofi-openmpi0, libarmci-ofi-mpich0), their development files
# (libarmci-ofi-openmpi-dev, libarmci-ofi-mpich-dev, libarmci-ofi-dev) and armci-ofi-tools;
# lintian finds no error in them; they install with dpkg beside Debian's libarmci-mpi-dev,
# whose files stay as they were; with them alone a program of either family builds
# through pkg-config, and through the family's prefix as Global Arrays' --with-armci=
# takes it, and runs on its own family's library whatever the library path puts first;
# Global Arrays' test program links Debian's GA for each family with them and passes;
# armci-info, its manual pages, the guides and the job script are there; removing them
# leaves none of their files. With DEB_GA=1 (make check-long), GA 5.8.2 is also built from
# source with --with-armci= each family's prefix, and its main tests run on the packages. Installing packages needs root: elsewhere this says so, as
# a skip.
here=$(cd "$(dirname "$0")" && pwd)
top=${top_srcdir:-$here/..}
build=$(cd "${top_builddir:-.}" && pwd)
run="$here/run-mpi.sh"
. "$here/report.sh"
[ "$(id -u)" = 0 ] || skip_all "deb: installs packages, which needs root"
for tool in dpkg-buildpackage dh lintian pkg-config mpicc.openmpi mpicc.mpich; do
    command -v $tool >/dev/null ||
        skip_all "deb: $tool is not installed (apt-get install dpkg-dev debhelper lintian pkg-config libopenmpi-dev libmpich-dev mpich)"
done
mkvar() { sed -n "s/^$1 = //p" "$build/Makefile"; }
ga_libs=$(mkvar GA_LIBS)
[ "$(mkvar MPI_FAMILY)" = openmpi ] ||
    skip_all "deb: the packages are built for Open MPI, Debian's default MPI; this build is for $(mkvar MPI_FAMILY)"
ver=$(sed -n 's/^#define ARMCI_OFI_VERSION_STRING "\(.*\)"$/\1/p' "$top/include/armci_ofi_version.h")
work=$(mktemp -d)
pkgs="libarmci-ofi-openmpi0 libarmci-ofi-mpich0 libarmci-ofi-openmpi-dev libarmci-ofi-mpich-dev
      libarmci-ofi-dev armci-ofi-tools"
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
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
report $ok "dpkg-buildpackage -b from the tarball makes $(echo $pkgs)" "$log"
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
debs=
for p in $pkgs; do debs="$debs $(ls "$work"/${p}_"$ver"_*.deb)"; done
# shellcheck disable=SC2086 # debs is a list of words
if dpkg -i $debs >>"$log" 2>&1; then
    ok=0
fi
report $ok "dpkg -i installs the six packages" "$log"
after=$(dpkg -L libarmci-mpi-dev 2>/dev/null | while read -r f; do [ -f "$f" ] && md5sum "$f"; done)
if dpkg -s libarmci-mpi-dev >/dev/null 2>&1; then
    [ "$before" = "$after" ] && result ok "libarmci-mpi-dev stays installed, its files unchanged" ||
        result "its files changed" "libarmci-mpi-dev stays installed, its files unchanged"
else
    skip "libarmci-mpi-dev stays installed beside" "libarmci-mpi-dev is not installed (apt-get install libarmci-mpi-dev)"
fi

launcher_of() { # launcher_of FAMILY: the environment that has run-mpi.sh use its launcher
    case $1 in
    openmpi) echo "env MPIEXEC=$(command -v mpirun.openmpi) MPI_FAMILY=openmpi" ;;
    mpich) echo "env MPIEXEC=$(command -v mpiexec.mpich) MPI_FAMILY=mpich" ;;
    esac
}

# 3. what a user does with them, in each family: build through pkg-config, and through the
# family's prefix as GA's --with-armci=PREFIX and NWChem's EXTERNAL_ARMCI_PATH do (-I, -L,
# -larmci); run with the family's launcher; the program loads its own family's library
unset PKG_CONFIG_PATH
for fam in openmpi mpich; do
    prefix=/usr/lib/$multiarch/armci-ofi/$fam
    launch=$(launcher_of $fam)
    flags=$(pkg-config --cflags --libs armci-$fam 2>>"$log")
    for how in pkg-config prefix; do
        if [ $how = pkg-config ]; then
            f=$flags what="pkg-config --cflags --libs armci-$fam"
        else
            f="-I$prefix/include -L$prefix/lib -larmci" what="the prefix, as GA's --with-armci=$prefix"
        fi
        ok=1
        : >"$work/ring.log"
        # shellcheck disable=SC2086 # f and launch are lists of words
        if mpicc.$fam "$here/pkg/ring.c" -o "$work/ring-$fam" $f >>"$log" 2>&1 &&
            TEST_TIMEOUT=60 $launch "$run" 2 "$work/ring-$fam" >"$work/ring.log" 2>&1 &&
            [ "$(grep -c "right; built against armci-ofi $ver " "$work/ring.log")" = 2 ] &&
            ldd "$work/ring-$fam" | grep -q "libarmci-$fam.so.0 => /lib/\|libarmci-$fam.so.0 => /usr/lib/"; then
            ok=0
        fi
        cat "$work/ring.log" >>"$log" 2>/dev/null
        report $ok "$fam: a program built through $what runs on the packages' libarmci-$fam.so.0" "$log"
    done
    # the other family's prefix first in the library path: still its own library
    other=openmpi
    [ $fam = openmpi ] && other=mpich
    LD_LIBRARY_PATH=/usr/lib/$multiarch/armci-ofi/$other/lib ldd "$work/ring-$fam" |
        grep -q "libarmci-$fam.so.0 => /lib/\|libarmci-$fam.so.0 => /usr/lib/" &&
        result ok "$fam: the program loads its own family's library with $other's prefix first in LD_LIBRARY_PATH" ||
        result "it does not" "$fam: the program loads its own family's library with $other's prefix first in LD_LIBRARY_PATH"
    if [ -n "$ga_libs" ]; then
        ok=1
        ga=$(echo "$ga_libs" | sed "s/openmpi/$fam/g")
        # shellcheck disable=SC2086 # the library lists are lists of words
        if mpicc.$fam "$work/armci-ofi-$ver/testing/ga/t_ga.c" -o "$work/t_ga" $ga $flags -lgfortran -lm \
            >>"$log" 2>&1 && TEST_TIMEOUT=120 $launch "$run" 2 "$work/t_ga" >"$work/ga.log" 2>&1 &&
            grep -q ' 0 failed' "$work/ga.log"; then
            ok=0
        fi
        tail -5 "$work/ga.log" >>"$log" 2>/dev/null
        report $ok "$fam: Global Arrays' test program on Debian's GA ($ga) and the packages" "$log"
    else
        skip "$fam: Global Arrays' test program on the packages" \
            "Global Arrays is not installed (apt-get install libglobalarrays-dev)"
    fi
done
# armci.pc, the default, is Open MPI's (Debian's default MPI)
pkg-config --libs armci 2>/dev/null | grep -q -- "-L/usr/lib/$multiarch/armci-ofi/openmpi/lib -larmci" &&
    result ok "pkg-config armci names the Open MPI build" ||
    result "it names $(pkg-config --libs armci 2>&1)" "pkg-config armci names the Open MPI build"
# A program linked with libarmci.so.0 (this build's name, ARMCI-MPI's too) runs on a
# family's packaged library through LD_LIBRARY_PATH=PREFIX/lib, as docs/release.md promises
ok=1
if mpicc "$here/pkg/ring.c" -o "$work/ring-plain" -I"$top/include" -I"$build/include" \
    -L"$build/.libs" -larmci >>"$log" 2>&1 &&
    LD_LIBRARY_PATH=/usr/lib/$multiarch/armci-ofi/openmpi/lib ldd "$work/ring-plain" |
    grep -q "libarmci.so.0 => /usr/lib/$multiarch/armci-ofi/openmpi/lib/libarmci.so.0" &&
    LD_LIBRARY_PATH=/usr/lib/$multiarch/armci-ofi/openmpi/lib TEST_TIMEOUT=60 \
        "$run" 2 "$work/ring-plain" >"$work/ring.log" 2>&1 &&
    [ "$(grep -c "right; built against armci-ofi $ver " "$work/ring.log")" = 2 ]; then
    ok=0
fi
cat "$work/ring.log" >>"$log" 2>/dev/null
report $ok "a program linked with libarmci.so.0 runs on the Open MPI package through LD_LIBRARY_PATH" "$log"
# Global Arrays built from source on the installed packages, as a site builds it: GA 5.8.2's
# configure --with-armci= each family's prefix, its library and its main tests, test.x
# (Fortran) and testc.x (C), run at 4 processes with the family's launcher. Ten minutes on
# two cores: in make check-long (DEB_GA=1), beyond CI's budget.
. "$here/ga-src.sh"
ga_tarball=${GA_TARBALL:-$top/../shared/ext/ga-5.8.2.tar.gz}
if [ -z "${DEB_GA:-}" ]; then
    skip "GA 5.8.2 built with --with-armci= each family's prefix" "make check-long runs it (DEB_GA=1)"
elif [ ! -f "$ga_tarball" ]; then
    skip "GA 5.8.2 built with --with-armci= each family's prefix" \
        "no GA source tarball at $ga_tarball (GA_TARBALL names one)"
elif ! ga_src "$ga_tarball" "$work/ga" "$work/ga-autogen.log"; then
    report 1 "GA 5.8.2's autogen.sh" "$work/ga-autogen.log"
else
    for fam in openmpi mpich; do
        prefix=/usr/lib/$multiarch/armci-ofi/$fam
        gb=$work/ga/build-$fam
        mkdir -p "$gb"
        ok=1
        # (GA's make is not ours: make check's variables in MAKEFLAGS would replace GA's)
        if (cd "$gb" && unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL &&
            "$work/ga/ga-5.8.2/configure" --with-armci="$prefix" MPICC=mpicc.$fam \
                MPICXX=mpicxx.$fam MPIF77=mpif77.$fam && make -j2 &&
            make -j2 global/testing/test.x global/testing/testc.x) >"$work/ga-$fam.log" 2>&1 &&
            ldd "$gb/global/testing/test.x" | grep -q "libarmci-$fam.so.0 => /"; then
            ok=0
        fi
        report $ok "$fam: GA 5.8.2 configured --with-armci=$prefix builds on the packages" "$work/ga-$fam.log"
        for t in test.x testc.x; do
            # shellcheck disable=SC2046 # the launcher's environment is a list of words
            TEST_TIMEOUT=300 $(launcher_of $fam) "$run" 4 "$gb/global/testing/$t" \
                >"$work/ga-$t.log" 2>&1 && grep -q 'All tests successful' "$work/ga-$t.log" &&
                report 0 "$fam: GA's $t at 4 processes on the packages" ||
                report 1 "$fam: GA's $t at 4 processes on the packages" "$work/ga-$t.log"
        done
    done
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
