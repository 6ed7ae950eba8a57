#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Global Arrays' own test suite on this build (issue 61): GA 5.8.2 from the source tarball
# (GA_TARBALL; by default shared/ext/ga-5.8.2.tar.gz beside the checkout), configured
# --with-armci on this build's library for this build's MPI family, and GA's make check (74
# C, C++ and Fortran programs, GA's own NPROCS of 4 processes) run on each path: node
# memory, and libfabric's tcp with shared memory off. One TAP line per GA test and path;
# GA's expected failure (ma/testf.x) counts as passed, as in GA's own harness; two failures
# that are GA's own are TODO lines, each only when its cause is seen (lennard.x below; a
# threaded test crashing in GA's unguarded handle list).
#   GA_CHECK_PATHS   which paths ("node fabric", the default, or one of them)
#   GA_CHECK_DIR     where GA is unpacked and built (default ga-check/ in the build tree;
#                    kept, so that the next run only runs the tests)
# Part of make check-long: GA's build takes about 10 minutes on two cores and each path's
# run 15-25. Without the tarball the script is skipped, and says so.
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "${top_srcdir:-$here/..}" && pwd)
b=$(cd "${top_builddir:-.}" && pwd)
. "$here/report.sh"
tarball=${GA_TARBALL:-$top/../shared/ext/ga-5.8.2.tar.gz}
[ -f "$tarball" ] || skip_all "ga-check: no GA source tarball at $tarball (GA_TARBALL names one)"
grep -q '^SAN_CFLAGS = .*-fsanitize' "$b/Makefile" 2>/dev/null &&
    skip_all "ga-check: a sanitizer build; GA's suite runs in a plain one"
# GA's make is not ours: make check's own variables (TESTS=testing/ga-check.sh, passed down
# in MAKEFLAGS) would replace GA's
unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL
case $(ldd "$b/.libs/libarmci.so") in
*libmpi.so.40*) family=openmpi ;;
*libmpich.so*) family=mpich ;;
*) skip_all "ga-check: cannot tell which MPI $b/.libs/libarmci.so links" ;;
esac
work=${GA_CHECK_DIR:-$b/ga-check}
src=$work/ga-5.8.2
build=$work/build-$family
mkdir -p "$work"
log=$work/build-$family.log

. "$here/ga-src.sh"
ga_src "$tarball" "$work" "$log" ||
    { report 1 "ga-check: GA's autogen.sh" "$log"; finish ga-check; exit 1; }
if [ ! -f "$build/.built" ]; then
    rm -rf "$build"
    mkdir -p "$build"
    [ $family = openmpi ] && sfx=openmpi || sfx=mpich
    # GA's configure takes the -I, -L and -l words of --with-armci (m4/ga_arg_parse.m4)
    (cd "$build" && "$src/configure" --with-armci="-I$top/include -I$b/include -L$b/.libs -larmci" \
        LDFLAGS="-Wl,-rpath,$b/.libs" MPICC=mpicc.$sfx MPICXX=mpicxx.$sfx MPIF77=mpif77.$sfx \
        >>"$log" 2>&1 && make -j2 >>"$log" 2>&1 && make -j2 checkprogs >>"$log" 2>&1) ||
        { report 1 "ga-check: GA 5.8.2 builds for $family on this library" "$log"; finish ga-check; exit 1; }
    touch "$build/.built"
fi
result ok "ga-check: GA 5.8.2 built for $family on this library"
tests=$(cd "$build" && make -s -f Makefile -f - ga-tests <<'EOF'
ga-tests:
	@echo $(TESTS)
EOF
)
[ -n "$tests" ] || { report 1 "ga-check: GA's list of tests"; finish ga-check; exit 1; }
# cache_test times gets of matrices whose side doubles up to 8192: each size takes 8 times
# the one before (1024: 2 s, 2048: 16 s on two cores), and the last ones hours
slow="global/testing/cache_test.x"
run_tests=$(for t in $tests; do case " $slow " in *" $t "*) ;; *) echo "$t" ;; esac; done)

