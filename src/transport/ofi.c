/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libfabric transport: one RDM endpoint per process, an AV table indexed by rank, one
 * completion queue, memory registration, RMA reads and writes (direct, inject and
 * through bounce buffers) and the completion loop.
 *
 * What the provider returns decides everything at run time: mr_mode bits, inject size,
 * message ordering (which decides when the core must wait before a blocking operation)
 * and whether a write completion means remote completion.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "host.h"
#include "ofi_internal.h"
#include "transport.h"
#include "../base/caps.h"
#include "../base/common.h"
#include "../base/invariant.h"
#include "../base/place.h"
#include "../base/select.h"
#include "../base/stats.h"
#include "../base/token.h"

ofi_state_t armcii_ofi;

#define CQ_BATCH 16

void armcii_ofi_fail(const char *call, const char *what, int target, ssize_t rc)
{
    armcii_tp.blame(call, target);
    armcii_fatal(call, "%s to rank %d failed: %s (provider %s)", what, target,
                 fi_strerror((int)-rc), armcii_ofi_provider());
}

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
                     what, target, armcii_tp.env->TIMEOUT, target, armcii_ofi_provider());
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
    if (armcii_idle_poll(&r->idle, armcii_ofi_progress(), armcii_tp.yield_after))
        armcii_stat_eagain_yield();
}

/* ---- operation contexts ---- */

ofi_op_t *armcii_ofi_op_get(void)
{
    ofi_op_t *op = armcii_ofi.op_free;
    if (op) {
        armcii_ofi.op_free = op->next_free;
    } else {
        op = malloc(sizeof(*op));
        if (!op)
            armcii_fatal("armci", "out of memory for an operation context");
    }
    memset(op, 0, sizeof(*op));
    armcii_ofi.ops_out++;
    return op;
}

ofi_op_t *armcii_ofi_op_get_standing(void)
{
    ofi_op_t *op = armcii_ofi_op_get();
    armcii_ofi.ops_out--;
    return op;
}

void armcii_ofi_op_put(ofi_op_t *op)
{
    ARMCII_INVARIANT(armcii_ofi.ops_out > 0, "an operation context given back twice (%ld out)",
                     armcii_ofi.ops_out);
    armcii_ofi.ops_out--;
    op->next_free = armcii_ofi.op_free;
    armcii_ofi.op_free = op;
}

/* ---- bounce buffers ---- */

void *armcii_ofi_bounce_get(const char *call)
{
    double t0 = armcii_now();
    unsigned idle = 0;
    while (armcii_ofi.nbounce_free == 0) {
        /* Every bounce buffer belongs to an operation in flight: completing them frees
         * one. This is where the oldest holder gets completed. */
        armcii_tp.make_progress(call, &idle);
        if (armcii_now() - t0 > (double)armcii_tp.env->TIMEOUT)
            armcii_fatal(call,
                         "no bounce buffer came free in %ld s (%d in use; see "
                         "ARMCI_BOUNCE_COUNT and ARMCI_TIMEOUT)",
                         armcii_tp.env->TIMEOUT, armcii_ofi.bounce_count);
    }
    return armcii_ofi.bounce_free[--armcii_ofi.nbounce_free];
}

void armcii_ofi_bounce_put(void *b)
{
    ARMCII_INVARIANT(armcii_ofi.nbounce_free < armcii_ofi.bounce_count &&
                         (char *)b >= armcii_ofi.bounce_slab &&
                         (size_t)((char *)b - armcii_ofi.bounce_slab) % armcii_ofi.bounce_size == 0,
                     "bounce buffer %p given back, %d of %d free", b, armcii_ofi.nbounce_free,
                     armcii_ofi.bounce_count);
    armcii_ofi.bounce_free[armcii_ofi.nbounce_free++] = b;
}

void armcii_ofi_bounce_usage(int *in_use_p, int *total_p)
{
    *in_use_p = armcii_ofi.bounce_count - armcii_ofi.nbounce_free;
    *total_p = armcii_ofi.bounce_count;
}

/* ---- memory registration ---- */

uint64_t armcii_ofi_key_next(void)
{
    return armcii_ofi.next_key;
}

/*
 * ARMCI_MR_MODE=strict: on a provider that asks nothing of registrations (tcp, sockets),
 * the runtime behaves as the providers of RDMA NICs require, so that those paths run here:
 *   FI_MR_LOCAL     every local buffer has a registration's descriptor: data go through
 *                   bounce buffers (the selector's rule), and each transfer's descriptor is
 *                   checked against the registration holding its buffer (below);
 *   FI_MR_PROV_KEY  keys are the provider's: each registration asks for one that looks
 *                   like a provider's (scattered, different in every process), and peers
 *                   learn every block's key instead of agreeing on one;
 *   FI_MR_ENDPOINT  registrations are bound to the endpoint and enabled, where the provider
 *                   accepts it;
 *   FI_MR_ALLOCATED only mapped memory is registered (checked with mincore).
 * FI_MR_VIRT_ADDR cannot be imposed: a provider that addresses registrations by offset
 * reads any address as one. The shm provider asks for it (FI_PROVIDER=shm).
 */
#define STRICT_BITS (FI_MR_LOCAL | FI_MR_PROV_KEY | FI_MR_ENDPOINT | FI_MR_ALLOCATED)

