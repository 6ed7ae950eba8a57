/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Contiguous put, get and accumulate: the API layer has checked the arguments and
 * found the target segment; here the selector picks the protocol and the request is
 * issued. Blocking calls return locally complete; when a protocol already copied the
 * source (inject, bounce buffer, software accumulate, staged atomics) the remainder is
 * tracked like an implicit operation and completed by fences and WaitAll.
 */
#include <stdlib.h>
#include <string.h>

#include "rma.h"
#include "dgram.h"
#include "local.h"
#include "exec.h"
#include "../core/mem.h"
#include "open.h"
#include "../core/progress.h"
#include "../core/req.h"
#include "../core/runtime.h"
#include "../base/acc.h"
#include "../base/common.h"
#include "../base/hot.h"
#include "../base/op.h"
#include "../base/pool.h"
#include "../base/region.h"
#include "../base/select.h"
#include "../base/stats.h"
#include "../cache/getcache.h"
#include "../transport/transport.h"

static uint64_t remote_addr(const armcii_seg_t *seg, const void *addr)
{
    return armcii_seg_raddr(seg, (uintptr_t)addr);
}

ARMCII_HOT int armcii_get(const char *call, const void *src, void *dst, size_t len, int target,
                          const armcii_seg_t *seg, armci_hdl_t *hdl, int blocking)
{
    armcii_path_t path = armcii_path(target);
    if (len == 0 || path != ARMCII_PATH_FABRIC) {
        armcii_local_copy(call, ARMCII_OP_GET, target, dst, src, len, hdl, 0);
        return 0;
    }
    void *fill = NULL;
    if (seg->alloc->cache.mode != ARMCIX_CACHE_OFF) {
        if (armcii_cache_get(target, src, dst, len)) {
            armcii_hdl_done(call, hdl);
            return 0;
        }
        fill = armcii_cache_fill_start(&seg->alloc->cache, target, src, dst, len);
    }
    /* A small blocking one to a holder that computes goes as a datagram its own thread
     * serves (dgram.c), with the accumulates waiting in the open datagram to it. */
    if (!fill && blocking && armcii_dgram_get(call, src, dst, len, target)) {
        armcii_exec_count(ARMCII_OP_GET, ARMCII_ST_MESSAGE, (long)len);
        return 0;
    }
    double t0 = blocking && len <= ARMCII_SERVE_DATA_MAX && armcii_serve_on() ? armcii_now() : 0;
    armcii_proto_t proto = armcii_select_get(&armcii_rt.limits, path, len, 0);
    armcii_plan_t p = {
        .what = ARMCII_OP_GET,
        .target = target,
        .hdl = hdl,
        .blocking = blocking,
        .kind = ARMCII_REQ_GET,
        .wait_here = 1, /* (a get's data) */
        .stat = proto == ARMCII_PROTO_BUFFERED ? ARMCII_ST_BUFFERED : ARMCII_ST_DIRECT,
        .bytes = (long)len,
    };
    armcii_req_t *req = armcii_exec_begin(call, &p);
    if (fill) { /* read into a record of ours; completion delivers to dst and fills */
        req->scratch = fill;
        req->on_release = armcii_cache_fill_end; /* delivers, then keeps a copy */
        dst = armcii_cache_fill_data(fill);
    }
    armcii_net_get(call, &req->tok, dst, len, target, remote_addr(seg, src),
                   armcii_seg_key(seg, target), proto);
    armcii_exec_end(call, &p, len);
    if (t0 > 0) /* (a long one: the holder computes, the next goes by datagram) */
        armcii_serve_fabric_took(target, armcii_now() - t0);
    return 0;
}

