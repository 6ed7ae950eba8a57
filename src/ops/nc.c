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
#include "mem.h"
#include "order.h"
#include "progress.h"
#include "req.h"
#include "rma.h"
#include "runtime.h"
#include "span.h"
#include "../base/acc.h"
#include "../base/common.h"
#include "../base/iter.h"
#include "../base/op.h"
#include "../base/place.h"
#include "../base/pool.h"
#include "../base/region.h"
#include "../base/select.h"
#include "../base/stats.h"
#include "../cache/getcache.h"
#include "../transport/transport.h"

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

static void local_blocks(const char *call, armcii_op_t what, int type, const void *scale,
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

const armcii_seg_t *armcii_seg_of(const char *call, int target, const void *r, size_t len)
{
    const armcii_seg_t *seg = armcii_region_find(&armcii_mem.regions, target, (uintptr_t)r, len);
    if (!seg) /* the API layer checked every block; this is a runtime defect */
        armcii_fatal(call, "internal: block %p (+%zu) of process %d lost its segment", r, len,
                     target);
    return seg;
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

/* Strided blocks up to this long go into runs (armcii_amb_add_run's limit), gathered this
 * many at a time. */
#define NC_RUN_BLOCK_MAX 64
#define NC_RUN_BATCH     256

size_t armcii_nc_pack(struct armcii_amb *b, armcii_iter_t *it)
{
    /* I/O vector entries go in runs, a bufferful of records per call (two calls per block
     * cost more than the copies of small blocks); the rest block by block. */
    size_t bytes = 0;
    if (it->vector == 1) {
        for (int g = 0; g < it->iov_len; g++) {
            const armci_giov_t *v = &it->iov[g];
            void **lv = it->local_is_src ? v->src_ptr_array : v->dst_ptr_array;
            void **rv = it->local_is_src ? v->dst_ptr_array : v->src_ptr_array;
            char *const *l = (char *const *)lv, *const *r = (char *const *)rv;
            size_t n = v->bytes > 0 && v->ptr_array_len > 0 ? (size_t)v->ptr_array_len : 0;
            size_t len = (size_t)(v->bytes > 0 ? v->bytes : 0);
            for (size_t k = 0; k < n;) {
                size_t run = armcii_amb_add_run(b, l + k, r + k, n - k, len);
                if (run == 0) { /* none open, or this one full: the general way */
                    armcii_amb_add(b, l[k], (uint64_t)(uintptr_t)r[k], len);
                    run = 1;
                }
                k += run;
            }
            bytes += n * len;
        }
    } else if (it->count[0] > 0 && it->count[0] <= NC_RUN_BLOCK_MAX) {
        /* strided blocks, all of one small length: runs, a batch of blocks at a time */
        char *ls[NC_RUN_BATCH], *rs[NC_RUN_BATCH], *l, *r;
        size_t len = (size_t)it->count[0], blen, n;
        do {
            for (n = 0; n < NC_RUN_BATCH && armcii_iter_next(it, &l, &r, &blen); n++) {
                ls[n] = l;
                rs[n] = r;
            }
            for (size_t k = 0; k < n;) {
                size_t run = armcii_amb_add_run(b, ls + k, rs + k, n - k, len);
                if (run == 0) {
                    armcii_amb_add(b, ls[k], (uint64_t)(uintptr_t)rs[k], len);
                    run = 1;
                }
                k += run;
            }
            bytes += n * len;
        } while (n == NC_RUN_BATCH);
    } else {
        char *l, *r;
        size_t len;
        while (armcii_iter_next(it, &l, &r, &len)) {
            armcii_amb_add(b, l, (uint64_t)(uintptr_t)r, len);
            bytes += len;
        }
    }
    it->g = it->iov_len; /* walked to the end, as armcii_iter_next leaves it */
    it->done = it->nblocks;
    return bytes;
}

int armcii_nc(const char *call, armcii_op_t what, int type, const void *scale, armcii_iter_t *it,
              int target, armci_hdl_t *hdl, int blocking)
{
    armcii_path_t path = armcii_path(target);
    int hw =
        what == ARMCII_OP_ACC &&
        armcii_select_acc(&armcii_rt.limits, path, armcii_acc_hw_ok(type)) == ARMCII_PROTO_ACC_HW;
    size_t min = (size_t)armcii_rt.env.NC_DIRECT_MIN;
    int any_short = any_block(it, min, 1); /* asked once */
    armcii_nc_span_t span;
    int spanned = what == ARMCII_OP_GET && path == ARMCII_PATH_FABRIC && any_short &&
                  armcii_span_plan(it, target, &span);
    if (armcii_rt.env.STATS) {
        int stat_path = hw                           ? ARMCII_ST_ATOMIC
                        : path != ARMCII_PATH_FABRIC ? ARMCII_ST_LOCAL
                        : spanned ? (armcii_select_get(&armcii_rt.limits, path, span.hi - span.lo,
                                                       0) == ARMCII_PROTO_BUFFERED
                                         ? ARMCII_ST_BUFFERED
                                         : ARMCII_ST_DIRECT)
                        : what == ARMCII_OP_ACC || any_short ? ARMCII_ST_MESSAGE
                                                             : ARMCII_ST_DIRECT;
        armcii_stat_op(what, stat_path, total_bytes(it));
    }
    if (it->nblocks == 0 || (path != ARMCII_PATH_FABRIC && !hw)) {
        armcii_order_local(call, target);
        local_blocks(call, what, type, scale, it, target);
        armcii_hdl_done(call, hdl);
        return 0;
    }
    if (what == ARMCII_OP_GET) {
        /* Served from the cache only when every block is there; a partial answer would
         * still cost the round trip. Each block is looked up as the contiguous range it
         * is, so no block ever receives bytes from outside its own range. */
        if (armcii_cache_peek_all(target, it)) {
            armcii_cache_get_blocks(target, it);
            armcii_hdl_done(call, hdl);
            return 0;
        }
        if (spanned) { /* after the open message to the target, as any get */
            armcii_put_open_send(call, target);
            armcii_span_get(call, it, &span, target, hdl, blocking);
            return 0;
        }
    } else {
        armcii_cache_write_blocks(target, it);
    }
    int small = what == ARMCII_OP_ACC ? !hw : any_short;
    armcii_req_kind_t kind = hw                      ? ARMCII_REQ_ACC_HW
                             : small                 ? ARMCII_REQ_AM
                             : what == ARMCII_OP_PUT ? ARMCII_REQ_PUT
                                                     : ARMCII_REQ_GET;
    /* Blocking calls return locally complete: gets when the data is here, puts when no
     * direct write still reads the caller's buffer; packed and staged data is copied. */
    int any_direct = what != ARMCII_OP_ACC && any_block(it, min, 0); /* asked once */
    int direct_put = what == ARMCII_OP_PUT && any_direct;
    int wait_here =
        blocking && (what == ARMCII_OP_GET || direct_put || armcii_prog.sends_need_caller);
    if (kind == ARMCII_REQ_AM && what != ARMCII_OP_GET && !direct_put &&
        armcii_open_may_join(blocking, hdl)) {
        /* every block a message record: they join the open message (src/core/rma.c) */
        if (blocking)
            armcii_order_before(call, kind, target);
        armcii_open_join_blocks(call, target, what, type, scale, it);
        return 0;
    }
    armcii_put_open_send(call, target);
    armcii_issue_t is = {.hdl = hdl, .blocking = blocking, .wait_here = wait_here};
    armcii_req_t *req = armcii_issue_ordered(call, &is, kind, target);

    char *staged = NULL;
    if (hw) { /* libfabric atomics add; stage scale * src for them, block by block */
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
    if (small)
        b = armcii_amb_begin(call, &req->tok, what, type, scale, target);
    char *l, *r;
    size_t len, bytes = 0;
    if (b && !any_direct)              /* every block a record */
        bytes = armcii_nc_pack(b, it); /* (leaves nothing for the loop) */
    while (armcii_iter_next(it, &l, &r, &len)) {
        bytes += len;
        if (hw) {
            const armcii_seg_t *seg = armcii_seg_of(call, target, r, len);
            armcii_acc_scale(type, scale, l, staged, len);
            armcii_ofi_acc_hw(call, &req->tok, type, staged, len, target,
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
                armcii_ofi_put(call, &req->tok, l, len, target, raddr, armcii_seg_key(seg, target),
                               armcii_select_put_rma(&armcii_rt.limits, len, 0));
            else
                armcii_ofi_get(call, &req->tok, l, len, target, raddr, armcii_seg_key(seg, target),
                               armcii_select_get(&armcii_rt.limits, path, len, 0));
        }
    }
    if (b)
        armcii_amb_end(b);
    armcii_issue_end(call, &is, bytes);
    return 0;
}
