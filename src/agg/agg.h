/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Aggregate handles: nonblocking puts and gets issued on a handle marked with
 * ARMCI_SET_AGGREGATE_HANDLE are collected as blocks instead of being sent, and travel as
 * vector operations (packed into messages, or zero-copy for large blocks) when the handle
 * is waited on or tested, when the list fills (ARMCI_AGG_MAX), or at a fence or barrier.
 * agg.c, which sends through the operations' noncontiguous path (armcii_nc) and is
 * reached by fences through a hook (armcii_fence_hook); and route.c, the way down from the
 * API layer, which hands each checked call to a handle's collection or to the operations.
 */
#ifndef ARMCII_AGG_H
#define ARMCII_AGG_H

#include <string.h>

#include "../core/mem.h"
#include "../core/req.h"
#include "../core/runtime.h"
#include "../ops/local.h"
#include "../ops/rma.h"
#include "../base/hot.h"
#include "../base/iter.h"
#include "../base/op.h"
#include "../base/pool.h"
#include "../base/region.h"
#include "../base/stats.h"
#include "../cache/getcache.h"

/** Collect the blocks of @p it (a put or a get, ARMCII_NC_*) on aggregate handle @p hdl. */
void armcii_agg_add(const char *call, armci_hdl_t *hdl, armcii_op_t what, armcii_iter_t *it,
                    int target);
/** Collect one contiguous put or get (the common case, without an iterator). */
void armcii_agg_add_block(const char *call, armci_hdl_t *hdl, armcii_op_t what, char *local,
                          char *remote, size_t len, int target);

/* A handle's collection. Private to agg.c but for the inlines below, which every unlocked
 * nonblocking put and get on an aggregate handle runs. The blocks are kept as the arrays
 * of an I/O vector (local and remote addresses, lengths apart), so that they are sent as
 * a vector call's are, one group per stretch of blocks of one length. */
typedef enum {
    ARMCII_AGG_LOCKED, /* every operation takes the locked way (this process itself; a node
                        * peer where accumulates take libfabric's atomics) */
    ARMCII_AGG_COPY,   /* a node peer: each operation is a copy done at once */
    ARMCII_AGG_COLLECT /* a fabric peer: operations are collected */
} armcii_agg_way_t;

typedef struct {
    int in_use;
    uint32_t gen;
    int target;
    armcii_agg_way_t unlocked; /* what an operation without the lock does (set at attach) */
    void **local, **remote;    /* block k's addresses (local[k] of a copied value: set when sent) */
    size_t *len;
    uint8_t *is_get;
    size_t n, cap;
    size_t room;     /* blocks the unlocked step may add: min(cap, ARMCI_AGG_MAX - 1) */
    size_t n_direct; /* blocks of ARMCI_NC_DIRECT_MIN bytes or more (they go by RMA) */
    int mixed;       /* puts and gets both collected (more than one run to send) */
    /* the target's segment that held the last block taken without the lock, as the region
     * table had it (seg_removals: its count of removals then) */
    uintptr_t seg_lo;
    size_t seg_size;
    unsigned seg_removals;
    char *copy; /* the copied values (armcii_agg_add_copy) */
    size_t copy_used, copy_cap;
    size_t *copied; /* their blocks, each followed by its offset in `copy` */
    size_t ncopied, copied_cap;
    armci_giov_t *groups; /* the I/O vector of a run being sent */
    size_t groups_cap;
    armci_hdl_t *issued; /* handles of the vector operations sent so far (ISSUED_MAX) */
    int nissued;
    int last_get; /* kind of the last run sent */
} armcii_agg_t;

/** The collections, indexed by an attached handle's slot (written by agg.c only, under
 *  the runtime lock). */
typedef struct {
    armcii_agg_t *at;
    int n;
} armcii_agg_table_t;
extern armcii_agg_table_t armcii_agg_table;

