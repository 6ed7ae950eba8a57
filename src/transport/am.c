/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Active messages: operations applied by the target's own progress engine. This file is
 * the engine: framing, sequence numbers and early arrivals held back, the queue of sends
 * that must wait, acknowledgements, and the table of handlers by message kind. The
 * handlers sit in am_target.c (PUTV / ACCV records written or accumulated and then
 * acknowledged; PUTF, a PUTV that then stores a flag, ARMCI_Put_flag's data and
 * notification in one message; GETV answered by a GETV_REPLY; RMW by an RMW_REPLY), the
 * origin's message builder in am_build.c, the bookkeeping of deferred acknowledgements in
 * am_acks.c.
 *
 * A flagged put's acknowledgement may be deferred (ARMCI_ACK_DEFER): the process waiting
 * for the flag usually answers at once, and an acknowledgement sent first stood between
 * the flag and that answer (a flagged-put ping-pong over tcp: one more send per message).
 * Instead every message tells its receiver how many of the receiver's requests the sender
 * has applied (`acked`), which completes the receiver's deferred flagged puts to it; an
 * origin that must wait for them (a fence, a wait, a full request pool) sends ACK_WANTED
 * once, and the target answers as soon as it has applied that far (its progress thread
 * does while it is outside ARMCI: without progress threads nothing is deferred). The
 * origin marks the flagged puts it defers, so the two sides never disagree about which
 * are acknowledged.
 *
 * A handler never blocks: a reply that finds no bounce buffer free, or a send the provider
 * refuses for now, waits in a queue that every progress call retries.
 *
 * Requests from one origin are applied in the order it sent them, whatever order they
 * arrive in: each carries a sequence number, and one that arrives early waits in a copy.
 * Providers that report send-after-send ordering still reorder: tcp;ofi_rxm hands over a
 * large message (its rendezvous protocol) after a small one sent behind it.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "am_acks.h"
#include "am_internal.h"
#include "host.h"
#include "ofi_internal.h"
#include "transport.h"
#include "../base/common.h"
#include "../base/invariant.h"
#include "../base/stats.h"
#include "../base/token.h"

#define AM_NRECV 32

typedef struct {
    am_handler_t fn;
    int flags; /* AM_REQUEST, AM_MAY_WAIT */
} am_entry_t;

/* A send that could not go yet. */
typedef struct pending {
    struct pending *next;
    int to;
    void *buf; /* bounce buffer, or malloc'd (ack, queued request) */
    size_t len;
    int is_bounce;
    int is_request; /* a received message its handler could not take yet (a GETV waiting
                     * for a bounce buffer to answer from) */
} pending_t;

/* A request that arrived before one sent ahead of it. */
typedef struct am_held {
    struct am_held *next;
    size_t len;
    am_hdr_t h[]; /* the message, copied */
} held_t;

/* What this file keeps of one other process: the sequence of requests both ways, and those
 * that came before their turn. A message's send reads it beside ofi.c's entry for the
 * peer (its address). */
typedef struct {
    held_t *held;     /* requests from it that came before their turn */
    uint32_t seq_out; /* the number of the next request to it */
    uint32_t seq_in;  /* ... and of the next one from it to apply */
} am_peer_t;
_Static_assert(sizeof(am_peer_t) == 16, "four peers a cache line, none across two");

static struct {
    char *slab;
    size_t buf_size;
    armcii_mr_t mr;
    ofi_op_t *recv_ops[AM_NRECV];
    ofi_op_t *reposts[AM_NRECV];
    int nreposts;
    pending_t *head, *tail;
    /* what armcii_am_flush_deferred has to do: entries of the queue, and nreposts (ofi.c
     * calls it only while this is not zero) */
    int owed;
    am_peer_t *peers; /* every process of the job */
    am_acks_t acks;   /* deferred acknowledgements of flagged puts */
    am_entry_t handlers[AM_KIND_END - AM_PUTV];
} am;

const char am_tcall[] = "armci progress (incoming operation)";

/* am.owed is zero exactly when nothing is queued and no receive waits to be posted again:
 * ofi.c calls armcii_am_flush_deferred only while it is not. */
static inline void owed_check(void)
{
    ARMCII_INVARIANT((am.owed == 0) == (!am.head && am.nreposts == 0) && am.owed >= am.nreposts,
                     "%d owed, %d receives to post again, the queue %s", am.owed, am.nreposts,
                     am.head ? "not empty" : "empty");
}

void am_register(uint32_t kind, am_handler_t fn, int flags)
{
    am.handlers[kind - AM_PUTV].fn = fn;
    am.handlers[kind - AM_PUTV].flags = flags;
}

