#!/bin/sh
# The MPI test programs under every configuration that takes a different path through
# the runtime: shared memory on; shared memory off over libfabric's tcp, shm and
# sockets providers; several nodes (ARMCI_NODE_SIZE: shared memory within, libfabric
# between); the buffered protocol; software and native accumulates; the get cache.
# Prints one TAP line per run (report.sh); exits non-zero if any run failed.
here=$(cd "$(dirname "$0")" && pwd)
bin=${top_builddir:-.}/testing/mpi
run="$here/run-mpi.sh"
. "$here/report.sh"
# In the sanitizer build every program here is also checked for leaks (see tester.h and
# lsan.supp); the slow unwinder, because Open MPI's code has no frame pointers.
san=0
if grep -q '^SAN_CFLAGS = .*-fsanitize=address' "${top_builddir:-.}/Makefile" 2>/dev/null; then
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1:fast_unwind_on_malloc=0"
    export LSAN_OPTIONS="suppressions=$here/lsan.supp"
    san=1
fi
# Runs that take no path of the runtime's own that the others do not (another process
# count on the same path, another provider behind the same code, a peer made late on
# purpose) are left to the plain build: the sanitizer build, twice as slow, checks the
# code of every path, and CI has both within its budget.
most() { # most NAME NPROCS ENV...: as one, but not in the sanitizer build
    [ "$san" = 1 ] || one "$@"
}

one() { # one NAME NPROCS ENV... -- PROGRAM
    name=$1
    np=$2
    shift 2
    log=$(mktemp)
    env "$@" "$run" "$np" $prog >"$log" 2>&1
    report $? "$name" "$log"
    rm -f "$log"
}

