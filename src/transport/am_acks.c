/* Deferred acknowledgements of flagged puts: the bookkeeping (see am_acks.h). */
#include <stdlib.h>
#include <string.h>

#include "am_acks.h"

int am_acks_init(am_acks_t *a, int n)
{
    memset(a, 0, sizeof(*a));
    a->n = n;
    a->want = calloc((size_t)n, sizeof(uint32_t));
    a->wanted = calloc((size_t)n, 1);
    a->asked = calloc((size_t)n, sizeof(uint32_t));
    a->head = calloc((size_t)n, sizeof(armcii_req_t *));
    a->tail = calloc((size_t)n, sizeof(armcii_req_t *));
    if (!a->want || !a->wanted || !a->asked || !a->head || !a->tail) {
        am_acks_fini(a);
        return -1;
    }
    return 0;
}

void am_acks_fini(am_acks_t *a)
{
    free(a->want);
    free(a->wanted);
    free(a->asked);
    free(a->head);
    free(a->tail);
    memset(a, 0, sizeof(*a));
}

int am_acks_asked(am_acks_t *a, int src, uint32_t applied, uint32_t upto)
{
    if (am_reached(applied, upto))
        return 1;
    if (!a->wanted[src] || !am_reached(a->want[src], upto))
        a->want[src] = upto;
    a->wanted[src] = 1;
    return 0;
}

int am_acks_due(am_acks_t *a, int src, uint32_t applied)
{
    if (!a->wanted[src] || !am_reached(applied, a->want[src]))
        return 0;
    a->wanted[src] = 0;
    return 1;
}

void am_acks_defer(am_acks_t *a, int target, armcii_req_t *r, uint32_t seq)
{
    r->next_flagged = NULL;
    r->flagged_seq = seq;
    if (a->tail[target])
        a->tail[target]->next_flagged = r;
    else
        a->head[target] = r;
    a->tail[target] = r;
}

int am_acks_took(am_acks_t *a, int target, uint32_t acked, void (*done)(armcii_req_t *))
{
    int n = 0;
    armcii_req_t *r;
    /* message number s is applied once the count exceeds it */
    while ((r = a->head[target]) && !am_reached(r->flagged_seq, acked)) {
        a->head[target] = r->next_flagged;
        if (!a->head[target])
            a->tail[target] = NULL;
        done(r);
        n++;
    }
    return n;
}

int am_acks_to_ask(am_acks_t *a, int target, uint32_t *upto_p)
{
    armcii_req_t *last = a->tail[target];
    if (!last)
        return 0;
    uint32_t upto = last->flagged_seq + 1;
    if (am_reached(a->asked[target], upto))
        return 0;
    a->asked[target] = upto;
    *upto_p = upto;
    return 1;
}