/** The collection @p hdl names, in progress (its slot and generation); NULL otherwise. */
static inline armcii_agg_t *armcii_agg_record(const armci_hdl_t *hdl)
{
    int slot = armcii_hdl_slot(hdl);
    if ((unsigned)slot >= (unsigned)armcii_agg_table.n)
        return NULL;
    armcii_agg_t *a = &armcii_agg_table.at[slot];
    return a->in_use && a->gen == armcii_hdl_gen(hdl) ? a : NULL;
}

/** The collection @p hdl names, if it is attached to @p target; NULL otherwise. */
static inline armcii_agg_t *armcii_agg_attached_to(const armci_hdl_t *hdl, int target)
{
    armcii_agg_t *a = armcii_agg_record(hdl);
    return a && a->target == target ? a : NULL;
}

/* The handle last attached (or met attached) on the locked way, as its bytes were then: a
 * program issues its operations on one aggregate handle at a time, and the unlocked step
 * knows that handle by a comparison of its address, its 8 bytes and the target, without
 * the search of the registry and the table (the handle's bytes change when it completes,
 * and its generation with them). Written by agg.c only. */
typedef struct {
    const armci_hdl_t *hdl;
    uint64_t bytes;
    int target;
    armcii_agg_t *rec;
} armcii_agg_lane_t;
extern armcii_agg_lane_t armcii_agg_lane;

/** The collection of @p hdl, when it is the lane's handle, attached to @p target. */
static inline armcii_agg_t *armcii_agg_lane_of(const armci_hdl_t *hdl, int target)
{
    if (hdl != armcii_agg_lane.hdl) /* (first: a plain handle's bytes may be unset) */
        return NULL;
    uint64_t bytes;
    memcpy(&bytes, hdl, sizeof(bytes));
    return bytes == armcii_agg_lane.bytes && target == armcii_agg_lane.target ? armcii_agg_lane.rec
                                                                              : NULL;
}

/** Does [@p r, @p r + @p len) lie in the segment the last block of @p a was found in, a
 *  segment still there? (Three words of the collection, which the step reads anyway,
 *  instead of the walk from the region table to the target's segment.) */
static inline int armcii_agg_in_segment(const armcii_agg_t *a, uintptr_t r, size_t len)
{
    return a->seg_removals == armcii_mem.regions.removals && r >= a->seg_lo &&
           r - a->seg_lo <= a->seg_size && len <= a->seg_size - (r - a->seg_lo);
}

/** The same through the region table, which then names the segment @p a keeps. */
static inline int armcii_agg_find_segment(armcii_agg_t *a, uintptr_t r, size_t len)
{
    const armcii_seg_t *s = armcii_region_find_fast(&armcii_mem.regions, a->target, r, len);
    if (!s)
        return 0;
    a->seg_lo = s->base;
    a->seg_size = s->size;
    a->seg_removals = armcii_mem.regions.removals;
    return 1;
}

/** Records one block in @p a, which has room. */
static inline void armcii_agg_push(armcii_agg_t *a, char *local, char *remote, size_t len,
                                   int is_get)
{
    size_t n = a->n;
    a->local[n] = local;
    a->remote[n] = remote;
    a->len[n] = len;
    a->is_get[n] = (uint8_t)is_get;
    a->n = n + 1;
    if (n > 0 && a->is_get[n - 1] != (uint8_t)is_get)
        a->mixed = 1;
    a->n_direct += len >= (size_t)armcii_rt.env.NC_DIRECT_MIN;
    armcii_stat_agg_op();
}

/**
 * The collecting step of a contiguous put or get without the runtime lock into @p a, the
 * collection of a handle attached to a target reached through the fabric, for a caller
 * that has checked the arguments: possible when only one application thread calls ARMCI
 * (armcii_rt.one_caller) and the step touches nothing the progress thread touches (room
 * left and no flush due; no get cache running).
 * @return 1 when collected, 0 when the locked path must take it.
 */
