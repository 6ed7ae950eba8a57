#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The remote-shell agent for the hosts of hosts.sh (Open MPI's plm_rsh_agent, hydra's
# -launcher-exec):
#   agent.sh [options] HOST COMMAND...
# runs COMMAND on HOST the way ssh would: in the host's network, UTS and mount
# namespaces, through a login shell's `sh -c`. ARMCI_TEST_CLUSTER_DIR names the cluster's
# directory (run.sh sets it). The environment passes through, as it would with ssh's
# SendEnv; Open MPI puts PATH and LD_LIBRARY_PATH into COMMAND itself.
while [ $# -gt 0 ]; do
    case $1 in
    -*) shift ;; # ssh-style options (e.g. -x) mean nothing here
    *) break ;;
    esac
done
host=$1
shift
dir=${ARMCI_TEST_CLUSTER_DIR:?agent.sh: ARMCI_TEST_CLUSTER_DIR is not set (run through testing/cluster/run.sh)}
case $host in
*-head) name=head ;;
*-h[1-9]) name=h${host##*-h} ;;
*)
    echo "agent.sh: $host is not a host of the cluster in $dir" >&2
    exit 255
    ;;
esac
pid=$(cat "$dir/$name.pid" 2>/dev/null) || {
    echo "agent.sh: host $host is not up (no $dir/$name.pid)" >&2
    exit 255
}
exec nsenter -t "$pid" -n -u -m --wd="$PWD" -- /bin/sh -c "$*"
