/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What one small operation costs when the application's own work has pushed the runtime's
 * structures out of the processor's caches (the setting of Dosanjh et al.'s "semi-permanent
 * cache occupancy"). Process 0 times single 8-byte ARMCI_Get, ARMCI_Put and ARMCI_Acc
 * (double) into process 1's block:
 *   hot:  the same operation repeated back to back, everything resident;
 *   cold: before each operation the process walks a 64 MiB array of its own, then the
 *         operation is timed alone.
 * Both with 1, 100 or 1000 live allocations (the target is the oldest) and with 0, 100 or
 * 1000 implicit nonblocking puts issued before the walk and reaped after the timed
 * operation (the column "live" is the request slots taken when the walk begins, as
 * ARMCIX_Resources reports them, the most over the samples; the progress thread may
 * complete some during the walk). Process 1 meanwhile calls
 * ARMCIX_Progress without pause, so that no time of its waking up is counted. The "floor" rows
 * are the same 8 bytes moved by hand after the same walk (same node only): for a get a load of
 * the peer's address and a store to ours, for a put the reverse, for an accumulate a load of
 * ours and an add into the peer's: what any library would pay for the data itself.
 *
 *   cold_bench [samples] [csv]       (2 processes; the path follows ARMCI_SHM)
 * prints one table; each value is the median of @p samples (default 101) operations.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>
#include <armci.h>
#include "bench.h"
#include <armcix.h>

#define WALK_BYTES  (64l << 20)
#define LINE        64
#define FLAG_OFFSET 1024 /* in process 1's block: "this row is done" */

static double now_ns(void)
{
    return 1e9 * bench_now();
}

/* The application's work: touch every line of @p walk (reads and writes, so that dirty
 * lines of ours also leave). Returns a value the compiler cannot drop. */
static volatile uint64_t sink;
static void walk(uint8_t *w)
{
    uint64_t s = 0;
    for (long i = 0; i < WALK_BYTES; i += LINE) {
        s += w[i];
        w[i] = (uint8_t)(s + (uint64_t)i);
    }
    sink += s;
}

enum { OP_GET, OP_PUT, OP_ACC, OP_FLOOR_GET, OP_FLOOR_PUT, OP_FLOOR_ACC, NOPS };
static const char *const op_names[NOPS] = {"get",       "put",       "acc",
                                           "floor-get", "floor-put", "floor-acc"};

