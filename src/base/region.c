/* SPDX-License-Identifier: BSD-3-Clause */
/* Region table: per-rank sorted segment arrays with binary search. */
#include <stdlib.h>
#include <string.h>

#include "region.h"
#include "hot.h"

int armcii_region_table_init(armcii_region_table_t *t, int nranks)
{
    t->nranks = nranks;
    t->ranks = calloc((size_t)nranks, sizeof(*t->ranks));
    return t->ranks ? 0 : -1;
}

void armcii_region_table_fini(armcii_region_table_t *t)
{
    for (int r = 0; r < t->nranks; r++)
        free(t->ranks[r].segs);
    free(t->ranks);
    t->ranks = NULL;
    t->nranks = 0;
}

size_t armcii_region_bytes(const armcii_region_table_t *t)
{
    size_t b = (size_t)t->nranks * sizeof(*t->ranks);
    for (int r = 0; r < t->nranks; r++)
        b += (size_t)t->ranks[r].cap * sizeof(armcii_seg_t);
    return b;
}

/* Index of the last segment with base <= addr, or -1. */
static int last_at_or_below(const armcii_seglist_t *l, uintptr_t addr)
{
    int lo = 0, hi = l->n - 1, found = -1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (l->segs[mid].base <= addr) {
            found = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return found;
}

int armcii_region_insert(armcii_region_table_t *t, int rank, const armcii_seg_t *seg)
{
    if (rank < 0 || rank >= t->nranks || seg->size == 0)
        return -1;
    armcii_seglist_t *l = &t->ranks[rank];
    int below = last_at_or_below(l, seg->base);
    if (below >= 0 && l->segs[below].base + l->segs[below].size > seg->base)
        return -1;
    if (below + 1 < l->n && seg->base + seg->size > l->segs[below + 1].base)
        return -1;
    if (l->n == l->cap) {
        /* a quarter more, not twice: every process holds a list per process of the job, and
         * the slack is paid per allocation per process (at most 6 of a segment's 24 B) */
        int cap = l->cap + (l->cap / 4 > 8 ? l->cap / 4 : 8);
        armcii_seg_t *segs = realloc(l->segs, (size_t)cap * sizeof(*segs));
        if (!segs)
            return -1;
        l->segs = segs;
        l->cap = cap;
    }
    int at = below + 1;
    memmove(&l->segs[at + 1], &l->segs[at], (size_t)(l->n - at) * sizeof(*l->segs));
    l->segs[at] = *seg;
    l->n++;
    l->last = 0;
    return 0;
}

int armcii_region_remove(armcii_region_table_t *t, int rank, uintptr_t base)
{
    if (rank < 0 || rank >= t->nranks)
        return -1;
    armcii_seglist_t *l = &t->ranks[rank];
    int at = last_at_or_below(l, base);
    if (at < 0 || l->segs[at].base != base)
        return -1;
    memmove(&l->segs[at], &l->segs[at + 1], (size_t)(l->n - at - 1) * sizeof(*l->segs));
    l->n--;
    l->last = 0;
    t->removals++;
    return 0;
}

/* Does [addr, addr+len) lie within @p s? Written to avoid overflow near the top. */
static int contains(const armcii_seg_t *s, uintptr_t addr, size_t len)
{
    return addr >= s->base && addr - s->base <= s->size && len <= s->size - (addr - s->base);
}

ARMCII_HOT const armcii_seg_t *armcii_region_find(const armcii_region_table_t *t, int rank,
                                                  uintptr_t addr, size_t len)
{
    if (rank < 0 || rank >= t->nranks)
        return NULL;
    armcii_seglist_t *l = &t->ranks[rank];
    if (l->last < l->n && contains(&l->segs[l->last], addr, len))
        return &l->segs[l->last];
    int at = last_at_or_below(l, addr);
    if (at < 0 || !contains(&l->segs[at], addr, len))
        return NULL;
    l->last = at;
    return &l->segs[at];
}

/* The entries a binary search over [lo, hi] reads in its first @p depth steps. */
static unsigned touch_pivots(const armcii_seglist_t *l, int lo, int hi, int depth)
{
    if (lo > hi || depth == 0)
        return 0;
    int mid = lo + (hi - lo) / 2;
    unsigned s = armcii_touch(&l->segs[mid], sizeof(armcii_seg_t));
    return s + touch_pivots(l, lo, mid - 1, depth - 1) + touch_pivots(l, mid + 1, hi, depth - 1);
}

size_t armcii_region_touch(const armcii_region_table_t *t, size_t budget, unsigned *sum)
{
    /* n and segs change only under the lock, as the pass runs; `last` is left alone, since
     * a collecting call updates it without the lock (armci/onesided.c) */
    size_t lines = (size_t)t->nranks * sizeof(*t->ranks) / ARMCII_LINE + 1;
    unsigned s = 0;
    for (int r = 0; r < t->nranks; r++) {
        const armcii_seglist_t *l = &t->ranks[r];
        if (l->n == 0)
            continue;
        size_t all = (size_t)l->n * sizeof(armcii_seg_t) / ARMCII_LINE + 1;
        if (lines + all <= budget) { /* the whole list: every lookup stays in cache */
            s += armcii_touch(l->segs, (size_t)l->n * sizeof(armcii_seg_t));
            lines += all;
        } else { /* the first steps of a search, which every lookup makes */
            s += touch_pivots(l, 0, l->n - 1, 4);
            lines += 16;
        }
    }
    *sum += s;
    return lines;
}
