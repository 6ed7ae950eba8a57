/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The busy layout: every process bound to a CPU of its own and computing, as NWChem and GA
 * jobs run, and between chunks of computation doing what NWChem's tasks do: a
 * fetch-and-add on one counter held by process 0 (nxtval), a small accumulate and a small
 * get to the next process. No CPU is left over for anyone's progress.
 *
 * Reports, over all processes: the latency of each of the three calls (median and 99th
 * percentile of every call made), and the share of its compute time each process kept: a
 * chunk's time alone (measured before ARMCI_Init) over its time in the run, process 0's
 * (the counter's holder, the target of every fetch-and-add) and the lowest of all.
 * The counter's and the accumulated buffers' final values are checked; a wrong one fails
 * the run.
 *
 * Built against armci-ofi, ARMCI-MPI (-DBENCH_ARMCI_MPI) and GA's ComEx
 * (-DBENCH_COMEX=name, build-comex.sh). Under ComEx MPI-PR the last process of each node
 * is ComEx's progress rank: BUSY_SPARE=1 leaves that one unbound, so that it runs on
 * whatever CPU the scheduler gives it, as it would beside a job that binds the others.
 *
 * With --hot-spot, process 0 only computes, as long as the others call, and every other
 * process aims all three calls at it: the latency of serving a process that makes no
 * call at all.
 *
 *   busy_bench [--csv FILE] [--chunk-us N] [--iters N] [--hot-spot]
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include <armci.h>
#include "bench.h"

#if defined(BENCH_COMEX)
#define IMPL BENCH_COMEX
extern MPI_Comm ARMCI_COMM_WORLD;
#elif defined(BENCH_ARMCI_MPI)
#define IMPL "armci-mpi"
#else
#define IMPL "armci-ofi"
#endif

#define ACC_DOUBLES 8
#define GET_BYTES   64

static MPI_Comm world;
static int me, np;

/* A chunk of computation: dependent arithmetic on a few cache lines, which no runtime
 * work can speed up and any runtime work on the same CPU slows down. */
static double sink;
static void compute(long iters)
{
    double v[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    for (long i = 0; i < iters; i++)
        for (int k = 0; k < 8; k++)
            v[k] = v[k] * 0.999999 + 0.5;
    for (int k = 0; k < 8; k++)
        sink += v[k];
}

/* The iterations of compute() that take @p us microseconds on this CPU, alone. */
static long calibrate(double us)
{
    long iters = 1000;
    for (;;) {
        double t = bench_now();
        compute(iters);
        t = (bench_now() - t) * 1e6;
        if (t > us / 4)
            return (long)((double)iters * us / t);
        iters *= 2;
    }
}

/* Binds this process to CPU (node rank) modulo the CPUs online, before the runtime starts,
 * so that the runtime sees the layout a batch job's launcher makes. Hosts made of
 * namespaces share one machine's CPUs: there BUSY_BIND=world binds by world rank. */
static void bind_self(void)
{
    MPI_Comm node;
    int lr, ln;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &lr);
    MPI_Comm_size(node, &ln);
    MPI_Comm_free(&node);
    const char *by = getenv("BUSY_BIND");
    if (by && strcmp(by, "world") == 0)
        MPI_Comm_rank(MPI_COMM_WORLD, &lr);
    const char *spare = getenv("BUSY_SPARE");
    if (spare && atoi(spare) == 1 && lr == ln - 1)
        return;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET((int)(lr % (ncpu > 0 ? ncpu : 1)), &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0)
        perror("busy_bench: sched_setaffinity");
}

/* Median and 99th percentile of the samples of every process, at process 0. */
static void gather_stats(double *mine, int n, double *median, double *p99)
{
    int *counts = NULL, *displs = NULL, total = 0;
    double *all = NULL;
    if (me == 0) {
        counts = malloc((size_t)np * sizeof(int));
        displs = malloc((size_t)np * sizeof(int));
    }
    MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, world);
    if (me == 0) {
        for (int p = 0; p < np; p++) {
            displs[p] = total;
            total += counts[p];
        }
        all = malloc((size_t)(total ? total : 1) * sizeof(double));
    }
    MPI_Gatherv(mine, n, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, world);
    if (me == 0) {
        qsort(all, (size_t)total, sizeof(double), bench_cmp_double);
        *median = total ? all[total / 2] : 0;
        *p99 = total ? all[(int)((double)total * 0.99)] : 0;
        free(all);
        free(counts);
        free(displs);
    }
}

