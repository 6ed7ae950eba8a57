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
#include "mem.h"
#include "nc.h"
#include "order.h"
#include "progress.h"
#include "req.h"
#include "runtime.h"
#include "../base/acc.h"
#include "../base/common.h"
#include "../base/hot.h"
#include "../base/iter.h"
#include "../base/op.h"
#include "../base/place.h"
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

/* Self and same node (and nothing to move): a copy, complete within the call, placed as
 * ARMCI_PLACEMENT says (src/base/place.c); @p announced: a flag follows the data. */
ARMCII_HOT static void local_copy(const char *call, int target, void *dst, const void *src,
                                  size_t len, armci_hdl_t *hdl, armcii_op_t kind, int announced)
{
    armcii_stat_op(kind, ARMCII_ST_LOCAL, (long)len);
    armcii_order_local(call, target);
    armcii_place_copy(dst, src, len, announced);
    armcii_hdl_done(call, hdl);
}

ARMCII_HOT int armcii_acc_unlocked(const char *call, int type, const void *scale, const void *src,
                                   void *dst, size_t len, int target)
{
    /* As for copies (armcii_copy_unlocked, rma.h); and where accumulates take libfabric
     * atomics (to node peers too, to stay atomic with remote peers' atomics) this is not
     * the way. */
    size_t es = armcii_acc_type_size(type);
    if (!armcii_rt.one_caller || armcii_rt.limits.acc_hw || len == 0 || es == 0 || len % es != 0 ||
        target < 0 || target >= armcii_rt.nproc || armcii_path(target) != ARMCII_PATH_SHM ||
        armcii_select_acc(&armcii_rt.limits, ARMCII_PATH_SHM, armcii_acc_hw_ok(type)) !=
            ARMCII_PROTO_LOCAL ||
        !armcii_region_find_fast(&armcii_mem.regions, target, (uintptr_t)dst, len))
        return 0;
    armcii_stat_op(ARMCII_OP_ACC, ARMCII_ST_LOCAL, (long)len);
    armcii_shm_acc(call, armcii_slot_of(target), type, scale, src, dst, len);
    return 1;
}

ARMCII_HOT int armcii_get(const char *call, const void *src, void *dst, size_t len, int target,
                          const armcii_seg_t *seg, armci_hdl_t *hdl, int blocking)
{
    armcii_path_t path = armcii_path(target);
    if (len == 0 || path != ARMCII_PATH_FABRIC) {
        local_copy(call, target, dst, src, len, hdl, ARMCII_OP_GET, 0);
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
        armcii_stat_op(ARMCII_OP_GET, ARMCII_ST_MESSAGE, (long)len);
        return 0;
    }
    armcii_put_open_send(call, target);
    double t0 = blocking && len <= ARMCII_SERVE_DATA_MAX && armcii_serve_on() ? armcii_now() : 0;
    armcii_proto_t proto = armcii_select_get(&armcii_rt.limits, path, len, 0);
    armcii_stat_op(ARMCII_OP_GET,
                   proto == ARMCII_PROTO_BUFFERED ? ARMCII_ST_BUFFERED : ARMCII_ST_DIRECT,
                   (long)len);
    armcii_issue_t is = {.hdl = hdl, .blocking = blocking, .wait_here = 1}; /* (a get's data) */
    armcii_req_t *req = armcii_issue_ordered(call, &is, ARMCII_REQ_GET, target);
    if (fill) { /* read into a record of ours; completion delivers to dst and fills */
        req->scratch = fill;
        req->on_release = armcii_cache_fill_end; /* delivers, then keeps a copy */
        dst = armcii_cache_fill_data(fill);
    }
    armcii_ofi_get(call, &req->tok, dst, len, target, remote_addr(seg, src),
                   armcii_seg_key(seg, target), proto);
    armcii_issue_end(call, &is, len);
    if (t0 > 0) /* (a long one: the holder computes, the next goes by datagram) */
        armcii_serve_fabric_took(target, armcii_now() - t0);
    return 0;
}

