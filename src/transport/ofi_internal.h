/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared by the libfabric transport files only (ofi.c, ofi_atomic.c, am.c). */
#ifndef ARMCII_OFI_INTERNAL_H
#define ARMCII_OFI_INTERNAL_H

#include "config.h"

#include <mpi.h>

#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include "../base/caps.h"
#include "../base/common.h"
#include "../base/token.h"

/** Opens the doorbell beside the endpoint named @p name (collective over the world):
 *  where every process can, and ARMCI_DOORBELL_US asks for one. */
void armcii_bell_open(const void *name, size_t len);
void armcii_bell_close(void);
/** A UDP socket on the doorbell's address, another port (written to @p port, network
 *  order); -1 where none can be made. */
int armcii_bell_socket_beside(uint16_t *port);
/** Sends @p len bytes from socket @p fd to @p target's doorbell address at @p port. */
void armcii_bell_send_beside(int target, uint16_t port, int fd, const void *buf, size_t len);

/** The serving socket of read-modify-writes (serve.c), beside the doorbell where there is
 *  one (collective); and its close. */
void armcii_serve_open(void);
void armcii_serve_close(void);

/* The functions of libfabric's own that the transport calls, opened when the fabric is
 * first needed (ofi_load.c says why); the names below stand for them in every transport
 * file, so that nothing refers to libfabric's symbols at link time. */
typedef struct {
    int (*getinfo)(uint32_t, const char *, const char *, uint64_t, const struct fi_info *,
                   struct fi_info **);
    void (*freeinfo)(struct fi_info *);
    struct fi_info *(*dupinfo)(const struct fi_info *);
    int (*fabric)(struct fi_fabric_attr *, struct fid_fabric **, void *);
    const char *(*strerror)(int);
} armcii_fi_fns_t;
extern armcii_fi_fns_t armcii_fi;
/** Opens libfabric and fills armcii_fi, once: @p lib (ARMCI_FABRIC_LIB) where given, else
 *  the file configure found, else, where a node lacks it, the dynamic linker's search for
 *  its soname. NULL on success, else what failed. The first call's @p lib decides. */
const char *armcii_fi_load(const char *lib);
/** Whether libfabric is in the process already, opened by someone else (MPI on the
 *  fabric): it has then read its environment, and settings put there now are not seen. */
int armcii_fi_opened_elsewhere(void);
/** Once loaded: the version of the libfabric opened and its file, in words. */
const char *armcii_fi_loaded(void);
/** What libfabric's start cost this process, in seconds (-1 before): opening it (the
 *  constructors of the libraries it depends on run then), and its first answer (it starts
 *  every built-in provider then, whatever FI_PROVIDER says), which the first caller of
 *  fi_getinfo notes. */
void armcii_fi_note_start(double seconds);
double armcii_fi_open_seconds(void);
double armcii_fi_start_seconds(void);
#define fi_getinfo     armcii_fi.getinfo
#define fi_freeinfo    armcii_fi.freeinfo
#define fi_dupinfo     armcii_fi.dupinfo
#define fi_fabric      armcii_fi.fabric
#define fi_strerror    armcii_fi.strerror
#define fi_allocinfo() armcii_fi.dupinfo(NULL)

typedef enum { OFI_OP_RMA, OFI_OP_SEND, OFI_OP_RECV, OFI_OP_FLUSH } ofi_op_kind_t;

/* One libfabric operation in flight. The context must come first: the provider may
 * use it (FI_CONTEXT/FI_CONTEXT2) and hands it back in the completion. */
typedef struct ofi_op {
    struct fi_context2 ctx;
    ofi_op_kind_t kind;
    armcii_token_t *tok; /* request this operation belongs to, or NULL */
    int target;
    const char *call;  /* RMA: the ARMCI call that issued it, for an error's message */
    const void *local; /* RMA: the caller's buffer when it is used in place, else NULL */
    void *bounce;      /* bounce buffer released at completion */
    void *copy_to;     /* get through a bounce buffer: where the data goes */
    size_t copy_len;
    struct ofi_op *next_free;
} ofi_op_t;