/* The handler of message @p h; a kind nobody registered ends the job. */
static const am_entry_t *entry_of(const am_hdr_t *h, size_t len)
{
    uint32_t kind = h->kind;
    if (kind < AM_PUTV || kind >= AM_KIND_END || !am.handlers[kind - AM_PUTV].fn)
        armcii_fatal(am_tcall, "unknown message kind 0x%x (%zu bytes)", kind, len);
    return &am.handlers[kind - AM_PUTV];
}

/* ---- origin-side contexts named by cookies ---- */

am_ctx_t *am_cookie_ctx(uint64_t cookie)
{
    am_ctx_t *c = (am_ctx_t *)(uintptr_t)cookie;
    if (c == NULL || c->magic != CTX_MAGIC)
        armcii_fatal("armci progress", "reply names no pending operation");
    return c;
}

/* ---- sending and the pending queue ---- */

static int post_recv(ofi_op_t *op)
{
    void *desc =
        OFI_LOCAL("armci progress", "fi_recv", armcii_tp.rank, op->bounce, am.buf_size, am.mr.desc);
    return (int)fi_recv(armcii_ofi.ep, op->bounce, am.buf_size, desc, FI_ADDR_UNSPEC, &op->ctx);
}

static void enqueue(int to, void *buf, size_t len, int is_bounce, int is_request)
{
    pending_t *p = malloc(sizeof(*p));
    if (!p)
        armcii_fatal("armci progress", "out of memory queueing a message");
    *p = (pending_t){NULL, to, buf, len, is_bounce, is_request};
    if (am.tail)
        am.tail->next = p;
    else
        am.head = p;
    am.tail = p;
    am.owed++;
}

/* Every message, as it leaves: its sender, and how many of the receiver's requests have been
 * applied here (the freshest count, also for a message that waited in the queue). */
static void stamp(int to, void *msg)
{
    am_hdr_t *h = msg;
    h->src = armcii_tp.rank;
    h->acked = am.peers[to].seq_in;
}

/* Send a bounce buffer; the buffer returns to the pool when the send completes. */
static int try_send_bounce(int to, void *b, size_t len)
{
    stamp(to, b);
    ofi_op_t *op = armcii_ofi_op_get();
    op->kind = OFI_OP_SEND;
    op->target = to;
    op->bounce = b;
    void *desc = OFI_LOCAL("armci", "fi_send", to, b, len, armcii_ofi_post.bounce_mr.desc);
    int rc = (int)fi_send(armcii_ofi.ep, b, len, desc, armcii_ofi.peers[to].addr, &op->ctx);
    if (rc != 0)
        armcii_ofi_op_put(op);
    return rc;
}

void am_send_small(int to, am_hdr_t *msg, size_t len)
{
    stamp(to, msg);
    int rc =
        am.head ? -FI_EAGAIN : (int)fi_inject(armcii_ofi.ep, msg, len, armcii_ofi.peers[to].addr);
    if (rc == 0)
        return;
    if (rc != -FI_EAGAIN)
        armcii_ofi_fail("armci progress", "fi_inject", to, rc);
    void *copy = malloc(len);
    if (!copy)
        armcii_fatal("armci progress", "out of memory queueing a message");
    memcpy(copy, msg, len);
    enqueue(to, copy, len, 0, 0);
}

void am_send_bounce_later(int to, void *b, size_t len)
{
    int rc = am.head ? -FI_EAGAIN : try_send_bounce(to, b, len);
    if (rc == -FI_EAGAIN)
        enqueue(to, b, len, 1, 0);
    else if (rc != 0)
        armcii_ofi_fail("armci progress", "fi_send", to, rc);
}

/*
 * Sends what handlers could not send at once, in order. A get request waiting for a bounce
 * buffer is passed over rather than waited for: the buffers it needs may be held by the
 * very sends queued behind it, which free them when they complete (with few buffers that
 * was a deadlock). Answering a get later is allowed: until the origin has waited for it, a
 * get may observe any later update.
 */
void armcii_am_flush_deferred(void)
{
    pending_t *prev = NULL, *p = am.head;
    while (p) {
        int rc;
        if (p->is_request) {
            if (!entry_of(p->buf, p->len)->fn(p->buf, p->len)) {
                prev = p;
                p = p->next;
                continue;
            }
            free(p->buf);
            rc = 0;
        } else if (p->is_bounce) {
            rc = try_send_bounce(p->to, p->buf, p->len);
        } else {
            stamp(p->to, p->buf);
            rc = (int)fi_inject(armcii_ofi.ep, p->buf, p->len, armcii_ofi.peers[p->to].addr);
            if (rc == 0)
                free(p->buf);
        }
        if (rc == -FI_EAGAIN)
            break; /* the provider is full: keep the rest in order for the next pass */
        if (rc != 0)
            armcii_ofi_fail("armci progress", "fi_send (queued)", p->to, rc);
        pending_t *next = p->next;
        if (prev)
            prev->next = next;
        else
            am.head = next;
        if (am.tail == p)
            am.tail = prev;
        free(p);
        am.owed--;
        p = next;
    }
    while (am.nreposts > 0) {
        int rc = post_recv(am.reposts[am.nreposts - 1]);
        if (rc == -FI_EAGAIN)
            break;
        if (rc != 0)
            armcii_ofi_fail("armci progress", "fi_recv", armcii_tp.rank, rc);
        am.nreposts--;
        am.owed--;
    }
    owed_check();
}

