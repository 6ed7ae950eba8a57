/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The region table: for each rank, the segments it contributed to ARMCI allocations,
 * sorted by base address, so that (rank, address, length) finds its segment in O(log n).
 */
#ifndef ARMCII_REGION_H
#define ARMCII_REGION_H

#include <stddef.h>
#include <stdint.h>

struct armcii_alloc;

/* Kept small, since every process holds one per block of every allocation: what all blocks
 * of an allocation share (the registration key where the provider lets us choose it, the
 * addressing mode) is in the allocation's record (armcii_seg_key, armcii_seg_raddr). */
typedef struct {
    uintptr_t base;             /* address of the segment in its owner's address space */
    size_t size;                /* bytes; zero-size segments are not entered */
    struct armcii_alloc *alloc; /* the allocation this segment belongs to */
} armcii_seg_t;

typedef struct {
    armcii_seg_t *segs;
    int n, cap;
    int last; /* index of the last segment found: consecutive operations mostly hit it */
} armcii_seglist_t;

typedef struct {
    int nranks;
    armcii_seglist_t *ranks;
    unsigned removals; /* segments removed so far: a segment's bounds kept outside the
                        * table (an aggregate handle's) hold while this is unchanged */
} armcii_region_table_t;

int armcii_region_table_init(armcii_region_table_t *t, int nranks);
void armcii_region_table_fini(armcii_region_table_t *t);
/** Bytes the table holds: a list per rank, and the room its lists have grown to. */
size_t armcii_region_bytes(const armcii_region_table_t *t);
/** Enter a segment for @p rank; -1 if it overlaps one already there or memory runs out. */
int armcii_region_insert(armcii_region_table_t *t, int rank, const armcii_seg_t *seg);
/** Remove the segment of @p rank starting at @p base; -1 if there is none. */
int armcii_region_remove(armcii_region_table_t *t, int rank, uintptr_t base);
/** The segment of @p rank that wholly contains [addr, addr+len), or NULL. The table is
 *  read, not changed: only the cursor of @p rank's list (`last`) moves. */
const armcii_seg_t *armcii_region_find(const armcii_region_table_t *t, int rank, uintptr_t addr,
                                       size_t len);

/** Read the table's lines (src/core/warm.c): whole lists while the total stays within
 *  @p budget lines, else the first four steps of a search in each. Adds what it read to
 *  @p sum; returns the lines read (the per-rank entries count as read: their lines are). */
size_t armcii_region_touch(const armcii_region_table_t *t, size_t budget, unsigned *sum);

/** armcii_region_find, with its common case inlined: the last segment found for @p rank
 *  holds the range. */
static inline const armcii_seg_t *armcii_region_find_fast(const armcii_region_table_t *t, int rank,
                                                          uintptr_t addr, size_t len)
{
    if (rank >= 0 && rank < t->nranks) {
        const armcii_seglist_t *l = &t->ranks[rank];
        if (l->last < l->n) {
            const armcii_seg_t *s = &l->segs[l->last];
            if (addr >= s->base && addr - s->base <= s->size && len <= s->size - (addr - s->base))
                return s;
        }
    }
    return armcii_region_find(t, rank, addr, len);
}

#endif