/* A key as a provider would pick it: a bijection of the process's registration count and
 * its rank (splitmix64's finaliser), so keys are unique in the process and scattered. */
static uint64_t strict_key(uint64_t n)
{
    uint64_t z = n + ((uint64_t)armcii_tp.rank << 40) + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void checked_add(void *buf, size_t len, void *desc, void *real)
{
    if (armcii_ofi.nchecked == armcii_ofi.checked_cap) {
        int cap = armcii_ofi.checked_cap ? 2 * armcii_ofi.checked_cap : 16;
        ofi_checked_t *c = realloc(armcii_ofi.checked, (size_t)cap * sizeof(*c));
        if (!c)
            armcii_fatal("armci", "out of memory for the registrations ARMCI_MR_MODE checks");
        armcii_ofi.checked = c;
        armcii_ofi.checked_cap = cap;
    }
    armcii_ofi.checked[armcii_ofi.nchecked++] =
        (ofi_checked_t){.base = (uintptr_t)buf, .len = len, .desc = desc, .real = real};
}

static void checked_drop(void *desc)
{
    for (int i = 0; i < armcii_ofi.nchecked; i++) {
        if (armcii_ofi.checked[i].desc == desc) {
            armcii_ofi.checked[i] = armcii_ofi.checked[--armcii_ofi.nchecked];
            return;
        }
    }
}

void *armcii_ofi_local_check(const char *call, const char *what, int target, const void *buf,
                             size_t len, void *desc)
{
    uintptr_t b = (uintptr_t)buf;
    for (int i = 0; desc && i < armcii_ofi.nchecked; i++) {
        const ofi_checked_t *c = &armcii_ofi.checked[i];
        if (c->desc == desc && b >= c->base && len <= c->len && b - c->base <= c->len - len)
            return c->real;
    }
    armcii_tp.blame(call, target);
    armcii_fatal(call,
                 "%s to rank %d: %zu bytes at %p %s; a provider that requires FI_MR_LOCAL "
                 "(verbs, efa) would fail it (ARMCI_MR_MODE=strict checks what they check)",
                 what, target, len, buf,
                 desc ? "lie outside the registration their descriptor names"
                      : "have no registration's descriptor");
}

/* Whether every page of [buf, buf+len) is mapped (FI_MR_ALLOCATED's rule). */
static int mapped(void *buf, size_t len)
{
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t lo = (uintptr_t)buf & ~(uintptr_t)(page - 1);
    uintptr_t hi = ((uintptr_t)buf + len + (uintptr_t)page - 1) & ~(uintptr_t)(page - 1);
    unsigned char vec[64];
    for (uintptr_t at = lo; at < hi;) {
        size_t n = (hi - at) / (size_t)page < sizeof vec ? (hi - at) / (size_t)page : sizeof vec;
        if (mincore((void *)at, n * (size_t)page, vec) != 0)
            return 0;
        at += n * (size_t)page;
    }
    return 1;
}

armcii_status_t armcii_ofi_mr_reg(const char *call, void *buf, size_t len, armcii_mr_t *mr_p)
{
    return armcii_ofi_mr_reg_key(call, buf, len, armcii_ofi.next_key, mr_p);
}

armcii_status_t armcii_ofi_mr_reg_key(const char *call, void *buf, size_t len, uint64_t key,
                                      armcii_mr_t *mr_p)
{
    struct fid_mr *mr;
    uint64_t access = FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE | FI_SEND | FI_RECV;
    /* Past the limit the provider would fail (or, with some, fail later and obscurely). */
    if (armcii_ofi.mr_max > 0 && armcii_ofi.mr_live >= armcii_ofi.mr_max) {
        armcii_warn("%s: registering %zu bytes with libfabric would exceed the %ld memory "
                    "registrations allowed (%s); free allocations first",
                    call, len, armcii_ofi.mr_max, armcii_ofi.mr_max_from);
        return ARMCII_ENOMEM;
    }
    if ((armcii_ofi.mr_emulated & FI_MR_ALLOCATED) && !mapped(buf, len)) {
        armcii_warn("%s: registering %zu bytes at %p, memory that is not all mapped; a provider "
                    "that requires FI_MR_ALLOCATED would refuse it (ARMCI_MR_MODE=strict)",
                    call, len, buf);
        return ARMCII_EFABRIC;
    }
    /* The key asked for: a provider that picks its own ignores it. */
    uint64_t asked = (armcii_ofi.mr_emulated & FI_MR_PROV_KEY) ? strict_key(key) : key;
    int rc = fi_mr_reg(armcii_ofi.domain, buf, len, access, 0, asked, 0, &mr, NULL);
    if (rc != 0) {
        armcii_warn("%s: registering %zu bytes at %p with libfabric failed: %s", call, len, buf,
                    fi_strerror(-rc));
        return ARMCII_ENOMEM;
    }
    if (armcii_ofi.mr_mode & FI_MR_ENDPOINT) {
        rc = fi_mr_bind(mr, &armcii_ofi.ep->fid, 0);
        if (rc == 0)
            rc = fi_mr_enable(mr);
        if (rc != 0) {
            armcii_warn("%s: binding a registration to the endpoint failed: %s", call,
                        fi_strerror(-rc));
            fi_close(&mr->fid);
            return ARMCII_EFABRIC;
        }
    }
    armcii_ofi.mr_live++;
    if (key >= armcii_ofi.next_key)
        armcii_ofi.next_key = key + 1;
    mr_p->handle = mr;
    mr_p->desc = fi_mr_desc(mr);
    mr_p->key = fi_mr_key(mr);
    mr_p->raddr_base = (armcii_ofi.mr_mode & FI_MR_VIRT_ADDR) ? (uint64_t)(uintptr_t)buf : 0;
    if (armcii_ofi.mr_emulated & FI_MR_LOCAL) {
        /* The runtime carries a descriptor of its own, distinct per registration as a
         * provider's that requires them are; the check hands the provider's own (which
         * may be NULL here) to the call. */
        void *real = mr_p->desc;
        mr_p->desc = real ? real : (void *)mr;
        checked_add(buf, len, mr_p->desc, real);
    }
    return ARMCII_OK;
}

void armcii_ofi_mr_dereg(armcii_mr_t *mr)
{
    if (mr->handle) {
        if (armcii_ofi.mr_emulated & FI_MR_LOCAL)
            checked_drop(mr->desc);
        fi_close(&((struct fid_mr *)mr->handle)->fid);
        armcii_ofi.mr_live--;
    }
    mr->handle = NULL;
}

/* ---- opening ---- */

static armcii_status_t getinfo(void)
{
    armcii_ofi_want_t want = {.virt_addr = strcmp(armcii_tp.env->MR_MODE, "strict") == 0,
                              .nic = armcii_tp.env->NIC,
                              .lib = armcii_tp.env->FABRIC_LIB,
                              .local_rank = armcii_tp.node_rank};
    armcii_status_t st = armcii_ofi_choose(&want, &armcii_ofi.info, &armcii_ofi.atomic_cap,
                                           &armcii_ofi.delivery_complete);
    memcpy(armcii_ofi.nic_why, want.nic_why, sizeof armcii_ofi.nic_why);
    if (st == ARMCII_EFABRIC)
        armcii_warn("ARMCI_Init: no libfabric provider offers RDM endpoints with RMA and "
                    "messages (check FI_PROVIDER and `fi_info -t FI_EP_RDM -c FI_RMA`)");
    if (st != ARMCII_OK)
        return st;
    /* A job on tcp where the node has an RDMA NIC runs, an order of magnitude slower than
     * it could: say so, and why, once per job. */
    char why[sizeof armcii_ofi.why_software];
    armcii_ofi_why_software(armcii_ofi_provider(), getenv("FI_PROVIDER"), why, sizeof why);
    memcpy(armcii_ofi.why_software, why, sizeof why);
    if (why[0] && armcii_tp.rank == 0)
        armcii_warn("ARMCI_Init: %s; FI_PROVIDER chooses (docs/cluster.md)", why);
    return st;
}

#define OPEN_CHECK(what, expr)                                                                     \
    do {                                                                                           \
        int rc_ = (expr);                                                                          \
        if (rc_ != 0) {                                                                            \
            armcii_warn("ARMCI_Init: %s failed: %s (provider %s)", what, fi_strerror(-rc_),        \
                        armcii_ofi_provider());                                                    \
            return ARMCII_EFABRIC;                                                                 \
        }                                                                                          \
    } while (0)

static armcii_status_t exchange_addresses(void)
{
    char name[256];
    size_t len = sizeof(name);
    OPEN_CHECK("fi_getname", fi_getname(&armcii_ofi.ep->fid, name, &len));
    int mylen = (int)len, maxlen = 0;
    MPI_Allreduce(&mylen, &maxlen, 1, MPI_INT, MPI_MAX, armcii_tp.comm);
    char *all = calloc((size_t)armcii_tp.nproc, (size_t)maxlen);
    fi_addr_t *addrs = calloc((size_t)armcii_tp.nproc, sizeof(fi_addr_t));
    if (!all || !addrs) {
        free(all);
        free(addrs);
        return ARMCII_ENOMEM;
    }
    armcii_bell_open(name, len);
    armcii_serve_open();
    char *mine = calloc(1, (size_t)maxlen);
    memcpy(mine, name, len);
    MPI_Allgather(mine, maxlen, MPI_BYTE, all, maxlen, MPI_BYTE, armcii_tp.comm);
    free(mine);
    int n = fi_av_insert(armcii_ofi.av, all, (size_t)armcii_tp.nproc, addrs, 0, NULL);
    free(all);
    for (int r = 0; r < armcii_tp.nproc; r++)
        armcii_ofi.peers[r].addr = addrs[r];
    free(addrs);
    if (n != armcii_tp.nproc) {
        armcii_warn("ARMCI_Init: fi_av_insert entered %d of %d addresses", n, armcii_tp.nproc);
        return ARMCII_EFABRIC;
    }
    return ARMCII_OK;
}

static armcii_status_t setup_bounce(void)
{
    armcii_ofi.bounce_size = (size_t)armcii_tp.env->BOUNCE_SIZE;
    armcii_ofi.bounce_count = (int)armcii_tp.env->BOUNCE_COUNT;
    size_t total = armcii_ofi.bounce_size * (size_t)armcii_ofi.bounce_count;
    if (posix_memalign((void **)&armcii_ofi.bounce_slab, 4096, total) != 0)
        return ARMCII_ENOMEM;
    armcii_ofi.bounce_free = malloc((size_t)armcii_ofi.bounce_count * sizeof(void *));
    if (!armcii_ofi.bounce_free)
        return ARMCII_ENOMEM;
    for (int i = 0; i < armcii_ofi.bounce_count; i++)
        armcii_ofi.bounce_free[i] = armcii_ofi.bounce_slab + (size_t)i * armcii_ofi.bounce_size;
    armcii_ofi.nbounce_free = armcii_ofi.bounce_count;
    return armcii_ofi_mr_reg("ARMCI_Init", armcii_ofi.bounce_slab, total, &armcii_ofi.bounce_mr);
}

static armcii_status_t setup_flush(void)
{
    armcii_status_t st = armcii_ofi_mr_reg("ARMCI_Init", &armcii_ofi.flush_word,
                                           sizeof(armcii_ofi.flush_word), &armcii_ofi.flush_mr);
    if (st != ARMCII_OK)
        return st;
    int P = armcii_tp.nproc;
    uint64_t mine[2] = {armcii_ofi.flush_mr.raddr_base, armcii_ofi.flush_mr.key};
    uint64_t *all = malloc(2 * (size_t)P * sizeof(uint64_t));
    if (!all)
        return ARMCII_ENOMEM;
    MPI_Allgather(mine, 2, MPI_UINT64_T, all, 2, MPI_UINT64_T, armcii_tp.comm);
    for (int r = 0; r < P; r++) {
        armcii_ofi.peers[r].flush_addr = all[2 * r];
        armcii_ofi.peers[r].flush_key = all[2 * r + 1];
    }
    free(all);
    return ARMCII_OK;
}

/* Is libfabric's first choice going to be tcp;ofi_rxm? FI_PROVIDER names tcp, or leaves the
 * choice open on a machine with no RDMA device for verbs, psm or efa to claim. */
static int tcp_likely(void)
{
    const char *prov = getenv("FI_PROVIDER");
    if (prov && prov[0] != '^')
        return strstr(prov, "tcp") != NULL;
    if (prov && strstr(prov, "tcp"))
        return 0;
    char devs[64];
    return armcii_ofi_rdma_devices("/sys", devs, sizeof devs) == 0;
}

/*
 * Settings of tcp;ofi_rxm, which libfabric reads once, when it first loads its providers:
 * they go into the environment before then, unless the user set them there.
 *
 * Eager limit: rxm sends a message above it (16 KiB by default) in segments or by
 * rendezvous, and either needs calls from the sender after the send was posted. Our
 * messages are at most one bounce buffer long: with the limit raised to that, each leaves
 * in one send, and a process that computes or waits in MPI right after a call does not
 * hold up the peer waiting for it (NAS CG over tcp at 4 processes became a fifth faster).
 * Only for tcp: rxm over verbs needs the limit equal to its buffer size.
 *
 * Its own buffers: over tcp, rxm keeps one shared receive queue for all peers and fills it
 * with 4096 buffers of 16 KiB, 64 MiB that every process touches in fi_enable, and at first
 * contact it makes a send pool of 1024 more (17 MiB). Its pools grow 1024
 * buffers at a time, so 1024 posted cost no more than one. Over tcp it sends our messages
 * up to the eager limit straight from our buffers and receives them into ours, so its own
 * carry only headers and the unexpected: 4 KiB each make 1024 of them 4 MiB. Over verbs
 * the buffer size is the eager limit and the receive count sizes every connection's queue,
 * so both are left alone there.
 */
static void rxm_settings(void)
{
    char v[32], lost[200] = "";
    size_t used = 0;
    /* Where MPI opened libfabric first (Open MPI's ofi MTL), libfabric read these then: the
     * values go into the environment all the same (for armci-info and ARMCI_VERBOSE), and
     * the job is told which ones to set itself. They would apply to MPI's use of rxm too. */
    int late = armcii_fi_opened_elsewhere();
    long want = armcii_tp.env->TCP_EAGER;
    const char *prov = getenv("FI_PROVIDER");
    if (want != 0 && !getenv("FI_OFI_RXM_EAGER_LIMIT") &&
        (want > 0 || (prov && strstr(prov, "tcp")))) {
        snprintf(v, sizeof v, "%ld", (long)armcii_tp.env->BOUNCE_SIZE);
        setenv("FI_OFI_RXM_EAGER_LIMIT", v, 0);
        used += (size_t)snprintf(lost + used, sizeof lost - used, " FI_OFI_RXM_EAGER_LIMIT=%s", v);
    }
    if (tcp_likely()) {
        if (armcii_tp.env->RXM_RECV > 0 && !getenv("FI_OFI_RXM_MSG_RX_SIZE")) {
            snprintf(v, sizeof v, "%ld", (long)armcii_tp.env->RXM_RECV);
            setenv("FI_OFI_RXM_MSG_RX_SIZE", v, 0);
            armcii_ofi.rxm_set |= 1;
            used +=
                (size_t)snprintf(lost + used, sizeof lost - used, " FI_OFI_RXM_MSG_RX_SIZE=%s", v);
        }
        if (armcii_tp.env->RXM_BUFFER > 0 && !getenv("FI_OFI_RXM_BUFFER_SIZE")) {
            snprintf(v, sizeof v, "%ld", (long)armcii_tp.env->RXM_BUFFER);
            setenv("FI_OFI_RXM_BUFFER_SIZE", v, 0);
            armcii_ofi.rxm_set |= 2;
            used +=
                (size_t)snprintf(lost + used, sizeof lost - used, " FI_OFI_RXM_BUFFER_SIZE=%s", v);
        }
    }
    if (late && used > 0) {
        armcii_ofi.rxm_set |= 4;
        if (armcii_tp.rank == 0)
            armcii_warn("ARMCI_Init: libfabric was opened before ARMCI_Init (by MPI on the "
                        "fabric?) and read its settings then: armci-ofi's tuning of "
                        "tcp;ofi_rxm did not apply (ARMCI_TCP_EAGER, ARMCI_RXM_RECV, "
                        "ARMCI_RXM_BUFFER; rxm's own buffers cost 4 to 7 times the memory). "
                        "Set in the job's environment, for MPI's use of rxm too:%s",
                        lost);
    }
}

/* What ARMCI_MR_MODE=strict does on this provider, in words (one line). */
static void strict_summary(char *out, size_t len)
{
    static const struct {
        uint64_t bit;
        const char *what;
    } bits[] = {{FI_MR_LOCAL, "local descriptors"},
                {FI_MR_PROV_KEY, "provider keys"},
                {FI_MR_ENDPOINT, "endpoint-bound registrations"},
                {FI_MR_ALLOCATED, "mapped memory only"}};
    size_t used =
        (size_t)snprintf(out, len, "ARMCI_MR_MODE=strict on %s: emulated", armcii_ofi_provider());
    int any = 0;
    for (size_t i = 0; i < sizeof bits / sizeof bits[0] && used < len; i++)
        if (armcii_ofi.mr_emulated & bits[i].bit)
            used +=
                (size_t)snprintf(out + used, len - used, "%s %s", any++ ? "," : "", bits[i].what);
    if (!any && used < len)
        used += (size_t)snprintf(out + used, len - used, " nothing (the provider asks it all)");
    if (armcii_ofi.mr_refused && used < len)
        used += (size_t)snprintf(out + used, len - used, "; refused by the provider: %s",
                                 armcii_ofi.mr_refused_why);
    if (!(armcii_ofi.mr_mode & FI_MR_VIRT_ADDR) && used < len)
        snprintf(out + used, len - used,
                 "; not virtual addresses: the provider addresses registrations by offset");
}

/* Strict registration binds registrations to the endpoint where the provider accepts it;
 * one that does not (binding is its own to refuse) says so and goes on without. */
static armcii_status_t strict_endpoint_probe(void)
{
    if (!(armcii_ofi.mr_emulated & FI_MR_ENDPOINT))
        return ARMCII_OK;
    static uint64_t word;
    struct fid_mr *mr;
    uint64_t access = FI_REMOTE_READ | FI_REMOTE_WRITE;
    int rc =
        fi_mr_reg(armcii_ofi.domain, &word, sizeof word, access, 0, strict_key(0), 0, &mr, NULL);
    if (rc != 0) {
        armcii_warn("ARMCI_Init: registering a word failed: %s", fi_strerror(-rc));
        return ARMCII_EFABRIC;
    }
    rc = fi_mr_bind(mr, &armcii_ofi.ep->fid, 0);
    if (rc == 0)
        rc = fi_mr_enable(mr);
    fi_close(&mr->fid);
    if (rc != 0) {
        armcii_ofi.mr_emulated &= ~(uint64_t)FI_MR_ENDPOINT;
        armcii_ofi.mr_mode &= ~(uint64_t)FI_MR_ENDPOINT;
        armcii_ofi.mr_refused = "endpoint-bound registrations (fi_mr_bind to the endpoint: ";
        snprintf(armcii_ofi.mr_refused_why, sizeof armcii_ofi.mr_refused_why, "%s%s)",
                 armcii_ofi.mr_refused, fi_strerror(-rc));
    }
    return ARMCII_OK;
}

armcii_status_t armcii_ofi_open(void)
{
    rxm_settings();
    armcii_status_t st = getinfo();
    /* Every rank must have found a provider, and the same one, before anyone uses it. */
    if ((st = armcii_ofi_agree("ARMCI_Init", armcii_tp.comm,
                               st == ARMCII_OK ? armcii_ofi.info : NULL, armcii_ofi.atomic_cap,
                               armcii_ofi.delivery_complete)) != ARMCII_OK)
        return st;

    struct fi_info *info = armcii_ofi.info;
    armcii_ofi.mr_mode = info->domain_attr->mr_mode;
    /* The provider's own limit on registrations, lowered by ARMCI_MR_MAX if asked. */
    armcii_ofi.mr_max = (long)info->domain_attr->mr_cnt;
    armcii_ofi.mr_max_from = "the provider's mr_cnt";
    if (armcii_tp.env->MR_MAX > 0 &&
        (armcii_ofi.mr_max <= 0 || armcii_tp.env->MR_MAX < armcii_ofi.mr_max)) {
        armcii_ofi.mr_max = armcii_tp.env->MR_MAX;
        armcii_ofi.mr_max_from = "ARMCI_MR_MAX";
    }
    armcii_ofi.caps.manual_progress = info->domain_attr->data_progress == FI_PROGRESS_MANUAL;
    armcii_ofi.next_key = 1;
    if (strcmp(armcii_tp.env->MR_MODE, "strict") == 0) {
        armcii_ofi.mr_emulated = STRICT_BITS & ~armcii_ofi.mr_mode;
        armcii_ofi.mr_mode |= armcii_ofi.mr_emulated;
    }
    if (armcii_ofi.mr_mode & FI_MR_RAW) {
        armcii_warn("ARMCI_Init: provider %s needs raw memory keys, which armci-ofi does not "
                    "support yet",
                    armcii_ofi_provider());
        return ARMCII_EFABRIC;
    }

    OPEN_CHECK("fi_fabric", fi_fabric(info->fabric_attr, &armcii_ofi.fabric, NULL));
    OPEN_CHECK("fi_domain", fi_domain(armcii_ofi.fabric, info, &armcii_ofi.domain, NULL));
    struct fi_av_attr av_attr = {.type = FI_AV_TABLE, .count = (size_t)armcii_tp.nproc};
    OPEN_CHECK("fi_av_open", fi_av_open(armcii_ofi.domain, &av_attr, &armcii_ofi.av, NULL));
    struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_DATA, .wait_obj = FI_WAIT_NONE};
    OPEN_CHECK("fi_cq_open", fi_cq_open(armcii_ofi.domain, &cq_attr, &armcii_ofi.cq, NULL));
    OPEN_CHECK("fi_endpoint", fi_endpoint(armcii_ofi.domain, info, &armcii_ofi.ep, NULL));
    OPEN_CHECK("fi_ep_bind(av)", fi_ep_bind(armcii_ofi.ep, &armcii_ofi.av->fid, 0));
    OPEN_CHECK("fi_ep_bind(cq)",
               fi_ep_bind(armcii_ofi.ep, &armcii_ofi.cq->fid, FI_TRANSMIT | FI_RECV));
    OPEN_CHECK("fi_enable", fi_enable(armcii_ofi.ep));

    if ((st = strict_endpoint_probe()) != ARMCII_OK)
        return st;
    if (armcii_ofi.mr_emulated && armcii_tp.rank == 0) {
        char line[512];
        strict_summary(line, sizeof line);
        armcii_info_line(line);
    }
    size_t peers_len = (size_t)armcii_tp.nproc * sizeof(ofi_peer_t);
    if (posix_memalign((void **)&armcii_ofi.peers, 64, peers_len) != 0)
        return ARMCII_ENOMEM;
    memset(armcii_ofi.peers, 0, peers_len);
    if ((st = exchange_addresses()) != ARMCII_OK)
        return st;
    if ((st = setup_bounce()) != ARMCII_OK)
        return st;
    if ((st = setup_flush()) != ARMCII_OK)
        return st;
    armcii_caps_t *caps = &armcii_ofi.caps;

    uint64_t order = info->tx_attr->msg_order;
    caps->order_raw = (order & FI_ORDER_RAW) != 0;
    caps->order_waw = (order & FI_ORDER_WAW) != 0;
    caps->order_sas = (order & FI_ORDER_SAS) != 0;
    if (info->tx_attr->inject_size < 56) {
        /* acknowledgements and read-modify-write replies go out with fi_inject */
        armcii_warn("ARMCI_Init: provider %s injects at most %zu bytes; armci-ofi needs 56",
                    armcii_ofi_provider(), info->tx_attr->inject_size);
        return ARMCII_EFABRIC;
    }
    caps->inject_size = info->tx_attr->inject_size;
    caps->iov_limit = info->tx_attr->iov_limit;
    caps->rma_iov_limit = info->tx_attr->rma_iov_limit;
    caps->bounce_size = armcii_ofi.bounce_size;
    caps->mr_local = (armcii_ofi.mr_mode & FI_MR_LOCAL) != 0;
    caps->mr_virt_addr = (armcii_ofi.mr_mode & FI_MR_VIRT_ADDR) != 0;
    caps->keys_chosen = !(armcii_ofi.mr_mode & FI_MR_PROV_KEY);
    /* A get or put longer than the provider's largest message goes as several. */
    caps->msg_max = info->ep_attr->max_msg_size ? info->ep_attr->max_msg_size : SIZE_MAX;
    if (armcii_tp.env->MSG_MAX > 0 && (size_t)armcii_tp.env->MSG_MAX < caps->msg_max)
        caps->msg_max = (size_t)armcii_tp.env->MSG_MAX;
    return ARMCII_OK;
}