static void one_op(int op, double *remote, double *local, int peer)
{
    double scale = 1.0;
    switch (op) {
    case OP_GET:
        ARMCI_Get(remote, local, (int)sizeof(double), peer);
        break;
    case OP_PUT:
        ARMCI_Put(local, remote, (int)sizeof(double), peer);
        break;
    case OP_ACC:
        ARMCI_Acc(ARMCI_ACC_DBL, &scale, local, remote, (int)sizeof(double), peer);
        break;
    /* the floors: the same data moved by hand (remote is mapped on the same node) */
    case OP_FLOOR_GET:
        *(volatile double *)local = *(volatile double *)remote;
        break;
    case OP_FLOOR_PUT:
        *(volatile double *)remote = *(volatile double *)local;
        break;
    default:
        *(volatile double *)remote += scale * *(volatile double *)local;
        break;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int samples = argc > 1 ? atoi(argv[1]) : 101;
    const char *csv = argc > 2 ? argv[2] : NULL;
    if (np != 2 || samples < 1) {
        if (me == 0)
            fprintf(stderr, "cold_bench: 2 processes and a positive sample count\n");
        ARMCI_Finalize();
        MPI_Finalize();
        return 2;
    }
    int peer = 1 - me;
    /* the peer's memory is mapped here when ARMCI puts both on one node's heap */
    int same_node =
        armci_domain_id(ARMCI_DOMAIN_SMP, peer) == armci_domain_id(ARMCI_DOMAIN_SMP, me);
    uint8_t *w = malloc(WALK_BYTES);
    memset(w, 1, WALK_BYTES);
    double *t = malloc((size_t)samples * sizeof(double));
    double local[2] = {1.0, 0.0};
    const int nallocs[] = {1, 100, 1000}, nlive[] = {0, 100, 1000};
    FILE *out = NULL;
    if (me == 0 && csv && !(out = fopen(csv, "w")))
        fprintf(stderr, "cold_bench: cannot write %s\n", csv);
    if (out)
        fprintf(out, "path,op,allocations,implicit,live,hot_ns,cold_ns\n");
    if (me == 0)
        printf("%-6s %-5s %6s %8s %6s %9s %9s %9s\n", "path", "op", "allocs", "implicit", "live",
               "hot ns", "cold ns", "cold-hot");

    void **first = malloc(2 * sizeof(void *)), **extra = malloc(1000 * 2 * sizeof(void *));
    void **sink_alloc = malloc(2 * sizeof(void *));
    ARMCI_Malloc(first, 4096);
    memset(first[me], 0, 4096);
    ARMCI_Malloc(sink_alloc, 1000 * sizeof(double)); /* where the implicit puts go */
    int have = 1;
    for (int a = 0; a < 3; a++) {
        for (; have < nallocs[a]; have++)
            ARMCI_Malloc(&extra[2 * (have - 1)], 64);
        for (int l = 0; l < 3; l++) {
            for (int op = 0; op < NOPS; op++) {
                if (op >= OP_FLOOR_GET && (!same_node || a > 0 || l > 0))
                    continue;
                double hot = 0, cold = 0;
                long live = 0;
                volatile int *flag = (volatile int *)((char *)first[me] + FLAG_OFFSET);
                if (me == 1) {
                    /* serve process 0 at full attention until it says the row is done:
                     * the times are then the origin's alone, not a wake-up of ours */
                    while (*flag == 0)
                        ARMCIX_Progress();
                    *flag = 0;
                } else {
                    double *remote = first[peer];
                    for (int s = 0; s < samples; s++) { /* hot: back to back */
                        double t0 = now_ns();
                        one_op(op, remote, local, peer);
                        t[s] = now_ns() - t0;
                    }
                    hot = bench_median(t, samples);
                    for (int s = 0; s < samples; s++) {
                        for (int k = 0; k < nlive[l]; k++)
                            ARMCI_NbPut(local, (double *)sink_alloc[peer] + k, (int)sizeof(double),
                                        peer, NULL);
                        armcix_resources_t res;
                        ARMCIX_Resources(&res); /* before the walk: it reads the pool */
                        if (res.requests_in_use > live)
                            live = res.requests_in_use;
                        walk(w);
                        double t0 = now_ns();
                        one_op(op, remote, local, peer);
                        t[s] = now_ns() - t0;
                        ARMCI_WaitAll();
                    }
                    cold = bench_median(t, samples);
                    int one = 1;
                    ARMCI_Put(&one, (char *)first[peer] + FLAG_OFFSET, (int)sizeof(int), peer);
                    printf("%-6s %-5s %6d %8d %6ld %9.0f %9.0f %9.0f\n",
                           same_node ? "node" : "fabric", op_names[op], nallocs[a], nlive[l], live,
                           hot, cold, cold - hot);
                    fflush(stdout);
                    if (out)
                        fprintf(out, "%s,%s,%d,%d,%ld,%.0f,%.0f\n", same_node ? "node" : "fabric",
                                op_names[op], nallocs[a], nlive[l], live, hot, cold);
                }
                ARMCI_Barrier();
            }
        }
    }
    if (out)
        fclose(out);
    for (int k = have - 2; k >= 0; k--)
        ARMCI_Free(extra[2 * k + me]);
    ARMCI_Free(sink_alloc[me]);
    ARMCI_Free(first[me]);
    free(first);
    free(extra);
    free(sink_alloc);
    free(w);
    free(t);
    ARMCI_Finalize();
    MPI_Finalize();
    return 0;
}
