/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The cache engine (see cache.h): entries, their two indexes, storage, eviction and the
 * adaptive scheme. No MPI, no libfabric, no runtime state: the unit tests drive it alone.
 */
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <emmintrin.h>
#endif

#include "cache.h"
#include "cuckoo.h"
#include "store.h"

/* The page map files an entry under every granule it touches: 1 KiB granules for entries
 * up to SMALL_MAX bytes, 64 KiB granules for larger ones. A dense run of small entries then
 * shares few chains, and an entry of any size needs few nodes (each node is a cold bucket
 * head to write on insert: 256-byte granules made a 1 KiB miss measurably slower). The key
 * of a granule is its index shifted left once, with the level in the low bit. */
#define FINE_SHIFT   10
#define COARSE_SHIFT 16
#define SMALL_MAX    4096
#define SAMPLE_ALL   32 /* up to this many entries, eviction looks at all of them */
#define SAMPLE                                                                                     \
    8 /* otherwise at this many consecutive records of live[], from a hand                         \
       * that moves on; live[] is in no particular order */
#define MAX_KICKS   32
#define LOW_WINDOWS 4 /* quiet adaptive windows before the index shrinks */

void armcii_cache_params_default(armcii_cache_params_t *p, int ntargets)
{
    memset(p, 0, sizeof(*p));
    p->index_slots = 1024;
    p->buffer_bytes = (size_t)1 << 20;
    p->max_bytes = (size_t)64 << 20;
    p->min_slots = 64;
    p->max_slots = (size_t)1 << 22;
    p->adaptive = 1;
    p->ntargets = ntargets;
    p->window = 256;
    p->conflict_hi = 0.01;
    p->capacity_hi = 0.01;
    p->occupancy_lo = 0.125;
}

static uint64_t key_hash(int target, uintptr_t addr)
{
    return armcii_mix64(((uint64_t)(uint32_t)target << 48) ^ (uint64_t)addr);
}

static size_t page_bucket(const armcii_cache_t *c, int target, uint64_t page)
{
    return (size_t)armcii_mix64(page * 0x100000001b3ull + (uint64_t)(uint32_t)target) &
           (c->npbuckets - 1);
}

/* Keep-priority of an entry: old and large entries go first. Per byte, a small entry
 * saves far more (a whole round trip for a few bytes) than a large one. */
static double score_live(const armcii_cache_t *c, const armcii_clive_t *l)
{
    double age = (double)(c->tick - l->last) + 1.0;
    double size_class = 1.0 + (double)(63 - __builtin_clzll((unsigned long long)(l->len >> 6) + 1));
    return -age * size_class;
}

static double score(void *ctx, int32_t id)
{
    const armcii_cache_t *c = ctx;
    return score_live(c, &c->live[c->e[id].live_pos]);
}

/* ---- the page map ---- */

static int level_of(size_t len)
{
    return len > SMALL_MAX;
}

static uint64_t granule(uintptr_t addr, int level)
{
    return (uint64_t)addr >> (level ? COARSE_SHIFT : FINE_SHIFT);
}

static uint64_t gkey(uint64_t g, int level)
{
    return (g << 1) | (uint64_t)level;
}

static int pm_rehash(armcii_cache_t *c, size_t nb)
{
    int32_t *b = malloc(nb * sizeof(*b));
    if (!b)
        return -1;
    memset(b, 0xff, nb * sizeof(*b));
    int32_t *old = c->pbucket;
    size_t oldn = c->npbuckets;
    c->pbucket = b;
    c->npbuckets = nb;
    for (size_t i = 0; i < oldn; i++) {
        for (int32_t n = old[i]; n >= 0;) {
            int32_t next = c->pn[n].next;
            size_t k = page_bucket(c, c->pn[n].target, c->pn[n].page);
            c->pn[n].next = c->pbucket[k];
            c->pbucket[k] = n;
            n = next;
        }
    }
    free(old);
    return 0;
}

static int32_t pn_new(armcii_cache_t *c)
{
    if (c->pnfree < 0) {
        int32_t ncap = c->pncap ? 2 * c->pncap : 256;
        armcii_cpage_t *n = realloc(c->pn, (size_t)ncap * sizeof(*n));
        if (!n)
            return -1;
        c->pn = n;
        for (int32_t i = ncap - 1; i >= c->pncap; i--) {
            n[i].next = c->pnfree;
            c->pnfree = i;
        }
        c->pncap = ncap;
    }
    int32_t id = c->pnfree;
    c->pnfree = c->pn[id].next;
    c->pnused++;
    return id;
}