/*
 * Open messages. A blocking put or accumulate that goes as a message is locally complete
 * once its bytes are in the bounce buffer, so the message need not leave yet: the next
 * blocking one of the same kind (for accumulates: of the same type and scale) to the same
 * target joins it (so do implicit nonblocking ones, and strided and vector ones whose
 * blocks all go as messages), and 1000 of them take a handful of sends instead of 1000 (as ComEx
 * over MPI-3 queues its puts and accumulates in Open MPI's osc/pt2pt until the fence). One
 * of another kind sends the open message and opens its own: the target applies one
 * origin's messages in order, so the two stay in the order they were issued.
 * The message goes before anything else is issued to its target or waited for (every
 * operation to a target calls armcii_put_open_send; so do armcii_wait_zero and
 * armcii_req_wait_gen, and every poll of a wait), when it is full (the builder sends it
 * and starts another), when another target needs its slot (open_slots), and from the
 * progress thread once a pass saw no put join it: data never waits for the application's
 * next ARMCI call. Under the runtime lock, like everything here.
 */
#define OPEN_SLOTS 8

typedef struct {
    armcii_amb_t *b; /* NULL: the slot is free */
    armcii_req_t *req;
    size_t bytes;
    int target;
    int joined;       /* an operation joined since the progress thread's last pass */
    armcii_op_t what; /* ARMCII_OP_PUT or ARMCII_OP_ACC */
    int type;         /* accumulates: the element type and scale */
    unsigned char scale[16];
} open_msg_t;

static open_msg_t open_msgs[OPEN_SLOTS];
/* The target of each slot's open message, plus one (0: the slot is free): one line,
 * looked through only while some message is open, so that an operation to a target
 * with none reads armcii_put_open_count alone. */
static int open_target[OPEN_SLOTS];
static int open_next;
/* The message a put is being added to: a wait inside the builder (for a free bounce
 * buffer, which may be held by the other open messages) sends the others, never it. */
static open_msg_t *building;
int armcii_put_open_count;

/* 1 + the slot of @p target's open message, 0 when it has none. */
static int open_slot_of(int target)
{
    if (armcii_put_open_count == 0)
        return 0;
    for (int s = 0; s < OPEN_SLOTS; s++)
        if (open_target[s] == target + 1)
            return s + 1;
    return 0;
}

/* Each open message holds a bounce buffer: at most one eighth of them (ARMCI_BOUNCE_COUNT)
 * are held so, and at least one. */
static int open_slots(void)
{
    long n = armcii_rt.env.BOUNCE_COUNT / 8;
    return n < 1 ? 1 : n > OPEN_SLOTS ? OPEN_SLOTS : (int)n;
}

/* @p waited: the caller waits for its acknowledgement next (a fence, a get from the
 * target): asked for now, rather than deferred and then asked for by a message more. */
static void open_send(const char *call, open_msg_t *o, int waited)
{
    open_target[o - open_msgs] = 0;
    armcii_put_open_count--;
    armcii_amb_t *b = o->b;
    armcii_req_t *req = o->req;
    size_t bytes = o->bytes;
    o->b = NULL;
    o->req = NULL;
    if (waited)
        armcii_amb_end(b);
    else
        armcii_amb_end_lazy(b);
    armcii_req_finish(call, req, 1, 0, bytes);
}

static void send_one(const char *call, int target, int waited)
{
    int s = open_slot_of(target);
    if (s && &open_msgs[s - 1] != building)
        open_send(call, &open_msgs[s - 1], waited);
}

static void send_all(const char *call, int waited)
{
    for (int s = 0; s < OPEN_SLOTS && armcii_put_open_count > 0; s++)
        if (open_msgs[s].b && &open_msgs[s] != building)
            open_send(call, &open_msgs[s], waited);
}

void armcii_put_open_send(const char *call, int target)
{
    armcii_datagrams_before(call, target);
    send_one(call, target, 0);
}