void armcii_ofi_close_endpoint(void)
{
    /* Completions still to come (a reply's send that completes after the last barrier)
     * are reaped first, so that their contexts come back and are freed with the rest. */
    double t0 = armcii_now();
    while (armcii_ofi.cq && armcii_ofi.ops_out > 0 && armcii_now() - t0 < 0.5)
        armcii_ofi_progress();
    ARMCII_INVARIANT(!armcii_ofi.cq || armcii_ofi.ops_out > 0 ||
                         armcii_ofi.nbounce_free == armcii_ofi.bounce_count,
                     "every operation completed, yet %d of %d bounce buffers are still taken",
                     armcii_ofi.bounce_count - armcii_ofi.nbounce_free, armcii_ofi.bounce_count);
    if (armcii_ofi.ep)
        fi_close(&armcii_ofi.ep->fid);
}

void armcii_ofi_close(void)
{
    armcii_ofi_mr_dereg(&armcii_ofi.flush_mr);
    armcii_ofi_mr_dereg(&armcii_ofi.bounce_mr);
    if (armcii_ofi.cq)
        fi_close(&armcii_ofi.cq->fid);
    if (armcii_ofi.av)
        fi_close(&armcii_ofi.av->fid);
    if (armcii_ofi.domain)
        fi_close(&armcii_ofi.domain->fid);
    if (armcii_ofi.fabric)
        fi_close(&armcii_ofi.fabric->fid);
    fi_freeinfo(armcii_ofi.info);
    free(armcii_ofi.bounce_slab);
    free(armcii_ofi.bounce_free);
    free(armcii_ofi.peers);
    free(armcii_ofi.checked);
    while (armcii_ofi.op_free) {
        ofi_op_t *n = armcii_ofi.op_free->next_free;
        free(armcii_ofi.op_free);
        armcii_ofi.op_free = n;
    }
    memset(&armcii_ofi, 0, sizeof(armcii_ofi));
}

