/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The cache index: cuckoo hashing over entry ids. Each key (a 64-bit hash of target and
 * address) has ARMCII_CUCKOO_WAYS candidate slots in one table; an insert that finds them
 * all taken moves an occupant to one of its other slots, at most max_kicks times. When the
 * chain ends without a free slot, the lowest-scored key met on the path is dropped and the
 * moves after it are undone, so the table is always consistent. Pure, for the unit tests.
 */
#ifndef ARMCII_CUCKOO_H
#define ARMCII_CUCKOO_H

#include <stddef.h>
#include <stdint.h>

#define ARMCII_CUCKOO_WAYS      3
#define ARMCII_CUCKOO_MAX_KICKS 64

/* A slot: the key's hash beside the id, so a probe reads one cache line. */
typedef struct {
    uint64_t key;
    int32_t id; /* -1 when empty */
} armcii_cslot_t;

typedef struct {
    armcii_cslot_t *slots;
    size_t nslots; /* a power of two */
    size_t used;
    int max_kicks;
    uint64_t rng; /* our own generator: never the application's rand() */
} armcii_cuckoo_t;

/** Score of entry @p id: the lower, the sooner it is dropped. */
typedef double (*armcii_cuckoo_score_fn)(void *ctx, int32_t id);
/** Does entry @p id hold the key being looked for (its hash matched)? */
typedef int (*armcii_cuckoo_match_fn)(void *ctx, int32_t id);

/** A table of at least @p nslots slots (rounded up to a power of two, at least 8);
 *  @p max_kicks is bounded by ARMCII_CUCKOO_MAX_KICKS. @return 0, or -1 out of memory. */
int armcii_cuckoo_init(armcii_cuckoo_t *c, size_t nslots, int max_kicks);
void armcii_cuckoo_fini(armcii_cuckoo_t *c);

/** The id stored under hash @p h for which @p match agrees, or -1. */
int32_t armcii_cuckoo_find(const armcii_cuckoo_t *c, uint64_t h, armcii_cuckoo_match_fn match,
                           void *ctx);

/**
 * Insert @p id under hash @p h.
 * @return 0 when placed without loss; 1 when placed and another id, written to
 * @p victim_p, was dropped from the table (a conflict eviction); -1 when @p id itself
 * scored lowest on the kick path and was not placed (the table is unchanged).
 */
int armcii_cuckoo_insert(armcii_cuckoo_t *c, uint64_t h, int32_t id, armcii_cuckoo_score_fn score,
                         void *ctx, int32_t *victim_p);

/** Remove @p id, stored under @p h. @return 0, or -1 if it is not there. */
int armcii_cuckoo_remove(armcii_cuckoo_t *c, uint64_t h, int32_t id);

/**
 * Move every key into a table of @p nslots slots (rounded as by init). Keys that find no
 * place are handed to @p drop (lowest score on their path first, as by insert).
 * @return 0, or -1 out of memory (the old table is kept).
 */
int armcii_cuckoo_resize(armcii_cuckoo_t *c, size_t nslots, armcii_cuckoo_score_fn score,
                         void (*drop)(void *ctx, int32_t id), void *ctx);

/** Remove every key. */
void armcii_cuckoo_clear(armcii_cuckoo_t *c);

/** The 64-bit mixing function the cache uses to hash its keys. */
static inline uint64_t armcii_mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

#endif
