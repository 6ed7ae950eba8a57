/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Contiguous operations (rma.c): the unlocked same-node copy, put, get, accumulate and
 * the flagged put, and the open put messages that blocking puts and accumulates share.
 */
#ifndef ARMCII_RMA_H
#define ARMCII_RMA_H

#include <stddef.h>

#include <armci.h>

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

/* ---- contiguous operations (src/ops/rma.c) ---- */

/** A blocking get or put of @p len bytes between @p local and @p remote on @p target, done
 *  without the runtime lock where nothing it guards is touched: a peer on this node, a
 *  program whose ARMCI calls come from one thread, a range inside one of the peer's
 *  segments. 1 when done, 0 when the caller must take the locked way (which also reports
 *  any error in the arguments). The API layer checked that ARMCI is initialised, that one
 *  thread calls it (one_caller), that @p local is not NULL, @p len not 0 and @p target a
 *  rank. Inline: a small same-node get is this, the check and the copy, and no call.
 *  A peer of this node, not this process, and no accumulate through libfabric's atomics:
 *  nothing of this process's own can be in flight to it, and the progress thread looks up, and
 *  moves the last-hit index of, this process's own segments only. */
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
} /** An accumulate done the same way (under the target's accumulate lock only), where
   *  accumulates to @p target are applied by this process's CPU. 1 when done, 0 when the
   *  caller must take the locked way (an unknown @p type, or @p len not a whole number of
   *  its elements, included). The API layer checked @p src and @p scale are not NULL. */
int armcii_acc_unlocked(const char *call, int type, const void *scale, const void *src, void *dst,
                        size_t len, int target);

int armcii_put(const char *call, const void *src, void *dst, size_t len, int target,
               const armcii_seg_t *seg, armci_hdl_t *hdl, int blocking);
int armcii_get(const char *call, const void *src, void *dst, size_t len, int target,
               const armcii_seg_t *seg, armci_hdl_t *hdl, int blocking);
int armcii_acc(const char *call, int type, const void *scale, const void *src, void *dst,
               size_t len, int target, const armcii_seg_t *seg, armci_hdl_t *hdl, int blocking);
/** ARMCI_Put_flag: the data, then @p value stored into @p flag once the data is in place
 *  (@p seg: the segment of @p dst, NULL when @p len is 0). */
void armcii_put_flag(const char *call, const void *src, void *dst, const armcii_seg_t *seg,
                     size_t len, int *flag, int value, int target, armci_hdl_t *hdl);

#endif
