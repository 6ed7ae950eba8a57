/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The open messages that blocking puts and accumulates sent as messages share, and the
 * packing of a walker's blocks into a message. Below the protocols (rma.c, nc.c), which
 * join them, and the executor (exec.c), which sends them before anything else goes to
 * their target.
 */
#include <stdint.h>
#include <string.h>

#include "open.h"
#include "../core/progress.h"
#include "../core/req.h"
#include "../core/issue.h"
#include "../core/runtime.h"
#include "../base/acc.h"
#include "../base/iter.h"
#include "../base/op.h"
#include "../transport/transport.h"
#include "../base/pool.h"

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
    if (!open_slot_of(target))
        return; /* (the request that follows asks the datagrams itself: armcii_req_new) */
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
void armcii_open_join(const char *call, int target, armcii_op_t what, int type, const void *scale,
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