static inline int armcii_agg_collect_unlocked(armcii_agg_t *a, armcii_op_t what, char *local,
                                              char *remote, size_t len)
{
    /* growth and flushes belong to the locked path; with a cache engine, a put's epoch
     * count may concern a fill in flight */
    if (a->n >= a->room || armcii_cache_engine)
        return 0;
    armcii_agg_push(a, local, remote, len, what == ARMCII_OP_GET);
    return 1;
}
/** Collect a put of @p len bytes copied from @p value (the caller's copy may vanish). */
void armcii_agg_add_copy(const char *call, armci_hdl_t *hdl, const void *value, size_t len,
                         char *remote, int target);
/** Send what @p hdl collected and complete it (@p wait) or test it; 1 when complete. */
int armcii_agg_complete(const char *call, armci_hdl_t *hdl, int wait);
/** Send what any aggregate handle collected for @p target (-1: every target). */
void armcii_agg_flush_target(const char *call, int target);
/** Complete and drop every aggregate record (finalize). */
void armcii_agg_fini(const char *call);

/** The addresses of handles made aggregate (see agg.c): add (-1 if out of memory), remove,
 *  ask, forget all. Every operation with a handle asks, so the asking is inline; the set
 *  is written by agg.c only. */
typedef struct {
    const armci_hdl_t **at;
    int n;
} armcii_agg_addrs_t;
extern armcii_agg_addrs_t armcii_agg_addrs;

int armcii_agg_addr_add(const armci_hdl_t *h);
void armcii_agg_addr_remove(const armci_hdl_t *h);
static inline int armcii_agg_addr_known(const armci_hdl_t *h)
{
    for (int i = 0; i < armcii_agg_addrs.n; i++)
        if (armcii_agg_addrs.at[i] == h)
            return 1;
    return 0;
}
void armcii_agg_addr_clear(void);

/* ---- the way down from the API layer (route.c): a checked call goes to an aggregate
 * handle's collection or to the operations (src/ops); the API layer forks on neither ---- */

/** Whether @p hdl is an aggregate handle (known addresses first: the bytes of a plain
 *  handle may be uninitialised). */
static inline int armcii_agg_is(const armci_hdl_t *hdl)
{
    return hdl && armcii_agg_addr_known(hdl) && armcii_hdl_is_aggregate(hdl);
}

/**
 * A contiguous get or put (@p what) of @p len bytes between @p local and @p remote on
 * @p proc without the runtime lock, where that is safe: to a fabric target, one on an
 * aggregate handle is collected (armcii_agg_collect_unlocked); to a peer of this node it is
 * copied (armcii_copy_unlocked), a nonblocking one complete within the call, its handle
 * marked done (an aggregate one stays collecting). The lock and its release were half of
 * such a call. The API layer checked that ARMCI is up, that one thread calls it, @p len,
 * @p local and @p proc. 1 when done; 0 when the locked way must take it (anything unusual,
 * errors included). Inline: the API function's constants (blocking, a handle or none)
 * decide its branches.
 */
ARMCII_INLINE int armcii_route_unlocked(const char *call, armcii_op_t what, void *local,
                                        void *remote, size_t len, int proc, armci_hdl_t *hdl,
                                        int blocking)
{
    /* An aggregate handle's collection, if it is attached to @p proc: the lane's handle
     * by a comparison, another one found in the registry (known addresses first: the
     * bytes of a plain handle may be uninitialised) and the table. */
    armcii_agg_t *rec = NULL;
    if (!blocking && hdl) {
        rec = armcii_agg_lane_of(hdl, proc);
        int aggregate = rec || armcii_agg_is(hdl);
        /* a plain handle naming an operation in flight somewhere is checked on the locked
         * way (only this thread binds handles, so the count cannot grow behind this
         * look); an aggregate one never names a request */
        if (!aggregate && armcii_req_handles_bound())
            return 0;
        if (aggregate && !rec && !(rec = armcii_agg_attached_to(hdl, proc)))
            return 0; /* its first operation attaches it, locked */
    }
    if (rec) {
        /* a node peer's operation is a copy done at once, a fabric peer's is collected
         * (armcii_agg_add_block); checked against the segment of the handle's last block,
         * which holds most blocks */
        uintptr_t r = (uintptr_t)remote;
        if (rec->unlocked == ARMCII_AGG_LOCKED ||
            (!armcii_agg_in_segment(rec, r, len) && !armcii_agg_find_segment(rec, r, len)))
            return 0;
        if (rec->unlocked == ARMCII_AGG_COLLECT)
            return armcii_agg_collect_unlocked(rec, what, local, remote, len);
        armcii_copy_unlocked_checked(what, local, remote, len);
        return 1;
    }
    if (!armcii_copy_unlocked(what, local, remote, len, proc))
        return 0;
    if (!blocking)
        armcii_hdl_done(call, hdl);
    return 1;
}

