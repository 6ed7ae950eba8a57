/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Active messages, origin side: the builder that packs the blocks of one operation to one
 * target into as few messages as bounce buffers allow (put and accumulate records with
 * their data, get entries whose reply is scattered by a context), and read-modify-write
 * requests. The engine (am.c) numbers and sends them.
 */
#include <stdlib.h>
#include <string.h>

#include "am_internal.h"
#include "host.h"
#include "ofi_internal.h"
#include "transport.h"
#include "../base/acc.h"
#include "../base/common.h"
#include "../base/op.h"
#include "../base/token.h"

struct armcii_amb {
    const char *call;
    uint32_t kind;
    int target, type;
    size_t esize;
    unsigned char scale[16];
    armcii_token_t *tok;
    char *buf;     /* bounce buffer being filled, or NULL */
    size_t used;   /* bytes of buf in use */
    size_t reply;  /* GETV: bytes the reply will carry */
    am_ctx_t *ctx; /* GETV: the blocks to scatter */
};

static size_t room(void)
{
    return armcii_ofi_post.bounce_size;
}

/* Contexts of replies taken, kept with their scatter lists for the next requests (up to
 * CTX_KEEP of them, with lists of up to CTX_KEEP_BLOCKS blocks: 64 KiB each, 2 MiB in all
 * at most; a longer list, rare since close blocks are read as their span, is freed). */
#define CTX_KEEP        32
#define CTX_KEEP_BLOCKS 4096
#define CTX_FIRST_CAP   64

static am_ctx_t *ctx_kept[CTX_KEEP];
static int nctx_kept;

/* Room in @p c's scatter list for @p cap blocks, its first @p n kept. */
static void ctx_grow(const char *call, am_ctx_t *c, size_t cap, size_t n)
{
    char **np = malloc(cap * (sizeof(char *) + sizeof(size_t)));
    if (!np)
        armcii_fatal(call, "out of memory");
    size_t *nl = (size_t *)(np + cap);
    if (n > 0) {
        memcpy(np, c->lptr, n * sizeof(char *));
        memcpy(nl, c->llen, n * sizeof(size_t));
    }
    free(c->lptr);
    c->lptr = np;
    c->llen = nl;
    c->cap = cap;
}

am_ctx_t *am_ctx_get(const char *call, armcii_token_t *tok)
{
    am_ctx_t *c = nctx_kept > 0 ? ctx_kept[--nctx_kept] : calloc(1, sizeof(*c));
    if (!c)
        armcii_fatal(call, "out of memory");
    if (c->cap == 0)
        ctx_grow(call, c, CTX_FIRST_CAP, 0);
    c->magic = CTX_MAGIC;
    c->tok = tok;
    c->n = 0;
    c->result = NULL;
    c->rsize = 0;
    return c;
}

void am_ctx_release(am_ctx_t *c)
{
    c->magic = 0; /* a second reply naming it is recognised */
    if (nctx_kept < CTX_KEEP && c->cap <= CTX_KEEP_BLOCKS) {
        ctx_kept[nctx_kept++] = c;
        return;
    }
    free(c->lptr);
    free(c);
}

/* Builders ended, kept for the next operations (an open message holds one meanwhile). */
#define BUILDERS_KEEP 8

static armcii_amb_t *builders_kept[BUILDERS_KEEP];
static int nbuilders_kept;

void am_build_fini(void)
{
    while (nbuilders_kept > 0)
        free(builders_kept[--nbuilders_kept]);
    while (nctx_kept > 0) {
        am_ctx_t *c = ctx_kept[--nctx_kept];
        free(c->lptr);
        free(c);
    }
}

static void amb_open(armcii_amb_t *b)
{
    b->buf = armcii_ofi_bounce_get(b->call);
    am_hdr_t *h = (am_hdr_t *)b->buf;
    memset(h, 0, sizeof(*h));
    h->kind = b->kind;
    h->src = armcii_tp.rank;
    h->type = b->type;
    memcpy(h->scale, b->scale, sizeof(h->scale));
    b->used = sizeof(*h);
    b->reply = 0;
    if (b->kind == AM_GETV) {
        b->ctx = am_ctx_get(b->call, b->tok);
        h->cookie = (uint64_t)(uintptr_t)b->ctx;
    } else {
        h->cookie = armcii_token_cookie(b->tok);
    }
}

/* Send what has been built; the request then awaits one ack or reply for it. */
static void amb_send(armcii_amb_t *b)
{
    if (!b->buf)
        return;
    am_send_request(b->call, "fi_send", b->tok, b->target, b->buf, b->used);
    b->buf = NULL;
    b->ctx = NULL;
}

