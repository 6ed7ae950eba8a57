#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# ARMCI_STATS counts what a program did: a run with a known number of operations must find
# exactly that number, per process, on the path it took.
here=$(cd "$(dirname "$0")" && pwd)
prog=${top_builddir:-.}/testing/mpi/t_stats
run="$here/run-mpi.sh"
. "$here/report.sh"
check() { # check NAME "python expression over c (counters) and n" ENV...
    name=$1
    expr=$2
    shift 2
    json=$(mktemp)
    # run_case (report.sh): the program passes, the summary is printed, and the counters
    # of the file satisfy the expression (the file's head goes into the log for the reader)
    run_case "stats/$name" --want "statistics over 3 processes" \
        --then "head -30 '$json' >>\"\$log\"; python3 -c \"import json,sys; d=json.load(open('$json')); c=d['counters']; n=d['processes']; sys.exit(0 if ($expr) else 1)\"" \
        -- env ARMCI_STATS=1 ARMCI_STATS_FILE="$json" "$@" "$run" 3 "${PROG:-$prog}"
    rm -f "$json"
}
all() { echo "all(x == $2 for x in c['$1'])"; }
# (defaults: no keep-warm pass without the fabric, no copy large enough to go around the
# cache; see below)
check "same node: 1000 gets, 100 puts (and 100 flagged on processes 0 and 1), 10 acc, 5 rmw, all local" \
    "$(all 'get local' 1000) and c['put local'] == [200, 200, 100] and $(all 'acc local' 10) and $(all 'rmw local' 5) and $(all 'get bytes' 8000) and $(all 'keep-warm passes' 0) and $(all 'copies around the cache' 0)" \
    ARMCI_SHM=1
# (a small blocking get goes direct, or as a datagram where its holder seemed to compute:
# src/transport/serve.c; the two add up)
check "fabric: 1000 direct gets, 100 puts as messages (and 100 flagged on processes 0 and 1), 10 message accs, 5 message rmws" \
    "all(c['get direct'][i] + c['get message'][i] == 1000 for i in range(3)) and c['put message'] == [200, 200, 100] and $(all 'put direct' 0) and $(all 'acc message' 10) and $(all 'rmw message' 5) and $(all 'get local' 0) and $(all 'keep-warm passes' 0)" \
    ARMCI_SHM=0 FI_PROVIDER=tcp
check "fabric, ARMCI_PUT_MESSAGE_MAX=0: 100 direct puts, only the flagged ones as messages" \
    "$(all 'put direct' 100) and c['put message'] == [100, 100, 0]" \
    ARMCI_SHM=0 FI_PROVIDER=tcp ARMCI_PUT_MESSAGE_MAX=0
check "fabric with bounce buffers: 1000 buffered gets" \
    "$(all 'get buffered' 1000) and $(all 'put buffered' 100)" \
    ARMCI_SHM=0 FI_PROVIDER=tcp ARMCI_BUFFERED_MAX=1K ARMCI_PUT_MESSAGE_MAX=0 ARMCI_SERVE=0
check "fabric, get cache always: 1 direct get, 999 from the cache" \
    "$(all 'get direct' 1) and $(all 'get cache hits' 999) and c['put message'] == [200, 200, 100]" \
    ARMCI_SHM=0 FI_PROVIDER=tcp ARMCI_CACHE=always
check "fabric, native atomics: 10 atomic accs, 5 atomic rmws" \
    "$(all 'acc atomic' 10) and $(all 'rmw atomic' 5)" \
    ARMCI_SHM=0 FI_PROVIDER=tcp ARMCI_ACC_NATIVE=1
# With libfabric's atomics and node peers, every accumulate and read-modify-write takes
# them, to node peers too (t_atomics: 4000 accumulates and 8000 fetch-and-adds per
# process, all on process 0, which shares a node with process 1): none is applied by a
# CPU, whose add would not be atomic with the provider's.
PROG=${top_builddir:-.}/testing/mpi/t_atomics check \
    "nodes of 2 and 1, native atomics: node peers' accumulates and rmws atomic too" \
    "$(all 'acc atomic' 4000) and $(all 'rmw atomic' 8000) and $(all 'acc local' 0) and $(all 'rmw local' 0)" \
    ARMCI_NODE_SIZE=2 FI_PROVIDER=tcp ARMCI_ACC_NATIVE=1
