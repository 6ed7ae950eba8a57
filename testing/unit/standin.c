/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A stand-in transport for the unit tests: the contract of src/transport/transport.h kept
 * inside one process, so that the operations (src/ops), the requests, waits and ordering of
 * the core and the aggregate handles run without MPI's launch or libfabric. Every
 * process of the pretend job lives in this address space: a remote address is a pointer
 * here (caps.mr_virt_addr), an operation is applied when it is posted (a message when it
 * is ended, its records copied as a bounce buffer holds them), and its completion is
 * delivered, through the host's op_done as the real transport does it, at the next
 * armcii_net_progress: a wait must poll for it. Each posted operation is logged
 * (standin_log) for the tests to read back what went down and how.
 */
#include <stdlib.h>
#include <string.h>

#include <armci.h>

#include "standin.h"
#include "../../src/base/acc.h"
#include "../../src/base/common.h"
#include "../../src/transport/transport.h"

standin_op_t standin_log[STANDIN_LOG_MAX];
int standin_nlog;

/* Completions posted and not yet delivered. */
static armcii_token_t *due[STANDIN_LOG_MAX];
static int ndue;

static void posted(armcii_token_t *tok, standin_kind_t kind, int target, uint64_t raddr, size_t len,
                   int proto)
{
    if (standin_nlog < STANDIN_LOG_MAX)
        standin_log[standin_nlog++] = (standin_op_t){
            .kind = kind, .target = target, .raddr = raddr, .len = len, .proto = proto};
    if (tok) {
        armcii_token_posted(tok);
        if (ndue >= STANDIN_LOG_MAX)
            abort(); /* a test that posts this much without waiting is itself wrong */
        due[ndue++] = tok;
    }
}

void standin_reset(void)
{
    standin_nlog = 0;
}

int standin_count(standin_kind_t kind)
{
    int n = 0;
    for (int i = 0; i < standin_nlog; i++)
        n += standin_log[i].kind == kind;
    return n;
}

int standin_due(void)
{
    return ndue;
}

/* ---- what the operations ask of libfabric ---- */

int armcii_net_progress(void)
{
    int n = ndue;
    armcii_token_t *now[STANDIN_LOG_MAX];
    memcpy(now, due, (size_t)n * sizeof(*now));
    ndue = 0;
    for (int i = 0; i < n; i++)
        armcii_tp.op_done(now[i]);
    return n;
}

void armcii_net_get(const char *call, armcii_token_t *tok, void *dst, size_t len, int target,
                    uint64_t raddr, uint64_t key, armcii_proto_t proto)
{
    (void)call;
    (void)key;
    memcpy(dst, (const void *)(uintptr_t)raddr, len);
    posted(tok, STANDIN_GET, target, raddr, len, (int)proto);
}

void armcii_net_put(const char *call, armcii_token_t *tok, const void *src, size_t len, int target,
                    uint64_t raddr, uint64_t key, armcii_proto_t proto)
{
    (void)call;
    (void)key;
    memcpy((void *)(uintptr_t)raddr, src, len);
    posted(tok, STANDIN_PUT, target, raddr, len, (int)proto);
}

void armcii_net_acc(const char *call, armcii_token_t *tok, int type, const void *src, size_t bytes,
                    int target, uint64_t raddr, uint64_t key)
{
    (void)call;
    (void)key;
    static const double one_d = 1.0;
    static const float one_f = 1.0f;
    static const int one_i = 1;
    static const long one_l = 1;
    const void *one = type == ARMCI_ACC_DBL   ? (const void *)&one_d
                      : type == ARMCI_ACC_FLT ? (const void *)&one_f
                      : type == ARMCI_ACC_INT ? (const void *)&one_i
                                              : (const void *)&one_l;
    armcii_acc_apply(type, one, src, (void *)(uintptr_t)raddr, bytes); /* (src is scaled) */
    posted(tok, STANDIN_ACC_HW, target, raddr, bytes, 0);
}

