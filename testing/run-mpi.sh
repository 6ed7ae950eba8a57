#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Run an MPI program the way every test and demo here does:
#   run-mpi.sh NPROCS program [args...]
# under `timeout` (TEST_TIMEOUT seconds, default 120), oversubscribed (this machine has two
# cores), allowed to run as root. This file is the only one that knows a launcher's options:
#   MPIEXEC       the launcher (configure's choice for the MPI it found; else mpirun)
#   MPIEXEC_ARGS  more options, put before the program
#   MPI_FAMILY    openmpi, mpich (hydra: MPICH, Intel MPI, MVAPICH) or srun; found from
#                 `$MPIEXEC --version` when not given
# and what the scripts ask of the launcher, in words of their own:
#   MPI_NET=tcp        MPI's own traffic over TCP too (the fabric rows of the benchmarks;
#                      Open MPI only: launcher.sh says why)
#   MPI_NET=fabric     MPI's own traffic through the fabric's library beside ours (Open MPI:
#                      its ofi MTL on tcp;ofi_rxm; MPICH: UCX, as always)
#   MPI_KEEP_GOING=1   a process that dies does not end the others (the fault tests)
#   MPI_ONESIDED=messages  MPI's one-sided by messages (ARMCI-MPI over TCP, for comparison)
#   MPI_YIELD=1        MPI yields the processor while it waits (oversubscribed hosts)
# Open MPI is kept on its own shared-memory/TCP paths and away from libfabric, unless the
# caller chose its transports (OMPI_MCA_pml, OMPI_MCA_mtl: the MPI-on-the-fabric rows).
# With ARMCI_TEST_HOSTS=H the processes are spread over H hosts of this machine instead
# (cluster/run.sh; as evenly as they go, the first hosts taking one more).
n=$1
shift
here=$(dirname "$0")
if [ -n "${ARMCI_TEST_HOSTS:-}" ]; then
    h=$ARMCI_TEST_HOSTS
    [ "$h" -le "$n" ] || h=$n
    NP=$n exec "$here/cluster/run.sh" "$h" $(((n + h - 1) / h)) "$@"
fi
# Run by hand, without configure's launcher: the program's own MPI says which (a program
# built for MPICH under Open MPI's mpirun runs as so many jobs of one process each).
if [ -z "${MPIEXEC:-}" ] && [ -f "$1" ]; then
    bin=$1
    [ -x "$(dirname "$1")/.libs/$(basename "$1")" ] && bin=$(dirname "$1")/.libs/$(basename "$1")
    if ldd "$bin" 2>/dev/null | grep -q 'libmpich\.so'; then
        MPIEXEC=$(command -v mpiexec.mpich || command -v mpiexec.hydra || echo mpiexec)
    fi
fi
. "$here/launcher.sh"
launcher_env
case $MPI_FAMILY in
openmpi) set -- --oversubscribe -np "$n" ${MPI_KEEP_GOING:+--enable-recovery} "$@" ;;
mpich)
    set -- -n "$n" ${MPI_KEEP_GOING:+-disable-auto-cleanup} "$@"
    # hydra tells the survivors of a death by SIGUSR1, whose default action ends a process
    # that has no handler for it (ours have none): the survivors would be gone before they
    # could say whom they lost. Ignored here, it stays ignored through mpiexec and exec.
    [ -z "${MPI_KEEP_GOING:-}" ] || trap '' USR1
    ;;
srun) set -- -n "$n" --overcommit ${MPI_KEEP_GOING:+--kill-on-bad-exit=0} "$@" ;;
esac
# A job that ends well leaves nothing in /dev/shm: its node heap object loses its name as soon
# as every process of the node has opened it (src/transport/shm.c). Objects named after a
# process that has ended, and not there before, fail the run; after a job that failed they
# are only reported (one killed during ARMCI_Init may leave its object, for the next job's
# leader to remove). Objects of live processes are other jobs', running beside.
heaps() { ls /dev/shm 2>/dev/null | grep '^armci-ofi\.' ; }
before=$(heaps)
# shellcheck disable=SC2086 # MPIEXEC_ARGS is a list of words
timeout -k 5 "${TEST_TIMEOUT:-120}" "$MPIEXEC" $MPIEXEC_ARGS "$@"
rc=$?
for o in $(heaps); do
    case "
$before
" in *"
$o
"*) continue ;;
    esac
    pid=$(echo "$o" | cut -d. -f3)
    [ -d "/proc/$pid" ] && continue
    echo "run-mpi.sh: the job left /dev/shm/$o behind (its leader, process $pid, has ended)" >&2
    [ "$rc" != 0 ] || rc=1
done
exit $rc