ARMCII_HOT int armcii_put(const char *call, const void *src, void *dst, size_t len, int target,
                          const armcii_seg_t *seg, armci_hdl_t *hdl, int blocking)
{
    armcii_path_t path = armcii_path(target);
    if (len == 0 || path != ARMCII_PATH_FABRIC) {
        armcii_local_copy(call, ARMCII_OP_PUT, target, dst, src, len, hdl, 0);
        return 0;
    }
    armcii_cache_write(target, dst, len);
    armcii_proto_t proto = armcii_select_put(&armcii_rt.limits, path, len, 0);
    armcii_plan_t p = {
        .what = ARMCII_OP_PUT,
        .target = target,
        .hdl = hdl,
        .blocking = blocking,
        .kind = ARMCII_REQ_PUT,
        /* A buffered put is locally complete once copied: even a blocking one returns,
         * unless nothing would move it on once the caller leaves ARMCI. */
        .wait_here = proto == ARMCII_PROTO_DIRECT || armcii_prog.sends_need_caller,
        .stat = proto == ARMCII_PROTO_INJECT     ? ARMCII_ST_INJECT
                : proto == ARMCII_PROTO_BUFFERED ? ARMCII_ST_BUFFERED
                : proto == ARMCII_PROTO_MESSAGE  ? ARMCII_ST_MESSAGE
                                                 : ARMCII_ST_DIRECT,
        .bytes = (long)len,
    };
    if (proto == ARMCII_PROTO_MESSAGE) {
        /* Copied into a bounce buffer, so locally complete at once; the target's
         * acknowledgement completes the request, and a later get or direct write to that
         * target waits for it. */
        if (armcii_open_may_join(blocking, hdl)) {
            armcii_exec_join(call, &p);
            armcii_open_join(call, target, ARMCII_OP_PUT, 0, NULL, src, dst, len);
            return 0;
        }
        p.kind = ARMCII_REQ_AM;
        p.wait_here = blocking && armcii_prog.sends_need_caller;
        armcii_req_t *req = armcii_exec_begin(call, &p);
        armcii_amb_t *b = armcii_amb_begin(call, &req->tok, ARMCII_OP_PUT, 0, NULL, target);
        armcii_amb_add(b, (char *)(uintptr_t)src, (uint64_t)(uintptr_t)dst, len);
        if (blocking && !p.wait_here)
            armcii_amb_end_lazy(b);
        else
            armcii_amb_end(b);
        armcii_exec_end(call, &p, len);
        return 0;
    }
    uint64_t raddr = remote_addr(seg, dst);
    if (proto == ARMCII_PROTO_INJECT) {
        armcii_exec_unrequested(call, &p);
        armcii_net_put(call, NULL, src, len, target, raddr, armcii_seg_key(seg, target), proto);
        armcii_hdl_done(call, hdl);
        return 0;
    }
    armcii_req_t *req = armcii_exec_begin(call, &p);
    armcii_net_put(call, &req->tok, src, len, target, raddr, armcii_seg_key(seg, target), proto);
    armcii_exec_end(call, &p, len);
    return 0;
}

/*
 * Put, then set a flag at the target once the data is there. Over the fabric the data and
 * the flag travel as active messages (one up to a bounce buffer), the flag in the last:
 * the target applies one origin's messages in order, so one one-way trip replaces a
 * write, a fence's round trip and a second write. Returns locally complete, the data
 * copied out. With @p hdl (ARMCIX_NbPut_flag) the handle completes on the target's
 * acknowledgement; without, fences and WaitAll wait for it like any other.
 */