void armcii_put_open_send_all(const char *call)
{
    send_all(call, 0);
}

void armcii_put_open_send_waited(const char *call, int target)
{
    if (target >= 0)
        send_one(call, target, 1);
    else
        send_all(call, 1);
}

void armcii_put_open_age(void)
{
    for (int s = 0; s < OPEN_SLOTS && armcii_put_open_count > 0; s++) {
        open_msg_t *o = &open_msgs[s];
        if (!o->b)
            continue;
        if (o->joined)
            o->joined = 0;
        else
            open_send("armci progress (an open put message)", o, 0);
    }
}

static int open_fits(const open_msg_t *o, armcii_op_t what, int type, const void *scale)
{
    return o->what == what &&
           (what != ARMCII_OP_ACC ||
            (o->type == type && memcmp(o->scale, scale, armcii_acc_type_size(type)) == 0));
}

/* The open message to @p target for an operation @p what (accumulates: of @p type and
 * @p scale); one open for something else is sent first. */
static open_msg_t *open_msg(const char *call, int target, armcii_op_t what, int type,
                            const void *scale)
{
    int s = open_slot_of(target);
    if (s && open_fits(&open_msgs[s - 1], what, type, scale))
        return &open_msgs[s - 1];
    if (s)
        open_send(call, &open_msgs[s - 1], 0);
    open_msg_t *o = &open_msgs[open_next];
    open_next = (open_next + 1) % open_slots();
    if (o->b)
        open_send(call, o, 0);
    o->target = target;
    o->bytes = 0;
    o->req = armcii_req_new(call, ARMCII_REQ_AM, target, 1);
    armcii_req_copied(&o->req->tok); /* not in flight: the progress thread need not poll for it */
    o->what = what;
    o->type = type;
    if (what == ARMCII_OP_ACC)
        memcpy(o->scale, scale, armcii_acc_type_size(type));
    o->b = armcii_amb_begin(call, &o->req->tok, what, type, scale, target);
    open_target[o - open_msgs] = target + 1;
    armcii_put_open_count++;
    return o;
}

void armcii_put_open_init(void)
{
    static const armcii_held_t open_held = {
        .count = &armcii_put_open_count,
        .send_all = armcii_put_open_send_all,
        .send_waited = armcii_put_open_send_waited,
        .age = armcii_put_open_age,
    };
    armcii_progress_hold(&open_held);
}

int armcii_open_may_join(int blocking, const armci_hdl_t *hdl)
{
    /* An implicit nonblocking operation is completed by fences and WaitAll alone, which
     * send the open message first: it may join as a blocking one does. Without progress
     * threads nothing would send a message left open once the caller leaves ARMCI. */
    return (blocking || !hdl) && !armcii_prog.sends_need_caller && armcii_rt.env.PUT_COMBINE;
}

/* Adds one block to @p o, which it joins. */
static void open_add(open_msg_t *o, const char *src, void *dst, size_t len)
{
    building = o; /* a wait for a bounce buffer inside the builder must not send it */
    armcii_amb_add(o->b, (char *)(uintptr_t)src, (uint64_t)(uintptr_t)dst, len);
    building = NULL;
    o->bytes += len;
    o->joined = 1;
}

/* A contiguous put or accumulate joins the open message to @p target. */
static void open_join(const char *call, int target, armcii_op_t what, int type, const void *scale,
                      const void *src, void *dst, size_t len)
{
    open_add(open_msg(call, target, what, type, scale), src, dst, len);
}

void armcii_open_join_blocks(const char *call, int target, armcii_op_t what, int type,
                             const void *scale, armcii_iter_t *it)
{
    open_msg_t *o = open_msg(call, target, what, type, scale);
    building = o; /* a wait for a bounce buffer inside the builder must not send it */
    size_t bytes = armcii_nc_pack(o->b, it);
    building = NULL;
    o->bytes += bytes;
    o->joined |= bytes > 0;
}

