/*
 * Internal interface of armci-ofi: the runtime's state and the calls between the API
 * layer (armci/), the core (src/core) and the transports (src/transport).
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

#include "env.h"
#include "op.h"
#include "halloc.h"
#include "region.h"
#include "req.h"
#include "select.h"

/** The one internal status type. */
typedef enum {
    ARMCII_OK = 0,
    ARMCII_ENOMEM,  /* memory, address space or registration exhausted */
    ARMCII_EFABRIC, /* libfabric reported an error */
    ARMCII_ESYS,    /* a system call failed */
    ARMCII_EINVAL   /* a value outside what the runtime accepts */
} armcii_status_t;

/** A registration with libfabric. */
typedef struct {
    void *handle;        /* struct fid_mr * */
    void *desc;          /* local descriptor */
    uint64_t key;        /* remote key */
    uint64_t raddr_base; /* address peers use for the first byte (0 with offset addressing) */
} armcii_mr_t;

/** One collective allocation (ARMCI_Malloc). */
typedef struct armcii_alloc {
    int nranks;     /* world size */
    void **bases;   /* block address per world rank (NULL: none) */
    size_t *sizes;  /* block size per world rank */
    void *my_base;  /* this process's block (NULL when it asked for 0 bytes) */
    size_t my_off;  /* offset of my block in my heap slice */
    size_t my_len;  /* bytes reserved in the slice (rounded) */
    armcii_mr_t mr; /* registration of my block, when the fabric is in use */
    int registered;
    MPI_Comm comm;  /* communicator it was allocated over (not owned) */
    int cache_mode; /* ARMCIX_CACHE_*: how this process caches gets from it */
    struct armcii_alloc *next;
} armcii_alloc_t;

/** Per-local-rank control block in the node's shared mapping. */
typedef struct {
    pthread_mutex_t acc_lock; /* serialises software accumulates into this rank's memory */
    char *coll_buf[4];        /* collectives: send and receive buffers (and a node leader's
                                 buffers for the exchange between nodes) */
    uint64_t bar_count;       /* node barrier (used in node rank 0's slot) */
    uint64_t bar_gen;
    uint64_t small_seq;    /* small collectives: the last call whose send data is staged */
    char *small_buf;       /* ... in these two halves, alternately (see coll.c) */
    uint64_t coll_private; /* coll_buf[0] is private memory, read with process_vm_readv */
    char pad[128 - sizeof(pthread_mutex_t) - 5 * sizeof(char *) - 4 * sizeof(uint64_t)];
} armcii_node_slot_t;
_Static_assert(sizeof(armcii_node_slot_t) == 128, "a node slot is two cache lines");

