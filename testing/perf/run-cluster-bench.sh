#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The benchmark across two hosts of this machine (testing/cluster/) joined by a link shaped
# to a cluster's speed (CLUSTER_RATE, default 10gbit; "off" for the bare veth pair), one
# process on each: ours, the raw libfabric floor and ARMCI-MPI on the same link, where the
# overlap test's time goes (armci_bench --overlap), the shared-memory copy floor of one
# host for scale, then NAS MG and CG class A in every
# variant (the variants alternating, NAS_REPS runs each, medians). Needs root.
#   run-cluster-bench.sh [BUILD_DIR]     (or `make cluster-bench`)
# BENCH_CSV=file collects the benchmark rows, NAS_CSV=file the NAS rows.
build=${1:-${top_builddir:-.}}
here=$(cd "$(dirname "$0")" && pwd)
run="$here/../run-mpi.sh"
b=$build/testing/perf
rate=${CLUSTER_RATE:-10gbit}
dir=$(OWNER=$$ "$here/../cluster/hosts.sh" up 2) || exit 1
trap '"$here/../cluster/hosts.sh" down "$dir"' EXIT
trap 'exit 1' HUP INT TERM
[ "$rate" = off ] || "$here/../cluster/hosts.sh" shape "$dir" "$rate" || exit 1
export ARMCI_TEST_CLUSTER_DIR="$dir" TEST_TIMEOUT=900
csv=${BENCH_CSV:+--csv $BENCH_CSV}
# MPI, too, over TCP on the cluster's link
export MPI_NET=tcp
echo "== armci-ofi, 2 hosts x 1, link $rate"
ARMCI_TEST_HOSTS=2 "$run" 2 "$b/armci_bench" $csv
echo "== raw libfabric floor (fi_read/fi_write, tcp), same link"
ARMCI_TEST_HOSTS=2 "$run" 2 "$b/armci_bench" --raw-ofi $csv
if [ -x "$b/armci_bench_mpi" ]; then
    echo "== ARMCI-MPI, same link (Open MPI's osc/pt2pt over btl tcp)"
    ARMCI_TEST_HOSTS=2 MPI_ONESIDED=messages "$run" 2 "$b/armci_bench_mpi" $csv
fi
echo "== where the overlap test's time goes (armci-ofi; then with the target napping, as a"
echo "   target with a host of its own would leave its processor free)"
ARMCI_TEST_HOSTS=2 "$run" 2 "$b/armci_bench" --overlap $csv
ARMCI_TEST_HOSTS=2 BENCH_TARGET_NAPS=1 "$run" 2 "$b/armci_bench" --overlap
echo "== raw shared-memory copy of one host (memcpy floor, for scale)"
"$run" 2 "$b/armci_bench" --raw-shm $csv
echo "== NAS class A, 2 hosts x 1, link $rate"
NAS_PATHS=cluster NAS_NPS=2 NAS_RUNS="${NAS_RUNS:-mg:A cg:A}" "$here/../../nas_kernels/run-nas.sh" "$build"