for t in t_contig t_acc t_handles t_memory t_progress t_strided t_vector t_sync t_msg t_groups \
    t_values t_threads t_agg t_order; do
    prog="$bin/$t"
    one "$t np=2 shm" 2 ARMCI_SHM=1
    most "$t np=3 shm" 3 ARMCI_SHM=1
    one "$t np=4 shm" 4 ARMCI_SHM=1
    one "$t np=2 fabric tcp" 2 ARMCI_SHM=0 FI_PROVIDER=tcp
    one "$t np=4 fabric tcp" 4 ARMCI_SHM=0 FI_PROVIDER=tcp
    most "$t np=2 fabric shm-provider" 2 ARMCI_SHM=0 FI_PROVIDER=shm
    one "$t np=3 fabric sockets" 3 ARMCI_SHM=0 FI_PROVIDER=sockets
    # several nodes: shared memory within each, libfabric between them (ARMCI_NODE_SIZE
    # cuts this machine into nodes), evenly and unevenly
    one "$t np=4 two nodes of 2, tcp" 4 ARMCI_NODE_SIZE=2 FI_PROVIDER=tcp
    one "$t np=3 nodes of 2 and 1, sockets" 3 ARMCI_NODE_SIZE=2 FI_PROVIDER=sockets
    case $t in
    t_agg)
        one "$t np=3 fabric tcp, flush on fill" 3 ARMCI_SHM=0 FI_PROVIDER=tcp ARMCI_AGG_MAX=100
        ;;
    esac
    # tiny bounce buffers, so that one operation takes many messages
    case $t in
    t_values | t_strided | t_acc | t_vector | t_agg | t_order)
        one "$t np=3 fabric tcp, 4 KiB bounce buffers, 4 of them" 3 ARMCI_SHM=0 \
            FI_PROVIDER=tcp ARMCI_BOUNCE_SIZE=4096 ARMCI_BOUNCE_COUNT=4
        ;;
    esac
    # messages in segments (rxm's own eager limit) and nothing but the caller to move
    # them (t_agg leaves out: it waits in MPI_Barrier while peers fence to it, which
    # needs a progress thread)
    case $t in
    t_values | t_strided | t_acc | t_vector | t_order)
        one "$t np=3 fabric tcp, no progress thread, rxm segments" 3 ARMCI_SHM=0 \
            FI_PROVIDER=tcp ARMCI_PROGRESS_THREAD=0 ARMCI_TCP_EAGER=0
        ;;
    esac
    # reductions through MPI's collectives instead of the node's memory or point-to-point
    case $t in
    t_msg)
        one "$t np=3 ARMCI_COLL_ALG=mpi" 3 ARMCI_COLL_ALG=mpi
        one "$t np=4 fabric tcp, ARMCI_COLL_ALG=mpi" 4 ARMCI_SHM=0 FI_PROVIDER=tcp ARMCI_COLL_ALG=mpi
        ;;
    esac
    # ARMCI_Test while a transfer is truly in flight: nothing serves the sleeping target
    case $t in
    t_handles)
        one "$t np=2 fabric tcp, no progress thread, Test in flight" 2 ARMCI_SHM=0 \
            FI_PROVIDER=tcp ARMCI_PROGRESS_THREAD=0 T_INFLIGHT=1
        one "$t np=3 fabric sockets, no progress thread, Test in flight" 3 ARMCI_SHM=0 \
            FI_PROVIDER=sockets ARMCI_PROGRESS_THREAD=0 T_INFLIGHT=1
        ;;
    esac
    # the progress thread moved off its process's core and woken by every nonblocking
    # transfer
    case $t in
    t_contig | t_handles | t_progress | t_strided | t_agg)
        one "$t np=2 fabric tcp, progress thread on CPUs 0-1, always woken" 2 ARMCI_SHM=0 \
            FI_PROVIDER=tcp ARMCI_PROGRESS_CPUS=0-1 ARMCI_PROGRESS_WAKE_MIN=1 T_PROGRESS_CPUS=0-1
        ;;
    esac
    # flagged puts and the messages of small contiguous puts over tcp: each acknowledged
    # at once instead of deferred; and deferred ones retired from a full request pool (the
    # origin must ask for their acknowledgement)
    case $t in
    t_values | t_progress | t_contig | t_order)
        one "$t np=3 fabric tcp, flagged puts acknowledged at once" 3 ARMCI_SHM=0 \
            FI_PROVIDER=tcp ARMCI_ACK_DEFER=0
        one "$t np=3 fabric tcp, 4 requests" 3 ARMCI_SHM=0 FI_PROVIDER=tcp ARMCI_MAX_REQUESTS=4
        ;;
    esac
    case $t in
    t_contig | t_acc | t_handles | t_strided | t_vector | t_agg | t_order)
        one "$t np=3 fabric tcp buffered" 3 ARMCI_SHM=0 FI_PROVIDER=tcp ARMCI_BUFFERED_MAX=4M \
            ARMCI_INJECT_MAX=0 ARMCI_PUT_MESSAGE_MAX=0
        ;;
    esac
    # small contiguous puts over tcp as RMA writes, each waiting for the one before it,
    # instead of messages (ARMCI_PUT_MESSAGE_MAX); and as messages of their own, not
    # sharing one (ARMCI_PUT_COMBINE)
    case $t in
    t_contig | t_order | t_values)
        one "$t np=3 fabric tcp, puts as writes" 3 ARMCI_SHM=0 FI_PROVIDER=tcp ARMCI_PUT_MESSAGE_MAX=0
        ;;
    esac
    case $t in
    t_order | t_values)
        one "$t np=3 fabric tcp, a message per put" 3 ARMCI_SHM=0 FI_PROVIDER=tcp ARMCI_PUT_COMBINE=0
        ;;
    esac
    # a provider whose messages are short: gets and puts go in pieces, direct ones (4 KiB)
    # and buffered ones (1000 bytes, shorter than a bounce buffer and not a divisor of it)
    case $t in
    t_contig | t_strided)
        one "$t np=3 fabric tcp, messages of 4 KiB at most" 3 ARMCI_SHM=0 FI_PROVIDER=tcp \
            ARMCI_MSG_MAX=4K
        one "$t np=3 fabric tcp buffered, messages of 1000 bytes at most" 3 ARMCI_SHM=0 \
            FI_PROVIDER=tcp ARMCI_MSG_MAX=1000 ARMCI_BUFFERED_MAX=4M ARMCI_INJECT_MAX=0 \
            ARMCI_PUT_MESSAGE_MAX=0
        ;;
    esac
    case $t in
    t_acc | t_contig | t_strided | t_vector | t_sync | t_threads | t_order)
        one "$t np=4 fabric tcp software-acc" 4 ARMCI_SHM=0 FI_PROVIDER=tcp ARMCI_ACC_NATIVE=0
        one "$t np=3 fabric tcp native-acc" 3 ARMCI_SHM=0 FI_PROVIDER=tcp ARMCI_ACC_NATIVE=1
        ;;
    esac
    # the same results with every get going through the cache (transparent mode keeps
    # the semantics of a program that synchronises), on a small adaptive cache
    case $t in
    t_contig | t_acc | t_handles | t_strided | t_vector | t_sync | t_values | t_agg | t_groups | t_msg)
        one "$t np=3 fabric tcp cache=transparent" 3 ARMCI_SHM=0 FI_PROVIDER=tcp \
            ARMCI_CACHE=transparent ARMCI_CACHE_ENTRIES=64 ARMCI_CACHE_BYTES=64K
        ;;
    esac