# GA built as GA's make check builds it has no --enable-thread-safety: its lock around each
# call is empty (global/src/thread-safe.h), and the threads of its threaded tests share its
# list of nonblocking handles unguarded (global/src/nbutil.c), whatever the ARMCI. A crash
# of the test's own binary inside that file is GA's race: the function it died in, from
# the backtrace Open MPI prints, by addr2line (MPICH prints none: a crash there fails).
ga_racy=$(sed -n 's/^[A-Za-z_][A-Za-z_0-9 *]*[ *]\([A-Za-z_][A-Za-z_0-9]*\)(.*/\1/p' \
    "$src/global/src/nbutil.c" | sort -u)
crash_site() { # crash_site LOG BINARY: the function of BINARY in the first frame of LOG's backtrace
    off=$(grep -o "$(basename "$2")(+0x[0-9a-f]*)" "$1" 2>/dev/null | head -n 1 |
        sed 's/.*(+\(0x[0-9a-f]*\))$/\1/')
    [ -n "$off" ] && addr2line -f -e "$2" "$off" | head -n 1
}

for path in ${GA_CHECK_PATHS:-node fabric}; do
    case $path in
    node) envs="ARMCI_SHM=1" ;;
    fabric) envs="ARMCI_SHM=0 FI_PROVIDER=tcp" ;;
    *) report 1 "ga-check: unknown path $path (node or fabric)"; continue ;;
    esac
    # GA's own harness, with a LOG_COMPILER that launches as the suite does (ga-run.sh);
    # -k: every test runs whatever the others do
    (cd "$build" && env $envs TEST_TIMEOUT=${GA_TEST_TIMEOUT:-600} make -k check \
        LOG_COMPILER="$here/ga-run.sh" TESTS="$(echo $run_tests)" \
        >"$work/check-$family-$path.log" 2>&1)
    for t in $slow; do
        skip "ga-check/$family $path ${t#global/}" "left out by time: its largest sizes take hours on two cores"
    done
    for t in $run_tests; do
        trs=$build/${t%.x}.trs
        name="ga-check/$family $path ${t#global/}"
        r=$(sed -n 's/^:test-result: //p' "$trs" 2>/dev/null | head -n 1)
        case $t:$r in
        *:PASS | *:XFAIL) report 0 "$name" ;;
        global/examples/lennard-jones/lennard.x:FAIL)
            # GA's example stores MA_push_get's 8-byte handle in `int gMemHandle`, which
            # overwrites the rank beside it when built unoptimised, as GA's make builds it:
            # every process takes itself for process 0, and NGA_Access of "its" patch is
            # refused where domains are processes. The same binary stops so on ARMCI-MPI.
            ntests=$((ntests + 1))
            echo "not ok $ntests - $name # TODO GA's lennard.c overwrites its own rank (int gMemHandle); fails on ARMCI-MPI too"
            ;;
        global/testing/thread_*.x:FAIL | global/testing/threadsafec.x:FAIL)
            site=$(crash_site "$build/${t%.x}.log" "$build/$t")
            if [ -n "$site" ] && echo "$ga_racy" | grep -qx "$site"; then
                ntests=$((ntests + 1))
                echo "not ok $ntests - $name # TODO crashed in GA's $site (global/src/nbutil.c): GA's threads race there, GA built without --enable-thread-safety"
            else
                report 1 "$name (FAIL${site:+, crashed in $site})" "$build/${t%.x}.log"
            fi
            ;;
        *:SKIP) skip "$name" "GA's test skipped itself" ;;
        *) report 1 "$name (${r:-no result})" "$build/${t%.x}.log" ;;
        esac
    done
    cp "$build/test-suite.log" "$work/test-suite-$family-$path.log" 2>/dev/null
done
finish ga-check