/* ---- acknowledgements ---- */

/* A message that carries only the count. */
static void send_count(int to)
{
    am_hdr_t c = {.kind = AM_COUNT};
    am_send_small(to, &c, offsetof(am_hdr_t, arg));
    armcii_stat_ack_sent();
}

static int take_ack(const am_hdr_t *h, size_t len)
{
    armcii_tp.op_done(armcii_tp.of_cookie(h->cookie));
    return 1;
}

/* The count itself is taken from every message (armcii_am_handle). */
static int take_count(const am_hdr_t *h, size_t len)
{
    return 1;
}

/* Origin h->src waits for the acknowledgement of its requests up to count arg[0]. */
static int ack_wanted(const am_hdr_t *h, size_t len)
{
    if (am_acks_asked(&am.acks, h->src, am.peers[h->src].seq_in, (uint32_t)h->arg[0]))
        send_count(h->src);
    return 1;
}

static void register_engine(void)
{
    am_register(AM_ACK, take_ack, 0);
    am_register(AM_COUNT, take_count, 0);
    am_register(AM_ACK_WANTED, ack_wanted, 0);
}

int armcii_am_deferred;

size_t armcii_am_bytes(void)
{
    return am.buf_size * AM_NRECV;
}

size_t armcii_am_table_bytes(void)
{
    return (am.peers ? (size_t)armcii_tp.nproc * sizeof(am_peer_t) : 0) + am_acks_bytes(&am.acks);
}

armcii_status_t armcii_am_init(void)
{
    int n = armcii_tp.nproc;
    /* calloc's alignment (16) keeps each entry within a cache line */
    am.peers = calloc((size_t)n, sizeof(am_peer_t));
    if (!am.peers || am_acks_init(&am.acks, n, armcii_tp.max_requests) != 0)
        return ARMCII_ENOMEM;
    register_engine();
    armcii_ofi_set_receiver(armcii_am_handle, armcii_am_flush_deferred, &am.owed);
    am.buf_size = armcii_ofi_post.bounce_size;
    size_t total = armcii_am_bytes();
    if (posix_memalign((void **)&am.slab, 4096, total) != 0)
        return ARMCII_ENOMEM;
    armcii_status_t st = armcii_net_register("ARMCI_Init", am.slab, total, &am.mr);
    if (st != ARMCII_OK)
        return st;
    for (int i = 0; i < AM_NRECV; i++) {
        ofi_op_t *op = armcii_ofi_op_get_standing(); /* freed by am_fini */
        op->kind = OFI_OP_RECV;
        op->bounce = am.slab + (size_t)i * am.buf_size;
        am.recv_ops[i] = op;
        int rc = post_recv(op);
        if (rc != 0) {
            armcii_warn("ARMCI_Init: fi_recv failed: %s", fi_strerror(-rc));
            return ARMCII_EFABRIC;
        }
    }
    return ARMCII_OK;
}

void armcii_am_fini(void)
{
    am_build_fini();
    /* The endpoint is closed by now: posted receives are gone, queued sends never go. */
    for (int i = 0; i < AM_NRECV; i++)
        free(am.recv_ops[i]);
    while (am.head) {
        pending_t *p = am.head;
        am.head = p->next;
        if (!p->is_bounce)
            free(p->buf);
        free(p);
    }
    for (int r = 0; am.peers && r < armcii_tp.nproc; r++)
        while (am.peers[r].held) {
            held_t *x = am.peers[r].held;
            am.peers[r].held = x->next;
            free(x);
        }
    free(am.peers);
    am_acks_fini(&am.acks);
    armcii_am_deferred = 0;
    armcii_net_unregister(&am.mr);
    free(am.slab);
    memset(&am, 0, sizeof(am));
}

/* ---- receiving ---- */

/* Hands @p h to its handler; one that cannot answer yet, or must queue behind answers that
 * wait already, is kept in a copy and handled by a later progress call. */