typedef struct {
    /* identity */
    int initialized, finalized, we_init_mpi;
    /* Only one application thread calls ARMCI at a time (neither ARMCI nor MPI was asked
     * for MPI_THREAD_MULTIPLE): a few steps that touch only what API calls touch may then
     * go without the lock. */
    int one_caller;
    int cache_engine; /* the get cache's engine is running (it never stops before finalize) */
    int rank, nproc;
    MPI_Comm comm; /* private duplicate of the world communicator */
    armcii_env_t env;

    /* node layout */
    MPI_Comm node_comm;
    MPI_Comm masters_comm; /* one process per node (node rank 0); MPI_COMM_NULL elsewhere */
    int node_rank, node_size, node_id, nnodes;
    int machine_size;  /* processes on this machine (node_size unless ARMCI_NODE_SIZE cuts it) */
    int *node_of;      /* node id of every rank */
    int *node_rank_of; /* node-local rank of every rank */
    int shm;           /* same-node peers reached through shared memory */
    unsigned hw_cores, hw_pus;
    size_t hw_l2, hw_l3;

    /* memory */
    char *heap_base;           /* start of the node mapping (same address in every local process) */
    size_t heap_len;           /* bytes mapped */
    size_t slice_len;          /* bytes of one local rank's slice */
    char *my_slice;            /* this process's slice */
    int heap_fd;               /* backing shared-memory object (-1 for a private heap) */
    armcii_node_slot_t *slots; /* node control blocks, indexed by node-local rank */
    armcii_halloc_t halloc;    /* allocator of my slice */
    armcii_region_table_t regions;
    armcii_alloc_t *allocs;
    ARMCI_Group world_group;      /* every process */
    ARMCI_Group default_group;    /* ARMCI_Group_set_default */
    unsigned long shm_limit_hint; /* ARMCI_Set_shm_limit, reported only */

    /* requests */
    armcii_pool_t pool;
    int *out_write;    /* per target: puts and hardware accumulates in flight */
    int *out_sw;       /* per target: software accumulates awaiting their acknowledgement */
    int *out_implicit; /* per target: implicit-handle requests in flight */
    int implicit_total;
    armcii_sel_limits_t limits;

    /* fabric */
    int fabric;    /* libfabric is open */
    int order_raw; /* provider orders reads after writes (and atomics) to one target */
    int order_waw; /* provider orders writes after writes */
    int order_sas; /* provider orders sends after sends */

    /* progress */
    pthread_mutex_t lock; /* held by every ARMCI call and by the progress thread */
    pthread_t progress_tid;
    int progress_thread_on;
    /* No thread moves data while the application is outside ARMCI, and the provider needs
     * the sender's calls to move it (a large message's later segments): blocking calls
     * then wait until what they sent has arrived, since the caller may next block in MPI
     * and never call ARMCI again until its peer, which waits for that data, does. */
    int sends_need_caller;
    int ncopied;       /* requests in flight of blocking calls that returned (armcii_req_finish) */
    int progress_stop; /* set by the main thread, read by the progress thread: atomics */
    /* The thread runs where no process is bound (armcii_topo_progress_elsewhere) and the
     * node is not oversubscribed: it naps ARMCI_PROGRESS_INTERVAL_US, not 1 ms, and large
     * nonblocking requests wake it (armcii_progress_kick). */
    int progress_own_cpu;
    /* Waking the napping thread: a counter it sleeps on, and whether it sleeps. */
    int progress_kicks, progress_napping;
    int progress_wake_due; /* under the lock: wake the thread once the lock is released */
    int in_progress;       /* re-entrancy guard */
    /* Empty polls of a wait between yields of the processor: 1 where processes outnumber
     * hardware threads (ARMCI_YIELD_IDLE), so a waiter gives the processor to the peer it
     * waits for; ARMCIX_Progress then yields too when it finds nothing to do. */
    unsigned yield_after;
    int keep_warm; /* the progress thread reads the hot structures (src/core/warm.c) */
} armcii_state_t;

extern armcii_state_t armcii_g;

/* ---- errors (src/core/error.c) ---- */

/** Report "CALL: message" through ARMCI_Error (which prints rank and aborts). */
void armcii_fatal(const char *call, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 2, 3)));
/** Print "armci: rank R: message" to stderr and go on. */
void armcii_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/** Print on rank 0 only (ARMCI_VERBOSE). */
void armcii_info_line(const char *line);
double armcii_now(void);

/* ---- paths and regions ---- */

static inline armcii_path_t armcii_path(int target)
{
    if (target == armcii_g.rank)
        return ARMCII_PATH_SELF;
    if (armcii_g.shm && armcii_g.node_of[target] == armcii_g.node_id)
        return ARMCII_PATH_SHM;
    return ARMCII_PATH_FABRIC;
}

/* ---- node memory (src/transport/shm.c) ---- */

armcii_status_t armcii_shm_init(void);
void armcii_shm_fini(void);
/** Reserve and back @p len bytes in my slice; the address is written to @p addr_p. */
armcii_status_t armcii_shm_alloc(const char *call, size_t len, void **addr_p, size_t *off_p,
                                 size_t *rounded_p);
void armcii_shm_free(size_t off, size_t rounded);
/** dst[i] += scale * src[i] into memory of node-local process @p owner_node_rank, under its lock.
 */
void armcii_shm_acc(int owner_node_rank, int type, const void *scale, const void *src, void *dst,
                    size_t bytes);
/** The accumulate lock of node-local process @p slot (0 when shared memory is off). */
void armcii_shm_acc_lock(int slot);
void armcii_shm_acc_unlock(int slot);
static inline int armcii_slot_of(int rank)
{
    return armcii_g.shm ? armcii_g.node_rank_of[rank] : 0;
}

