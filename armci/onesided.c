/* SPDX-License-Identifier: BSD-3-Clause */
/* Contiguous put, get and accumulate, blocking and nonblocking. */
#include "check.h"
#include "../src/agg/agg.h"
#include "../src/base/hot.h"

/*
 * Puts and gets without the runtime lock where that is safe, one thread calling ARMCI:
 * to a fabric target, one on an aggregate handle is collected
 * (armcii_agg_collect_unlocked); to a peer of this node it is copied
 * (armcii_copy_unlocked), a nonblocking one complete within the call, its handle marked
 * done (an aggregate one stays collecting). The lock and its release were half of such a
 * call. Anything unusual, errors included, goes on to the locked path (0). Inline in each
 * API function, whose constants (blocking, a handle or none) decide its branches.
 */
ARMCII_INLINE int unlocked(const char *call, armcii_op_t what, void *local, void *remote, int bytes,
                           int proc, armci_hdl_t *hdl, int blocking)
{
    if (bytes <= 0 || (uintptr_t)local < ARMCII_LOW_PAGE || !armcii_rt.one_caller)
        return 0;
    armcii_check_init(call);
    if (proc < 0 || proc >= armcii_rt.nproc)
        return 0;
    /* An aggregate handle's collection, if it is attached to @p proc: the lane's handle
     * (agg.h) by a comparison, another one found in the registry (known addresses
     * first: the bytes of a plain handle may be uninitialised) and the table. */
    armcii_agg_t *rec = NULL;
    if (!blocking && hdl) {
        rec = armcii_agg_lane_of(hdl, proc);
        int aggregate = rec || (armcii_agg_addr_known(hdl) && armcii_hdl_is_aggregate(hdl));
        /* a plain handle naming an operation in flight somewhere is checked on the locked
         * way (only this thread binds handles, so the count cannot grow behind this
         * look); an aggregate one never names a request */
        if (!aggregate && armcii_req_handles_bound())
            return 0;
        if (aggregate && !rec && !(rec = armcii_agg_attached_to(hdl, proc)))
            return 0; /* its first operation attaches it, locked */
    }
    if (rec) {
        /* a node peer's operation is a copy done at once, a fabric peer's is collected
         * (armcii_agg_add_block); checked against the segment of the handle's last block,
         * which holds most blocks */
        uintptr_t r = (uintptr_t)remote;
        if (rec->unlocked == ARMCII_AGG_LOCKED || (!armcii_agg_in_segment(rec, r, (size_t)bytes) &&
                                                   !armcii_agg_find_segment(rec, r, (size_t)bytes)))
            return 0;
        if (rec->unlocked == ARMCII_AGG_COLLECT)
            return armcii_agg_collect_unlocked(rec, what, local, remote, (size_t)bytes);
        armcii_copy_unlocked_checked(what, local, remote, (size_t)bytes);
        return 1;
    }
    if (!armcii_copy_unlocked(what, local, remote, (size_t)bytes, proc))
        return 0;
    if (!blocking)
        armcii_hdl_done(call, hdl);
    return 1;
}

/* The locked way of a contiguous get or put, for what the unlocked one left. */
ARMCII_HOT static int get_locked(const char *call, void *src, void *dst, int bytes, int proc,
                                 armci_hdl_t *hdl, int blocking)
{
    armcii_enter(call);
    const armcii_seg_t *seg = armcii_check_contig(call, dst, src, bytes, proc);
    if (armcii_check_aggregate(call, hdl, 0)) {
        armcii_agg_add_block(call, hdl, ARMCII_OP_GET, dst, src, (size_t)bytes, proc);
        armcii_unlock();
        return 0;
    }
    int rc = armcii_get(call, src, dst, (size_t)bytes, proc, seg, hdl, blocking);
    armcii_unlock();
    return rc;
}

