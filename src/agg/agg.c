/* SPDX-License-Identifier: BSD-3-Clause */
/* Aggregate handles (see agg.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../core/stats.h"
#include "../core/warm.h"
#include "agg.h"
#include "../cache/getcache.h"

typedef struct {
    int in_use;
    uint32_t gen;
    int target;
    armcii_blk_t *blk;
    uint8_t *is_get;
    size_t *copy_off; /* SIZE_MAX, or where a copied value sits in `copy` */
    size_t n, cap;
    char *copy;
    size_t copy_used, copy_cap;
    armci_hdl_t *issued; /* handles of the vector operations sent so far (ISSUED_MAX) */
    int nissued;
    int last_get; /* kind of the last run sent */
} agg_t;

#define ISSUED_MAX 16

static agg_t *table;
static int ntable;

static agg_t *record_of(const char *call, const armci_hdl_t *hdl)
{
    uint32_t gen = (unsigned)hdl->tag & ARMCII_HDL_GEN_MASK;
    if (hdl->slot < 0 || hdl->slot >= ntable || !table[hdl->slot].in_use ||
        table[hdl->slot].gen != gen)
        armcii_fatal(call, "aggregate handle %p names no collection in progress", (void *)hdl);
    return &table[hdl->slot];
}

/* The record of @p hdl, attached now if it has none. */
static agg_t *attach(const char *call, armci_hdl_t *hdl, int target)
{
    if (hdl->slot >= 0) {
        agg_t *a = record_of(call, hdl);
        if (a->target != target)
            armcii_fatal(call,
                         "aggregate handle %p collects operations to process %d; it "
                         "cannot take one to process %d (wait on it first)",
                         (void *)hdl, a->target, target);
        return a;
    }
    int i = 0;
    while (i < ntable && table[i].in_use)
        i++;
    if (i == ntable) {
        int n = ntable ? 2 * ntable : 16;
        agg_t *t = realloc(table, (size_t)n * sizeof(*t));
        if (!t)
            armcii_fatal(call, "out of memory");
        memset(t + ntable, 0, (size_t)(n - ntable) * sizeof(*t));
        table = t;
        ntable = n;
    }
    agg_t *a = &table[i];
    a->in_use = 1;
    a->target = target;
    a->n = 0;
    a->copy_used = 0;
    a->nissued = 0;
    armcii_hdl_set(hdl, i, a->gen, 1);
    return a;
}

static void wait_issued(const char *call, agg_t *a)
{
    for (int i = 0; i < a->nissued; i++) {
        armcii_req_t *req = NULL;
        if (armcii_hdl_state(&armcii_reqs.pool, &a->issued[i], &req) == ARMCII_HDL_ACTIVE)
            armcii_req_wait(call, req);
    }
    a->nissued = 0;
}

/* Whether blocks [i, j) all go as message records (shorter than ARMCI_NC_DIRECT_MIN). */
static int all_packed(const agg_t *a, size_t i, size_t j)
{
    for (size_t k = i; k < j; k++)
        if (a->blk[k].len >= (size_t)armcii_rt.env.NC_DIRECT_MIN)
            return 0;
    return 1;
}

/* Send the collected blocks: each run of puts or gets as one vector operation, a run
 * after one of the other kind only once that completed (a get must see an earlier put to
 * the same place, a put must not overtake an earlier get). */