/* ---- accumulate and read-modify-write kernels (src/transport/acc_sw.c) ---- */

enum {
    ARMCII_RMW_FADD32,
    ARMCII_RMW_FADD64,
    ARMCII_RMW_SWAP32,
    ARMCII_RMW_SWAP64,
    ARMCII_RMW_CAS64
};
/** Atomically apply @p op at @p addr; @return the old value. @p extra: CAS comparand. */
uint64_t armcii_rmw_apply(int op, void *addr, uint64_t operand, const void *extra);

size_t armcii_acc_type_size(int type); /* 0 for an unknown type */
void armcii_acc_apply(int type, const void *scale, const void *src, void *dst, size_t bytes);
/** Read the first lines of the accumulate kernels' code (src/core/warm.c); returns the lines. */
size_t armcii_acc_kernels_touch(unsigned *sum);
/** dst = scale * src, element-wise (used to pre-scale hardware accumulates). */
void armcii_acc_scale(int type, const void *scale, const void *src, void *dst, size_t bytes);
int armcii_acc_scale_is_one(int type, const void *scale);

/* ---- libfabric (src/transport/ofi*.c, am.c) ----
 * The data-path calls (get, put, acc_hw, rmw_hw, am_rmw, the message builder) return once
 * the operation is posted, and return nothing: a provider error ends the job inside them,
 * naming the ARMCI call, the libfabric operation and the target (OFI_RETRY), as a request
 * that fails later ends it in the completion's handler. A caller has no failure to handle. */

armcii_status_t armcii_ofi_init(void);
void armcii_ofi_fini(void);
const char *armcii_ofi_provider(void);
int armcii_ofi_manual_progress(void);
void armcii_ofi_describe(void (*emit)(const char *line));
/** Poll completions once; @return the number handled. */
int armcii_ofi_progress(void);
armcii_status_t armcii_ofi_mr_reg(const char *call, void *buf, size_t len, armcii_mr_t *mr_p);
void armcii_ofi_mr_dereg(armcii_mr_t *mr);
void armcii_ofi_get(const char *call, armcii_req_t *req, void *dst, size_t len, int target,
                    uint64_t raddr, uint64_t key, armcii_proto_t proto);
void armcii_ofi_put(const char *call, armcii_req_t *req, const void *src, size_t len, int target,
                    uint64_t raddr, uint64_t key, armcii_proto_t proto);
/** Read-modify-write through libfabric atomics (when accumulates use them too). The
 *  buffers must stay until the request completes. */
int armcii_ofi_rmw_hw_ok(int op);
void armcii_ofi_rmw_hw(const char *call, armcii_req_t *req, int op, void *result,
                       const void *operand, const void *comparand, int target, uint64_t raddr,
                       uint64_t key);
/** Make earlier writes to @p target remotely complete (a no-op when they already are). */
void armcii_ofi_flush(const char *call, int target);
void armcii_ofi_flush_all(const char *call);
void armcii_ofi_bounce_usage(int *in_use_p, int *total_p);
/** @return non-zero if libfabric atomics can accumulate @p type. */
int armcii_ofi_acc_hw_ok(int type);
void armcii_ofi_acc_hw(const char *call, armcii_req_t *req, int type, const void *src, size_t bytes,
                       int target, uint64_t raddr, uint64_t key);

/* Active-message builder: blocks of one operation to one target, packed into as few
 * messages as bounce buffers allow. Each message adds one to req->pending, completed by
 * the target's acknowledgement (put, acc) or reply (get). */
typedef struct armcii_amb armcii_amb_t;
armcii_amb_t *armcii_amb_begin(const char *call, armcii_req_t *req, armcii_op_t what, int type,
                               const void *scale, int target);
void armcii_amb_add(armcii_amb_t *b, char *local, uint64_t remote, size_t len);
void armcii_amb_end(armcii_amb_t *b);
/** Like armcii_amb_end, and the target then stores @p value into the int at @p flag, after
 *  every block of this builder is in place (the last message carries the flag). */
void armcii_amb_end_flag(armcii_amb_t *b, uint64_t flag, int value);
/** Before waiting for messages' acknowledgements from @p target (-1: from every target):
 *  asks it to acknowledge the flagged puts whose acknowledgement it may defer. */
