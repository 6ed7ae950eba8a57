/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Deferred acknowledgements of flagged puts (see am.c): the bookkeeping of both sides,
 * without the sending, so that it can be tested by itself.
 *
 * Target side: an origin may ask to be told once its requests up to some count have been
 * applied here; the count is due when they have. Origin side: the flagged puts to each
 * target whose acknowledgement is deferred, oldest first, each with its message's
 * sequence number; a count from the target completes those it covers. The lists are
 * linked through a table of the transport's own, one entry per request slot (tok->index).
 */
#ifndef ARMCII_AM_ACKS_H
#define ARMCII_AM_ACKS_H

#include <stdint.h>

#include "../base/token.h"

/* Both sides' state for one other process, together. */
typedef struct {
    uint32_t want;        /* as its target: send the count once its applied requests reach this */
    uint32_t asked;       /* as its origin: the count last asked of it */
    int wanted;           /* want is set */
    armcii_token_t *head; /* as its origin: deferred flagged puts to it, oldest first */
    armcii_token_t *tail;
} am_acks_peer_t;

/* A deferred put's place in its target's list. */
typedef struct {
    armcii_token_t *next;
    uint32_t seq; /* its message's sequence number */
} am_acks_link_t;

typedef struct {
    int n;
    am_acks_peer_t *peer; /* every process */
    int nlinks;
    am_acks_link_t *link; /* by request slot */
} am_acks_t;

/** Sequence numbers wrap: has @p a reached @p b? */
static inline int am_reached(uint32_t a, uint32_t b)
{
    return (int32_t)(a - b) >= 0;
}

/** For @p n processes and requests of index below @p nlinks; 0, or -1 when out of memory. */
int am_acks_init(am_acks_t *a, int n, int nlinks);
/** Bytes it holds. */
size_t am_acks_bytes(const am_acks_t *a);
void am_acks_fini(am_acks_t *a);

/** Target: origin @p src asks for the count once @p upto of its requests are applied, of
 *  which @p applied are. 1: the count is due now; 0: it is remembered (the later of two
 *  asks wins). */
int am_acks_asked(am_acks_t *a, int src, uint32_t applied, uint32_t upto);
/** Target: after applying requests of @p src, @p applied in all. 1 when a count it asked
 *  for became due (the ask is then forgotten). */
int am_acks_due(am_acks_t *a, int src, uint32_t applied);

/** Origin: flagged put @p r, message number @p seq to @p target, awaits the target's count. */
void am_acks_defer(am_acks_t *a, int target, armcii_token_t *r, uint32_t seq);
/** Origin: @p target has applied @p acked of our requests: takes off the deferred puts
 *  that covers, oldest first, and calls @p done for each. Returns how many. */
int am_acks_took(am_acks_t *a, int target, uint32_t acked, void (*done)(armcii_token_t *));
/** Origin: 1 and in @p upto_p the count to ask @p target for, to complete every deferred
 *  put to it; 0 when none is deferred or that count was asked already (the answer is on
 *  its way). */
int am_acks_to_ask(am_acks_t *a, int target, uint32_t *upto_p);

#endif
