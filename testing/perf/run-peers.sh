#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# armci-ofi beside every other ARMCI this machine can run, on the same benchmark
# (armci_bench.c) and in one run: ARMCI-MPI (Debian's), GA's own ARMCI on ComEx MPI-PR,
# MPI-TS and MPI3 (when build-comex.sh has built them: make peers-bench GA_SRC=...), and
# the floors, a memcpy through shared memory and plain libfabric fi_read/fi_write.
#   run-peers.sh [BUILD_DIR]
# Two configurations, 2 processes: node (one node: each library's own same-node path) and
# tcp (the stand-in for two nodes: armci-ofi with ARMCI_SHM=0 over libfabric's tcp,
# ARMCI-MPI on Open MPI's osc/pt2pt, ComEx MPI-PR with its node-memory copies off, and MPI
# kept to TCP for everyone). ComEx MPI-PR gets one more process, its progress rank.
# ROUNDS rounds (default 3); within a round every library runs once in each
# configuration, one after the other, so that they share the machine's drift, and each
# round starts one library further along the list. Rows to PEERS_CSV (default peers.csv:
# round,config,impl,path,op,bytes,value,unit), then the table of medians over the rounds
# (peers-table.sh). For a before-and-after in the same
# run, BEFORE_LIBDIR (the .libs of an earlier build) and/or BEFORE_ENV (say
# "ARMCI_PUT_MESSAGE_MAX=0") add a column armci-ofi-before: the same benchmark binary on
# that library, under those settings. PEERS_ROWS=agg runs the aggregation rows alone
# (armci_bench --agg), and no floors.
build=${1:-${top_builddir:-.}}
here=$(cd "$(dirname "$0")" && pwd)
run="$here/../run-mpi.sh"
b=$build/testing/perf
cx=$build/comex
out=${PEERS_CSV:-peers.csv}
export TEST_TIMEOUT=${TEST_TIMEOUT:-900}
libs="armci-ofi"
[ -n "${BEFORE_ENV:-}${BEFORE_LIBDIR:-}" ] && libs="$libs armci-ofi-before"
before=$b/armci_bench
if [ -n "${BEFORE_LIBDIR:-}" ]; then
    # libtool's wrapper would put this build's library first: run the binary itself
    before="env LD_LIBRARY_PATH=$BEFORE_LIBDIR $b/.libs/armci_bench"
fi
[ -x "$b/armci_bench_mpi" ] && libs="$libs armci-mpi"
for c in mpi-pr mpi-ts mpi3; do
    [ -x "$cx/armci_bench_comex-$c" ] && libs="$libs comex-$c"
done
case $libs in *comex*) ;; *) echo "run-peers: no ComEx built (make peers-bench GA_SRC=<Global Arrays 5.8.2 source>); its columns are left out" ;; esac
echo "round,config,impl,path,op,bytes,value,unit" >"$out"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

one() { # one ROUND CONFIG LIBRARY: runs it, appends its rows
    r=$1 cfg=$2 lib=$3
    np=2 prog= args= envs=
    [ "$cfg" = tcp ] && envs="MPI_NET=tcp"
    case $lib-$cfg in
    armci-ofi-node) prog=$b/armci_bench envs="ARMCI_SHM=1" ;;
    armci-ofi-tcp) prog=$b/armci_bench envs="$envs ARMCI_SHM=0 FI_PROVIDER=tcp" ;;
    armci-ofi-before-node) prog=$before envs="ARMCI_SHM=1 ${BEFORE_ENV:-}" ;;
    armci-ofi-before-tcp) prog=$before envs="$envs ARMCI_SHM=0 FI_PROVIDER=tcp ${BEFORE_ENV:-}" ;;
    armci-mpi-node) prog=$b/armci_bench_mpi ;;
    armci-mpi-tcp) prog=$b/armci_bench_mpi envs="$envs MPI_ONESIDED=messages" ;;
    comex-mpi-pr-*) prog=$cx/armci_bench_comex-mpi-pr np=3 ;;
    comex-*) prog=$cx/armci_bench_$lib ;;
    memcpy-node) prog=$b/armci_bench args=--raw-shm ;;
    libfabric-tcp) prog=$b/armci_bench args=--raw-ofi envs="$envs FI_PROVIDER=tcp" ;;
    *) return 0 ;;
    esac
    if [ "${PEERS_ROWS:-}" = agg ]; then
        [ -n "$args" ] && return 0 # (the floors have no such rows)
        args=--agg
    fi
    case $lib-$cfg in
    comex-mpi-pr-tcp) envs="$envs COMEX_ENABLE_PUT_SMP=0 COMEX_ENABLE_GET_SMP=0 COMEX_ENABLE_ACC_SMP=0" ;;
    comex-mpi3-*) envs="$envs MPI_ONESIDED=messages" ;; # osc/rdma and sm: MPI_ERR_WIN here
    esac
    echo "== round $r, $cfg: $lib"
    rm -f "$tmp"
    env $envs "$run" "$np" $prog $args --csv "$tmp" || echo "run-peers: $lib ($cfg) failed"
    [ -f "$tmp" ] || return 0
    case $lib in
    armci-ofi-before) sed "s/^armci-ofi,/armci-ofi-before,/; s/^/$r,$cfg,/" "$tmp" >>"$out" ;;
    *) sed "s/^/$r,$cfg,/" "$tmp" >>"$out" ;;
    esac
}

. "$here/rounds.sh"

all="$libs memcpy libfabric"
nall=$(echo $all | wc -w)
for r in $(seq "${ROUNDS:-3}"); do
    # each round starts with the next library: a launch's speed depends on what ran just
    # before it (large tcp transfers right after the node configuration ran slower), and
    # no library should always be the one to run first
    order=$(rotate $(((r - 1) % nall)) $all)
    for cfg in node tcp; do
        for lib in $order; do
            one "$r" "$cfg" "$lib"
        done
    done
done
"$here/peers-table.sh" "$out"