/** An accumulate the same way, to a peer of this node under its accumulate lock only; not
 *  on an aggregate handle (the locked way refuses it) nor on a plain one while some handle
 *  names an operation in flight. The API layer checked @p src and @p scale. */
ARMCII_INLINE int armcii_route_acc_unlocked(const char *call, int type, const void *scale,
                                            const void *src, void *dst, size_t len, int proc,
                                            armci_hdl_t *hdl, int blocking)
{
    if (!(blocking || !hdl || (!armcii_req_handles_bound() && !armcii_agg_is(hdl))) ||
        !armcii_acc_unlocked(call, type, scale, src, dst, len, proc))
        return 0;
    if (!blocking)
        armcii_hdl_done(call, hdl);
    return 1;
}

/** A checked contiguous get or put (@p what) of @p len bytes between @p local and
 *  @p remote (in @p seg) on @p proc: collected on an aggregate @p hdl, issued otherwise.
 *  Inline: the API layer's locked way calls the protocol with no call between (its own
 *  function is kept out of line, so that the unlocked way stays small). */
ARMCII_INLINE int armcii_route_contig(const char *call, armcii_op_t what, void *local, void *remote,
                                      size_t len, int proc, const armcii_seg_t *seg,
                                      armci_hdl_t *hdl, int blocking)
{
    if (armcii_agg_is(hdl)) {
        armcii_agg_add_block(call, hdl, what, local, remote, len, proc);
        return 0;
    }
    if (what == ARMCII_OP_GET)
        return armcii_get(call, remote, local, len, proc, seg, hdl, blocking);
    return armcii_put(call, local, remote, len, proc, seg, hdl, blocking);
}
/** A checked strided or vector operation (@p it): collected on an aggregate @p hdl (puts
 *  and gets; the API layer refused an accumulate there), issued otherwise. */
int armcii_route_nc(const char *call, armcii_op_t what, int type, const void *scale,
                    armcii_iter_t *it, int proc, armci_hdl_t *hdl, int blocking);
/** A put of the value at @p src (the caller's stack: it returns locally complete, and a
 *  nonblocking form's handle reads as completed), or its copy collected on an aggregate
 *  @p hdl. */
void armcii_route_put_value(const char *call, const void *src, void *dst, size_t len, int proc,
                            const armcii_seg_t *seg, armci_hdl_t *hdl);
/** ARMCI_Wait's work on @p hdl, under the lock: an aggregate handle's collection sent and
 *  completed, or the request it names waited for; the handle then reads as waited. */
void armcii_route_wait(const char *call, armci_hdl_t *hdl);
/** ARMCI_Test's: 1 while the operation @p hdl names is in flight, 0 once complete (the
 *  handle then reads as tested). */
int armcii_route_test(const char *call, armci_hdl_t *hdl);
/** ARMCI_SET_AGGREGATE_HANDLE's and ARMCI_UNSET_AGGREGATE_HANDLE's work, under the lock;
 *  unset completes what the handle collected. */
void armcii_agg_set(const char *call, armci_hdl_t *hdl);
void armcii_agg_unset(const char *call, armci_hdl_t *hdl);

#endif
