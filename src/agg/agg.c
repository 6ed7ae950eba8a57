/* SPDX-License-Identifier: BSD-3-Clause */
/* Aggregate handles (see agg.h). */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agg.h"
#include "../ops/nc.h"
#include "../core/order.h"
#include "../core/progress.h"
#include "../core/req.h"
#include "../core/runtime.h"
#include "../core/warm.h"
#include "../base/common.h"
#include "../base/hot.h"
#include "../base/iter.h"
#include "../base/op.h"
#include "../base/pool.h"
#include "../base/select.h"
#include "../base/stats.h"
#include "../cache/getcache.h"

#define ISSUED_MAX 16

armcii_agg_table_t armcii_agg_table; /* (read inline: agg.h) */
armcii_agg_lane_t armcii_agg_lane;

/* @p hdl, attached to @p a, becomes the lane's handle (agg.h). */
static void lane_set(const armci_hdl_t *hdl, armcii_agg_t *a)
{
    armcii_agg_lane.hdl = hdl;
    memcpy(&armcii_agg_lane.bytes, hdl, sizeof(armcii_agg_lane.bytes));
    armcii_agg_lane.target = a->target;
    armcii_agg_lane.rec = a;
}

static armcii_agg_t *record_of(const char *call, const armci_hdl_t *hdl)
{
    armcii_agg_t *a = armcii_agg_record(hdl);
    if (!a)
        armcii_fatal(call, "aggregate handle %p names no collection in progress", (void *)hdl);
    return a;
}

/* How many blocks the unlocked step may hold before the locked path grows the list or
 * sends it (armcii_agg_collect_unlocked). */
static void set_room(armcii_agg_t *a)
{
    size_t max = armcii_rt.env.AGG_MAX > 0 ? (size_t)armcii_rt.env.AGG_MAX - 1 : 0;
    a->room = max < a->cap ? max : a->cap;
}

/* @p a holds nothing now (attached, or just sent). */
static void emptied(armcii_agg_t *a)
{
    a->n = 0;
    a->n_direct = 0;
    a->mixed = 0;
    a->copy_used = 0;
    a->ncopied = 0;
    set_room(a);
}

/* The record of @p hdl, attached now if it has none. */
static armcii_agg_t *attach(const char *call, armci_hdl_t *hdl, int target)
{
    if (armcii_hdl_slot(hdl) >= 0) {
        armcii_agg_t *a = record_of(call, hdl);
        if (a->target != target)
            armcii_fatal(call,
                         "aggregate handle %p collects operations to process %d; it "
                         "cannot take one to process %d (wait on it first)",
                         (void *)hdl, a->target, target);
        lane_set(hdl, a);
        return a;
    }
    armcii_agg_table_t *tb = &armcii_agg_table;
    int i = 0;
    while (i < tb->n && tb->at[i].in_use)
        i++;
    if (i == tb->n) {
        int n = tb->n ? 2 * tb->n : 16;
        armcii_agg_t *t = realloc(tb->at, (size_t)n * sizeof(*t));
        if (!t)
            armcii_fatal(call, "out of memory");
        memset(t + tb->n, 0, (size_t)(n - tb->n) * sizeof(*t));
        tb->at = t;
        tb->n = n;
    }
    armcii_agg_t *a = &tb->at[i];
    a->in_use = 1;
    a->target = target;
    a->nissued = 0;
    a->seg_size = 0; /* (no segment of this target known yet) */
    /* (a copy without the lock reads no cursor the progress thread moves: a peer's
     * segments, never this process's own; the order with accumulates in flight through
     * libfabric's atomics is the locked way's) */
    armcii_path_t path = armcii_path(target);
    a->unlocked = path == ARMCII_PATH_FABRIC                            ? ARMCII_AGG_COLLECT
                  : path == ARMCII_PATH_SHM && !armcii_rt.limits.acc_hw ? ARMCII_AGG_COPY
                                                                        : ARMCII_AGG_LOCKED;
    emptied(a);
    armcii_hdl_collect(hdl, i, a->gen);
    lane_set(hdl, a);
    return a;
}

static void wait_issued(const char *call, armcii_agg_t *a)
{
    for (int i = 0; i < a->nissued; i++) {
        armcii_req_t *req = NULL;
        if (armcii_hdl_state(&armcii_reqs.pool, &a->issued[i], &req) == ARMCII_HDL_ACTIVE)
            armcii_req_wait(call, req);
    }
    a->nissued = 0;
}