size_t armcii_ofi_own_bytes(size_t *registered_p)
{
    size_t bounce = armcii_ofi.bounce_size * (size_t)armcii_ofi.bounce_count;
    *registered_p = bounce;
    return bounce + (size_t)armcii_ofi.bounce_count * sizeof(void *) +
           (size_t)armcii_tp.nproc * sizeof(ofi_peer_t);
}

const char *armcii_ofi_provider(void)
{
    return armcii_ofi.info ? armcii_ofi.info->fabric_attr->prov_name : "none";
}

void armcii_ofi_describe(void (*emit)(const char *line), const armcii_sel_limits_t *l)
{
    char line[512];
    struct fi_info *i = armcii_ofi.info;
    const armcii_caps_t *c = &armcii_ofi.caps;
    if (!i) {
        emit("libfabric: not opened (every peer is reached through shared memory)");
        return;
    }
    snprintf(line, sizeof(line),
             "libfabric: provider %s, inject %zu B (used up to %zu), iov %zu/%zu, mr_mode 0x%llx, "
             "%s progress, %s completion, atomics %s, ordering%s%s%s%s",
             i->fabric_attr->prov_name, i->tx_attr->inject_size, l->inject_max,
             i->tx_attr->iov_limit, i->tx_attr->rma_iov_limit,
             (unsigned long long)armcii_ofi.mr_mode, c->manual_progress ? "manual" : "auto",
             armcii_ofi.delivery_complete ? "delivery" : "transmit",
             l->acc_hw ? "native" : "software", c->order_raw ? " raw" : "",
             c->order_waw ? " waw" : "", c->order_sas ? " sas" : "",
             c->order_raw || c->order_waw || c->order_sas ? "" : " none");
    emit(line);
    snprintf(line, sizeof(line), "libfabric: %s; NIC %s", armcii_fi_loaded(), armcii_ofi.nic_why);
    emit(line);
    double opening = armcii_fi_open_seconds(), starting = armcii_fi_start_seconds();
    if (opening >= 0 && starting >= 0) {
        /* Debian's: 0.2 s opening (psm's and psm2's clock calibrations, asleep), 0.08 s
         * starting (verbs reads /proc/kallsyms twice), per process, in every job */
        snprintf(line, sizeof(line),
                 "libfabric: its start took %.3f s of ARMCI_Init: %.3f s opening it (the "
                 "libraries it depends on start), %.3f s its first answer (every built-in "
                 "provider probes the machine)%s",
                 opening + starting, opening, starting,
                 opening + starting >= 0.05
                     ? "; ARMCI_FABRIC_LIB can name a libfabric built with only the providers "
                       "this site uses (docs/tuning.md, start-up)"
                     : "");
        emit(line);
    }
    if (armcii_ofi.mr_emulated) {
        char strict[480];
        strict_summary(strict, sizeof strict);
        snprintf(line, sizeof(line), "libfabric: %s", strict);
        emit(line);
    }
    if (armcii_ofi.why_software[0]) {
        snprintf(line, sizeof(line), "libfabric: %s", armcii_ofi.why_software);
        emit(line);
    }
    emit(armcii_bell_fd() >= 0 ? "libfabric: doorbell on: a wait of ARMCI_DOORBELL_US rings the "
                                 "peer's progress thread (UDP beside the endpoint)"
                               : "libfabric: no doorbell (ARMCI_DOORBELL_US=0, or endpoints not "
                                 "named by IP address, or datagrams not delivered)");
    const char *eager = getenv("FI_OFI_RXM_EAGER_LIMIT");
    if (strstr(i->fabric_attr->prov_name, "ofi_rxm") && eager) {
        snprintf(line, sizeof(line), "libfabric: FI_OFI_RXM_EAGER_LIMIT=%s (ARMCI_TCP_EAGER)",
                 eager);
        emit(line);
    }
    if (strstr(i->fabric_attr->prov_name, "ofi_rxm") && (armcii_ofi.rxm_set & 3)) {
        snprintf(line, sizeof(line), "libfabric: %s%s (ARMCI_RXM_RECV), %s%s (ARMCI_RXM_BUFFER)%s",
                 armcii_ofi.rxm_set & 1 ? "FI_OFI_RXM_MSG_RX_SIZE=" : "receives ",
                 armcii_ofi.rxm_set & 1 ? getenv("FI_OFI_RXM_MSG_RX_SIZE") : "left alone",
                 armcii_ofi.rxm_set & 2 ? "FI_OFI_RXM_BUFFER_SIZE=" : "buffer size ",
                 armcii_ofi.rxm_set & 2 ? getenv("FI_OFI_RXM_BUFFER_SIZE") : "left alone",
                 armcii_ofi.rxm_set & 4 ? "; not applied: libfabric was opened before ARMCI_Init"
                                        : "");
        emit(line);
    }
}