static int pm_add(armcii_cache_t *c, int32_t id)
{
    const armcii_centry_t *e = &c->e[id];
    int lv = level_of(e->len);
    uint64_t first = granule(e->addr, lv), last = granule(e->addr + e->len - 1, lv);
    for (uint64_t g = first; g <= last; g++) {
        int32_t n = pn_new(c);
        if (n < 0)
            return -1;
        uint64_t p = gkey(g, lv);
        size_t k = page_bucket(c, e->target, p);
        c->pn[n].page = p;
        c->pn[n].lo = e->addr;
        c->pn[n].hi = e->addr + e->len;
        c->pn[n].target = e->target;
        c->pn[n].id = id;
        c->pn[n].next = c->pbucket[k];
        c->pbucket[k] = n;
    }
    if ((size_t)c->pnused > c->npbuckets)
        pm_rehash(c, 2 * c->npbuckets); /* out of memory: chains just get longer */
    return 0;
}

static void pm_del(armcii_cache_t *c, int32_t id)
{
    const armcii_centry_t *e = &c->e[id];
    int lv = level_of(e->len);
    uint64_t first = granule(e->addr, lv), last = granule(e->addr + e->len - 1, lv);
    for (uint64_t g = first; g <= last; g++) {
        uint64_t p = gkey(g, lv);
        int32_t *link = &c->pbucket[page_bucket(c, e->target, p)];
        while (*link >= 0 && !(c->pn[*link].id == id && c->pn[*link].page == p))
            link = &c->pn[*link].next;
        if (*link < 0)
            continue; /* its node was never added (out of memory) */
        int32_t n = *link;
        *link = c->pn[n].next;
        c->pn[n].next = c->pnfree;
        c->pnfree = n;
        c->pnused--;
    }
}

/* An entry of @p target wholly containing [addr, addr+len), or -1. */
static int32_t pm_containing(const armcii_cache_t *c, int target, uintptr_t addr, size_t len)
{
    for (int lv = 0; lv < 2; lv++) {
        uint64_t p = gkey(granule(addr, lv), lv);
        for (int32_t n = c->pbucket[page_bucket(c, target, p)]; n >= 0; n = c->pn[n].next) {
            const armcii_cpage_t *pn = &c->pn[n];
            if (pn->lo <= addr && addr + len <= pn->hi && pn->page == p && pn->target == target)
                return pn->id;
        }
    }
    return -1;
}

/* ---- entries ---- */

static int32_t entry_new(armcii_cache_t *c)
{
    if (c->efree < 0) {
        int32_t ncap = c->ecap ? 2 * c->ecap : 256;
        armcii_centry_t *e = realloc(c->e, (size_t)ncap * sizeof(*e));
        if (!e)
            return -1;
        c->e = e;
        armcii_clive_t *live = realloc(c->live, (size_t)ncap * sizeof(*live));
        if (!live)
            return -1;
        c->live = live;
        for (int32_t i = ncap - 1; i >= c->ecap; i--) {
            e[i].live_pos = -1;
            e[i].blk = c->efree;
            c->efree = i;
        }
        c->ecap = ncap;
    }
    int32_t id = c->efree;
    c->efree = c->e[id].blk;
    c->e[id].live_pos = c->nlive;
    c->live[c->nlive].id = id;
    c->live[c->nlive].last = c->tick;
    c->live[c->nlive].len = 0;
    c->nlive++;
    return id;
}

/* Forget entry @p id; @p in_index says whether the cuckoo index still holds it. */
static void entry_drop(armcii_cache_t *c, int32_t id, int in_index)
{
    armcii_centry_t *e = &c->e[id];
    if (in_index)
        armcii_cuckoo_remove(&c->index, e->hash, id);
    armcii_store_free(&c->store, e->blk);
    pm_del(c, id);
    c->per_target[e->target]--;
    int32_t pos = e->live_pos;
    c->live[pos] = c->live[--c->nlive];
    c->e[c->live[pos].id].live_pos = pos;
    e->live_pos = -1;
    e->blk = c->efree;
    c->efree = id;
}

