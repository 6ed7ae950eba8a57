#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Conformance with the consumers' own test suites: every self-checking C test program of
# ARMCI-MPI (tests/, tests/contrib/) and of Global Arrays 5.8.2 (armci/testing, and the C
# programs of global/testing, linked with Debian's libga for the build's MPI) is built
# twice, against armci-ofi and against Debian's ARMCI-MPI for the same MPI, and run at 4
# processes in three configurations:
# ours with shared memory (ARMCI_SHM=1), ours over the fabric (ARMCI_SHM=0 FI_PROVIDER=tcp),
# and ARMCI-MPI (MPI_ONESIDED=messages). Each run is judged by the program's own criterion:
# its exit status, the failure messages it prints and, where it prints one, its success
# line. Prints a program x configuration table and the tail of every failed run's output.
#   testing/conformance.sh [--md FILE] [--only REGEX] [--keep] [GA_SRC [ARMCI_MPI_SRC]]
# The sources may be given by GA_SRC and ARMCI_MPI_SRC in the environment instead.
# top_builddir names the build tree whose .libs/libarmci.so is tested (default
# _build/default), WORKDIR the scratch directory (default a new mktemp -d, removed at the
# end unless --keep), TEST_TIMEOUT the seconds allowed per run (default 90), NP the number
# of processes (default 4), CONFIGS the configurations (default "ofi-shm ofi-tcp
# armci-mpi"; also ofi-strict, ARMCI_MR_MODE=strict over tcp, and ofi-mpinet, MPI on the
# fabric too). Exits 1 if a program passing on ARMCI-MPI fails on ours (without armci-mpi
# among the configurations: if any fails on ours).
here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(dirname "$here")
md= only= keep=
while [ $# -gt 0 ]; do
    case $1 in
    --md) md=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    -h|--help) sed -n '2,/^here=/p' "$0" | sed '/SPDX-License/d; $d; s/^# \{0,1\}//'; exit 0 ;;
    *) break ;;
    esac
done
GA_SRC=${1:-${GA_SRC:-/work/ext/ga}}
ARMCI_MPI_SRC=${2:-${ARMCI_MPI_SRC:-/work/ext/armci-mpi}}
builddir=$(cd "${top_builddir:-$srcdir/_build/default}" && pwd) || exit 2
libdir=$builddir/.libs
# The build's MPI decides the rest: its compiler, and Debian's ARMCI-MPI and GA built for
# the same MPI family (openmpi or mpich), which its launcher runs.
mkvar() { sed -n "s/^$1 = //p" "$builddir/Makefile"; }
family=$(mkvar MPI_FAMILY)
export MPI_FAMILY=${MPI_FAMILY:-$family} MPIEXEC=${MPIEXEC:-$(mkvar MPIEXEC)}
deb=$family
[ "$deb" = srun ] && deb=$(mkvar ARMCI_MPI_LIBS | sed 's/^-larmci-//')
mpilib=${ARMCI_MPI_LIB:-/usr/lib/x86_64-linux-gnu/libarmci-$deb.a}
export TEST_TIMEOUT=${TEST_TIMEOUT:-90}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} # the threaded GA programs
NP=${NP:-4}
CC=${CC:-$(mkvar CC)}
CFLAGS=${CFLAGS:--O1 -g -w}
GA_LIBS=${GA_LIBS:--lga-$deb -lscalapack-$deb -llapack -lblas}
for f in "$libdir/libarmci.so" "$mpilib" "$GA_SRC/armci/testing/test.c" \
         "$ARMCI_MPI_SRC/tests/test_puts.c"; do
    [ -e "$f" ] || { echo "conformance.sh: $f not found" >&2; exit 2; }
