/*
 * What an operation does, under one name in every layer: the API layer's checks, the
 * noncontiguous engine (nc.c), the message builder (am.c), aggregation and the statistics.
 * How a request completes is another matter (armcii_req_kind_t, req.h).
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

#endif
