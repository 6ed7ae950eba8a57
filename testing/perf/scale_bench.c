/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What ARMCI costs a job as it grows: ARMCI_Init's time and the private memory it adds,
 * the memory first contact with every peer adds, the heap one ARMCI_Malloc keeps, and the
 * time of ARMCI_Malloc, ARMCI_Free and ARMCI_Barrier. Built twice, against armci-ofi and
 * (with -DBENCH_ARMCI_MPI) against ARMCI-MPI; run-scale.sh runs both at several process
 * counts and collects the CSV (make scale-bench).
 *
 *   scale_bench LABEL PATH [--csv FILE]
 *
 * Every figure is the largest over the processes (the job waits for its slowest), and the
 * times of the repeated calls are medians of that. Memory: RssAnon (pages the process
 * wrote) and the C heap in use (mallinfo2), which a run with glibc's thread cache off
 * (GLIBC_TUNABLES=glibc.malloc.tcache_count=0) reads without the freed blocks it keeps.
 */
#include <stdio.h>
#include <string.h>

#include <mpi.h>
#include <armci.h>

#include "bench.h"

#define NALLOC   100
#define NBARRIER 100

static int me, np;

/* The median over calls of the slowest process's time of each call. */
static double median_of_max(double *t, int n)
{
    double *m = malloc((size_t)n * sizeof(double));
    MPI_Allreduce(t, m, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double r = bench_median(m, n);
    free(m);
    return r;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const char *label = argc > 1 ? argv[1] : "armci";
    const char *path = argc > 2 ? argv[2] : "-";
    const char *csv = argc > 4 && strcmp(argv[3], "--csv") == 0 ? argv[4] : NULL;
    void ***bases = malloc(NALLOC * sizeof(void **));
    for (int i = 0; i < NALLOC; i++)
        bases[i] = malloc((size_t)np * sizeof(void *));
    double *tm = malloc(NALLOC * sizeof(double)), *tf = malloc(NALLOC * sizeof(double));
    double *tb = malloc(NBARRIER * sizeof(double));
    long *got = malloc((size_t)np * sizeof(long));

    MPI_Barrier(MPI_COMM_WORLD);
    long m0 = bench_rss_anon();
    double t0 = bench_now();
    ARMCI_Init();
    double t_init = bench_now() - t0;
    long m1 = bench_rss_anon();

    /* first contact: a put to and a get from every process */
    void **slot = malloc((size_t)np * sizeof(void *));
    ARMCI_Malloc(slot, (armci_size_t)(np * sizeof(long)));
    double t1 = bench_now();
    for (int k = 1; k < np; k++) {
        int p = (me + k) % np;
        long v = me;
        ARMCI_Put(&v, (long *)slot[p] + me, sizeof(long), p);
    }
    ARMCI_Barrier();
    for (int k = 1; k < np; k++) {
        int p = (me + k) % np;
        ARMCI_Get((long *)slot[p] + me, &got[p], sizeof(long), p);
        if (got[p] != me) {
            fprintf(stderr, "scale_bench: rank %d read %ld back from %d, not %d\n", me, got[p], p,
                    me);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    ARMCI_Barrier();
    double t_contact = bench_now() - t1;
    long m2 = bench_rss_anon();

    long h0 = bench_heap_in_use();
    for (int i = 0; i < NALLOC; i++) {
        double s = bench_now();
        ARMCI_Malloc(bases[i], 64);
        tm[i] = bench_now() - s;
    }
    long h1 = bench_heap_in_use();
    for (int i = NALLOC - 1; i >= 0; i--) {
        double s = bench_now();
        ARMCI_Free(bases[i][me]);
        tf[i] = bench_now() - s;
    }
    for (int i = 0; i < NBARRIER; i++) {
        double s = bench_now();
        ARMCI_Barrier();
        tb[i] = bench_now() - s;
    }

    double init_s = bench_max_over(t_init), contact_s = bench_max_over(t_contact);
    double rss_init = bench_max_over((double)(m1 - m0)),
           rss_contact = bench_max_over((double)(m2 - m1));
    double per_alloc = bench_max_over((double)(h1 - h0) / NALLOC);
    double malloc_us = 1e6 * median_of_max(tm, NALLOC), free_us = 1e6 * median_of_max(tf, NALLOC);
    double barrier_us = 1e6 * median_of_max(tb, NBARRIER);
    if (me == 0) {
        printf("%-10s %-6s P=%-3d init %8.4f s  +%7.2f MiB  contact %7.4f s +%7.2f MiB  "
               "heap/alloc %7.0f B  malloc %8.1f us  free %8.1f us  barrier %8.1f us\n",
               label, path, np, init_s, rss_init / 1048576.0, contact_s, rss_contact / 1048576.0,
               per_alloc, malloc_us, free_us, barrier_us);
        if (csv) {
            FILE *f = fopen(csv, "a");
            if (f) {
                fprintf(f, "%s,%s,%d,%.5f,%.3f,%.5f,%.3f,%.1f,%.2f,%.2f,%.2f\n", label, path, np,
                        init_s, rss_init / 1048576.0, contact_s, rss_contact / 1048576.0, per_alloc,
                        malloc_us, free_us, barrier_us);
                fclose(f);
            }
        }
    }
    ARMCI_Free(slot[me]);
    ARMCI_Finalize();
    MPI_Finalize();
    return 0;
}
