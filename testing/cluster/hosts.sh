#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A cluster of hosts on this machine, for runs that cross real node boundaries:
#
#   hosts.sh up N       bring up N hosts (1-4); prints the cluster's directory
#   hosts.sh down DIR   tear that cluster down
#   hosts.sh clean      remove what runs that no longer exist left behind
#   hosts.sh sweep DIR  end every process on the hosts but their keepers and daemons
#                       (what a run that outlived its timeout left there)
#   hosts.sh shape DIR RATE   limit every host's link to RATE each way (tc's tbf; e.g.
#                       10gbit, 25gbit; "off" lifts the limit)
#   hosts.sh cut DIR H  take host H's fabric link down at the switch (the bridge's end of
#                       its eth1): its MPI and launcher traffic go on over eth0, its
#                       libfabric traffic (FI_TCP_IFACE=eth1) goes nowhere
#
# With FABRIC_NET=1, `up` gives each host a second link, eth1, on a second bridge
# (10.78.0.0/24): a fabric of its own beside the network MPI and the launcher use, as a
# cluster's high-speed network sits beside its management Ethernet, so that a test can cut
# one host off the fabric alone.
#
# Each host is a network namespace (its own interfaces and addresses), a UTS namespace
# (its own hostname) and a mount namespace (a private /dev/shm and its own /etc/hosts),
# held open by one sleeping "keeper" process that launchers enter with nsenter. The hosts
# hang off a bridge that lives in one more namespace, the head node, where mpirun runs;
# so every address of the cluster (10.77.0.0/24) exists only inside namespaces made here,
# and nothing of it is visible from, or routed to, the machine's own network. Because
# each cluster has namespaces of its own, clusters of concurrent runs cannot collide:
# the only machine-wide names are the namespaces' (/run/netns/acl-ID-*), and ID is new
# for every run. A cluster whose owner (the process that asked for it) has died is
# removed by the next `up` or `clean`. Needs root (CAP_SYS_ADMIN and CAP_NET_ADMIN).
set -eu
state_root=/run/armci-cluster
net=10.77.0
fabnet=10.78.0

die() {
    echo "hosts.sh: $*" >&2
    exit 1
}

# sweep DIR: every process in the cluster's namespaces but the keepers and the daemons
# that serve the hosts (slurm.sh's munged, slurmctld and slurmds)
sweep() {
    dir=$1
    keepers=" $(cat "$dir"/*.pid "$dir"/slurm/*.pid "$dir"/slurm/munge/*.pid 2>/dev/null | tr '\n' ' ')"
    for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^acl-$(basename "$dir")-" || true); do
        for p in $(ip netns pids "$ns" 2>/dev/null || true); do
            case $keepers in
            *" $p "*) ;;
            *) kill -9 "$p" 2>/dev/null || true ;;
            esac
        done
    done
}

