/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Noncontiguous operations (strided and vector).
 *
 * Same node: the blocks are copied, or accumulated under the target's lock taken once.
 * Fabric: each block of at least ARMCI_NC_DIRECT_MIN bytes is one zero-copy RMA
 * operation; smaller blocks are packed into active messages, because a round trip per
 * small block is what makes row-by-row transfers slow (one fi_read per row of a 64 x 64 B
 * patch costs 64 round trips); a get whose small blocks lie close together reads the range
 * they span instead (span.c). Accumulates take libfabric atomics block by
 * block where those are in use, active messages otherwise. All parts of one call belong
 * to one request.
 */
#include <stdlib.h>
#include <string.h>

#include "nc.h"
#include "exec.h"
#include "local.h"
#include "open.h"
#include "../core/mem.h"
#include "../core/progress.h"
#include "../core/req.h"
#include "../core/runtime.h"
#include "span.h"
#include "../base/acc.h"
#include "../base/common.h"
#include "../base/iter.h"
#include "../base/op.h"
#include "../base/pool.h"
#include "../base/region.h"
#include "../base/select.h"
#include "../base/stats.h"
#include "../cache/getcache.h"
#include "../transport/transport.h"

/* The statistics column of a spanned get: how its one read of the range goes (asked only
 * where ARMCI_STATS counts it). */
static int span_stat(armcii_path_t path, const armcii_nc_span_t *span)
{
    return armcii_select_get(&armcii_rt.limits, path, span->hi - span->lo, 0) ==
                   ARMCII_PROTO_BUFFERED
               ? ARMCII_ST_BUFFERED
               : ARMCII_ST_DIRECT;
}

/* Is any block shorter (@p shorter) or not shorter than @p min bytes? */
static int any_block(const armcii_iter_t *it, size_t min, int shorter)
{
    if (!it->vector)
        return ((size_t)it->count[0] < min) == shorter;
    for (int g = 0; g < it->iov_len; g++)
        if (it->iov[g].ptr_array_len > 0 && it->iov[g].bytes > 0 &&
            ((size_t)it->iov[g].bytes < min) == shorter)
            return 1;
    return 0;
}

/* Bytes the blocks of @p it add up to (for the statistics). */
static long total_bytes(const armcii_iter_t *it)
{
    if (!it->vector)
        return (long)it->nblocks * it->count[0];
    armcii_iter_t pass = *it;
    char *l, *r;
    size_t len;
    long total = 0;
    while (armcii_iter_next(&pass, &l, &r, &len))
        total += (long)len;
    return total;
}

/* How a strided or vector operation goes: the executor's plan and what the blocks ask. */
typedef struct {
    armcii_plan_t p;
    int local;             /* a copy, or an accumulate under the target's lock, on the node */
    int hw;                /* accumulates through libfabric's atomics, block by block */
    int small;             /* blocks go as message records (every one, for accumulates) */
    int any_direct;        /* a put's or get's block long enough for RMA */
    int join;              /* every block a record, joining the open message */
    int spanned;           /* a get read as the range its blocks span */
    armcii_nc_span_t span; /* (spanned) */
} nc_plan_t;

static void plan(nc_plan_t *n, armcii_op_t what, int type, armcii_iter_t *it, int target,
                 armci_hdl_t *hdl, int blocking)
{
    armcii_path_t path = armcii_path(target);
    n->hw =
        what == ARMCII_OP_ACC &&
        armcii_select_acc(&armcii_rt.limits, path, armcii_acc_hw_ok(type)) == ARMCII_PROTO_ACC_HW;
    n->local = it->nblocks == 0 || (path != ARMCII_PATH_FABRIC && !n->hw);
    if (n->local) { /* the blocks' lengths decide nothing on the node: not read */
        n->small = n->any_direct = n->join = n->spanned = 0;
        n->p = (armcii_plan_t){
            .what = what,
            .target = target,
            .hdl = hdl,
            .blocking = blocking,
            .stat = ARMCII_ST_LOCAL,
            .bytes = armcii_rt.env.STATS ? total_bytes(it) : 0,
        };
        return;
    }
    size_t min = (size_t)armcii_rt.env.NC_DIRECT_MIN;
    int any_short = any_block(it, min, 1); /* asked once */
    n->spanned = what == ARMCII_OP_GET && any_short && armcii_span_plan(it, target, &n->span);
    n->small = what == ARMCII_OP_ACC ? !n->hw : any_short;
    n->any_direct = what != ARMCII_OP_ACC && any_block(it, min, 0); /* asked once */
    int direct_put = what == ARMCII_OP_PUT && n->any_direct;
    /* Blocking calls return locally complete: gets when the data is here, puts when no
     * direct write still reads the caller's buffer; packed and staged data is copied. */
    n->p = (armcii_plan_t){
        .what = what,
        .target = target,
        .hdl = hdl,
        .blocking = blocking,
        .kind = n->hw                   ? ARMCII_REQ_ACC_HW
                : n->spanned            ? ARMCII_REQ_GET /* (one read) */
                : n->small              ? ARMCII_REQ_AM
                : what == ARMCII_OP_PUT ? ARMCII_REQ_PUT
                                        : ARMCII_REQ_GET,
        .wait_here =
            blocking && (what == ARMCII_OP_GET || direct_put || armcii_prog.sends_need_caller),
        .stat = n->hw        ? ARMCII_ST_ATOMIC
                : n->spanned ? (armcii_rt.env.STATS ? span_stat(path, &n->span) : ARMCII_ST_DIRECT)
                : n->small   ? ARMCII_ST_MESSAGE
                             : ARMCII_ST_DIRECT,
        .bytes = armcii_rt.env.STATS ? total_bytes(it) : 0,
    };
    n->join = n->p.kind == ARMCII_REQ_AM && what != ARMCII_OP_GET && !direct_put &&
              armcii_open_may_join(blocking, hdl);
}