static int32_t lowest_scored(armcii_cache_t *c)
{
    if (c->nlive == 0)
        return -1;
    int32_t best = -1;
    double bs = 0;
    int all = c->nlive <= SAMPLE_ALL;
    int n = all ? c->nlive : SAMPLE;
    if (all || c->hand >= c->nlive)
        c->hand = 0;
    for (int i = 0; i < n; i++) {
        const armcii_clive_t *l = &c->live[(c->hand + i) % c->nlive];
        double s = score_live(c, l);
        if (best < 0 || s < bs) {
            best = l->id;
            bs = s;
        }
    }
    c->hand += n;
    return best;
}

/* ---- life cycle ---- */

int armcii_cache_init(armcii_cache_t *c, const armcii_cache_params_t *p)
{
    memset(c, 0, sizeof(*c));
    c->p = *p;
    c->efree = -1;
    c->pnfree = -1;
    c->tick = 1;
    size_t slots = p->index_slots < p->min_slots ? p->min_slots : p->index_slots;
    if (armcii_cuckoo_init(&c->index, slots, MAX_KICKS) != 0)
        goto err;
    if (armcii_store_init(&c->store, p->buffer_bytes) != 0)
        goto err_index;
    c->buf = malloc(c->store.size ? c->store.size : 1);
    if (c->buf) /* touch the pages now, not on the path of the first gets */
        memset(c->buf, 0, c->store.size);
    c->per_target = calloc((size_t)(p->ntargets > 0 ? p->ntargets : 1), sizeof(int32_t));
    if (!c->buf || !c->per_target)
        goto err_store;
    c->npbuckets = 0;
    if (pm_rehash(c, c->index.nslots) != 0)
        goto err_store;
    return 0;
err_store:
    free(c->buf);
    free(c->per_target);
    armcii_store_fini(&c->store);
err_index:
    armcii_cuckoo_fini(&c->index);
err:
    memset(c, 0, sizeof(*c));
    return -1;
}

void armcii_cache_fini(armcii_cache_t *c)
{
    armcii_cuckoo_fini(&c->index);
    armcii_store_fini(&c->store);
    free(c->buf);
    free(c->e);
    free(c->live);
    free(c->per_target);
    free(c->pbucket);
    free(c->pn);
    memset(c, 0, sizeof(*c));
}

/* ---- the adaptive scheme ---- */

static void adapt(armcii_cache_t *c)
{
    double n = (double)c->w_lookups;
    double conflicts = (double)c->w_conflicts / n, capacity = (double)c->w_capacity / n;
    size_t slots = c->index.nslots;
    /* Far past a threshold (ten times), grow fourfold: a cache that starts small reaches
     * its working set in a few windows instead of many. */
    if (conflicts > c->p.conflict_hi && slots < c->p.max_slots) {
        size_t want = (conflicts > 10 * c->p.conflict_hi ? 4 : 2) * slots;
        if (armcii_cache_resize_index(c, want < c->p.max_slots ? want : c->p.max_slots) == 0)
            c->st.index_resizes++;
    } else if (c->w_conflicts == 0 && slots / 2 >= c->p.min_slots &&
               (double)c->w_peak < c->p.occupancy_lo * (double)slots) {
        /* Only after several quiet windows in a row: a burst of gets still in flight
         * looks like an empty cache until their data arrives. */
        if (++c->low_windows >= LOW_WINDOWS && armcii_cache_resize_index(c, slots / 2) == 0) {
            c->st.index_resizes++;
            c->low_windows = 0;
        }
    } else {
        c->low_windows = 0;
    }
    if (capacity > c->p.capacity_hi && c->store.size < c->p.max_bytes) {
        size_t want = (capacity > 10 * c->p.capacity_hi ? 4 : 2) * c->store.size;
        if (armcii_cache_resize_buffer(c, want < c->p.max_bytes ? want : c->p.max_bytes) == 0)
            c->st.buffer_resizes++;
    }
    c->w_lookups = c->w_conflicts = c->w_capacity = 0;
    c->w_peak = c->nlive;
}

/* Copy into the storage buffer. Larger entries go around the processor's cache
 * (non-temporal stores): a fill is not read again soon, and writing it through the cache
 * would first read every line from memory and push out what the next gets need. */
static void store_copy(char *dst, const void *src, size_t len)
{
#if defined(__x86_64__)
    if (len >= 512 && ((uintptr_t)dst & 7) == 0) {
        const char *s = src;
        size_t n = len / 8;
        for (size_t i = 0; i < n; i++) {
            long long v;
            memcpy(&v, s + 8 * i, 8);
            _mm_stream_si64((long long *)(void *)(dst + 8 * i), v);
        }
        memcpy(dst + 8 * n, s + 8 * n, len - 8 * n);
        _mm_sfence();
        return;
    }
#endif
    memcpy(dst, src, len);
}