ARMCII_HOT static int put_locked(const char *call, void *src, void *dst, int bytes, int proc,
                                 armci_hdl_t *hdl, int blocking)
{
    armcii_enter(call);
    const armcii_seg_t *seg = armcii_check_contig(call, src, dst, bytes, proc);
    if (armcii_check_aggregate(call, hdl, 0)) {
        armcii_agg_add_block(call, hdl, ARMCII_OP_PUT, src, dst, (size_t)bytes, proc);
        armcii_unlock();
        return 0;
    }
    int rc = armcii_put(call, src, dst, (size_t)bytes, proc, seg, hdl, blocking);
    armcii_unlock();
    return rc;
}

ARMCII_INLINE int get_common(const char *call, void *src, void *dst, int bytes, int proc,
                             armci_hdl_t *hdl, int blocking)
{
    if (unlocked(call, ARMCII_OP_GET, dst, src, bytes, proc, hdl, blocking))
        return 0;
    return get_locked(call, src, dst, bytes, proc, hdl, blocking);
}

ARMCII_INLINE int put_common(const char *call, void *src, void *dst, int bytes, int proc,
                             armci_hdl_t *hdl, int blocking)
{
    if (unlocked(call, ARMCII_OP_PUT, src, dst, bytes, proc, hdl, blocking))
        return 0;
    return put_locked(call, src, dst, bytes, proc, hdl, blocking);
}

ARMCII_HOT static int acc_common(const char *call, int type, void *scale, void *src, void *dst,
                                 int bytes, int proc, armci_hdl_t *hdl, int blocking)
{
    /* To a peer of this node without the runtime lock, as copy_unlocked does; anything
     * unusual (errors, aggregate handles) takes the locked way. */
    if (bytes > 0 && src && scale) {
        armcii_check_init(call);
        if ((blocking || !hdl ||
             (!armcii_req_handles_bound() &&
              (!armcii_agg_addr_known(hdl) || !armcii_hdl_is_aggregate(hdl)))) &&
            armcii_acc_unlocked(call, type, scale, src, dst, (size_t)bytes, proc)) {
            if (!blocking)
                armcii_hdl_done(call, hdl);
            return 0;
        }
    }
    armcii_enter(call);
    armcii_check_aggregate(call, hdl, 1);
    armcii_check_acc(call, type, scale, bytes);
    const armcii_seg_t *seg = armcii_check_contig(call, src, dst, bytes, proc);
    int rc = armcii_acc(call, type, scale, src, dst, (size_t)bytes, proc, seg, hdl, blocking);
    armcii_unlock();
    return rc;
}

ARMCII_HOT int ARMCI_Get(void *src, void *dst, int size, int target)
{
    return get_common("ARMCI_Get", src, dst, size, target, NULL, 1);
}

ARMCII_HOT int ARMCI_Put(void *src, void *dst, int size, int target)
{
    return put_common("ARMCI_Put", src, dst, size, target, NULL, 1);
}

ARMCII_HOT int ARMCI_Acc(int datatype, void *scale, void *src, void *dst, int bytes, int proc)
{
    return acc_common("ARMCI_Acc", datatype, scale, src, dst, bytes, proc, NULL, 1);
}

int ARMCI_NbGet(void *src, void *dst, int bytes, int proc, armci_hdl_t *hdl)
{
    return get_common("ARMCI_NbGet", src, dst, bytes, proc, hdl, 0);
}

int ARMCI_NbPut(void *src, void *dst, int bytes, int proc, armci_hdl_t *hdl)
{
    return put_common("ARMCI_NbPut", src, dst, bytes, proc, hdl, 0);
}

int ARMCI_NbAcc(int datatype, void *scale, void *src, void *dst, int bytes, int proc,
                armci_hdl_t *hdl)
{
    return acc_common("ARMCI_NbAcc", datatype, scale, src, dst, bytes, proc, hdl, 0);
}

/* Profiling names (see ARMCII_PROFILED). */
ARMCII_PROFILED(Get)
ARMCII_PROFILED(Put)
ARMCII_PROFILED(Acc)
ARMCII_PROFILED(NbPut)
ARMCII_PROFILED(NbGet)
ARMCII_PROFILED(NbAcc)