static void flush(const char *call, agg_t *a)
{
    if (a->n == 0)
        return;
    for (size_t i = 0; i < a->n; i++)
        if (a->copy_off[i] != SIZE_MAX)
            a->blk[i].local = a->copy + a->copy_off[i];
    for (size_t i = 0; i < a->n;) {
        size_t j = i;
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
        if (a->is_get[i] || armcii_prog.sends_need_caller || !all_packed(a, i, j)) {
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
        armcii_iter_list(&it, &a->blk[i], j - i);
        armcii_nc(call, a->is_get[i] ? ARMCII_OP_GET : ARMCII_OP_PUT, 0, NULL, &it, a->target, h,
                  0);
        a->last_get = a->is_get[i];
        i = j;
    }
    /* Copied values were packed into messages when sent, unless blocks that small go
     * zero-copy (ARMCI_NC_DIRECT_MIN configured tiny): then they must land first. */
    if (a->copy_used > 0 && (size_t)armcii_rt.env.NC_DIRECT_MIN <= sizeof(double))
        wait_issued(call, a);
    a->n = 0;
    a->copy_used = 0;
    armcii_stat_agg_flush();
}

/* Records one block in @p a, which has room. */
static void push(agg_t *a, char *local, size_t copy_off, char *remote, size_t len, int is_get)
{
    a->blk[a->n] = (armcii_blk_t){local, remote, len};
    a->is_get[a->n] = (uint8_t)is_get;
    a->copy_off[a->n] = copy_off;
    a->n++;
    armcii_stat_agg_op();
}

static void append(const char *call, agg_t *a, char *local, size_t copy_off, char *remote,
                   size_t len, int is_get)
{
    if (!is_get) /* cached copies of what this put overwrites go now, not at the flush */
        armcii_cache_write(a->target, remote, len);
    if (a->n == a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 64;
        armcii_blk_t *b = realloc(a->blk, cap * sizeof(*b));
        uint8_t *g = realloc(a->is_get, cap);
        size_t *c = realloc(a->copy_off, cap * sizeof(*c));
        if (!b || !g || !c)
            armcii_fatal(call, "out of memory");
        a->blk = b;
        a->is_get = g;
        a->copy_off = c;
        a->cap = cap;
    }
    push(a, local, copy_off, remote, len, is_get);
    if (a->n >= (size_t)armcii_rt.env.AGG_MAX)
        flush(call, a);
}

void armcii_agg_add(const char *call, armci_hdl_t *hdl, armcii_op_t what, armcii_iter_t *it,
                    int target)
{
    /* The handle takes its target whatever the path, so that a second target is refused
     * alike everywhere. Same node: nothing to gain, the operation is a copy done now. */
    agg_t *a = attach(call, hdl, target);
    if (armcii_path(target) != ARMCII_PATH_FABRIC) {
        armcii_nc(call, what, 0, NULL, it, target, NULL, 0);
        return;
    }
    char *l, *r;
    size_t len;
    while (armcii_iter_next(it, &l, &r, &len))
        append(call, a, l, SIZE_MAX, r, len, what == ARMCII_OP_GET);
}

void armcii_agg_add_block(const char *call, armci_hdl_t *hdl, armcii_op_t what, char *local,
                          char *remote, size_t len, int target)
{
    agg_t *a = attach(call, hdl, target); /* (checks the handle's target either way) */
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
    append(call, a, local, SIZE_MAX, remote, len, what == ARMCII_OP_GET);
}

int armcii_agg_collect_unlocked(armci_hdl_t *hdl, armcii_op_t what, char *local, char *remote,
                                size_t len, int target)
{
    if (hdl->slot < 0 || hdl->slot >= ntable || armcii_cache_engine)
        return 0;
    agg_t *a = &table[hdl->slot];
    if (!a->in_use || a->gen != ((unsigned)hdl->tag & ARMCII_HDL_GEN_MASK) || a->target != target ||
        a->n == a->cap || a->n + 1 >= (size_t)armcii_rt.env.AGG_MAX)
        return 0; /* errors, growth and flushes belong to the locked path */
    /* No cache engine, so no fill in flight that a put's epoch count could concern. */
    push(a, local, SIZE_MAX, remote, len, what == ARMCII_OP_GET);
    return 1;
}

int armcii_agg_attached_to(const armci_hdl_t *hdl, int target)
{
    if (hdl->slot < 0 || hdl->slot >= ntable)
        return 0;
    const agg_t *a = &table[hdl->slot];
    return a->in_use && a->gen == ((unsigned)hdl->tag & ARMCII_HDL_GEN_MASK) && a->target == target;
}

void armcii_agg_add_copy(const char *call, armci_hdl_t *hdl, const void *value, size_t len,
                         char *remote, int target)
{
    agg_t *a = attach(call, hdl, target);
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
    memcpy(a->copy + a->copy_used, value, len);
    size_t off = a->copy_used;
    a->copy_used += (len + 7) & ~(size_t)7;
    append(call, a, NULL, off, remote, len, 0);
}

int armcii_agg_complete(const char *call, armci_hdl_t *hdl, int wait)
{
    agg_t *a = record_of(call, hdl);
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
    a->gen = (a->gen + 1) & ARMCII_HDL_GEN_MASK;
    return 1;
}

void armcii_agg_flush_target(const char *call, int target)
{
    for (int i = 0; i < ntable; i++)
        if (table[i].in_use && (target < 0 || table[i].target == target))
            flush(call, &table[i]);
}

void armcii_agg_fini(const char *call)
{
    for (int i = 0; i < ntable; i++) {
        if (table[i].in_use) {
            flush(call, &table[i]);
            wait_issued(call, &table[i]);
        }
        free(table[i].blk);
        free(table[i].is_get);
        free(table[i].copy_off);
        free(table[i].copy);
        free(table[i].issued);
    }
    free(table);
    table = NULL;
    ntable = 0;
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
