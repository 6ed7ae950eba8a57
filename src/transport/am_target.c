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

#include "../core/place.h"
#include "../core/stats.h"
#include "am_internal.h"
#include "../core/acc.h"

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
static void check_record(const am_hdr_t *h, uint64_t addr, uint64_t len, uint64_t *lo, uint64_t *hi)
{
    if (len == 0 || (addr >= *lo && addr < *hi && len <= *hi - addr))
        return;
    const armcii_seg_t *s =
        armcii_region_find(armcii_tp.regions, armcii_tp.rank, (uintptr_t)addr, (size_t)len);
    if (!s)
        check_range(h, addr, len); /* names it */
    *lo = s->base;
    *hi = s->base + s->size;
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

static int apply_records(const am_hdr_t *h, size_t len)
{
    const char *p = (const char *)(h + 1), *end = (const char *)h + len;
    int acc = h->kind == AM_ACCV;
    if (acc && armcii_acc_type_size(h->type) == 0)
        armcii_fatal(am_tcall, "accumulate of unknown type %d from rank %d", h->type, h->src);
    /* Check everything before touching anything. */
    uint64_t lo = 1, hi = 0; /* the segment found last */
    for (uint32_t i = 0; i < h->nblk; i++) {
        am_blk_t b;
        if ((size_t)(end - p) < sizeof(b))
            armcii_fatal(am_tcall, "malformed message from rank %d", h->src);
        memcpy(&b, p, sizeof(b));
        if (b.len > (size_t)(end - p) - sizeof(b))
            armcii_fatal(am_tcall, "malformed message from rank %d", h->src);
        check_record(h, b.addr, b.len, &lo, &hi);
        p += sizeof(b) + PAD8(b.len);
    }
    if (h->kind == AM_PUTF)
        check_range(h, h->arg[0], sizeof(int));
    int slot = armcii_tp.shm ? armcii_tp.node_rank : 0;
    if (acc)
        armcii_shm_acc_lock(am_tcall, slot);
    p = (const char *)(h + 1);
    for (uint32_t i = 0; i < h->nblk; i++) {
        am_blk_t b;
        memcpy(&b, p, sizeof(b));
        void *dst = (void *)(uintptr_t)b.addr;
        if (acc)
            armcii_acc_apply(h->type, h->scale, p + sizeof(b), dst, b.len);
        else /* where its owner reads it; a flag that follows announces it */
            put_record(dst, p + sizeof(b), b.len, h->kind == AM_PUTF);
        p += sizeof(b) + PAD8(b.len);
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
    armcii_stats.acks_sent++;
    return 1;
}

/* Pack the entries of a GETV into a reply; 0 when no bounce buffer is free yet. */
static int answer_getv(const am_hdr_t *h, size_t len)
{
    if (armcii_ofi.nbounce_free == 0)
        return 0;
    const am_blk_t *e = (const am_blk_t *)(h + 1);
    size_t total = 0;
    if (len < sizeof(*h) || h->nblk > (len - sizeof(*h)) / sizeof(*e))
        armcii_fatal(am_tcall, "malformed get request from rank %d", h->src);
    uint64_t lo = 1, hi = 0; /* the segment found last */
    for (uint32_t i = 0; i < h->nblk; i++) {
        check_record(h, e[i].addr, e[i].len, &lo, &hi);
        total += e[i].len;
    }
    if (total > armcii_ofi.bounce_size - sizeof(am_hdr_t))
        armcii_fatal(am_tcall,
                     "get request from rank %d asks for %zu bytes in one reply (more "
                     "than a bounce buffer; ARMCI_BOUNCE_SIZE must match everywhere)",
                     h->src, total);
    char *b = armcii_ofi.bounce_free[--armcii_ofi.nbounce_free];
    am_hdr_t *r = (am_hdr_t *)b;
    memset(r, 0, sizeof(*r));
    r->kind = AM_GETV_REPLY;
    r->src = armcii_tp.rank;
    r->cookie = h->cookie;
    char *d = (char *)(r + 1);
    for (uint32_t i = 0; i < h->nblk; i++) {
        if (e[i].len == 8) /* the common entry, one word, without the general copy */
            memcpy(d, (void *)(uintptr_t)e[i].addr, 8);
        else
            memcpy(d, (void *)(uintptr_t)e[i].addr, e[i].len);
        d += e[i].len;
    }
    am_send_bounce_later(h->src, b, sizeof(*r) + total);
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
    armcii_req_t *req = c->req;
    c->magic = 0;
    free(c->lptr);
    free(c);
    armcii_tp.op_done(req);
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
    armcii_req_t *req = c->req;
    c->magic = 0;
    free(c);
    armcii_tp.op_done(req);
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
