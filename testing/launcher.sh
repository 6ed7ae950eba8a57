# SPDX-License-Identifier: BSD-3-Clause
# The MPI launcher, for run-mpi.sh and cluster/run.sh (sourced, POSIX sh). Sets MPIEXEC
# and MPI_FAMILY when they are not given, and launcher_env exports what that family needs
# to run the tests here. The families:
#   openmpi  Open MPI's mpirun
#   mpich    hydra's mpiexec: MPICH, and those built on it (Intel MPI, MVAPICH)
#   srun     Slurm (not tried on this machine: no Slurm here)
MPIEXEC=${MPIEXEC:-mpirun}
MPIEXEC_ARGS=${MPIEXEC_ARGS:-}
if [ -z "${MPI_FAMILY:-}" ]; then
    case $(basename "$MPIEXEC") in
    srun*) MPI_FAMILY=srun ;;
    *)
        v=$("$MPIEXEC" --version 2>&1 | head -n 3)
        case $v in
        *"Open MPI"* | *"Open RTE"* | *OpenRTE*) MPI_FAMILY=openmpi ;;
        *HYDRA* | *"Intel(R) MPI"*) MPI_FAMILY=mpich ;;
        *slurm*) MPI_FAMILY=srun ;;
        *)
            echo "$0: cannot tell which MPI $MPIEXEC launches; set MPI_FAMILY to openmpi, mpich or srun" >&2
            exit 2
            ;;
        esac
        ;;
    esac
fi
export MPIEXEC MPI_FAMILY

launcher_env() {
    case $MPI_FAMILY in
    openmpi)
        export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
        # MPI's messages over shared memory and TCP, libfabric left to us; a caller that
        # sets pml/mtl (MPI on the fabric) keeps its choice, and MPI_NET=tcp means TCP alone.
        [ "${MPI_NET:-}" = tcp ] && OMPI_MCA_btl=self,tcp
        # MPI_NET=fabric: MPI's messages through libfabric too (its ofi MTL, the default on
        # EFA and CXI; Open MPI 4.1 leaves tcp out of it unless included)
        if [ "${MPI_NET:-}" = fabric ]; then
            OMPI_MCA_pml=cm OMPI_MCA_mtl=ofi
            export OMPI_MCA_mtl_ofi_provider_include="${OMPI_MCA_mtl_ofi_provider_include:-tcp;ofi_rxm}"
        fi
        export OMPI_MCA_pml="${OMPI_MCA_pml:-ob1}" OMPI_MCA_btl="${OMPI_MCA_btl:-self,vader,tcp}"
        export OMPI_MCA_mtl="${OMPI_MCA_mtl:-^ofi,psm,psm2}"
        export OMPI_MCA_btl_vader_single_copy_mechanism=none
        export OMPI_MCA_rmaps_base_oversubscribe=1
        # One-sided by messages: ARMCI-MPI's and ComEx MPI3's windows work here only with
        # the pt2pt component (osc/rdma and osc/sm fail MPI_Win_create: MPI_ERR_WIN).
        [ "${MPI_ONESIDED:-}" != messages ] || export OMPI_MCA_osc=pt2pt
        [ -z "${MPI_YIELD:-}" ] || export OMPI_MCA_mpi_yield_when_idle=1
        ;;
    mpich)
        # MPICH on UCX (Debian's build): UCX's own choice (shared memory within a host).
        # MPI_NET=tcp is not honoured: UCX on TCP alone (UCX_TLS=self,tcp) hangs in
        # MPI_Finalize here, in 1 run in 2 of NAS CG's MPI-only variant at 4 processes.
        # MPI_NET=fabric is what it always is, UCX beside our libfabric. Its one-sided goes
        # by messages wherever the network cannot reach memory itself, and hydra has no
        # setting for yielding.
        ;;
    srun) ;;
    esac
}
