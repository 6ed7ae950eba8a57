#!/bin/sh
# The suite across real node boundaries: hosts of this machine made of namespaces
# (cluster/hosts.sh), each with its own hostname, network and /dev/shm, so that node
# detection finds real nodes (no ARMCI_NODE_SIZE), processes of one host share its node
# heap and those of different hosts meet only through libfabric over the cluster's
# network. Every MPI test program runs at 2 hosts x 2 processes and at 4 hosts x 1, with
# the Global Arrays test, NAS MG and CG class S in every variant, the demo, and the
# misuse cases that concern a peer. Needs root; without it this fails, in one line
# (ARMCI_TEST_CLUSTER=0 skips it instead). Part of `make check` in builds without
# sanitizers (the fabric paths it takes are the ones the sanitizer build checks on one
# host); `make check-cluster` runs it alone.
here=$(cd "$(dirname "$0")" && pwd)
top=${top_builddir:-.}
bin=$top/testing/mpi
run="$here/run-mpi.sh"
. "$here/report.sh"
if [ "${ARMCI_TEST_CLUSTER:-1}" = 0 ]; then
    echo "cluster: skipped (ARMCI_TEST_CLUSTER=0)"
    exit 77
fi
if grep -q '^SAN_CFLAGS = .*-fsanitize' "$top/Makefile" 2>/dev/null; then
    echo "cluster: skipped in a sanitizer build"
    exit 77
fi
# through sudo when that needs no password (./quickstart.sh check run by a user)
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    exec sudo -n -E env PATH="$PATH" top_builddir="$top" "$0" "$@"
fi

if ! dir=$(OWNER=$$ "$here/cluster/hosts.sh" up 4 2>&1); then
    echo "FAIL: cluster: cannot bring up hosts on this machine: $dir (ARMCI_TEST_CLUSTER=0 skips this)"
    exit 1
fi
trap '"$here/cluster/hosts.sh" down "$dir"' EXIT
trap 'exit 1' HUP INT TERM
export ARMCI_CLUSTER="$dir"
unset ARMCI_NODE_SIZE

# sweep: what an earlier run left on the hosts (a program that outlived its timeout)
sweep() {
    for ns in $(ip netns list | awk '{print $1}' | grep "^acl-$(basename "$dir")-h"); do
        for p in $(ip netns pids "$ns"); do
            [ "$p" = "$(cat "$dir/h${ns##*-h}.pid")" ] || kill -9 "$p" 2>/dev/null
        done
    done
}

one() { # one NAME HOSTS NPROCS PATTERN ENV... -- PROGRAM ARGS...: must succeed and print PATTERN
    name=$1 hosts=$2 np=$3 pattern=$4
    shift 4
    envs=
    while [ "$1" != -- ]; do
        envs="$envs $1"
        shift
    done
    shift
    log=$(mktemp)
    ok=1
    t0=$(date +%s)
    if env ARMCI_TEST_HOSTS="$hosts" $envs "$run" "$np" "$@" >"$log" 2>&1 &&
        { [ -z "$pattern" ] || grep -Eq -- "$pattern" "$log"; }; then
        ok=0
    fi
    report $ok "$name ($(($(date +%s) - t0)) s)" "$log"
    rm -f "$log"
    sweep
}

for layout in "2 2" "4 1"; do
    set -- $layout
    h=$1 np=$(($1 * $2))
    at="$1 hosts x $2"
    # the layout is the real one, and ARMCI_VERBOSE says so
    one "demo, $at: all bytes correct on $h nodes" $h $np \
        "layout: $np processes on $h node\(s\), $2 on this node" ARMCI_VERBOSE=1 -- \
        "$top/testing/demo/demo"
    for t in t_contig t_acc t_handles t_memory t_progress t_strided t_vector t_sync t_msg \
        t_groups t_values t_threads t_agg t_order t_armcix t_parmci t_init t_cache t_coll; do
        one "$t, $at" $h $np "" -- "$bin/$t"
    done
    one "t_init, $at, ARMCI initialises MPI" $h $np "" -- "$bin/t_init" armci-mpi
    one "t_soak, $at" $h $np "" -- "$bin/t_soak" 20000
    one "t_stats, $at" $h $np "" ARMCI_STATS=1 ARMCI_STATS_FILE=/dev/null -- "$bin/t_stats"
    # the same programs with the node heap off: every peer through libfabric
    for t in t_contig t_strided t_acc t_agg; do
        one "$t, $at, shared memory off" $h $np "" ARMCI_SHM=0 -- "$bin/$t"
    done
    if [ -x "$top/testing/ga/t_ga" ]; then
        one "ga, $at" $h $np " 0 failed" -- "$top/testing/ga/t_ga"
    fi
    for k in mg cg; do
        for v in mpi armci armci-nb; do
            one "$k class S $v, $at" $h $np '^ Verification += +SUCCESSFUL$' -- \
                "$top/nas_kernels/$k" --class S --variant $v
        done
    done
done
# uneven: 3 processes on 2 hosts (2 + 1)
for t in t_contig t_handles t_groups t_coll; do
    one "$t, 3 processes on 2 hosts" 2 3 "" -- "$bin/$t"
done

# misuse that concerns a peer, the peer on another host (errors.sh's peer cases)
log=$(mktemp)
ARMCI_TEST_HOSTS=2 ERRORS_PEERS_ONLY=1 "$here/errors.sh" >"$log" 2>&1
sed 's/^\(PASS\|FAIL\): /\1: 2 hosts: /' "$log"
pass=$((pass + $(grep -c '^PASS: ' "$log")))
fail=$((fail + $(grep -c '^FAIL: ' "$log")))
rm -f "$log"
finish cluster
