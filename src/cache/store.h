/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Space in the cache's storage buffer: a best-fit allocator of byte ranges. Blocks are
 * kept in address order (so a freed block merges with free neighbours) and free blocks in
 * power-of-two size bins (so best fit looks at one bin). The allocator hands out offsets
 * only; the cache owns the bytes, and can grow the buffer without moving anything.
 * Pure, for the unit tests.
 */
#ifndef ARMCII_STORE_H
#define ARMCII_STORE_H

#include <stddef.h>
#include <stdint.h>

#define ARMCII_STORE_ALIGN 8
#define ARMCII_STORE_BINS  48

typedef struct {
    size_t off, len;
    int32_t aprev, anext; /* neighbours in address order (-1: none); anext chains unused records */
    int32_t fprev, fnext; /* neighbours in the free bin */
    int8_t state;         /* ARMCII_SBLK_* */
} armcii_sblk_t;

enum { ARMCII_SBLK_UNUSED = -1, ARMCII_SBLK_USED = 0, ARMCII_SBLK_FREE = 1 };

typedef struct {
    armcii_sblk_t *b;
    int32_t cap;   /* records allocated */
    int32_t spare; /* chain of unused records */
    int32_t tail;  /* last block in address order */
    int32_t bins[ARMCII_STORE_BINS];
    uint64_t nonempty; /* bit k: bin k holds a free block */
    size_t size;       /* bytes managed */
    size_t used;       /* bytes in used blocks */
    size_t nfree;      /* free blocks */
} armcii_store_t;

/** Manage @p size bytes (rounded down to the alignment). @return 0, or -1 out of memory. */
int armcii_store_init(armcii_store_t *s, size_t size);
void armcii_store_fini(armcii_store_t *s);

/** Best fit for @p len bytes (rounded up to the alignment, at least one unit).
 *  @return the block id, or -1 when no free block is large enough (or out of memory). */
int32_t armcii_store_alloc(armcii_store_t *s, size_t len);
/** Free block @p id; it merges with free neighbours. */
void armcii_store_free(armcii_store_t *s, int32_t id);
static inline size_t armcii_store_off(const armcii_store_t *s, int32_t id)
{
    return s->b[id].off;
}
/** Extend the managed range to @p size bytes (no smaller than now). @return 0 or -1. */
int armcii_store_grow(armcii_store_t *s, size_t size);
/** Make everything free again (one block). */
void armcii_store_reset(armcii_store_t *s);
/** The largest free block, in bytes. */
size_t armcii_store_largest_free(const armcii_store_t *s);

#endif