/* Whether blocks [i, j) all go as message records (shorter than ARMCI_NC_DIRECT_MIN). */
static int all_packed(const armcii_agg_t *a, size_t i, size_t j)
{
    for (size_t k = i; k < j; k++)
        if (a->len[k] >= (size_t)armcii_rt.env.NC_DIRECT_MIN)
            return 0;
    return 1;
}

/* Blocks [i, j) of @p a, all of one kind, as an I/O vector in a->groups: a group per
 * stretch of blocks of one length (usually one group); how many groups. */
static int as_vector(const char *call, armcii_agg_t *a, size_t i, size_t j)
{
    int get = a->is_get[i], ngroups = 0;
    for (size_t k = i; k < j;) {
        size_t m = k + 1;
        while (m < j && a->len[m] == a->len[k] && m - k < INT_MAX)
            m++;
        if ((size_t)ngroups == a->groups_cap) {
            size_t cap = a->groups_cap ? 2 * a->groups_cap : 4;
            armci_giov_t *g = realloc(a->groups, cap * sizeof(*g));
            if (!g)
                armcii_fatal(call, "out of memory");
            a->groups = g;
            a->groups_cap = cap;
        }
        /* (a block's length came from an int of the API) */
        a->groups[ngroups++] =
            (armci_giov_t){get ? a->remote + k : a->local + k, get ? a->local + k : a->remote + k,
                           (int)a->len[k], (int)(m - k)};
        k = m;
    }
    return ngroups;
}

/* Send the collected blocks: each run of puts or gets as one vector operation, a run
 * after one of the other kind only once that completed (a get must see an earlier put to
 * the same place, a put must not overtake an earlier get). */
static void flush(const char *call, armcii_agg_t *a)
{
    if (a->n == 0)
        return;
    for (size_t c = 0; c < a->ncopied; c++)
        a->local[a->copied[2 * c]] = a->copy + a->copied[2 * c + 1];
    for (size_t i = 0; i < a->n;) {
        size_t j = a->mixed ? i : a->n; /* (one run unless both kinds were collected) */
        while (j < a->n && a->is_get[j] == a->is_get[i])
            j++;
        if (a->nissued > 0 && a->last_get != a->is_get[i])
            wait_issued(call, a);
        /* A run of puts that all go as message records is locally complete once packed,
         * all ARMCI_Wait promises: it leaves as implicit operations, which fences complete
         * as they do any put without a handle, and the wait costs no round trip. A later
         * get run is ordered after it by the transport (messages apply in order; a direct
         * get waits for earlier messages). Not where a message needs the sender's later
         * calls to leave (sends_need_caller): there the wait sees it arrive, as a blocking
         * put does, since the caller may next block in MPI. */
        armci_hdl_t *h = NULL;
        if (a->is_get[i] || armcii_prog.sends_need_caller ||
            (a->mixed ? !all_packed(a, i, j) : a->n_direct > 0)) {
            /* The pool knows handles in flight by their address (armcii_pool_bind), so the
             * array is never moved: when its 16 are taken, they are waited for and reused
             * (runs alternate between puts and gets, each change waits anyway). */
            if (a->nissued == ISSUED_MAX)
                wait_issued(call, a);
            if (!a->issued && !(a->issued = malloc(ISSUED_MAX * sizeof(*a->issued))))
                armcii_fatal(call, "out of memory");
            h = &a->issued[a->nissued++];
        }
        armcii_iter_t it;
        armcii_iter_vector(&it, a->groups, as_vector(call, a, i, j), !a->is_get[i]);
        armcii_nc(call, a->is_get[i] ? ARMCII_OP_GET : ARMCII_OP_PUT, 0, NULL, &it, a->target, h,
                  0);
        a->last_get = a->is_get[i];
        i = j;
    }
    /* Copied values were packed into messages when sent, unless blocks that small go
     * zero-copy (ARMCI_NC_DIRECT_MIN configured tiny): then they must land first. */
    if (a->ncopied > 0 && (size_t)armcii_rt.env.NC_DIRECT_MIN <= sizeof(double))
        wait_issued(call, a);
    emptied(a);
    armcii_stat_agg_flush();
}