int main(int argc, char **argv)
{
    FILE *csv = NULL;
    double chunk_us = 200;
    int iters = 1500, hot = 0;
    MPI_Init(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc)
            csv = fopen(argv[++i], "a");
        else if (strcmp(argv[i], "--chunk-us") == 0 && i + 1 < argc)
            chunk_us = atof(argv[++i]);
        else if (strcmp(argv[i], "--iters") == 0 && i + 1 < argc)
            iters = atoi(argv[++i]);
        else if (strcmp(argv[i], "--hot-spot") == 0)
            hot = 1;
    }
    bind_self();

    /* A chunk's time alone: the median of 101, before any runtime runs here. */
    long work = calibrate(chunk_us);
    double alone[101];
    for (int i = 0; i < 101; i++) {
        double t = bench_now();
        compute(work);
        alone[i] = bench_now() - t;
    }
    double chunk_alone = bench_median(alone, 101);

    ARMCI_Init();
    world = MPI_COMM_WORLD;
#ifdef BENCH_COMEX
    world = ARMCI_COMM_WORLD;
#endif
    MPI_Comm_rank(world, &me);
    MPI_Comm_size(world, &np);
    if (np < 2) {
        if (me == 0)
            fprintf(stderr, "busy_bench: run with at least 2 processes\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    void **counter = malloc((size_t)np * sizeof(void *));
    void **accbuf = malloc((size_t)np * sizeof(void *));
    void **getbuf = malloc((size_t)np * sizeof(void *));
    void **done = malloc((size_t)np * sizeof(void *));
    ARMCI_Malloc(counter, sizeof(long));
    ARMCI_Malloc(accbuf, ACC_DOUBLES * sizeof(double));
    ARMCI_Malloc(getbuf, GET_BYTES);
    ARMCI_Malloc(done, sizeof(long));
    *(long *)done[me] = 0;
    *(long *)counter[me] = 0;
    memset(accbuf[me], 0, ACC_DOUBLES * sizeof(double));
    memset(getbuf[me], me + 1, GET_BYTES);
    ARMCI_Barrier();

    int next = hot ? 0 : (me + 1) % np;
    int calls = !hot || me != 0;
    double ones[ACC_DOUBLES], scale = 1.0;
    for (int k = 0; k < ACC_DOUBLES; k++)
        ones[k] = 1.0;
    unsigned char got[GET_BYTES];
    double *fadd = malloc((size_t)iters * sizeof(double));
    double *acc = malloc((size_t)iters * sizeof(double));
    double *get = malloc((size_t)iters * sizeof(double));
    double computing = 0;
    int nfadd = 0, nacc = 0, bad_get = 0;

    double start = bench_now();
    int chunks = 0;
    /* With --hot-spot process 0 computes until every other process has made all its calls
     * (each then adds 1 to process 0's done counter, which it reads in its own memory
     * between chunks): a process that stopped computing would serve them from its next
     * ARMCI call instead. */
    for (int i = 0;
         hot && me == 0 ? __atomic_load_n((long *)done[0], __ATOMIC_ACQUIRE) < np - 1 : i < iters;
         i++) {
        chunks++;
        double t0 = bench_now();
        compute(work);
        double t1 = bench_now();
        computing += t1 - t0;
        if (!calls)
            continue;
        long old;
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, counter[0], 1, 0);
        double t2 = bench_now();
        ARMCI_Acc(ARMCI_ACC_DBL, &scale, ones, accbuf[next], ACC_DOUBLES * sizeof(double), next);
        double t3 = bench_now();
        ARMCI_Get(getbuf[next], got, GET_BYTES, next);
        double t4 = bench_now();
        if (me != 0) /* process 0's own fetch-and-add is local */
            fadd[nfadd++] = (t2 - t1) * 1e6;
        acc[nacc] = (t3 - t2) * 1e6;
        get[nacc++] = (t4 - t3) * 1e6;
        if (got[0] != (unsigned char)(next + 1) || got[GET_BYTES - 1] != (unsigned char)(next + 1))
            bad_get++;
    }
    double elapsed = bench_now() - start;
    if (hot && me != 0) {
        long old;
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, done[0], 1, 0);
    }
    ARMCI_AllFence();
    ARMCI_Barrier();

    /* Every calling process added 1 to the counter @p iters times, and 1.0 as often to each
     * double of the next process (of process 0, with --hot-spot). */
    int callers = hot ? np - 1 : np;
    int bad = bad_get > 0;
    if (me == 0 && *(long *)counter[0] != (long)callers * iters) {
        fprintf(stderr, "busy_bench: the counter holds %ld, not %ld\n", *(long *)counter[0],
                (long)callers * iters);
        bad = 1;
    }
    double want = !hot ? iters : me == 0 ? (double)callers * iters : 0;
    for (int k = 0; k < ACC_DOUBLES; k++)
        if (((double *)accbuf[me])[k] != want) {
            fprintf(stderr, "busy_bench: process %d: accumulated %g, not %g\n", me,
                    ((double *)accbuf[me])[k], want);
            bad = 1;
            break;
        }
    if (bad_get)
        fprintf(stderr, "busy_bench: process %d: %d gets returned wrong bytes\n", me, bad_get);
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, world);

    double share = chunk_alone * chunks / computing, share0 = share, share_min = share;
    MPI_Bcast(&share0, 1, MPI_DOUBLE, 0, world);
    MPI_Allreduce(MPI_IN_PLACE, &share_min, 1, MPI_DOUBLE, MPI_MIN, world);
    MPI_Allreduce(MPI_IN_PLACE, &elapsed, 1, MPI_DOUBLE, MPI_MAX, world);
    double fm = 0, f99 = 0, am = 0, a99 = 0, gm = 0, g99 = 0;
    gather_stats(fadd, nfadd, &fm, &f99);
    gather_stats(acc, nacc, &am, &a99);
    gather_stats(get, nacc, &gm, &g99);

    if (me == 0) {
        printf("# busy_bench %s: %d processes, %d chunks of %.0f us each (alone: %.1f us)%s\n",
               IMPL, np, iters, chunk_us, chunk_alone * 1e6,
               hot ? "; process 0 only computes, the others call it" : "");
        printf("%-28s %12s %12s\n", "call", "median us", "p99 us");
        printf("%-28s %12.1f %12.1f\n", "fetch-and-add on process 0", fm, f99);
        printf("%-28s %12.1f %12.1f\n", "accumulate 64 B", am, a99);
        printf("%-28s %12.1f %12.1f\n", "get 64 B", gm, g99);
        printf("compute share kept: process 0 %.3f, lowest %.3f; loop %.3f s\n", share0, share_min,
               elapsed);
        if (csv) {
            fprintf(csv, "%s,%s,%d,fadd_median,%.2f,us\n", IMPL, hot ? "hot-spot" : "ring", np, fm);
            fprintf(csv, "%s,%s,%d,fadd_p99,%.2f,us\n", IMPL, hot ? "hot-spot" : "ring", np, f99);
            fprintf(csv, "%s,%s,%d,acc_median,%.2f,us\n", IMPL, hot ? "hot-spot" : "ring", np, am);
            fprintf(csv, "%s,%s,%d,acc_p99,%.2f,us\n", IMPL, hot ? "hot-spot" : "ring", np, a99);
            fprintf(csv, "%s,%s,%d,get_median,%.2f,us\n", IMPL, hot ? "hot-spot" : "ring", np, gm);
            fprintf(csv, "%s,%s,%d,get_p99,%.2f,us\n", IMPL, hot ? "hot-spot" : "ring", np, g99);
            fprintf(csv, "%s,%s,%d,share_p0,%.4f,ratio\n", IMPL, hot ? "hot-spot" : "ring", np,
                    share0);
            fprintf(csv, "%s,%s,%d,share_min,%.4f,ratio\n", IMPL, hot ? "hot-spot" : "ring", np,
                    share_min);
            fprintf(csv, "%s,%s,%d,loop,%.4f,s\n", IMPL, hot ? "hot-spot" : "ring", np, elapsed);
        }
        if (bad)
            fprintf(stderr, "busy_bench: %s: wrong results (above)\n", IMPL);
    }
    if (csv)
        fclose(csv);
    free(fadd);
    free(acc);
    free(get);
    ARMCI_Free(counter[me]);
    ARMCI_Free(accbuf[me]);
    ARMCI_Free(getbuf[me]);
    ARMCI_Free(done[me]);
    free(counter);
    free(accbuf);
    free(getbuf);
    free(done);
    ARMCI_Finalize();
    MPI_Finalize();
    return bad;
}