static void dispatch(const am_entry_t *e, const am_hdr_t *h, size_t len)
{
    if (((e->flags & AM_MAY_WAIT) && am.head) || !e->fn(h, len)) {
        void *copy = malloc(len);
        if (!copy)
            armcii_fatal(am_tcall, "out of memory queueing a request");
        memcpy(copy, h, len);
        enqueue(h->src, copy, len, 0, 1);
    }
}

/* Applies @p h if it is the next request from its origin, then whatever it was holding up;
 * otherwise keeps a copy until its turn. */
static void in_order(const am_entry_t *e, const am_hdr_t *h, size_t len)
{
    int src = h->src;
    am_peer_t *p = &am.peers[src];
    if (h->seq != p->seq_in) {
        held_t *x = malloc(sizeof(*x) + len);
        if (!x)
            armcii_fatal(am_tcall, "out of memory holding an early message from rank %d", src);
        x->len = len;
        memcpy(x->h, h, len);
        x->next = p->held;
        p->held = x;
        return;
    }
    dispatch(e, h, len);
    p->seq_in++;
    for (held_t **pp = &p->held; *pp;) {
        held_t *x = *pp;
        if (x->h->seq != p->seq_in) {
            pp = &x->next;
            continue;
        }
        *pp = x->next;
        dispatch(entry_of(x->h, x->len), x->h, x->len);
        p->seq_in++;
        free(x);
        pp = &p->held; /* the next one may be anywhere in the list */
    }
}

void armcii_am_handle(ofi_op_t *op, size_t len)
{
    const am_hdr_t *h = op->bounce;
    if (len < offsetof(am_hdr_t, arg))
        armcii_fatal(am_tcall, "message of %zu bytes is too short", len);
    int src = h->src;
    if (src < 0 || src >= armcii_tp.nproc)
        armcii_fatal(am_tcall, "message from rank %d, beyond the %d processes", src,
                     armcii_tp.nproc);
    uint32_t acked = h->acked;
    const am_entry_t *e = entry_of(h, len);
    if (e->flags & AM_REQUEST) {
        in_order(e, h, len);
        if (am_acks_due(&am.acks, src, am.peers[src].seq_in))
            send_count(src);
    } else {
        dispatch(e, h, len);
    }
    armcii_am_deferred -= am_acks_took(&am.acks, src, acked, armcii_tp.op_done);
    int rc = am.nreposts > 0 ? -FI_EAGAIN : post_recv(op);
    if (rc == -FI_EAGAIN) {
        am.reposts[am.nreposts++] = op;
        am.owed++;
    } else if (rc != 0) {
        armcii_ofi_fail("armci progress", "fi_recv", armcii_tp.rank, rc);
    }
    owed_check();
}

/* ---- origin side: requests ---- */

void am_send_request(const char *call, const char *what, armcii_token_t *tok, int target, void *b,
                     size_t len)
{
    am_hdr_t *h = b;
    armcii_token_posted(tok);
    h->seq = am.peers[target].seq_out++;
    /* a flagged put, or a put whose builder ended lazily (armcii_amb_end_lazy) */
    int lazy = h->kind == AM_PUTF || (h->kind == AM_PUTV && h->type == ACK_DEFERRED);
    if (lazy)
        h->type = 0; /* acknowledged at once, unless deferred here */
    if (lazy && armcii_tp.env->ACK_DEFER && !armcii_tp.sends_need_caller) {
        /* Awaits the target's count, not an ack of its own; meanwhile only an
         * acknowledgement is due, so the progress thread need not poll for it. Not
         * without progress threads: a target that has left ARMCI (for MPI, say) after
         * seeing the flag could answer no request for the acknowledgement, whereas one
         * sent with the flag's own progress call gets there. */
        h->type = ACK_DEFERRED;
        am_acks_defer(&am.acks, target, tok, h->seq);
        armcii_am_deferred++;
        armcii_tp.copied(tok);
    }
    OFI_RETRY(call, what, target, try_send_bounce(target, b, len));
}

/* ---- origin side: asking for deferred acknowledgements ---- */

static void want_from(int target)
{
    uint32_t upto;
    if (!am_acks_to_ask(&am.acks, target, &upto))
        return; /* none deferred, or asked already: the answer is on its way */
    am_hdr_t q = {.kind = AM_ACK_WANTED};
    q.arg[0] = upto;
    am_send_small(target, &q, offsetof(am_hdr_t, scale));
    armcii_stat_ack_wanted();
}

void armcii_am_ask_acks(int target)
{
    if (!am.acks.peer)
        return; /* no fabric */
    if (target >= 0) {
        want_from(target);
        return;
    }
    for (int t = 0; t < armcii_tp.nproc; t++)
        want_from(t);
}
