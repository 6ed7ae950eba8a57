/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Same node and self: the copies, accumulates and read-modify-writes this process's CPU
 * does at node memory. Each is counted and ordered through the same-node door
 * (armcii_exec_local) and placed as ARMCI_PLACEMENT says; accumulates take the target's
 * accumulate lock (transport/shm.c), which a peer's handler and datagram server take too.
 */
#include <string.h>

#include "local.h"
#include "exec.h"
#include "../core/mem.h"
#include "../core/req.h"
#include "../core/runtime.h"
#include "../base/acc.h"
#include "../base/hot.h"
#include "../base/iter.h"
#include "../base/op.h"
#include "../base/place.h"
#include "../base/region.h"
#include "../base/select.h"
#include "../base/stats.h"
#include "../transport/transport.h"

ARMCII_HOT int armcii_acc_unlocked(const char *call, int type, const void *scale, const void *src,
                                   void *dst, size_t len, int target)
{
    /* As for copies (armcii_copy_unlocked, local.h); and where accumulates take libfabric
     * atomics (to node peers too, to stay atomic with remote peers' atomics) this is not
     * the way. */
    size_t es = armcii_acc_type_size(type);
    if (!armcii_rt.one_caller || armcii_rt.limits.acc_hw || len == 0 || es == 0 || len % es != 0 ||
        target < 0 || target >= armcii_rt.nproc || armcii_path(target) != ARMCII_PATH_SHM ||
        armcii_select_acc(&armcii_rt.limits, ARMCII_PATH_SHM, armcii_acc_hw_ok(type)) !=
            ARMCII_PROTO_LOCAL ||
        !armcii_region_find_fast(&armcii_mem.regions, target, (uintptr_t)dst, len))
        return 0;
    armcii_exec_count(ARMCII_OP_ACC, ARMCII_ST_LOCAL, (long)len);
    armcii_shm_acc(call, armcii_slot_of(target), type, scale, src, dst, len);
    return 1;
}

void armcii_local_acc(const char *call, int type, const void *scale, const void *src, void *dst,
                      size_t len, int target, armci_hdl_t *hdl)
{
    armcii_exec_local(call, ARMCII_OP_ACC, target, (long)len);
    if (len > 0)
        armcii_shm_acc(call, armcii_slot_of(target), type, scale, src, dst, len);
    armcii_hdl_done(call, hdl);
}

/* One I/O vector entry on the node: its blocks copied source to destination, straight
 * from the entry's arrays (the walker and a call per block cost more than the copies of
 * small blocks). Blocks the placement policy leaves in the cache are plain copies, of a
 * size known at compile time for the common element sizes. */
static void copy_group(const armci_giov_t *v)
{
    if (v->bytes <= 0)
        return;
    size_t len = (size_t)v->bytes;
    void **src = v->src_ptr_array, **dst = v->dst_ptr_array;
    int n = v->ptr_array_len;
    if (armcii_place_memory(len, 0)) {
        for (int k = 0; k < n; k++)
            armcii_place_copy(dst[k], src[k], len, 0);
    } else if (len == 8) {
        for (int k = 0; k < n; k++)
            memmove(dst[k], src[k], 8);
    } else if (len == 4) {
        for (int k = 0; k < n; k++)
            memmove(dst[k], src[k], 4);
    } else if (len == 16) {
        for (int k = 0; k < n; k++)
            memmove(dst[k], src[k], 16);
    } else {
        for (int k = 0; k < n; k++)
            memmove(dst[k], src[k], len);
    }
}

static void blocks(const char *call, armcii_op_t what, int type, const void *scale,
                   armcii_iter_t *it, int target)
{
    char *l, *r;
    size_t len;
    if (what == ARMCII_OP_ACC) {
        int slot = armcii_slot_of(target);
        armcii_shm_acc_lock(call, slot);
        while (armcii_iter_next(it, &l, &r, &len))
            armcii_acc_apply(type, scale, l, r, len);
        armcii_shm_acc_unlock(slot);
        return;
    }
    if (it->vector == 1) {
        for (int g = 0; g < it->iov_len; g++)
            copy_group(&it->iov[g]);
        return;
    }
    while (armcii_iter_next(it, &l, &r, &len)) {
        if (what == ARMCII_OP_PUT)
            armcii_place_copy(r, l, len, 0);
        else
            armcii_place_copy(l, r, len, 0);
    }
}

ARMCII_HOT void armcii_local_blocks(const char *call, armcii_op_t what, int type, const void *scale,
                                    armcii_iter_t *it, int target, armci_hdl_t *hdl, long bytes)
{
    armcii_exec_local(call, what, target, bytes);
    blocks(call, what, type, scale, it, target);
    armcii_hdl_done(call, hdl);
}
