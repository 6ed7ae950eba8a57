/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Issuing a request (issue.c): taking a slot, which waits for the oldest request when the
 * pool is full, and finishing the issue, which waits for it when the call must. Above the
 * requests (req.h) and the waits (progress.h), below ordering (order.c) and the executor
 * (src/ops/exec.c).
 */
#ifndef ARMCII_ISSUE_H
#define ARMCII_ISSUE_H

#include <stddef.h>

#include <armci.h>

#include "req.h"
#include "../base/pool.h"

/** A new request; when the pool is full the oldest request is completed first. */
armcii_req_t *armcii_req_new(const char *call, armcii_req_kind_t kind, int target, int implicit);
/** Issue @p req (armcii_req_issued) for a call that is @p blocking, then wait for it when
 *  @p wait. A blocking call that returns before its request completes has copied the
 *  caller's data out: the request is marked so, and does not make the progress thread
 *  poll closely (which takes the processor from the computing application). A
 *  nonblocking call's request of at least ARMCI_PROGRESS_WAKE_MIN @p bytes wakes the
 *  napping progress thread (armcii_progress_kick). */
void armcii_req_finish(const char *call, armcii_req_t *req, int blocking, int wait, size_t bytes);

/*
 * One operation's request, from its start to the transport to its end, the same for every
 * protocol (rma.c, nc.c, span.c, amo.c):
 *
 *     armcii_issue_t is = {.hdl = hdl, .blocking = blocking, .wait_here = ...};
 *     armcii_req_t *req = armcii_issue_begin(call, &is, kind, target);
 *     ... the transport's operations on req ...
 *     armcii_issue_end(call, &is, bytes);
 *
 * A protocol decides one thing, whether a blocking call waits here (wait_here: its data
 * is not yet read, or still read from the caller's buffer, or nothing moves it once the
 * caller leaves ARMCI). The rest follows: a blocking call that does not wait leaves an
 * implicit request, completed by fences and WaitAll as a nonblocking one without a handle
 * is; a nonblocking one with a handle is the handle's, completed by its wait. (The open
 * messages of rma.c, filled over many calls, and order.c's flush reads, waited for
 * together, take armcii_req_new themselves.)
 */
typedef struct {
    armcii_req_t *req;
    armci_hdl_t *hdl; /* the caller's handle (nonblocking calls), or NULL */
    int blocking;
    int wait_here; /* (blocking calls only) */
} armcii_issue_t;

static inline armcii_req_t *armcii_issue_begin(const char *call, armcii_issue_t *is,
                                               armcii_req_kind_t kind, int target)
{
    int implicit = is->blocking ? !is->wait_here : !is->hdl;
    return is->req = armcii_req_new(call, kind, target, implicit);
}

/** @p bytes: what the operation moves (a large nonblocking one wakes the progress thread). */
static inline void armcii_issue_end(const char *call, armcii_issue_t *is, size_t bytes)
{
    if (!is->blocking)
        armcii_hdl_bind(call, is->hdl, is->req);
    armcii_req_finish(call, is->req, is->blocking, is->blocking && is->wait_here, bytes);
}

#endif
