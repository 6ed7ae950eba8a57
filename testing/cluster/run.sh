#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Run an MPI program across hosts of this machine (see hosts.sh):
#   run.sh HOSTS PROCS_PER_HOST [mpirun options] program [args...]
# e.g. `testing/cluster/run.sh 2 2 _build/default/testing/demo/demo`: 4 processes, 2 on
# each of 2 hosts. The launcher runs on the cluster's head node and starts its daemons
# on the hosts through agent.sh; MPI's own traffic and libfabric's tcp provider both
# keep to the cluster's network (each host's eth0). Uses the cluster named by
# ARMCI_TEST_CLUSTER_DIR when it has enough hosts, else brings one up for this run and removes it
# afterwards. Like run-mpi.sh: under `timeout` (TEST_TIMEOUT, default 120 s), with the
# launcher of launcher.sh (Open MPI's mpirun or hydra). NP, when set, runs that many
# processes instead of HOSTS x PROCS_PER_HOST (uneven layouts: the first hosts full).
# ARMCI_TEST_LAUNCHER=srun starts them with Slurm's srun instead, on a cluster that runs
# Slurm (slurm.sh up; SRUN_ARGS, more srun options).
set -eu
die() {
    echo "run.sh: $*" >&2
    exit 2
}
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 3 ] || {
    echo "usage: $0 HOSTS PROCS_PER_HOST [mpirun options] program [args...]" >&2
    exit 2
}
hosts=$1 ppn=$2
shift 2
dir=${ARMCI_TEST_CLUSTER_DIR:-}
if [ -z "$dir" ] || [ "$(cat "$dir/nhosts" 2>/dev/null || echo 0)" -lt "$hosts" ]; then
    dir=$(OWNER=$$ "$here/hosts.sh" up "$hosts")
    trap '"$here/hosts.sh" down "$dir"' EXIT
    trap 'exit 1' HUP INT TERM
fi
export ARMCI_TEST_CLUSTER_DIR="$dir"
. "$here/../launcher.sh"
launcher_env
# libfabric's tcp and sockets providers: each host's own interface, never loopback
export FI_TCP_IFACE="${FI_TCP_IFACE:-eth0}" FI_SOCKETS_IFACE="${FI_SOCKETS_IFACE:-eth0}"
np=${NP:-$((hosts * ppn))}
if [ "${ARMCI_TEST_LAUNCHER:-}" = srun ]; then
    # Slurm on the hosts (slurm.sh): srun on the head node, the cluster's login node. Its
    # MPI plugin is the family's: PMIx for Open MPI, PMI-2 for MPICH's. Unbound, as above:
    # the hosts share the machine's processors (SRUN_ARGS may say --cpu-bind=cores).
    [ -f "$dir/slurm/slurm.conf" ] ||
        die "ARMCI_TEST_LAUNCHER=srun: no Slurm on the cluster in $dir (slurm.sh up)"
    case $MPI_FAMILY in
    openmpi) plugin=pmix ;;
    mpich) plugin=pmi2 ;;
    *) die "srun: no MPI plugin known for the family $MPI_FAMILY" ;;
    esac
    # MPI_KEEP_GOING: a task that ends does not end the step (the fault tests)
    status=0
    # shellcheck disable=SC2086 # SRUN_ARGS is a list of words
    SLURM_CONF=$dir/slurm/slurm.conf nsenter -t "$(cat "$dir/head.pid")" -n -u -m --wd="$PWD" -- \
        timeout -k 5 "${TEST_TIMEOUT:-120}" srun --mpi="${SRUN_MPI:-$plugin}" -N "$hosts" -n "$np" \
        --ntasks-per-node="$ppn" --cpu-bind=none ${MPI_KEEP_GOING:+--kill-on-bad-exit=0} \
        ${SRUN_ARGS:-} "$@" || status=$?
    exit $status
fi
case $MPI_FAMILY in
openmpi)
    list=$(head -n "$hosts" "$dir/hostfile" | sed "s/\$/:$ppn/" | paste -sd, -)
    export OMPI_MCA_plm_rsh_agent="$here/agent.sh"
    # Open MPI's launcher, out-of-band and TCP traffic on the cluster's network only
    export OMPI_MCA_oob_tcp_if_include=10.77.0.0/24 OMPI_MCA_btl_tcp_if_include=10.77.0.0/24
    # The hosts share this machine's processors, but each host's daemon sees all of them as
    # its own: bound to "its" first core, the first process of every host would sit on the
    # same one, each waiting out the others' time slices (4 ms a message). Unbound, the
    # kernel spreads them as it would on one host.
    export OMPI_MCA_hwloc_base_binding_policy=none
    set -- --oversubscribe -np "$np" -H "$list" ${MPI_KEEP_GOING:+--enable-recovery} "$@"
    ;;
mpich)
    list=$(head -n "$hosts" "$dir/hostfile" | sed "s/\$/:$ppn/" | paste -sd, -)
    # hydra starts its proxies through agent.sh as it would through ssh. UCX takes the hosts
    # for one machine (they share its boot id) and carries MPI's messages between them in
    # its shared memory, which works between namespaces of one kernel; the runtime's own
    # traffic crosses the cluster's network. UCX on TCP alone (UCX_TLS=self,tcp) hangs in
    # MPI_Finalize here (Debian's MPICH 4.0.2: 2 demo runs in 5, and MPI-only programs too).
    set -- -launcher ssh -launcher-exec "$here/agent.sh" -iface br0 -n "$np" -hosts "$list" \
        ${MPI_KEEP_GOING:+-disable-auto-cleanup} "$@"
    ;;
*)
    echo "run.sh: hosts on this machine are started by Open MPI's mpirun or hydra's mpiexec, not $MPI_FAMILY" >&2
    exit 2
    ;;
esac
status=0
# shellcheck disable=SC2086 # MPIEXEC_ARGS is a list of words
nsenter -t "$(cat "$dir/head.pid")" -n -u -m --wd="$PWD" -- \
    timeout -k 5 "${TEST_TIMEOUT:-120}" "$MPIEXEC" $MPIEXEC_ARGS "$@" || status=$?
exit $status