ARMCII_HOT int armcii_put(const char *call, const void *src, void *dst, size_t len, int target,
                          const armcii_seg_t *seg, armci_hdl_t *hdl, int blocking)
{
    armcii_path_t path = armcii_path(target);
    if (len == 0 || path != ARMCII_PATH_FABRIC) {
        local_copy(call, target, dst, src, len, hdl, ARMCII_OP_PUT, 0);
        return 0;
    }
    armcii_cache_write(target, dst, len);
    armcii_proto_t proto = armcii_select_put(&armcii_rt.limits, path, len, 0);
    armcii_stat_op(ARMCII_OP_PUT,
                   proto == ARMCII_PROTO_INJECT     ? ARMCII_ST_INJECT
                   : proto == ARMCII_PROTO_BUFFERED ? ARMCII_ST_BUFFERED
                   : proto == ARMCII_PROTO_MESSAGE  ? ARMCII_ST_MESSAGE
                                                    : ARMCII_ST_DIRECT,
                   (long)len);
    if (proto == ARMCII_PROTO_MESSAGE) {
        /* Copied into a bounce buffer, so locally complete at once; the target's
         * acknowledgement completes the request, and a later get or direct write to that
         * target waits for it (armcii_order_before). */
        if (blocking)
            armcii_order_before(call, ARMCII_REQ_AM, target);
        int wait_here = blocking && armcii_prog.sends_need_caller;
        if (armcii_open_may_join(blocking, hdl)) {
            open_join(call, target, ARMCII_OP_PUT, 0, NULL, src, dst, len);
            return 0;
        }
        armcii_put_open_send(call, target); /* this one must not overtake it */
        armcii_issue_t is = {.hdl = hdl, .blocking = blocking, .wait_here = wait_here};
        armcii_req_t *req = armcii_issue_begin(call, &is, ARMCII_REQ_AM, target);
        armcii_amb_t *b = armcii_amb_begin(call, &req->tok, ARMCII_OP_PUT, 0, NULL, target);
        armcii_amb_add(b, (char *)(uintptr_t)src, (uint64_t)(uintptr_t)dst, len);
        if (blocking && !wait_here)
            armcii_amb_end_lazy(b);
        else
            armcii_amb_end(b);
        armcii_issue_end(call, &is, len);
        return 0;
    }
    armcii_put_open_send(call, target);
    if (blocking)
        armcii_order_before(call, ARMCII_REQ_PUT, target);
    else
        armcii_order_after_messages(call, target);
    uint64_t raddr = remote_addr(seg, dst);
    if (proto == ARMCII_PROTO_INJECT) {
        armcii_ofi_put(call, NULL, src, len, target, raddr, armcii_seg_key(seg, target), proto);
        armcii_hdl_done(call, hdl);
        return 0;
    }
    /* A buffered put is locally complete once copied: even a blocking one returns,
     * unless nothing would move it on once the caller leaves ARMCI. */
    armcii_issue_t is = {
        .hdl = hdl,
        .blocking = blocking,
        .wait_here = proto == ARMCII_PROTO_DIRECT || armcii_prog.sends_need_caller,
    };
    armcii_req_t *req = armcii_issue_begin(call, &is, ARMCII_REQ_PUT, target);
    armcii_ofi_put(call, &req->tok, src, len, target, raddr, armcii_seg_key(seg, target), proto);
    armcii_issue_end(call, &is, len);
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
        local_copy(call, target, dst, src, len, hdl, ARMCII_OP_PUT, 1);
        /* A fence, not only a release store: a large copy may use non-temporal stores. */
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        __atomic_store_n(flag, value, __ATOMIC_RELEASE);
        return;
    }
    armcii_put_open_send(call, target);
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
    armcii_stat_op(ARMCII_OP_PUT, ARMCII_ST_MESSAGE, (long)len);
    armcii_order_before(call, ARMCII_REQ_AM, target);
    armcii_issue_t is = {.hdl = hdl, .blocking = !hdl, .wait_here = armcii_prog.sends_need_caller};
    armcii_req_t *req = armcii_issue_begin(call, &is, ARMCII_REQ_AM, target);
    armcii_amb_t *b = armcii_amb_begin(call, &req->tok, ARMCII_OP_PUT, 0, NULL, target);
    armcii_amb_add(b, (char *)(uintptr_t)src, (uint64_t)(uintptr_t)dst, len);
    armcii_amb_end_flag(b, (uint64_t)(uintptr_t)flag, value);
    armcii_issue_end(call, &is, len);
}

