/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Active messages, target side: the handlers that apply a request or take a reply, each
 * registered with the engine (am.c) for its kind.
 *   PUTV / ACCV / PUTF  records written or accumulated, then acknowledged (PUTF: then the
 *                       flag stored; its acknowledgement perhaps deferred, see am.c);
 *   GETV                entries packed into a GETV_REPLY, taken at the origin;
 *   RMW                 a read-modify-write on one word, answered by RMW_REPLY.
 * Accumulates take the target's accumulate lock (the lock same-node peers take too), and
 * read-modify-writes are CPU atomics, so both stay atomic whichever path a peer uses.
 * Every address is checked against the target's own allocations before it is touched.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "am_internal.h"
#include "host.h"
#include "ofi_internal.h"
#include "transport.h"
#include "../base/acc.h"
#include "../base/common.h"
#include "../base/op.h"
#include "../base/place.h"
#include "../base/region.h"
#include "../base/stats.h"
#include "../base/token.h"

static void check_range(const am_hdr_t *h, uint64_t addr, uint64_t len)
{
    if (len > 0 &&
        !armcii_region_find(armcii_tp.regions, armcii_tp.rank, (uintptr_t)addr, (size_t)len))
        armcii_fatal(am_tcall,
                     "rank %d reaches %p (+%llu bytes), outside every ARMCI allocation "
                     "of this rank",
                     h->src, (void *)(uintptr_t)addr, (unsigned long long)len);
}

/* check_range for the records of one message, which mostly land in one allocation: a
 * record inside the segment the last lookup found, [*lo, *hi), needs none. */
/* Whether @p len bytes at @p addr lie in one of this rank's allocations; [*lo, *hi) is the
 * segment found last, and becomes this one's. */
static int in_segment(uint64_t addr, uint64_t len, uint64_t *lo, uint64_t *hi)
{
    if (len == 0 || (addr >= *lo && addr < *hi && len <= *hi - addr))
        return 1;
    const armcii_seg_t *s =
        armcii_region_find(armcii_tp.regions, armcii_tp.rank, (uintptr_t)addr, (size_t)len);
    if (!s)
        return 0;
    *lo = s->base;
    *hi = s->base + s->size;
    return 1;
}

static void check_record(const am_hdr_t *h, uint64_t addr, uint64_t len, uint64_t *lo, uint64_t *hi)
{
    if (!in_segment(addr, len, lo, hi))
        check_range(h, addr, len); /* names it */
}

/* One put record. A record of one aligned word is stored whole, as a release: a process
 * polling that word (a value put used as a flag, waited for with loads; t_values) reads
 * the old or the new value, never a mix, and with an acquire load sees the records
 * applied before it. Anything longer is a copy placed as ARMCI_PLACEMENT says. */
static void put_record(void *dst, const void *src, size_t len, int announced)
{
    if (len == 8 && ((uintptr_t)dst & 7) == 0) {
        uint64_t v;
        memcpy(&v, src, 8);
        __atomic_store_n((uint64_t *)dst, v, __ATOMIC_RELEASE);
    } else if (len == 4 && ((uintptr_t)dst & 3) == 0) {
        uint32_t v;
        memcpy(&v, src, 4);
        __atomic_store_n((uint32_t *)dst, v, __ATOMIC_RELEASE);
    } else {
        armcii_place_copy(dst, src, len, announced);
    }
}

/* The offset of block @p k of a run from its first address. */
static inline int64_t run_offset(const char *offsets, size_t k)
{
    int32_t d;
    memcpy(&d, offsets + k * sizeof(d), sizeof(d));
    return d;
}

/* Bytes after the am_blk_t of record @p b, which starts @p left bytes before the end of
 * its message (with @p data: a put's or accumulate's, data included); ends the job for a
 * record that does not fit. */
static size_t record_body(const am_hdr_t *h, const am_blk_t *b, size_t left, int data)
{
    size_t body;
    if (b->len & AM_RUN) {
        size_t n = AM_RUN_N(b->len), len = AM_RUN_BLOCK(b->len);
        if (n > left / sizeof(int32_t) || (data && len > 0 && n > left / len))
            armcii_fatal(am_tcall, "malformed message from rank %d", h->src);
        body = AM_RUN_OFFSETS(n) + (data ? PAD8(n * len) : 0);
    } else {
        if (data && b->len > left)
            armcii_fatal(am_tcall, "malformed message from rank %d", h->src);
        body = data ? PAD8(b->len) : 0;
    }
    if (body > left)
        armcii_fatal(am_tcall, "malformed message from rank %d", h->src);
    return body;
}

