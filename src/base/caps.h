/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the fabric transport can do, as it reports it once at start-up
 * (armcii_net_init). The core derives its protocol limits and ordering rules from these
 * facts (select.c, progress.c); the transport keeps no policy of the core's. Pure, so that
 * the selector's unit tests build synthetic providers from it.
 */
#ifndef ARMCII_CAPS_H
#define ARMCII_CAPS_H

#include <stddef.h>

typedef struct {
    size_t inject_size; /* largest fi_inject the provider takes */
    size_t iov_limit;   /* local and remote iov entries per operation */
    size_t rma_iov_limit;
    size_t msg_max;       /* largest single message or RMA (lowered by ARMCI_MSG_MAX) */
    size_t bounce_size;   /* payload of one bounce buffer */
    int mr_local;         /* local buffers must be registered (FI_MR_LOCAL) */
    int mr_virt_addr;     /* peers address registered memory by virtual address, not offset */
    int keys_chosen;      /* a registration takes the key it is asked for (no FI_MR_PROV_KEY) */
    int manual_progress;  /* data moves only while the endpoint is polled */
    int order_raw;        /* reads (and atomics) after writes to one target stay in order */
    int order_waw;        /* writes after writes */
    int order_sas;        /* sends after sends */
    unsigned acc_types;   /* bit t: fi_atomic sums ARMCI accumulate type t (ARMCI_ACC_*) */
    unsigned rmw_ops;     /* bit op: fetching atomics do ARMCII_RMW_* op */
    int atomics_trusted;  /* the provider's atomics are right (some are known wrong) */
    int atomics_emulated; /* ... and done by the provider in software */
} armcii_caps_t;

#endif
