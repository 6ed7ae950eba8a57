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
#include "mem.h"
#include "req.h"
#include "runtime.h"

/* ---- contiguous operations (src/core/rma.c) ---- */

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
    armcii_stat_op(what, ARMCII_ST_LOCAL, (long)len);
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

/* Blocking puts sent as messages (ARMCI_PUT_MESSAGE_MAX), and blocking accumulates sent as
 * messages, share the message of the last one to their target until something else goes
 * there (ARMCI_PUT_COMBINE). Every operation to a target and every wait for one sends its
 * open message first; so do these. */
/** May a put or accumulate sent as a message join the open message (blocking, or
 *  nonblocking on an implicit handle, where progress threads run)? */
int armcii_open_may_join(int blocking, const armci_hdl_t *hdl);
struct armcii_iter; /* (iter.h) */
/** Adds every block of the walker @p it to the open message to
 *  @p target for @p what (for accumulates: of @p type and @p scale), opening one (and
 *  sending one open for something else) as needed. */
void armcii_open_join_blocks(const char *call, int target, armcii_op_t what, int type,
                             const void *scale, struct armcii_iter *it);
/** Sends @p target's open put message, if it has one. */
void armcii_put_open_send(const char *call, int target);
/** Sends every open put message. */
void armcii_put_open_send_all(const char *call);
/** Sends @p target's open put message (every one when @p target < 0) for a caller that
 *  waits for its acknowledgement next: the target acknowledges it at once. */
void armcii_put_open_send_waited(const char *call, int target);
/** For the progress thread: sends each open message no put joined since its last pass. */
void armcii_put_open_age(void);
/** Registers the open messages with the waits (armcii_progress_hold). */
void armcii_put_open_init(void);
/** Open put messages, over all targets. */
extern int armcii_put_open_count;

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
