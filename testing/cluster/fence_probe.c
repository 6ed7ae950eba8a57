/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Whether the launcher's PMIx fence without data is a barrier across nodes: run by srun
 * --mpi=pmix (testing/slurm.sh), one or more tasks per node. The tasks of the last node
 * come late (LATE_S); every task of the other nodes must then wait in the fence at least
 * most of that time. No clock is shared: each task times its own fence.
 *
 * Open MPI 4.1's MPI_Init ends with such a fence (PMIX_COLLECT_DATA false) and counts on
 * it: a process that leaves MPI_Init sends over its BTLs at once, and a peer still before
 * its own PML set-up takes the message into a NULL handler (segmentation fault inside
 * MPI_Init, in mca_btl_tcp). Slurm's plugin runs fences without data on its tree
 * algorithm unless mpi.conf says PMIxCollFence=ring; see testing/cluster/slurm.sh.
 *
 * Prints one line per task: "fence: node N waited S s (the last node came L s late)";
 * exits 1 where a task of an earlier node waited less than MIN_S.
 */
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define LATE_S 0.5
#define MIN_S  0.4

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(void)
{
    pmix_proc_t me;
    if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) {
        fprintf(stderr, "fence_probe: PMIx_Init failed (not started by srun --mpi=pmix?)\n");
        return 2;
    }
    const char *node_s = getenv("SLURM_NODEID"), *nnodes_s = getenv("SLURM_NNODES");
    if (!node_s || !nnodes_s) {
        fprintf(stderr, "fence_probe: SLURM_NODEID or SLURM_NNODES unset (not under srun?)\n");
        PMIx_Finalize(NULL, 0);
        return 2;
    }
    int node = atoi(node_s), nnodes = atoi(nnodes_s);
    int late = node == nnodes - 1 && nnodes > 1;
    if (late)
        usleep((useconds_t)(LATE_S * 1e6));
    double t0 = now();
    pmix_status_t rc = PMIx_Fence(NULL, 0, NULL, 0); /* no data collected */
    double waited = now() - t0;
    int bad = rc != PMIX_SUCCESS || (!late && nnodes > 1 && waited < MIN_S);
    printf("fence: node %d waited %.3f s (the last node came %.1f s late)%s\n", node, waited,
           nnodes > 1 ? LATE_S : 0.0,
           rc != PMIX_SUCCESS ? "; the fence failed"
           : bad              ? "; it did not wait for every node"
                              : "");
    PMIx_Finalize(NULL, 0);
    return bad;
}
