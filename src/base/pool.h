/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The request pool: requests and handles. A request lives in a bounded pool; a handle
 * names it by slot and generation, so a handle whose request has completed (and whose
 * slot may carry another request by now) is recognised, and never followed blindly.
 *
 * What every nonblocking operation and its wait do to the pool (take a slot, bind the
 * caller's handle, read a handle, release the slot) is inline here, in the file of the
 * request's life that calls it (req.c, sync.c): a small get and its wait then cross no
 * file for the pool. pool.c keeps what runs once (making and freeing the pool).
 */
#ifndef ARMCII_POOL_H
#define ARMCII_POOL_H

#include <stddef.h>
#include <stdint.h>

#include <armci.h>

#include "token.h"

typedef enum {
    ARMCII_REQ_GET,   /* RMA read */
    ARMCII_REQ_PUT,   /* RMA write */
    ARMCII_REQ_AM,    /* applied or answered by the target's handler (active messages) */
    ARMCII_REQ_ACC_HW /* accumulate through libfabric atomics */
} armcii_req_kind_t;

typedef struct armcii_req {
    armcii_token_t tok; /* what the transport knows of it: slot, generation, pending count */
    uint8_t in_use;
    uint8_t kind;     /* armcii_req_kind_t */
    uint8_t implicit; /* issued without a handle (completed by WaitProc/WaitAll/fence) */
    uint8_t copied;   /* a blocking call's: the caller's data is out, only an ack is due */
    int target;
    int next_free;
    void *scratch;                     /* memory owned by the request, freed on completion */
    void (*on_release)(void *scratch); /* its maker's, called first (the get cache's fill) */
    struct armcii_req *older, *newer;  /* active requests in issue order */
    const armci_hdl_t *hdl;            /* the caller's handle naming it while in flight, or NULL */
    /* a small operation's staged source, where scratch would be malloc'd for a larger one
     * (UCX's guidance: no allocation on the small-message path) */
    _Alignas(16) unsigned char stage[64];
} armcii_req_t;

/*
 * Besides its slots, the pool keeps the addresses of the handles that name requests in
 * flight (armcii_pool_bind), so that a second operation on a handle whose first has not
 * completed is found without reading the handle's bytes: a caller may pass a handle it
 * never initialised, and a handle's bytes cannot tell a new handle at an old address from
 * the old one. Open addressing with linear probing, at most half full (one entry per slot
 * at most); an entry goes when its request is released.
 */
typedef struct {
    armcii_req_t *slots;
    int nslots;
    int free_head;
    int nactive;
    armcii_req_t *oldest, *newest;
    armcii_req_t **bound; /* by handle address */
    unsigned bound_mask;
    int nbound; /* read without the lock (atomically) by the unlocked paths */
} armcii_pool_t;

/** The request whose token is @p t (what the transport hands back). */
static inline armcii_req_t *armcii_req_of_token(armcii_token_t *t)
{
    return (armcii_req_t *)((char *)t - offsetof(armcii_req_t, tok));
}

/** Makes @p pool of @p nslots free requests; 0, or -1 when out of memory. */
int armcii_pool_init(armcii_pool_t *pool, int nslots);
void armcii_pool_fini(armcii_pool_t *pool);
/** Bytes the pool holds. */
size_t armcii_pool_bytes(const armcii_pool_t *pool);

/** A free request, appended to the active list as the newest; NULL when the pool is full. */
static inline armcii_req_t *armcii_pool_take(armcii_pool_t *pool)
{
    if (pool->free_head < 0)
        return NULL;
    armcii_req_t *r = &pool->slots[pool->free_head];
    pool->free_head = r->next_free;
    r->in_use = 1;
    r->tok.pending = 0;
    r->scratch = NULL;
    r->implicit = 0;
    r->on_release = NULL;
    r->copied = 0;
    r->hdl = NULL;
    r->older = pool->newest;
    r->newer = NULL;
    if (pool->newest)
        pool->newest->newer = r;
    else
        pool->oldest = r;
    pool->newest = r;
    pool->nactive++;
    return r;
}

/* The home entry of the handle at @p h in the pool's table of bound handles. */
static inline unsigned armcii_pool_home(const armcii_pool_t *pool, const armci_hdl_t *h)
{
    return (unsigned)(((uint64_t)(uintptr_t)h * 0x9E3779B97F4A7C15ull) >> 32) & pool->bound_mask;
}

/** The request in flight that the handle at @p h names, or NULL. */
static inline armcii_req_t *armcii_pool_bound(const armcii_pool_t *pool, const armci_hdl_t *h)
{
    for (unsigned i = armcii_pool_home(pool, h);; i = (i + 1) & pool->bound_mask) {
        armcii_req_t *e = pool->bound[i];
        if (!e || e->hdl == h)
            return e;
    }
}

/** Record that the handle at @p h names @p req, in flight, until @p req is released. The
 *  caller has made sure that no other request is bound to @p h. */
static inline void armcii_pool_bind(armcii_pool_t *pool, armcii_req_t *req, const armci_hdl_t *h)
{
    unsigned i = armcii_pool_home(pool, h);
    while (pool->bound[i])
        i = (i + 1) & pool->bound_mask;
    req->hdl = h;
    pool->bound[i] = req;
    __atomic_store_n(&pool->nbound, pool->nbound + 1, __ATOMIC_RELAXED);
}

/* Removes @p r's entry, moving later entries of its probe run back so that every entry
 * stays reachable from its home slot. */
static inline void armcii_pool_unbind(armcii_pool_t *pool, armcii_req_t *r)
{
    unsigned m = pool->bound_mask, i = armcii_pool_home(pool, r->hdl);
    while (pool->bound[i] != r)
        i = (i + 1) & m;
    for (unsigned j = (i + 1) & m; pool->bound[j]; j = (j + 1) & m) {
        unsigned k = armcii_pool_home(pool, pool->bound[j]->hdl);
        /* an entry whose home lies cyclically in (i, j] stays where it is */
        if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
            continue;
        pool->bound[i] = pool->bound[j];
        i = j;
    }
    pool->bound[i] = NULL;
    r->hdl = NULL;
    __atomic_store_n(&pool->nbound, pool->nbound - 1, __ATOMIC_RELAXED);
}

/** Handles that name requests in flight. */
static inline int armcii_pool_nbound(const armcii_pool_t *pool)
{
    return __atomic_load_n(&pool->nbound, __ATOMIC_RELAXED);
}

/* Handle encoding: tag = check pattern (8 bits) | aggregate flag (1) | generation (23). */
#define ARMCII_HDL_MAGIC    0xA5u
#define ARMCII_HDL_GEN_MASK 0x7FFFFFu
#define ARMCII_HDL_AGG_BIT  0x800000u
enum {
    ARMCII_HDL_SLOT_IDLE = -1,   /* initialised, nothing issued */
    ARMCII_HDL_SLOT_WAITED = -2, /* ARMCI_Wait returned for it */
    ARMCII_HDL_SLOT_TESTED = -3, /* ARMCI_Test saw it complete */
    ARMCII_HDL_SLOT_DONE = -4    /* its operation completed within the issuing call */
};

typedef enum {
    ARMCII_HDL_BAD,    /* not a handle ARMCI initialised or produced */
    ARMCII_HDL_IDLE,   /* initialised, no operation issued on it */
    ARMCII_HDL_ACTIVE, /* its request is in flight */
    ARMCII_HDL_DONE,   /* its request completed; not yet waited for */
    ARMCII_HDL_TESTED, /* ARMCI_Test reported completion */
    ARMCII_HDL_WAITED  /* ARMCI_Wait returned for it already */
} armcii_hdl_state_t;

/** Return @p r to the pool; its generation changes, so handles to it read as completed. */
static inline void armcii_pool_release(armcii_pool_t *pool, armcii_req_t *r)
{
    if (r->hdl)
        armcii_pool_unbind(pool, r);
    if (r->older)
        r->older->newer = r->newer;
    else
        pool->oldest = r->newer;
    if (r->newer)
        r->newer->older = r->older;
    else
        pool->newest = r->older;
    r->older = r->newer = NULL;
    r->in_use = 0;
    r->tok.gen = (r->tok.gen + 1) & ARMCII_HDL_GEN_MASK;
    r->next_free = pool->free_head;
    pool->free_head = r->tok.index;
    pool->nactive--;
}

/** Write @p h: request @p slot (or an ARMCII_HDL_SLOT_* state) of generation @p gen. */
static inline void armcii_hdl_set(armci_hdl_t *h, int slot, uint32_t gen, int aggregate)
{
    h->slot = slot;
    h->tag = (int)((ARMCII_HDL_MAGIC << 24) | (aggregate ? ARMCII_HDL_AGG_BIT : 0) |
                   (gen & ARMCII_HDL_GEN_MASK));
}
/** Is @p h an initialised handle marked aggregate? */
static inline int armcii_hdl_is_aggregate(const armci_hdl_t *h)
{
    unsigned tag = (unsigned)h->tag;
    return (tag >> 24) == ARMCII_HDL_MAGIC && (tag & ARMCII_HDL_AGG_BIT) != 0;
}
/* What is done to a caller's handle, by name: the API layer and the aggregate handles write
 * and read handles through these alone, and the encoding stays here. */
/** ARMCI_INIT_HANDLE (and a change between aggregate and plain): nothing issued on it. */
static inline void armcii_hdl_init(armci_hdl_t *h, int aggregate)
{
    armcii_hdl_set(h, ARMCII_HDL_SLOT_IDLE, 0, aggregate);
}
/** ARMCI_Wait returned for @p h (it stays aggregate if it was). */
static inline void armcii_hdl_waited(armci_hdl_t *h)
{
    armcii_hdl_set(h, ARMCII_HDL_SLOT_WAITED, 0, armcii_hdl_is_aggregate(h));
}
/** ARMCI_Test saw the operation of @p h complete (it stays aggregate if it was). */
static inline void armcii_hdl_tested(armci_hdl_t *h)
{
    armcii_hdl_set(h, ARMCII_HDL_SLOT_TESTED, 0, armcii_hdl_is_aggregate(h));
}
/** Aggregate handle @p h collects into collection @p slot of generation @p gen (agg.c). */
static inline void armcii_hdl_collect(armci_hdl_t *h, int slot, uint32_t gen)
{
    armcii_hdl_set(h, slot, gen, 1);
}
/** The collection an aggregate handle names: its slot (-1 or below: none) ... */
static inline int armcii_hdl_slot(const armci_hdl_t *h)
{
    return h->slot;
}
/** ... and the generation it was attached in. */
static inline uint32_t armcii_hdl_gen(const armci_hdl_t *h)
{
    return (unsigned)h->tag & ARMCII_HDL_GEN_MASK;
}
/** The next generation after @p gen, as the pool's requests and agg.c's collections count. */
static inline uint32_t armcii_hdl_gen_next(uint32_t gen)
{
    return (gen + 1) & ARMCII_HDL_GEN_MASK;
}
/** Is @p h an aggregate handle that names a collection (attached to a target)? */
static inline int armcii_hdl_collecting(const armci_hdl_t *h)
{
    return armcii_hdl_is_aggregate(h) && h->slot >= 0;
}
/** Is @p h a handle whose operation completed within its issuing call? (It reads only
 *  the caller's handle: the unlocked ARMCI_Wait asks.) */
static inline int armcii_hdl_done_within_call(const armci_hdl_t *h)
{
    return h->slot == ARMCII_HDL_SLOT_DONE && ((unsigned)h->tag >> 24) == ARMCII_HDL_MAGIC;
}
/** Classify @p h; for ACTIVE, @p req_p receives the request. */
static inline armcii_hdl_state_t armcii_hdl_state(const armcii_pool_t *pool, const armci_hdl_t *h,
                                                  armcii_req_t **req_p)
{
    if (((unsigned)h->tag >> 24) != ARMCII_HDL_MAGIC)
        return ARMCII_HDL_BAD;
    switch (h->slot) {
    case ARMCII_HDL_SLOT_IDLE:
        return ARMCII_HDL_IDLE;
    case ARMCII_HDL_SLOT_WAITED:
        return ARMCII_HDL_WAITED;
    case ARMCII_HDL_SLOT_TESTED:
        return ARMCII_HDL_TESTED;
    case ARMCII_HDL_SLOT_DONE:
        return ARMCII_HDL_DONE;
    default:
        break;
    }
    if (h->slot < 0 || h->slot >= pool->nslots)
        return ARMCII_HDL_BAD;
    armcii_req_t *r = &pool->slots[h->slot];
    uint32_t gen = (unsigned)h->tag & ARMCII_HDL_GEN_MASK;
    if (r->in_use && r->tok.gen == gen && !r->implicit) {
        *req_p = r;
        return ARMCII_HDL_ACTIVE;
    }
    /* The slot moved on: the request this handle named has completed. A generation from
     * the future cannot have been produced by us. */
    uint32_t age = (r->tok.gen - gen) & ARMCII_HDL_GEN_MASK;
    if (age == 0 || age > (ARMCII_HDL_GEN_MASK >> 1))
        return ARMCII_HDL_BAD;
    return ARMCII_HDL_DONE;
}

#endif
