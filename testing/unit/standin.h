/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The stand-in transport (standin.c): what it logged of each operation posted to it, for
 * the unit tests of the operations (test_ops.c) to read back.
 */
#ifndef STANDIN_H
#define STANDIN_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    STANDIN_GET,     /* fi_read's stand-in */
    STANDIN_PUT,     /* fi_write's */
    STANDIN_ACC_HW,  /* fi_atomic's */
    STANDIN_RMW,     /* fi_fetch_atomic's */
    STANDIN_MESSAGE, /* one active message (its blocks applied at its end) */
    STANDIN_FLUSH    /* the read that makes earlier writes remotely complete */
} standin_kind_t;

typedef struct {
    standin_kind_t kind;
    int target;
    uint64_t raddr; /* the remote address (0 for a message: its blocks carry theirs) */
    size_t len;     /* bytes (a message: of all its blocks) */
    int proto;      /* armcii_proto_t of a get or put; a message's armcii_op_t */
} standin_op_t;

#define STANDIN_LOG_MAX 16384
extern standin_op_t standin_log[STANDIN_LOG_MAX];
extern int standin_nlog;

/** Forgets what was logged. */
void standin_reset(void);
/** Operations of @p kind logged since the last reset. */
int standin_count(standin_kind_t kind);
/** Completions posted and not yet delivered (the next armcii_net_progress delivers them). */
int standin_due(void);

#endif
