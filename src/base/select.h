/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The protocol selector: which way one request travels, decided from the target's
 * path, the size, the local buffer and the provider's limits. Pure, so that the
 * decisions are unit-tested against synthetic providers.
 */
#ifndef ARMCII_SELECT_H
#define ARMCII_SELECT_H

#include <stddef.h>

#include "caps.h"

typedef enum {
    ARMCII_PROTO_LOCAL,    /* self or same node: load/store */
    ARMCII_PROTO_INJECT,   /* put copied by the provider at once (fi_writemsg FI_INJECT) */
    ARMCII_PROTO_DIRECT,   /* zero-copy RMA from/to the user buffer */
    ARMCII_PROTO_BUFFERED, /* through registered bounce buffers */
    ARMCII_PROTO_ACC_HW,   /* accumulate with libfabric atomics */
    ARMCII_PROTO_ACC_SW,   /* accumulate applied at the target (active message) */
    ARMCII_PROTO_MESSAGE   /* put carried by a message the target applies in arrival order */
} armcii_proto_t;

/* Where the target is, seen from the caller (same values as ARMCIX_PATH_*). */
typedef enum { ARMCII_PATH_SELF, ARMCII_PATH_SHM, ARMCII_PATH_FABRIC } armcii_path_t;

typedef struct {
    size_t inject_max;   /* largest inject put (0: never) */
    size_t buffered_max; /* puts/gets up to this size are buffered by choice */
    size_t message_max;  /* puts up to this size go as messages (0: never) */
    size_t bounce_size;  /* payload of one bounce buffer */
    int mr_local;        /* provider needs registered local buffers (FI_MR_LOCAL) */
    int acc_hw;          /* libfabric atomics usable for accumulates at all */
} armcii_sel_limits_t;

/** Where the provider keeps no write behind the one before it, contiguous puts up to this
 *  size go as messages unless ARMCI_PUT_MESSAGE_MAX says otherwise: the size up to which
 *  strided blocks are packed into messages too (ARMCI_NC_DIRECT_MIN's default). */
#define ARMCII_PUT_MESSAGE_AUTO 16384

/** The limits for a transport that reports @p caps, under the settings ARMCI_INJECT_MAX
 *  (@p inject_max, negative: the provider's), ARMCI_BUFFERED_MAX (@p buffered_max),
 *  ARMCI_PUT_MESSAGE_MAX (@p message_max, negative: ARMCII_PUT_MESSAGE_AUTO where writes
 *  after writes are not ordered, else 0) and ARMCI_ACC_NATIVE (@p acc_native: 1 on, 0 off,
 *  -1 auto: where the provider does atomics natively). */
void armcii_select_limits(armcii_sel_limits_t *l, const armcii_caps_t *caps, long inject_max,
                          long buffered_max, long message_max, long acc_native);

/** Put of @p len bytes over the fabric by an RMA write, for a caller that never sends it
 *  as a message (a block of a strided or vector put long enough to move by RMA):
 *  inject, buffered or direct; @p local_registered: the source lies in registered memory. */
static inline armcii_proto_t armcii_select_put_rma(const armcii_sel_limits_t *l, size_t len,
                                                   int local_registered)
{
    /* Inject first: the provider copies the data at once, the call returns with the
     * buffer reusable and no registration is involved. */
    if (len <= l->inject_max)
        return ARMCII_PROTO_INJECT;
    if (len <= l->buffered_max)
        return ARMCII_PROTO_BUFFERED;
    if (l->mr_local && !local_registered)
        return ARMCII_PROTO_BUFFERED;
    return ARMCII_PROTO_DIRECT;
}

/** Put of @p len bytes; @p local_registered: the source lies in registered memory. */
static inline armcii_proto_t armcii_select_put(const armcii_sel_limits_t *l, armcii_path_t path,
                                               size_t len, int local_registered)
{
    if (path != ARMCII_PATH_FABRIC)
        return ARMCII_PROTO_LOCAL;
    if (len > l->inject_max && len <= l->message_max)
        return ARMCII_PROTO_MESSAGE;
    return armcii_select_put_rma(l, len, local_registered);
}

/** Get of @p len bytes into a destination that is (or is not) registered. */
static inline armcii_proto_t armcii_select_get(const armcii_sel_limits_t *l, armcii_path_t path,
                                               size_t len, int local_registered)
{
    if (path != ARMCII_PATH_FABRIC)
        return ARMCII_PROTO_LOCAL;
    if (len <= l->buffered_max)
        return ARMCII_PROTO_BUFFERED;
    if (l->mr_local && !local_registered)
        return ARMCII_PROTO_BUFFERED;
    return ARMCII_PROTO_DIRECT;
}

/** Accumulate; @p type_hw_ok: the provider's fi_atomicvalid accepts this type and count. */
static inline armcii_proto_t armcii_select_acc(const armcii_sel_limits_t *l, armcii_path_t path,
                                               int type_hw_ok)
{
    int hw = l->acc_hw && type_hw_ok;
    /* Accumulates to one element must all use one mechanism to be atomic with each
     * other: when remote peers use libfabric atomics on a process's memory, so do its
     * node peers, through the NIC's loopback, and so does it, even on itself. Software
     * accumulates (remote or local) share the target's lock. */
    if (path != ARMCII_PATH_FABRIC)
        return hw ? ARMCII_PROTO_ACC_HW : ARMCII_PROTO_LOCAL;
    return hw ? ARMCII_PROTO_ACC_HW : ARMCII_PROTO_ACC_SW;
}

const char *armcii_proto_name(armcii_proto_t p);

#endif
