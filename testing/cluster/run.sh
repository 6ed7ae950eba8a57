#!/bin/sh
# Run an MPI program across hosts of this machine (see hosts.sh):
#   run.sh HOSTS PROCS_PER_HOST [mpirun options] program [args...]
# e.g. `testing/cluster/run.sh 2 2 _build/default/testing/demo/demo`: 4 processes, 2 on
# each of 2 hosts. mpirun runs on the cluster's head node and starts Open MPI's daemons
# on the hosts through agent.sh; Open MPI's own traffic and libfabric's tcp provider
# both keep to the cluster's network (each host's eth0). Uses the cluster named by
# ARMCI_CLUSTER when it has enough hosts, else brings one up for this run and removes it
# afterwards. Like run-mpi.sh: under `timeout` (TEST_TIMEOUT, default 120 s), as root
# allowed, and with Open MPI kept away from libfabric. NP, when set, runs that many
# processes instead of HOSTS x PROCS_PER_HOST (uneven layouts: the first hosts full).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 3 ] || {
    echo "usage: $0 HOSTS PROCS_PER_HOST [mpirun options] program [args...]" >&2
    exit 2
}
hosts=$1 ppn=$2
shift 2
dir=${ARMCI_CLUSTER:-}
if [ -z "$dir" ] || [ "$(cat "$dir/nhosts" 2>/dev/null || echo 0)" -lt "$hosts" ]; then
    dir=$(OWNER=$$ "$here/hosts.sh" up "$hosts")
    trap '"$here/hosts.sh" down "$dir"' EXIT
    trap 'exit 1' HUP INT TERM
fi
export ARMCI_CLUSTER="$dir"
list=$(head -n "$hosts" "$dir/hostfile" | sed "s/\$/:$ppn/" | paste -sd, -)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_plm_rsh_agent="$here/agent.sh"
# Open MPI's launcher, out-of-band and TCP traffic on the cluster's network only
export OMPI_MCA_oob_tcp_if_include=10.77.0.0/24 OMPI_MCA_btl_tcp_if_include=10.77.0.0/24
export OMPI_MCA_pml=ob1 OMPI_MCA_btl="${OMPI_MCA_btl:-self,vader,tcp}" OMPI_MCA_mtl=^ofi,psm,psm2
export OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1
# The hosts share this machine's processors, but each host's daemon sees all of them as
# its own: bound to "its" first core, the first process of every host would sit on the
# same one, each waiting out the others' time slices (4 ms a message). Unbound, the
# kernel spreads them as it would on one host.
export OMPI_MCA_hwloc_base_binding_policy=none
# libfabric's tcp and sockets providers: each host's own interface, never loopback
export FI_TCP_IFACE="${FI_TCP_IFACE:-eth0}" FI_SOCKETS_IFACE="${FI_SOCKETS_IFACE:-eth0}"
status=0
nsenter -t "$(cat "$dir/head.pid")" -n -u -m --wd="$PWD" -- \
    timeout -k 5 "${TEST_TIMEOUT:-120}" "${MPIEXEC:-mpirun}" --oversubscribe \
    -np "${NP:-$((hosts * ppn))}" -H "$list" "$@" || status=$?
exit $status