/* ---- completions ---- */

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
                     op->local, op->target, fi_strerror(err.err), armcii_ofi_provider());
    if (op)
        armcii_tp.blame(call, op->target);
    armcii_fatal(call, "%s operation to rank %d failed: %s (provider %s: %s)",
                 op ? kinds[op->kind] : "a libfabric", op ? op->target : -1, fi_strerror(err.err),
                 armcii_ofi_provider(), prov ? prov : "no detail");
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

int armcii_ofi_progress(void)
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

/* ---- RMA ---- */

static ofi_op_t *new_rma_op(const char *call, armcii_token_t *tok, int target, const void *local)
{
    ofi_op_t *op = armcii_ofi_op_get();
    op->kind = OFI_OP_RMA;
    op->tok = tok;
    op->target = target;
    op->call = call;
    op->local = local;
    if (tok)
        armcii_token_posted(tok);
    return op;
}

/* The largest piece of one get or put: the provider's largest message, and for the
 * buffered protocol a bounce buffer. Both protocols split a transfer the same way. */
static size_t piece_max(armcii_proto_t proto)
{
    size_t max = armcii_ofi.caps.msg_max;
    if (proto == ARMCII_PROTO_BUFFERED && armcii_ofi.bounce_size < max)
        max = armcii_ofi.bounce_size;
    return max;
}