/* Room for one more block in @p a, its arrays grown as needed. */
static void make_room(const char *call, armcii_agg_t *a)
{
    if (a->n < a->cap)
        return;
    size_t cap = a->cap ? 2 * a->cap : 64;
    void **l = realloc(a->local, cap * sizeof(*l));
    if (l)
        a->local = l;
    void **r = realloc(a->remote, cap * sizeof(*r));
    if (r)
        a->remote = r;
    size_t *n = realloc(a->len, cap * sizeof(*n));
    if (n)
        a->len = n;
    uint8_t *g = realloc(a->is_get, cap);
    if (g)
        a->is_get = g;
    if (!l || !r || !n || !g)
        armcii_fatal(call, "out of memory");
    a->cap = cap;
    set_room(a);
}

static void append(const char *call, armcii_agg_t *a, char *local, char *remote, size_t len,
                   int is_get)
{
    if (!is_get) /* cached copies of what this put overwrites go now, not at the flush */
        armcii_cache_write(a->target, remote, len);
    make_room(call, a);
    armcii_agg_push(a, local, remote, len, is_get);
    if (a->n >= (size_t)armcii_rt.env.AGG_MAX)
        flush(call, a);
}

void armcii_agg_add(const char *call, armci_hdl_t *hdl, armcii_op_t what, armcii_iter_t *it,
                    int target)
{
    /* The handle takes its target whatever the path, so that a second target is refused
     * alike everywhere. Same node: nothing to gain, the operation is a copy done now. */
    armcii_agg_t *a = attach(call, hdl, target);
    if (armcii_path(target) != ARMCII_PATH_FABRIC) {
        armcii_nc(call, what, 0, NULL, it, target, NULL, 0);
        return;
    }
    char *l, *r;
    size_t len;
    while (armcii_iter_next(it, &l, &r, &len))
        append(call, a, l, r, len, what == ARMCII_OP_GET);
}

void armcii_agg_add_block(const char *call, armci_hdl_t *hdl, armcii_op_t what, char *local,
                          char *remote, size_t len, int target)
{
    armcii_agg_t *a = attach(call, hdl, target); /* (checks the handle's target either way) */
    if (armcii_path(target) != ARMCII_PATH_FABRIC) {
        armcii_order_local(call, target);
        if (what == ARMCII_OP_GET)
            memmove(local, remote, len);
        else
            memmove(remote, local, len);
        return;
    }
    /* A cached block is delivered now; an earlier put collected on this handle to the
     * same bytes dropped them from the cache when it was collected, so order holds. */
    if (what == ARMCII_OP_GET && armcii_cache_get_held(target, remote, local, len))
        return;
    append(call, a, local, remote, len, what == ARMCII_OP_GET);
}

void armcii_agg_add_copy(const char *call, armci_hdl_t *hdl, const void *value, size_t len,
                         char *remote, int target)
{
    armcii_agg_t *a = attach(call, hdl, target);
    if (armcii_path(target) != ARMCII_PATH_FABRIC) {
        memmove(remote, value, len);
        return;
    }
    if (a->copy_used + len > a->copy_cap) {
        size_t cap = a->copy_cap ? 2 * a->copy_cap : 1024;
        while (cap < a->copy_used + len)
            cap *= 2;
        char *c = realloc(a->copy, cap);
        if (!c)
            armcii_fatal(call, "out of memory");
        a->copy = c;
        a->copy_cap = cap;
    }
    if (a->ncopied == a->copied_cap) {
        size_t cap = a->copied_cap ? 2 * a->copied_cap : 16;
        size_t *c = realloc(a->copied, 2 * cap * sizeof(*c));
        if (!c)
            armcii_fatal(call, "out of memory");
        a->copied = c;
        a->copied_cap = cap;
    }
    memcpy(a->copy + a->copy_used, value, len);
    a->copied[2 * a->ncopied] = a->n; /* (the block append adds next) */
    a->copied[2 * a->ncopied + 1] = a->copy_used;
    a->ncopied++;
    a->copy_used += (len + 7) & ~(size_t)7;
    append(call, a, NULL, remote, len, 0); /* its address is known when it is sent */
}

int armcii_agg_complete(const char *call, armci_hdl_t *hdl, int wait)
{
    armcii_agg_t *a = record_of(call, hdl);
    flush(call, a);
    if (wait) {
        wait_issued(call, a);
    } else {
        armcii_progress();
        for (int i = 0; i < a->nissued; i++) {
            armcii_req_t *req = NULL;
            if (armcii_hdl_state(&armcii_reqs.pool, &a->issued[i], &req) == ARMCII_HDL_ACTIVE)
                return 0;
        }
    }
    a->in_use = 0;
    a->nissued = 0;
    a->gen = armcii_hdl_gen_next(a->gen);
    if (armcii_agg_lane.rec == a)
        armcii_agg_lane = (armcii_agg_lane_t){NULL, 0, -1, NULL};
    return 1;
}

