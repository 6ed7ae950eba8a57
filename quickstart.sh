#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# armci-ofi quick start on Debian 12:
#   ./quickstart.sh demo    install what is missing, build, run the 4-process demo on both paths
#   ./quickstart.sh check   install what is missing, build, run every test (make check), then
#                           again in a second build with AddressSanitizer and UBSan, the
#                           threaded ones under ThreadSanitizer, and the part where MPIs
#                           differ in a build for MPICH
set -eu
cd "$(dirname "$0")"
what=${1:-demo}

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
pkgs="build-essential autoconf automake libtool pkg-config libfabric-dev libfabric-bin
      libopenmpi-dev openmpi-bin libhwloc-dev libcunit1-dev libarmci-mpi-dev
      libglobalarrays-dev libscalapack-openmpi-dev liblapack-dev libblas-dev gfortran valgrind
      clang-format"
# the check also builds for MPICH (Debian's: hydra, UCX), whose ABI is the other family's,
# reads the manual pages with man, builds and installs the Debian packages, reads JSON and
# the headers' names with python3, and runs jobs under a real Slurm (its pmix plugin loads
# libpmix-dev's libpmix.so)
[ "$what" = check ] &&
    pkgs="$pkgs mpich libmpich-dev libscalapack-mpich-dev man-db dpkg-dev debhelper lintian
          python3 slurm-wlm munge libpmix-dev"
missing=
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "== installing:$missing"
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq $missing >/dev/null
fi

# Builds live out of the source tree, so a sanitizer build can sit beside the normal one.
build() { # build DIR CONFIGURE-ARGS...
    dir=$1
    shift
    mkdir -p "$dir"
    (cd "$dir" && { [ -f Makefile ] || ../../configure "$@" >/dev/null; } && make -j2 >/dev/null)
}
echo "== building"
[ -x configure ] || ./autogen.sh >/dev/null
if [ -f Makefile ]; then
    echo "quickstart.sh builds in _build/; this tree was configured in place: run 'make distclean' first" >&2
    exit 2
fi
main=_build/default
build "$main" --enable-werror

case $what in
demo)
    echo "== demo, same node (shared memory)"
    ARMCI_SHM=1 testing/run-mpi.sh 4 "$main/testing/demo/demo"
    echo "== demo, fabric path (libfabric tcp, shared memory off)"
    ARMCI_SHM=0 FI_PROVIDER=tcp testing/run-mpi.sh 4 "$main/testing/demo/demo"
    ;;
check)
    status=0
    (cd "$main" && make check >make-check.log 2>&1) || status=1
    echo "== the tarball and the Debian packages made from it (testing/dist.sh, deb.sh)"
    (cd "$main" && make check TESTS="testing/dist.sh testing/deb.sh" >make-dist.log 2>&1) ||
        status=1
    echo "== the same tests under AddressSanitizer and UndefinedBehaviorSanitizer, internal checks on"
    san=_build/sanitizers
    build "$san" --enable-sanitizers --enable-debug || status=1
    (cd "$san" &&
        # Leak detection is off here and on in the test scripts' cases, whose verdict
        # tells a leak made through our code from one of MPI's own (testing/report.sh).
        # Memory errors and undefined behaviour abort.
        ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
        UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
        make check >make-check.log 2>&1) || status=1
    echo "== the threaded tests under ThreadSanitizer (testing/tsan.sh)"
    # Only the library and the programs tsan.sh runs (those that start the progress
    # thread): the whole suite under TSan would cost CI more than its budget, and the
    # threads are where TSan finds what ASan cannot.
    tsan=_build/tsan
    tsan_progs=$(for p in $(testing/tsan.sh --programs); do printf 'testing/mpi/%s ' $p; done)
    mkdir -p "$tsan"
    (cd "$tsan" && { [ -f Makefile ] || ../../configure --enable-tsan >/dev/null; } &&
        make -j2 libarmci.la $tsan_progs >/dev/null &&
        make check TESTS=testing/tsan.sh check_PROGRAMS="$tsan_progs" >make-check.log 2>&1) ||
        status=1
    echo "== the part of the tests where MPIs differ, built for MPICH (CC=mpicc.mpich)"
    # MPICH's family has another ABI (MPI_Comm is an int) and another launcher (hydra):
    # the unit tests (the ABI), the suite's every-mpi lines, the misuse cases, the fault
    # tests, Debian's GA for MPICH (libga-mpich), an Open MPI program that finds it, and
    # jobs under Slurm (srun --mpi=pmi2).
    mpich=_build/mpich
    build "$mpich" CC=mpicc.mpich --enable-werror || status=1
    (cd "$mpich" && SUITE_TAG=every-mpi make check TESTS="testing/unit/test_core \
        testing/unit/test_cache testing/suite.sh testing/errors.sh testing/dead.sh \
        testing/ga.sh testing/family.sh testing/slurm.sh" >make-check.log 2>&1) || status=1
    testing/summary.sh "$main" "$san" "$tsan" "$mpich"
    exit $status
    ;;
*)
    echo "usage: $0 demo|check" >&2
    exit 2
    ;;
esac