/* ---- lookups ---- */

typedef struct {
    const armcii_cache_t *c;
    int target;
    uintptr_t addr;
} match_ctx_t;

static int match(void *ctx, int32_t id)
{
    const match_ctx_t *m = ctx;
    const armcii_centry_t *e = &m->c->e[id];
    return e->target == m->target && e->addr == m->addr;
}

static int32_t find(armcii_cache_t *c, int target, uintptr_t addr, size_t len)
{
    if (!armcii_cache_holds(c, target) || len == 0)
        return -1;
    match_ctx_t m = {c, target, addr};
    int32_t id = armcii_cuckoo_find(&c->index, key_hash(target, addr), match, &m);
    if (id >= 0 && c->e[id].len >= len)
        return id;
    return pm_containing(c, target, addr, len);
}

const void *armcii_cache_peek(armcii_cache_t *c, int target, uintptr_t addr, size_t len)
{
    int32_t id = find(c, target, addr, len);
    if (id < 0)
        return NULL;
    return c->buf + armcii_store_off(&c->store, c->e[id].blk) + (addr - c->e[id].addr);
}

const void *armcii_cache_lookup(armcii_cache_t *c, int target, uintptr_t addr, size_t len)
{
    c->tick++;
    if (c->p.adaptive && ++c->w_lookups >= c->p.window)
        adapt(c);
    int32_t id = find(c, target, addr, len);
    if (id < 0) {
        c->st.misses++;
        return NULL;
    }
    c->live[c->e[id].live_pos].last = c->tick;
    c->st.hits++;
    c->st.bytes_hit += (long)len;
    return c->buf + armcii_store_off(&c->store, c->e[id].blk) + (addr - c->e[id].addr);
}

int armcii_cache_insert(armcii_cache_t *c, int target, uintptr_t addr, size_t len, const void *data,
                        const void *owner)
{
    if (len == 0 || len > c->store.size || target < 0 || target >= c->p.ntargets) {
        c->st.failed_inserts++;
        return -1;
    }
    uint64_t h = key_hash(target, addr);
    if (armcii_cache_holds(c, target)) { /* a shorter entry at the same address: replace it */
        match_ctx_t m = {c, target, addr};
        int32_t old = armcii_cuckoo_find(&c->index, h, match, &m);
        if (old >= 0)
            entry_drop(c, old, 1);
    }
    int32_t blk;
    while ((blk = armcii_store_alloc(&c->store, len)) < 0) {
        int32_t victim = lowest_scored(c);
        if (victim < 0) {
            c->st.failed_inserts++;
            return -1;
        }
        entry_drop(c, victim, 1);
        c->st.capacity_evictions++;
        c->w_capacity++;
    }
    int32_t id = entry_new(c);
    if (id < 0) {
        armcii_store_free(&c->store, blk);
        c->st.failed_inserts++;
        return -1;
    }
    armcii_centry_t *e = &c->e[id];
    e->hash = h;
    e->addr = addr;
    e->len = len;
    e->target = target;
    e->blk = blk;
    e->owner = owner;
    c->live[e->live_pos].len = len;
    store_copy(c->buf + armcii_store_off(&c->store, blk), data, len);
    c->per_target[target]++;
    if (pm_add(c, id) != 0) {
        entry_drop(c, id, 0);
        c->st.failed_inserts++;
        return -1;
    }
    /* A cuckoo table past 7/8 full spends long kick chains on every insert before its
     * conflicts show: the adaptive scheme grows it before that. */
    if (c->p.adaptive && 8 * c->index.used > 7 * c->index.nslots &&
        c->index.nslots < c->p.max_slots && armcii_cache_resize_index(c, 2 * c->index.nslots) == 0)
        c->st.index_resizes++;
    int32_t victim;
    int r = armcii_cuckoo_insert(&c->index, h, id, score, c, &victim);
    if (r != 0) {
        entry_drop(c, victim, 0);
        c->w_conflicts++;
        if (r < 0) { /* the new entry itself scored lowest on the kick path */
            c->st.failed_inserts++;
            return -1;
        }
        c->st.conflict_evictions++;
    }
    if (c->nlive > c->w_peak)
        c->w_peak = c->nlive;
    return 0;
}

