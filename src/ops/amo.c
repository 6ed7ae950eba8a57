/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Read-modify-write on one word (ARMCI_Rmw and the ARMCIX fetch-and-add family). Where
 * accumulates use libfabric atomics, so does every read-modify-write; otherwise a CPU
 * atomic at the memory, directly on the same node, applied by the target's handler
 * across the fabric. The caller waits for the old value.
 */
#include "amo.h"
#include "dgram.h"
#include "exec.h"
#include "local.h"
#include "../core/mem.h"
#include "../core/req.h"
#include "../core/runtime.h"
#include "../base/common.h"
#include "../base/op.h"
#include "../base/pool.h"
#include "../base/region.h"
#include "../base/select.h"
#include "../base/stats.h"
#include "../cache/getcache.h"
#include "../transport/transport.h"

uint64_t armcii_rmw(const char *call, int op, int target, void *addr, const armcii_seg_t *seg,
                    uint64_t operand, uint64_t comparand)
{
    size_t size = (op == ARMCII_RMW_FADD32 || op == ARMCII_RMW_SWAP32) ? 4 : 8;
    armcii_cache_write(target, addr, size);
    /* Where accumulates use libfabric atomics, so does every read-modify-write, to oneself
     * included: all atomics on a word must go one way to stay atomic with each other. */
    int hw = armcii_rmw_hw_ok(op);
    if (!hw) {
        /* Otherwise a CPU atomic at the memory: directly on the same node (nothing is held
         * back for a node peer), ... */
        if (armcii_path(target) != ARMCII_PATH_FABRIC)
            return armcii_local_rmw(call, op, target, addr, size, operand, comparand);
        /* ... across the fabric by a datagram to the holder's own thread (dgram.c), unless
         * the holder was found polling inside ARMCI, where libfabric answers sooner; before
         * anything else goes, so that it takes the accumulates waiting in the open
         * datagram with it. */
        uint64_t old;
        if (armcii_dgram_rmw(call, op, target, addr, operand, comparand, &old)) {
            armcii_exec_count(ARMCII_OP_RMW, ARMCII_ST_MESSAGE, (long)size);
            return size == 4 ? (uint32_t)old : old;
        }
    }
    armcii_plan_t p = {
        .what = ARMCII_OP_RMW,
        .target = target,
        .blocking = 1,
        .kind = hw ? ARMCII_REQ_ACC_HW : ARMCII_REQ_AM,
        .wait_here = 1, /* (the old value) */
        .stat = hw ? ARMCII_ST_ATOMIC : ARMCII_ST_MESSAGE,
        .bytes = (long)size,
    };
    if (hw) {
        if (!seg)
            seg = armcii_seg_of(call, target, addr, size);
        armcii_req_t *req = armcii_exec_begin(call, &p);
        uint64_t result = 0, opnd = operand, cmp = comparand;
        uint32_t r32 = 0, o32 = (uint32_t)operand;
        armcii_net_rmw(call, &req->tok, op, size == 4 ? (void *)&r32 : (void *)&result,
                       size == 4 ? (const void *)&o32 : (const void *)&opnd, &cmp, target,
                       armcii_seg_raddr(seg, (uintptr_t)addr), armcii_seg_key(seg, target));
        armcii_exec_end(call, &p, size);
        return size == 4 ? r32 : result;
    }
    /* ... or applied by the holder's handler for libfabric's messages. */
    double t0 = armcii_serve_on() ? armcii_now() : 0;
    armcii_req_t *req = armcii_exec_begin(call, &p);
    uint64_t result = 0;
    armcii_am_rmw(call, &req->tok, op, &result, size, target, (uint64_t)(uintptr_t)addr, operand,
                  comparand);
    armcii_exec_end(call, &p, size);
    if (t0 > 0)
        armcii_serve_fabric_took(target, armcii_now() - t0);
    return size == 4 ? (uint32_t)result : result;
}