# down DIR: every process in the cluster's namespaces, then the namespaces (their
# interfaces go with them), then the directory. Safe on a half-built cluster.
down() {
    dir=$1
    id=$(basename "$dir")
    for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^acl-$id-" || true); do
        pids=$(ip netns pids "$ns" 2>/dev/null || true)
        [ -z "$pids" ] || kill -9 $pids 2>/dev/null || true
    done
    for f in "$dir"/*.pid; do
        [ -f "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null || true
    done
    for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^acl-$id-" || true); do
        ip netns delete "$ns" 2>/dev/null || true
    done
    rm -rf "$dir"
}

# alive PID: the process exists and is not a zombie (a killed owner stays one until
# its parent reaps it)
alive() {
    [ "$1" -gt 0 ] && [ -r "/proc/$1/stat" ] &&
        [ "$(sed 's/^.*) \(.\).*$/\1/' "/proc/$1/stat" 2>/dev/null)" != Z ]
}

# clean: clusters whose owner is gone, and namespaces left without a directory (a run
# killed between creating them and writing its state).
clean() {
    mkdir -p "$state_root"
    for dir in "$state_root"/*; do
        [ -d "$dir" ] || continue
        alive "$(cat "$dir/owner" 2>/dev/null || echo 0)" || down "$dir"
    done
    for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep '^acl-' || true); do
        id=$(echo "$ns" | cut -d- -f2)
        [ -d "$state_root/$id" ] || down "$state_root/$id"
    done
}

# keeper NS HOSTNAME DIR NAME: a process in network namespace NS with a UTS and a
# mount namespace of its own, in which the hostname, /dev/shm and /etc/hosts are set.
# Its pid goes to DIR/NAME.pid once the host is ready.
keeper() {
    ns=$1 hn=$2 dir=$3 name=$4
    ip netns exec "$ns" unshare --uts --mount --propagation private sh -c '
        hostname "$1" &&
        mount -t tmpfs -o mode=1777 "$1-shm" /dev/shm &&
        mount --bind "$2/hosts" /etc/hosts &&
        echo $$ >"$2/$3.pid.tmp" && mv "$2/$3.pid.tmp" "$2/$3.pid" &&
        exec sleep 2147483647' keeper "$hn" "$dir" "$name" </dev/null >/dev/null 2>&1 &
    tries=0
    while [ ! -f "$dir/$name.pid" ]; do
        kill -0 $! 2>/dev/null || die "could not set up host $hn (namespace $ns)"
        tries=$((tries + 1))
        [ $tries -lt 500 ] || die "host $hn did not come up in 5 s"
        sleep 0.01
    done
}

up() {
    n=$1
    case $n in
    1 | 2 | 3 | 4) ;;
    *) die "up: N must be 1 to 4 (got '$n')" ;;
    esac
    [ "$(id -u)" -eq 0 ] || die "needs root to make network namespaces (running as uid $(id -u))"
    command -v ip >/dev/null || die "needs iproute2's ip"
    command -v unshare >/dev/null && command -v nsenter >/dev/null || die "needs util-linux's unshare and nsenter"
    clean
    id=$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')
    dir=$state_root/$id
    mkdir -p "$dir"
    echo "${OWNER:-$PPID}" >"$dir/owner"
    echo "$n" >"$dir/nhosts"
    # a failure half-way leaves nothing behind
    trap 'down "$dir"' EXIT
    trap 'exit 1' HUP INT TERM
    head=acl-$id-head
    {
        echo "127.0.0.1 localhost"
        echo "$net.254 $head"
        i=1
        while [ $i -le "$n" ]; do
            echo "$net.$i acl-$id-h$i"
            i=$((i + 1))
        done
    } >"$dir/hosts"
    ip netns add "$head"
    ip -n "$head" link set lo up
    ip -n "$head" link add br0 type bridge
    ip -n "$head" addr add "$net.254/24" dev br0
    ip -n "$head" link set br0 up
    if [ "${FABRIC_NET:-0}" = 1 ]; then
        ip -n "$head" link add br1 type bridge
        ip -n "$head" addr add "$fabnet.254/24" dev br1
        ip -n "$head" link set br1 up
        echo 1 >"$dir/fabric"
    fi
    keeper "$head" "$head" "$dir" head
    : >"$dir/hostfile"
    i=1
    while [ $i -le "$n" ]; do
        h=acl-$id-h$i
        ip netns add "$h"
        ip -n "$h" link set lo up
        ip -n "$head" link add "v$i" type veth peer name eth0 netns "$h"
        ip -n "$head" link set "v$i" master br0 up
        ip -n "$h" addr add "$net.$i/24" dev eth0
        ip -n "$h" link set eth0 up
        if [ -f "$dir/fabric" ]; then
            ip -n "$head" link add "f$i" type veth peer name eth1 netns "$h"
            ip -n "$head" link set "f$i" master br1 up
            ip -n "$h" addr add "$fabnet.$i/24" dev eth1
            ip -n "$h" link set eth1 up
        fi
        keeper "$h" "$h" "$dir" "h$i"
        echo "$h" >>"$dir/hostfile"
        i=$((i + 1))
    done
    trap - EXIT HUP INT TERM
    echo "$dir"
}

# shape DIR RATE: a token bucket on both ends of each host's link (the host's eth0 sends
# to the bridge, the head's vN to the host). The bucket holds 2 ms of traffic: less would
# throttle below RATE (the kernel hands TCP over in 64 KiB segments, and the bucket is
# refilled at timer ticks); more would let bursts through at memory speed.
shape() {
    dir=$1 rate=$2
    id=$(basename "$dir")
    n=$(cat "$dir/nhosts")
    i=1
    while [ $i -le "$n" ]; do
        for dev in "acl-$id-h$i eth0" "acl-$id-head v$i"; do
            set -- $dev
            if [ "$rate" = off ]; then
                ip netns exec "$1" tc qdisc del dev "$2" root 2>/dev/null || true
            else
                bits=$(echo "$rate" | sed 's/gbit$/000000000/; s/mbit$/000000/')
                case $bits in
                *[!0-9]*) die "shape: rate '$rate' is not Ngbit or Nmbit" ;;
                esac
                burst=$((bits / 8 / 500))
                ip netns exec "$1" tc qdisc replace dev "$2" root tbf rate "$rate" \
                    burst "$burst" latency 50ms ||
                    die "shape: tc could not limit $2 in $1 (is sch_tbf available?)"
            fi
        done
        i=$((i + 1))
    done
    echo "$rate" >"$dir/rate"
}

case ${1:-} in
up) up "${2:-2}" ;;
shape)
    [ -d "${2:-}" ] && [ -n "${3:-}" ] || die "shape: usage: shape DIR RATE"
    shape "$2" "$3"
    ;;
down)
    [ -n "${2:-}" ] || die "down: which cluster (its directory)?"
    case $2 in
    "$state_root"/*) down "$2" ;;
    *) die "down: $2 is not a cluster directory (under $state_root)" ;;
    esac
    ;;
clean) clean ;;
cut)
    [ -d "${2:-}" ] && [ -f "$2/fabric" ] && [ -n "${3:-}" ] ||
        die "cut: usage: cut DIR HOST, on a cluster brought up with FABRIC_NET=1"
    ip -n "acl-$(basename "$2")-head" link set "f$3" down
    ;;
sweep)
    [ -d "${2:-}" ] || die "sweep: usage: sweep DIR"
    sweep "$2"
    ;;
*)
    echo "usage: $0 up N | down DIR | clean | sweep DIR | shape DIR RATE | cut DIR HOST" >&2
    exit 2
    ;;
esac
