/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The get cache as the rest of the runtime uses it (src/cache/getcache.c): the core's get
 * path asks it first and fills it, writes and synchronisation points invalidate it, the
 * API layer sets its modes. Its engine and index are private to src/cache (cache.h).
 *
 * Its files: getcache.c (this face, and the fills of gets in flight), engine.c (the CLaMPI
 * engine: admission, eviction, the adaptive sizes), cuckoo.c (the cuckoo-hashed index) and
 * store.c (the storage buffer). It sits below the core, beside the transport: what it
 * knows of the job it is handed at start-up (armcii_cache_host_t), what it keeps of an
 * allocation lives inside the allocation (armcii_cache_owner_t), and below it is
 * src/base alone. Its callers hold the runtime lock.
 */
#ifndef ARMCII_GETCACHE_H
#define ARMCII_GETCACHE_H

#include <mpi.h>
#include <stddef.h>

#include <armcix.h>

#include "../base/common.h"
#include "../base/env.h"

/** What the get cache is told of the job (armcii_cache_rt_init keeps a copy). */
typedef struct {
    int rank, nproc;
    MPI_Comm comm; /* the job's (the statistics' reduction at finalize) */
    const armcii_env_t *env;
    void (*wait)(const char *call, MPI_Request *r); /* a wait on MPI that serves peers */
} armcii_cache_host_t;

/** What the cache keeps of one allocation, inside it: its mode, and the cache's list of
 *  the allocations (armcii_cache_alloc_new links it, armcii_cache_alloc_gone unlinks it). */
typedef struct armcii_cache_owner {
    int mode; /* ARMCIX_CACHE_*: how this process caches gets from the allocation */
    struct armcii_cache_owner *prev, *next;
} armcii_cache_owner_t;

armcii_status_t armcii_cache_rt_init(const armcii_cache_host_t *host);
void armcii_cache_rt_fini(void);
/** The get cache's engine is running (set at the first cached allocation; it never stops
 *  before finalize). Written by cache/getcache.c only. */
extern int armcii_cache_engine;
/** Bytes the get cache holds: its index, entries and storage, and a counter per process. */
size_t armcii_cache_rt_bytes(void);
/** Collective: print the summed counters on rank 0 when ARMCI_CACHE_STATS is set. */
void armcii_cache_report(void);
/** ARMCIX_CACHE_* for a mode name (off, transparent, always, user), or -1. */
int armcii_cache_parse_mode(const char *s);
/** The mode new allocations get. */
int armcii_cache_default_mode(void);
void armcii_cache_get_stats(armcix_cache_stats_t *s);
void armcii_cache_reset_stats(void);
/** The keep-warm pass over the cache's tables (the core registers it); the lines read. */
size_t armcii_cache_warm(void);
/** A new allocation takes the default mode; a freed one leaves the cache. */
void armcii_cache_alloc_new(armcii_cache_owner_t *a);
void armcii_cache_alloc_gone(armcii_cache_owner_t *a);
/** Mode of @p a, or of every allocation (present and future) when @p a is NULL. */
void armcii_cache_set_mode(const char *call, armcii_cache_owner_t *a, int mode);
/** Drop what is cached from @p a (NULL: everything). */
void armcii_cache_invalidate(armcii_cache_owner_t *a);
/** A synchronisation point of this process: transparent allocations lose their entries. */
void armcii_cache_sync(void);
/** This process writes [addr, addr+len) of @p target: overlapping entries go. */
void armcii_cache_write(int target, const void *addr, size_t len);
struct armcii_iter; /* (iter.h) */
/** armcii_cache_write for every block of the walker @p it (not moved): the blocks are
 *  walked only when the cache holds something of @p target. */
void armcii_cache_write_blocks(int target, const struct armcii_iter *it);
/** Answer a contiguous get from the cache into @p dst; @return 1 on a hit. */
int armcii_cache_get(int target, const void *src, void *dst, size_t len);
/** As armcii_cache_get, counting only a hit (for callers that do not know the mode). */
int armcii_cache_get_held(int target, const void *src, void *dst, size_t len);
/** Would every remote block of the iterator @p it hit? (Nothing is counted.) */
int armcii_cache_peek_all(int target, const struct armcii_iter *it);
/** Copy every block of @p it from the cache (after armcii_cache_peek_all said yes). */
void armcii_cache_get_blocks(int target, struct armcii_iter *it);
/** A fill record for a missed get (NULL: not cacheable); the get reads into
 *  armcii_cache_fill_data(record), and armcii_cache_fill_end delivers and fills. */
void *armcii_cache_fill_start(const armcii_cache_owner_t *owner, int target, const void *src,
                              void *dst, size_t len);
void *armcii_cache_fill_data(void *fill);
void armcii_cache_fill_end(void *fill);

#endif
