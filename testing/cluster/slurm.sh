#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A real Slurm on the hosts of hosts.sh, configured as a small site would configure it:
#
#   slurm.sh up DIR        start munge, slurmctld on the head node and one slurmd per host
#                          of the cluster in DIR; returns once every node is idle
#   slurm.sh down DIR      stop them (hosts.sh down ends them too)
#   slurm.sh idle DIR      cancel every job and wait until every node is idle again (after a
#                          run whose srun was killed: its job would hold the nodes)
#   slurm.sh env DIR       print the settings Slurm's commands need (SLURM_CONF), for eval
#   slurm.sh run DIR CMD…  run CMD (srun, sbatch, sinfo…) on the head node, the cluster's
#                          login node, with SLURM_CONF set
#
# Everything the daemons write (configuration, state, spools, logs, munge's key and
# socket) lives in DIR/slurm, so concurrent clusters do not meet; each slurmd knows its
# node by its host's own hostname and listens in its host's own network, so the ports are
# Slurm's usual ones. The plugins are the ones that work in a container without systemd
# and without a cgroup hierarchy of its own, as on many small sites:
#   ProctrackType=proctrack/pgid    a step's processes are found by their process group
#                                   (cgroup tracking needs a writable cgroup tree)
#   TaskPlugin=task/affinity        --cpu-bind binds tasks by sched_setaffinity (cgroup's
#                                   task plugin would confine them to cpusets)
#   TaskPluginParam=None            unbound unless the job says --cpu-bind: the hosts share
#                                   this machine's processors, and Slurm's own default (one
#                                   task per core where they fit) would put the first task
#                                   of every host on the same core. A site leaves it out.
#   SelectType=select/cons_tres     cores, not whole nodes, are handed out (as sites do)
#   MpiDefault=none                 each job says --mpi=pmix (Open MPI) or --mpi=pmi2
#                                   (MPICH's family), as NWChem's own docs show
#   JobAcctGatherType=none, no accounting database: nothing here reads them
#   mpi.conf PMIxCollFence=ring     PMIx fences wait for every node (see up below)
# Slurm's pmix plugin loads the unversioned libpmix.so, which Debian ships in libpmix-dev
# (without it: "mpi/pmix_v4: init: ... cannot open libpmix.so"). Needs root.
set -eu
here=$(cd "$(dirname "$0")" && pwd)

die() {
    echo "slurm.sh: $*" >&2
    exit 1
}

# on NAME CMD...: CMD on the cluster's host NAME (head, h1, ...), in its namespaces
on() {
    name=$1
    shift
    nsenter -t "$(cat "$dir/$name.pid")" -n -u -m --wd="$PWD" -- "$@"
}

