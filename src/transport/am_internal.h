/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Active messages inside the transport: the wire format, and what the engine (am.c) offers
 * the target-side handlers (am_target.c) and the origin-side message builder (am_build.c).
 */
#ifndef ARMCII_AM_INTERNAL_H
#define ARMCII_AM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "../base/token.h"

enum {
    AM_PUTV = 0x414d5001u,
    AM_ACCV,
    AM_GETV,
    AM_GETV_REPLY,
    AM_RMW,
    AM_RMW_REPLY,
    AM_ACK,
    AM_PUTF,
    AM_ACK_WANTED, /* arg[0]: acknowledge once you have applied this many of my requests */
    AM_COUNT,      /* the count (`acked`) alone */
    AM_KIND_END
};

/* The `type` of a PUTF, or of a PUTV its builder ended with armcii_amb_end_lazy: its
 * origin waits for no acknowledgement of its own (see am.c). */
#define ACK_DEFERRED 1

typedef struct {
    uint32_t kind;
    int32_t src;
    int32_t type;    /* ACCV: element type; RMW: operation */
    uint32_t nblk;   /* records / entries */
    uint32_t seq;    /* requests: the origin's count of requests to this target */
    uint32_t acked;  /* every message: the receiver's requests the sender has applied */
    uint64_t cookie; /* the origin's: request slot << 32 | generation, or a context */
    uint64_t arg[2]; /* RMW: address, operand (and comparand); PUTF: flag address, value */
    unsigned char scale[16];
} am_hdr_t;

typedef struct {
    uint64_t addr, len;
} am_blk_t;

#define PAD8(n) (((n) + 7) & ~(size_t)7)

/* A run record: n blocks of one length, their addresses as 32-bit signed offsets from
 * the first. Its am_blk_t has the first address and len = AM_RUN | n << 32 | the block
 * length; then the n offsets (padded to 8 bytes); then, in a PUTV, ACCV or PUTF, the n
 * blocks' data one after the other (padded to 8 bytes). A vector of 8-byte elements costs
 * 12 bytes an element on the wire instead of 24 (a put) or 16 (a get's entry). */
#define AM_RUN            ((uint64_t)1 << 63)
#define AM_RUN_N(len)     ((size_t)(((len) >> 32) & 0x7fffffffu))
#define AM_RUN_BLOCK(len) ((size_t)((len)&0xffffffffu))
#define AM_RUN_OFFSETS(n) PAD8((size_t)(n) * sizeof(int32_t))

/* An origin-side context named by a reply's cookie (GETV, RMW). */
#define CTX_MAGIC 0x61726d63u
typedef struct {
    uint32_t magic;
    armcii_token_t *tok;
    size_t n;   /* GETV: blocks to scatter */
    size_t cap; /* room in lptr and llen */
    char **lptr;
    size_t *llen;
    void *result; /* RMW: where the old value goes */
    size_t rsize;
} am_ctx_t;

/* ---- the engine (am.c) ---- */

/** The call a target names in its errors. */
extern const char am_tcall[];

/** Applies or answers one message. Returns 0 when it cannot yet (no bounce buffer free):
 *  the engine keeps a copy and calls it again at a later progress call. */
typedef int (*am_handler_t)(const am_hdr_t *h, size_t len);
enum {
    AM_REQUEST = 1, /* a request: applied in the order its origin sent it */
    AM_MAY_WAIT = 2 /* may return 0: queued behind messages that wait already */
};
/** At init: @p fn handles messages of @p kind. */
void am_register(uint32_t kind, am_handler_t fn, int flags);
/** The handlers of am_target.c register themselves. */
void am_target_register(void);

/** A context for a GETV or RMW request (am_build.c): one kept from an earlier request
 *  when there is one, so that a small operation allocates nothing. */
am_ctx_t *am_ctx_get(const char *call, armcii_token_t *tok);
/** A reply has been taken: @p c is kept for the next request (or freed). */
void am_ctx_release(am_ctx_t *c);
/** At finalize: the kept contexts and message builders freed. */
void am_build_fini(void);
/** A request's cookie, and back (ends the job for one that is not in flight). */
am_ctx_t *am_cookie_ctx(uint64_t cookie);

/** From a handler: a small message (an ack, a reply) copied by the provider now, or queued. */
void am_send_small(int to, am_hdr_t *msg, size_t len);
/** From a handler: bounce buffer @p b sent now or after the queued ones; it returns to the
 *  pool when the send completes. */
void am_send_bounce_later(int to, void *b, size_t len);
/** Origin: request @p b (a bounce buffer, @p len bytes) of @p tok to @p target, numbered in
 *  its order; a flagged put's acknowledgement deferred where it may be. @p what names the
 *  operation in errors. */
void am_send_request(const char *call, const char *what, armcii_token_t *tok, int target, void *b,
                     size_t len);

#endif