done
# operators as Fortran passes them (no NUL) through every reduction: on the node's
# memory, between nodes (the cluster reductions then have several members), over MPI
prog="$bin/t_fstring"
one "t_fstring np=2 shm" 2 ARMCI_SHM=1
one "t_fstring np=4 shm" 4 ARMCI_SHM=1
one "t_fstring np=3 fabric tcp" 3 ARMCI_SHM=0 FI_PROVIDER=tcp
one "t_fstring np=4 two nodes of 2, tcp" 4 ARMCI_NODE_SIZE=2 FI_PROVIDER=tcp
most "t_fstring np=3 ARMCI_COLL_ALG=mpi" 3 ARMCI_COLL_ALG=mpi
# the public calls no other program makes (t_calls.c), on every path
prog="$bin/t_calls"
one "t_calls np=3 shm" 3 ARMCI_SHM=1
one "t_calls np=2 fabric tcp" 2 ARMCI_SHM=0 FI_PROVIDER=tcp
one "t_calls np=4 two nodes of 2, tcp" 4 ARMCI_NODE_SIZE=2 FI_PROVIDER=tcp
most "t_calls np=3 nodes of 2 and 1, sockets" 3 ARMCI_NODE_SIZE=2 FI_PROVIDER=sockets
# ARMCI on a sub-communicator, by its members only (t_subcomm.c): shared memory, fabric
prog="$bin/t_subcomm"
one "t_subcomm np=3 shm" 3 ARMCI_SHM=1
one "t_subcomm np=3 fabric tcp" 3 ARMCI_SHM=0 FI_PROVIDER=tcp
# members on nodes of 2 and 1: every process counts the same domains
most "t_subcomm np=5 nodes of 2 and 1, tcp" 5 ARMCI_NODE_SIZE=2 FI_PROVIDER=tcp
prog="$bin/t_subcomm mpi_comm"
one "t_subcomm np=3 shm, started by ARMCI_Init_mpi_comm" 3 ARMCI_SHM=1
# memory a process pays for the runtime: at init and first contact, per allocation per
# process (t_footprint.c). Only in the plain build, whose allocator and pages are the real
# ones; glibc's thread cache off, which would count freed blocks as in use.
prog="$bin/t_footprint"
nocache=GLIBC_TUNABLES=glibc.malloc.tcache_count=0
most "t_footprint np=4 shm" 4 ARMCI_SHM=1 $nocache
most "t_footprint np=2 fabric tcp" 2 ARMCI_SHM=0 FI_PROVIDER=tcp $nocache
most "t_footprint np=4 fabric tcp" 4 ARMCI_SHM=0 FI_PROVIDER=tcp $nocache
most "t_footprint np=4 two nodes of 2, tcp" 4 ARMCI_NODE_SIZE=2 FI_PROVIDER=tcp $nocache
most "t_footprint np=4 fabric sockets" 4 ARMCI_SHM=0 FI_PROVIDER=sockets $nocache
# the calls NWChem's DFT makes through GA, in its mix (t_nwpattern.c), on every path
prog="$bin/t_nwpattern"
one "t_nwpattern np=2 shm" 2 ARMCI_SHM=1
one "t_nwpattern np=4 shm" 4 ARMCI_SHM=1
one "t_nwpattern np=3 fabric tcp" 3 ARMCI_SHM=0 FI_PROVIDER=tcp
one "t_nwpattern np=4 two nodes of 2, tcp" 4 ARMCI_NODE_SIZE=2 FI_PROVIDER=tcp
most "t_nwpattern np=3 fabric sockets" 3 ARMCI_SHM=0 FI_PROVIDER=sockets
most "t_nwpattern np=3 fabric tcp cache=transparent" 3 ARMCI_SHM=0 FI_PROVIDER=tcp \
    ARMCI_CACHE=transparent ARMCI_CACHE_ENTRIES=64 ARMCI_CACHE_BYTES=64K