up() {
    [ "$(id -u)" -eq 0 ] || die "needs root (the daemons run as root here)"
    for c in munged slurmctld slurmd srun; do
        command -v $c >/dev/null ||
            die "needs $c: apt-get install slurm-wlm munge (and libpmix-dev for --mpi=pmix)"
    done
    id=$(basename "$dir")
    n=$(cat "$dir/nhosts")
    s=$dir/slurm
    rm -rf "$s"
    mkdir -p "$s/state" "$s/spool" "$s/log" "$s/munge"
    chmod 700 "$s/munge"
    # munge: one daemon for the whole cluster, reached through its socket's path, which
    # every host sees (the hosts share the machine's file system); a key of this cluster's
    dd if=/dev/urandom of="$s/munge/munge.key" bs=1024 count=1 2>/dev/null
    chmod 400 "$s/munge/munge.key"
    on head munged --force --socket="$s/munge/munge.socket" --key-file="$s/munge/munge.key" \
        --pid-file="$s/munge/munged.pid" --log-file="$s/log/munged.log" \
        --seed-file="$s/munge/munge.seed" ||
        die "munged did not start (see $s/log/munged.log)"
    # the node's shape as slurmd sees it (every host sees the machine's processors)
    shape=$(slurmd -C | sed -n 's/^NodeName=[^ ]* \(CPUs=.*\) RealMemory=\([0-9]*\).*/\1/p')
    [ -n "$shape" ] || die "slurmd -C did not describe this machine"
    cat >"$s/slurm.conf" <<EOF
# Slurm for the test cluster $id (testing/cluster/slurm.sh)
ClusterName=acl$id
SlurmctldHost=acl-$id-head(10.77.0.254)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$s/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$s/state
SlurmdSpoolDir=$s/spool/%n
# each node's own scratch: Slurm's pmix plugin makes a directory per step there, by the
# same name on every node (they would meet in the machine's one /tmp)
TmpFS=$s/tmp/%n
SlurmctldPidFile=$s/slurmctld.pid
SlurmdPidFile=$s/slurmd.%n.pid
SlurmctldLogFile=$s/log/slurmctld.log
SlurmdLogFile=$s/log/slurmd.%n.log
ProctrackType=proctrack/pgid
TaskPlugin=task/affinity
TaskPluginParam=None
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
# nodes share this machine's processors: each says what slurmd -C saw
NodeName=acl-$id-h[1-$n] NodeAddr=10.77.0.[1-$n] $shape State=UNKNOWN
PartitionName=all Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
    # no cgroup hierarchy is used, but slurmd reads this file at start
    echo "CgroupPlugin=cgroup/v1" >"$s/cgroup.conf"
    # Slurm's pmix plugin: every fence on the ring algorithm. By default a fence that
    # collects no data runs on its tree algorithm, which here (Slurm 22.05, Debian 12)
    # released each node's tasks without waiting for the other nodes (fence_probe.c shows
    # it). Open MPI 4.1 ends MPI_Init with such a fence and relies on it: a process that
    # left it sent to a peer still setting up, which crashed inside MPI_Init (1 to 3
    # launches in 100 at 2 hosts x 2).
    echo "PMIxCollFence=ring" >"$s/mpi.conf"
    export SLURM_CONF="$s/slurm.conf"
    on head slurmctld -f "$SLURM_CONF" -i ||
        die "slurmctld did not start (see $s/log/slurmctld.log)"
    i=1
    while [ $i -le "$n" ]; do
        mkdir -p "$s/spool/acl-$id-h$i" "$s/tmp/acl-$id-h$i"
        on "h$i" slurmd -f "$SLURM_CONF" || die "slurmd on h$i did not start (see $s/log)"
        i=$((i + 1))
    done
    wait_idle
}

# wait_idle: every node idle (no job on it, none completing), within 30 s
wait_idle() {
    n=$(cat "$dir/nhosts")
    tries=0
    while :; do
        idle=$(SLURM_CONF=$dir/slurm/slurm.conf on head sinfo -h -N -t idle -o %N 2>/dev/null | wc -l)
        [ "$idle" -ge "$n" ] && break
        tries=$((tries + 1))
        [ $tries -lt 150 ] ||
            die "after 30 s, $idle of $n nodes idle: $(SLURM_CONF=$dir/slurm/slurm.conf on head sinfo -N 2>&1 | tr '\n' ' ')"
        sleep 0.2
    done
}

down() {
    s=$dir/slurm
    for f in "$s"/slurmd.*.pid "$s/slurmctld.pid" "$s/munge/munged.pid"; do
        [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null || true
    done
}

cmd=${1:-}
dir=${2:-}
case $cmd in
up | down | idle | env | run)
    [ -n "$dir" ] && [ -f "$dir/nhosts" ] || die "$cmd: usage: $cmd DIR (a cluster of hosts.sh)"
    ;;
*)
    echo "usage: $0 up DIR | down DIR | idle DIR | env DIR | run DIR COMMAND..." >&2
    exit 2
    ;;
esac
case $cmd in
up) up ;;
down) down ;;
idle)
    SLURM_CONF=$dir/slurm/slurm.conf on head scancel --quiet --user=root || true
    wait_idle
    ;;
env) echo "SLURM_CONF=$dir/slurm/slurm.conf; export SLURM_CONF" ;;
run)
    shift 2
    [ -f "$dir/slurm/slurm.conf" ] || die "run: no Slurm on $dir (slurm.sh up first)"
    SLURM_CONF=$dir/slurm/slurm.conf on head "$@"
    ;;
esac
