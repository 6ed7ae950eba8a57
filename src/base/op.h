/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What an operation does, under one name in every layer: the API layer's checks, the
 * noncontiguous engine (nc.c), the message builder (am.c), aggregation and the statistics.
 * How a request completes is another matter (armcii_req_kind_t, pool.h).
 */
#ifndef ARMCII_OP_H
#define ARMCII_OP_H

typedef enum {
    ARMCII_OP_GET,
    ARMCII_OP_PUT,
    ARMCII_OP_ACC,
    ARMCII_OP_RMW, /* read-modify-write (ARMCI_Rmw) */
    ARMCII_OP_NKIND
} armcii_op_t;

/* The read-modify-writes of ARMCI_Rmw, by width (ARMCI_FETCH_AND_ADD and _LONG, ARMCI_SWAP
 * and _LONG; the compare-and-swap serves the mutexes). */
enum {
    ARMCII_RMW_FADD32,
    ARMCII_RMW_FADD64,
    ARMCII_RMW_SWAP32,
    ARMCII_RMW_SWAP64,
    ARMCII_RMW_CAS64
};

#endif
