/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The transport's contract: everything the core, and the layers beside it, may ask of
 * the node's shared memory (shm.c) and of
 * libfabric (ofi*.c, am*.c). Nothing else of src/transport is visible outside it.
 *
 * The core posts an operation (get, put, accumulate, read-modify-write, a message built
 * by armcii_amb_*, a flush read) to a target, naming a request's completion token
 * (token.h: its slot, generation and count of operations posted); the core makes the
 * request and waits for it, and the transport never sees more of it. It calls back only
 * through its host (host.h), which the core hands it at start-up with the process's place
 * in the job and the settings it reads:
 *   op_done(tok)        one operation of tok completed;
 *   of_cookie(c)        the request a reply names;
 *   copied(tok)         a blocking call's data has left; only an ack is due;
 *   make_progress       poll while no bounce buffer is free;
 *   blame, check_holder, poll_peers
 *                       the job's health, when a wait is long or a peer is gone.
 * At start-up armcii_net_init reports what the provider can do (caps.h); the core turns
 * that into its protocol limits and ordering rules, and the transport keeps no policy of
 * the core's.
 *
 * Its files: host.c (the host), shm.c (the node heap and its control blocks) and
 * nodelock.c (the node's locks); ofi_load.c (libfabric, opened when first needed),
 * ofi_choose.c (which provider, the same in every process), fabric.c (the network's
 * bring-up, in order, and its description), ofi.c (the endpoint and its peers), ofi_mr.c
 * (registrations), ofi_post.c (operation contexts and bounce buffers), ofi_cq.c
 * (completions and the retries of a full queue), ofi_rma.c (reads, writes and flushes),
 * ofi_atomic.c (libfabric's atomics), bell.c (the doorbell) and serve.c (datagrams a
 * computing holder serves); am.c (the active-message engine), am_build.c
 * (the origin's builder), am_target.c (the target's handlers) and am_acks.c (acknowledgements a
 * target defers). It includes no header of the core's, only its own and those of
 * src/base (testing/layers.sh holds it to that).
 */
#ifndef ARMCII_TRANSPORT_H
#define ARMCII_TRANSPORT_H

#include "host.h"
#include "../base/common.h"
#include "../base/token.h"
#include "../base/caps.h"
#include "../base/op.h"
#include "../base/select.h"
#include "../base/halloc.h"

/* ---- node memory (src/transport/shm.c) ---- */

/** Per-local-rank control block in the node's shared mapping, zeroed when made. */
typedef struct {
    uint32_t acc_lock; /* serialises software accumulates into this rank's memory:
                          a node lock (nodelock.h) */
    uint32_t acc_lock_pad;
    /* the collectives' own (src/coll/node.h, armcii_coll_slot_t): the transport only
     * places it in the node's mapping */
    _Alignas(8) unsigned char coll[120];
} armcii_node_slot_t;
_Static_assert(sizeof(armcii_node_slot_t) == 128, "a node slot is two cache lines");

/** The node heap: one mapping at the same address in every process of the node, a slice
 *  each, and the node's control blocks (shm.c's; each holds the collectives' part). */
typedef struct {
    char *heap_base;           /* start of the mapping */
    size_t heap_len;           /* bytes mapped */
    size_t slice_len;          /* bytes of one local rank's slice */
    char *my_slice;            /* this process's slice */
    int heap_fd;               /* backing shared-memory object (-1 for a private heap) */
    armcii_node_slot_t *slots; /* node control blocks, indexed by node-local rank */
    armcii_halloc_t halloc;    /* allocator of my slice */
    size_t fitted_limit;       /* the address-space limit the slices were fitted to, or 0
                                  (ARMCI_SHM_HEAP_SIZE as set or by default) */
} armcii_node_t;
extern armcii_node_t armcii_node;

armcii_status_t armcii_shm_init(void);
void armcii_shm_fini(void);
/** Reserve and back @p len bytes in my slice; the address is written to @p addr_p. */
armcii_status_t armcii_shm_alloc(const char *call, size_t len, void **addr_p, size_t *off_p,
                                 size_t *rounded_p);
void armcii_shm_free(size_t off, size_t rounded);
/** dst[i] += scale * src[i] into memory of node-local process @p owner_node_rank, under its lock.
 */
void armcii_shm_acc(const char *call, int owner_node_rank, int type, const void *scale,
                    const void *src, void *dst, size_t bytes);
/** The accumulate lock of node-local process @p slot (0 when shared memory is off). A wait
 *  for a holder that has died, or for ARMCI_TIMEOUT, ends the job naming it and @p call. */
void armcii_shm_acc_lock(const char *call, int slot);
void armcii_shm_acc_unlock(int slot);
/** Tries the accumulate lock of @p slot without waiting (a signal handler's): 1 if taken.
 *  Held by another process, it spins briefly; held by this one, it fails at once. */
int armcii_shm_acc_trylock(int slot);

/* ---- libfabric (src/transport/ofi*.c, am.c) ----
 * The data-path calls (get, put, acc_hw, rmw_hw, am_rmw, the message builder) return once
 * the operation is posted, and return nothing: a provider error ends the job inside them,
 * naming the ARMCI call, the libfabric operation and the target (OFI_RETRY), as a request
 * that fails later ends it in the completion's handler. A caller has no failure to handle. */

/* The doorbell (bell.c): a datagram that wakes a peer's napping progress thread, where the
 * provider needs the target's help for RMA and its addresses are IP addresses. */
/** The socket a napping progress thread waits on for its doorbell; -1 where there is none. */
int armcii_bell_fd(void);
/** Rings @p target's doorbell (nothing where there is none). */
void armcii_bell_ring(int target);
/** Empties the doorbell's socket; @return the rings found. */
int armcii_bell_drain(void);

/* Small requests served in the holder's own thread (serve.c): a datagram to the holder's
 * serving socket, announced by a signal to the thread that called ARMCI_Init, whose
 * handler serves it unless that thread is inside the runtime. The runtime lock is held
 * around every call below; src/ops/dgram.c decides what goes so. */
/** Whether the serving socket is open (every process has one, or none). */
int armcii_serve_on(void);
/** Whether a request to @p target goes by datagram: unless the last 4 there found the
 *  holder inside ARMCI, polling, where libfabric answers sooner. */
int armcii_serve_suits(int target);
/** A request to @p target through libfabric took @p seconds: a long one (the holder was
 *  computing) sends the next ones by datagram again. */
void armcii_serve_fabric_took(int target, double seconds);
/** The largest get that goes by datagram, and the most a request's accumulates fill: one
 *  Ethernet frame's worth. */
#define ARMCII_SERVE_DATA_MAX 1024
/** The largest accumulate that joins the open datagram. */
#define ARMCII_SERVE_ACC_MAX 512
/* The posts below send one request and take the open datagram's accumulates with it where
 * it is open to the same target; none is out (armcii_serve_waiting), and the open
 * datagram is to no other target. */
/** A read-modify-write of the word @p addr on @p target. */
void armcii_serve_rmw_post(int op, int target, uint64_t addr, uint64_t operand, uint64_t comparand);
/** A get of @p len bytes (at most ARMCII_SERVE_DATA_MAX) at @p src on @p target, into
 *  @p dst when its answer arrives. */
void armcii_serve_get_post(uint64_t src, void *dst, size_t len, int target);
/** The open datagram's accumulates alone. */
void armcii_serve_ship(void);
/** Whether an accumulate of @p len bytes to @p target may join the open datagram: it is
 *  small, and the datagram is open to no other target and has room. */
int armcii_serve_acc_fits(int target, size_t len);
/** Joins an accumulate to the open datagram, where it fits (the source is copied). */
void armcii_serve_acc_add(int target, int type, const void *scale, const void *src, uint64_t dst,
                          size_t len);
/** 1 until the answer to the request posted has arrived. */
const int *armcii_serve_waiting(void);
/** Ends the job naming @p call where the holder refused the request answered. */
void armcii_serve_answer_check(const char *call);
/** The old value answered; an error naming @p call where the holder refused the word. */
uint64_t armcii_serve_rmw_answer(const char *call);
/** The target of the request out, until its answer arrives; -1: none. */
extern int armcii_serve_out_target;
/** The target of the open datagram; -1: none is open. */
extern int armcii_serve_open_target;
/** The accumulates in the open datagram. */
const int *armcii_serve_open_count(void);
/** Whether a datagram to @p target (-1: to anyone) is out or open: what goes to that
 *  target through libfabric waits until it has been answered, since it goes around
 *  libfabric's queues. */
static inline int armcii_serve_busy(int target)
{
    int o = armcii_serve_out_target, a = armcii_serve_open_target;
    return (o >= 0 && (target < 0 || o == target)) || (a >= 0 && (target < 0 || a == target));
}
/** Reads the serving socket where something arrived (or an answer is awaited, which it
 *  also sends again when late); the runtime lock is held. @return the datagrams read. */
int armcii_serve_poll(void);
/** Sleeps until the answer to the request out arrives, a request for this process does,
 *  or the request is due to go again; the caller then polls. */
void armcii_serve_sleep(void);
/** Has the next poll read the socket (the progress thread, woken by a doorbell). */
void armcii_serve_nudge(void);
/** Set where a datagram arrived while the lock was held; whoever lets the lock go then
 *  serves it (atomic). */
extern int armcii_serve_due_flag;
/** Whether it is set; after the lock is let go, behind a full fence. */
static inline int armcii_serve_due(void)
{
    return __atomic_load_n(&armcii_serve_due_flag, __ATOMIC_RELAXED);
}

/* ---- the network: peers on other nodes (libfabric: ofi*.c, brought up by fabric.c) ----
 * Named by what it does: the stand-in transport of the unit tests (testing/unit/standin.c)
 * keeps the same contract without libfabric. */

/** Opens the endpoint (collective over the world); reports what it can do in @p caps. */
armcii_status_t armcii_net_init(armcii_caps_t *caps);
void armcii_net_fini(void);
/** Bytes the transport holds itself: bounce and receive buffers, per-peer tables. Of them,
 *  @p registered_p: those registered with libfabric. libfabric's own are not counted. */
size_t armcii_net_bytes(size_t *registered_p);
const char *armcii_net_provider(void);
/** The provider in words, with the limits @p l the core chose for it (ARMCI_VERBOSE). */
void armcii_net_describe(void (*emit)(const char *line), const armcii_sel_limits_t *l);
/** Poll completions once; @return the number handled. */
int armcii_net_progress(void);
armcii_status_t armcii_net_register(const char *call, void *buf, size_t len, armcii_mr_t *mr_p);
/** armcii_net_register under @p key, where the provider takes the keys it is asked for
 *  (caps.keys_chosen; a key this process has not used yet, at least armcii_net_key_next()). */
armcii_status_t armcii_net_register_key(const char *call, void *buf, size_t len, uint64_t key,
                                        armcii_mr_t *mr_p);
/** The least key this process has not used for a registration. */
uint64_t armcii_net_key_next(void);
void armcii_net_unregister(armcii_mr_t *mr);
void armcii_net_get(const char *call, armcii_token_t *tok, void *dst, size_t len, int target,
                    uint64_t raddr, uint64_t key, armcii_proto_t proto);
void armcii_net_put(const char *call, armcii_token_t *tok, const void *src, size_t len, int target,
                    uint64_t raddr, uint64_t key, armcii_proto_t proto);
/** Read-modify-write through libfabric atomics (where caps.rmw_ops has the op and
 *  accumulates use atomics too). The buffers must stay until the request completes. */
void armcii_net_rmw(const char *call, armcii_token_t *tok, int op, void *result,
                    const void *operand, const void *comparand, int target, uint64_t raddr,
                    uint64_t key);
/** Have writes to @p target completed locally that may not have landed remotely? */
int armcii_net_unflushed(int target);
/** Posts, as operation of @p tok, the read that makes those writes remotely complete:
 *  once it completes they have landed. */
void armcii_net_flush(const char *call, armcii_token_t *tok, int target);
void armcii_net_bounce_usage(int *in_use_p, int *total_p);
/** Accumulate with libfabric atomics (where caps.acc_types has @p type). */
void armcii_net_acc(const char *call, armcii_token_t *tok, int type, const void *src, size_t bytes,
                    int target, uint64_t raddr, uint64_t key);

/* Active-message builder: blocks of one operation to one target, packed into as few
 * messages as bounce buffers allow. Each message adds one to tok->pending, completed by
 * the target's acknowledgement (put, acc) or reply (get). */
typedef struct armcii_amb armcii_amb_t;
armcii_amb_t *armcii_amb_begin(const char *call, armcii_token_t *tok, armcii_op_t what, int type,
                               const void *scale, int target);
void armcii_amb_add(armcii_amb_t *b, char *local, uint64_t remote, size_t len);
/** Records of @p len bytes (1 to 64) from @p local[k] to @p remote[k], k < @p n, packed in
 *  one loop into the buffer being filled, as one run record where they are more than one:
 *  as many as it has room for (0 when none is open), which is the number returned;
 *  armcii_amb_add takes the next one. */
size_t armcii_amb_add_run(armcii_amb_t *b, char *const *local, char *const *remote, size_t n,
                          size_t len);
void armcii_amb_end(armcii_amb_t *b);
/** Like armcii_amb_end, for a put whose acknowledgement the caller needs only when it
 *  waits (a fence, a get from that target): the target acknowledges the last message by
 *  the count on a later one or when asked (ARMCI_ACK_DEFER; not without progress threads). */
void armcii_amb_end_lazy(armcii_amb_t *b);
/** Like armcii_amb_end, and the target then stores @p value into the int at @p flag, after
 *  every block of this builder is in place (the last message carries the flag). */
void armcii_amb_end_flag(armcii_amb_t *b, uint64_t flag, int value);
/** Flagged puts whose acknowledgement a target defers, to all targets (am.c's count). */
extern int armcii_am_deferred;
void armcii_am_ask_acks(int target);
/** Before waiting for messages' acknowledgements from @p target (-1: from every target):
 *  asks it to acknowledge the flagged puts whose acknowledgement it may defer. */
static inline void armcii_am_want_acks(int target)
{
    if (armcii_am_deferred > 0)
        armcii_am_ask_acks(target);
}
/** Read-modify-write applied by the target; the old value lands in @p result at completion. */
void armcii_am_rmw(const char *call, armcii_token_t *tok, int op, void *result, size_t rsize,
                   int target, uint64_t addr, uint64_t operand, uint64_t comparand);

#endif
