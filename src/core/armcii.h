/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal interface of armci-ofi: the runtime's state and the core's calls, for the API
 * layer (armci/), the core (src/core) and the layers beside it. What the transport offers
 * is in its own contract, src/transport/transport.h.
 *
 * The state is one struct per file that writes it (the others only read it; docs/layers.md,
 * "Who writes the runtime's state", and testing/layers.sh): armcii_rt, runtime.c's (who
 * this process is, the settings, the fabric's capabilities and the protocol limits);
 * armcii_topo, topo.c's (the node layout); armcii_reqs, req.c's (the request pool and the
 * table of processes); armcii_mem, alloc.c's (the region table and the allocations);
 * armcii_prog, progress.c's (the progress thread and the runtime lock).
 *
 * The core's files: runtime.c (the order of bring-up and shut-down), env.c and agree.c
 * (settings, and those that must match everywhere), topo.c and cpus.c (the machine, and
 * where the progress thread runs), region.c (every process's allocations), alloc.c
 * (allocating and freeing them) and halloc.c (a slice of the node heap), select.c (the
 * protocol of each operation), rma.c, nc.c and rmw.c (contiguous, noncontiguous and read-
 * modify-write operations, with iter.c walking descriptors, span.c reading the range of a
 * get's short blocks, and acc.c the accumulate and atomic kernels), pool.h and req.c (the
 * request pool; the life of a request), progress.c (polling, waits, the progress thread),
 * order.c (ordering and fences), place.c (where arriving data land), warm.c and hot.h
 * (keeping hot structures cached), stats.c and report.c (counters; their report), common.h
 * and error.c (what the transport shares). The core calls down into the transport
 * (transport.h), and beside it the get cache (getcache.h), the collectives' bring-up
 * (collectives.h) and the job's health (health.h); docs/layers.md has the rules.
 */
#ifndef ARMCII_H
#define ARMCII_H

#include "config.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <armci.h>
#include <armcix.h>

#include "../base/common.h"
#include "../base/hot.h"
#include "../base/env.h"
#include "../base/op.h"
#include "../base/region.h"
#include "../base/place.h"
#include "../base/pool.h"
#include "../base/select.h"
#include "../base/stats.h"
#include "../base/caps.h"
#include "../cache/getcache.h"

/** One collective allocation (ARMCI_Malloc). */
typedef struct armcii_alloc {
    /* Its blocks, one per process that asked for bytes, are in the region table; nothing
     * here grows with the number of processes unless the provider picks the keys. */
    uint64_t key;   /* every block's registration key, where caps.keys_chosen */
    uint64_t *keys; /* else each block's, by world rank (NULL where keys_chosen) */
    int empty;      /* every process asked for 0 bytes */
    void *my_base;  /* this process's block (NULL when it asked for 0 bytes) */
    size_t my_off;  /* offset of my block in my heap slice */
    size_t my_len;  /* bytes reserved in the slice (rounded) */
    armcii_mr_t mr; /* registration of my block, when the fabric is in use */
    int registered;
    MPI_Comm comm;              /* communicator it was allocated over (not owned) */
    armcii_cache_owner_t cache; /* how this process caches gets from it (the cache's) */
    struct armcii_alloc *next;
} armcii_alloc_t;

/*
 * The runtime's state, one struct for each file that writes it (see the top of this file).
 * Each starts a cache line. What a call reads every time sits together; what both the
 * caller and the progress thread write sits on lines of its own, so that the thread's
 * writes do not take from the caller the lines it only reads.
 */

/** The runtime's identity, settings and choices, made at start-up by runtime.c (which
 *  alone writes them) and read everywhere. */
typedef struct {
    /* The first line: what calls read every time (is ARMCI up, who is this, which
     * protocol an operation takes). */
    armcii_sel_limits_t limits;
    int initialized;
    /* Only one application thread calls ARMCI at a time (neither ARMCI nor MPI was asked
     * for MPI_THREAD_MULTIPLE): a few steps that touch only what API calls touch may then
     * go without the lock. */
    int one_caller;
    int rank, nproc;
    int shm;    /* same-node peers reached through shared memory */
    int fabric; /* libfabric is open */

    MPI_Comm comm; /* private duplicate of the world communicator */
    int finalized;
    armcii_caps_t caps; /* what the transport reported it can do (zero without fabric) */
    armcii_env_t env;
} __attribute__((aligned(64))) armcii_rt_t;
_Static_assert(offsetof(armcii_rt_t, comm) == 64, "what every call reads, on one line");

extern armcii_rt_t armcii_rt;

/** The node layout and the machine, as topo.c found them at start-up (written there
 *  alone; read by the collectives, the job's health and the domain calls, none of them on
 *  a small operation's way). */
typedef struct {
    MPI_Comm node_comm;
    MPI_Comm masters_comm; /* one process per node (node rank 0); MPI_COMM_NULL elsewhere */
    int node_rank, node_size, node_id, nnodes;
    int machine_size; /* processes on this machine (node_size unless ARMCI_NODE_SIZE cuts it) */
    unsigned hw_cores, hw_pus;
    size_t hw_l2, hw_l3;
} __attribute__((aligned(64))) armcii_topo_t;

extern armcii_topo_t armcii_topo;

/** What the core keeps of one process of the job, in one place (req.c makes the table from
 *  what topo.c found, and counts the requests): a small operation to a target reads how
 *  it is reached and its counters from one line. */
typedef struct {
    int node;         /* node id */
    int node_rank;    /* rank within its node */
    int path;         /* armcii_path_t: self, the node's memory or the fabric */
    int out_write;    /* puts and hardware accumulates in flight to it */
    int out_sw;       /* software accumulates awaiting their acknowledgement */
    int out_implicit; /* implicit-handle requests in flight */
    int pad[2];
} armcii_peer_t;
_Static_assert(sizeof(armcii_peer_t) == 32, "two peers to a cache line, none across two");

/** The requests and what is in flight to each process (req.c writes it, whichever thread
 *  holds the runtime lock). */
typedef struct {
    /* Set at start-up and read by every operation: on a line that nothing writes later. */
    armcii_peer_t *peers; /* every rank: where it is, what is in flight to it */
    /* Written as requests are made and completed, by the caller or the progress thread:
     * on a line of their own (the pool's free list and active list, and the counts). */
    armcii_pool_t pool __attribute__((aligned(64)));
    int implicit_total; /* implicit-handle requests in flight, to anyone */
    int ncopied;        /* requests in flight of blocking calls that returned (armcii_req_finish) */
} armcii_reqs_t;
_Static_assert(sizeof(armcii_reqs_t) == 128, "the table's line, then the pool's");

extern armcii_reqs_t armcii_reqs;

/** Every process's allocations, as alloc.c enters and removes them (the node heap itself
 *  is the transport's: armcii_node, transport.h). A lookup reads the table and moves only
 *  the per-rank cursor of the last segment found (region.h). */
typedef struct {
    armcii_region_table_t regions;
    armcii_alloc_t *allocs;
} __attribute__((aligned(64))) armcii_mem_t;

extern armcii_mem_t armcii_mem;

/** The progress engine's state (progress.c writes it; armcii_lock and armcii_unlock,
 *  below, take and release its lock). */
typedef struct {
    /* What is set once at start-up and read on every call ... */
    /* No thread moves data while the application is outside ARMCI, and the provider needs
     * the sender's calls to move it (a large message's later segments): blocking calls
     * then wait until what they sent has arrived, since the caller may next block in MPI
     * and never call ARMCI again until its peer, which waits for that data, does. */
    int sends_need_caller;
    /* Empty polls of a wait between yields of the processor: 1 where processes outnumber
     * hardware threads (ARMCI_YIELD_IDLE), so a waiter gives the processor to the peer it
     * waits for; ARMCIX_Progress then yields too when it finds nothing to do. */
    unsigned yield_after;
    /* The thread runs where no process is bound (armcii_topo_progress_elsewhere) and the
     * node is not oversubscribed: it naps ARMCI_PROGRESS_INTERVAL_US, not 1 ms, and large
     * nonblocking requests wake it (armcii_progress_kick). */
    int own_cpu;
    int thread_on;
    pthread_t tid;

    /* ... and what both threads write, on a line of its own, so that the progress
     * thread's writes do not take from the caller the line it only reads. */
    pthread_mutex_t lock __attribute__((aligned(64))); /* held by every ARMCI call and by
                                                          the progress thread */
    int stop; /* set by the main thread, read by the progress thread: atomics */
    /* Waking the napping thread: a counter it sleeps on, and whether it sleeps. */
    int kicks, napping;
    int wake_due;    /* under the lock: wake the thread once the lock is released */
    int in_progress; /* re-entrancy guard */
} armcii_prog_t;
_Static_assert(sizeof(armcii_prog_t) == 128, "what is read, then the lock's line");

extern armcii_prog_t armcii_prog;

/** The registration key of @p seg, the block of world rank @p rank. */
static inline uint64_t armcii_seg_key(const armcii_seg_t *seg, int rank)
{
    return seg->alloc->keys ? seg->alloc->keys[rank] : seg->alloc->key;
}

/** The address libfabric expects for @p addr within @p seg: the address itself, or its
 *  offset in the registration. */
static inline uint64_t armcii_seg_raddr(const armcii_seg_t *seg, uintptr_t addr)
{
    return armcii_rt.caps.mr_virt_addr ? (uint64_t)addr : (uint64_t)(addr - seg->base);
}

/* ---- bring-up and shut-down (src/core/runtime.c) ---- */

/** Brings the runtime up over a duplicate of @p comm, once MPI is initialised; collective.
 *  @p one_caller: only one application thread calls ARMCI at a time. */
void armcii_runtime_init(const char *call, MPI_Comm comm, int one_caller);
/** Completes what is in flight everywhere and takes the runtime down; collective. Entered
 *  holding the lock, returns without it. */
void armcii_runtime_fini(const char *call);
/** A layer above the core whose bring-up and shut-down the runtime places in its own
 *  order: the core calls it through these pointers alone, never by name. */
typedef struct {
    void (*init)(void);                               /* collective; the transport is up */
    void (*fini)(void);                               /* past the last barrier, before
                                                         the node heap goes */
    void (*describe)(void (*line)(const char *text)); /* its lines of ARMCI_VERBOSE */
} armcii_above_t;
/** Registers the collectives (armci/init.c, before armcii_runtime_init). */
void armcii_runtime_above(const armcii_above_t *coll);

/* ---- paths and regions ---- */

/** How @p target is reached: itself, through the node's memory (a peer of this node, and
 *  shared memory on), or over the fabric (decided once, by armcii_peers_init). */
static inline armcii_path_t armcii_path(int target)
{
    return (armcii_path_t)armcii_reqs.peers[target].path;
}

/** The node-local rank of @p rank, which names its slot in the node's control blocks
 *  (0 when shared memory is off). */
static inline int armcii_slot_of(int rank)
{
    return armcii_rt.shm ? armcii_reqs.peers[rank].node_rank : 0;
}

/** The node of @p rank, numbered as topo.c found the nodes. */
static inline int armcii_node_of(int rank)
{
    return armcii_reqs.peers[rank].node;
}

/** Accumulates of ARMCI type @p type go through libfabric atomics where the fabric is used. */
static inline int armcii_acc_hw_ok(int type)
{
    return armcii_rt.limits.acc_hw && (unsigned)type < 6 && (armcii_rt.caps.acc_types >> type & 1);
}
/** And read-modify-writes ARMCII_RMW_* @p op. */
static inline int armcii_rmw_hw_ok(int op)
{
    return armcii_rt.limits.acc_hw && (unsigned)op < 5 && (armcii_rt.caps.rmw_ops >> op & 1);
}

/* ---- requests (src/core/req.c; waiting for them: progress.c) ---- */

/** Makes the table of processes from what topo.c found (@p node and @p node_rank, by
 *  world rank), once it is known whether shared memory is used. */
armcii_status_t armcii_peers_init(const int *node, const int *node_rank);
/** Makes the request pool, of ARMCI_MAX_REQUESTS slots; 0, or -1 when out of memory. */
int armcii_req_init(void);
/** Frees the pool and the table of processes. */
void armcii_req_fini(void);

/** A new request; when the pool is full the oldest request is completed first. */
armcii_req_t *armcii_req_new(const char *call, armcii_req_kind_t kind, int target, int implicit);
/** Issue @p req (armcii_req_issued) for a call that is @p blocking, then wait for it when
 *  @p wait. A blocking call that returns before its request completes has copied the
 *  caller's data out: the request is marked so, and does not make the progress thread
 *  poll closely (which takes the processor from the computing application). A
 *  nonblocking call's request of at least ARMCI_PROGRESS_WAKE_MIN @p bytes wakes the
 *  napping progress thread (armcii_progress_kick). */
void armcii_req_finish(const char *call, armcii_req_t *req, int blocking, int wait, size_t bytes);
/** Whether some caller's handle names an operation in flight: a handle given to an
 *  unlocked fast path must then be checked on the locked way (only the calling thread
 *  binds handles, so the count cannot grow behind this look). */
static inline int armcii_req_handles_bound(void)
{
    return armcii_pool_nbound(&armcii_reqs.pool) > 0;
}
/** Ends the job if the caller's handle at @p h still names an operation in flight: a
 *  handle takes one operation at a time. */
void armcii_hdl_check_free(const char *call, const armci_hdl_t *h);
/** The caller's handle @p h (if any) names @p req, in flight; checked first. */
void armcii_hdl_bind(const char *call, armci_hdl_t *h, armcii_req_t *req);
/** Marks @p h (if any) as holding an operation that completed within its issuing call,
 *  once checked as armcii_hdl_bind checks. */
static inline void armcii_hdl_done(const char *call, armci_hdl_t *h)
{
    if (!h)
        return;
    if (armcii_req_handles_bound())
        armcii_hdl_check_free(call, h);
    armcii_hdl_set(h, ARMCII_HDL_SLOT_DONE, 0, 0);
}

/*
 * One operation's request, from its start to the transport to its end, the same for every
 * protocol (rma.c, nc.c, span.c, rmw.c):
 *
 *     armcii_issue_t is = {.hdl = hdl, .blocking = blocking, .wait_here = ...};
 *     armcii_req_t *req = armcii_issue_begin(call, &is, kind, target);
 *     ... the transport's operations on req ...
 *     armcii_issue_end(call, &is, bytes);
 *
 * A protocol decides one thing, whether a blocking call waits here (wait_here: its data
 * is not yet read, or still read from the caller's buffer, or nothing moves it once the
 * caller leaves ARMCI). The rest follows: a blocking call that does not wait leaves an
 * implicit request, completed by fences and WaitAll as a nonblocking one without a handle
 * is; a nonblocking one with a handle is the handle's, completed by its wait. (The open
 * messages of rma.c, filled over many calls, and order.c's flush reads, waited for
 * together, take armcii_req_new themselves.)
 */
typedef struct {
    armcii_req_t *req;
    armci_hdl_t *hdl; /* the caller's handle (nonblocking calls), or NULL */
    int blocking;
    int wait_here; /* (blocking calls only) */
} armcii_issue_t;

static inline armcii_req_t *armcii_issue_begin(const char *call, armcii_issue_t *is,
                                               armcii_req_kind_t kind, int target)
{
    int implicit = is->blocking ? !is->wait_here : !is->hdl;
    return is->req = armcii_req_new(call, kind, target, implicit);
}

/** @p bytes: what the operation moves (a large nonblocking one wakes the progress thread). */
static inline void armcii_issue_end(const char *call, armcii_issue_t *is, size_t bytes)
{
    if (!is->blocking)
        armcii_hdl_bind(call, is->hdl, is->req);
    armcii_req_finish(call, is->req, is->blocking, is->blocking && is->wait_here, bytes);
}

/** Requests of the pool in flight now, and its size (ARMCI_MAX_REQUESTS). */
static inline void armcii_req_counts(int *in_use, int *slots)
{
    *in_use = armcii_reqs.pool.nactive;
    *slots = armcii_reqs.pool.nslots;
}
/** The request the caller's handle @p h names, or NULL when its operation is done;
 *  @p st_p receives the handle's state. A NULL handle, or one neither initialised nor
 *  returned by a nonblocking call, ends the job naming @p call. */
armcii_req_t *armcii_req_of_handle(const char *call, const armci_hdl_t *h,
                                   armcii_hdl_state_t *st_p);
/** Waits for the operations issued with implicit (NULL) handles to @p proc, or to every
 *  process when @p proc is negative (ARMCI_WaitProc, ARMCI_WaitAll). */
void armcii_req_wait_implicit(const char *call, int proc);
/** A transport operation of @p req completed. */
void armcii_req_op_done(armcii_req_t *req);
/** A blocking call's data has left (its request waits for an acknowledgement only). */
void armcii_req_copied(armcii_req_t *req);
/** The request in flight that armcii_req_cookie named; the job ends on a stale name. */
armcii_req_t *armcii_req_of_cookie(uint64_t cookie);
/** Mark @p req issued (drops the count armcii_req_new took): if nothing else is pending
 *  it completes at once. */
void armcii_req_issued(armcii_req_t *req);
/** Drive progress until @p req has completed. */
void armcii_req_wait(const char *call, armcii_req_t *req);
/** Complete every request in flight when called, oldest first (gets included, which no
 *  fence waits for): before memory that they may read or fill goes. */
void armcii_req_wait_all(const char *call);
/** Waits for the request that had generation @p gen when issued (its slot may be reused). */
void armcii_req_wait_gen(const char *call, armcii_req_t *req, uint32_t gen);
/** One poll of a waiting loop: progress, and a yield of the processor after a run of
 *  empty polls (@p idle counts them). */
void armcii_poll_waiting(const char *call, unsigned *idle);
/** The same, and with @p spent non-NULL the time its fabric pass took (mpiwait.c's
 *  sampling). */
void armcii_poll_waiting_timed(const char *call, unsigned *idle, double *spent);
/** Sets how often a waiting loop yields (ARMCI_YIELD_IDLE) and, where ARMCI_WAIT_MPI_TESTS
 *  chooses it, how many MPI tests a wait on MPI runs per poll (after the node layout is known). */
void armcii_yield_init(void);
/** Whether an empty poll yields at once (the machine is oversubscribed, or asked to). */
int armcii_yield_when_idle(void);
/** A wait that no time bounds (the others may compute long before they join in), watched:
 *  with ARMCI_WATCHDOG it says once that it has lasted, for whom (@p rank, or the node's
 *  processes when negative) to do what (@p to_do). Zero-initialise @p w per wait. */
/** How many polls (or MPI tests) a wait makes between two looks at the clock. */
#define ARMCII_CLOCK_EVERY 1024
typedef struct {
    double t0;
    unsigned spins, idle;
    int barked;
    int stuck;      /* a collective's wait, ARMCI_TIMEOUT s old: told to the census */
    double bell_t0; /* a wait for a fabric peer: when it began, and how often it rang */
    int rung;       /* the peer's doorbell (-1: no doorbell to ring; progress.c) */
} armcii_watch_t;
void armcii_poll_watched(const char *call, armcii_watch_t *w, int rank, const char *to_do);
/** The end of a wait that called armcii_poll_watched. */
void armcii_poll_watched_end(armcii_watch_t *w);

/** Tells the progress thread, if it naps, that a nonblocking request of @p bytes is in
 *  flight (the wake itself comes at armcii_unlock, through armcii_progress_wake). */
void armcii_progress_kick(size_t bytes);
void armcii_progress_wake(void);
/** Under the lock, before it is released: the wake that armcii_progress_kick made due is
 *  taken (armcii_unlock then calls armcii_progress_wake). */
void armcii_progress_wake_taken(void);
/** One round of progress: completions, incoming requests, deferred sends. */
int armcii_progress(void);
/** Drive progress until *counter == 0. */
void armcii_wait_zero(const char *call, const int *counter, int target);
/** Messages a module holds back (rma.c's open messages), which waits send first. */
typedef struct {
    const int *count;                                  /* how many are held now */
    void (*send_all)(const char *call);                /* send them all */
    void (*send_waited)(const char *call, int target); /* those to @p target (-1: all),
                                                          whose answer is awaited next */
    void (*age)(void);                                 /* the progress thread's pass */
} armcii_held_t;
/** Registers @p h with the waits (at start-up). */
void armcii_progress_hold(const armcii_held_t *h);
/** @p fn runs at every synchronisation point: each MPI wait of the runtime (the get
 *  cache's transparent mode registers its invalidation). */
void armcii_progress_on_sync(void (*fn)(void));
/* (waits on MPI: src/core/mpiwait.c) */
/** ARMCI_WAIT_MPI_TESTS, if set, fixes the MPI tests per fabric pass (at start-up). */
void armcii_mpi_wait_init(void);
/** Complete an MPI request while driving progress (so peers' operations on us advance). */
void armcii_mpi_wait(const char *call, MPI_Request *req);
void armcii_mpi_waitall(const char *call, int n, MPI_Request *reqs);
void armcii_mpi_waitall_status(const char *call, int n, MPI_Request *reqs, MPI_Status *statuses);
/** MPI errors on @p comm (and the communicators made from it) end the job naming the
 *  ARMCI call that was waiting on MPI, instead of with MPI's message alone. */
void armcii_mpi_name_errors(MPI_Comm comm);
armcii_status_t armcii_progress_thread_start(void);
void armcii_progress_thread_stop(void);

/* ---- ordering and fences (src/core/order.c) ---- */

/** Before a blocking operation of @p kind to @p target: keep ARMCI's ordering promise. */
void armcii_order_before(const char *call, armcii_req_kind_t kind, int target);
/** Before a nonblocking operation to @p target that does not go as a message: wait until
 *  the messages in flight to it have been applied. Nonblocking operations are unordered
 *  among themselves until completed, not with what this process did before them: a
 *  message on its way (a blocking put or accumulate returns with it sent) must be applied
 *  before a read or write the transport may carry past it. */
static inline void armcii_order_after_messages(const char *call, int target)
{
    if (armcii_reqs.peers[target].out_sw > 0)
        armcii_wait_zero(call, &armcii_reqs.peers[target].out_sw, target);
}
void armcii_fence(const char *call, int target);
/** @p fn runs first in every fence of a target (aggregation registers its flush). */
void armcii_fence_hook(void (*fn)(const char *call, int target));
/** Before a load/store operation on the memory of @p target, this process or a node peer:
 *  complete what is in flight to it through the fabric (accumulates through libfabric's
 *  atomics, which take that way to stay atomic with remote peers' atomics). */
void armcii_order_local(const char *call, int target);
void armcii_fence_all(const char *call);
/** Frees what armcii_fence_all keeps for its flush reads. */
void armcii_flush_fini(void);

/* ---- contiguous operations (src/core/rma.c) ---- */

/** A blocking get or put of @p len bytes between @p local and @p remote on @p target, done
 *  without the runtime lock where nothing it guards is touched: a peer on this node, a
 *  program whose ARMCI calls come from one thread, a range inside one of the peer's
 *  segments. 1 when done, 0 when the caller must take the locked way (which also reports
 *  any error in the arguments). The API layer checked that ARMCI is initialised, that one
 *  thread calls it (one_caller), that @p local is not NULL, @p len not 0 and @p target a
 *  rank. Inline: a small same-node get is this, the check and the copy, and no call.
 *  A peer of this node, not this process, and no accumulate through libfabric's atomics:
 *  nothing of this process's own can be in flight to it, and the progress thread looks up, and
 *  moves the last-hit index of, this process's own segments only. */
/** The copy of armcii_copy_unlocked, for a caller that made its checks (an aggregate
 *  handle's operation, which knows the peer's segment). */
ARMCII_INLINE void armcii_copy_unlocked_checked(armcii_op_t what, void *local, void *remote,
                                                size_t len)
{
    armcii_stat_op(what, ARMCII_ST_LOCAL, (long)len);
    if (what == ARMCII_OP_GET)
        armcii_place_copy(local, remote, len, 0);
    else
        armcii_place_copy(remote, local, len, 0);
}
ARMCII_INLINE int armcii_copy_unlocked(armcii_op_t what, void *local, void *remote, size_t len,
                                       int target)
{
    /* (where accumulates take libfabric's atomics, to node peers too, one may be in flight
     * to the peer: the locked way orders the copy after it) */
    if (armcii_path(target) != ARMCII_PATH_SHM || armcii_rt.limits.acc_hw ||
        !armcii_region_find_fast(&armcii_mem.regions, target, (uintptr_t)remote, len))
        return 0;
    armcii_copy_unlocked_checked(what, local, remote, len);
    return 1;
} /** An accumulate done the same way (under the target's accumulate lock only), where
   *  accumulates to @p target are applied by this process's CPU. 1 when done, 0 when the
   *  caller must take the locked way (an unknown @p type, or @p len not a whole number of
   *  its elements, included). The API layer checked @p src and @p scale are not NULL. */
int armcii_acc_unlocked(const char *call, int type, const void *scale, const void *src, void *dst,
                        size_t len, int target);

/* Blocking puts sent as messages (ARMCI_PUT_MESSAGE_MAX), and blocking accumulates sent as
 * messages, share the message of the last one to their target until something else goes
 * there (ARMCI_PUT_COMBINE). Every operation to a target and every wait for one sends its
 * open message first; so do these. */
/** May a put or accumulate sent as a message join the open message (blocking, or
 *  nonblocking on an implicit handle, where progress threads run)? */
int armcii_open_may_join(int blocking, const armci_hdl_t *hdl);
struct armcii_iter; /* (iter.h) */
/** Adds every block of the walker @p it to the open message to
 *  @p target for @p what (for accumulates: of @p type and @p scale), opening one (and
 *  sending one open for something else) as needed. */
void armcii_open_join_blocks(const char *call, int target, armcii_op_t what, int type,
                             const void *scale, struct armcii_iter *it);
/** Sends @p target's open put message, if it has one. */
void armcii_put_open_send(const char *call, int target);
/** Sends every open put message. */
void armcii_put_open_send_all(const char *call);
/** Sends @p target's open put message (every one when @p target < 0) for a caller that
 *  waits for its acknowledgement next: the target acknowledges it at once. */
void armcii_put_open_send_waited(const char *call, int target);
/** For the progress thread: sends each open message no put joined since its last pass. */
void armcii_put_open_age(void);
/** Registers the open messages with the waits (armcii_progress_hold). */
void armcii_put_open_init(void);
/** Open put messages, over all targets. */
extern int armcii_put_open_count;

int armcii_put(const char *call, const void *src, void *dst, size_t len, int target,
               const armcii_seg_t *seg, armci_hdl_t *hdl, int blocking);
int armcii_get(const char *call, const void *src, void *dst, size_t len, int target,
               const armcii_seg_t *seg, armci_hdl_t *hdl, int blocking);
int armcii_acc(const char *call, int type, const void *scale, const void *src, void *dst,
               size_t len, int target, const armcii_seg_t *seg, armci_hdl_t *hdl, int blocking);
/** ARMCI_Put_flag: the data, then @p value stored into @p flag once the data is in place
 *  (@p seg: the segment of @p dst, NULL when @p len is 0). */
void armcii_put_flag(const char *call, const void *src, void *dst, const armcii_seg_t *seg,
                     size_t len, int *flag, int value, int target, armci_hdl_t *hdl);

/* ---- allocation (src/core/alloc.c) ---- */

/** Collective over @p comm: a block of @p size bytes on every member (sizes may differ),
 *  their addresses in @p ptr_arr by rank in @p comm; the job ends naming the cause when any
 *  member fails. */
int armcii_malloc_comm(const char *call, void **ptr_arr, armci_size_t size, MPI_Comm comm);
/** Collective over @p comm: frees the allocation whose block here is @p ptr (NULL for a
 *  member that contributed none); every member must free the same one. */
int armcii_free_comm(const char *call, void *ptr, MPI_Comm comm);
/** Collective over the job: ARMCI_Finalize's first step, the same exchange that opens an
 *  allocation or a free, so that a process that frees or allocates while another ends is
 *  told, naming both calls. */
void armcii_alloc_announce_end(const char *call);
/** Makes the region table, for every process of the job; 0, or -1 when out of memory. */
int armcii_alloc_init(void);
/** Frees the region table (after armcii_alloc_drop_all). */
void armcii_alloc_fini(void);
/** The allocation whose block on this process starts at @p my_base (NULL if none). */
armcii_alloc_t *armcii_alloc_find(void *my_base);
/** At finalize: releases every allocation the application did not free. */
void armcii_alloc_drop_all(void);
/** ARMCI_Malloc_local's block of @p size bytes (NULL for 0); ends the job when none fits. */
void *armcii_malloc_local(const char *call, size_t size);
/** Frees a block of armcii_malloc_local; the job ends for any other pointer. */
void armcii_free_local(const char *call, void *ptr);

/* ---- noncontiguous operations (src/core/nc.c) ---- */

/** Move the blocks of @p it (see iter.h) to or from @p target. Remote blocks were checked. */
int armcii_nc(const char *call, armcii_op_t what, int type, const void *scale,
              struct armcii_iter *it, int target, armci_hdl_t *hdl, int blocking);
struct armcii_amb;
/** Adds every block of @p it to the message builder @p b, records packed
 *  a bufferful per call where the blocks allow, and leaves @p it at its end; returns their
 *  bytes. */
size_t armcii_nc_pack(struct armcii_amb *b, struct armcii_iter *it);
/** The segment of @p target holding [@p r, +@p len), which the API layer checked: the job
 *  ends (naming an internal error) if it has none. */
const armcii_seg_t *armcii_seg_of(const char *call, int target, const void *r, size_t len);

/* ---- read-modify-write (src/core/rmw.c) ---- */

/** Atomic read-modify-write at @p addr on @p target (an ARMCII_RMW_* op); old value returned. */
uint64_t armcii_rmw(const char *call, int op, int target, void *addr, uint64_t operand,
                    uint64_t comparand);

/* ---- settings (src/core/agree.c) ---- */

/** Collective: end every process, naming the variable and two values, when a setting that
 *  must be the same everywhere (ARMCII_ENV_SAME) differs between processes. */
void armcii_env_agree(const char *call);

/* ---- topology (src/core/topo.c) ---- */

/** Finds the node layout and the machine; collective. On success @p where_p is a new
 *  array (the caller frees it) of every rank's node id, then every rank's rank within its
 *  node (armcii_peers_init). */
armcii_status_t armcii_topo_init(int **where_p);
/** Ranks @p in[0..n) of communicator @p from as ranks of @p to (MPI_UNDEFINED if absent). */
void armcii_translate(MPI_Comm from, MPI_Comm to, int n, const int *in, int *out);
void armcii_topo_fini(void);
/** Sets @p attr to start the progress thread on the CPUs ARMCI_PROGRESS_CPUS chose (by
 *  default those no process is bound to, if any); 0 when it stays on the process's. */
int armcii_topo_place_progress_thread(pthread_attr_t *attr);
/** Those CPUs, in words, for the verbose settings. */
const char *armcii_topo_progress_cpus(void);
/** Whether the progress thread may run on a CPU its process's main thread is not bound to
 *  (else waking it for a transfer only takes the processor from the caller). */
int armcii_topo_progress_elsewhere(void);

/* ---- locking around API calls ---- */

static inline void armcii_lock(void)
{
    pthread_mutex_lock(&armcii_prog.lock);
}
static inline void armcii_unlock(void)
{
    int wake = armcii_prog.wake_due;
    if (wake)
        armcii_progress_wake_taken();
    pthread_mutex_unlock(&armcii_prog.lock);
    if (wake)
        armcii_progress_wake();
}

#endif
