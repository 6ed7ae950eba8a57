#!/bin/sh
# Run an MPI program the way every test and demo here does:
#   run-mpi.sh NPROCS program [args...]
# under `timeout` (TEST_TIMEOUT seconds, default 120), oversubscribed (this machine has
# two cores), with Open MPI kept on its own shared-memory/TCP paths and away from
# libfabric, and allowed to run as root. A caller's OMPI_MCA_btl is kept: the fabric rows
# of the benchmarks set self,tcp so that MPI, too, goes over TCP.
# With ARMCI_TEST_HOSTS=H the processes are spread over H hosts of this machine instead
# (cluster/run.sh; as evenly as they go, the first hosts taking one more).
n=$1
shift
if [ -n "${ARMCI_TEST_HOSTS:-}" ]; then
    h=$ARMCI_TEST_HOSTS
    [ "$h" -le "$n" ] || h=$n
    NP=$n exec "$(dirname "$0")/cluster/run.sh" "$h" $(((n + h - 1) / h)) "$@"
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_pml=ob1 OMPI_MCA_btl="${OMPI_MCA_btl:-self,vader,tcp}" OMPI_MCA_mtl=^ofi,psm,psm2
export OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1
exec timeout -k 5 "${TEST_TIMEOUT:-120}" "${MPIEXEC:-mpirun}" --oversubscribe -np "$n" "$@"