void armcii_net_rmw(const char *call, armcii_token_t *tok, int op, void *result,
                    const void *operand, const void *comparand, int target, uint64_t raddr,
                    uint64_t key)
{
    (void)call;
    (void)key;
    uint64_t opnd = op == ARMCII_RMW_FADD32 || op == ARMCII_RMW_SWAP32 ? *(const uint32_t *)operand
                                                                       : *(const uint64_t *)operand;
    uint64_t cmp = *(const uint64_t *)comparand;
    uint64_t old = armcii_rmw_apply(op, (void *)(uintptr_t)raddr, opnd, &cmp);
    if (op == ARMCII_RMW_FADD32 || op == ARMCII_RMW_SWAP32)
        *(uint32_t *)result = (uint32_t)old;
    else
        *(uint64_t *)result = old;
    posted(tok, STANDIN_RMW, target, raddr, 8, 0);
}

int armcii_net_unflushed(int target)
{
    (void)target;
    return 0; /* a write here lands when it is posted */
}

void armcii_net_flush(const char *call, armcii_token_t *tok, int target)
{
    (void)call;
    posted(tok, STANDIN_FLUSH, target, 0, 0, 0);
}

const char *armcii_net_provider(void)
{
    return "stand-in";
}

/* ---- the active-message builder: each builder one message, applied at its end ---- */

struct armcii_amb {
    armcii_token_t *tok;
    armcii_op_t what;
    int type;
    unsigned char scale[16];
    int target;
    size_t bytes;
    /* the records, as a bounce buffer holds them: a put's or accumulate's data copied
     * when added (the caller may reuse its buffer at once), a get's destination named */
    struct record {
        char *local;
        uint64_t remote;
        size_t len;
        size_t at; /* the data's offset in data[] */
    } * rec;
    size_t nrec, caprec;
    unsigned char *data;
    size_t ndata, capdata;
};

armcii_amb_t *armcii_amb_begin(const char *call, armcii_token_t *tok, armcii_op_t what, int type,
                               const void *scale, int target)
{
    (void)call;
    armcii_amb_t *b = calloc(1, sizeof(*b));
    if (!b)
        abort();
    *b = (armcii_amb_t){.tok = tok, .what = what, .type = type, .target = target};
    if (what == ARMCII_OP_ACC)
        memcpy(b->scale, scale, armcii_acc_type_size(type));
    return b;
}

void armcii_amb_add(armcii_amb_t *b, char *local, uint64_t remote, size_t len)
{
    if (b->nrec == b->caprec) {
        b->caprec = b->caprec ? 2 * b->caprec : 16;
        if (!(b->rec = realloc(b->rec, b->caprec * sizeof(*b->rec))))
            abort();
    }
    size_t at = b->ndata;
    if (b->what != ARMCII_OP_GET) {
        if (b->ndata + len > b->capdata) {
            b->capdata = 2 * (b->ndata + len);
            if (!(b->data = realloc(b->data, b->capdata)))
                abort();
        }
        memcpy(b->data + at, local, len);
        b->ndata += len;
    }
    b->rec[b->nrec++] = (struct record){local, remote, len, at};
    b->bytes += len;
}

size_t armcii_amb_add_run(armcii_amb_t *b, char *const *local, char *const *remote, size_t n,
                          size_t len)
{
    for (size_t k = 0; k < n; k++)
        armcii_amb_add(b, local[k], (uint64_t)(uintptr_t)remote[k], len);
    return n;
}

/* The message arrives: the target applies its records in order (a get's reply lands). */
void armcii_amb_end(armcii_amb_t *b)
{
    for (size_t i = 0; i < b->nrec; i++) {
        const struct record *r = &b->rec[i];
        void *at = (void *)(uintptr_t)r->remote;
        if (b->what == ARMCII_OP_GET)
            memcpy(r->local, at, r->len);
        else if (b->what == ARMCII_OP_ACC)
            armcii_acc_apply(b->type, b->scale, b->data + r->at, at, r->len);
        else
            memcpy(at, b->data + r->at, r->len);
    }
    posted(b->tok, STANDIN_MESSAGE, b->target, 0, b->bytes, (int)b->what);
    free(b->rec);
    free(b->data);
    free(b);
}

