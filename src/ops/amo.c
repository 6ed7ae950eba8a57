/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Read-modify-write on one word (ARMCI_Rmw and the ARMCIX fetch-and-add family). Where
 * accumulates use libfabric atomics, so does every read-modify-write; otherwise a CPU
 * atomic at the memory, directly on the same node, applied by the target's handler
 * across the fabric. The caller waits for the old value.
 */
#include "amo.h"
#include "dgram.h"
#include "mem.h"
#include "nc.h"
#include "order.h"
#include "req.h"
#include "rma.h"
#include "runtime.h"
#include "../base/acc.h"
#include "../base/common.h"
#include "../base/op.h"
#include "../base/pool.h"
#include "../base/region.h"
#include "../base/select.h"
#include "../base/stats.h"
#include "../cache/getcache.h"
#include "../transport/transport.h"

uint64_t armcii_rmw(const char *call, int op, int target, void *addr, uint64_t operand,
                    uint64_t comparand)
{
    size_t size = (op == ARMCII_RMW_FADD32 || op == ARMCII_RMW_SWAP32) ? 4 : 8;
    armcii_cache_write(target, addr, size);
    /* Where accumulates use libfabric atomics, so does every read-modify-write, to oneself
     * included: all atomics on a word must go one way to stay atomic with each other. */
    int hw = armcii_rmw_hw_ok(op);
    if (!hw) {
        /* Otherwise a CPU atomic at the memory: directly on the same node (nothing is held
         * back for a node peer), ... */
        if (armcii_path(target) != ARMCII_PATH_FABRIC) {
            armcii_stat_op(ARMCII_OP_RMW, ARMCII_ST_LOCAL, (long)size);
            armcii_order_local(call, target);
            return armcii_rmw_apply(op, addr, operand, &comparand);
        }
        /* ... across the fabric by a datagram to the holder's own thread (dgram.c), unless
         * the holder was found polling inside ARMCI, where libfabric answers sooner; before
         * anything else goes, so that it takes the accumulates waiting in the open
         * datagram with it. */
        uint64_t old;
        if (armcii_dgram_rmw(call, op, target, addr, operand, comparand, &old)) {
            armcii_stat_op(ARMCII_OP_RMW, ARMCII_ST_MESSAGE, (long)size);
            return size == 4 ? (uint32_t)old : old;
        }
    }
    armcii_put_open_send(call, target);
    if (hw) {
        armcii_stat_op(ARMCII_OP_RMW, ARMCII_ST_ATOMIC, (long)size);
        const armcii_seg_t *seg = armcii_seg_of(call, target, addr, size);
        armcii_issue_t is = {.blocking = 1, .wait_here = 1}; /* (the old value) */
        armcii_req_t *req = armcii_issue_ordered(call, &is, ARMCII_REQ_ACC_HW, target);
        uint64_t result = 0, opnd = operand, cmp = comparand;
        uint32_t r32 = 0, o32 = (uint32_t)operand;
        armcii_ofi_rmw_hw(call, &req->tok, op, size == 4 ? (void *)&r32 : (void *)&result,
                          size == 4 ? (const void *)&o32 : (const void *)&opnd, &cmp, target,
                          armcii_seg_raddr(seg, (uintptr_t)addr), armcii_seg_key(seg, target));
        armcii_issue_end(call, &is, size);
        return size == 4 ? r32 : result;
    }
    /* ... or applied by the holder's handler for libfabric's messages. */
    armcii_stat_op(ARMCII_OP_RMW, ARMCII_ST_MESSAGE, (long)size);
    double t0 = armcii_serve_on() ? armcii_now() : 0;
    armcii_issue_t is = {.blocking = 1, .wait_here = 1};
    armcii_req_t *req = armcii_issue_ordered(call, &is, ARMCII_REQ_AM, target);
    uint64_t result = 0;
    armcii_am_rmw(call, &req->tok, op, &result, size, target, (uint64_t)(uintptr_t)addr, operand,
                  comparand);
    armcii_issue_end(call, &is, size);
    if (t0 > 0)
        armcii_serve_fabric_took(target, armcii_now() - t0);
    return size == 4 ? (uint32_t)result : result;
}
