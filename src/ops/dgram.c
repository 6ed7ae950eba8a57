/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What goes to a holder by datagram, to be served in its own thread (src/transport/serve.c),
 * and how it stays in order with what goes through libfabric.
 *
 * A read-modify-write, a blocking get of up to ARMCII_SERVE_DATA_MAX bytes and a small
 * accumulate that may return before it is applied go so to a holder that suits
 * (armcii_serve_suits: unless its last 4 answers came from a holder polling inside ARMCI,
 * where libfabric answers sooner). An accumulate joins the open datagram, which
 * goes with the next read-modify-write or get to that holder, or alone when a wait, a
 * fence or the progress thread's pass lets it go (as rma.c's open messages do).
 *
 * Order: ARMCI applies one origin's operations on a target in the order they were issued,
 * and a datagram goes around libfabric's queues. So a datagram to a target is opened, or a
 * request posted to it, only once everything sent there through libfabric has been applied
 * (armcii_order_all_before), and everything sent there through libfabric after it waits
 * until it has been answered (armcii_datagrams_before, in armcii_req_new,
 * armcii_put_open_send and the fences). One request is out at a time.
 */
#include "dgram.h"
#include "../core/order.h"
#include "../core/progress.h"
#include "../transport/transport.h"

/* A request that takes the open datagram with it is being posted: the waits inside must
 * not send that datagram alone. */
static int joining;

static void ship_if_free(void)
{
    if (!joining && armcii_serve_open_target >= 0 && !*armcii_serve_waiting())
        armcii_serve_ship();
}

static void ship_all(const char *call)
{
    (void)call;
    ship_if_free();
}

static void ship_waited(const char *call, int target)
{
    (void)call;
    if (target < 0 || target == armcii_serve_open_target)
        ship_if_free();
}

void armcii_dgram_init(void)
{
    static armcii_held_t open_datagram = {
        .send_all = ship_all,
        .send_waited = ship_waited,
        .age = ship_if_free,
    };
    open_datagram.count = armcii_serve_open_count();
    armcii_progress_hold(&open_datagram);
}

/* Before a request to @p target is posted: nothing out, the open datagram to @p target or
 * to none, and what went to @p target through libfabric applied. */
static void clear_for(const char *call, int target)
{
    joining = 1;
    if (armcii_serve_open_target != target) {
        armcii_wait_datagrams(call, -1);
        armcii_order_all_before(call, target);
    } else if (*armcii_serve_waiting()) { /* to another target: answered first */
        armcii_wait_answer(call, armcii_serve_out_target);
    }
}

/* Posted: its answer, waited for. */
static void answered(const char *call, int target)
{
    joining = 0;
    armcii_wait_answer(call, target);
}

int armcii_dgram_rmw(const char *call, int op, int target, void *addr, uint64_t operand,
                     uint64_t comparand, uint64_t *old)
{
    if (!armcii_serve_suits(target))
        return 0;
    clear_for(call, target);
    armcii_serve_rmw_post(op, target, (uint64_t)(uintptr_t)addr, operand, comparand);
    answered(call, target);
    *old = armcii_serve_rmw_answer(call);
    return 1;
}

int armcii_dgram_get(const char *call, const void *src, void *dst, size_t len, int target)
{
    if (len > ARMCII_SERVE_DATA_MAX || !armcii_serve_suits(target))
        return 0;
    clear_for(call, target);
    armcii_serve_get_post((uint64_t)(uintptr_t)src, dst, len, target);
    answered(call, target);
    armcii_serve_answer_check(call);
    return 1;
}

int armcii_dgram_acc(const char *call, int type, const void *scale, const void *src, void *dst,
                     size_t len, int target)
{
    if (len > ARMCII_SERVE_ACC_MAX || !armcii_serve_suits(target))
        return 0;
    /* Open to another target, or full: it goes (unless a wait for the one out sent it). */
    while (!armcii_serve_acc_fits(target, len)) {
        if (*armcii_serve_waiting())
            armcii_wait_answer(call, armcii_serve_out_target);
        else
            armcii_serve_ship();
    }
    if (armcii_serve_open_target != target) /* (then none is open) */
        armcii_order_all_before(call, target);
    armcii_serve_acc_add(target, type, scale, src, (uint64_t)(uintptr_t)dst, len);
    return 1;
}
