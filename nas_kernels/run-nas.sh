#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# NAS MG and CG: every communication variant at 1, 2 and 4 processes, on the same-node path
# (ARMCI through shared memory, MPI through its shared-memory transport) and on the fabric
# path (ARMCI_SHM=0 over libfabric tcp, MPI over its TCP transport), in one table:
# median time of NAS_REPS runs (the variants alternating), Mop/s, and the speedup of each
# variant over mpi. NAS_PATHS=cluster runs NP hosts x 1 process instead (cluster/run.sh;
# ARMCI_TEST_CLUSTER_DIR names hosts already up, e.g. with their links shaped).
#   run-nas.sh [BUILD_DIR]     (or `make nas-bench`)
# Environment: NAS_REPS (3), NAS_NPS ("1 2 4"), NAS_RUNS ("cg:A mg:A mg:B"), NAS_PATHS,
#              NAS_CSV (also write the rows there),
#              NAS_BEFORE_ENV (settings: the ARMCI variants run a second time under them,
#              as armci-before and armci-nb-before, taking turns with the others: a
#              before-and-after of a runtime setting in the same run),
#              NPB_DIR (an NPB 3.3 MPI source tree, the folder NPB3.3-MPI of NASA's
#              NPB3.3.1 release: its MG and CG are built into BUILD_DIR/npb with mpif90 -O3
#              and run as the variant "npb", every run verified like ours; vs_npb is then
#              NPB's time over each variant's, above 1 where ours is faster).
# This machine has 2 cores: the 4-process rows are oversubscribed.
build=${1:-.}
here=$(cd "$(dirname "$0")" && pwd)
run="$here/../testing/run-mpi.sh"
reps=${NAS_REPS:-3}
nps=${NAS_NPS:-1 2 4}
runs=${NAS_RUNS:-cg:A mg:A mg:B}
paths=${NAS_PATHS:-same-node fabric}
csv=${NAS_CSV:-}
[ -n "$csv" ] && echo "kernel,class,nprocs,path,variant,seconds,mops,speedup_vs_mpi,speedup_vs_npb" >"$csv"
npb_dir=${NPB_DIR:-}
if [ -n "$npb_dir" ] && [ ! -f "$npb_dir/MG/mg.f" ]; then
    echo "run-nas: NPB_DIR=$npb_dir has no MG/mg.f: give the NPB3.3-MPI folder" >&2
    exit 2
fi

# npb_bin KERNEL CLASS NP: NPB's program for that run, built on first use; nothing when
# NPB_DIR is not set or the build failed (said on stderr).
npb_bin() {
    [ -n "$npb_dir" ] || return 0
    dst=$build/npb
    if [ ! -f "$dst/config/make.def" ]; then
        mkdir -p "$dst/bin" "$dst/config"
        for d in MG CG common sys; do cp -R "$npb_dir/$d" "$dst/"; done
        cp "$npb_dir/Makefile" "$dst/"
        # randdp: randi8's hexadecimal constants are refused by gfortran 10 and later;
        # argument mismatch: NPB passes one buffer as several MPI types.
        cat >"$dst/config/make.def" <<EOF
MPIF77 = mpif90
FLINK = \$(MPIF77)
FFLAGS = -O3 -fallow-argument-mismatch
FLINKFLAGS = -O3
MPICC = mpicc
CLINK = \$(MPICC)
CFLAGS = -O3
CLINKFLAGS = -O3
CC = cc
BINDIR = ../bin
RAND = randdp
EOF
    fi
    b=$dst/bin/$1.$2.$3
    if [ ! -x "$b" ]; then
        log=$dst/build-$1.$2.$3.log
        K=$(echo "$1" | tr a-z A-Z)
        if ! (cd "$dst" && make "$K" CLASS="$2" NPROCS="$3") >"$log" 2>&1 || [ ! -x "$b" ]; then
            echo "run-nas: building NPB $K class $2 for $3 processes failed; see $log" >&2
            return 0
        fi
    fi
    echo "$b"
}