/* What ofi.c keeps of one process of the job, two to a cache line (the table is aligned
 * to one): an operation to a target reads its address and its flush state together. The
 * sequence of active messages to and from it is am.c's own (am_peer_t). */
typedef struct {
    fi_addr_t addr;      /* in the address vector */
    uint64_t flush_addr; /* its registered word that a flush reads ... */
    uint64_t flush_key;  /* ... and the key */
    int unflushed;       /* writes to it whose completion did not mean remote completion */
    char pad[4];
} ofi_peer_t;
_Static_assert(sizeof(ofi_peer_t) == 32, "two peers a cache line, none across two");

/* A registration whose descriptors ARMCI_MR_MODE=strict checks (ofi_mr.c). */
typedef struct {
    uintptr_t base;
    size_t len;
    void *desc; /* the runtime's: the provider's, or the registration where that is NULL */
    void *real; /* the provider's */
} ofi_checked_t;

typedef struct {
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_ep *ep;
    ofi_peer_t *peers;     /* every process of the job */
    int delivery_complete; /* a write's completion means it reached the target's memory */
    int atomic_cap;
    int rxm_set; /* 1: FI_OFI_RXM_MSG_RX_SIZE came from ARMCI_RXM_RECV, 2: FI_OFI_RXM_BUFFER_SIZE
                  * from ARMCI_RXM_BUFFER; 4: too late, libfabric was opened before */
    char why_software[400]; /* why a node with RDMA devices runs on a software provider */
    char nic_why[200];      /* which NIC (domain) and why */
    armcii_caps_t caps;     /* what armcii_ofi_open found: armcii_net_init's report to the core
                             * but for the atomics, which ofi_atomic.c adds to the report */

} ofi_state_t;

/* ofi.c alone writes armcii_ofi; the other transport files read it, and change it only
 * through ofi.c's functions, the inline ones below among them (testing/layers.sh). */
extern ofi_state_t armcii_ofi;

/* Registration (ofi_mr.c alone writes it). */
typedef struct {
    uint64_t mr_mode;         /* what registrations follow: the provider's bits, and ... */
    uint64_t mr_emulated;     /* ... those ARMCI_MR_MODE=strict adds (ofi_mr.c says how) */
    const char *mr_refused;   /* a strict bit the provider refused, or NULL ... */
    char mr_refused_why[160]; /* ... in words, with the provider's answer */
    ofi_checked_t *checked;   /* with FI_MR_LOCAL emulated: every live registration */
    int nchecked, checked_cap;
    uint64_t next_key;
    long mr_live, mr_max;    /* registrations held, and the most allowed (0: no limit) */
    const char *mr_max_from; /* where mr_max comes from, for the message */
} ofi_reg_t;
extern ofi_reg_t armcii_ofi_reg;

/* What posted operations take: contexts and bounce buffers (ofi_post.c alone writes it, and
 * armcii_ofi_bounce_try below). */
typedef struct {
    char *bounce_slab; /* the bounce buffers: one registered slab */
    size_t bounce_size;
    int bounce_count;
    void **bounce_free;
    int nbounce_free;
    armcii_mr_t bounce_mr;
    long ops_out; /* operation contexts taken, posted receives not counted */
    ofi_op_t *op_free;
} ofi_post_t;
extern ofi_post_t armcii_ofi_post;

/** The provider's name ("none" before ARMCI_Init opened one). */
static inline const char *armcii_ofi_prov_name(void)
{
    return armcii_ofi.info ? armcii_ofi.info->fabric_attr->prov_name : "none";
}

/** Registration set up for the provider of @p info (ARMCI_MR_MODE, ARMCI_MR_MAX), and
 *  taken down (ofi_mr.c). */
armcii_status_t armcii_ofi_reg_open(const struct fi_info *info);
void armcii_ofi_reg_close(void);
/** The bounce buffers (ARMCI_BOUNCE_SIZE, ARMCI_BOUNCE_COUNT) registered, and, after the
 *  endpoint closed, freed with the operation contexts (ofi_post.c). */
armcii_status_t armcii_ofi_post_open(void);
void armcii_ofi_post_close(void);

ofi_op_t *armcii_ofi_op_get(void);
/** An operation context for a receive that stays posted (am.c's): not work in flight, so
 *  not counted in ops_out; its taker frees it once the endpoint is closed. */
