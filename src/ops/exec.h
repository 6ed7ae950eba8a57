/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The executor (exec.c): how a planned operation to one target is carried out, written
 * once for every protocol (rma.c, nc.c, span.c, amo.c). A protocol plans: which request
 * kind, whether a blocking call waits here, which column of the statistics (an
 * armcii_plan_t). It hands the plan to one door, whose prologue keeps the rules that
 * every operation keeps:
 *
 *   armcii_exec_local   the same node: counted, and ordered after what libfabric's
 *                       atomics have in flight there (armcii_order_local); the caller
 *                       copies or accumulates, then marks its handle done.
 *   armcii_exec_join    the open message (open.c): counted, a blocking one ordered as a
 *                       message (armcii_order_before); the caller joins it.
 *   armcii_exec_begin   a request: counted, the open message to the target sent first,
 *                       ordered (a blocking one keeps ARMCI's ordering promise, a
 *                       nonblocking one that is not a message waits for the messages in
 *                       flight there), the request begun; the caller posts the
 *                       transport's operations on it, then armcii_exec_end.
 *   armcii_exec_unrequested  as armcii_exec_begin, for an operation without a request (an
 *                       injected put).
 *   armcii_exec_count   counted only: an operation the get cache answered, or a datagram
 *                       (dgram.c keeps its own order with libfabric).
 *
 * The open messages, ordering and statistics are reached from the protocols through these
 * alone (testing/layers.sh).
 */
#ifndef ARMCII_EXEC_H
#define ARMCII_EXEC_H

#include <stddef.h>

#include <armci.h>

#include "../base/op.h"
#include "../base/stats.h"
#include "../core/issue.h"
#include "../base/pool.h"

typedef struct {
    armcii_op_t what;       /* ARMCII_OP_PUT, _GET, _ACC, _RMW */
    int target;             /* the process whose memory it reaches */
    armci_hdl_t *hdl;       /* the caller's handle (nonblocking calls), or NULL */
    int blocking;           /* a blocking call */
    int in_order;           /* ordered as a blocking call is, even when not blocking */
    armcii_req_kind_t kind; /* its request's kind (armcii_exec_begin) */
    int wait_here;          /* a blocking call waits for its request within the call */
    int stat;               /* its column of the statistics, ARMCII_ST_... */
    long bytes;             /* what it moves, for the statistics */
    armcii_issue_t is;      /* (the executor's, between begin and end) */
} armcii_plan_t;

/** Counts an operation of @p what that took @p stat (ARMCII_ST_...) for @p bytes. */
static inline void armcii_exec_count(armcii_op_t what, int stat, long bytes)
{
    armcii_stat_op(what, stat, bytes);
}
/** The same-node door: counts @p what (@p bytes) as a local one and orders it after what
 *  is in flight to @p target through libfabric's atomics. */
void armcii_exec_local(const char *call, armcii_op_t what, int target, long bytes);
/** The open message's door: counts @p p; a blocking one waits as a message must. */
void armcii_exec_join(const char *call, const armcii_plan_t *p);
/** The request's door: counts @p p, sends the open message to its target, keeps the order
 *  and begins the request, returned. */
armcii_req_t *armcii_exec_begin(const char *call, armcii_plan_t *p);
/** armcii_exec_begin for an operation that takes no request. */
void armcii_exec_unrequested(const char *call, const armcii_plan_t *p);
/** The request of armcii_exec_begin issued (its operations posted), @p bytes moved: a
 *  handle takes it, or a blocking call waits here as planned. */
static inline void armcii_exec_end(const char *call, armcii_plan_t *p, size_t bytes)
{
    armcii_issue_end(call, &p->is, bytes);
}

/** The operations' bring-up, placed by the runtime (armcii_runtime_above): the open
 *  messages and the open datagram registered with the waits (armcii_progress_hold). */
void armcii_ops_init(void);

#endif