once() { # once KERNEL CLASS NP PATH VARIANT -> "seconds mops" of one verified run
    k=$1 c=$2 np=$3 path=$4 v=$5 before=
    case $v in *-before) v=${v%-before} before=${NAS_BEFORE_ENV:-} ;; esac
    case $path in
    fabric) set -- ARMCI_SHM=0 FI_PROVIDER=tcp MPI_NET=tcp ;;
    cluster) set -- ARMCI_TEST_HOSTS="$np" MPI_NET=tcp ;;
    *) set -- ARMCI_SHM=1 ;;
    esac
    if [ "$v" = npb ]; then
        prog=$(npb_bin "$k" "$c" "$np")
        [ -n "$prog" ] || { echo "- -"; return; }
        out=$(env "$@" TEST_TIMEOUT=600 "$run" "$np" "$prog" 2>&1)
    else
        # shellcheck disable=SC2086 # the settings are a list of words
        out=$(env "$@" $before TEST_TIMEOUT=600 "$run" "$np" "$build/nas_kernels/$k" --class "$c" \
            --variant "$v" 2>&1)
    fi
    if ! echo "$out" | grep -Eq '^ Verification += +SUCCESSFUL$'; then
        echo "run-nas: $k class $c $v np=$np $path did not verify:" >&2
        echo "$out" | tail -15 >&2
        echo "FAILED FAILED"
        return
    fi
    echo "$out" | awk '/^ Time in seconds/ {t=$NF} /^ Mop\/s total/ {m=$NF} END {print t, m}'
}

# speedup BASE_MOPS MOPS: MOPS/BASE_MOPS to two places with an x, or "-". From Mop/s, not
# seconds: NPB prints its time to 0.01 s, and every program here counts operations with
# NPB's formula, so the ratio of rates is that of the times.
speedup() {
    awk -v b="$1" -v m="$2" 'BEGIN {if (m + 0 > 0 && b + 0 > 0) printf "%.2fx", m / b; else print "-"}'
}

variants="mpi armci armci-nb"
[ -n "$npb_dir" ] && variants="npb $variants"
[ -n "${NAS_BEFORE_ENV:-}" ] && variants="$variants armci-before armci-nb-before"
printf '%-6s %-5s %-3s %-9s %-16s %10s %10s %8s %8s\n' kernel class np path variant seconds Mop/s \
    vs_mpi vs_npb
for kc in $runs; do
    k=${kc%%:*} c=${kc#*:}
    for np in $nps; do
        for path in $paths; do
            # the variants take turns, rep by rep, so that a slow spell of the machine
            # falls on all of them alike; then the median of each
            tmp=$(mktemp -d)
            i=0
            while [ $i -lt "$reps" ]; do
                for v in $variants; do
                    once "$k" "$c" "$np" "$path" "$v" >>"$tmp/$v"
                done
                i=$((i + 1))
            done
            # the medians first: the npb row, printed first, needs mpi's for its vs_mpi
            for v in $variants; do
                sort -n "$tmp/$v" | awk -v n="$reps" 'NR == int((n + 1) / 2) {print}' >"$tmp/$v.med"
            done
            base=$(cut -d' ' -f2 "$tmp/mpi.med") npb=-
            [ -f "$tmp/npb.med" ] && npb=$(cut -d' ' -f2 "$tmp/npb.med")
            for v in $variants; do
                set -- $(cat "$tmp/$v.med")
                t=$1 m=$2
                sp=$(speedup "$base" "$m") spn=$(speedup "$npb" "$m")
                printf '%-6s %-5s %-3s %-9s %-16s %10s %10s %8s %8s\n' "$k" "$c" "$np" "$path" "$v" \
                    "$t" "$m" "$sp" "$spn"
                [ -n "$csv" ] && echo "$k,$c,$np,$path,$v,$t,$m,${sp%x},${spn%x}" >>"$csv"
            done
            rm -rf "$tmp"
        done
    done
done
