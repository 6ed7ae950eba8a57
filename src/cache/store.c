/* SPDX-License-Identifier: BSD-3-Clause */
/* Best-fit allocator of the cache's storage buffer (see store.h). */
#include <stdlib.h>
#include <string.h>

#include "store.h"

static size_t round_up(size_t len)
{
    if (len == 0)
        len = 1;
    return (len + ARMCII_STORE_ALIGN - 1) & ~(size_t)(ARMCII_STORE_ALIGN - 1);
}

/* Bin k holds free blocks of [2^k, 2^(k+1)) alignment units. */
static int bin_of(size_t len)
{
    size_t units = len / ARMCII_STORE_ALIGN;
    int k = 63 - __builtin_clzll((unsigned long long)(units ? units : 1));
    return k < ARMCII_STORE_BINS ? k : ARMCII_STORE_BINS - 1;
}

static int32_t record_new(armcii_store_t *s)
{
    if (s->spare < 0) {
        int32_t ncap = s->cap ? 2 * s->cap : 64;
        armcii_sblk_t *nb = realloc(s->b, (size_t)ncap * sizeof(*nb));
        if (!nb)
            return -1;
        s->b = nb;
        for (int32_t i = ncap - 1; i >= s->cap; i--) {
            nb[i].state = ARMCII_SBLK_UNUSED;
            nb[i].anext = s->spare;
            s->spare = i;
        }
        s->cap = ncap;
    }
    int32_t id = s->spare;
    s->spare = s->b[id].anext;
    return id;
}

static void record_release(armcii_store_t *s, int32_t id)
{
    s->b[id].state = ARMCII_SBLK_UNUSED;
    s->b[id].anext = s->spare;
    s->spare = id;
}

static void bin_insert(armcii_store_t *s, int32_t id)
{
    armcii_sblk_t *b = &s->b[id];
    int k = bin_of(b->len);
    b->state = ARMCII_SBLK_FREE;
    b->fprev = -1;
    b->fnext = s->bins[k];
    if (b->fnext >= 0)
        s->b[b->fnext].fprev = id;
    s->bins[k] = id;
    s->nonempty |= 1ull << k;
    s->nfree++;
}

static void bin_remove(armcii_store_t *s, int32_t id)
{
    armcii_sblk_t *b = &s->b[id];
    if (b->fprev >= 0) {
        s->b[b->fprev].fnext = b->fnext;
    } else {
        int k = bin_of(b->len);
        s->bins[k] = b->fnext;
        if (b->fnext < 0)
            s->nonempty &= ~(1ull << k);
    }
    if (b->fnext >= 0)
        s->b[b->fnext].fprev = b->fprev;
    s->nfree--;
}

void armcii_store_reset(armcii_store_t *s)
{
    for (int k = 0; k < ARMCII_STORE_BINS; k++)
        s->bins[k] = -1;
    s->nonempty = 0;
    s->spare = -1;
    for (int32_t i = s->cap - 1; i >= 0; i--)
        record_release(s, i);
    s->used = 0;
    s->nfree = 0;
    s->tail = -1;
    if (s->size == 0)
        return;
    int32_t id = record_new(s);
    s->b[id].off = 0;
    s->b[id].len = s->size;
    s->b[id].aprev = s->b[id].anext = -1;
    s->tail = id;
    bin_insert(s, id);
}

int armcii_store_init(armcii_store_t *s, size_t size)
{
    memset(s, 0, sizeof(*s));
    s->size = size & ~(size_t)(ARMCII_STORE_ALIGN - 1);
    s->spare = -1;
    if (record_new(s) < 0) /* allocate the first records */
        return -1;
    armcii_store_reset(s);
    return 0;
}

void armcii_store_fini(armcii_store_t *s)
{
    free(s->b);
    memset(s, 0, sizeof(*s));
}

int32_t armcii_store_alloc(armcii_store_t *s, size_t len)
{
    size_t need = round_up(len);
    int32_t best = -1;
    /* Blocks in higher bins are all larger than those in lower ones, so the best fit is
     * in the lowest bin that holds any block large enough. */
    for (int k = bin_of(need); k < ARMCII_STORE_BINS && best < 0; k++) {
        uint64_t above = s->nonempty >> k; /* skip empty bins */
        if (!above)
            break;
        k += __builtin_ctzll(above);
        for (int32_t i = s->bins[k]; i >= 0; i = s->b[i].fnext) {
            if (s->b[i].len >= need && (best < 0 || s->b[i].len < s->b[best].len)) {
                best = i;
                if (s->b[i].len == need)
                    break;
            }
        }
    }
    if (best < 0)
        return -1;
    if (s->b[best].len > need) { /* split: the rest stays free, after the block */
        int32_t rest = record_new(s);
        if (rest < 0)
            return -1;
        armcii_sblk_t *b = &s->b[best]; /* record_new may have moved the array */
        armcii_sblk_t *r = &s->b[rest];
        bin_remove(s, best);
        r->off = b->off + need;
        r->len = b->len - need;
        r->aprev = best;
        r->anext = b->anext;
        if (r->anext >= 0)
            s->b[r->anext].aprev = rest;
        else
            s->tail = rest;
        b->anext = rest;
        b->len = need;
        bin_insert(s, rest);
    } else {
        bin_remove(s, best);
    }
    s->b[best].state = ARMCII_SBLK_USED;
    s->used += need;
    return best;
}

/* Block @p b absorbs its address-order successor @p n (both out of the bins). */
static void absorb(armcii_store_t *s, int32_t b, int32_t n)
{
    s->b[b].len += s->b[n].len;
    s->b[b].anext = s->b[n].anext;
    if (s->b[b].anext >= 0)
        s->b[s->b[b].anext].aprev = b;
    else
        s->tail = b;
    record_release(s, n);
}

void armcii_store_free(armcii_store_t *s, int32_t id)
{
    s->used -= s->b[id].len;
    int32_t n = s->b[id].anext;
    if (n >= 0 && s->b[n].state == ARMCII_SBLK_FREE) {
        bin_remove(s, n);
        absorb(s, id, n);
    }
    int32_t p = s->b[id].aprev;
    if (p >= 0 && s->b[p].state == ARMCII_SBLK_FREE) {
        bin_remove(s, p);
        absorb(s, p, id);
        id = p;
    }
    bin_insert(s, id);
}

int armcii_store_grow(armcii_store_t *s, size_t size)
{
    size &= ~(size_t)(ARMCII_STORE_ALIGN - 1);
    if (size <= s->size)
        return 0;
    size_t extra = size - s->size;
    int32_t t = s->tail;
    if (t >= 0 && s->b[t].state == ARMCII_SBLK_FREE) {
        bin_remove(s, t);
        s->b[t].len += extra;
        bin_insert(s, t);
    } else {
        int32_t id = record_new(s);
        if (id < 0)
            return -1;
        s->b[id].off = s->size;
        s->b[id].len = extra;
        s->b[id].aprev = t;
        s->b[id].anext = -1;
        if (t >= 0)
            s->b[t].anext = id;
        s->tail = id;
        bin_insert(s, id);
    }
    s->size = size;
    return 0;
}

size_t armcii_store_largest_free(const armcii_store_t *s)
{
    for (int k = ARMCII_STORE_BINS - 1; k >= 0; k--) {
        size_t best = 0;
        for (int32_t i = s->bins[k]; i >= 0; i = s->b[i].fnext)
            if (s->b[i].len > best)
                best = s->b[i].len;
        if (best)
            return best;
    }
    return 0;
}