void armcii_am_want_acks(int target);
/** Read-modify-write applied by the target; the old value lands in @p result at completion. */
void armcii_am_rmw(const char *call, armcii_req_t *req, int op, void *result, size_t rsize,
                   int target, uint64_t addr, uint64_t operand, uint64_t comparand);

/* ---- requests and progress (src/core/progress.c) ---- */

/** A new request; when the pool is full the oldest request is completed first. */
armcii_req_t *armcii_req_new(const char *call, armcii_req_kind_t kind, int target, int implicit);
/** Issue @p req (armcii_req_issued) for a call that is @p blocking, then wait for it when
 *  @p wait. A blocking call that returns before its request completes has copied the
 *  caller's data out: the request is marked so, and does not make the progress thread
 *  poll closely (which takes the processor from the computing application). A
 *  nonblocking call's request of at least ARMCI_PROGRESS_WAKE_MIN @p bytes wakes the
 *  napping progress thread (armcii_progress_kick). */
void armcii_req_finish(const char *call, armcii_req_t *req, int blocking, int wait, size_t bytes);
/** A transport operation of @p req completed. */
void armcii_req_op_done(armcii_req_t *req);
/** Mark @p req issued (drops the count armcii_req_new took): if nothing else is pending
 *  it completes at once. */
void armcii_req_issued(armcii_req_t *req);
/** Drive progress until @p req (with generation @p gen) has completed. */
void armcii_req_wait(const char *call, armcii_req_t *req);
/* Waits for the request that had generation @p gen when issued (its slot may be reused). */
void armcii_req_wait_gen(const char *call, armcii_req_t *req, uint32_t gen);
/** One poll of a waiting loop: progress, and a yield of the processor after a run of
 *  empty polls (@p idle counts them). */
void armcii_poll_waiting(const char *call, unsigned *idle);
/** Sets how often a waiting loop yields (ARMCI_YIELD_IDLE; after the node layout is known). */
void armcii_yield_init(void);
/** Whether an empty poll yields at once (the machine is oversubscribed, or asked to). */
int armcii_yield_when_idle(void);
/** A wait that no time bounds (the others may compute long before they join in), watched:
 *  with ARMCI_WATCHDOG it says once that it has lasted, for whom (@p rank, or the node's
 *  processes when negative) to do what (@p to_do). Zero-initialise @p w per wait. */
typedef struct {
    double t0;
    unsigned spins, idle;
    int barked;
    int stuck; /* a collective's wait, ARMCI_TIMEOUT s old: told to the census */
} armcii_watch_t;
void armcii_poll_watched(const char *call, armcii_watch_t *w, int rank, const char *to_do);
/** The end of a wait that called armcii_poll_watched. */
void armcii_poll_watched_end(armcii_watch_t *w);

/* Collectives that cannot complete (census.c). */
void armcii_census_init(void);
void armcii_census_fini(void);
/** From a collective's wait, on the clock: after ARMCI_TIMEOUT s in it, rank 0 learns of
 *  it; when every process waits, not all in the same call, the job ends naming them. */
void armcii_census_poll(const char *call, armcii_watch_t *w, double now);
/** At the end of that wait. */
void armcii_census_leave(armcii_watch_t *w);
/* Dead peers on this node (live.c). */
armcii_status_t armcii_live_init(void);
void armcii_live_fini(void);
/** Process id of the process of this node with node-local rank @p node_rank. */
pid_t armcii_live_pid(int node_rank);
/* Called by every waiting poll: ends the job, naming the rank, if a node peer died. */
void armcii_live_poll(const char *call);
/* Called when an operation to @p rank failed: if that rank is a process of this node that
 * has died (or is dying), ends the job saying so, since that is the cause worth reporting. */
void armcii_live_blame(const char *call, int rank);
/* Heartbeats between the job's processes (heartbeat.c): a process that dies or falls
 * silent anywhere ends every other, named. */
