/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Gets of many short blocks as one read of the range they span (span.h).
 */
#include <stdlib.h>
#include <string.h>

#include "span.h"
#include "exec.h"
#include "../core/mem.h"
#include "../core/runtime.h"
#include "../base/common.h"
#include "../base/iter.h"
#include "../base/place.h"
#include "../base/pool.h"
#include "../base/region.h"
#include "../base/select.h"
#include "../transport/transport.h"

/* The longest range read this way; the request holds it in memory of its own, and a
 * block's place in it is 32 bits. */
#define SPAN_MAX ((size_t)4 << 20)

/* One block to copy out of the range read: where it goes, where it is in the range. */
typedef struct {
    char *local;
    uint32_t off, len;
} span_blk_t;

/* What a span get's request owns (its scratch): the blocks, then the range read. */
typedef struct {
    size_t n;
    char *data;
    span_blk_t blk[];
} span_fill_t;

/* The remote side of I/O vector entry @p v, for a get or (@p local_is_src) the other way. */
static void **remote_side(const armci_giov_t *v, int local_is_src)
{
    return local_is_src ? v->dst_ptr_array : v->src_ptr_array;
}

static void **local_side(const armci_giov_t *v, int local_is_src)
{
    return local_is_src ? v->src_ptr_array : v->dst_ptr_array;
}

/* Lowest and one-past-highest remote byte of the blocks of @p it, their bytes and their
 * number (zero-length blocks do not count). */
static void extent(const armcii_iter_t *it, armcii_nc_span_t *s)
{
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    size_t bytes = 0, n = 0;
    if (it->vector == 0) {
        char *l, *h;
        armcii_iter_remote_extent(it, &l, &h);
        lo = (uintptr_t)l;
        hi = (uintptr_t)h;
        n = it->nblocks;
        bytes = n * (size_t)it->count[0];
    } else {
        for (int g = 0; g < it->iov_len; g++) {
            const armci_giov_t *v = &it->iov[g];
            if (v->bytes <= 0 || v->ptr_array_len <= 0)
                continue;
            n += (size_t)v->ptr_array_len;
            bytes += (size_t)v->ptr_array_len * (size_t)v->bytes;
            if (it->rhi != 0)
                continue; /* the range is known: the API layer found it checking them */
            void **r = remote_side(v, it->local_is_src);
            uintptr_t glo = UINTPTR_MAX, ghi = 0;
            for (int k = 0; k < v->ptr_array_len; k++) {
                uintptr_t a = (uintptr_t)r[k];
                glo = a < glo ? a : glo;
                ghi = a > ghi ? a : ghi;
            }
            lo = glo < lo ? glo : lo;
            ghi += (size_t)v->bytes;
            hi = ghi > hi ? ghi : hi;
        }
        if (it->rhi != 0) {
            lo = it->rlo;
            hi = it->rhi;
        }
    }
    s->lo = lo;
    s->hi = hi;
    s->bytes = bytes;
    s->nblocks = n;
}

int armcii_span_plan(const armcii_iter_t *it, int target, armcii_nc_span_t *s)
{
    size_t ratio = (size_t)armcii_rt.env.NC_SPAN_RATIO;
    if (ratio == 0 || it->nblocks == 0)
        return 0;
    extent(it, s);
    if (s->bytes == 0 || s->hi <= s->lo)
        return 0;
    size_t span = s->hi - s->lo;
    if (span > SPAN_MAX || (span > (size_t)armcii_rt.env.NC_SPAN_MIN && span / ratio > s->bytes))
        return 0;
    /* Blocks in different allocations, or with the gaps between them outside any: the
     * range cannot be read as one. */
    s->seg = armcii_region_find(&armcii_mem.regions, target, s->lo, span);
    return s->seg != NULL;
}

/* Each block of @p it, with its place in the range from @p lo, into @p out; how many. */
static size_t collect(armcii_iter_t *it, uintptr_t lo, span_blk_t *out)
{
    size_t n = 0;
    if (it->vector == 1) {
        for (int g = 0; g < it->iov_len; g++) {
            const armci_giov_t *v = &it->iov[g];
            if (v->bytes <= 0 || v->ptr_array_len <= 0)
                continue;
            void **r = remote_side(v, it->local_is_src), **l = local_side(v, it->local_is_src);
            for (int k = 0; k < v->ptr_array_len; k++)
                out[n++] = (span_blk_t){l[k], (uint32_t)((uintptr_t)r[k] - lo), (uint32_t)v->bytes};
        }
        it->g = it->iov_len; /* walked to the end, as armcii_iter_next leaves it */
        it->done = it->nblocks;
        return n;
    }
    char *l, *r;
    size_t len;
    while (armcii_iter_next(it, &l, &r, &len))
        out[n++] = (span_blk_t){l, (uint32_t)((uintptr_t)r - lo), (uint32_t)len};
    return n;
}

/* The read completed: its blocks go where the caller asked, as ARMCI_PLACEMENT says (short
 * blocks through the cache; 8 bytes, the common element, a copy of known size). */
static void span_deliver(void *scratch)
{
    const span_fill_t *f = scratch;
    for (size_t i = 0; i < f->n; i++) {
        const span_blk_t *b = &f->blk[i];
        if (b->len == 8 && !armcii_place_memory(8, 0))
            memcpy(b->local, f->data + b->off, 8);
        else
            armcii_place_copy(b->local, f->data + b->off, b->len, 0);
    }
}

void armcii_span_get(const char *call, armcii_iter_t *it, const armcii_nc_span_t *s,
                     armcii_plan_t *p)
{
    int target = p->target;
    size_t span = s->hi - s->lo;
    size_t head = sizeof(span_fill_t) + s->nblocks * sizeof(span_blk_t);
    head = (head + 63) & ~(size_t)63;
    span_fill_t *f = malloc(head + span);
    if (!f)
        armcii_fatal(call,
                     "out of memory reading %zu blocks from process %d as the %zu bytes "
                     "they span",
                     s->nblocks, target, span);
    f->data = (char *)f + head;
    f->n = collect(it, s->lo, f->blk);

    armcii_req_t *req = armcii_exec_begin(call, p);
    req->scratch = f; /* freed with the request, after span_deliver */
    req->on_release = span_deliver;
    armcii_net_get(call, &req->tok, f->data, span, target, armcii_seg_raddr(s->seg, s->lo),
                   armcii_seg_key(s->seg, target),
                   armcii_select_get(&armcii_rt.limits, ARMCII_PATH_FABRIC, span, 0));
    armcii_exec_end(call, p, s->bytes);
}