/* check_record for every block of record @p b, whose body is at @p body. */
static void check_blocks(const am_hdr_t *h, const am_blk_t *b, const char *body, uint64_t *lo,
                         uint64_t *hi)
{
    if (!(b->len & AM_RUN)) {
        check_record(h, b->addr, b->len, lo, hi);
        return;
    }
    /* A run's blocks usually lie in one allocation: the range from the lowest to the
     * highest is checked once; else each block, and the first outside is named. */
    size_t n = AM_RUN_N(b->len), len = AM_RUN_BLOCK(b->len);
    int64_t first = INT32_MAX, last = INT32_MIN;
    for (size_t k = 0; k < n; k++) {
        int64_t d = run_offset(body, k);
        first = d < first ? d : first;
        last = d > last ? d : last;
    }
    if (n > 0 && in_segment(b->addr + (uint64_t)first, (uint64_t)(last - first) + len, lo, hi))
        return;
    for (size_t k = 0; k < n; k++)
        check_record(h, b->addr + (uint64_t)run_offset(body, k), len, lo, hi);
}

/* Walks the records of @p h, @p len bytes long (with @p data: a put's or accumulate's,
 * the blocks' data included), before anything is touched: ends the job for a record that
 * does not fit in the message or a block outside this rank's allocations, and returns the
 * bytes the blocks add up to, which a get's reply must hold within @p reply_max. */
static size_t check_records(const am_hdr_t *h, size_t len, int data, size_t reply_max)
{
    const char *p = (const char *)(h + 1), *end = (const char *)h + len;
    size_t total = 0;
    uint64_t lo = 1, hi = 0; /* the segment found last */
    for (uint32_t i = 0; i < h->nblk; i++) {
        am_blk_t b;
        if ((size_t)(end - p) < sizeof(b))
            armcii_fatal(am_tcall, "malformed message from rank %d", h->src);
        memcpy(&b, p, sizeof(b));
        size_t body = record_body(h, &b, (size_t)(end - p) - sizeof(b), data);
        check_blocks(h, &b, p + sizeof(b), &lo, &hi);
        size_t bytes = b.len & AM_RUN ? AM_RUN_N(b.len) * AM_RUN_BLOCK(b.len) : b.len;
        if (bytes > reply_max - total)
            armcii_fatal(am_tcall,
                         "get request from rank %d asks for at least %zu bytes in one reply "
                         "(more than a bounce buffer; ARMCI_BOUNCE_SIZE must match everywhere)",
                         h->src, total + bytes);
        total += bytes;
        p += sizeof(b) + body;
    }
    return total;
}

static int apply_records(const am_hdr_t *h, size_t len)
{
    int acc = h->kind == AM_ACCV;
    if (acc && armcii_acc_type_size(h->type) == 0)
        armcii_fatal(am_tcall, "accumulate of unknown type %d from rank %d", h->type, h->src);
    check_records(h, len, 1, SIZE_MAX); /* a put's blocks are within its message */
    if (h->kind == AM_PUTF)
        check_range(h, h->arg[0], sizeof(int));
    int slot = armcii_tp.shm ? armcii_tp.node_rank : 0;
    if (acc)
        armcii_shm_acc_lock(am_tcall, slot);
    int announced = h->kind == AM_PUTF; /* a flag that follows announces the data */
    const char *p = (const char *)(h + 1);
    for (uint32_t i = 0; i < h->nblk; i++) {
        am_blk_t b;
        memcpy(&b, p, sizeof(b));
        p += sizeof(b);
        size_t n = 1, blen = b.len;
        const char *src = p;
        if (b.len & AM_RUN) {
            n = AM_RUN_N(b.len);
            blen = AM_RUN_BLOCK(b.len);
            src = p + AM_RUN_OFFSETS(n);
        }
        for (size_t k = 0; k < n; k++, src += blen) {
            uint64_t a = b.addr + (b.len & AM_RUN ? (uint64_t)run_offset(p, k) : 0);
            void *dst = (void *)(uintptr_t)a;
            if (acc)
                armcii_acc_apply(h->type, h->scale, src, dst, blen);
            else /* where its owner reads it */
                put_record(dst, src, blen, announced);
        }
        p += (b.len & AM_RUN ? AM_RUN_OFFSETS(n) : 0) + PAD8(n * blen);
    }
    if (acc)
        armcii_shm_acc_unlock(slot);
    if (h->kind == AM_PUTF) {
        /* A full barrier, not a release store alone: a large memcpy may have used
         * non-temporal stores, which only a fence orders before the flag. */
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        __atomic_store_n((int *)(uintptr_t)h->arg[0], (int)h->arg[1], __ATOMIC_RELEASE);
    }
    if (!acc && h->type == ACK_DEFERRED)
        return 1; /* acknowledged by the count on a later message */
    am_hdr_t ack = {.kind = AM_ACK, .cookie = h->cookie};
    am_send_small(h->src, &ack, offsetof(am_hdr_t, arg));
    armcii_stat_ack_sent();
    return 1;
}