ARMCII_HOT int armcii_acc(const char *call, int type, const void *scale, const void *src, void *dst,
                          size_t len, int target, const armcii_seg_t *seg, armci_hdl_t *hdl,
                          int blocking)
{
    armcii_path_t path = armcii_path(target);
    armcii_proto_t proto = armcii_select_acc(&armcii_rt.limits, path, armcii_acc_hw_ok(type));
    armcii_stat_op(ARMCII_OP_ACC,
                   proto == ARMCII_PROTO_LOCAL    ? ARMCII_ST_LOCAL
                   : proto == ARMCII_PROTO_ACC_HW ? ARMCII_ST_ATOMIC
                                                  : ARMCII_ST_MESSAGE,
                   (long)len);
    if (len == 0 || proto == ARMCII_PROTO_LOCAL) {
        armcii_order_local(call, target);
        if (len > 0)
            armcii_shm_acc(call, armcii_slot_of(target), type, scale, src, dst, len);
        armcii_hdl_done(call, hdl);
        return 0;
    }
    armcii_cache_write(target, dst, len);
    armcii_req_kind_t kind = proto == ARMCII_PROTO_ACC_HW ? ARMCII_REQ_ACC_HW : ARMCII_REQ_AM;
    /* Both protocols copy the source before returning, so blocking calls need not wait
     * (unless nothing would move the data on once the caller leaves ARMCI). */
    int wait_here = blocking && armcii_prog.sends_need_caller;
    /* To a holder that computes, small ones join the open datagram (dgram.c); without a
     * progress thread to send it later, a blocking one sends it and waits for its answer,
     * as a message would wait for its arrival (wait_here). */
    int may_join = kind == ARMCII_REQ_AM && armcii_open_may_join(blocking, hdl);
    if ((may_join || (kind == ARMCII_REQ_AM && wait_here)) && path == ARMCII_PATH_FABRIC &&
        armcii_dgram_acc(call, type, scale, src, dst, len, target)) {
        if (!may_join)
            armcii_wait_datagrams(call, target);
        return 0;
    }
    if (may_join) {
        if (blocking)
            armcii_order_before(call, kind, target);
        open_join(call, target, ARMCII_OP_ACC, type, scale, src, dst, len);
        return 0;
    }
    armcii_put_open_send(call, target);
    armcii_issue_t is = {.hdl = hdl, .blocking = blocking, .wait_here = wait_here};
    armcii_req_t *req = armcii_issue_ordered(call, &is, kind, target);
    if (kind == ARMCII_REQ_ACC_HW) {
        void *staged = req->stage; /* lives in the request until it completes */
        if (len > sizeof(req->stage) && !(staged = req->scratch = malloc(len)))
            armcii_fatal(call, "out of memory staging %zu bytes", len);
        if (armcii_acc_scale_is_one(type, scale))
            memcpy(staged, src, len);
        else
            armcii_acc_scale(type, scale, src, staged, len);
        armcii_ofi_acc_hw(call, &req->tok, type, staged, len, target, remote_addr(seg, dst),
                          armcii_seg_key(seg, target));
    } else {
        armcii_amb_t *b = armcii_amb_begin(call, &req->tok, ARMCII_OP_ACC, type, scale, target);
        armcii_amb_add(b, (char *)src, (uint64_t)(uintptr_t)dst, len);
        armcii_amb_end(b);
    }
    armcii_issue_end(call, &is, len);
    return 0;
}
