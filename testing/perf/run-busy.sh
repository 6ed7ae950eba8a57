#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The busy layout (busy_bench.c: every process bound to a CPU and computing, NWChem's
# fetch-and-add on process 0 between chunks) for every ARMCI here, alternating within
# each of ROUNDS rounds (default 3):
#   run-busy.sh [BUILD_DIR]
# Libraries: armci-ofi; beside it the same binary under other settings, OFI_VARIANTS, a
# list of "NAME: SETTINGS" separated by semicolons, each a column armci-ofi-NAME (default
# "before: ARMCI_DOORBELL_US=0 ARMCI_PROGRESS_SLICE_US=0", the runtime as it was before
# the doorbell; empty: none); ARMCI-MPI (Debian's) and GA's ComEx MPI-PR where
# build-comex.sh built it, with one more process for its progress rank (unbound, the
# CPU the scheduler gives it), unless BUSY_PEERS=0. Configurations BUSY_CONFIGS (default
# "node tcp"): node (each library's same-node path) and tcp (armci-ofi over libfabric's
# tcp with ARMCI_SHM=0, ARMCI-MPI over Open MPI's osc/pt2pt, ComEx with its node copies
# off; MPI itself on TCP) and, asked for, cluster (one process per host, hosts made of
# namespaces by testing/cluster, root only; every process bound by world rank, as the
# hosts share this machine's CPUs; ComEx left out, its progress rank needs a process of
# its own on every host). Layouts: ring (each process calls the next) and hot-spot
# (process 0 only computes). BUSY_NPROCS processes (default "2 4"; on this 2-core
# machine 4 means two processes a core).
# Rows to BUSY_CSV (default busy.csv: round,config,impl,layout,P,metric,value,unit), then
# the table of medians over the rounds.
build=${1:-${top_builddir:-.}}
here=$(cd "$(dirname "$0")" && pwd)
run="$here/../run-mpi.sh"
b=$build/testing/perf
cx=$build/comex
out=${BUSY_CSV:-busy.csv}
variants=${OFI_VARIANTS-before: ARMCI_DOORBELL_US=0 ARMCI_PROGRESS_SLICE_US=0}
export TEST_TIMEOUT=${TEST_TIMEOUT:-300}
libs="armci-ofi"
# variant NAME: its settings
variant() {
    echo "$variants" | tr ';' '\n' | sed -n "s/^ *$1: *//p"
}
for v in $(echo "$variants" | tr ';' '\n' | sed -n 's/^ *\([A-Za-z0-9_-]*\):.*/\1/p'); do
    libs="$libs armci-ofi-$v"
done
if [ "${BUSY_PEERS:-1}" != 0 ]; then
    [ -x "$b/busy_bench_mpi" ] && libs="$libs armci-mpi"
    [ -x "$cx/busy_bench_comex-mpi-pr" ] && libs="$libs comex-mpi-pr"
    case $libs in *comex*) ;; *) echo "run-busy: no ComEx built (make busy-bench GA_SRC=<Global Arrays 5.8.2 source>); its column is left out" ;; esac
fi
echo "round,config,impl,layout,P,metric,value,unit" >"$out"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

one() { # one ROUND CONFIG LIBRARY NPROCS LAYOUT
    r=$1 cfg=$2 lib=$3 np=$4 layout=$5
    envs= prog= args=
    [ "$cfg" = tcp ] && envs="MPI_NET=tcp"
    [ "$cfg" = cluster ] && envs="MPI_NET=tcp ARMCI_TEST_HOSTS=$np BUSY_BIND=world"
    [ "$layout" = hot-spot ] && args=--hot-spot
    case $lib-$cfg in
    armci-ofi-node) prog=$b/busy_bench envs="ARMCI_SHM=1" ;;
    armci-ofi-tcp) prog=$b/busy_bench envs="$envs ARMCI_SHM=0 FI_PROVIDER=tcp" ;;
    armci-ofi-*-node) prog=$b/busy_bench envs="ARMCI_SHM=1 $(variant "${lib#armci-ofi-}")" ;;
    armci-ofi-*-tcp) prog=$b/busy_bench envs="$envs ARMCI_SHM=0 FI_PROVIDER=tcp $(variant "${lib#armci-ofi-}")" ;;
    armci-ofi-cluster) prog=$b/busy_bench envs="$envs FI_PROVIDER=tcp" ;;
    armci-ofi-*-cluster) prog=$b/busy_bench envs="$envs FI_PROVIDER=tcp $(variant "${lib#armci-ofi-}")" ;;
    armci-mpi-cluster) prog=$b/busy_bench_mpi envs="$envs MPI_ONESIDED=messages" ;;
    armci-mpi-node) prog=$b/busy_bench_mpi ;;
    armci-mpi-tcp) prog=$b/busy_bench_mpi envs="$envs MPI_ONESIDED=messages" ;;
    comex-mpi-pr-node) prog=$cx/busy_bench_comex-mpi-pr envs="BUSY_SPARE=1" ;;
    comex-mpi-pr-tcp) prog=$cx/busy_bench_comex-mpi-pr envs="$envs BUSY_SPARE=1 COMEX_ENABLE_PUT_SMP=0 COMEX_ENABLE_GET_SMP=0 COMEX_ENABLE_ACC_SMP=0" ;;
    esac
    # ARMCI-MPI over osc/pt2pt has no progress of its own: a target that makes no MPI call
    # serves nothing, and the hot-spot run would wait for its time limit (tried: 60 s)
    [ -n "$prog" ] || return 0
    if [ "$lib-$layout" = armci-mpi-hot-spot ] && [ "$cfg" != node ]; then
        echo "== round $r, $cfg, $layout, $np processes: $lib cannot serve a process that makes no call; left out"
        return 0
    fi
    n=$np
    case $lib in comex-mpi-pr) n=$((np + 1)) ;; esac
    echo "== round $r, $cfg, $layout, $np processes: $lib"
    rm -f "$tmp"
    # shellcheck disable=SC2086 # envs and args are lists of words
    env $envs "$run" "$n" $prog $args --csv "$tmp" || echo "run-busy: $lib ($cfg, $layout, $np) failed"
    [ -f "$tmp" ] || return 0
    case $lib in
    armci-ofi-*) sed "s/^armci-ofi,/$lib,/; s/^/$r,$cfg,/" "$tmp" >>"$out" ;;
    *) sed "s/^/$r,$cfg,/" "$tmp" >>"$out" ;;
    esac
}

. "$here/rounds.sh"

nlibs=$(echo $libs | wc -w)
for r in $(seq "${ROUNDS:-3}"); do
    order=$(rotate $(((r - 1) % nlibs)) $libs)
    for np in ${BUSY_NPROCS:-2 4}; do
        for cfg in ${BUSY_CONFIGS:-node tcp}; do
            for layout in ring hot-spot; do
                for lib in $order; do
                    one "$r" "$cfg" "$lib" "$np" "$layout"
                done
            done
        done
    done
done
"$here/busy-table.sh" "$out"
