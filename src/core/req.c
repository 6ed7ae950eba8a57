/*
 * The life of a request: made (armcii_req_new), its transport operations issued and
 * completed (armcii_req_issued, armcii_req_op_done), found again from a reply's cookie,
 * marked copied, bound to the caller's handle, and released when its last operation
 * completes. Waiting for one is progress.c's; the pool it lives in, pool.h (inline).
 */
#include <stdlib.h>

#include "armcii.h"
#include "../transport/transport.h"
#include "invariant.h"

static void release(armcii_req_t *req)
{
    int t = req->target;
    switch ((armcii_req_kind_t)req->kind) {
    case ARMCII_REQ_PUT:
    case ARMCII_REQ_ACC_HW:
        armcii_g.peers[t].out_write--;
        break;
    case ARMCII_REQ_AM:
        armcii_g.peers[t].out_sw--;
        break;
    case ARMCII_REQ_GET:
        break;
    }
    if (req->implicit) {
        armcii_g.peers[t].out_implicit--;
        armcii_g.implicit_total--;
    }
    if (req->copied)
        armcii_g.ncopied--;
    if (req->on_release)
        req->on_release(req->scratch);
    if (req->scratch) { /* most requests own none: no call on their way out */
        free(req->scratch);
        req->scratch = NULL;
    }
    armcii_pool_release(&armcii_g.pool, req);
}

void armcii_hdl_check_free(const char *call, const armci_hdl_t *h)
{
    const armcii_req_t *old = armcii_pool_bound(&armcii_g.pool, h);
    if (!old)
        return;
    static const char *const kinds[] = {"a get from", "a put to", "a message to",
                                        "an accumulate to"};
    armcii_fatal(call,
                 "handle %p still names an operation in flight (%s rank %d): a handle takes "
                 "one operation at a time; wait for it (ARMCI_Wait, or ARMCI_Test until done) "
                 "before issuing another",
                 (const void *)h, kinds[old->kind & 3], old->target);
}

void armcii_hdl_bind(const char *call, armci_hdl_t *h, armcii_req_t *req)
{
    if (!h)
        return;
    armcii_hdl_check_free(call, h);
    armcii_pool_bind(&armcii_g.pool, req, h);
    armcii_hdl_set(h, req->index, req->gen, 0);
}

void armcii_req_op_done(armcii_req_t *req)
{
    ARMCII_INVARIANT(req->pending > 0,
                     "request %d (kind %d, target %d) completes more operations than it posted",
                     req->index, req->kind, req->target);
    if (--req->pending == 0)
        release(req);
}

/* The issuer holds one count of `pending` from armcii_req_new to here, so that replies
 * to the first messages cannot complete a request whose later messages are still being
 * built (a builder that waits for a free bounce buffer drives progress). */
void armcii_req_issued(armcii_req_t *req)
{
    armcii_req_op_done(req);
}

void armcii_req_copied(armcii_req_t *req)
{
    if (!req->copied) {
        req->copied = 1;
        armcii_g.ncopied++;
    }
}

armcii_req_t *armcii_req_of_cookie(uint64_t cookie)
{
    uint32_t slot = (uint32_t)(cookie >> 32), gen = (uint32_t)cookie;
    if (slot >= (uint32_t)armcii_g.pool.nslots)
        armcii_fatal("armci progress", "reply for request slot %u, beyond the pool", slot);
    armcii_req_t *req = &armcii_g.pool.slots[slot];
    if (!req->in_use || req->gen != gen)
        armcii_fatal("armci progress",
                     "reply for a request that is not in flight (slot %u, generation %u)", slot,
                     gen);
    return req;
}

void armcii_req_finish(const char *call, armcii_req_t *req, int blocking, int wait, size_t bytes)
{
    if (blocking && !wait) /* a deferred flagged put is, once sent */
        armcii_req_copied(req);
    armcii_req_issued(req);
    if (wait)
        armcii_req_wait(call, req);
    else if (!blocking)
        armcii_progress_kick(bytes);
}

armcii_req_t *armcii_req_new(const char *call, armcii_req_kind_t kind, int target, int implicit)
{
    armcii_req_t *req = armcii_pool_take(&armcii_g.pool);
    if (!req) {
        /* Pool full: complete the oldest request transparently. Its handle, if it has
         * one, then reads as completed. */
        armcii_req_wait(call, armcii_g.pool.oldest);
        req = armcii_pool_take(&armcii_g.pool);
    }
    req->pending = 1; /* the issuer's, until armcii_req_issued */
    req->kind = (uint8_t)kind;
    req->target = target;
    req->implicit = (uint8_t)implicit;
    switch (kind) {
    case ARMCII_REQ_PUT:
    case ARMCII_REQ_ACC_HW:
        armcii_g.peers[target].out_write++;
        break;
    case ARMCII_REQ_AM:
        armcii_g.peers[target].out_sw++;
        break;
    case ARMCII_REQ_GET:
        break;
    }
    if (implicit) {
        armcii_g.peers[target].out_implicit++;
        armcii_g.implicit_total++;
    }
    return req;
}
