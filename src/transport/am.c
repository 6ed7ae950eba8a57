/*
 * Active messages: operations applied by the target's own progress engine.
 *   PUTV / ACCV   records (address, length, data) written or accumulated at the target,
 *                 then acknowledged (the origin's request completes on the ack);
 *   PUTF          a PUTV that then stores a flag (ARMCI_Put_flag): the data and the
 *                 notification travel in one message instead of a put, a fence's round
 *                 trip and a second put;
 *   GETV          entries (address, length) packed by the target into a GETV_REPLY;
 *   RMW           an atomic read-modify-write on one word, answered by RMW_REPLY.
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
 * Accumulates take the target's accumulate lock (the lock same-node peers take too), and
 * read-modify-writes are CPU atomics, so both stay atomic whichever path a peer uses.
 * Every address is checked against the target's own allocations before it is touched.
 *
 * A handler never blocks: a reply that finds no bounce buffer free, or a send the provider
 * refuses for now, waits in a queue that every progress call retries.
 *
 * Requests from one origin are applied in the order it sent them, whatever order they
 * arrive in: each carries a sequence number, and one that arrives early waits in a copy.
 * Providers that report send-after-send ordering still reorder: tcp;ofi_rxm hands over a
 * large message (its rendezvous protocol) after a small one sent behind it.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/stats.h"
#include "ofi_internal.h"

enum {
    AM_PUTV = 0x414d5001u,
    AM_ACCV,
    AM_GETV,
    AM_GETV_REPLY,
    AM_RMW,
    AM_RMW_REPLY,
    AM_ACK,
    AM_PUTF,
    AM_ACK_WANTED, /* arg[0]: acknowledge once you have applied this many of my requests */
    AM_COUNT,      /* the count (`acked`) alone */
};

/* PUTF's `type`: its origin waits for no acknowledgement of its own (see above). */
#define PUTF_DEFERRED 1

typedef struct {
    uint32_t kind;
    int32_t src;
    int32_t type;    /* ACCV: element type; RMW: operation */
    uint32_t nblk;   /* records / entries */
    uint32_t seq;    /* requests: the origin's count of requests to this target */
    uint32_t acked;  /* every message: the receiver's requests the sender has applied */
    uint64_t cookie; /* the origin's: request slot << 32 | generation, or a context */
    uint64_t arg[2]; /* RMW: address, operand (and comparand); PUTF: flag address, value */
    unsigned char scale[16];
} am_hdr_t;

typedef struct {
    uint64_t addr, len;
} am_blk_t;

#define AM_NRECV 32
#define PAD8(n)  (((n) + 7) & ~(size_t)7)

/* A send that could not go yet. */
typedef struct pending {
    struct pending *next;
    int to;
    void *buf; /* bounce buffer, or malloc'd (ack, queued request) */
    size_t len;
    int is_bounce;
    int is_request; /* a received GETV waiting for a bounce buffer to answer from */
} pending_t;

/* A request that arrived before one sent ahead of it. */
typedef struct held {
    struct held *next;
    size_t len;
    am_hdr_t h[]; /* the message, copied */
} held_t;

static struct {
    uint32_t *seq_out; /* per target: the next request's number */
    uint32_t *seq_in;  /* per origin: the number of the request to apply next */
    held_t **held;     /* per origin: early arrivals */
    char *slab;
    size_t buf_size;
    armcii_mr_t mr;
    ofi_op_t *recv_ops[AM_NRECV];
    ofi_op_t *reposts[AM_NRECV];
    int nreposts;
    pending_t *head, *tail;
    /* deferred acknowledgements of flagged puts */
    uint32_t *want;              /* per origin: acknowledge once seq_in reaches this */
    unsigned char *wanted;       /* per origin: want is set */
    uint32_t *asked;             /* per target: the count last asked for */
    armcii_req_t **flagged_head; /* per target: flagged puts awaiting `acked`, oldest first */
    armcii_req_t **flagged_tail;
} am;

/* Sequence numbers wrap: a has reached b. */
static int reached(uint32_t a, uint32_t b)
{
    return (int32_t)(a - b) >= 0;
}

/* ---- origin-side contexts named by cookies ---- */

#define CTX_MAGIC 0x61726d63u

