/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The get cache (CLaMPI). The engine (engine.c) is pure: entries keyed by (target,
 * address) with a length, a cuckoo index for exact lookups, a page map for containment
 * lookups and range invalidation, one storage buffer with a best-fit allocator, eviction
 * by a score of recency and size, and the adaptive resizing of index and buffer. The
 * runtime side (getcache.c) decides what is cached: modes per allocation, invalidation at
 * synchronisation points and by this process's own writes, and fills from completed gets.
 */
#ifndef ARMCII_CACHE_H
#define ARMCII_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include <armcix.h>

#include "cuckoo.h"
#include "store.h"

typedef struct {
    size_t index_slots;  /* initial index size */
    size_t buffer_bytes; /* initial storage size */
    size_t max_bytes;    /* the adaptive scheme grows the buffer up to this */
    size_t min_slots, max_slots;
    int adaptive;
    int ntargets;        /* ranks: targets are 0 .. ntargets-1 */
    long window;         /* lookups between two adaptive decisions */
    double conflict_hi;  /* conflict evictions per lookup that grow the index */
    double capacity_hi;  /* capacity evictions per lookup that grow the buffer */
    double occupancy_lo; /* entries per slot under which the index shrinks */
} armcii_cache_params_t;

/** Defaults for the parameters not given by the environment. */
void armcii_cache_params_default(armcii_cache_params_t *p, int ntargets);

typedef struct {
    uint64_t hash;
    uintptr_t addr;
    size_t len;
    int target;
    int32_t blk;       /* storage block */
    int32_t live_pos;  /* position in live[]; -1 when the record is free */
    const void *owner; /* the allocation the bytes came from */
} armcii_centry_t;

/* What eviction looks at, kept together in one dense array: a sample reads consecutive
 * records instead of chasing entries all over memory. */
typedef struct {
    uint64_t last; /* tick of the last use */
    size_t len;
    int32_t id;
} armcii_clive_t;

typedef struct {
    uint64_t page;
    uintptr_t lo, hi; /* the entry's range, so a scan of the chain reads only the chain */
    int target;
    int32_t id, next;
} armcii_cpage_t;

typedef struct {
    armcii_cache_params_t p;
    armcii_cuckoo_t index;
    armcii_store_t store;
    char *buf;

    armcii_centry_t *e;   /* entry records */
    int32_t ecap, efree;  /* free records chain through blk */
    armcii_clive_t *live; /* the entries held, in no order */
    int32_t nlive;
    int32_t hand;        /* where the next eviction sample starts */
    int32_t *per_target; /* entries held per target */

    int32_t *pbucket; /* page map: (target, page) -> chain of nodes */
    size_t npbuckets;
    armcii_cpage_t *pn;
    int32_t pncap, pnfree, pnused;

    uint64_t tick;
    long w_lookups, w_conflicts, w_capacity; /* the current adaptive window */
    int32_t w_peak;                          /* most entries held in it */
    int low_windows;                         /* windows in a row with the index mostly empty */
    armcix_cache_stats_t st;
} armcii_cache_t;

/** @return 0, or -1 out of memory. */
int armcii_cache_init(armcii_cache_t *c, const armcii_cache_params_t *p);
void armcii_cache_fini(armcii_cache_t *c);

/**
 * Look up [addr, addr+len) of @p target: a hit is any entry that wholly contains it. Counts
 * a hit or a miss and drives the adaptive scheme.
 * @return the cached bytes (valid until the cache next changes), or NULL.
 */
const void *armcii_cache_lookup(armcii_cache_t *c, int target, uintptr_t addr, size_t len);
/** As lookup, without counting or touching anything. */
const void *armcii_cache_peek(armcii_cache_t *c, int target, uintptr_t addr, size_t len);

/** Keep a copy of @p data as [addr, addr+len) of @p target, from allocation @p owner.
 *  @return 0 if kept, -1 if not (counted as a failed insert). */
int armcii_cache_insert(armcii_cache_t *c, int target, uintptr_t addr, size_t len, const void *data,
                        const void *owner);

/** Drop the entries of @p target overlapping [addr, addr+len). @return how many. */
long armcii_cache_invalidate_range(armcii_cache_t *c, int target, uintptr_t addr, size_t len);
/** Drop the entries whose owner satisfies @p pred (NULL: all). @return how many. */
long armcii_cache_invalidate_if(armcii_cache_t *c, int (*pred)(const void *owner, const void *ctx),
                                const void *ctx);

/** Change the index to @p nslots slots / the buffer to @p bytes, keeping the entries that
 *  fit. @return 0, or -1 out of memory (nothing changed). */
int armcii_cache_resize_index(armcii_cache_t *c, size_t nslots);
int armcii_cache_resize_buffer(armcii_cache_t *c, size_t bytes);

/** The counters, with the current sizes filled in. */
void armcii_cache_stats(const armcii_cache_t *c, armcix_cache_stats_t *s);

static inline int armcii_cache_holds(const armcii_cache_t *c, int target)
{
    return c->per_target && c->per_target[target] > 0;
}

#endif