armcii_status_t armcii_hb_init(void);
/** Says goodbye to the other processes and stops watching them (after the last barrier). */
void armcii_hb_fini(void);
int armcii_hb_running(void);
/** @p rank of this node has died: tells every other process, then ends this one. */
void armcii_hb_lost(const char *call, int rank);
/** This process is ending the job with an error (ARMCI_Error): tells the others, which end. */
void armcii_hb_abort(void);
/** Host name and process id of @p rank ("?" and -1 before init or for a bad rank). */
const char *armcii_hb_host(int rank);
int armcii_hb_pid(int rank);
/** Tells the progress thread, if it naps, that a nonblocking request of @p bytes is in
 *  flight (the wake itself comes at armcii_unlock, through armcii_progress_wake). */
void armcii_progress_kick(size_t bytes);
void armcii_progress_wake(void);
/** One round of progress: completions, incoming requests, deferred sends. */
int armcii_progress(void);
/** Drive progress until *counter == 0. */
void armcii_wait_zero(const char *call, const int *counter, int target);
/** Before a blocking operation of @p kind to @p target: keep ARMCI's ordering promise. */
void armcii_order_before(const char *call, armcii_req_kind_t kind, int target);
void armcii_fence(const char *call, int target);
/** @p fn runs first in every fence of a target (aggregation registers its flush). */
void armcii_fence_hook(void (*fn)(const char *call, int target));
/** Before a load/store operation on this process's own memory: complete what is in flight
 *  to it through the fabric. */
void armcii_order_local(const char *call);
void armcii_fence_all(const char *call);
/** Complete an MPI request while driving progress (so peers' operations on us advance). */
void armcii_mpi_wait(const char *call, MPI_Request *req);
void armcii_mpi_waitall(const char *call, int n, MPI_Request *reqs);
void armcii_mpi_waitall_status(const char *call, int n, MPI_Request *reqs, MPI_Status *statuses);
/** MPI errors on @p comm (and the communicators made from it) end the job naming the
 *  ARMCI call that was waiting on MPI, instead of with MPI's message alone. */
void armcii_mpi_name_errors(MPI_Comm comm);
armcii_status_t armcii_progress_thread_start(void);
void armcii_progress_thread_stop(void);

/* ---- contiguous operations (src/core/rma.c) ---- */

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

/* ---- collective allocation (armci/malloc.c) ---- */

int armcii_malloc_comm(const char *call, void **ptr_arr, armci_size_t size, MPI_Comm comm);
int armcii_free_comm(const char *call, void *ptr, MPI_Comm comm);

/** The allocation whose block on this process starts at @p my_base (NULL if none). */
armcii_alloc_t *armcii_alloc_find(void *my_base);

/* ---- the get cache (src/cache/runtime.c) ---- */

armcii_status_t armcii_cache_rt_init(void);
void armcii_cache_rt_fini(void);
/** Collective: print the summed counters on rank 0 when ARMCI_CACHE_STATS is set. */
void armcii_cache_report(void);
/** ARMCIX_CACHE_* for a mode name (off, transparent, always, user), or -1. */
int armcii_cache_parse_mode(const char *s);
const char *armcii_cache_mode_name(int mode);
/** The mode new allocations get. */
int armcii_cache_default_mode(void);
void armcii_cache_get_stats(armcix_cache_stats_t *s);
void armcii_cache_reset_stats(void);
/** A new allocation takes the default mode; a freed one leaves the cache. */
void armcii_cache_alloc_new(armcii_alloc_t *a);
void armcii_cache_alloc_gone(armcii_alloc_t *a);
/** Mode of @p a, or of every allocation (present and future) when @p a is NULL. */
void armcii_cache_set_mode(const char *call, armcii_alloc_t *a, int mode);
/** Drop what is cached from @p a (NULL: everything). */
void armcii_cache_invalidate(armcii_alloc_t *a);
/** A synchronisation point of this process: transparent allocations lose their entries. */
void armcii_cache_sync(void);
/** This process writes [addr, addr+len) of @p target: overlapping entries go. */
void armcii_cache_write(int target, const void *addr, size_t len);
/** Answer a contiguous get from the cache into @p dst; @return 1 on a hit. */
int armcii_cache_get(int target, const void *src, void *dst, size_t len);
/** As armcii_cache_get, counting only a hit (for callers that do not know the mode). */
int armcii_cache_get_held(int target, const void *src, void *dst, size_t len);
/** Would every remote block of the iterator @p it hit? (Nothing is counted.) */
int armcii_cache_peek_all(int target, void *it);
/** Copy every block of @p it from the cache (after armcii_cache_peek_all said yes). */
void armcii_cache_get_blocks(int target, void *it);
/** A fill record for a missed get (NULL: not cacheable); the get reads into
 *  armcii_cache_fill_data(record), and armcii_cache_fill_end delivers and fills. */