void armcii_agg_flush_target(const char *call, int target)
{
    for (int i = 0; i < armcii_agg_table.n; i++) {
        armcii_agg_t *a = &armcii_agg_table.at[i];
        if (a->in_use && (target < 0 || a->target == target))
            flush(call, a);
    }
}

void armcii_agg_fini(const char *call)
{
    for (int i = 0; i < armcii_agg_table.n; i++) {
        armcii_agg_t *a = &armcii_agg_table.at[i];
        if (a->in_use) {
            flush(call, a);
            wait_issued(call, a);
        }
        free(a->local);
        free(a->remote);
        free(a->len);
        free(a->is_get);
        free(a->copy);
        free(a->copied);
        free(a->groups);
        free(a->issued);
    }
    free(armcii_agg_table.at);
    armcii_agg_table.at = NULL;
    armcii_agg_table.n = 0;
    armcii_agg_lane = (armcii_agg_lane_t){NULL, 0, -1, NULL};
}

/* ---- which handles are aggregate ---- */

/*
 * Handles need not be initialised for plain nonblocking calls (ARMCI_INIT_HANDLE is required
 * only before ARMCI_SET_AGGREGATE_HANDLE), so an issuing call must not read a handle's bytes
 * to ask whether it is an aggregate handle: they may be garbage that looks like one. The
 * addresses that ARMCI_SET_AGGREGATE_HANDLE turned into aggregate handles are kept here,
 * and only those are read. There are few at any time: a linear search.
 */
armcii_agg_addrs_t armcii_agg_addrs; /* the set, read inline (agg.h) */
static int agg_cap;

/* The keep-warm pass (src/core/warm.c) reads the registry, which every nonblocking call
 * searches; it changes only under the runtime lock, as the pass runs. */
static size_t registry_warm(void)
{
    static volatile unsigned sink;
    size_t bytes = (size_t)armcii_agg_addrs.n * sizeof(*armcii_agg_addrs.at);
    sink += armcii_touch(&armcii_agg_addrs, sizeof(armcii_agg_addrs)) +
            armcii_touch(armcii_agg_addrs.at, bytes);
    return 1 + (bytes + ARMCII_LINE - 1) / ARMCII_LINE;
}

int armcii_agg_addr_add(const armci_hdl_t *h)
{
    if (armcii_agg_addr_known(h))
        return 0;
    armcii_warm_register(registry_warm);
    if (armcii_agg_addrs.n == agg_cap) {
        int cap = agg_cap ? 2 * agg_cap : 16;
        const armci_hdl_t **a = realloc(armcii_agg_addrs.at, (size_t)cap * sizeof(*a));
        if (!a)
            return -1;
        armcii_agg_addrs.at = a;
        agg_cap = cap;
    }
    armcii_agg_addrs.at[armcii_agg_addrs.n++] = h;
    return 0;
}

void armcii_agg_addr_remove(const armci_hdl_t *h)
{
    for (int i = 0; i < armcii_agg_addrs.n; i++)
        if (armcii_agg_addrs.at[i] == h) {
            armcii_agg_addrs.at[i] = armcii_agg_addrs.at[--armcii_agg_addrs.n];
            return;
        }
}

void armcii_agg_addr_clear(void)
{
    free(armcii_agg_addrs.at);
    armcii_agg_addrs.at = NULL;
    armcii_agg_addrs.n = agg_cap = 0;
}

void armcii_agg_set(const char *call, armci_hdl_t *hdl)
{
    armcii_hdl_state_t st;
    armcii_req_of_handle(call, hdl, &st); /* must be a handle we know */
    if (st == ARMCII_HDL_ACTIVE)
        armcii_fatal(call, "handle %p has an operation in flight (ARMCI_Wait on it first)",
                     (void *)hdl);
    if (!armcii_hdl_is_aggregate(hdl))
        armcii_hdl_init(hdl, 1);
    if (armcii_agg_addr_add(hdl) != 0)
        armcii_fatal(call, "out of memory");
}

void armcii_agg_unset(const char *call, armci_hdl_t *hdl)
{
    /* What it collected is completed: a plain handle cannot name a collection. */
    if (armcii_hdl_collecting(hdl))
        armcii_agg_complete(call, hdl, 1);
    if (armcii_hdl_is_aggregate(hdl))
        armcii_hdl_init(hdl, 0);
    armcii_agg_addr_remove(hdl);
}
