/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ARMCI's ordering promises and fences: what a blocking operation waits for before it
 * goes (armcii_order_before), what a load/store on our own memory waits for, and the
 * fences of one target and of all, each ending with the transport's flush read where
 * writes may not have landed yet. Above the waits (progress.c) and requests (req.c),
 * which it calls; nothing below calls it.
 */
#include <stdlib.h>

#include "order.h"
#include "progress.h"
#include "req.h"
#include "issue.h"
#include "runtime.h"
#include "../base/common.h"
#include "../base/pool.h"
#include "../transport/transport.h"

/* Make earlier writes to @p target remotely complete: the transport posts a read that
 * returns once they have landed. Returns its request, or NULL when none is needed. */
static armcii_req_t *flush_start(const char *call, int target)
{
    if (!armcii_net_unflushed(target))
        return NULL;
    armcii_req_t *req = armcii_req_new(call, ARMCII_REQ_GET, target, 0);
    armcii_net_flush(call, &req->tok, target);
    armcii_req_issued(req);
    return req;
}

static void flush(const char *call, int target)
{
    armcii_req_t *req = flush_start(call, target);
    if (req)
        armcii_req_wait(call, req);
}

/* Every target's flush, the reads in flight together. A request slot may be reused once
 * its read completed, so each is waited on by the generation it had when issued. */
static struct {
    armcii_req_t **req;
    uint32_t *gen;
} flushes;

static void flush_all(const char *call)
{
    if (!flushes.req) {
        flushes.req = malloc((size_t)armcii_rt.nproc * sizeof(*flushes.req));
        flushes.gen = malloc((size_t)armcii_rt.nproc * sizeof(*flushes.gen));
        if (!flushes.req || !flushes.gen)
            armcii_fatal(call, "out of memory for %d flush requests", armcii_rt.nproc);
    }
    int n = 0;
    for (int t = 0; t < armcii_rt.nproc; t++) {
        armcii_req_t *req = flush_start(call, t);
        if (!req)
            continue;
        flushes.req[n] = req;
        flushes.gen[n++] = req->tok.gen;
    }
    for (int i = 0; i < n; i++)
        armcii_req_wait_gen(call, flushes.req[i], flushes.gen[i]);
}

void armcii_flush_fini(void)
{
    free(flushes.req);
    free(flushes.gen);
    flushes.req = NULL;
    flushes.gen = NULL;
}

void armcii_order_before(const char *call, armcii_req_kind_t kind, int target)
{
    /* Messages are applied by the target's handler at some later progress call, so no
     * write or read the transport orders can safely overtake them: wait for their
     * acknowledgements before any other kind of operation. Messages after messages need
     * not wait: the target applies one origin's messages in the order they were sent. */
    if (armcii_reqs.peers[target].out_sw > 0 && kind != ARMCII_REQ_AM)
        armcii_wait_zero(call, &armcii_reqs.peers[target].out_sw, target);
    if (armcii_reqs.peers[target].out_write == 0)
        return;
    int ordered;
    switch (kind) {
    case ARMCII_REQ_GET:
        ordered = armcii_rt.caps.order_raw;
        break;
    case ARMCII_REQ_PUT:
    case ARMCII_REQ_ACC_HW:
        ordered = armcii_rt.caps.order_waw;
        break;
    default: /* a message after writes: the handler must see them landed */
        ordered = 0;
        break;
    }
    if (!ordered) {
        armcii_wait_zero(call, &armcii_reqs.peers[target].out_write, target);
        flush(call, target);
    }
}

void armcii_order_all_before(const char *call, int target)
{
    armcii_wait_zero(call, &armcii_reqs.peers[target].out_write, target);
    armcii_wait_zero(call, &armcii_reqs.peers[target].out_sw, target);
    if (armcii_rt.fabric)
        flush(call, target);
}

void armcii_order_local(const char *call, int target)
{
    /* Only accumulates through libfabric atomics can be in flight to oneself or a node
     * peer (they take that path to stay atomic with remote peers' atomics); a copy must
     * not pass them. */
    if (armcii_reqs.peers[target].out_write > 0 || armcii_reqs.peers[target].out_sw > 0)
        armcii_fence(call, target);
}

/* What a fence must issue before it waits: aggregate handles' collected operations, which
 * count as issued (src/agg registers it at init). */
static void (*before_fence)(const char *call, int target);

void armcii_fence_hook(void (*fn)(const char *call, int target))
{
    before_fence = fn;
}

void armcii_fence(const char *call, int target)
{
    armcii_datagrams_before(call, target);
    if (before_fence)
        before_fence(call, target);
    armcii_order_all_before(call, target);
}

/* The fence of every target, with the flush reads of all targets in flight together:
 * one round trip instead of one per target. */
void armcii_fence_all(const char *call)
{
    armcii_datagrams_before(call, -1);
    for (int p = 0; p < armcii_rt.nproc; p++) {
        if (before_fence)
            before_fence(call, p);
        armcii_wait_zero(call, &armcii_reqs.peers[p].out_write, p);
        armcii_wait_zero(call, &armcii_reqs.peers[p].out_sw, p);
    }
    if (armcii_rt.fabric)
        flush_all(call);
}
