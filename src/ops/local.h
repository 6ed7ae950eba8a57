/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Same node and self (local.c): every copy, accumulate and read-modify-write this
 * process's CPU does at a peer's memory (or its own), by the protocols (rma.c, nc.c,
 * amo.c) and by the API layer's unlocked doors (src/agg/route.c). The one place where an
 * operation to node memory is counted, ordered (armcii_exec_local) and placed.
 */
#ifndef ARMCII_LOCAL_H
#define ARMCII_LOCAL_H

#include <stddef.h>
#include <stdint.h>

#include <armci.h>

#include "../base/acc.h"
#include "../base/hot.h"
#include "../base/op.h"
#include "../base/place.h"
#include "../base/region.h"
#include "../base/select.h"
#include "../base/stats.h"
#include "exec.h"
#include "../core/mem.h"
#include "../core/req.h"
#include "../core/runtime.h"

struct armcii_iter; /* (iter.h) */

/** The copy of armcii_copy_unlocked, for a caller that made its checks (an aggregate
 *  handle's operation, which knows the peer's segment). */
ARMCII_INLINE void armcii_copy_unlocked_checked(armcii_op_t what, void *local, void *remote,
                                                size_t len)
{
    armcii_exec_count(what, ARMCII_ST_LOCAL, (long)len);
    if (what == ARMCII_OP_GET)
        armcii_place_copy(local, remote, len, 0);
    else
        armcii_place_copy(remote, local, len, 0);
}

/** A blocking get or put of @p len bytes between @p local and @p remote on @p target, done
 *  without the runtime lock where nothing it guards is touched: a peer on this node, a
 *  program whose ARMCI calls come from one thread, a range inside one of the peer's
 *  segments. 1 when done, 0 when the caller must take the locked way (which also reports
 *  any error in the arguments). The API layer checked that ARMCI is initialised, that one
 *  thread calls it (one_caller), that @p local is not NULL, @p len not 0 and @p target a
 *  rank. Inline: a small same-node get is this, the check and the copy, and no call.
 *  A peer of this node, not this process, and no accumulate through libfabric's atomics:
 *  nothing of this process's own can be in flight to it, and the progress thread looks up,
 *  and moves the last-hit index of, this process's own segments only. */
ARMCII_INLINE int armcii_copy_unlocked(armcii_op_t what, void *local, void *remote, size_t len,
                                       int target)
{
    /* (where accumulates take libfabric's atomics, to node peers too, one may be in flight
     * to the peer: the locked way orders the copy after it) */
    if (armcii_path(target) != ARMCII_PATH_SHM || armcii_rt.limits.acc_hw ||
        !armcii_region_find_fast(&armcii_mem.regions, target, (uintptr_t)remote, len))
        return 0;
    armcii_copy_unlocked_checked(what, local, remote, len);
    return 1;
}

/** An accumulate done the same way (under the target's accumulate lock only), where
 *  accumulates to @p target are applied by this process's CPU. 1 when done, 0 when the
 *  caller must take the locked way (an unknown @p type, or @p len not a whole number of
 *  its elements, included). The API layer checked @p src and @p scale are not NULL. */
int armcii_acc_unlocked(const char *call, int type, const void *scale, const void *src, void *dst,
                        size_t len, int target);

/** A contiguous get or put (@p what) to self or a node peer under the runtime lock: ordered,
 *  copied as ARMCI_PLACEMENT says (src/base/place.c), complete within the call, @p hdl
 *  done. @p announced: a flag follows the data (ARMCI_Put_flag). */
ARMCII_INLINE void armcii_local_copy(const char *call, armcii_op_t what, int target, void *dst,
                                     const void *src, size_t len, armci_hdl_t *hdl, int announced)
{
    armcii_exec_local(call, what, target, (long)len);
    armcii_place_copy(dst, src, len, announced);
    armcii_hdl_done(call, hdl);
}

/** A contiguous accumulate applied by this process (ARMCII_PROTO_LOCAL), @p hdl done. */
void armcii_local_acc(const char *call, int type, const void *scale, const void *src, void *dst,
                      size_t len, int target, armci_hdl_t *hdl);

/** The blocks of a strided or vector call (@p it) to or from @p target on this node:
 *  copied, or accumulated under the target's lock taken once; @p hdl done. @p bytes:
 *  their total, for the statistics (0 where ARMCI_STATS is off). */
void armcii_local_blocks(const char *call, armcii_op_t what, int type, const void *scale,
                         struct armcii_iter *it, int target, armci_hdl_t *hdl, long bytes);

/** A read-modify-write (an ARMCII_RMW_* @p op of @p size bytes) at @p addr on self or a
 *  node peer: a CPU atomic at the memory; the old value returned. Inline: a same-node
 *  fetch-and-add is this and the atomic. */
ARMCII_INLINE uint64_t armcii_local_rmw(const char *call, int op, int target, void *addr,
                                        size_t size, uint64_t operand, uint64_t comparand)
{
    armcii_exec_local(call, ARMCII_OP_RMW, target, (long)size);
    return armcii_rmw_apply(op, addr, operand, &comparand);
}

#endif
