/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The life of a request: made (armcii_req_take; issue.c waits for a slot), its transport operations
 * issued and completed (armcii_req_issued, armcii_req_op_done), found again from a reply's cookie,
 * marked copied, bound to the caller's handle, and released when its last operation
 * completes. Waiting for one is progress.c's; the pool it lives in, pool.h (inline).
 * What is in flight to each process is counted in the table of processes, which is made
 * here too, from what topo.c found.
 */
#include <stdlib.h>
#include <string.h>

#include "req.h"
#include "runtime.h"
#include "topo.h"
#include "../base/common.h"
#include "../base/invariant.h"
#include "../base/pool.h"
#include "../base/select.h"
#include "../base/token.h"

armcii_reqs_t armcii_reqs;

armcii_status_t armcii_peers_init(const int *node, const int *node_rank)
{
    int P = armcii_rt.nproc;
    size_t len = ((size_t)P * sizeof(armcii_peer_t) + 63) & ~(size_t)63;
    armcii_peer_t *peers = aligned_alloc(64, len); /* no entry across two cache lines */
    if (!peers)
        return ARMCII_ENOMEM;
    memset(peers, 0, len);
    for (int r = 0; r < P; r++) {
        peers[r].node = node[r];
        peers[r].node_rank = node_rank[r];
        peers[r].path = r == armcii_rt.rank                               ? ARMCII_PATH_SELF
                        : armcii_rt.shm && node[r] == armcii_topo.node_id ? ARMCII_PATH_SHM
                                                                          : ARMCII_PATH_FABRIC;
    }
    armcii_reqs.peers = peers;
    return ARMCII_OK;
}

int armcii_req_init(void)
{
    return armcii_pool_init(&armcii_reqs.pool, (int)armcii_rt.env.MAX_REQUESTS);
}

void armcii_req_fini(void)
{
    armcii_pool_fini(&armcii_reqs.pool);
    free(armcii_reqs.peers);
    armcii_reqs.peers = NULL;
}

static void release(armcii_req_t *req)
{
    int t = req->target;
    switch ((armcii_req_kind_t)req->kind) {
    case ARMCII_REQ_PUT:
    case ARMCII_REQ_ACC_HW:
        armcii_reqs.peers[t].out_write--;
        break;
    case ARMCII_REQ_AM:
        armcii_reqs.peers[t].out_sw--;
        break;
    case ARMCII_REQ_GET:
        break;
    }
    if (req->implicit) {
        armcii_reqs.peers[t].out_implicit--;
        armcii_reqs.implicit_total--;
    }
    if (req->copied)
        armcii_reqs.ncopied--;
    if (req->on_release)
        req->on_release(req->scratch);
    if (req->scratch) { /* most requests own none: no call on their way out */
        free(req->scratch);
        req->scratch = NULL;
    }
    armcii_pool_release(&armcii_reqs.pool, req);
}

void armcii_hdl_check_free(const char *call, const armci_hdl_t *h)
{
    const armcii_req_t *old = armcii_pool_bound(&armcii_reqs.pool, h);
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

armcii_req_t *armcii_req_of_handle(const char *call, const armci_hdl_t *h, armcii_hdl_state_t *st_p)
{
    if (h == NULL)
        armcii_fatal(call, "handle is NULL");
    armcii_req_t *req = NULL;
    armcii_hdl_state_t st = armcii_hdl_state(&armcii_reqs.pool, h, &req);
    if (st == ARMCII_HDL_BAD)
        armcii_fatal(call,
                     "handle %p (contents %d, 0x%08x) was neither initialised with "
                     "ARMCI_INIT_HANDLE nor returned by a nonblocking call",
                     (const void *)h, h->slot, (unsigned)h->tag);
    *st_p = st;
    return st == ARMCII_HDL_ACTIVE ? req : NULL;
}

void armcii_hdl_bind(const char *call, armci_hdl_t *h, armcii_req_t *req)
{
    if (!h)
        return;
    armcii_hdl_check_free(call, h);
    armcii_pool_bind(&armcii_reqs.pool, req, h);
    armcii_hdl_set(h, req->tok.index, req->tok.gen, 0);
}

void armcii_req_op_done(armcii_token_t *tok)
{
    armcii_req_t *req = armcii_req_of_token(tok);
    ARMCII_INVARIANT(req->tok.pending > 0,
                     "request %d (kind %d, target %d) completes more operations than it posted",
                     req->tok.index, req->kind, req->target);
    if (--req->tok.pending == 0)
        release(req);
}

/* The issuer holds one count of `pending` from armcii_req_new to here, so that replies
 * to the first messages cannot complete a request whose later messages are still being
 * built (a builder that waits for a free bounce buffer drives progress). */
void armcii_req_issued(armcii_req_t *req)
{
    armcii_req_op_done(&req->tok);
}

void armcii_req_copied(armcii_token_t *tok)
{
    armcii_req_t *req = armcii_req_of_token(tok);
    if (!req->copied) {
        req->copied = 1;
        armcii_reqs.ncopied++;
    }
}

armcii_token_t *armcii_req_of_cookie(uint64_t cookie)
{
    uint32_t slot = (uint32_t)(cookie >> 32), gen = (uint32_t)cookie;
    if (slot >= (uint32_t)armcii_reqs.pool.nslots)
        armcii_fatal("armci progress", "reply for request slot %u, beyond the pool", slot);
    armcii_req_t *req = &armcii_reqs.pool.slots[slot];
    if (!req->in_use || req->tok.gen != gen)
        armcii_fatal("armci progress",
                     "reply for a request that is not in flight (slot %u, generation %u)", slot,
                     gen);
    return &req->tok;
}

armcii_req_t *armcii_req_take(armcii_req_kind_t kind, int target, int implicit)
{
    armcii_req_t *req = armcii_pool_take(&armcii_reqs.pool);
    if (!req)
        return NULL;
    req->tok.pending = 1; /* the issuer's, until armcii_req_issued */
    req->kind = (uint8_t)kind;
    req->target = target;
    req->implicit = (uint8_t)implicit;
    switch (kind) {
    case ARMCII_REQ_PUT:
    case ARMCII_REQ_ACC_HW:
        armcii_reqs.peers[target].out_write++;
        break;
    case ARMCII_REQ_AM:
        armcii_reqs.peers[target].out_sw++;
        break;
    case ARMCII_REQ_GET:
        break;
    }
    if (implicit) {
        armcii_reqs.peers[target].out_implicit++;
        armcii_reqs.implicit_total++;
    }
    return req;
}