typedef struct {
    uint32_t magic;
    armcii_req_t *req;
    size_t n; /* GETV: blocks to scatter */
    char **lptr;
    size_t *llen;
    void *result; /* RMW: where the old value goes */
    size_t rsize;
} am_ctx_t;

static uint64_t req_cookie(const armcii_req_t *req)
{
    return ((uint64_t)(uint32_t)req->index << 32) | req->gen;
}

static armcii_req_t *cookie_req(uint64_t cookie)
{
    uint32_t slot = (uint32_t)(cookie >> 32), gen = (uint32_t)cookie;
    if (slot >= (uint32_t)armcii_g.pool.nslots)
        armcii_fatal("armci progress", "reply for request slot %u, beyond the pool", slot);
    armcii_req_t *req = &armcii_g.pool.slots[slot];
    if (!req->in_use || req->gen != gen)
        armcii_fatal("armci progress",
                     "reply for a request that is not in flight (slot %u, generation %u)", slot,
                     gen);
    return req;
}

static am_ctx_t *cookie_ctx(uint64_t cookie)
{
    am_ctx_t *c = (am_ctx_t *)(uintptr_t)cookie;
    if (c == NULL || c->magic != CTX_MAGIC)
        armcii_fatal("armci progress", "reply names no pending operation");
    return c;
}

/* ---- sending and the pending queue ---- */

static int post_recv(ofi_op_t *op)
{
    return (int)fi_recv(armcii_ofi.ep, op->bounce, am.buf_size, am.mr.desc, FI_ADDR_UNSPEC,
                        &op->ctx);
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
}

/* Every message, as it leaves: its sender, and how many of the receiver's requests have been
 * applied here (the freshest count, also for a message that waited in the queue). */
static void stamp(int to, void *msg)
{
    am_hdr_t *h = msg;
    h->src = armcii_g.rank;
    h->acked = am.seq_in[to];
}

/* Send a bounce buffer; the buffer returns to the pool when the send completes. */
static int try_send_bounce(int to, void *b, size_t len)
{
    stamp(to, b);
    ofi_op_t *op = armcii_ofi_op_get();
    op->kind = OFI_OP_SEND;
    op->target = to;
    op->bounce = b;
    int rc = (int)fi_send(armcii_ofi.ep, b, len, armcii_ofi.bounce_mr.desc, armcii_ofi.addrs[to],
                          &op->ctx);
    if (rc != 0)
        armcii_ofi_op_put(op);
    return rc;
}

/* A small message (ack) copied by the provider, or queued in a malloc'd copy. */
static void send_small(int to, am_hdr_t *msg, size_t len)
{
    stamp(to, msg);
    int rc = am.head ? -FI_EAGAIN : (int)fi_inject(armcii_ofi.ep, msg, len, armcii_ofi.addrs[to]);
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

/* From a handler: send a bounce buffer now or later, keeping order behind queued ones. */
static void send_bounce_later(int to, void *b, size_t len)
{
    int rc = am.head ? -FI_EAGAIN : try_send_bounce(to, b, len);
    if (rc == -FI_EAGAIN)
        enqueue(to, b, len, 1, 0);
    else if (rc != 0)
        armcii_ofi_fail("armci progress", "fi_send", to, rc);
}

static int answer_getv(const am_hdr_t *h, size_t len); /* below */

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
            if (!answer_getv(p->buf, p->len)) {
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
            rc = (int)fi_inject(armcii_ofi.ep, p->buf, p->len, armcii_ofi.addrs[p->to]);
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
        p = next;
    }
    while (am.nreposts > 0) {
        int rc = post_recv(am.reposts[am.nreposts - 1]);
        if (rc == -FI_EAGAIN)
            break;
        if (rc != 0)
            armcii_ofi_fail("armci progress", "fi_recv", armcii_g.rank, rc);
        am.nreposts--;
    }
}