armcii_amb_t *armcii_amb_begin(const char *call, armcii_token_t *tok, armcii_op_t what, int type,
                               const void *scale, int target)
{
    armcii_amb_t *b = nbuilders_kept > 0 ? builders_kept[--nbuilders_kept] : malloc(sizeof(*b));
    if (!b)
        armcii_fatal(call, "out of memory");
    memset(b, 0, sizeof(*b));
    b->call = call;
    b->kind = what == ARMCII_OP_PUT ? AM_PUTV : what == ARMCII_OP_ACC ? AM_ACCV : AM_GETV;
    b->type = type;
    b->esize = what == ARMCII_OP_ACC ? armcii_acc_type_size(type) : 1;
    if (what == ARMCII_OP_ACC)
        memcpy(b->scale, scale, b->esize);
    b->target = target;
    b->tok = tok;
    return b;
}

/* Room in a GETV's scatter list for @p n more blocks. */
static void getv_reserve(armcii_amb_t *b, size_t n)
{
    am_ctx_t *c = b->ctx;
    if (c->n + n <= c->cap)
        return;
    size_t cap = 2 * c->cap;
    while (cap < c->n + n)
        cap *= 2;
    ctx_grow(b->call, c, cap, c->n);
}

/* Whether a block of @p len bytes goes into the open buffer whole, as one record. */
static int fits_whole(const armcii_amb_t *b, size_t len)
{
    if (len == 0 || len > 64)
        return 0;
    if (b->kind == AM_GETV)
        return b->used + sizeof(am_blk_t) <= room() && b->reply + len <= room() - sizeof(am_hdr_t);
    return b->used + sizeof(am_blk_t) + PAD8(len) <= room();
}

/* One record of a block that fits whole: a put's or accumulate's with its data (the
 * padding of its last word zeroed), a get's entry with its place in the scatter list. */
static inline void add_whole(armcii_amb_t *b, char *local, uint64_t remote, size_t len)
{
    char *p = b->buf + b->used;
    am_blk_t r = {remote, len};
    memcpy(p, &r, sizeof(r));
    if (b->kind == AM_GETV) {
        am_ctx_t *c = b->ctx;
        c->lptr[c->n] = local;
        c->llen[c->n++] = len;
        b->used += sizeof(r);
        b->reply += len;
    } else {
        memset(p + sizeof(r) + PAD8(len) - 8, 0, 8);
        if (len == 8)
            memcpy(p + sizeof(r), local, 8);
        else
            memcpy(p + sizeof(r), local, len);
        b->used += sizeof(r) + PAD8(len);
    }
}

/* How many blocks of @p len bytes a run fits in the room left (an even number of offsets
 * for a get, so that they need no padding; the paddings bounded for a put). */
static size_t run_fit(const armcii_amb_t *b, size_t len)
{
    size_t avail = room() - b->used;
    if (avail < sizeof(am_blk_t) + 16)
        return 0;
    avail -= sizeof(am_blk_t);
    if (b->kind == AM_GETV) {
        size_t m = (avail / sizeof(int32_t)) & ~(size_t)1;
        size_t data = (room() - sizeof(am_hdr_t) - b->reply) / len;
        return m < data ? m : data;
    }
    return (avail - 14) / (sizeof(int32_t) + len); /* 4m + 4 + m len + 7 <= avail - 3 */
}

size_t armcii_amb_add_run(armcii_amb_t *b, char *const *local, char *const *remote, size_t n,
                          size_t len)
{
    if (!b->buf || !fits_whole(b, len))
        return 0;
    size_t m = run_fit(b, len);
    m = n < m ? n : m;
    /* The offsets written as far as they fit in 32 bits: the run ends before the first
     * block that does not. */
    char *p = b->buf + b->used;
    uintptr_t base = (uintptr_t)remote[0];
    char *off = p + sizeof(am_blk_t);
    size_t k = 0;
    for (; k < m; k++) {
        intptr_t d = (intptr_t)((uintptr_t)remote[k] - base);
        if (d != (int32_t)d)
            break;
        int32_t d32 = (int32_t)d;
        memcpy(off + k * sizeof(d32), &d32, sizeof(d32));
    }
    m = k;
    if (m < 2) { /* one record of the usual kind */
        if (b->kind == AM_GETV)
            getv_reserve(b, 1);
        add_whole(b, local[0], (uint64_t)(uintptr_t)remote[0], len);
        ((am_hdr_t *)b->buf)->nblk++;
        return 1;
    }
    am_blk_t r = {base, AM_RUN | (uint64_t)m << 32 | len};
    memcpy(p, &r, sizeof(r));
    if (m & 1)
        memset(off + m * sizeof(int32_t), 0, sizeof(int32_t));
    size_t used = sizeof(r) + AM_RUN_OFFSETS(m);
    if (b->kind == AM_GETV) {
        getv_reserve(b, m);
        am_ctx_t *c = b->ctx;
        for (size_t k = 0; k < m; k++) {
            c->lptr[c->n + k] = local[k];
            c->llen[c->n + k] = len;
        }
        c->n += m;
        b->reply += m * len;
    } else { /* the data, packed */
        char *d = p + used;
        if (len == 8)
            for (size_t k = 0; k < m; k++)
                memcpy(d + 8 * k, local[k], 8);
        else
            for (size_t k = 0; k < m; k++)
                memcpy(d + k * len, local[k], len);
        size_t data = m * len;
        memset(d + data, 0, PAD8(data) - data);
        used += PAD8(data);
    }
    b->used += used;
    ((am_hdr_t *)b->buf)->nblk++;
    return m;
}