done
case ${WORKDIR:-} in
'') work=$(mktemp -d "${TMPDIR:-/tmp}/armci-conformance.XXXXXX") || exit 2 ;;
*) work=$WORKDIR; mkdir -p "$work" || exit 2 ;;
esac
case $work/ in "$srcdir"/*) echo "conformance.sh: WORKDIR must be outside $srcdir" >&2; exit 2 ;; esac
[ -n "$keep" ] || trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
mkdir -p "$work/inc" "$work/shadow" "$work/bin" "$work/log"

# The config.h that GA's sources include: the headers this system has, MPI messaging.
cat >"$work/inc/config.h" <<'EOF'
#define HAVE_ASSERT_H 1
#define HAVE_ERRNO_H 1
#define HAVE_MATH_H 1
#define HAVE_STDINT_H 1
#define HAVE_STDIO_H 1
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_STRINGS_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_TYPES_H 1
#define HAVE_TIME_H 1
#define HAVE_UNISTD_H 1
#define MSG_COMMS_MPI 1
#define F77_FUNC(name, NAME) name ## _
#define F77_FUNC_(name, NAME) name ## _
#define F2C_HIDDEN_STRING_LENGTH_AFTER_ARGS 1
EOF
# An ARMCI-MPI header that armci-ofi does not ship must not be found in /usr/include when
# building against ours: the shadow directory, searched before it, stops the build there.
for h in armci.h armcix.h armciconf.h message.h mp3.h parmci.h; do
    [ -e "$srcdir/include/$h" ] ||
        echo "#error \"<$h> is ARMCI-MPI's: armci-ofi does not provide it\"" >"$work/shadow/$h"
done

AMP=$ARMCI_MPI_SRC/tests
GAA=$GA_SRC/armci/testing
GAG=$GA_SRC/global/testing
GAINC="-I$work/inc -I$GAG -I$GA_SRC/global/src -I$GA_SRC/LinAlg/lapack+blas"
configs=${CONFIGS:-ofi-shm ofi-tcp armci-mpi}
names=
nl='
'
# Failure messages of each suite (the programs print them, and some still exit 0).
AMP_FAIL='FAIL|[Ff]ail\.|[Ff]ailed|Test fail|^Error|Err:|ERROR'
GAA_FAIL='ERROR|[Ff]ailed|Error:'
GAG_FAIL='[Mm]ismatch|[Tt]est failed|not OK|is not ok|[Ff]ails|FAILED|Failure|NOT successful|Error in testing|Error testing|^error:'

# prog NAME KIND NP "SOURCES" FAILRE OKRE [FLAGS...]: a program to build and run. KIND is
# armci (ARMCI alone) or ga (also GA); OKRE, if not empty, is the success line the program
# prints; FLAGS: xfail (upstream expects it to fail), args=..., cflags=...
# skip NAME REASON: a program not run.
prog() {
    name=$1
    [ -z "$only" ] || echo "$name" | grep -Eq -- "$only" || return 0
    names="$names$name$nl"
    printf '%s\n' "$@" >"$work/log/$(key "$name").def"
}
skip() {
    [ -z "$only" ] || echo "$1" | grep -Eq -- "$only" || return 0
    skipped="${skipped:-}  $1: skipped ($2)$nl"
}
key() { echo "$1" | tr '/' '_'; }

# ---- ARMCI-MPI tests/ and tests/contrib (TESTS of its Makefile.mk files) ----
for t in test_onesided test_onesided_shared test_onesided_shared_dla test_mutex \
         test_mutex_rmw test_mutex_trylock test_malloc_irreg ARMCI_PutS_latency \
         ARMCI_AccS_latency test_groups test_group_split test_malloc_group test_accs \
         test_accs_dla test_acc_overlap test_location_consistency test_puts test_puts_gets \
         test_puts_gets_dla test_putv test_igop test_rmw_fadd; do
    prog "armci-mpi/$t" armci "$NP" "$AMP/$t.c" "$AMP_FAIL" ""
done
prog armci-mpi/test_parmci armci "$NP" "$AMP/test_parmci.c $AMP/test_parmci_lib.c" "$AMP_FAIL" ""
# XFAIL_TESTS upstream: test_assert passes NULL to ARMCI_Get; test_malloc frees NULL pointers.
prog armci-mpi/test_assert armci "$NP" "$AMP/test_assert.c" "$AMP_FAIL" "" xfail
prog armci-mpi/test_malloc armci "$NP" "$AMP/test_malloc.c" "$AMP_FAIL" "" xfail
prog armci-mpi/contrib/armci-test armci "$NP" "$AMP/contrib/armci-test.c" "$AMP_FAIL" ""
prog armci-mpi/contrib/armci-perf armci "$NP" "$AMP/contrib/armci-perf.c" "$AMP_FAIL" "Tests Completed"
prog armci-mpi/contrib/lu-block armci "$NP" "$AMP/contrib/lu/lu-block.c $AMP/contrib/lu/lu_timing.c" "$AMP_FAIL" ""
prog armci-mpi/contrib/lu-b-bc armci "$NP" "$AMP/contrib/lu/lu-b-bc.c $AMP/contrib/lu/lu_timing.c" "$AMP_FAIL" ""
prog armci-mpi/contrib/transp1D-c armci "$NP" "$AMP/contrib/transp1D/transp1D-c.c" "transpose failed|Error found" "transpose successful"
prog armci-mpi/contrib/nb-simple armci "$NP" "$AMP/contrib/non-blocking/simple.c" "$AMP_FAIL" ""
skip armci-mpi/contrib/lu "timing only, not in upstream TESTS"
skip armci-mpi/contrib/cg "no self-check (writes cg_output.out), not in upstream TESTS"
skip armci-mpi/contrib/overlap "benchmark writing a log file, not in upstream TESTS"
skip armci-mpi/ctree/* "tests ARMCI-MPI's internal conflict tree"
skip armci-mpi/mpi/* "tests of MPI itself, no ARMCI"

# ---- GA armci/testing (ARMCI_PARALLEL_TESTS; armci_msg_init/finalize from rpl_*.c as GA
# does when the ARMCI library lacks them) ----
rpl="$GAA/rpl_armci_msg_init.c $GAA/rpl_armci_msg_finalize.c"
prog ga/armci/test armci "$NP" "$GAA/test.c $rpl" "$GAA_FAIL" "All tests passed"
prog ga/armci/test2 armci "$NP" "$GAA/test2.c $rpl" "$GAA_FAIL" "tests passed"
prog ga/armci/msgcheck armci "$NP" "$GAA/msgcheck.c $rpl" "$GAA_FAIL" "global sums OK"
prog ga/armci/test_groups armci "$NP" "$GAA/test_groups.c $rpl" "$GAA_FAIL" "Collective groups: Success"
prog ga/armci/simplelock armci "$NP" "$GAA/simplelock.c $rpl" "$GAA_FAIL" "test passed"
prog ga/armci/simple armci "$NP" "$GAA/simple.c $rpl" "$GAA_FAIL" ""
prog ga/armci/perf armci "$NP" "$GAA/perf.c $rpl" "$GAA_FAIL" "Tests Completed"
prog ga/armci/perf_aggr armci "$NP" "$GAA/perf_aggr.c $rpl" "$GAA_FAIL" "Success"
prog ga/armci/perf_nb armci "$NP" "$GAA/perf_nb.c $rpl" "$GAA_FAIL" "Success"
# These two assert that they run on exactly 2 processes.
prog ga/armci/perf2 armci 2 "$GAA/perf2.c $rpl" "$GAA_FAIL" ""
prog ga/armci/perf_strided armci 2 "$GAA/perf_strided.c $rpl" "$GAA_FAIL" ""
skip ga/armci/testnotify "armci_notify is in neither library (GA's HAVE_ARMCI_NOTIFY)"
skip ga/armci/test_mt "needs GA's internal utils.h and a thread-safe ARMCI"
skip ga/armci/gpctest "uses ARMCI internals (gpc.h)"
skip ga/armci/ipctest "uses ARMCI internals (armcip.h, armci_shmem.h, locks.h)"
skip ga/armci/testitr "uses ARMCI internals (iterator.h)"
skip ga/armci/fttest "checkpointing (ENABLE_CHECKPOINT) is not an ARMCI-MPI API"
skip "ga/armci/{clone,fork,origptl,ptltest,te}" "Portals only"
skip "ga/armci/{shmtest,shmclean}" "System V shared memory tools, no ARMCI"

# ---- GA global/testing C programs (GLOBAL_PARALLEL_TESTS) ----
for t in elempatch:"All tests successful" getmem:Success mtest:Success \
         mulmatpatchc:"All tests successful" normc: matrixc: ntestc: nbtestc: ntestfc: \
         packc:"All tests successful" patch_enumc:"All tests successful" \
         print:"All tests successful" scan_addc:"All tests successful" \
         scan_copyc:"All tests successful" testc:"All tests successful" \
         testmatmultc:"All tests successful" testmult: \
         testmultrect:"All tests successful" gemmtest: read_only: \
         unpackc:"All tests successful" ga-mpi: lock: \
         simple_groups_commc:"All tests successful" perf2:"All tests successful"; do
    prog "ga/global/${t%%:*}" ga "$NP" "$GAG/${t%%:*}.c" "$GAG_FAIL" "${t#*:}"
done
prog ga/global/ga_lu ga "$NP" "$GAG/ga_lu.c" "$GAG_FAIL" "All tests successful" cflags=-DHAVE_LAPACK=1
skip ga/global/cache_test "timing sweep up to 4096x4096 by single elements: over 5 min a run here"
skip ga/global/big "needs lots of memory (commented out upstream)"
skip ga/global/gatscat "marked broken upstream"
# OpenMP threads calling GA (and so ARMCI) at once, under MPI_THREAD_MULTIPLE: two
# threads a process (OMP_NUM_THREADS below)
for t in thread_perf_contig thread_perf_strided threadsafec; do
    prog "ga/global/$t" ga "$NP" "$GAG/$t.c" "$GAG_FAIL" ""
done
skip ga/global/testabstract_ops "uses GA internals (abstract_ops.h)"
skip ga/global/sprsmatvec "needs HYPRE"
skip "ga/global/{enormous,laplace,nbgetput,nbgetput2,ipc.clean}" "not among GA's tests"
skip "ga/global/*.F, ngatest, unit-tests" "Fortran"

# ---- build ----
# build NAME TAG: the program built against ours (ofi) or ARMCI-MPI (mpi); 0 on success.
build() {
    k=$(key "$1")
    out=$work/bin/$2/$k
    blog=$work/log/$k.build-$2
    mkdir -p "$work/bin/$2"
    kind=$(sed -n 2p "$work/log/$k.def")
    srcs=$(sed -n 4p "$work/log/$k.def")
    extra=
    for f in $(sed -n '7,$p' "$work/log/$k.def"); do
        case $f in cflags=*) extra="$extra ${f#cflags=}" ;; esac
    done
    [ "$kind" = ga ] && extra="$extra $GAINC -fopenmp" || extra="$extra -I$work/inc"
    extra="$extra -DHAVE_CONFIG_H=1"
    if [ "$2" = ofi ]; then
        inc="-I$srcdir/include -I$work/shadow"
        arm="-L$libdir -larmci -Wl,-rpath,$libdir"
    else
        inc="-I/usr/include"
        arm="$mpilib"
    fi
    [ "$kind" = ga ] && libs="$GA_LIBS $arm -lgfortran -lm" || libs="$arm -lm"
    # shellcheck disable=SC2086
    if ! $CC $CFLAGS $inc $extra -o "$out" $srcs $libs >"$blog" 2>&1; then
        return 1
    fi
    # Ours must not have taken ARMCI-MPI's code (its internal ARMCII_ symbols).
    if [ "$2" = ofi ] && nm "$out" 2>/dev/null | grep -q ' ARMCII_'; then
        echo "the link took ARMCI-MPI's code" >>"$blog"
        return 1
    fi
    return 0
}

# ---- run ----
# judge NAME CONFIG LOG RC SECONDS: the result word, a bar, and a one-line reason.
judge() {
    k=$(key "$1")
    fre=$(sed -n 5p "$work/log/$k.def")
    okre=$(sed -n 6p "$work/log/$k.def")
    why=
    if [ "$4" -eq 124 ] || [ "$4" -eq 137 ] || [ "$5" -ge "$TEST_TIMEOUT" ]; then
        r=TIMEOUT why="no end after ${5}s"
    elif [ "$4" -ne 0 ]; then
        r=FAIL why="exit status $4"
    elif [ -n "$fre" ] && grep -Eq -- "$fre" "$3"; then
        r=FAIL why="prints: $(grep -E -m1 -- "$fre" "$3" | cut -c1-100)"
    elif [ -n "$okre" ] && ! grep -Eq -- "$okre" "$3"; then
        r=FAIL why="no \"$okre\" line"
    else
        r=PASS
    fi
    if sed -n '7,$p' "$work/log/$k.def" | grep -qx xfail; then
        case $r in PASS) r=XPASS ;; *) r=XFAIL ;; esac
    fi
    echo "$r|$why"
}

set_result() { eval "res_$(echo "$1_$2" | tr -c 'A-Za-z0-9_\n' '_')=\$3"; }
get_result() { eval "echo \"\${res_$(echo "$1_$2" | tr -c 'A-Za-z0-9_\n' '_'):-}\""; }

details=$work/details
: >"$details"
total=$(printf '%s' "$names" | grep -c .)
i=0
oldifs=$IFS
IFS=$nl
for name in $names; do
    IFS=$oldifs
    i=$((i + 1))
    k=$(key "$name")
    np=$(sed -n 3p "$work/log/$k.def")
    args=
    for f in $(sed -n '7,$p' "$work/log/$k.def"); do
        case $f in args=*) args="${f#args=}" ;; esac
    done
    for tag in ofi mpi; do
        if build "$name" $tag; then eval "built_$tag=1"; else eval "built_$tag="; fi
    done
    for cfg in $configs; do
        case $cfg in
        ofi-shm) tag=ofi; set -- ARMCI_SHM=1 ;;
        ofi-tcp) tag=ofi; set -- ARMCI_SHM=0 FI_PROVIDER=tcp ;;
        ofi-strict) tag=ofi; set -- ARMCI_SHM=0 FI_PROVIDER=tcp ARMCI_MR_MODE=strict ;;
        ofi-mpinet) tag=ofi; set -- ARMCI_SHM=0 FI_PROVIDER=tcp MPI_NET=fabric ;;
        armci-mpi) tag=mpi; set -- MPI_ONESIDED=messages ;;
        esac
        log=$work/log/$k.$cfg
        if [ -z "$(eval echo "\$built_$tag")" ]; then
            r=BUILD-FAIL
            why=$(grep -E -m1 'error|undefined reference|ARMCI-MPI' "$work/log/$k.build-$tag" | cut -c1-160)
            tail_src=$work/log/$k.build-$tag.err
            grep -E 'error|undefined reference|ARMCI-MPI' "$work/log/$k.build-$tag" >"$tail_src"
        else
            start=$(date +%s)
            # shellcheck disable=SC2086
            (cd "$work/bin/$tag" && env "$@" "$here/run-mpi.sh" "$np" "./$k" $args) \
                >"$log" 2>&1 </dev/null
            rc=$?
            secs=$(($(date +%s) - start))
            res=$(judge "$name" "$cfg" "$log" "$rc" "$secs")
            r=${res%%|*} why=${res#*|}
            tail_src=$log
        fi
        set_result "$name" "$cfg" "$r"
        printf '[%d/%d] %-38s %-10s %s\n' "$i" "$total" "$name" "$cfg" "$r"
        case $r in PASS|XFAIL) ;; *)
            {
                echo "### $name [$cfg]: $r${why:+ ($why)}"
                tail -n 15 "$tail_src" | sed 's/^/    /'
                echo
            } >>"$details"
        esac
    done
    IFS=$nl
done
IFS=$oldifs

# ---- report ----
table() { # table md|text
    if [ "$1" = md ]; then
        echo "| program | $(echo $configs | sed 's/ / | /g') |"
        echo "|---|$(for c in $configs; do printf -- '---|'; done)"
    else
        printf '%-38s' program
        for c in $configs; do printf ' %-10s' "$c"; done
        echo
    fi
    IFS=$nl
    for name in $names; do
        IFS=$oldifs
        if [ "$1" = md ]; then
            printf '| %s |' "$name"
            for c in $configs; do printf ' %s |' "$(get_result "$name" "$c")"; done
        else
            printf '%-38s' "$name"
            for c in $configs; do printf ' %-10s' "$(get_result "$name" "$c")"; done
        fi
        echo
        IFS=$nl
    done
    IFS=$oldifs
    if [ -n "${skipped:-}" ]; then
        echo
        if [ "$1" = md ]; then
            echo "Not run:"
            echo
            printf '%s' "$skipped" | sed 's/^  /- /'
        else
            echo "Not run:"
            printf '%s' "$skipped"
        fi
    fi
}
regress=0
IFS=$nl
for name in $names; do
    IFS=$oldifs
    # the reference: ARMCI-MPI's result where it ran, else every program must pass
    case " $configs " in
    *" armci-mpi "*) m=$(get_result "$name" armci-mpi) ;;
    *) m=PASS ;;
    esac
    for c in $configs; do
        [ "$c" = armci-mpi ] && continue
        o=$(get_result "$name" $c)
        if [ "$m" = PASS ] && [ "$o" != PASS ] && [ "$o" != XFAIL ] && [ "$o" != XPASS ]; then
            regress=$((regress + 1))
            echo "$name [$c]: $o where ARMCI-MPI gives $m" >>"$work/regressions"
        fi
    done
    IFS=$nl
done
IFS=$oldifs

echo
echo "== ARMCI conformance: $total programs, $NP processes, TEST_TIMEOUT=$TEST_TIMEOUT, library $libdir/libarmci.so"
table text
if [ -s "$details" ]; then
    echo
    echo "== Output of the runs that did not pass (last 15 lines)"
    cat "$details"
fi
echo
if [ "$regress" -gt 0 ]; then
    echo "== $regress run(s) fail on armci-ofi where ARMCI-MPI passes:"
    sed 's/^/  /' "$work/regressions"
else
    echo "== armci-ofi passes everything ARMCI-MPI passes"
fi
if [ -n "$md" ]; then
    {
        echo "# ARMCI conformance"
        echo
        echo "$total programs at $NP processes (TEST_TIMEOUT=$TEST_TIMEOUT s), MPI family"
        echo "$MPI_FAMILY, configurations: $configs (ofi-shm: ours with shared memory; ofi-tcp:"
        echo "ours over the fabric with the tcp provider; ofi-strict: the same with"
        echo "ARMCI_MR_MODE=strict; ofi-mpinet: the same with MPI on the fabric too,"
        echo "MPI_NET=fabric; armci-mpi: ARMCI-MPI)."
        echo
        table md
    } >"$md"
fi
[ -n "$keep" ] && echo "scratch directory kept: $work"
[ "$regress" -eq 0 ]
