/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ARMCI's ordering promises and fences (order.c).
 */
#ifndef ARMCII_ORDER_H
#define ARMCII_ORDER_H

#include "../base/pool.h"
#include "progress.h"
#include "req.h"

/* ---- ordering and fences (src/core/order.c) ---- */

/** Before a blocking operation of @p kind to @p target: keep ARMCI's ordering promise. */
void armcii_order_before(const char *call, armcii_req_kind_t kind, int target);
/** Before a nonblocking operation to @p target that does not go as a message: wait until
 *  the messages in flight to it have been applied. Nonblocking operations are unordered
 *  among themselves until completed, not with what this process did before them: a
 *  message on its way (a blocking put or accumulate returns with it sent) must be applied
 *  before a read or write the transport may carry past it. */
static inline void armcii_order_after_messages(const char *call, int target)
{
    if (armcii_reqs.peers[target].out_sw > 0)
        armcii_wait_zero(call, &armcii_reqs.peers[target].out_sw, target);
}
void armcii_fence(const char *call, int target);
/** @p fn runs first in every fence of a target (aggregation registers its flush). */
void armcii_fence_hook(void (*fn)(const char *call, int target));
/** Everything sent to @p target before is applied there (a fence, without the aggregate
 *  handles' flush): for an operation that reaches it around the fabric's queues (serve.c's
 *  datagrams). */
void armcii_order_all_before(const char *call, int target);
/** Before a load/store operation on the memory of @p target, this process or a node peer:
 *  complete what is in flight to it through the fabric (accumulates through libfabric's
 *  atomics, which take that way to stay atomic with remote peers' atomics). */
void armcii_order_local(const char *call, int target);
void armcii_fence_all(const char *call);
/** Frees what armcii_fence_all keeps for its flush reads. */
void armcii_flush_fini(void);

#endif