# 64 KiB blocks from malloc: naive (Morton needs every receive buffer in the heap), each
# process reading its 2 peers' blocks straight from their memory where the system lets it.
# Whether it does is read here from the system, not from the runtime's own probe: Yama's
# ptrace scope 0 lets sibling processes read each other, 1 and 2 only root; a seccomp
# filter may forbid the call whatever they say.
check "same node collectives: 13 pull (3 of them reductions), 4 naive" \
    "$(all 'collectives pull' 13) and $(all 'collectives naive' 4)" ARMCI_SHM=1
scope=$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 0)
seccomp=$(sed -n 's/^Seccomp:[[:space:]]*//p' /proc/self/status)
if [ "${seccomp:-0}" != 0 ]; then
    skip "stats/same node collectives: blocks by CMA" \
        "a seccomp filter (Seccomp: $seccomp) may forbid process_vm_readv here"
elif [ "$scope" = 0 ] || { [ "$(id -u)" = 0 ] && [ "$scope" -lt 3 ]; }; then
    check "same node collectives: 8 blocks by CMA (the system lets processes read each other)" \
        "$(all 'collective blocks by CMA' 8)" ARMCI_SHM=1
else
    check "same node collectives: no block by CMA (ptrace scope $scope forbids it to uid $(id -u))" \
        "$(all 'collective blocks by CMA' 0)" ARMCI_SHM=1
fi
check "same node collectives, ARMCI_COLL_CMA=0: no blocks by CMA" \
    "$(all 'collectives naive' 4) and $(all 'collective blocks by CMA' 0)" \
    ARMCI_SHM=1 ARMCI_COLL_CMA=0
check "fabric collectives: 14 through MPI; by point-to-point 4 barriers, 3 reductions, the short broadcast, a group's barrier and reduction" \
    "$(all 'collectives mpi' 14) and $(all 'collectives p2p' 10)" \
    ARMCI_SHM=0 FI_PROVIDER=tcp
check "fabric collectives, ARMCI_COLL_ALG=mpi: barriers, reductions and broadcasts too through MPI" \
    "$(all 'collectives mpi' 14) and $(all 'collectives p2p' 0)" \
    ARMCI_SHM=0 FI_PROVIDER=tcp ARMCI_COLL_ALG=mpi
# ARMCIX_Progress in a loop with nothing to do: yields the processor each time when told to
# (auto: when processes outnumber hardware threads), never when told not to (processes 0
# and 1 also wait for flags in ARMCIX_Progress afterwards)
check "idle ARMCIX_Progress, ARMCI_YIELD_IDLE=1: 1000 yields" \
    "c['idle ARMCIX_Progress yields'][2] == 1000 and min(c['idle ARMCIX_Progress yields']) >= 1000" \
    ARMCI_SHM=1 ARMCI_YIELD_IDLE=1
check "idle ARMCIX_Progress, ARMCI_YIELD_IDLE=0: no yields" \
    "$(all 'idle ARMCIX_Progress yields' 0)" \
    ARMCI_SHM=1 ARMCI_YIELD_IDLE=0
# A flagged put's acknowledgement rides on the answer: processes 0 and 1 send none of
# their own for the 100 flagged puts each receives in the ping-pong, at most 10 for the
# accumulates (blocking ones share a message, ARMCI_PUT_COMBINE, acknowledged at once), at
# most one for a flagged put its peer waits for at the barrier and at most one for the
# 100 plain puts before the accumulates (messages over tcp, sharing one or a few, their
# acknowledgement deferred too, which the accumulates' usually carries); with every one
# acknowledged at once, the 100 flagged puts and at least one message of accumulates and
# one of plain puts.
check "fabric, flagged-put ping-pong: acknowledgements ride on the answers" \
    "all(c['put message'][i] == 200 and c['acknowledgements sent'][i] <= 12 for i in (0, 1))" \
    ARMCI_SHM=0 FI_PROVIDER=tcp
