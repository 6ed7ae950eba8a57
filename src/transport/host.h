/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the transport is given and whom it calls: the process's place in the job and the
 * settings it reads, handed over once at start-up (armcii_tp_configure), and the calls
 * back into the layers above it, as pointers the core fills in. The transport reads no
 * state of the core's and calls none of its functions but these; below it is src/base
 * alone: a request's completion token (token.h), errors and the clock (common.h), the
 * accumulate kernels (acc.h), where arriving data land (place.h), the counters (stats.h)
 * and the heap allocator (halloc.h). docs/layers.md lists what it may include.
 */
#ifndef ARMCII_TP_HOST_H
#define ARMCII_TP_HOST_H

#include "config.h"

#include <mpi.h>
#include <pthread.h>
#include <stdint.h>

#include "../base/env.h"
#include "../base/region.h"
#include "../base/token.h"

typedef struct {
    int rank, nproc;          /* in comm */
    int node_rank, node_size; /* in node_comm */
    int shm;                  /* the node's processes map one another's memory */
    int max_requests;         /* requests in flight at most: tok->index is below it */
    unsigned yield_after;     /* empty polls of a wait between yields (1: each) */
    long bell_us; /* how long a wait for a peer lasts before it rings the peer's doorbell */
    MPI_Comm comm, node_comm;             /* the job's, duplicated; the node's */
    const armcii_env_t *env;              /* the settings (read only) */
    const armcii_region_table_t *regions; /* every process's allocations: what a message
                                             may target here (a lookup moves its cursor) */
    pthread_mutex_t *lock;                /* the runtime's: serve.c's signal handler tries it */
    /* Back into the core. */
    void (*op_done)(armcii_token_t *tok);                    /* one operation of tok completed */
    void (*copied)(armcii_token_t *tok);                     /* a blocking put's data has left */
    armcii_token_t *(*of_cookie)(uint64_t cookie);           /* the token a reply names */
    void (*make_progress)(const char *call, unsigned *idle); /* poll once while waiting */
    /* Into the job's health. */
    void (*blame)(const char *call, int rank); /* ends the job if rank is known dead */
    void (*check_holder)(const char *call, int node_rank, double waited);
    void (*poll_peers)(const char *call); /* notices a dead process */
    /* Without a progress thread the provider moves messages only inside our calls: a
     * put's acknowledgement may not be deferred then (am.c). */
    int sends_need_caller;
} armcii_tp_host_t;

/** The transport's copy; written by armcii_tp_configure and armcii_tp_set_* only. */
extern armcii_tp_host_t armcii_tp;

/** Hands the transport its host, before armcii_shm_init and armcii_net_init. */
void armcii_tp_configure(const armcii_tp_host_t *host);
/** Sets sends_need_caller, once the core knows whether a progress thread runs. */
void armcii_tp_set_sends_need_caller(int on);

#endif