void armcii_amb_add(armcii_amb_t *b, char *local, uint64_t remote, size_t len)
{
    /* The common record, a few words into an open buffer with room, without the general
     * loop (vector calls of single elements add one per element). */
    if (b->buf && fits_whole(b, len)) {
        if (b->kind == AM_GETV)
            getv_reserve(b, 1);
        add_whole(b, local, remote, len);
        ((am_hdr_t *)b->buf)->nblk++;
        return;
    }
    while (len > 0) {
        if (!b->buf)
            amb_open(b);
        am_hdr_t *h = (am_hdr_t *)b->buf;
        size_t piece;
        if (b->kind == AM_GETV) {
            size_t data_room = room() - sizeof(am_hdr_t) - b->reply;
            piece = len < data_room ? len : data_room;
            if (b->used + sizeof(am_blk_t) > room() || piece == 0) {
                amb_send(b);
                continue;
            }
            am_blk_t e = {remote, piece};
            memcpy(b->buf + b->used, &e, sizeof(e));
            b->used += sizeof(e);
            b->reply += piece;
            getv_reserve(b, 1);
            am_ctx_t *c = b->ctx;
            c->lptr[c->n] = local;
            c->llen[c->n++] = piece;
        } else {
            size_t avail = room() - b->used;
            if (avail < sizeof(am_blk_t) + b->esize) {
                amb_send(b);
                continue;
            }
            avail -= sizeof(am_blk_t);
            piece = len < avail ? len : avail / b->esize * b->esize;
            am_blk_t r = {remote, piece};
            memcpy(b->buf + b->used, &r, sizeof(r));
            memcpy(b->buf + b->used + sizeof(r), local, piece);
            /* records start 8-aligned; the padding is zeroed, not sent as stale bytes
             * (and the padding of the last record may be cut) */
            size_t data_end = b->used + sizeof(r) + piece, end = b->used + sizeof(r) + PAD8(piece);
            if (end > room())
                end = room();
            memset(b->buf + data_end, 0, end - data_end);
            b->used = end;
        }
        h->nblk++;
        local += piece;
        remote += piece;
        len -= piece;
    }
}

void armcii_amb_end(armcii_amb_t *b)
{
    amb_send(b);
    if (nbuilders_kept < BUILDERS_KEEP)
        builders_kept[nbuilders_kept++] = b;
    else
        free(b);
}

void armcii_amb_end_lazy(armcii_amb_t *b)
{
    if (b->buf && b->kind == AM_PUTV)
        ((am_hdr_t *)b->buf)->type = ACK_DEFERRED; /* am_send_request decides */
    armcii_amb_end(b);
}

void armcii_amb_end_flag(armcii_amb_t *b, uint64_t flag, int value)
{
    if (!b->buf)
        amb_open(b); /* nothing left unsent (or no data at all): the flag goes alone */
    am_hdr_t *h = (am_hdr_t *)b->buf;
    h->kind = AM_PUTF;
    h->arg[0] = flag;
    h->arg[1] = (uint64_t)(int64_t)value;
    armcii_amb_end(b);
}

void armcii_am_rmw(const char *call, armcii_token_t *tok, int op, void *result, size_t rsize,
                   int target, uint64_t addr, uint64_t operand, uint64_t comparand)
{
    am_ctx_t *c = am_ctx_get(call, tok);
    c->result = result;
    c->rsize = rsize;
    char *b = armcii_ofi_bounce_get(call);
    am_hdr_t *h = (am_hdr_t *)b;
    memset(h, 0, sizeof(*h));
    h->kind = AM_RMW;
    h->src = armcii_tp.rank;
    h->type = op;
    h->cookie = (uint64_t)(uintptr_t)c;
    h->arg[0] = addr;
    h->arg[1] = operand;
    memcpy(h->scale, &comparand, sizeof(comparand));
    am_send_request(call, "fi_send (read-modify-write)", tok, target, b, sizeof(*h));
}