# a peer that computes past ARMCI_TIMEOUT before collectives is waited for, not reported.
# Not a race against the clock: the others' waits last at least the peer's 2 s, past the
# 1 s timeout on any machine, and a loaded one only makes them longer.
prog="$bin/t_sync"
most "t_sync np=3 shm, a peer late by more than ARMCI_TIMEOUT" 3 ARMCI_SHM=1 ARMCI_TIMEOUT=1 T_SLOW_PEER_S=2
most "t_sync np=3 fabric tcp, a peer late by more than ARMCI_TIMEOUT" 3 ARMCI_SHM=0 FI_PROVIDER=tcp ARMCI_TIMEOUT=1 T_SLOW_PEER_S=2
# ARMCI-MPI's extensions (armcix.h): group split/dup and mutex handles, on each path a
# compare-and-swap takes (CPU atomics, the target's handler, libfabric's atomics)
prog="$bin/t_armcix"
one "t_armcix np=2 shm" 2 ARMCI_SHM=1
one "t_armcix np=3 shm" 3 ARMCI_SHM=1
one "t_armcix np=4 shm" 4 ARMCI_SHM=1
one "t_armcix np=2 fabric tcp" 2 ARMCI_SHM=0 FI_PROVIDER=tcp
one "t_armcix np=4 fabric tcp" 4 ARMCI_SHM=0 FI_PROVIDER=tcp
one "t_armcix np=3 fabric sockets" 3 ARMCI_SHM=0 FI_PROVIDER=sockets
one "t_armcix np=4 two nodes of 2, tcp" 4 ARMCI_NODE_SIZE=2 FI_PROVIDER=tcp
one "t_armcix np=4 fabric tcp software-acc" 4 ARMCI_SHM=0 FI_PROVIDER=tcp ARMCI_ACC_NATIVE=0
one "t_armcix np=3 fabric tcp native-acc" 3 ARMCI_SHM=0 FI_PROVIDER=tcp ARMCI_ACC_NATIVE=1
# (their misuse cases are in errors.sh)
# the profiling interface: the program's own ARMCI_Put/Get/Barrier call through to PARMCI_*,
# and every PARMCI_ name is called and checked; the argument picks the PARMCI_Init* that
# brings ARMCI up (the others nest)
prog="$bin/t_parmci"
one "t_parmci np=3 shm" 3 ARMCI_SHM=1
one "t_parmci np=2 fabric tcp" 2 ARMCI_SHM=0 FI_PROVIDER=tcp
prog="$bin/t_parmci args"
one "t_parmci np=2 shm, PARMCI_Init_args starts MPI" 2 ARMCI_SHM=1
prog="$bin/t_parmci thread"
one "t_parmci np=3 fabric tcp, PARMCI_Init_thread starts MPI" 3 ARMCI_SHM=0 FI_PROVIDER=tcp
prog="$bin/t_parmci thread_comm"
one "t_parmci np=3 shm, PARMCI_Init_thread_comm on the world reversed" 3 ARMCI_SHM=1
prog="$bin/t_parmci mpi_comm"
one "t_parmci np=2 fabric tcp, PARMCI_Init_mpi_comm on the world reversed" 2 ARMCI_SHM=0 FI_PROVIDER=tcp
# ARMCI_Init and ARMCI_Finalize nest (the application's MPI, or one ARMCI starts)
prog="$bin/t_init"
one "t_init np=3 shm" 3 ARMCI_SHM=1
one "t_init np=2 fabric tcp" 2 ARMCI_SHM=0 FI_PROVIDER=tcp
prog="$bin/t_init armci-mpi"
one "t_init np=3 shm, ARMCI initialises MPI" 3 ARMCI_SHM=1
one "t_init np=2 fabric tcp, ARMCI initialises MPI" 2 ARMCI_SHM=0 FI_PROVIDER=tcp
# the get cache: modes, invalidation, fills (hits asserted on the fabric path)
prog="$bin/t_cache"
one "t_cache np=2 fabric tcp" 2 ARMCI_SHM=0 FI_PROVIDER=tcp
one "t_cache np=3 fabric sockets" 3 ARMCI_SHM=0 FI_PROVIDER=sockets
one "t_cache np=2 fabric shm-provider" 2 ARMCI_SHM=0 FI_PROVIDER=shm
one "t_cache np=3 fabric tcp buffered, small fixed cache" 3 ARMCI_SHM=0 FI_PROVIDER=tcp \
    ARMCI_BUFFERED_MAX=4M ARMCI_CACHE_ADAPTIVE=0 ARMCI_CACHE_ENTRIES=256 ARMCI_CACHE_BYTES=16K
