/* SPDX-License-Identifier: BSD-3-Clause */
/* Deferred acknowledgements of flagged puts: the bookkeeping (see am_acks.h). */
#include <stdlib.h>
#include <string.h>

#include "am_acks.h"
#include "../base/invariant.h"
#include "../base/token.h"

int am_acks_init(am_acks_t *a, int n, int nlinks)
{
    memset(a, 0, sizeof(*a));
    a->n = n;
    a->nlinks = nlinks;
    a->peer = calloc((size_t)n, sizeof(am_acks_peer_t));
    a->link = calloc((size_t)nlinks, sizeof(am_acks_link_t));
    return a->peer && a->link ? 0 : -1;
}

void am_acks_fini(am_acks_t *a)
{
    free(a->peer);
    free(a->link);
    memset(a, 0, sizeof(*a));
}

size_t am_acks_bytes(const am_acks_t *a)
{
    return (size_t)a->n * sizeof(am_acks_peer_t) + (size_t)a->nlinks * sizeof(am_acks_link_t);
}

int am_acks_asked(am_acks_t *a, int src, uint32_t applied, uint32_t upto)
{
    if (am_reached(applied, upto))
        return 1;
    if (!a->peer[src].wanted || !am_reached(a->peer[src].want, upto))
        a->peer[src].want = upto;
    a->peer[src].wanted = 1;
    return 0;
}

int am_acks_due(am_acks_t *a, int src, uint32_t applied)
{
    if (!a->peer[src].wanted || !am_reached(applied, a->peer[src].want))
        return 0;
    a->peer[src].wanted = 0;
    return 1;
}

void am_acks_defer(am_acks_t *a, int target, armcii_token_t *r, uint32_t seq)
{
    ARMCII_INVARIANT(r->index >= 0 && r->index < a->nlinks, "request slot %d outside the %d links",
                     r->index, a->nlinks);
    a->link[r->index] = (am_acks_link_t){.next = NULL, .seq = seq};
    if (a->peer[target].tail)
        a->link[a->peer[target].tail->index].next = r;
    else
        a->peer[target].head = r;
    a->peer[target].tail = r;
}

int am_acks_took(am_acks_t *a, int target, uint32_t acked, void (*done)(armcii_token_t *))
{
    int n = 0;
    armcii_token_t *r;
    /* message number s is applied once the count exceeds it */
    while ((r = a->peer[target].head) && !am_reached(a->link[r->index].seq, acked)) {
        a->peer[target].head = a->link[r->index].next;
        if (!a->peer[target].head)
            a->peer[target].tail = NULL;
        done(r);
        n++;
    }
    return n;
}

int am_acks_to_ask(am_acks_t *a, int target, uint32_t *upto_p)
{
    armcii_token_t *last = a->peer[target].tail;
    if (!last)
        return 0;
    uint32_t upto = a->link[last->index].seq + 1;
    if (am_reached(a->peer[target].asked, upto))
        return 0;
    a->peer[target].asked = upto;
    *upto_p = upto;
    return 1;
}