ofi_op_t *armcii_ofi_op_get_standing(void);
void armcii_ofi_op_put(ofi_op_t *op);
/** A free bounce buffer; drives progress (bounded) while none is free. */
void *armcii_ofi_bounce_get(const char *call);
void armcii_ofi_bounce_put(void *b);

/** A free bounce buffer, or NULL at once when none is (for a handler, which must not
 *  wait). Inline: a get answered by the target takes one for its reply. */
static inline void *armcii_ofi_bounce_try(void)
{
    if (armcii_ofi_post.nbounce_free == 0)
        return NULL;
    return armcii_ofi_post.bounce_free[--armcii_ofi_post.nbounce_free];
}

/** Writes to @p target have completed without reaching its memory for sure: a fence reads
 *  from it first (armcii_net_flush). Inline: every native accumulate marks it. */
static inline void armcii_ofi_mark_unflushed(int target)
{
    armcii_ofi.peers[target].unflushed = 1;
}
/** A flush of @p target is on its way: later writes mark it again. */
static inline void armcii_ofi_mark_flushed(int target)
{
    armcii_ofi.peers[target].unflushed = 0;
}

/** The descriptor to hand the provider for @p len bytes at @p buf, which the runtime
 *  passes as @p desc. Under ARMCI_MR_MODE=strict (FI_MR_LOCAL emulated) it must name the
 *  registration holding the buffer, as a provider that requires FI_MR_LOCAL would need:
 *  else the job ends naming the call. */
void *armcii_ofi_local_check(const char *call, const char *what, int target, const void *buf,
                             size_t len, void *desc);
#define OFI_LOCAL(call, what, target, buf, len, desc)                                              \
    ((armcii_ofi_reg.mr_emulated & FI_MR_LOCAL)                                                    \
         ? armcii_ofi_local_check(call, what, target, buf, len, desc)                              \
         : (desc))

/** One operation's retries while the provider's queue is full: since when, and how many
 *  polls in a row found nothing to complete. */
typedef struct {
    double t0;
    unsigned idle;
    int rung; /* the target's doorbell, so far */
} ofi_retry_t;

/** Retry @p expr while it returns -FI_EAGAIN, driving progress in between and letting the
 *  processor go as a wait does; bounded by ARMCI_TIMEOUT. Any other failure is reported,
 *  naming the call, operation and target. */
#define OFI_RETRY(call, what, target, expr)                                                        \
    do {                                                                                           \
        ofi_retry_t r_ = {0, 0, 0};                                                                \
        ssize_t rc_;                                                                               \
        while ((rc_ = (expr)) == -FI_EAGAIN)                                                       \
            armcii_ofi_eagain(call, what, target, &r_);                                            \
        if (rc_ != 0)                                                                              \
            armcii_ofi_fail(call, what, target, rc_);                                              \
    } while (0)

void armcii_ofi_eagain(const char *call, const char *what, int target, ofi_retry_t *r);
void armcii_ofi_fail(const char *call, const char *what, int target, ssize_t rc)
    __attribute__((noreturn));

/* choosing the provider (ofi_choose.c) */
/* What the choice is asked to honour, and what it says of the NIC it took. */
typedef struct {
    int virt_addr;     /* strict registration: ordering only where it keeps virtual addresses */
    const char *nic;   /* ARMCI_NIC: a domain by name, or NULL/"" */
    const char *lib;   /* ARMCI_FABRIC_LIB: the libfabric to open, or NULL/"" */
    int local_rank;    /* the process's rank on its node: near NICs are shared out by it */
    char nic_why[200]; /* out: the NIC taken and why, or why ARMCI_NIC names none */
} armcii_ofi_want_t;

/** The provider armci-ofi runs on (shared with armci-info): libfabric's first choice for
 *  RDM + RMA + messages, on the NIC of @p want's choosing where it has several (nic.h);
 *  then, from that provider, atomics, delivery completion, manual progress and ordering
 *  where it offers them. ARMCII_EINVAL where ARMCI_NIC names no NIC of this node. */
armcii_status_t armcii_ofi_choose(armcii_ofi_want_t *want, struct fi_info **info_p, int *atomics_p,
                                  int *dc_p);
