/* SPDX-License-Identifier: BSD-3-Clause */
/* First-fit span allocator with neighbour merging. */
#include <stdlib.h>
#include <string.h>

#include "halloc.h"

int armcii_halloc_init(armcii_halloc_t *h, size_t capacity, size_t align)
{
    memset(h, 0, sizeof(*h));
    if (align == 0 || (align & (align - 1)) != 0)
        return -1;
    h->align = align;
    h->capacity = capacity & ~(align - 1);
    h->cap = 16;
    h->free = malloc((size_t)h->cap * sizeof(*h->free));
    if (!h->free)
        return -1;
    if (h->capacity > 0) {
        h->free[0].off = 0;
        h->free[0].len = h->capacity;
        h->nfree = 1;
    }
    return 0;
}

void armcii_halloc_fini(armcii_halloc_t *h)
{
    free(h->free);
    memset(h, 0, sizeof(*h));
}

size_t armcii_halloc_round(const armcii_halloc_t *h, size_t len)
{
    return (len + h->align - 1) & ~(h->align - 1);
}

int armcii_halloc_alloc(armcii_halloc_t *h, size_t len, size_t *off_p)
{
    if (len == 0 || len > h->capacity)
        return -1;
    len = armcii_halloc_round(h, len);
    for (int i = 0; i < h->nfree; i++) {
        armcii_span_t *s = &h->free[i];
        if (s->len < len)
            continue;
        *off_p = s->off;
        s->off += len;
        s->len -= len;
        if (s->len == 0) {
            memmove(s, s + 1, (size_t)(h->nfree - i - 1) * sizeof(*s));
            h->nfree--;
        }
        h->used += len;
        return 0;
    }
    return -1;
}

int armcii_halloc_free(armcii_halloc_t *h, size_t off, size_t len)
{
    len = armcii_halloc_round(h, len);
    if (len == 0 || off % h->align != 0 || off > h->capacity || len > h->capacity - off)
        return -1;
    /* i = first free span after the returned one */
    int i = 0;
    while (i < h->nfree && h->free[i].off < off)
        i++;
    if (i > 0 && h->free[i - 1].off + h->free[i - 1].len > off)
        return -1; /* overlaps the free span before it: double free */
    if (i < h->nfree && off + len > h->free[i].off)
        return -1;
    int merge_prev = i > 0 && h->free[i - 1].off + h->free[i - 1].len == off;
    int merge_next = i < h->nfree && off + len == h->free[i].off;
    if (merge_prev && merge_next) {
        h->free[i - 1].len += len + h->free[i].len;
        memmove(&h->free[i], &h->free[i + 1], (size_t)(h->nfree - i - 1) * sizeof(*h->free));
        h->nfree--;
    } else if (merge_prev) {
        h->free[i - 1].len += len;
    } else if (merge_next) {
        h->free[i].off = off;
        h->free[i].len += len;
    } else {
        if (h->nfree == h->cap) {
            armcii_span_t *n = realloc(h->free, (size_t)h->cap * 2 * sizeof(*n));
            if (!n)
                return -1;
            h->free = n;
            h->cap *= 2;
        }
        memmove(&h->free[i + 1], &h->free[i], (size_t)(h->nfree - i) * sizeof(*h->free));
        h->free[i].off = off;
        h->free[i].len = len;
        h->nfree++;
    }
    h->used -= len;
    return 0;
}
