/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The job's health (src/health): it owns finding out that the job cannot go on, and ending
 * it with the cause named, never a hang.
 *   heartbeat.c  processes on other nodes, and deaths while nothing waits: heartbeats
 *                between the processes, and the word a process sends as it ends the job;
 *   live.c       processes of this node, asked by every waiting poll;
 *   census.c     collectives that can never complete (processes in different calls).
 * It sits below the core: what it knows of the job it is told once at start-up
 * (armcii_health_configure), and below it is src/base alone (errors, the clock, the
 * settings). The core calls it by name; the transport and the collectives through this
 * header or the transport's host.
 */
#ifndef ARMCII_HEALTH_H
#define ARMCII_HEALTH_H

#include <mpi.h>
#include <sys/types.h>

#include "../base/common.h"
#include "../base/env.h"

/** What the job's health is told of the job (health_host.c keeps the copy). */
typedef struct {
    int rank, nproc; /* in comm */
    int node_id, node_rank, node_size;
    MPI_Comm comm, node_comm;      /* the job's, duplicated; the node's */
    const armcii_env_t *env;       /* the settings (read only) */
    int (*node_of)(int rank);      /* the node id of @p rank */
    int (*node_rank_of)(int rank); /* its rank within that node */
} armcii_health_host_t;

/** The copy; written by armcii_health_configure alone. */
extern armcii_health_host_t armcii_hh;
/** Hands the job's health its host, before armcii_live_init and armcii_hb_init. */
void armcii_health_configure(const armcii_health_host_t *host);

/* Collectives that cannot complete (census.c). */
void armcii_census_init(void);
void armcii_census_fini(void);
/** From a collective's wait begun at @p since, on the clock: after ARMCI_TIMEOUT s in it,
 *  rank 0 learns of it (and *@p stuck is set); when every process waits, not all in the
 *  same call, the job ends naming them. */
void armcii_census_poll(const char *call, int *stuck, double since, double now);
/** At the end of that wait. */
void armcii_census_leave(int *stuck);
/* Dead peers on this node (live.c). */
armcii_status_t armcii_live_init(void);
void armcii_live_fini(void);
/** Process id of the process of this node with node-local rank @p node_rank. */
pid_t armcii_live_pid(int node_rank);
/* Ends the job, naming the rank, if a node peer died; reads the clock, and looks at the
 * peers once every ARMCI_LIVENESS_MS. A waiting loop calls it every so many polls. */
void armcii_live_poll(const char *call);
/* From a wait of @p waited seconds for a lock node peer @p node_rank holds: ends the job,
 * naming the rank, if it has died, or if the wait has lasted ARMCI_TIMEOUT. */
void armcii_live_check(const char *call, int node_rank, double waited);
/* Called when an operation to @p rank failed: if that rank is a process of this node that
 * has died (or is dying), ends the job saying so, since that is the cause worth reporting. */
void armcii_live_blame(const char *call, int rank);
/* Heartbeats between the job's processes (heartbeat.c): a process that dies or falls
 * silent anywhere ends every other, named. */
armcii_status_t armcii_hb_init(void);
/** Says goodbye to the other processes and stops watching them (after the last barrier). */
void armcii_hb_fini(void);
int armcii_hb_running(void);
/** @p rank of this node has died: tells every other process, then ends this one. */
void armcii_hb_lost(const char *call, int rank);
/** This process is ending the job with an error (ARMCI_Error): tells the others, which end. */
void armcii_hb_abort(const char *msg);
/** Host name of @p rank ("?" before init or for a bad rank). */
const char *armcii_hb_host(int rank);

#endif