void *armcii_cache_fill_start(const armcii_seg_t *seg, int target, const void *src, void *dst,
                              size_t len);
void *armcii_cache_fill_data(void *fill);
void armcii_cache_fill_end(void *fill);

/* ---- collectives (src/coll/coll.c) ---- */

void armcii_coll_init(void);
/** May collectives read send buffers in other processes' private memory (process_vm_readv)? */
int armcii_coll_cma(void);
/** Where the world is one node sharing memory and ARMCI_COLL_ALG allows it, gathers the
 *  @p bytes at @p x of every process (rank order, valid until the next call) with one
 *  synchronisation; NULL, doing nothing, elsewhere. Collective over the world. */
const void *armcii_coll_node_gather(const char *call, const void *x, size_t bytes);
/*
 * Collectives by MPI point-to-point messages (src/coll/p2p.c), which the runtime's wait
 * completes, over @p comm: a communicator of the runtime's own (the world's,
 * armcii_coll_p2p_world, or a group's noncoll_pgroup_comm). Each returns 0, doing nothing,
 * where MPI's collective is to do it: no such communicator (MPI_COMM_NULL),
 * ARMCI_COLL_ALG=mpi, or more than 64 KiB per process.
 */
/** In place, MPI's @p op on @p n elements of @p dt, @p es bytes each; every process gets
 *  the same bits. */
int armcii_coll_p2p_allreduce(const char *call, MPI_Comm comm, void *x, int n, MPI_Datatype dt,
                              size_t es, MPI_Op op);
/** The @p bytes at @p buf of rank @p root of @p comm, to every process. */
int armcii_coll_p2p_bcast(const char *call, MPI_Comm comm, void *buf, size_t bytes, int root);
int armcii_coll_p2p_barrier(const char *call, MPI_Comm comm);
/** The runtime's own duplicate of the world's communicator, for the above. */
MPI_Comm armcii_coll_p2p_world(void);
/** The barrier of the world: the node's shared memory, point-to-point messages or MPI's
 *  barrier, as the layout and ARMCI_COLL_ALG say; waiters serve peers. */
void armcii_coll_barrier(const char *call);
void armcii_coll_p2p_init(void);
void armcii_coll_p2p_fini(void);
void armcii_coll_fini(void);

/* ---- groups (armci/groups.c) ---- */

void armcii_groups_init(void);
void armcii_groups_fini(void);

/* ---- noncontiguous operations and read-modify-write (src/core/nc.c) ---- */

struct armcii_iter_s;
/** Move the blocks of @p it (see iter.h) to or from @p target. Remote blocks were checked. */
int armcii_nc(const char *call, armcii_op_t what, int type, const void *scale, void *it, int target,
              armci_hdl_t *hdl, int blocking);
/** Atomic read-modify-write at @p addr on @p target (an ARMCII_RMW_* op); old value returned. */
uint64_t armcii_rmw(const char *call, int op, int target, void *addr, uint64_t operand,
                    uint64_t comparand);

/* ---- settings (src/core/agree.c) ---- */

/** Collective: end every process, naming the variable and two values, when a setting that
 *  must be the same everywhere (ARMCII_ENV_SAME) differs between processes. */
void armcii_env_agree(const char *call);

/* ---- topology (src/core/topo.c) ---- */

armcii_status_t armcii_topo_init(void);
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
    pthread_mutex_lock(&armcii_g.lock);
}
static inline void armcii_unlock(void)
{
    int wake = armcii_g.progress_wake_due;
    if (wake)
        armcii_g.progress_wake_due = 0;
    pthread_mutex_unlock(&armcii_g.lock);
    if (wake)
        armcii_progress_wake();
}

#endif