armcii_status_t armcii_am_init(void)
{
    int n = armcii_g.nproc;
    am.seq_out = calloc((size_t)n, sizeof(uint32_t));
    am.seq_in = calloc((size_t)n, sizeof(uint32_t));
    am.held = calloc((size_t)n, sizeof(held_t *));
    am.want = calloc((size_t)n, sizeof(uint32_t));
    am.wanted = calloc((size_t)n, 1);
    am.asked = calloc((size_t)n, sizeof(uint32_t));
    am.flagged_head = calloc((size_t)n, sizeof(armcii_req_t *));
    am.flagged_tail = calloc((size_t)n, sizeof(armcii_req_t *));
    if (!am.seq_out || !am.seq_in || !am.held || !am.want || !am.wanted || !am.asked ||
        !am.flagged_head || !am.flagged_tail)
        return ARMCII_ENOMEM;
    am.buf_size = armcii_ofi.bounce_size;
    size_t total = am.buf_size * AM_NRECV;
    if (posix_memalign((void **)&am.slab, 4096, total) != 0)
        return ARMCII_ENOMEM;
    armcii_status_t st = armcii_ofi_mr_reg("ARMCI_Init", am.slab, total, &am.mr);
    if (st != ARMCII_OK)
        return st;
    for (int i = 0; i < AM_NRECV; i++) {
        ofi_op_t *op = armcii_ofi_op_get();
        op->kind = OFI_OP_RECV;
        op->bounce = am.slab + (size_t)i * am.buf_size;
        am.recv_ops[i] = op;
        armcii_ofi.ops_out--; /* a standing receive, not work in flight; freed by am_fini */
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
    for (int r = 0; am.held && r < armcii_g.nproc; r++)
        while (am.held[r]) {
            held_t *x = am.held[r];
            am.held[r] = x->next;
            free(x);
        }
    free(am.seq_out);
    free(am.seq_in);
    free(am.held);
    free(am.want);
    free(am.wanted);
    free(am.asked);
    free(am.flagged_head);
    free(am.flagged_tail);
    armcii_ofi_mr_dereg(&am.mr);
    free(am.slab);
    memset(&am, 0, sizeof(am));
}

/* ---- target side ---- */

static const char tcall[] = "armci progress (incoming operation)";

static void check_range(const am_hdr_t *h, uint64_t addr, uint64_t len)
{
    if (len > 0 &&
        !armcii_region_find(&armcii_g.regions, armcii_g.rank, (uintptr_t)addr, (size_t)len))
        armcii_fatal(tcall,
                     "rank %d reaches %p (+%llu bytes), outside every ARMCI allocation "
                     "of this rank",
                     h->src, (void *)(uintptr_t)addr, (unsigned long long)len);
}

static void apply_records(const am_hdr_t *h, size_t len)
{
    const char *p = (const char *)(h + 1), *end = (const char *)h + len;
    int acc = h->kind == AM_ACCV;
    if (acc && armcii_acc_type_size(h->type) == 0)
        armcii_fatal(tcall, "accumulate of unknown type %d from rank %d", h->type, h->src);
    /* Check everything before touching anything. */
    for (uint32_t i = 0; i < h->nblk; i++) {
        am_blk_t b;
        if ((size_t)(end - p) < sizeof(b))
            armcii_fatal(tcall, "malformed message from rank %d", h->src);
        memcpy(&b, p, sizeof(b));
        if (b.len > (size_t)(end - p) - sizeof(b))
            armcii_fatal(tcall, "malformed message from rank %d", h->src);
        check_range(h, b.addr, b.len);
        p += sizeof(b) + PAD8(b.len);
    }
    if (h->kind == AM_PUTF)
        check_range(h, h->arg[0], sizeof(int));
    int slot = armcii_g.shm ? armcii_g.node_rank : 0;
    if (acc)
        armcii_shm_acc_lock(slot);
    p = (const char *)(h + 1);
    for (uint32_t i = 0; i < h->nblk; i++) {
        am_blk_t b;
        memcpy(&b, p, sizeof(b));
        void *dst = (void *)(uintptr_t)b.addr;
        if (acc)
            armcii_acc_apply(h->type, h->scale, p + sizeof(b), dst, b.len);
        else
            memcpy(dst, p + sizeof(b), b.len);
        p += sizeof(b) + PAD8(b.len);
    }
    if (acc)
        armcii_shm_acc_unlock(slot);
    if (h->kind == AM_PUTF) {
        /* A full barrier, not a release store alone: a large memcpy may have used
         * non-temporal stores, which only a fence orders before the flag. */
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        __atomic_store_n((int *)(uintptr_t)h->arg[0], (int)h->arg[1], __ATOMIC_RELEASE);
        if (h->type == PUTF_DEFERRED)
            return; /* acknowledged by the count on a later message */
    }
    am_hdr_t ack = {.kind = AM_ACK, .cookie = h->cookie};
    send_small(h->src, &ack, offsetof(am_hdr_t, arg));
    armcii_stats.acks_sent++;
}

/* A message that carries only the count. */
static void send_count(int to)
{
    am_hdr_t c = {.kind = AM_COUNT};
    send_small(to, &c, offsetof(am_hdr_t, arg));
    armcii_stats.acks_sent++;
}

/* Origin @p src waits for the acknowledgement of its requests up to count @p upto. */
static void ack_wanted(int src, uint32_t upto)
{
    if (reached(am.seq_in[src], upto)) {
        send_count(src);
        return;
    }
    if (!am.wanted[src] || !reached(am.want[src], upto))
        am.want[src] = upto;
    am.wanted[src] = 1;
}

/* The count @p acked from @p from completes the flagged puts to it that it has applied. */
static void took_count(int from, uint32_t acked)
{
    armcii_req_t *r;
    while ((r = am.flagged_head[from]) && !reached(r->flagged_seq, acked)) {
        am.flagged_head[from] = r->next_flagged;
        if (!am.flagged_head[from])
            am.flagged_tail[from] = NULL;
        armcii_req_op_done(r);
    }
}

/* Pack the entries of a GETV into a reply; 0 when no bounce buffer is free yet. */
static int answer_getv(const am_hdr_t *h, size_t len)
{
    if (armcii_ofi.nbounce_free == 0)
        return 0;
    const am_blk_t *e = (const am_blk_t *)(h + 1);
    size_t total = 0;
    if (len < sizeof(*h) || h->nblk > (len - sizeof(*h)) / sizeof(*e))
        armcii_fatal(tcall, "malformed get request from rank %d", h->src);
    for (uint32_t i = 0; i < h->nblk; i++) {
        check_range(h, e[i].addr, e[i].len);
        total += e[i].len;
    }
    if (total > armcii_ofi.bounce_size - sizeof(am_hdr_t))
        armcii_fatal(tcall,
                     "get request from rank %d asks for %zu bytes in one reply (more "
                     "than a bounce buffer; ARMCI_BOUNCE_SIZE must match everywhere)",
                     h->src, total);
    char *b = armcii_ofi.bounce_free[--armcii_ofi.nbounce_free];
    am_hdr_t *r = (am_hdr_t *)b;
    memset(r, 0, sizeof(*r));
    r->kind = AM_GETV_REPLY;
    r->src = armcii_g.rank;
    r->cookie = h->cookie;
    char *d = (char *)(r + 1);
    for (uint32_t i = 0; i < h->nblk; i++) {
        memcpy(d, (void *)(uintptr_t)e[i].addr, e[i].len);
        d += e[i].len;
    }
    send_bounce_later(h->src, b, sizeof(*r) + total);
    return 1;
}

static void take_getv_reply(const am_hdr_t *h, size_t len)
{
    am_ctx_t *c = cookie_ctx(h->cookie);
    const char *d = (const char *)(h + 1);
    size_t total = 0;
    for (size_t i = 0; i < c->n; i++)
        total += c->llen[i];
    if (len < sizeof(*h) + total)
        armcii_fatal(tcall, "short get reply from rank %d (%zu bytes)", h->src, len);
    for (size_t i = 0; i < c->n; i++) {
        memcpy(c->lptr[i], d, c->llen[i]);
        d += c->llen[i];
    }
    armcii_req_t *req = c->req;
    c->magic = 0;
    free(c->lptr);
    free(c);
    armcii_req_op_done(req);
}

static void do_rmw(const am_hdr_t *h)
{
    uint64_t addr = h->arg[0];
    size_t size = (h->type == ARMCII_RMW_FADD32 || h->type == ARMCII_RMW_SWAP32) ? 4 : 8;
    if (addr % size != 0)
        armcii_fatal(tcall, "read-modify-write from rank %d at %p is not %zu-byte aligned", h->src,
                     (void *)(uintptr_t)addr, size);
    check_range(h, addr, size);
    am_hdr_t r = {.kind = AM_RMW_REPLY, .src = armcii_g.rank, .cookie = h->cookie};
    r.arg[0] = armcii_rmw_apply(h->type, (void *)(uintptr_t)addr, h->arg[1], h->scale);
    send_small(h->src, &r, offsetof(am_hdr_t, scale)); /* scale is not part of a reply */
}

static void take_rmw_reply(const am_hdr_t *h)
{
    am_ctx_t *c = cookie_ctx(h->cookie);
    if (c->rsize == 4) {
        uint32_t v = (uint32_t)h->arg[0];
        memcpy(c->result, &v, 4);
    } else {
        memcpy(c->result, &h->arg[0], 8);
    }
    armcii_req_t *req = c->req;
    c->magic = 0;
    free(c);
    armcii_req_op_done(req);
}

static void dispatch(const am_hdr_t *h, size_t len)
{
    switch (h->kind) {
    case AM_PUTV:
    case AM_PUTF:
    case AM_ACCV:
        apply_records(h, len);
        break;
    case AM_GETV:
        if (am.head || !answer_getv(h, len)) {
            void *copy = malloc(len);
            if (!copy)
                armcii_fatal(tcall, "out of memory queueing a get request");
            memcpy(copy, h, len);
            enqueue(h->src, copy, len, 0, 1);
        }
        break;
    case AM_GETV_REPLY:
        take_getv_reply(h, len);
        break;
    case AM_RMW:
        do_rmw(h);
        break;
    case AM_RMW_REPLY:
        take_rmw_reply(h);
        break;
    case AM_ACK:
        armcii_req_op_done(cookie_req(h->cookie));
        break;
    case AM_COUNT: /* taken by armcii_am_handle, as from every message */
        break;
    case AM_ACK_WANTED:
        ack_wanted(h->src, (uint32_t)h->arg[0]);
        break;
    default:
        armcii_fatal(tcall, "unknown message kind 0x%x (%zu bytes)", h->kind, len);
    }
}

static int is_request(uint32_t kind)
{
    return kind == AM_PUTV || kind == AM_PUTF || kind == AM_ACCV || kind == AM_GETV ||
           kind == AM_RMW;
}

/* Applies @p h if it is the next request from its origin, then whatever it was holding up;
 * otherwise keeps a copy until its turn. */
static void in_order(const am_hdr_t *h, size_t len)
{
    int src = h->src;
    if (h->seq != am.seq_in[src]) {
        held_t *x = malloc(sizeof(*x) + len);
        if (!x)
            armcii_fatal(tcall, "out of memory holding an early message from rank %d", src);
        x->len = len;
        memcpy(x->h, h, len);
        x->next = am.held[src];
        am.held[src] = x;
        return;
    }
    dispatch(h, len);
    am.seq_in[src]++;
    for (held_t **pp = &am.held[src]; *pp;) {
        held_t *x = *pp;
        if (x->h->seq != am.seq_in[src]) {
            pp = &x->next;
            continue;
        }
        *pp = x->next;
        dispatch(x->h, x->len);
        am.seq_in[src]++;
        free(x);
        pp = &am.held[src]; /* the next one may be anywhere in the list */
    }
}

void armcii_am_handle(ofi_op_t *op, size_t len)
{
    const am_hdr_t *h = op->bounce;
    if (len < offsetof(am_hdr_t, arg))
        armcii_fatal(tcall, "message of %zu bytes is too short", len);
    int src = h->src;
    if (src < 0 || src >= armcii_g.nproc)
        armcii_fatal(tcall, "message from rank %d, beyond the %d processes", src, armcii_g.nproc);
    uint32_t acked = h->acked;
    if (is_request(h->kind)) {
        in_order(h, len);
        if (am.wanted[src] && reached(am.seq_in[src], am.want[src])) {
            am.wanted[src] = 0;
            send_count(src);
        }
    } else {
        dispatch(h, len);
    }
    took_count(src, acked);
    int rc = am.nreposts > 0 ? -FI_EAGAIN : post_recv(op);
    if (rc == -FI_EAGAIN)
        am.reposts[am.nreposts++] = op;
    else if (rc != 0)
        armcii_ofi_fail("armci progress", "fi_recv", armcii_g.rank, rc);
}

/* ---- origin side: building messages ---- */

struct armcii_amb {
    const char *call;
    uint32_t kind;
    int target, type;
    size_t esize;
    unsigned char scale[16];
    armcii_req_t *req;
    char *buf;     /* bounce buffer being filled, or NULL */
    size_t used;   /* bytes of buf in use */
    size_t reply;  /* GETV: bytes the reply will carry */
    am_ctx_t *ctx; /* GETV: the blocks to scatter */
    size_t cap;
};

static size_t room(void)
{
    return armcii_ofi.bounce_size;
}

static void amb_open(armcii_amb_t *b)
{
    b->buf = armcii_ofi_bounce_get(b->call);
    am_hdr_t *h = (am_hdr_t *)b->buf;
    memset(h, 0, sizeof(*h));
    h->kind = b->kind;
    h->src = armcii_g.rank;
    h->type = b->type;
    memcpy(h->scale, b->scale, sizeof(h->scale));
    b->used = sizeof(*h);
    b->reply = 0;
    if (b->kind == AM_GETV) {
        b->ctx = calloc(1, sizeof(*b->ctx));
        b->cap = 16;
        if (b->ctx) {
            b->ctx->lptr = malloc(b->cap * (sizeof(char *) + sizeof(size_t)));
            b->ctx->llen = (size_t *)(b->ctx->lptr + b->cap);
        }
        if (!b->ctx || !b->ctx->lptr)
            armcii_fatal(b->call, "out of memory");
        b->ctx->magic = CTX_MAGIC;
        b->ctx->req = b->req;
        h->cookie = (uint64_t)(uintptr_t)b->ctx;
    } else {
        h->cookie = req_cookie(b->req);
    }
}

/* Send what has been built; the request then awaits one ack or reply for it. */
static void amb_send(armcii_amb_t *b)
{
    if (!b->buf)
        return;
    b->req->pending++;
    am_hdr_t *h = (am_hdr_t *)b->buf;
    h->seq = am.seq_out[b->target]++;
    if (h->kind == AM_PUTF && armcii_g.env.ACK_DEFER && !armcii_g.sends_need_caller) {
        /* Awaits the target's count, not an ack of its own; meanwhile only an
         * acknowledgement is due, so the progress thread need not poll for it. Not
         * without progress threads: a target that has left ARMCI (for MPI, say) after
         * seeing the flag could answer no request for the acknowledgement, whereas one
         * sent with the flag's own progress call gets there. */
        h->type = PUTF_DEFERRED;
        armcii_req_t *r = b->req;
        r->next_flagged = NULL;
        r->flagged_seq = h->seq;
        if (am.flagged_tail[b->target])
            am.flagged_tail[b->target]->next_flagged = r;
        else
            am.flagged_head[b->target] = r;
        am.flagged_tail[b->target] = r;
        if (!r->copied) {
            r->copied = 1;
            armcii_g.ncopied++;
        }
    }
    OFI_RETRY(b->call, "fi_send", b->target, try_send_bounce(b->target, b->buf, b->used));
    b->buf = NULL;
    b->ctx = NULL;
}

armcii_amb_t *armcii_amb_begin(const char *call, armcii_req_t *req, armcii_op_t what, int type,
                               const void *scale, int target)
{
    armcii_amb_t *b = calloc(1, sizeof(*b));
    if (!b)
        armcii_fatal(call, "out of memory");
    b->call = call;
    b->kind = what == ARMCII_OP_PUT ? AM_PUTV : what == ARMCII_OP_ACC ? AM_ACCV : AM_GETV;
    b->type = type;
    b->esize = what == ARMCII_OP_ACC ? armcii_acc_type_size(type) : 1;
    if (what == ARMCII_OP_ACC)
        memcpy(b->scale, scale, b->esize);
    b->target = target;
    b->req = req;
    return b;
}

void armcii_amb_add(armcii_amb_t *b, char *local, uint64_t remote, size_t len)
{
    while (len > 0) {
        if (!b->buf)
            amb_open(b);
        am_hdr_t *h = (am_hdr_t *)b->buf;
        size_t piece;
        if (b->kind == AM_GETV) {
            size_t data_room = room() - sizeof(am_hdr_t) - b->reply;
            piece = len < data_room ? len : data_room;
            if (b->used + sizeof(am_blk_t) > room() || piece == 0) {
                amb_send(b);
                continue;
            }
            am_blk_t e = {remote, piece};
            memcpy(b->buf + b->used, &e, sizeof(e));
            b->used += sizeof(e);
            b->reply += piece;
            am_ctx_t *c = b->ctx;
            if (c->n == b->cap) {
                size_t cap = 2 * b->cap;
                char **np = malloc(cap * (sizeof(char *) + sizeof(size_t)));
                if (!np)
                    armcii_fatal(b->call, "out of memory");
                size_t *nl = (size_t *)(np + cap);
                memcpy(np, c->lptr, c->n * sizeof(char *));
                memcpy(nl, c->llen, c->n * sizeof(size_t));
                free(c->lptr);
                c->lptr = np;
                c->llen = nl;
                b->cap = cap;
            }
            c->lptr[c->n] = local;
            c->llen[c->n++] = piece;
        } else {
            size_t avail = room() - b->used;
            if (avail < sizeof(am_blk_t) + b->esize) {
                amb_send(b);
                continue;
            }
            avail -= sizeof(am_blk_t);
            piece = len < avail ? len : avail / b->esize * b->esize;
            am_blk_t r = {remote, piece};
            memcpy(b->buf + b->used, &r, sizeof(r));
            memcpy(b->buf + b->used + sizeof(r), local, piece);
            /* records start 8-aligned; the padding is zeroed, not sent as stale bytes
             * (and the padding of the last record may be cut) */
            size_t data_end = b->used + sizeof(r) + piece, end = b->used + sizeof(r) + PAD8(piece);
            if (end > room())
                end = room();
            memset(b->buf + data_end, 0, end - data_end);
            b->used = end;
        }
        h->nblk++;
        local += piece;
        remote += piece;
        len -= piece;
    }
}

void armcii_amb_end(armcii_amb_t *b)
{
    amb_send(b);
    free(b);
}

void armcii_amb_end_flag(armcii_amb_t *b, uint64_t flag, int value)
{
    if (!b->buf)
        amb_open(b); /* nothing left unsent (or no data at all): the flag goes alone */
    am_hdr_t *h = (am_hdr_t *)b->buf;
    h->kind = AM_PUTF;
    h->arg[0] = flag;
    h->arg[1] = (uint64_t)(int64_t)value;
    armcii_amb_end(b);
}

void armcii_am_rmw(const char *call, armcii_req_t *req, int op, void *result, size_t rsize,
                   int target, uint64_t addr, uint64_t operand, uint64_t comparand)
{
    am_ctx_t *c = calloc(1, sizeof(*c));
    if (!c)
        armcii_fatal(call, "out of memory");
    c->magic = CTX_MAGIC;
    c->req = req;
    c->result = result;
    c->rsize = rsize;
    char *b = armcii_ofi_bounce_get(call);
    am_hdr_t *h = (am_hdr_t *)b;
    memset(h, 0, sizeof(*h));
    h->kind = AM_RMW;
    h->src = armcii_g.rank;
    h->type = op;
    h->cookie = (uint64_t)(uintptr_t)c;
    h->arg[0] = addr;
    h->arg[1] = operand;
    memcpy(h->scale, &comparand, sizeof(comparand));
    req->pending++;
    h->seq = am.seq_out[target]++;
    OFI_RETRY(call, "fi_send (read-modify-write)", target, try_send_bounce(target, b, sizeof(*h)));
}

/* ---- origin side: asking for deferred acknowledgements ---- */

static void want_from(int target)
{
    armcii_req_t *last = am.flagged_tail[target];
    if (!last)
        return;
    uint32_t upto = last->flagged_seq + 1;
    if (reached(am.asked[target], upto))
        return; /* asked already; the answer is on its way */
    am.asked[target] = upto;
    am_hdr_t q = {.kind = AM_ACK_WANTED};
    q.arg[0] = upto;
    send_small(target, &q, offsetof(am_hdr_t, scale));
    armcii_stats.acks_wanted++;
}

void armcii_am_want_acks(int target)
{
    if (!am.flagged_head)
        return; /* no fabric */
    if (target >= 0) {
        want_from(target);
        return;
    }
    for (int t = 0; t < armcii_g.nproc; t++)
        want_from(t);
}