# (ARMCI_SERVE=0: the accumulates stay messages; by datagram they are answered, not
# acknowledged)
check "fabric, flagged-put ping-pong, ARMCI_ACK_DEFER=0: every one acknowledged at once" \
    "all(c['acknowledgements sent'][i] >= 102 for i in (0, 1)) and $(all 'acknowledgements asked for' 0)" \
    ARMCI_SHM=0 FI_PROVIDER=tcp ARMCI_ACK_DEFER=0 ARMCI_SERVE=0
# The keep-warm pass (src/core/warm.c) runs in the progress thread: by default where
# libfabric needs the thread and the process has same-node peers in node memory; with
# ARMCI_KEEP_WARM=1 also without them, or in a job of one node, where it starts the
# thread for this alone. Each pass reads the runtime's state, counters, region table and
# the operations' code (over 100 lines). It changes no count of operations. A pass needs
# a wake-up of the thread that finds the runtime's lock free, which the busy program above
# may never leave it (0 passes in 1 of 6 runs at the default millisecond, 2026-11-25); so
# each process ends with 300 ms outside ARMCI (T_IDLE_MS), some 3000 wake-ups at the
# 100 us interval set here, of which one must make a pass: a timed window, its margin
# measured (1996 to 12672 passes per process in 5 runs on 2 cores, 2026-11-27), so only
# a thread given no processor for the whole window can fail it.
warm="c['keep-warm passes']"
check "same node, ARMCI_KEEP_WARM=1: every process's thread reads the hot lines" \
    "all(p >= 1 and l >= 100 * p for p, l in zip($warm, c['keep-warm lines read'])) and $(all 'get local' 1000)" \
    ARMCI_SHM=1 ARMCI_KEEP_WARM=1 ARMCI_PROGRESS_INTERVAL_US=100 T_IDLE_MS=300
# (auto at one node, or over the fabric alone: no passes; the first two cases above)
check "nodes of 2 and 1, ARMCI_KEEP_WARM=auto: passes where a process has peers in node memory" \
    "$warm[0] >= 1 and $warm[1] >= 1 and $warm[2] == 0" \
    ARMCI_SHM=1 ARMCI_NODE_SIZE=2 FI_PROVIDER=tcp ARMCI_PROGRESS_INTERVAL_US=100 T_IDLE_MS=300
check "fabric, ARMCI_KEEP_WARM=1: passes" \
    "all(p >= 1 for p in $warm) and $(all 'get direct' 1000)" \
    ARMCI_SHM=0 FI_PROVIDER=tcp ARMCI_KEEP_WARM=1 ARMCI_PROGRESS_INTERVAL_US=100 T_IDLE_MS=300 \
    ARMCI_SERVE=0
check "nodes of 2 and 1, ARMCI_KEEP_WARM=0: no passes" \
    "$(all 'keep-warm passes' 0)" \
    ARMCI_SHM=1 ARMCI_NODE_SIZE=2 FI_PROVIDER=tcp ARMCI_KEEP_WARM=0
# Allocations made and freed while a pass reads the region table at every wake-up of a
# thread that naps 10 us: the data stay right (t_memory checks them) and, in the
# sanitizer build, no freed list is read. t_memory spends most of its time in collective
# allocations that hold the lock, so a process's thread may find it free only once or
# never (1-142 passes per process in 8 runs): passes are asserted over the job.
PROG=${top_builddir:-.}/testing/mpi/t_memory check \
    "allocate/free cycles under passes at every wake-up" "sum($warm) >= 1" \
    ARMCI_SHM=1 ARMCI_KEEP_WARM=1 ARMCI_WARM_INTERVAL_US=0 ARMCI_PROGRESS_INTERVAL_US=10
