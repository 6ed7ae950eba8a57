/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The node layout and the machine (armcii_topo, written by topo.c alone), and where the
 * progress thread runs.
 */
#ifndef ARMCII_TOPO_H
#define ARMCII_TOPO_H

#include <mpi.h>
#include <pthread.h>
#include <stddef.h>

#include "../base/common.h"

/** The node layout and the machine, as topo.c found them at start-up (written there
 *  alone; read by the collectives, the job's health and the domain calls, none of them on
 *  a small operation's way). */
typedef struct {
    MPI_Comm node_comm;
    MPI_Comm masters_comm; /* one process per node (node rank 0); MPI_COMM_NULL elsewhere */
    int node_rank, node_size, node_id, nnodes;
    int machine_size; /* processes on this machine (node_size unless ARMCI_NODE_SIZE cuts it) */
    unsigned hw_cores, hw_pus;
    size_t hw_l2, hw_l3;
} __attribute__((aligned(64))) armcii_topo_t;

extern armcii_topo_t armcii_topo;

/* ---- topology (src/core/topo.c) ---- */

/** Finds the node layout and the machine; collective. On success @p where_p is a new
 *  array (the caller frees it) of every rank's node id, then every rank's rank within its
 *  node (armcii_peers_init). */
armcii_status_t armcii_topo_init(int **where_p);
/** Ranks @p in[0..n) of communicator @p from as ranks of @p to (MPI_UNDEFINED if absent). */
void armcii_translate(MPI_Comm from, MPI_Comm to, int n, const int *in, int *out);
void armcii_topo_fini(void);
/** Sets @p attr to start the progress thread on the CPUs ARMCI_PROGRESS_CPUS chose (by
 *  default those no process is bound to, if any); 0 when it stays on the process's. */
int armcii_topo_place_progress_thread(pthread_attr_t *attr);
/** Those CPUs, in words, for the verbose settings. */
const char *armcii_topo_progress_cpus(void);
/** Whether the progress thread may run on a CPU its process's main thread is not bound to
 *  (else waking it for a transfer only takes the processor from the caller). */
int armcii_topo_progress_elsewhere(void);

#endif
