/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libfabric, opened: one RDM endpoint per process, an AV table indexed by rank, the bounce
 * buffers and the flush word, brought up in ARMCI_Init and closed in ARMCI_Finalize, and
 * the endpoint described in words (ARMCI_VERBOSE, armci-info).
 *
 * What the provider returns decides everything at run time: mr_mode bits, inject size,
 * message ordering (which decides when the core must wait before a blocking operation)
 * and whether a write completion means remote completion. The other concerns of the
 * endpoint have files of their own: what every posted operation takes (ofi_post.c),
 * registration (ofi_mr.c), completions (ofi_cq.c) and reads and writes (ofi_rma.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host.h"
#include "ofi_internal.h"
#include "transport.h"
#include "../base/caps.h"
#include "../base/common.h"

ofi_state_t armcii_ofi;

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
    armcii_ofi_why_software(armcii_net_provider(), getenv("FI_PROVIDER"), why, sizeof why);
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
                        armcii_net_provider());                                                    \
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
    armcii_ofi.caps.manual_progress = info->domain_attr->data_progress == FI_PROGRESS_MANUAL;
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

    size_t peers_len = (size_t)armcii_tp.nproc * sizeof(ofi_peer_t);
    if (posix_memalign((void **)&armcii_ofi.peers, 64, peers_len) != 0)
        return ARMCII_ENOMEM;
    memset(armcii_ofi.peers, 0, peers_len);
    if ((st = exchange_addresses()) != ARMCII_OK)
        return st;
    armcii_caps_t *caps = &armcii_ofi.caps;

    uint64_t order = info->tx_attr->msg_order;
    caps->order_raw = (order & FI_ORDER_RAW) != 0;
    caps->order_waw = (order & FI_ORDER_WAW) != 0;
    caps->order_sas = (order & FI_ORDER_SAS) != 0;
    if (info->tx_attr->inject_size < 56) {
        /* acknowledgements and read-modify-write replies go out with fi_inject */
        armcii_warn("ARMCI_Init: provider %s injects at most %zu bytes; armci-ofi needs 56",
                    armcii_net_provider(), info->tx_attr->inject_size);
        return ARMCII_EFABRIC;
    }
    caps->inject_size = info->tx_attr->inject_size;
    caps->iov_limit = info->tx_attr->iov_limit;
    caps->rma_iov_limit = info->tx_attr->rma_iov_limit;
    /* A get or put longer than the provider's largest message goes as several. */
    caps->msg_max = info->ep_attr->max_msg_size ? info->ep_attr->max_msg_size : SIZE_MAX;
    if (armcii_tp.env->MSG_MAX > 0 && (size_t)armcii_tp.env->MSG_MAX < caps->msg_max)
        caps->msg_max = (size_t)armcii_tp.env->MSG_MAX;
    return ARMCII_OK;
}

void armcii_ofi_close_endpoint(void)
{
    if (armcii_ofi.ep)
        fi_close(&armcii_ofi.ep->fid);
}

void armcii_ofi_close(void)
{
    if (armcii_ofi.cq)
        fi_close(&armcii_ofi.cq->fid);
    if (armcii_ofi.av)
        fi_close(&armcii_ofi.av->fid);
    if (armcii_ofi.domain)
        fi_close(&armcii_ofi.domain->fid);
    if (armcii_ofi.fabric)
        fi_close(&armcii_ofi.fabric->fid);
    fi_freeinfo(armcii_ofi.info);
    free(armcii_ofi.peers);
    memset(&armcii_ofi, 0, sizeof(armcii_ofi));
}

size_t armcii_ofi_own_bytes(void)
{
    return (size_t)armcii_tp.nproc * sizeof(ofi_peer_t);
}

const char *armcii_net_provider(void)
{
    return armcii_ofi_prov_name();
}