void armcii_ofi_get(const char *call, armcii_token_t *tok, void *dst, size_t len, int target,
                    uint64_t raddr, uint64_t key, armcii_proto_t proto)
{
    fi_addr_t a = armcii_ofi.peers[target].addr;
    size_t max = piece_max(proto), off = 0;
    do {
        size_t n = len - off < max ? len - off : max;
        char *to = (char *)dst + off;
        ofi_op_t *op;
        void *buf = to, *desc = NULL;
        if (proto == ARMCII_PROTO_BUFFERED) {
            buf = armcii_ofi_bounce_get(call);
            desc = armcii_ofi.bounce_mr.desc;
            op = new_rma_op(call, tok, target, NULL);
            op->bounce = buf;
            op->copy_to = to;
            op->copy_len = n;
        } else {
            op = new_rma_op(call, tok, target, to);
        }
        desc = OFI_LOCAL(call, "fi_read", target, buf, n, desc);
        OFI_RETRY(call, "fi_read", target,
                  fi_read(armcii_ofi.ep, buf, n, desc, a, raddr + off, key, &op->ctx));
        off += n;
    } while (off < len);
}

void armcii_ofi_put(const char *call, armcii_token_t *tok, const void *src, size_t len, int target,
                    uint64_t raddr, uint64_t key, armcii_proto_t proto)
{
    fi_addr_t a = armcii_ofi.peers[target].addr;
    if (proto == ARMCII_PROTO_INJECT) {
        /* Locally complete on return and without a completion event; a later fence
         * reads from the target to make it remotely complete (see armcii_ofi_flush_post). */
        OFI_RETRY(call, "fi_inject_write", target,
                  fi_inject_write(armcii_ofi.ep, src, len, a, raddr, key));
        armcii_ofi_mark_unflushed(target);
        return;
    }
    if (!armcii_ofi.delivery_complete)
        armcii_ofi_mark_unflushed(target);
    size_t max = piece_max(proto), off = 0;
    do {
        size_t n = len - off < max ? len - off : max;
        const char *from = (const char *)src + off;
        ofi_op_t *op;
        const void *buf = from;
        void *desc = NULL;
        if (proto == ARMCII_PROTO_BUFFERED) {
            void *b = armcii_ofi_bounce_get(call);
            memcpy(b, from, n);
            buf = b;
            desc = armcii_ofi.bounce_mr.desc;
            op = new_rma_op(call, tok, target, NULL);
            op->bounce = b;
        } else {
            op = new_rma_op(call, tok, target, from);
        }
        desc = OFI_LOCAL(call, "fi_write", target, buf, n, desc);
        OFI_RETRY(call, "fi_write", target,
                  fi_write(armcii_ofi.ep, buf, n, desc, a, raddr + off, key, &op->ctx));
        off += n;
    } while (off < len);
}

int armcii_ofi_unflushed(int target)
{
    return armcii_ofi.peers && armcii_ofi.peers[target].unflushed;
}

/* With read-after-write ordering a read that returns was served after the earlier writes
 * landed: it is the flush. */
void armcii_ofi_flush_post(const char *call, armcii_token_t *tok, int target)
{
    armcii_ofi.peers[target].unflushed = 0;
    void *b = armcii_ofi_bounce_get(call);
    ofi_op_t *op = new_rma_op(call, tok, target, NULL);
    op->kind = OFI_OP_FLUSH;
    op->bounce = b;
    void *desc =
        OFI_LOCAL(call, "fi_read (flush)", target, b, sizeof(uint64_t), armcii_ofi.bounce_mr.desc);
    OFI_RETRY(call, "fi_read (flush)", target,
              fi_read(armcii_ofi.ep, b, sizeof(uint64_t), desc, armcii_ofi.peers[target].addr,
                      armcii_ofi.peers[target].flush_addr, armcii_ofi.peers[target].flush_key,
                      &op->ctx));
}