/* The request of a plan that takes one: every block posted on it, as a record of a message,
 * a staged atomic, or one RMA operation. */
static void post(const char *call, nc_plan_t *n, int type, const void *scale, armcii_iter_t *it)
{
    armcii_op_t what = n->p.what;
    int target = n->p.target;
    size_t min = (size_t)armcii_rt.env.NC_DIRECT_MIN;
    armcii_req_t *req = armcii_exec_begin(call, &n->p);
    char *staged = NULL;
    if (n->hw) { /* libfabric atomics add; stage scale * src for them, block by block */
        size_t total = 0;
        armcii_iter_t pass = *it;
        char *l, *r;
        size_t len;
        while (armcii_iter_next(&pass, &l, &r, &len))
            total += len;
        staged = req->scratch = malloc(total);
        if (!staged)
            armcii_fatal(call, "out of memory staging %zu bytes", total);
    }
    armcii_amb_t *b = NULL;
    if (n->small)
        b = armcii_amb_begin(call, &req->tok, what, type, scale, target);
    char *l, *r;
    size_t len, bytes = 0;
    if (b && !n->any_direct)           /* every block a record */
        bytes = armcii_nc_pack(b, it); /* (leaves nothing for the loop) */
    while (armcii_iter_next(it, &l, &r, &len)) {
        bytes += len;
        if (n->hw) {
            const armcii_seg_t *seg = armcii_seg_of(call, target, r, len);
            armcii_acc_scale(type, scale, l, staged, len);
            armcii_net_acc(call, &req->tok, type, staged, len, target,
                           armcii_seg_raddr(seg, (uintptr_t)r), armcii_seg_key(seg, target));
            staged += len;
        } else if (len < min || what == ARMCII_OP_ACC) {
            armcii_amb_add(b, l, (uint64_t)(uintptr_t)r, len);
        } else {
            const armcii_seg_t *seg = armcii_seg_of(call, target, r, len);
            uint64_t raddr = armcii_seg_raddr(seg, (uintptr_t)r);
            /* (a block this long moves by RMA: never as a message, whatever
             * ARMCI_PUT_MESSAGE_MAX says of contiguous puts) */
            if (what == ARMCII_OP_PUT)
                armcii_net_put(call, &req->tok, l, len, target, raddr, armcii_seg_key(seg, target),
                               armcii_select_put_rma(&armcii_rt.limits, len, 0));
            else
                armcii_net_get(call, &req->tok, l, len, target, raddr, armcii_seg_key(seg, target),
                               armcii_select_get(&armcii_rt.limits, ARMCII_PATH_FABRIC, len, 0));
        }
    }
    if (b)
        armcii_amb_end(b);
    armcii_exec_end(call, &n->p, bytes);
}

int armcii_nc(const char *call, armcii_op_t what, int type, const void *scale, armcii_iter_t *it,
              int target, armci_hdl_t *hdl, int blocking)
{
    nc_plan_t n;
    plan(&n, what, type, it, target, hdl, blocking);
    if (n.local) {
        armcii_local_blocks(call, what, type, scale, it, target, hdl, n.p.bytes);
    } else if (what == ARMCII_OP_GET && armcii_cache_peek_all(target, it)) {
        /* Served from the cache only when every block is there; a partial answer would
         * still cost the round trip. Each block is looked up as the contiguous range it
         * is, so no block ever receives bytes from outside its own range. */
        armcii_exec_count(what, n.p.stat, n.p.bytes);
        armcii_cache_get_blocks(target, it);
        armcii_hdl_done(call, hdl);
    } else if (n.spanned) {
        armcii_span_get(call, it, &n.span, &n.p);
    } else {
        if (what != ARMCII_OP_GET)
            armcii_cache_write_blocks(target, it);
        if (n.join) { /* every block a message record: they join the open message (open.c) */
            armcii_exec_join(call, &n.p);
            armcii_open_join_blocks(call, target, what, type, scale, it);
        } else {
            post(call, &n, type, scale, it);
        }
    }
    return 0;
}
