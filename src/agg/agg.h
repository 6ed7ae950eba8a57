/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Aggregate handles: nonblocking puts and gets issued on a handle marked with
 * ARMCI_SET_AGGREGATE_HANDLE are collected as blocks instead of being sent, and travel as
 * vector operations (packed into messages, or zero-copy for large blocks) when the handle
 * is waited on or tested, when the list fills (ARMCI_AGG_MAX), or at a fence or barrier.
 * One file, agg.c, which sends through the core's noncontiguous path (armcii_nc) and is
 * reached by fences through a hook (armcii_fence_hook).
 */
#ifndef ARMCII_AGG_H
#define ARMCII_AGG_H

#include "../core/armcii.h"
#include "../core/iter.h"

/** Collect the blocks of @p it (a put or a get, ARMCII_NC_*) on aggregate handle @p hdl. */
void armcii_agg_add(const char *call, armci_hdl_t *hdl, armcii_op_t what, armcii_iter_t *it,
                    int target);
/** Collect one contiguous put or get (the common case, without an iterator). */
void armcii_agg_add_block(const char *call, armci_hdl_t *hdl, armcii_op_t what, char *local,
                          char *remote, size_t len, int target);
/**
 * The collecting step of a contiguous put or get without the runtime lock, for a caller
 * that has checked the arguments and that @p target is reached through the fabric:
 * possible when only one application thread calls ARMCI (armcii_rt.one_caller) and the step
 * touches nothing the progress thread touches (the handle's record, already attached,
 * with room and no flush due; no get cache running).
 * @return 1 when collected, 0 when the locked path must take it.
 */
int armcii_agg_collect_unlocked(armci_hdl_t *hdl, armcii_op_t what, char *local, char *remote,
                                size_t len, int target);
/** Is @p hdl's record attached, to @p target? (Read without the runtime lock under the same
 *  conditions: a node peer's operation on such a handle is a copy done at once.) */
int armcii_agg_attached_to(const armci_hdl_t *hdl, int target);
/** Collect a put of @p len bytes copied from @p value (the caller's copy may vanish). */
void armcii_agg_add_copy(const char *call, armci_hdl_t *hdl, const void *value, size_t len,
                         char *remote, int target);
/** Send what @p hdl collected and complete it (@p wait) or test it; 1 when complete. */
int armcii_agg_complete(const char *call, armci_hdl_t *hdl, int wait);
/** Send what any aggregate handle collected for @p target (-1: every target). */
void armcii_agg_flush_target(const char *call, int target);
/** Complete and drop every aggregate record (finalize). */
void armcii_agg_fini(const char *call);

/** The addresses of handles made aggregate (see agg.c): add (-1 if out of memory), remove,
 *  ask, forget all. Every operation with a handle asks, so the asking is inline; the set
 *  is written by agg.c only. */
typedef struct {
    const armci_hdl_t **at;
    int n;
} armcii_agg_addrs_t;
extern armcii_agg_addrs_t armcii_agg_addrs;

int armcii_agg_addr_add(const armci_hdl_t *h);
void armcii_agg_addr_remove(const armci_hdl_t *h);
static inline int armcii_agg_addr_known(const armci_hdl_t *h)
{
    for (int i = 0; i < armcii_agg_addrs.n; i++)
        if (armcii_agg_addrs.at[i] == h)
            return 1;
    return 0;
}
void armcii_agg_addr_clear(void);

#endif