void armcii_put_flag(const char *call, const void *src, void *dst, const armcii_seg_t *seg,
                     size_t len, int *flag, int value, int target, armci_hdl_t *hdl)
{
    armcii_path_t path = armcii_path(target);
    if (path != ARMCII_PATH_FABRIC) {
        armcii_local_copy(call, ARMCII_OP_PUT, target, dst, src, len, hdl, 1);
        /* A fence, not only a release store: a large copy may use non-temporal stores. */
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        __atomic_store_n(flag, value, __ATOMIC_RELEASE);
        return;
    }
    if (!hdl && len > armcii_rt.limits.bounce_size) {
        /* Beyond one bounce buffer a blocking call writes the data zero-copy and sends the
         * flag once it has landed: copying through several messages costs more than that
         * wait (a 256 KiB ping-pong over tcp took two thirds longer as messages). */
        armcii_put(call, src, dst, len, target, seg, NULL, 1);
        src = dst = NULL;
        len = 0;
    }
    armcii_cache_write(target, dst, len);
    armcii_cache_write(target, flag, sizeof(int));
    armcii_plan_t p = {
        .what = ARMCII_OP_PUT,
        .target = target,
        .hdl = hdl,
        .blocking = !hdl,
        .in_order = 1, /* the flag follows every earlier write, with a handle or without */
        .kind = ARMCII_REQ_AM,
        .wait_here = armcii_prog.sends_need_caller,
        .stat = ARMCII_ST_MESSAGE,
        .bytes = (long)len,
    };
    armcii_req_t *req = armcii_exec_begin(call, &p);
    armcii_amb_t *b = armcii_amb_begin(call, &req->tok, ARMCII_OP_PUT, 0, NULL, target);
    armcii_amb_add(b, (char *)(uintptr_t)src, (uint64_t)(uintptr_t)dst, len);
    armcii_amb_end_flag(b, (uint64_t)(uintptr_t)flag, value);
    armcii_exec_end(call, &p, len);
}

ARMCII_HOT int armcii_acc(const char *call, int type, const void *scale, const void *src, void *dst,
                          size_t len, int target, const armcii_seg_t *seg, armci_hdl_t *hdl,
                          int blocking)
{
    armcii_path_t path = armcii_path(target);
    armcii_proto_t proto = armcii_select_acc(&armcii_rt.limits, path, armcii_acc_hw_ok(type));
    if (len == 0 || proto == ARMCII_PROTO_LOCAL) {
        armcii_local_acc(call, type, scale, src, dst, len, target, hdl);
        return 0;
    }
    armcii_cache_write(target, dst, len);
    int hw = proto == ARMCII_PROTO_ACC_HW;
    armcii_plan_t p = {
        .what = ARMCII_OP_ACC,
        .target = target,
        .hdl = hdl,
        .blocking = blocking,
        .kind = hw ? ARMCII_REQ_ACC_HW : ARMCII_REQ_AM,
        /* Both protocols copy the source before returning, so blocking calls need not
         * wait (unless nothing would move the data on once the caller leaves ARMCI). */
        .wait_here = blocking && armcii_prog.sends_need_caller,
        .stat = hw ? ARMCII_ST_ATOMIC : ARMCII_ST_MESSAGE,
        .bytes = (long)len,
    };
    /* To a holder that computes, small ones join the open datagram (dgram.c); without a
     * progress thread to send it later, a blocking one sends it and waits for its answer,
     * as a message would wait for its arrival (wait_here). */
    int may_join = !hw && armcii_open_may_join(blocking, hdl);
    if ((may_join || (!hw && p.wait_here)) && path == ARMCII_PATH_FABRIC &&
        armcii_dgram_acc(call, type, scale, src, dst, len, target)) {
        armcii_exec_count(ARMCII_OP_ACC, p.stat, p.bytes);
        if (!may_join)
            armcii_wait_datagrams(call, target);
        return 0;
    }
    if (may_join) {
        armcii_exec_join(call, &p);
        armcii_open_join(call, target, ARMCII_OP_ACC, type, scale, src, dst, len);
        return 0;
    }
    armcii_req_t *req = armcii_exec_begin(call, &p);
    if (hw) {
        void *staged = req->stage; /* lives in the request until it completes */
        if (len > sizeof(req->stage) && !(staged = req->scratch = malloc(len)))
            armcii_fatal(call, "out of memory staging %zu bytes", len);
        if (armcii_acc_scale_is_one(type, scale))
            memcpy(staged, src, len);
        else
            armcii_acc_scale(type, scale, src, staged, len);
        armcii_net_acc(call, &req->tok, type, staged, len, target, remote_addr(seg, dst),
                       armcii_seg_key(seg, target));
    } else {
        armcii_amb_t *b = armcii_amb_begin(call, &req->tok, ARMCII_OP_ACC, type, scale, target);
        armcii_amb_add(b, (char *)src, (uint64_t)(uintptr_t)dst, len);
        armcii_amb_end(b);
    }
    armcii_exec_end(call, &p, len);
    return 0;
}
