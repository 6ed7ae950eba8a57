/*
 * Active messages: accumulates the provider cannot do natively are sent to the target,
 * which applies them under its accumulate lock (the same lock same-node peers take) and
 * acknowledges each chunk. The origin's request completes when every acknowledgement
 * has arrived, so a fence after it means the data is in the target's memory.
 */
#include <stdlib.h>
#include <string.h>

#include "ofi_internal.h"

enum { AM_ACC = 0x41434301u, AM_ACK = 0x41434B02u };

typedef struct {
    uint32_t kind;
    int32_t src;
    int32_t type;
    uint32_t reserved;
    uint64_t len;
    uint64_t addr;
    uint64_t cookie; /* origin's request: slot << 32 | generation */
    unsigned char scale[16];
} am_hdr_t;

typedef struct {
    uint32_t kind;
    uint32_t reserved;
    uint64_t cookie;
} am_ack_t;

#define AM_NRECV 32

static struct {
    char *slab;
    size_t buf_size;
    armcii_mr_t mr;
    ofi_op_t *recv_ops[AM_NRECV];
    /* acknowledgements and receive re-posts the provider refused for now */
    am_ack_t *acks;
    int *ack_to;
    int nacks, cap_acks;
    ofi_op_t *reposts[AM_NRECV];
    int nreposts;
} am;

static int post_recv(ofi_op_t *op)
{
    return (int)fi_recv(armcii_ofi.ep, op->bounce, am.buf_size, am.mr.desc, FI_ADDR_UNSPEC,
                        &op->ctx);
}

armcii_status_t armcii_am_init(void)
{
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
    /* Closing the endpoint cancels the posted receives; their contexts are ours. */
    for (int i = 0; i < AM_NRECV; i++)
        free(am.recv_ops[i]);
    armcii_ofi_mr_dereg(&am.mr);
    free(am.slab);
    free(am.acks);
    free(am.ack_to);
    memset(&am, 0, sizeof(am));
}

static int send_ack(int to, const am_ack_t *ack)
{
    return (int)fi_inject(armcii_ofi.ep, ack, sizeof(*ack), armcii_ofi.addrs[to]);
}

static void defer_ack(int to, const am_ack_t *ack)
{
    if (am.nacks == am.cap_acks) {
        int cap = am.cap_acks ? 2 * am.cap_acks : 64;
        am.acks = realloc(am.acks, (size_t)cap * sizeof(*am.acks));
        am.ack_to = realloc(am.ack_to, (size_t)cap * sizeof(*am.ack_to));
        if (!am.acks || !am.ack_to)
            armcii_fatal("armci progress", "out of memory queueing an acknowledgement");
        am.cap_acks = cap;
    }
    am.acks[am.nacks] = *ack;
    am.ack_to[am.nacks++] = to;
}

void armcii_am_flush_deferred(void)
{
    int i = 0;
    for (; i < am.nacks; i++) {
        int rc = send_ack(am.ack_to[i], &am.acks[i]);
        if (rc == -FI_EAGAIN)
            break;
        if (rc != 0)
            armcii_ofi_fail("armci progress", "fi_inject (acknowledgement)", am.ack_to[i], rc);
    }
    if (i > 0) {
        memmove(am.acks, am.acks + i, (size_t)(am.nacks - i) * sizeof(*am.acks));
        memmove(am.ack_to, am.ack_to + i, (size_t)(am.nacks - i) * sizeof(*am.ack_to));
        am.nacks -= i;
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

static void apply_acc(const am_hdr_t *h, size_t len)
{
    const char *call = "armci progress (incoming accumulate)";
    if (len < sizeof(*h) || h->len > len - sizeof(*h) || armcii_acc_type_size(h->type) == 0)
        armcii_fatal(call, "malformed message from rank %d (%zu bytes)", h->src, len);
    if (!armcii_region_find(&armcii_g.regions, armcii_g.rank, (uintptr_t)h->addr, h->len))
        armcii_fatal(call, "rank %d accumulates into %p (+%llu bytes), outside every ARMCI "
                           "allocation of this rank",
                     h->src, (void *)(uintptr_t)h->addr, (unsigned long long)h->len);
    int slot = armcii_g.shm ? armcii_g.node_rank : 0;
    armcii_shm_acc(slot, h->type, h->scale, h + 1, (void *)(uintptr_t)h->addr, h->len);
    am_ack_t ack = {.kind = AM_ACK, .cookie = h->cookie};
    /* Keep acknowledgements in order behind any already waiting. */
    if (am.nacks > 0 || send_ack(h->src, &ack) != 0)
        defer_ack(h->src, &ack);
}

static void take_ack(const am_ack_t *a)
{
    uint32_t slot = (uint32_t)(a->cookie >> 32), gen = (uint32_t)a->cookie;
    if (slot >= (uint32_t)armcii_g.pool.nslots)
        armcii_fatal("armci progress", "acknowledgement for request slot %u, beyond the pool",
                     slot);
    armcii_req_t *req = &armcii_g.pool.slots[slot];
    if (!req->in_use || req->gen != gen)
        armcii_fatal("armci progress", "acknowledgement for a request that is not in flight "
                                       "(slot %u, generation %u)",
                     slot, gen);
    armcii_req_op_done(req);
}

void armcii_am_handle(ofi_op_t *op, size_t len)
{
    uint32_t kind;
    memcpy(&kind, op->bounce, sizeof(kind));
    if (kind == AM_ACC)
        apply_acc(op->bounce, len);
    else if (kind == AM_ACK && len >= sizeof(am_ack_t))
        take_ack(op->bounce);
    else
        armcii_fatal("armci progress", "unknown message kind 0x%x (%zu bytes)", kind, len);
    int rc = am.nreposts > 0 ? -FI_EAGAIN : post_recv(op);
    if (rc == -FI_EAGAIN)
        am.reposts[am.nreposts++] = op;
    else if (rc != 0)
        armcii_ofi_fail("armci progress", "fi_recv", armcii_g.rank, rc);
}

armcii_status_t armcii_am_acc(const char *call, armcii_req_t *req, int type, const void *scale,
                              const void *src, size_t bytes, int target, uint64_t dst_addr)
{
    size_t esize = armcii_acc_type_size(type);
    size_t room = (armcii_ofi.bounce_size - sizeof(am_hdr_t)) / esize * esize;
    for (size_t off = 0; off < bytes; off += room) {
        size_t chunk = bytes - off < room ? bytes - off : room;
        char *b = armcii_ofi_bounce_get(call);
        am_hdr_t *h = (am_hdr_t *)b;
        memset(h, 0, sizeof(*h));
        h->kind = AM_ACC;
        h->src = armcii_g.rank;
        h->type = type;
        h->len = chunk;
        h->addr = dst_addr + off;
        h->cookie = ((uint64_t)(uint32_t)req->index << 32) | req->gen;
        memcpy(h->scale, scale, esize);
        memcpy(h + 1, (const char *)src + off, chunk);
        ofi_op_t *op = armcii_ofi_op_get();
        op->kind = OFI_OP_SEND;
        op->target = target;
        op->bounce = b;
        req->pending++; /* completed by the acknowledgement, not by the send */
        OFI_RETRY(call, "fi_send (accumulate)", target,
                  fi_send(armcii_ofi.ep, b, sizeof(*h) + chunk, armcii_ofi.bounce_mr.desc,
                          armcii_ofi.addrs[target], &op->ctx));
    }
    return ARMCII_OK;
}