# Strided and vector gets of short blocks over the fabric (t_span): those whose blocks lie
# close together in one allocation read the range they span, one RMA read each (counted
# as direct gets); the two that cannot go as messages; with ARMCI_NC_SPAN_RATIO=0 all do.
PROG=${top_builddir:-.}/testing/mpi/t_span check \
    "fabric, t_span: 13 gets read as the range of their blocks, 2 as messages" \
    "$(all 'get direct' 13) and $(all 'get message' 2)" ARMCI_SHM=0 FI_PROVIDER=tcp
PROG=${top_builddir:-.}/testing/mpi/t_span check \
    "fabric, t_span, ARMCI_NC_SPAN_RATIO=0: all 15 as messages" \
    "$(all 'get direct' 0) and $(all 'get message' 15)" ARMCI_SHM=0 FI_PROVIDER=tcp \
    ARMCI_NC_SPAN_RATIO=0
# Where same-node copies land (ARMCI_PLACEMENT, src/base/place.c): t_contig checks the
# data of puts and gets of every size and alignment, all of them copied around the cache
# with non-temporal stores when told so, none when told not to; t_stats's small copies
# stay below auto's threshold (this process's share of the last-level cache).
PROG=${top_builddir:-.}/testing/mpi/t_contig check \
    "same node, ARMCI_PLACEMENT=memory: every copy around the cache, data right" \
    "all(x > 0 for x in c['copies around the cache'])" ARMCI_SHM=1 ARMCI_PLACEMENT=memory
PROG=${top_builddir:-.}/testing/mpi/t_contig check \
    "same node, ARMCI_PLACEMENT=cache: none around the cache" \
    "$(all 'copies around the cache' 0)" ARMCI_SHM=1 ARMCI_PLACEMENT=cache
# The same policy where data arrive by other ways: the collectives' blocks (t_coll, node
# memory), and over the fabric the copies out of bounce buffers and of packed strided
# and vector blocks that the target applies (t_strided): their data checked, every
# process having copied around the cache.
PROG=${top_builddir:-.}/testing/mpi/t_coll check \
    "same node collectives, ARMCI_PLACEMENT=memory: blocks around the cache, data right" \
    "all(x > 0 for x in c['copies around the cache'])" ARMCI_SHM=1 ARMCI_PLACEMENT=memory
PROG=${top_builddir:-.}/testing/mpi/t_strided check \
    "fabric, bounce buffers and packed blocks, ARMCI_PLACEMENT=memory: data right" \
    "all(x > 0 for x in c['copies around the cache'])" \
    ARMCI_SHM=0 FI_PROVIDER=tcp ARMCI_BUFFERED_MAX=1K ARMCI_PLACEMENT=memory
# (auto: t_stats's small copies through the cache; the first case above)

# Full queues said once (ARMCI_VERBOSE; src/transport/ofi.c): process 1 stays outside ARMCI
# for 300 ms with no progress thread while process 0 puts 20 000 blocks to it (T_FLOOD),
# so process 0 retries far more often than it has operations; the last block arrives all
# the same. Without ARMCI_VERBOSE the same retries go unsaid. Two processes, one a core:
# process 0 retries without yielding for a process of its core (some 400 000 times).
flood="ARMCI_SHM=0 FI_PROVIDER=tcp ARMCI_PROGRESS_THREAD=0 T_FLOOD=20000"
json=$(mktemp)
run_case "stats/fabric, a target outside ARMCI: queue full said once, naming it" \
    --want "rank 0: queue full: [0-9]+ retries in [0-9]+ operations so far \(the latest to rank 1\).*progress thread \(off here\)" \
    --then "[ \$(grep -c 'queue full:' \"\$log\") = 1 ]" \
    -- env $flood ARMCI_VERBOSE=1 "$run" 2 "$prog"
run_case "stats/fabric, a target outside ARMCI, quiet: the retries counted, nothing said" \
    --reject "queue full:" \
    --then "python3 -c \"import json,sys; c=json.load(open('$json'))['counters']; sys.exit(0 if c['queue-full retries'][0] >= 1024 else 1)\"" \
    -- env $flood ARMCI_STATS=1 ARMCI_STATS_FILE="$json" "$run" 2 "$prog"
rm -f "$json"
finish stats
