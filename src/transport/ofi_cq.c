/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completions: the one completion queue read in batches, each completed operation's
 * token completed, an error report naming the operation and the peer, and the arrived
 * messages handed to their receiver (am.c); and the retries of a post the provider's full
 * queue refused, which wait on completions like any other wait.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host.h"
#include "ofi_internal.h"
#include "transport.h"
#include "../base/common.h"
#include "../base/place.h"
#include "../base/stats.h"

#define CQ_BATCH 16

/* Full queues as the rule, not the exception: said once a process (ARMCI_VERBOSE), looked at
 * every CROWDED_RETRIES retries, when they are more than one for each CROWDED_PER
 * operations. */
#define CROWDED_RETRIES 1024
#define CROWDED_PER     100

static void say_crowded(int target)
{
    static int said;
    if (said || !armcii_tp.env->VERBOSE)
        return;
    long ops = armcii_stat_ops_total();
    long retries = armcii_stats.eagain_retries;
    if (retries * CROWDED_PER <= ops)
        return;
    said = 1;
    armcii_warn("queue full: %ld retries in %ld operations so far (the latest to rank %d): what "
                "is sent waits until its target takes it, which a target computing outside "
                "ARMCI does only with its progress thread (%s here), and one among more "
                "processes than cores only when it gets the processor (%s; ARMCI_YIELD_IDLE)",
                retries, ops, target, armcii_tp.sends_need_caller ? "off" : "on",
                armcii_tp.yield_after == 1 ? "retries yield it at once"
                                           : "retries yield it every 128 empty polls");
}

/* A retry is a wait like any other (the first operation to a peer may wait here for the
 * connection, which needs the peer's progress): bounded, watched, alert to dead peers, and
 * yielding the processor as the waits do. A full queue is drained by the peer taking what
 * was sent to it: where processes outnumber cores, the peer may be the very process a
 * spinning retry keeps off the processor (docs/tuning.md, ARMCI_YIELD_IDLE). */
void armcii_ofi_eagain(const char *call, const char *what, int target, ofi_retry_t *r)
{
    static double barked_for; /* the t0 of the wait the watchdog last spoke about */
    armcii_stat_eagain();
    double now = armcii_now();
    if (r->t0 == 0)
        r->t0 = now;
    else if (now - r->t0 > (double)armcii_tp.env->TIMEOUT) {
        armcii_tp.blame(call, target);
        armcii_fatal(call,
                     "%s to rank %d: the provider's queue stayed full for %ld s: rank %d "
                     "has not taken what was sent to it (is it alive, and calling ARMCI or "
                     "running its progress thread? provider %s; see ARMCI_TIMEOUT)",
                     what, target, armcii_tp.env->TIMEOUT, target, armcii_ofi_prov_name());
    } else if (armcii_tp.env->WATCHDOG > 0 && barked_for != r->t0 &&
               now - r->t0 >= armcii_tp.env->WATCHDOG) {
        barked_for = r->t0;
        armcii_warn("watchdog: %s: %s to rank %d has been retried for %.0f s (the provider's "
                    "queue is full or the connection is not made yet) and is still waiting",
                    call, what, target, now - r->t0);
    }
    if ((armcii_stats.eagain_retries & (CROWDED_RETRIES - 1)) == 0)
        say_crowded(target);
    /* A queue that stays full, or a connection not made yet (tcp;ofi_rxm makes them at the
     * first message), waits for the target's progress: if it computes, its progress thread
     * naps. Ring its doorbell as a wait does (progress.c): after ARMCI_DOORBELL_US, then
     * every 8 times as long. */
    if (armcii_tp.bell_us > 0 && target != armcii_tp.rank &&
        now - r->t0 >= 1e-6 * (double)armcii_tp.bell_us * (1 + 8 * r->rung)) {
        armcii_bell_ring(target);
        r->rung++;
    }
    armcii_tp.poll_peers(call);
    if (armcii_idle_poll(&r->idle, armcii_net_progress(), armcii_tp.yield_after))
        armcii_stat_eagain_yield();
}

static void complete_op(ofi_op_t *op)
{
    if (op->copy_to) /* a buffered get's data, read by the caller next */
        armcii_place_copy(op->copy_to, op->bounce, op->copy_len, 0);
    if (op->bounce)
        armcii_ofi_bounce_put(op->bounce);
    if (op->tok)
        armcii_tp.op_done(op->tok);
    armcii_ofi_op_put(op);
}

static void report_cq_error(void)
{
    struct fi_cq_err_entry err;
    memset(&err, 0, sizeof(err));
    if (fi_cq_readerr(armcii_ofi.cq, &err, 0) <= 0)
        return;
    ofi_op_t *op = err.op_context;
    static const char *kinds[] = {"an RMA", "a send", "a receive", "a flush read"};
    const char *prov = fi_cq_strerror(armcii_ofi.cq, err.prov_errno, err.err_data, NULL, 0);
    int rma = op && op->kind == OFI_OP_RMA;
    const char *call = rma && op->call ? op->call : "armci progress";
    if (rma && op->local && err.err == FI_EFAULT)
        armcii_fatal(call,
                     "the local buffer at %p (used in place for a transfer to rank %d) is "
                     "not memory this process may access (%s, from provider %s); pass a "
                     "buffer of this process",
                     op->local, op->target, fi_strerror(err.err), armcii_ofi_prov_name());
    if (op)
        armcii_tp.blame(call, op->target);
    armcii_fatal(call, "%s operation to rank %d failed: %s (provider %s: %s)",
                 op ? kinds[op->kind] : "a libfabric", op ? op->target : -1, fi_strerror(err.err),
                 armcii_ofi_prov_name(), prov ? prov : "no detail");
}

/* Who takes arrived messages, and what runs after a poll while something is owed (am.c
 * registers all three). A wait polls in a tight loop, and nearly always nothing is owed:
 * the count spares each of those polls a call into am.c. */
static struct {
    void (*handle)(ofi_op_t *op, size_t len);
    void (*after_poll)(void);
    const int *owed;
} receiver;

void armcii_ofi_set_receiver(void (*handle)(ofi_op_t *op, size_t len), void (*after_poll)(void),
                             const int *owed)
{
    receiver.handle = handle;
    receiver.after_poll = after_poll;
    receiver.owed = owed;
}

int armcii_net_progress(void)
{
    if (!armcii_ofi.cq)
        return 0;
    struct fi_cq_data_entry ev[CQ_BATCH];
    ssize_t n = fi_cq_read(armcii_ofi.cq, ev, CQ_BATCH);
    if (n == -FI_EAVAIL)
        report_cq_error();
    int handled = 0;
    for (ssize_t i = 0; i < n; i++) {
        ofi_op_t *op = ev[i].op_context;
        if (op->kind == OFI_OP_RECV)
            receiver.handle(op, ev[i].len);
        else
            complete_op(op);
        handled++;
    }
    if (receiver.after_poll && *receiver.owed > 0)
        receiver.after_poll();
    return handled + armcii_serve_poll();
}