void armcii_amb_end_lazy(armcii_amb_t *b)
{
    armcii_amb_end(b);
}

void armcii_amb_end_flag(armcii_amb_t *b, uint64_t flag, int value)
{
    *(int *)(uintptr_t)flag = value;
    armcii_amb_end(b);
}

int armcii_am_deferred;

void armcii_am_ask_acks(int target)
{
    (void)target;
}

void armcii_am_rmw(const char *call, armcii_token_t *tok, int op, void *result, size_t rsize,
                   int target, uint64_t addr, uint64_t operand, uint64_t comparand)
{
    (void)call;
    uint64_t cmp = comparand;
    uint64_t old = armcii_rmw_apply(op, (void *)(uintptr_t)addr, operand, &cmp);
    if (rsize == 4)
        *(uint32_t *)result = (uint32_t)old;
    else
        *(uint64_t *)result = old;
    posted(tok, STANDIN_MESSAGE, target, addr, rsize, ARMCII_OP_RMW);
}

/* ---- node memory: the pretend job has one process a node ---- */

armcii_node_t armcii_node;

void armcii_shm_acc(const char *call, int owner_node_rank, int type, const void *scale,
                    const void *src, void *dst, size_t len)
{
    (void)call;
    (void)owner_node_rank;
    armcii_acc_apply(type, scale, src, dst, len);
}

void armcii_shm_acc_lock(const char *call, int slot)
{
    (void)call;
    (void)slot;
}

void armcii_shm_acc_unlock(int slot)
{
    (void)slot;
}

/* ---- the doorbell and the serving of datagrams: off ---- */

int armcii_bell_fd(void)
{
    return -1;
}

void armcii_bell_ring(int target)
{
    (void)target;
}

int armcii_bell_drain(void)
{
    return 0;
}

int armcii_serve_out_target = -1, armcii_serve_open_target = -1, armcii_serve_due_flag;
static const int zero;

int armcii_serve_on(void)
{
    return 0;
}

int armcii_serve_suits(int target)
{
    (void)target;
    return 0;
}

void armcii_serve_fabric_took(int target, double seconds)
{
    (void)target;
    (void)seconds;
}

void armcii_serve_rmw_post(int op, int target, uint64_t addr, uint64_t operand, uint64_t comparand)
{
    (void)op, (void)target, (void)addr, (void)operand, (void)comparand;
    abort(); /* never asked: armcii_serve_suits says no */
}

void armcii_serve_get_post(uint64_t src, void *dst, size_t len, int target)
{
    (void)src, (void)dst, (void)len, (void)target;
    abort();
}

void armcii_serve_ship(void) {}

int armcii_serve_acc_fits(int target, size_t len)
{
    (void)target;
    (void)len;
    return 0;
}

void armcii_serve_acc_add(int target, int type, const void *scale, const void *src, uint64_t dst,
                          size_t len)
{
    (void)target, (void)type, (void)scale, (void)src, (void)dst, (void)len;
    abort();
}

const int *armcii_serve_waiting(void)
{
    return &zero;
}

void armcii_serve_answer_check(const char *call)
{
    (void)call;
}

uint64_t armcii_serve_rmw_answer(const char *call)
{
    (void)call;
    abort();
}

const int *armcii_serve_open_count(void)
{
    return &zero;
}

int armcii_serve_poll(void)
{
    return 0;
}

void armcii_serve_sleep(void) {}

void armcii_serve_nudge(void) {}

/* ---- opening: what a provider that does everything in order reports ---- */

armcii_status_t armcii_net_init(armcii_caps_t *caps)
{
    *caps = (armcii_caps_t){
        .inject_size = 64,
        .iov_limit = 4,
        .rma_iov_limit = 4,
        .msg_max = (size_t)1 << 30,
        .bounce_size = 8192,
        .mr_virt_addr = 1,
        .keys_chosen = 1,
        .order_raw = 1,
        .order_waw = 1,
        .order_sas = 1,
    };
    return ARMCII_OK;
}

void armcii_net_fini(void) {}
