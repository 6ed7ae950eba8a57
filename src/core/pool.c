/* The request pool and handle encoding, pure (the life of a request in flight: req.c). */
#include <stdlib.h>
#include <string.h>

#include "pool.h"

int armcii_pool_init(armcii_pool_t *pool, int nslots)
{
    memset(pool, 0, sizeof(*pool));
    pool->slots = calloc((size_t)nslots, sizeof(*pool->slots));
    unsigned size = 4;
    while (size < 2u * (unsigned)nslots)
        size *= 2;
    pool->bound = calloc(size, sizeof(*pool->bound));
    if (!pool->slots || !pool->bound) {
        free(pool->slots);
        free(pool->bound);
        return -1;
    }
    pool->bound_mask = size - 1;
    pool->nslots = nslots;
    for (int i = 0; i < nslots; i++) {
        pool->slots[i].index = i;
        pool->slots[i].next_free = i + 1 < nslots ? i + 1 : -1;
    }
    pool->free_head = 0;
    return 0;
}

size_t armcii_pool_bytes(const armcii_pool_t *pool)
{
    return (size_t)pool->nslots * sizeof(*pool->slots) +
           (pool->bound_mask + 1) * sizeof(*pool->bound);
}

void armcii_pool_fini(armcii_pool_t *pool)
{
    free(pool->slots);
    free(pool->bound);
    memset(pool, 0, sizeof(*pool));
}

armcii_req_t *armcii_pool_take(armcii_pool_t *pool)
{
    if (pool->free_head < 0)
        return NULL;
    armcii_req_t *r = &pool->slots[pool->free_head];
    pool->free_head = r->next_free;
    r->in_use = 1;
    r->pending = 0;
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

static unsigned home(const armcii_pool_t *pool, const armci_hdl_t *h)
{
    return (unsigned)(((uint64_t)(uintptr_t)h * 0x9E3779B97F4A7C15ull) >> 32) & pool->bound_mask;
}

armcii_req_t *armcii_pool_bound(const armcii_pool_t *pool, const armci_hdl_t *h)
{
    for (unsigned i = home(pool, h);; i = (i + 1) & pool->bound_mask) {
        armcii_req_t *e = pool->bound[i];
        if (!e || e->hdl == h)
            return e;
    }
}

void armcii_pool_bind(armcii_pool_t *pool, armcii_req_t *req, const armci_hdl_t *h)
{
    unsigned i = home(pool, h);
    while (pool->bound[i])
        i = (i + 1) & pool->bound_mask;
    req->hdl = h;
    pool->bound[i] = req;
    __atomic_store_n(&pool->nbound, pool->nbound + 1, __ATOMIC_RELAXED);
}

/* Removes @p r's entry, moving later entries of its probe run back so that every entry
 * stays reachable from its home slot. */
static void unbind(armcii_pool_t *pool, armcii_req_t *r)
{
    unsigned m = pool->bound_mask, i = home(pool, r->hdl);
    while (pool->bound[i] != r)
        i = (i + 1) & m;
    for (unsigned j = (i + 1) & m; pool->bound[j]; j = (j + 1) & m) {
        unsigned k = home(pool, pool->bound[j]->hdl);
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

void armcii_pool_release(armcii_pool_t *pool, armcii_req_t *r)
{
    if (r->hdl)
        unbind(pool, r);
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
    r->gen = (r->gen + 1) & ARMCII_HDL_GEN_MASK;
    r->next_free = pool->free_head;
    pool->free_head = r->index;
    pool->nactive--;
}

static int hdl_magic_ok(const armci_hdl_t *h)
{
    return ((unsigned)h->tag >> 24) == ARMCII_HDL_MAGIC;
}

armcii_hdl_state_t armcii_hdl_state(const armcii_pool_t *pool, const armci_hdl_t *h,
                                    armcii_req_t **req_p)
{
    if (!hdl_magic_ok(h))
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
    if (r->in_use && r->gen == gen && !r->implicit) {
        *req_p = r;
        return ARMCII_HDL_ACTIVE;
    }
    /* The slot moved on: the request this handle named has completed. A generation from
     * the future cannot have been produced by us. */
    uint32_t age = (r->gen - gen) & ARMCII_HDL_GEN_MASK;
    if (age == 0 || age > (ARMCII_HDL_GEN_MASK >> 1))
        return ARMCII_HDL_BAD;
    return ARMCII_HDL_DONE;
}
