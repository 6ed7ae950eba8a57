/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Issuing a request: the two steps of a request's life that may wait, taken out of req.c
 * so that the table of requests calls no wait, and the waits, which poll that table, are
 * called only from above it.
 */
#include "issue.h"
#include "progress.h"
#include "req.h"
#include "../base/pool.h"

armcii_req_t *armcii_req_new(const char *call, armcii_req_kind_t kind, int target, int implicit)
{
    armcii_datagrams_before(call, target); /* (src/ops/dgram.c) */
    armcii_req_t *req = armcii_req_take(kind, target, implicit);
    while (!req) {
        /* Pool full: complete the oldest request transparently. Its handle, if it has
         * one, then reads as completed. */
        armcii_req_wait(call, armcii_reqs.pool.oldest);
        req = armcii_req_take(kind, target, implicit);
    }
    return req;
}

void armcii_req_finish(const char *call, armcii_req_t *req, int blocking, int wait, size_t bytes)
{
    if (blocking && !wait) /* a deferred flagged put is, once sent */
        armcii_req_copied(&req->tok);
    armcii_req_issued(req);
    if (wait)
        armcii_req_wait(call, req);
    else if (!blocking)
        armcii_progress_kick(bytes);
}
