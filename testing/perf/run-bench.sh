#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Side-by-side benchmark on 2 processes: armci-ofi on node shared memory and on
# libfabric (tcp, shared memory off), the raw libfabric and shared-memory floors, and
# ARMCI-MPI (default and over TCP), and GA's ComEx where build-comex.sh built it (make bench
# GA_SRC=...). Tables to stdout; BENCH_CSV=file also collects CSV rows.
here=$(cd "$(dirname "$0")" && pwd)
run="$here/../run-mpi.sh"
b=${top_builddir:-.}/testing/perf
csv=${BENCH_CSV:+--csv $BENCH_CSV}
export TEST_TIMEOUT=600
echo "== armci-ofi, same node (shared memory)"
ARMCI_SHM=1 "$run" 2 "$b/armci_bench" $csv
echo "== armci-ofi, fabric path (FI_PROVIDER=tcp, ARMCI_SHM=0)"
ARMCI_SHM=0 FI_PROVIDER=tcp "$run" 2 "$b/armci_bench" $csv
echo "== sparse matrix-vector product, fabric path (tcp, shared memory off), 2 and 4 processes"
ARMCI_SHM=0 FI_PROVIDER=tcp "$run" 2 "$b/spmv" 4000
ARMCI_SHM=0 FI_PROVIDER=tcp "$run" 4 "$b/spmv" 2000
echo "== collectives: every algorithm and MPI's, 2 and 4 processes (make coll-bench: 3 rounds)"
ROUNDS=1 top_builddir=${top_builddir:-.} "$here/run-coll.sh"
echo "== raw libfabric floor (fi_read/fi_write, FI_PROVIDER=tcp)"
FI_PROVIDER=tcp "$run" 2 "$b/armci_bench" --raw-ofi $csv
echo "== raw shared-memory copy"
"$run" 2 "$b/armci_bench" --raw-shm $csv
ga=${top_builddir:-.}/testing/ga
if [ -x "$ga/t_ga" ] && [ -x "$ga/t_ga_mpi" ]; then
    echo "== Global Arrays timings: armci-ofi, then ARMCI-MPI (4 processes, same node)"
    "$run" 4 "$ga/t_ga" --bench | grep ga-bench
    # ARMCI-MPI runs GA here only with Open MPI's pt2pt one-sided component (osc/rdma and
    # osc/sm fail to create its windows: MPI_ERR_WIN)
    MPI_ONESIDED=messages "$run" 4 "$ga/t_ga_mpi" --bench | grep ga-bench
fi
if [ -x "$b/armci_bench_mpi" ]; then
    echo "== ARMCI-MPI, default (Open MPI osc)"
    "$run" 2 "$b/armci_bench_mpi" $csv
    echo "== ARMCI-MPI over TCP (MPI_ONESIDED=messages MPI_NET=tcp)"
    MPI_ONESIDED=messages MPI_NET=tcp "$run" 2 "$b/armci_bench_mpi" $csv
fi
for c in mpi-pr mpi-ts mpi3; do
    x=${top_builddir:-.}/comex/armci_bench_comex-$c
    [ -x "$x" ] || continue
    np=2 off=
    # MPI-PR: one more process, its progress rank; over TCP its node-memory copies off
    [ "$c" = mpi-pr ] && np=3 off="COMEX_ENABLE_PUT_SMP=0 COMEX_ENABLE_GET_SMP=0 COMEX_ENABLE_ACC_SMP=0"
    # MPI3: Open MPI's osc/rdma and osc/sm fail its MPI_Win_create here (MPI_ERR_WIN)
    win=
    [ "$c" = mpi3 ] && win="MPI_ONESIDED=messages" off=$win
    echo "== GA's ComEx $c, same node"
    env $win "$run" "$np" "$x" $csv
    echo "== GA's ComEx $c over TCP (MPI_NET=tcp)"
    env $off MPI_NET=tcp "$run" "$np" "$x" $csv
done