/* ---- invalidation ---- */

long armcii_cache_invalidate_range(armcii_cache_t *c, int target, uintptr_t addr, size_t len)
{
    if (!armcii_cache_holds(c, target) || len == 0)
        return 0;
    long dropped = 0;
    uint64_t probes = granule(addr + len - 1, 0) - granule(addr, 0) + 1 +
                      granule(addr + len - 1, 1) - granule(addr, 1) + 1;
    if (probes > (uint64_t)c->nlive) {
        /* a write wider than the cache is full: look at each entry once instead */
        for (int32_t i = c->nlive - 1; i >= 0; i--) {
            const armcii_centry_t *e = &c->e[c->live[i].id];
            if (e->target == target && e->addr < addr + len && addr < e->addr + e->len) {
                entry_drop(c, c->live[i].id, 1);
                dropped++;
            }
        }
    } else {
        for (int lv = 0; lv < 2; lv++) {
            for (uint64_t g = granule(addr, lv); g <= granule(addr + len - 1, lv); g++) {
                uint64_t p = gkey(g, lv);
                int32_t n = c->pbucket[page_bucket(c, target, p)];
                while (n >= 0) {
                    const armcii_cpage_t *pn = &c->pn[n];
                    if (pn->page == p && pn->target == target && pn->lo < addr + len &&
                        addr < pn->hi) {
                        entry_drop(c, pn->id, 1);
                        dropped++;
                        n = c->pbucket[page_bucket(c, target, p)]; /* the chain changed */
                    } else {
                        n = pn->next;
                    }
                }
            }
        }
    }
    c->st.invalidations += dropped;
    return dropped;
}

long armcii_cache_invalidate_if(armcii_cache_t *c, int (*pred)(const void *owner, const void *ctx),
                                const void *ctx)
{
    long dropped = 0;
    if (!pred) { /* everything: reset the structures instead of dropping one by one */
        dropped = c->nlive;
        armcii_cuckoo_clear(&c->index);
        armcii_store_reset(&c->store);
        memset(c->pbucket, 0xff, c->npbuckets * sizeof(*c->pbucket));
        c->pnfree = -1;
        for (int32_t i = c->pncap - 1; i >= 0; i--) {
            c->pn[i].next = c->pnfree;
            c->pnfree = i;
        }
        c->pnused = 0;
        c->efree = -1;
        for (int32_t i = c->ecap - 1; i >= 0; i--) {
            c->e[i].live_pos = -1;
            c->e[i].blk = c->efree;
            c->efree = i;
        }
        c->nlive = 0;
        memset(c->per_target, 0, (size_t)c->p.ntargets * sizeof(*c->per_target));
    } else {
        /* downwards: a drop moves the last entry into the hole, one already looked at */
        for (int32_t i = c->nlive - 1; i >= 0; i--) {
            if (i < c->nlive && pred(c->e[c->live[i].id].owner, ctx)) {
                entry_drop(c, c->live[i].id, 1);
                dropped++;
            }
        }
    }
    c->st.invalidations += dropped;
    return dropped;
}

/* ---- resizing ---- */

static void drop_from_resize(void *ctx, int32_t id)
{
    armcii_cache_t *c = ctx;
    entry_drop(c, id, 0);
    c->st.conflict_evictions++;
}

int armcii_cache_resize_index(armcii_cache_t *c, size_t nslots)
{
    if (nslots < c->p.min_slots)
        nslots = c->p.min_slots;
    if (armcii_cuckoo_resize(&c->index, nslots, score, drop_from_resize, c) != 0)
        return -1;
    if (c->index.nslots > c->npbuckets)
        pm_rehash(c, c->index.nslots);
    return 0;
}

int armcii_cache_resize_buffer(armcii_cache_t *c, size_t bytes)
{
    if (bytes <= c->store.size)
        return 0;
    char *nb = realloc(c->buf, bytes);
    if (!nb)
        return -1;
    memset(nb + c->store.size, 0, bytes - c->store.size); /* fault the new pages in now */
    c->buf = nb; /* entries hold offsets: nothing else moves */
    return armcii_store_grow(&c->store, bytes);
}

void armcii_cache_stats(const armcii_cache_t *c, armcix_cache_stats_t *s)
{
    *s = c->st;
    s->entries = c->nlive;
    s->index_slots = (long)c->index.nslots;
    s->buffer_bytes = (long)c->store.size;
    s->buffer_used = (long)c->store.used;
}