/* Pack the entries of a GETV into a reply; 0 when no bounce buffer is free yet. */
static int answer_getv(const am_hdr_t *h, size_t len)
{
    char *buf = armcii_ofi_bounce_try();
    if (!buf)
        return 0;
    if (len < sizeof(*h))
        armcii_fatal(am_tcall, "malformed get request from rank %d", h->src);
    size_t total = check_records(h, len, 0, armcii_ofi_post.bounce_size - sizeof(am_hdr_t));
    am_hdr_t *r = (am_hdr_t *)buf;
    memset(r, 0, sizeof(*r));
    r->kind = AM_GETV_REPLY;
    r->src = armcii_tp.rank;
    r->cookie = h->cookie;
    char *d = (char *)(r + 1);
    const char *p = (const char *)(h + 1);
    for (uint32_t i = 0; i < h->nblk; i++) {
        am_blk_t b;
        memcpy(&b, p, sizeof(b));
        p += sizeof(b);
        if (!(b.len & AM_RUN)) {
            memcpy(d, (void *)(uintptr_t)b.addr, b.len);
            d += b.len;
            continue;
        }
        size_t n = AM_RUN_N(b.len), blen = AM_RUN_BLOCK(b.len);
        if (blen == 8) /* the common entry, one word, without the general copy */
            for (size_t k = 0; k < n; k++, d += 8)
                memcpy(d, (void *)(uintptr_t)(b.addr + (uint64_t)run_offset(p, k)), 8);
        else
            for (size_t k = 0; k < n; k++, d += blen)
                memcpy(d, (void *)(uintptr_t)(b.addr + (uint64_t)run_offset(p, k)), blen);
        p += AM_RUN_OFFSETS(n);
    }
    am_send_bounce_later(h->src, buf, sizeof(*r) + total);
    return 1;
}

static int take_getv_reply(const am_hdr_t *h, size_t len)
{
    am_ctx_t *c = am_cookie_ctx(h->cookie);
    const char *d = (const char *)(h + 1);
    size_t total = 0;
    for (size_t i = 0; i < c->n; i++)
        total += c->llen[i];
    if (len < sizeof(*h) + total)
        armcii_fatal(am_tcall, "short get reply from rank %d (%zu bytes)", h->src, len);
    for (size_t i = 0; i < c->n; i++) {
        if (c->llen[i] == 8)
            memcpy(c->lptr[i], d, 8);
        else
            memcpy(c->lptr[i], d, c->llen[i]);
        d += c->llen[i];
    }
    armcii_token_t *tok = c->tok;
    am_ctx_release(c);
    armcii_tp.op_done(tok);
    return 1;
}

static int do_rmw(const am_hdr_t *h, size_t len)
{
    uint64_t addr = h->arg[0];
    size_t size = (h->type == ARMCII_RMW_FADD32 || h->type == ARMCII_RMW_SWAP32) ? 4 : 8;
    if (addr % size != 0)
        armcii_fatal(am_tcall, "read-modify-write from rank %d at %p is not %zu-byte aligned",
                     h->src, (void *)(uintptr_t)addr, size);
    check_range(h, addr, size);
    am_hdr_t r = {.kind = AM_RMW_REPLY, .src = armcii_tp.rank, .cookie = h->cookie};
    r.arg[0] = armcii_rmw_apply(h->type, (void *)(uintptr_t)addr, h->arg[1], h->scale);
    am_send_small(h->src, &r, offsetof(am_hdr_t, scale)); /* scale is not part of a reply */
    return 1;
}

static int take_rmw_reply(const am_hdr_t *h, size_t len)
{
    am_ctx_t *c = am_cookie_ctx(h->cookie);
    if (c->rsize == 4) {
        uint32_t v = (uint32_t)h->arg[0];
        memcpy(c->result, &v, 4);
    } else {
        memcpy(c->result, &h->arg[0], 8);
    }
    armcii_token_t *tok = c->tok;
    am_ctx_release(c);
    armcii_tp.op_done(tok);
    return 1;
}

void am_target_register(void)
{
    am_register(AM_PUTV, apply_records, AM_REQUEST);
    am_register(AM_PUTF, apply_records, AM_REQUEST);
    am_register(AM_ACCV, apply_records, AM_REQUEST);
    am_register(AM_GETV, answer_getv, AM_REQUEST | AM_MAY_WAIT);
    am_register(AM_RMW, do_rmw, AM_REQUEST);
    am_register(AM_GETV_REPLY, take_getv_reply, 0);
    am_register(AM_RMW_REPLY, take_rmw_reply, 0);
}
