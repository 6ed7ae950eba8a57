/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the transport knows of a request: its completion token. The core makes one inside
 * each request (pool.h); the transport counts on it each operation it posts
 * (armcii_token_posted), names it in a message by its cookie, and hands it back through
 * its host (host.h) when an operation completes. Nothing else of the request is the
 * transport's to read.
 */
#ifndef ARMCII_TOKEN_H
#define ARMCII_TOKEN_H

#include <stdint.h>

typedef struct armcii_token {
    uint32_t gen; /* the slot's generation: bumped whenever the request is released */
    int index;    /* the request's slot, below the host's max_requests */
    int pending;  /* operations posted and not yet completed */
} armcii_token_t;

/** One more operation of @p t is posted (the host's op_done completes it). */
static inline void armcii_token_posted(armcii_token_t *t)
{
    t->pending++;
}

/** A 64-bit name of @p t in flight, which a reply carries back (the host's of_cookie). */
static inline uint64_t armcii_token_cookie(const armcii_token_t *t)
{
    return ((uint64_t)(uint32_t)t->index << 32) | t->gen;
}

#endif
