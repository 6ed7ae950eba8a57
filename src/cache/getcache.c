/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The get cache inside the runtime: which gets it answers, when its contents stop being
 * valid, and how a miss fills it.
 *
 * Only gets that cross libfabric are cached; same-node data is one load away. A miss of a
 * cached allocation reads into a record the runtime owns (never the caller's buffer, which
 * the caller may reuse before ARMCI_Wait) and the entry is filled from that record when
 * the read completes. A fill is dropped if anything that would have invalidated the entry
 * happened while the read was in flight: epochs count those events (synchronisation
 * points for transparent allocations, invalidations, frees and mode changes, and this
 * process's writes per target), and a record remembers the epochs it was issued in.
 *
 * Everything here runs under the runtime lock.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cache.h"
#include "getcache.h"
#include "../base/common.h"
#include "../base/env.h"
#include "../base/hot.h"
#include "../base/iter.h"

typedef struct {
    armcii_cache_t c;
    int ready;                    /* engine created (on first use of a mode other than off) */
    int default_mode;             /* mode of new allocations */
    int n_transparent;            /* allocations in transparent mode */
    uint64_t sync_epoch;          /* synchronisation points of this process */
    uint64_t gen_epoch;           /* invalidations, frees, mode changes */
    uint64_t *put_epoch;          /* writes by this process, per target */
    armcii_cache_owner_t *owners; /* every allocation, newest first */
    armcii_cache_host_t host;     /* the job, as the core described it */
} cache_rt_t;

static cache_rt_t cache_g;

int armcii_cache_engine; /* getcache.h */

/* A get in flight whose data will fill the cache. */
typedef struct {
    void *dst;
    size_t len;
    int target;
    uintptr_t addr;
    const armcii_cache_owner_t *owner;
    int mode;
    uint64_t sync_epoch, gen_epoch, put_epoch;
    char data[];
} cache_fill_t;

static const char *const mode_names[] = {"off", "transparent", "always", "user"};

int armcii_cache_parse_mode(const char *s)
{
    for (int m = 0; m < 4; m++)
        if (strcasecmp(s, mode_names[m]) == 0)
            return m;
    return -1;
}

int armcii_cache_default_mode(void)
{
    return cache_g.default_mode;
}

static void engine_start(const char *call)
{
    if (cache_g.ready)
        return;
    armcii_cache_params_t p;
    armcii_cache_params_default(&p, cache_g.host.nproc);
    const armcii_env_t *env = cache_g.host.env;
    p.index_slots = (size_t)env->CACHE_ENTRIES;
    p.buffer_bytes = (size_t)env->CACHE_BYTES;
    p.max_bytes = (size_t)env->CACHE_MAX_BYTES;
    if (p.max_bytes < p.buffer_bytes)
        p.max_bytes = p.buffer_bytes;
    p.adaptive = (int)env->CACHE_ADAPTIVE;
    if (armcii_cache_init(&cache_g.c, &p) != 0)
        armcii_fatal(call, "out of memory creating the get cache (%zu index slots, %zu bytes)",
                     p.index_slots, p.buffer_bytes);
    cache_g.ready = 1;
    armcii_cache_engine = 1;
}

/* The keep-warm pass (src/core/warm.c): a cached get reads two index slots and an entry
 * record before its data; keep both tables in cache while they fit in WARM_BUDGET lines. */
#define WARM_BUDGET 1024

static size_t warm_lines(const void *p, size_t bytes, size_t *budget, unsigned *sum)
{
    size_t lines = (bytes + ARMCII_LINE - 1) / ARMCII_LINE;
    if (!p || lines > *budget)
        return 0;
    *sum += armcii_touch(p, bytes);
    *budget -= lines;
    return lines;
}

size_t armcii_cache_warm(void)
{
    static volatile unsigned sink;
    unsigned s = 0;
    size_t budget = WARM_BUDGET, lines = 0;
    const armcii_cache_t *c = &cache_g.c;
    /* a put over the fabric asks the cache to forget what it overwrites, engine or not */
    lines += warm_lines(&cache_g, sizeof(cache_g), &budget, &s);
    lines += warm_lines(cache_g.put_epoch, (size_t)cache_g.host.nproc * sizeof(*cache_g.put_epoch),
                        &budget, &s);
    if (!cache_g.ready) {
        sink += s;
        return lines;
    }
    lines += warm_lines(c->index.slots, c->index.nslots * sizeof(*c->index.slots), &budget, &s);
    lines += warm_lines(c->e, (size_t)c->ecap * sizeof(*c->e), &budget, &s);
    sink += s;
    return lines;
}

armcii_status_t armcii_cache_rt_init(const armcii_cache_host_t *host)
{
    memset(&cache_g, 0, sizeof(cache_g));
    cache_g.host = *host;
    const armcii_env_t *env = host->env;
    int mode = armcii_cache_parse_mode(env->CACHE);
    if (mode < 0)
        armcii_fatal("ARMCI_Init", "ARMCI_CACHE=%s is not off, transparent, always or user",
                     env->CACHE);
    if (env->CACHE_ENTRIES < 1)
        armcii_fatal("ARMCI_Init", "ARMCI_CACHE_ENTRIES=%ld must be at least 1",
                     env->CACHE_ENTRIES);
    if (env->CACHE_BYTES < 1)
        armcii_fatal("ARMCI_Init", "ARMCI_CACHE_BYTES=%ld must be at least 1", env->CACHE_BYTES);
    cache_g.default_mode = mode;
    cache_g.put_epoch = calloc((size_t)host->nproc, sizeof(uint64_t));
    if (!cache_g.put_epoch)
        return ARMCII_ENOMEM;
    if (mode != ARMCIX_CACHE_OFF)
        engine_start("ARMCI_Init");
    return ARMCII_OK;
}

size_t armcii_cache_rt_bytes(void)
{
    const armcii_cache_t *c = &cache_g.c;
    size_t b = (size_t)cache_g.host.nproc * sizeof(*cache_g.put_epoch);
    if (cache_g.ready)
        b += c->index.nslots * sizeof(*c->index.slots) + (size_t)c->ecap * sizeof(*c->e) +
             c->store.size;
    return b;
}

void armcii_cache_rt_fini(void)
{
    if (cache_g.ready)
        armcii_cache_fini(&cache_g.c);
    free(cache_g.put_epoch);
    memset(&cache_g, 0, sizeof(cache_g));
    armcii_cache_engine = 0;
}

/* ---- allocations and modes ---- */

void armcii_cache_alloc_new(armcii_cache_owner_t *a)
{
    a->mode = cache_g.default_mode;
    cache_g.n_transparent += a->mode == ARMCIX_CACHE_TRANSPARENT;
    a->prev = NULL;
    a->next = cache_g.owners;
    if (a->next)
        a->next->prev = a;
    cache_g.owners = a;
}

static int owned_by(const void *owner, const void *ctx)
{
    return owner == ctx;
}

static int owner_transparent(const void *owner, const void *ctx)
{
    (void)ctx;
    return ((const armcii_cache_owner_t *)owner)->mode == ARMCIX_CACHE_TRANSPARENT;
}

void armcii_cache_alloc_gone(armcii_cache_owner_t *a)
{
    cache_g.gen_epoch++; /* fills in flight must not look at @p a any more */
    cache_g.n_transparent -= a->mode == ARMCIX_CACHE_TRANSPARENT;
    if (a->prev)
        a->prev->next = a->next;
    else if (cache_g.owners == a)
        cache_g.owners = a->next;
    if (a->next)
        a->next->prev = a->prev;
    a->prev = a->next = NULL;
    if (cache_g.ready)
        armcii_cache_invalidate_if(&cache_g.c, owned_by, a);
}

void armcii_cache_set_mode(const char *call, armcii_cache_owner_t *a, int mode)
{
    if (mode != ARMCIX_CACHE_OFF)
        engine_start(call);
    cache_g.gen_epoch++;
    if (!a) { /* every allocation, and those to come */
        cache_g.default_mode = mode;
        cache_g.n_transparent = 0;
        for (armcii_cache_owner_t *x = cache_g.owners; x; x = x->next) {
            x->mode = mode;
            cache_g.n_transparent += mode == ARMCIX_CACHE_TRANSPARENT;
        }
        if (cache_g.ready && mode == ARMCIX_CACHE_OFF)
            armcii_cache_invalidate_if(&cache_g.c, NULL, NULL);
        return;
    }
    cache_g.n_transparent -= a->mode == ARMCIX_CACHE_TRANSPARENT;
    a->mode = mode;
    cache_g.n_transparent += mode == ARMCIX_CACHE_TRANSPARENT;
    /* What was cached under the old mode may be older than the new one allows. */
    if (cache_g.ready)
        armcii_cache_invalidate_if(&cache_g.c, owned_by, a);
}

void armcii_cache_invalidate(armcii_cache_owner_t *a)
{
    cache_g.gen_epoch++;
    if (cache_g.ready)
        armcii_cache_invalidate_if(&cache_g.c, a ? owned_by : NULL, a);
}

/* ---- events that invalidate ---- */

void armcii_cache_sync(void)
{
    cache_g.sync_epoch++;
    if (cache_g.n_transparent > 0 && cache_g.ready && cache_g.c.nlive > 0)
        armcii_cache_invalidate_if(&cache_g.c, owner_transparent, NULL);
}

void armcii_cache_write(int target, const void *addr, size_t len)
{
    if (!cache_g.put_epoch)
        return;
    cache_g.put_epoch[target]++;
    if (cache_g.ready && armcii_cache_holds(&cache_g.c, target))
        armcii_cache_invalidate_range(&cache_g.c, target, (uintptr_t)addr, len);
}

void armcii_cache_write_blocks(int target, const armcii_iter_t *it)
{
    if (!cache_g.put_epoch)
        return;
    cache_g.put_epoch[target]++;
    if (!cache_g.ready || !armcii_cache_holds(&cache_g.c, target))
        return;
    armcii_iter_t pass = *it;
    char *l, *r;
    size_t len;
    while (armcii_iter_next(&pass, &l, &r, &len))
        armcii_cache_invalidate_range(&cache_g.c, target, (uintptr_t)r, len);
}

/* ---- gets ---- */

int armcii_cache_get(int target, const void *src, void *dst, size_t len)
{
    if (!cache_g.ready)
        return 0;
    const void *bytes = armcii_cache_lookup(&cache_g.c, target, (uintptr_t)src, len);
    if (!bytes)
        return 0;
    memcpy(dst, bytes, len);
    return 1;
}

int armcii_cache_get_held(int target, const void *src, void *dst, size_t len)
{
    if (!cache_g.ready || !armcii_cache_peek(&cache_g.c, target, (uintptr_t)src, len))
        return 0; /* not counted as a miss: the allocation may not be cached at all */
    return armcii_cache_get(target, src, dst, len);
}

int armcii_cache_peek_all(int target, const armcii_iter_t *it)
{
    if (!cache_g.ready || !armcii_cache_holds(&cache_g.c, target))
        return 0;
    armcii_iter_t pass = *it;
    char *l, *r;
    size_t len;
    while (armcii_iter_next(&pass, &l, &r, &len))
        if (!armcii_cache_peek(&cache_g.c, target, (uintptr_t)r, len))
            return 0;
    return 1;
}

void armcii_cache_get_blocks(int target, armcii_iter_t *it)
{
    char *l, *r;
    size_t len;
    while (armcii_iter_next(it, &l, &r, &len))
        memcpy(l, armcii_cache_lookup(&cache_g.c, target, (uintptr_t)r, len), len);
}

void *armcii_cache_fill_start(const armcii_cache_owner_t *owner, int target, const void *src,
                              void *dst, size_t len)
{
    if (!cache_g.ready || len > cache_g.c.store.size)
        return NULL; /* could never be kept: read straight into the caller's buffer */
    cache_fill_t *f = malloc(sizeof(*f) + len);
    if (!f)
        return NULL;
    f->dst = dst;
    f->len = len;
    f->target = target;
    f->addr = (uintptr_t)src;
    f->owner = owner;
    f->mode = owner->mode;
    f->sync_epoch = cache_g.sync_epoch;
    f->gen_epoch = cache_g.gen_epoch;
    f->put_epoch = cache_g.put_epoch[target];
    return f;
}

void *armcii_cache_fill_data(void *fill)
{
    return ((cache_fill_t *)fill)->data;
}

void armcii_cache_fill_end(void *fill)
{
    cache_fill_t *f = fill;
    memcpy(f->dst, f->data, f->len);
    if (f->gen_epoch != cache_g.gen_epoch || f->put_epoch != cache_g.put_epoch[f->target])
        return; /* invalidated (or freed, or its mode changed) while in flight */
    if (f->mode == ARMCIX_CACHE_TRANSPARENT && f->sync_epoch != cache_g.sync_epoch)
        return; /* read before this process's last synchronisation point */
    armcii_cache_insert(&cache_g.c, f->target, f->addr, f->len, f->data, f->owner);
}

/* ---- statistics ---- */

void armcii_cache_get_stats(armcix_cache_stats_t *s)
{
    memset(s, 0, sizeof(*s));
    if (cache_g.ready)
        armcii_cache_stats(&cache_g.c, s);
}

void armcii_cache_reset_stats(void)
{
    if (!cache_g.ready)
        return;
    memset(&cache_g.c.st, 0, sizeof(cache_g.c.st)); /* the sizes are read live */
}

/* Collective (ARMCI_Finalize): with ARMCI_CACHE_STATS, rank 0 prints the counters summed
 * over all processes. */
void armcii_cache_report(void)
{
    if (!cache_g.host.env || !cache_g.host.env->CACHE_STATS)
        return;
    armcix_cache_stats_t s, sum;
    armcii_cache_get_stats(&s);
    enum { N = sizeof(s) / sizeof(long) };
    MPI_Request r;
    MPI_Ireduce(&s, &sum, N, MPI_LONG, MPI_SUM, 0, cache_g.host.comm, &r);
    cache_g.host.wait("ARMCI_Finalize", &r);
    if (cache_g.host.rank != 0)
        return;
    long gets = sum.hits + sum.misses;
    printf("armci: get cache over %d processes: %ld hits, %ld misses (%.1f%% hits), "
           "%ld bytes from cache\n",
           cache_g.host.nproc, sum.hits, sum.misses,
           gets ? 100.0 * (double)sum.hits / (double)gets : 0.0, sum.bytes_hit);
    printf("armci: get cache evictions: %ld conflict, %ld capacity; %ld failed inserts, "
           "%ld invalidated; resizes: %ld index, %ld buffer\n",
           sum.conflict_evictions, sum.capacity_evictions, sum.failed_inserts, sum.invalidations,
           sum.index_resizes, sum.buffer_resizes);
    fflush(stdout);
}