one "t_cache np=3 shm (data only)" 3 ARMCI_SHM=1
one "t_cache np=2 fabric tcp, ARMCI_CACHE=user" 2 ARMCI_SHM=0 FI_PROVIDER=tcp ARMCI_CACHE=user
one "t_cache np=4 two nodes of 2, tcp" 4 ARMCI_NODE_SIZE=2 FI_PROVIDER=tcp
# collectives: any P (8 oversubscribed is fine for correctness), every shared-heap algorithm
# (the default, auto, takes pull for small data and morton above)
prog="$bin/t_coll"
for alg in morton naive pull auto; do
    for np in 1 3 4 8; do
        one "t_coll np=$np $alg" $np ARMCI_COLL_ALG=$alg
    done
done
# large private send buffers read in place (process_vm_readv) from every block size, or
# always staged
one "t_coll np=3 ARMCI_COLL_CMA=1" 3 ARMCI_COLL_CMA=1
one "t_coll np=4 ARMCI_COLL_CMA=1 morton" 4 ARMCI_COLL_CMA=1 ARMCI_COLL_ALG=morton
one "t_coll np=3 ARMCI_COLL_CMA=0" 3 ARMCI_COLL_CMA=0
one "t_coll np=3 fabric tcp (MPI across)" 3 ARMCI_SHM=0 FI_PROVIDER=tcp
one "t_coll np=4 two nodes of 2 (auto: MPI across, oversubscribed)" 4 ARMCI_NODE_SIZE=2 FI_PROVIDER=tcp
one "t_coll np=2 two nodes of 1, hierarchical" 2 ARMCI_NODE_SIZE=1 FI_PROVIDER=tcp ARMCI_COLL_NODES=hier
for alg in morton naive; do
    one "t_coll np=4 two nodes of 2, hierarchical, $alg" 4 ARMCI_NODE_SIZE=2 FI_PROVIDER=tcp \
        ARMCI_COLL_NODES=hier ARMCI_COLL_ALG=$alg
    one "t_coll np=3 nodes of 2 and 1, hierarchical, $alg" 3 ARMCI_NODE_SIZE=2 FI_PROVIDER=tcp \
        ARMCI_COLL_NODES=hier ARMCI_COLL_ALG=$alg
done
one "t_coll np=8 nodes of 3, 3 and 2, hierarchical" 8 ARMCI_NODE_SIZE=3 FI_PROVIDER=tcp \
    ARMCI_COLL_NODES=hier
# soak, shortened (make soak runs 10^6 operations): data, resources given back, no growth
prog="$bin/t_soak 100000"
one "t_soak np=4 shm" 4 ARMCI_SHM=1
one "t_soak np=4 fabric tcp" 4 ARMCI_SHM=0 FI_PROVIDER=tcp
one "t_soak np=4 two nodes of 2, tcp" 4 ARMCI_NODE_SIZE=2 FI_PROVIDER=tcp
one "t_soak np=4 fabric tcp buffered, 4 requests, 2 bounce buffers" 4 ARMCI_SHM=0 FI_PROVIDER=tcp \
    ARMCI_BUFFERED_MAX=64K ARMCI_MAX_REQUESTS=4 ARMCI_BOUNCE_COUNT=2
finish suite