/** Whether @p prov moves data in software over the host's network stack or memory (tcp,
 *  udp, sockets, net, shm), not through a NIC of its own. */
int armcii_ofi_is_software(const char *prov);
/** Collective over @p comm: whether every process found a provider (this one: @p info,
 *  NULL when it found none, with its @p atomic_cap and @p delivery_complete), and the same
 *  one with the same settings. A mismatch ends the job naming the ranks and their choices;
 *  ARMCII_EFABRIC where one found none. */
armcii_status_t armcii_ofi_agree(const char *call, MPI_Comm comm, const struct fi_info *info,
                                 int atomic_cap, int delivery_complete);
/** The RDMA devices under @p sysfs (/sys: class/infiniband, class/cxi), listed into @p out;
 *  returns how many there are. */
size_t armcii_ofi_rdma_devices(const char *sysfs, char *out, size_t len);
/** Into @p out, why a node with RDMA devices runs on the software provider @p chosen
 *  (what each NIC provider libfabric has lacks); empty where there is nothing to say: a
 *  NIC's provider, no devices, or FI_PROVIDER (@p fi_provider) chose. */
void armcii_ofi_why_software(const char *chosen, const char *fi_provider, char *out, size_t len);

/** The registration rules ARMCI_MR_MODE=strict imposes where the provider does not (ofi_mr.c). */
#define OFI_STRICT_BITS (FI_MR_LOCAL | FI_MR_PROV_KEY | FI_MR_ENDPOINT | FI_MR_ALLOCATED)
/** ARMCI_MR_MODE=strict's registrations bound to the endpoint, or said why not. */
armcii_status_t armcii_ofi_strict_probe(void);
/** What ARMCI_MR_MODE=strict does on this provider, in words (one line into @p out). */
void armcii_ofi_strict_summary(char *out, size_t len);
/** Opens the endpoint and its tables (collective), filling armcii_ofi.caps but for what
 *  registration, the bounce buffers and the atomics decide; armcii_net_init (fabric.c)
 *  opens those, in order, and the messages. */
armcii_status_t armcii_ofi_open(void);
/** Closes the endpoint (its posted receives go). */
void armcii_ofi_close_endpoint(void);
/** Closes the rest: completion queue, address vector, domain, fabric (after every
 *  registration was taken down). */
void armcii_ofi_close(void);
/** Bytes of ofi.c's own: the table of peers. */
size_t armcii_ofi_own_bytes(void);
/** Each peer's flush word registered and learnt (collective), and taken down (ofi_rma.c). */
armcii_status_t armcii_ofi_flush_open(void);
void armcii_ofi_flush_close(void);
/** Where a flush of @p target reads (ofi_rma.c, at start-up). */
static inline void armcii_ofi_set_flush(int target, uint64_t addr, uint64_t key)
{
    armcii_ofi.peers[target].flush_addr = addr;
    armcii_ofi.peers[target].flush_key = key;
}
/** Arrived messages go to @p handle; @p after_poll runs after a poll while *@p owed > 0
 *  (am.c's: what it has queued to send or to post again). */
void armcii_ofi_set_receiver(void (*handle)(ofi_op_t *op, size_t len), void (*after_poll)(void),
                             const int *owed);

/** How armci-ofi treats a provider's atomics, in words (armci-info). */
const char *armcii_ofi_atomics_policy(const char *prov);

/* active messages (am.c) */
armcii_status_t armcii_am_init(void);
void armcii_am_fini(void);
/** Bytes of the message layer's receive buffers. */
size_t armcii_am_bytes(void);
/** Bytes of the message layer's tables: per process of the job (the sequence of messages,
 *  the acknowledgement lists), and per request slot. */
size_t armcii_am_table_bytes(void);
void armcii_am_handle(ofi_op_t *op, size_t len);
void armcii_am_flush_deferred(void);

/* atomics (ofi_atomic.c) */
/** Fills what the provider's atomics can do into @p caps (acc_types, rmw_ops,
 *  atomics_trusted, atomics_emulated); nothing else of it. */
void armcii_ofi_atomic_probe(armcii_caps_t *caps);

#endif
