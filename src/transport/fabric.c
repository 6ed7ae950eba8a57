/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fabric brought up and taken down, in order: the endpoint (ofi.c), registration
 * (ofi_mr.c), the bounce buffers (ofi_post.c), the flush words (ofi_rma.c), the messages
 * on it (am.c, with the target's handlers of am_target.c), and what the provider's
 * atomics can do (ofi_atomic.c); and described in words (ARMCI_VERBOSE, armci-info).
 * Each of those files knows only the ones below it; this one knows them all.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "am_internal.h"
#include "host.h"
#include "ofi_internal.h"
#include "transport.h"
#include "../base/caps.h"
#include "../base/common.h"
#include "../base/invariant.h"
#include "../base/select.h"

armcii_status_t armcii_net_init(armcii_caps_t *caps)
{
    armcii_status_t st = armcii_ofi_open();
    if (st != ARMCII_OK)
        return st;
    if ((st = armcii_ofi_reg_open(armcii_ofi.info)) != ARMCII_OK ||
        (st = armcii_ofi_strict_probe()) != ARMCII_OK)
        return st;
    if (armcii_ofi_reg.mr_emulated && armcii_tp.rank == 0) {
        char line[512];
        armcii_ofi_strict_summary(line, sizeof line);
        armcii_info_line(line);
    }
    if ((st = armcii_ofi_post_open()) != ARMCII_OK || (st = armcii_ofi_flush_open()) != ARMCII_OK)
        return st;
    am_target_register();
    if ((st = armcii_am_init()) != ARMCII_OK)
        return st;
    /* ofi.c keeps what it found; registration's rules, the bounce buffers and the atomics
     * are added to the report only */
    *caps = armcii_ofi.caps;
    caps->bounce_size = armcii_ofi_post.bounce_size;
    caps->mr_local = (armcii_ofi_reg.mr_mode & FI_MR_LOCAL) != 0;
    caps->mr_virt_addr = (armcii_ofi_reg.mr_mode & FI_MR_VIRT_ADDR) != 0;
    caps->keys_chosen = !(armcii_ofi_reg.mr_mode & FI_MR_PROV_KEY);
    armcii_ofi_atomic_probe(caps);
    return ARMCII_OK;
}

void armcii_net_fini(void)
{
    /* Completions still to come (a reply's send that completes after the last barrier)
     * are reaped first, so that their contexts come back and are freed with the rest. The
     * endpoint goes next: it cancels the posted receives whose contexts am.c owns; the
     * registrations go before the domain they belong to. */
    double t0 = armcii_now();
    while (armcii_ofi.cq && armcii_ofi_post.ops_out > 0 && armcii_now() - t0 < 0.5)
        armcii_net_progress();
    ARMCII_INVARIANT(!armcii_ofi.cq || armcii_ofi_post.ops_out > 0 ||
                         armcii_ofi_post.nbounce_free == armcii_ofi_post.bounce_count,
                     "every operation completed, yet %d of %d bounce buffers are still taken",
                     armcii_ofi_post.bounce_count - armcii_ofi_post.nbounce_free,
                     armcii_ofi_post.bounce_count);
    armcii_ofi_close_endpoint();
    armcii_serve_close();
    armcii_bell_close();
    armcii_am_fini();
    armcii_ofi_flush_close();
    armcii_ofi_post_close();
    armcii_ofi_close();
    armcii_ofi_reg_close();
}

size_t armcii_net_bytes(size_t *registered_p)
{
    /* the bounce buffers, all registered, and their free list; the tables */
    size_t bounce = armcii_ofi_post.bounce_size * (size_t)armcii_ofi_post.bounce_count;
    *registered_p = bounce + armcii_am_bytes();
    return bounce + (size_t)armcii_ofi_post.bounce_count * sizeof(void *) + armcii_ofi_own_bytes() +
           armcii_am_bytes() + armcii_am_table_bytes();
}

void armcii_net_describe(void (*emit)(const char *line), const armcii_sel_limits_t *l)
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
             (unsigned long long)armcii_ofi_reg.mr_mode, c->manual_progress ? "manual" : "auto",
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
    if (armcii_ofi_reg.mr_emulated) {
        char strict[480];
        armcii_ofi_strict_summary(strict, sizeof strict);
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
