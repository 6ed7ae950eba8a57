/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * OSU-style ARMCI benchmark: latency (8 B - 1 KiB) of Get, Put, Acc and NbGet+Wait,
 * bandwidth (1 KiB - 4 MiB) of Get and Put, and the overlap of a 256 KiB NbGet with
 * computation. Process 0 measures against process 1; the others wait in a barrier.
 * Values are medians over batches. Built against armci-ofi, against ARMCI-MPI (with
 * -DBENCH_ARMCI_MPI) and against GA's ComEx (-DBENCH_COMEX=name, build-comex.sh), so
 * that they run side by side on the same input.
 * A third mode, --raw-shm, copies through an MPI shared-memory window: the floor of
 * any same-node path.
 *
 * A fourth, --raw-ofi, runs plain fi_read/fi_write on the provider libfabric picks
 * (FI_PROVIDER), the target polling its completion queue: the floor of the fabric path.
 *
 * A fifth, --overlap, runs only the overlap test and says where its time goes: the parts
 * of one batch, and each process's threads on a CPU and waiting for one.
 *
 * A sixth, --agg, runs only the aggregation rows (1000 blocking calls, an aggregate
 * handle, one vector call), for a change to the aggregate handles' path.
 *
 *   armci_bench [--csv FILE] [--raw-shm | --raw-ofi | --overlap | --agg]
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include <armci.h>
#include "bench.h"
#if defined(BENCH_ARMCI_MPI) || defined(BENCH_COMEX)
#define BENCH_PEER 1 /* a peer's ARMCI: only the calls every ARMCI has */
#endif
#ifndef BENCH_PEER
#include <armcix.h>
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#define IMPL "armci-ofi"
#elif defined(BENCH_COMEX)
#define IMPL BENCH_COMEX
/* GA's ComEx keeps the communicator of the processes ARMCI serves here, not in armci.h:
 * with MPI-PR one process per node is ComEx's own and never returns from ARMCI_Init. */
extern MPI_Comm ARMCI_COMM_WORLD;
#else
#define IMPL "armci-mpi"
#endif

#define BATCHES 15

static FILE *csv;
static char path_name[64];
/* The processes ARMCI serves: MPI_COMM_WORLD but for ComEx MPI-PR's progress ranks. */
static MPI_Comm world;

static void emit(const char *op, size_t bytes, double value, const char *unit)
{
    printf("%-10s %10zu %12.3f %s\n", op, bytes, value, unit);
    if (csv)
        fprintf(csv, "%s,%s,%s,%zu,%.6f,%s\n", IMPL, path_name, op, bytes, value, unit);
}

enum { OP_GET, OP_PUT, OP_ACC, OP_NBGET };

/* Median time of one operation, in microseconds. */
static double latency(int op, void *remote, char *local, size_t n, int iters)
{
    double t[BATCHES], one = 1.0;
    armci_hdl_t h;
    for (int b = -1; b < BATCHES; b++) { /* batch -1 warms up */
        double t0 = bench_now();
        for (int i = 0; i < iters; i++) {
            switch (op) {
            case OP_GET:
                ARMCI_Get(remote, local, (int)n, 1);
                break;
            case OP_PUT:
                ARMCI_Put(local, remote, (int)n, 1);
                break;
            case OP_ACC:
                ARMCI_Acc(ARMCI_ACC_DBL, &one, local, remote, (int)n, 1);
                break;
            default:
                ARMCI_INIT_HANDLE(&h);
                ARMCI_NbGet(remote, local, (int)n, 1, &h);
                ARMCI_Wait(&h);
            }
        }
        if (op == OP_PUT || op == OP_ACC)
            ARMCI_Fence(1);
        if (b >= 0)
            t[b] = (bench_now() - t0) / iters * 1e6;
    }
    return bench_median(t, BATCHES);
}

/* Median bandwidth in MB/s of a window of 16 nonblocking operations. */
static double bandwidth(int op, void *remote, char *local, size_t n)
{
    const int window = 16;
    double t[BATCHES];
    for (int b = -1; b < BATCHES; b++) {
        double t0 = bench_now();
        for (int i = 0; i < window; i++) {
            if (op == OP_GET)
                ARMCI_NbGet(remote, local, (int)n, 1, NULL);
            else
                ARMCI_NbPut(local, remote, (int)n, 1, NULL);
        }
        ARMCI_WaitAll();
        if (op == OP_PUT)
            ARMCI_Fence(1);
        if (b >= 0)
            t[b] = (double)n * window / (bench_now() - t0) / 1e6;
    }
    return bench_median(t, BATCHES);
}

/* Median time of a 64 x 64 B strided get or put (remote rows 128 B apart), in us. */
static double strided(int get, void *remote, char *local, int iters)
{
    int lstride[1] = {64}, rstride[1] = {128}, count[2] = {64, 64};
    double t[BATCHES];
    for (int b = -1; b < BATCHES; b++) {
        double t0 = bench_now();
        for (int i = 0; i < iters; i++) {
            if (get)
                ARMCI_GetS(remote, rstride, local, lstride, count, 1, 1);
            else
                ARMCI_PutS(local, lstride, remote, rstride, count, 1, 1);
        }
        if (!get)
            ARMCI_Fence(1);
        if (b >= 0)
            t[b] = (bench_now() - t0) / iters * 1e6;
    }
    return bench_median(t, BATCHES);
}

/* Median time of a fetch-and-add, in us. */
static double fetch_add(void *remote, int iters)
{
    double t[BATCHES];
    int old;
    for (int b = -1; b < BATCHES; b++) {
        double t0 = bench_now();
        for (int i = 0; i < iters; i++)
            ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &old, remote, 1, 1);
        if (b >= 0)
            t[b] = (bench_now() - t0) / iters * 1e6;
    }
    return bench_median(t, BATCHES);
}

/* The aggregation test of the ARMCI paper: 1000 doubles at non-adjacent places moved by
 * 1000 blocking calls (mode 0), 1000 nonblocking calls on one aggregate handle and a wait
 * (mode 1), or one vector call of 1000 segments (mode 2). Time of one round, us. */
static double aggregation_round(int get, int mode, void **lp, void **rp, int n)
{
    double t0 = bench_now();
    if (mode == 0) {
        for (int i = 0; i < n; i++) {
            if (get)
                ARMCI_Get(rp[i], lp[i], 8, 1);
            else
                ARMCI_Put(lp[i], rp[i], 8, 1);
        }
    } else if (mode == 1) {
        armci_hdl_t h;
        ARMCI_INIT_HANDLE(&h);
        ARMCI_SET_AGGREGATE_HANDLE(&h);
        for (int i = 0; i < n; i++) {
            if (get)
                ARMCI_NbGet(rp[i], lp[i], 8, 1, &h);
            else
                ARMCI_NbPut(lp[i], rp[i], 8, 1, &h);
        }
        ARMCI_Wait(&h);
    } else {
        armci_giov_t v = {get ? rp : lp, get ? lp : rp, 8, n};
        if (get)
            ARMCI_GetV(&v, 1, 1);
        else
            ARMCI_PutV(&v, 1, 1);
    }
    if (!get)
        ARMCI_Fence(1);
    return (bench_now() - t0) * 1e6;
}

/* The three modes alternate within each batch, so that all three see the machine in the
 * same state (its speed drifts between runs and within one), and the ratio of aggregate to
 * vector is the median of the per-batch ratios. Each timed round follows an untimed one of
 * the same mode: the first transfer after another mode's round (or after any pause) pays
 * 30-80 us over tcp whichever mode it is, which would be charged to whichever mode came
 * second. Emits the medians and the ratio. */
static void aggregation(int get, void *remote, char *local)
{
    enum { N = 1000 };
    static const char *names[2][3] = {
        {"agg_put_1000_blocking", "agg_put_1000_aggregate", "agg_put_1000_vector"},
        {"agg_get_1000_blocking", "agg_get_1000_aggregate", "agg_get_1000_vector"}};
    static void *lp[N], *rp[N];
    for (int i = 0; i < N; i++) {
        lp[i] = local + 8 * i;
        rp[i] = (char *)remote + 16 * i; /* every other double: nothing contiguous */
    }
    double t[3][BATCHES], ratio[BATCHES];
    for (int b = -1; b < BATCHES; b++) { /* batch -1 warms up */
        double round[3];
        for (int mode = 0; mode < 3; mode++) {
            aggregation_round(get, mode, lp, rp, N); /* untimed: see above */
            round[mode] = aggregation_round(get, mode, lp, rp, N);
        }
        if (b < 0)
            continue;
        for (int mode = 0; mode < 3; mode++)
            t[mode][b] = round[mode];
        ratio[b] = round[1] / round[2];
    }
    for (int mode = 0; mode < 3; mode++)
        emit(names[get][mode], 8 * N, bench_median(t[mode], BATCHES), "us");
    emit(get ? "agg_get_ratio_to_vector" : "agg_put_ratio_to_vector", 8 * N,
         bench_median(ratio, BATCHES), "x");
}

#ifndef BENCH_PEER
/* A notified put, ping-pong between processes 0 and 1: each puts @p n bytes into the
 * other's block and then a flag the other waits for; half a round trip, us. mode 0:
 * ARMCI_Put_flag; mode 1: ARMCI_Put, ARMCI_Fence and a value put of the flag, which is
 * what the flag costs without ARMCI_Put_flag. Collective over processes 0 and 1. */
static double notify_pingpong(void **base, int me, char *local, size_t n, int mode, int iters)
{
    static int seq;
    int peer = 1 - me;
    volatile int *mine = (volatile int *)base[me];
    int *theirs = (int *)base[peer];
    char *data = (char *)base[peer] + 64;
    double t[BATCHES];
    for (int b = -1; b < BATCHES; b++) {
        ARMCI_Barrier();
        double t0 = bench_now();
        for (int i = 0; i < iters; i++) {
            seq++;
            for (int turn = 0; turn < 2; turn++) {
                if ((turn == 0) == (me == 0)) {
                    if (mode == 0) {
                        ARMCI_Put_flag(local, data, (int)n, theirs, seq, peer);
                    } else {
                        ARMCI_Put(local, data, (int)n, peer);
                        ARMCI_Fence(peer);
                        ARMCI_PutValueInt(seq, theirs, peer);
                    }
                } else {
                    while (*mine != seq)
                        ARMCIX_Progress();
                }
            }
        }
        if (b >= 0)
            t[b] = (bench_now() - t0) / iters / 2 * 1e6;
    }
    return bench_median(t, BATCHES);
}
#endif

static volatile double sink;
static void compute(double seconds)
{
    double t0 = bench_now(), x = 0;
    while (bench_now() - t0 < seconds)
        for (int i = 0; i < 1000; i++)
            x += i * 1e-9;
    sink = x;
}

/* Share of a 256 KiB NbGet hidden behind computation of the same length. */
static double overlap(void *remote, char *local)
{
    const size_t n = 256 * 1024;
    double comm[BATCHES], ov[BATCHES];
    armci_hdl_t h;
    for (int b = 0; b < BATCHES; b++) {
        double t0 = bench_now();
        ARMCI_NbGet(remote, local, (int)n, 1, &h);
        ARMCI_Wait(&h);
        comm[b] = bench_now() - t0;
    }
    double tc = bench_median(comm, BATCHES);
    for (int b = 0; b < BATCHES; b++) {
        double t0 = bench_now();
        ARMCI_NbGet(remote, local, (int)n, 1, &h);
        compute(tc);
        ARMCI_Wait(&h);
        double total = bench_now() - t0;
        double hidden = (tc + tc - total) / tc;
        ov[b] = hidden < 0 ? 0 : hidden > 1 ? 1 : hidden;
    }
    return bench_median(ov, BATCHES) * 100.0;
}

/*
 * Where the time of the overlap test goes, per process and thread (--overlap): the kernel's
 * per-thread scheduler statistics (/proc/self/task/TID/schedstat: nanoseconds on a CPU,
 * nanoseconds runnable but waiting for one) over the overlapped batches, beside the parts
 * of one batch as the caller sees them (issue, computation, the wait that remains).
 */
#define MAX_TASKS 64

/* What carries process 0's operations to process 1 (and 1's to 0: every process must
 * name the same path, as the iteration counts follow from it; asked of itself, process 1
 * would be told "self" and named the provider: it then ran 100 rounds of the same-node
 * flag ping-pong against process 0's 1000, and both waited forever). */
static void set_path_name(void)
{
#ifndef BENCH_PEER
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    snprintf(path_name, sizeof(path_name), "%s",
             ARMCIX_Path_of(me == 1 ? 0 : 1) == ARMCIX_PATH_SHM ? "shm" : ARMCIX_Provider_name());
#elif defined(BENCH_COMEX)
    /* "tcp" when the run stands for two nodes: ComEx's copies through node memory off
     * (COMEX_ENABLE_PUT_SMP=0 and its twins, MPI-PR) or MPI kept to TCP (MPI_NET=tcp,
     * testing/run-mpi.sh) */
    const char *smp = getenv("COMEX_ENABLE_PUT_SMP"), *net = getenv("MPI_NET");
    int apart = (smp && strcmp(smp, "0") == 0) || (net && strcmp(net, "tcp") == 0);
    snprintf(path_name, sizeof(path_name), "%s", apart ? "tcp" : "node");
#else
    /* how MPI's one-sided carried it: by messages (MPI_ONESIDED=messages; Open MPI's pt2pt
     * component, over TCP) or the MPI's default */
    const char *onesided = getenv("MPI_ONESIDED");
    snprintf(path_name, sizeof(path_name), "mpi-%s",
             onesided && strcmp(onesided, "messages") == 0 ? "pt2pt" : "default");
#endif
}

typedef struct {
    int tid;
    char name[32];
    double run, queued; /* seconds */
} task_t;

static int read_tasks(task_t *t)
{
    int n = 0;
    char path[96];
    snprintf(path, sizeof path, "/proc/%d/task", (int)getpid());
    DIR *d = opendir(path);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL && n < MAX_TASKS) {
        if (e->d_name[0] == '.')
            continue;
        task_t *x = &t[n];
        x->tid = atoi(e->d_name);
        unsigned long long run = 0, queued = 0;
        snprintf(path, sizeof path, "/proc/%d/task/%d/schedstat", (int)getpid(), x->tid);
        FILE *f = fopen(path, "r");
        if (!f || fscanf(f, "%llu %llu", &run, &queued) != 2) {
            if (f)
                fclose(f);
            continue;
        }
        fclose(f);
        snprintf(path, sizeof path, "/proc/%d/task/%d/comm", (int)getpid(), x->tid);
        f = fopen(path, "r");
        x->name[0] = '\0';
        if (f) {
            if (fgets(x->name, sizeof x->name, f))
                x->name[strcspn(x->name, "\n")] = '\0';
            fclose(f);
        }
        x->run = 1e-9 * (double)run;
        x->queued = 1e-9 * (double)queued;
        n++;
    }
    if (d)
        closedir(d);
    return n;
}

/* Per batch, in us: [0] main thread on a CPU, [1] main runnable but waiting, [2] the other
 * threads on a CPU, [3] the other threads waiting, [4] the busiest other thread on a CPU. */
static void task_deltas(const task_t *a, int na, const task_t *b, int nb, int batches,
                        double out[5], char *busiest, size_t len)
{
    memset(out, 0, 5 * sizeof(double));
    snprintf(busiest, len, "-");
    for (int j = 0; j < nb; j++) {
        double run = b[j].run, queued = b[j].queued;
        for (int i = 0; i < na; i++)
            if (a[i].tid == b[j].tid) {
                run -= a[i].run;
                queued -= a[i].queued;
            }
        run *= 1e6 / batches;
        queued *= 1e6 / batches;
        int main_thread = b[j].tid == (int)getpid();
        out[main_thread ? 0 : 2] += run;
        out[main_thread ? 1 : 3] += queued;
        if (!main_thread && run > out[4]) {
            out[4] = run;
            snprintf(busiest, len, "%s", b[j].name);
        }
    }
}

/* Many batches: the scheduler's counts of a running thread lag by up to a tick (4 ms).
 * BENCH_OVL_BATCHES raises them (to look at a run with perf, say). */
#define OVL_MAX 100000
static int OVL_BATCHES = 400;

static double parts[3][OVL_MAX], ov[OVL_MAX];

static void tell_others(int np)
{
    int token = 0;
    for (int p = 1; p < np; p++)
        MPI_Send(&token, 1, MPI_INT, p, 99, world);
}

static void wait_word(int naps)
{
    int token, done = 0;
    MPI_Request r;
    MPI_Irecv(&token, 1, MPI_INT, 0, 99, world, &r);
    while (!done) {
        MPI_Test(&r, &done, MPI_STATUS_IGNORE);
#ifndef BENCH_PEER
        ARMCIX_Progress();
#endif
        if (naps && !done)
            usleep(200);
    }
}

static void run_overlap_breakdown(void)
{
    int me, np;
    MPI_Comm_rank(world, &me);
    MPI_Comm_size(world, &np);
    const size_t n = 256 * 1024;
    const char *nb = getenv("BENCH_OVL_BATCHES");
    if (nb && atoi(nb) > 0)
        OVL_BATCHES = atoi(nb) < OVL_MAX ? atoi(nb) : OVL_MAX;
    void **base = malloc((size_t)np * sizeof(void *));
    ARMCI_Malloc(base, (armci_size_t)n);
    char *local = ARMCI_Malloc_local((armci_size_t)n);
    set_path_name();
    armci_hdl_t h;
    double tc = 0;
    ARMCI_Barrier();
    if (me == 0) {
        static double comm[400];
        for (int b = 0; b < 400; b++) {
            double t0 = bench_now();
            ARMCI_NbGet(base[1], local, (int)n, 1, &h);
            ARMCI_Wait(&h);
            comm[b] = bench_now() - t0;
        }
        tc = bench_median(comm, 400);
    }
    /* The others wait for process 0's word inside ARMCI (serving its gets, as in
     * ARMCI_Barrier's wait), or with BENCH_TARGET_NAPS=1 napping between looks, leaving
     * the processor to whoever needs it (their own progress thread, if any, serves the
     * gets), as a target on a host of its own leaves it to nobody. */
    int naps = getenv("BENCH_TARGET_NAPS") && atoi(getenv("BENCH_TARGET_NAPS"));
    static task_t before[MAX_TASKS], after[MAX_TASKS];
    int nbefore = 0, nafter = 0;
    if (me == 0) {
        tell_others(np);
        nbefore = read_tasks(before);
        for (int b = 0; b < OVL_BATCHES; b++) {
            double t0 = bench_now();
            ARMCI_NbGet(base[1], local, (int)n, 1, &h);
            double t1 = bench_now();
            compute(tc);
            double t2 = bench_now();
            ARMCI_Wait(&h);
            double t3 = bench_now();
            parts[0][b] = 1e6 * (t1 - t0);
            parts[1][b] = 1e6 * (t2 - t1);
            parts[2][b] = 1e6 * (t3 - t2);
            double hidden = (tc + tc - (t3 - t0)) / tc;
            ov[b] = hidden < 0 ? 0 : hidden > 1 ? 1 : hidden;
        }
        nafter = read_tasks(after);
        tell_others(np);
    } else {
        wait_word(naps);
        nbefore = read_tasks(before);
        wait_word(naps);
        nafter = read_tasks(after);
    }
    ARMCI_Barrier();
    double mine[5], all[2][5];
    char busiest[32], names[2][32];
    task_deltas(before, nbefore, after, nafter, OVL_BATCHES, mine, busiest, sizeof busiest);
    MPI_Gather(mine, 5, MPI_DOUBLE, all, 5, MPI_DOUBLE, 0, world);
    MPI_Gather(busiest, 32, MPI_CHAR, names, 32, MPI_CHAR, 0, world);
    if (me == 0) {
        printf("# %s, path %s: overlap of a 256 KiB NbGet with %.1f us of computation, "
               "medians of %d batches\n",
               IMPL, path_name, 1e6 * tc, OVL_BATCHES);
        emit("overlap", n, bench_median(ov, OVL_BATCHES) * 100.0, "%");
        emit("ovl_alone", n, 1e6 * tc, "us");
        emit("ovl_issue", n, bench_median(parts[0], OVL_BATCHES), "us");
        emit("ovl_comp", n, bench_median(parts[1], OVL_BATCHES), "us");
        emit("ovl_wait", n, bench_median(parts[2], OVL_BATCHES), "us");
        printf("# per overlapped batch, from the scheduler (us on a CPU / us runnable but "
               "waiting for one)\n");
        printf("%-8s %18s %24s %s\n", "process", "main thread", "other threads",
               "busiest other thread");
        for (int r = 0; r < 2 && r < np; r++)
            printf("%-8d %8.1f / %7.1f %11.1f / %10.1f  %s (%.1f us)\n", r, all[r][0], all[r][1],
                   all[r][2], all[r][3], names[r], all[r][4]);
    }
    ARMCI_Free_local(local);
    ARMCI_Free(base[me]);
    free(base);
}

static void run_armci(int agg_only)
{
    int me;
    MPI_Comm_rank(world, &me);
    int np;
    MPI_Comm_size(world, &np);
    const size_t max = 4 << 20;
    void **base = malloc((size_t)np * sizeof(void *));
    ARMCI_Malloc(base, (armci_size_t)max);
    char *local = ARMCI_Malloc_local((armci_size_t)max);
    memset(local, 1, max);
    memset(base[me], 0, max);
    set_path_name();
    ARMCI_Barrier();
    if (me == 0) {
        printf("# %s, path %s, %d processes (process 0 -> 1), medians of %d batches\n", IMPL,
               path_name, np, BATCHES);
        printf("%-10s %10s %12s\n", "operation", "bytes", "value");
        int fabric = strcmp(path_name, "shm") != 0 && strcmp(path_name, "mpi-default") != 0 &&
                     strcmp(path_name, "node") != 0;
        int iters = fabric ? 200 : 2000;
        static const char *names[] = {"get", "put", "acc", "nbget"};
        if (!agg_only) {
            for (int op = OP_GET; op <= OP_NBGET; op++)
                for (size_t n = 8; n <= 1024; n *= 4)
                    emit(names[op], n, latency(op, base[1], local, n, iters), "us");
            for (size_t n = 1024; n <= max; n *= 4) {
                emit("get_bw", n, bandwidth(OP_GET, base[1], local, n), "MB/s");
                emit("put_bw", n, bandwidth(OP_PUT, base[1], local, n), "MB/s");
            }
            emit("overlap", 256 * 1024, overlap(base[1], local), "%");
            emit("gets_64x64", 4096, strided(1, base[1], local, fabric ? 20 : 500), "us");
            emit("puts_64x64", 4096, strided(0, base[1], local, fabric ? 20 : 500), "us");
            emit("acc_dbl", 256 * 1024,
                 latency(OP_ACC, base[1], local, 256 * 1024, fabric ? 5 : 20), "us");
            emit("fetch_add", 4, fetch_add(base[1], iters), "us");
        }
        for (int get = 0; get < 2; get++)
            aggregation(get, base[1], local);
    }
#ifndef BENCH_PEER
    /* both processes take part: the flag comes back */
    ARMCI_Barrier();
    memset(base[me], 0, 64);
    int fabric = strcmp(path_name, "shm") != 0;
    static const size_t notify_sizes[] = {8, 28672, 262144};
    for (int k = 0; k < (np == 2 && !agg_only ? 3 : 0); k++)
        for (int mode = 0; mode < 2; mode++) {
            size_t n = notify_sizes[k];
            double us =
                notify_pingpong(base, me, local, n, mode, fabric ? (n > 65536 ? 20 : 100) : 1000);
            if (me == 0)
                emit(mode ? "put_fence_flag" : "put_flag", n, us, "us");
        }
#endif
    ARMCI_Barrier();
    ARMCI_Free_local(local);
    ARMCI_Free(base[me]);
    free(base);
}

/* Median time of one memcpy of @p n bytes, over batches of @p iters copies. */
static double copy_seconds(char *dst, const char *src, size_t n, int iters)
{
    double t[BATCHES];
    for (int b = 0; b < BATCHES; b++) {
        double t0 = bench_now();
        for (int i = 0; i < iters; i++) {
            memcpy(dst, src, n);
            __asm__ volatile("" ::: "memory"); /* keep every copy */
        }
        t[b] = (bench_now() - t0) / iters;
    }
    return bench_median(t, BATCHES);
}

/* The floor of a same-node path: memcpy out of a peer's shared-memory segment. */
static void run_raw_shm(void)
{
    int me;
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &me);
    const size_t max = 4 << 20;
    char *mine, *peer;
    MPI_Win win;
    MPI_Win_allocate_shared((MPI_Aint)max, 1, MPI_INFO_NULL, node, &mine, &win);
    MPI_Aint sz;
    int du;
    MPI_Win_shared_query(win, 1, &sz, &du, &peer);
    memset(mine, 2, max);
    char *local = malloc(max);
    snprintf(path_name, sizeof(path_name), "raw-shm");
    MPI_Barrier(node);
    if (me == 0) {
        printf("# raw shared-memory copy (memcpy from the peer's segment), medians\n");
        printf("%-10s %10s %12s\n", "operation", "bytes", "value");
        for (size_t n = 8; n <= 1024; n *= 4)
            emit("copy", n, copy_seconds(local, peer, n, 10000) * 1e6, "us");
        for (size_t n = 1024; n <= max; n *= 4)
            emit("copy_bw", n, (double)n / copy_seconds(local, peer, n, 16) / 1e6, "MB/s");
    }
    MPI_Barrier(node);
    free(local);
    MPI_Win_free(&win);
    MPI_Comm_free(&node);
}

#ifndef BENCH_PEER
/* ---- the libfabric floor ---- */

#define OFI_CHECK(expr)                                                                            \
    do {                                                                                           \
        int rc_ = (int)(expr);                                                                     \
        if (rc_ != 0) {                                                                            \
            fprintf(stderr, "armci_bench: %s: %s\n", #expr, fi_strerror(-rc_));                    \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                          \
        }                                                                                          \
    } while (0)

static struct fid_ep *rep;
static struct fid_cq *rcq;

static void cq_wait_one(void)
{
    struct fi_cq_entry e;
    ssize_t n;
    while ((n = fi_cq_read(rcq, &e, 1)) == -FI_EAGAIN)
        ;
    if (n != 1) {
        fprintf(stderr, "armci_bench: fi_cq_read: %s\n", fi_strerror((int)-n));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* Post with retry on a full queue, then wait for its completion. */
#define RAW_OP(expr)                                                                               \
    do {                                                                                           \
        ssize_t rc_;                                                                               \
        while ((rc_ = (expr)) == -FI_EAGAIN)                                                       \
            fi_cq_read(rcq, NULL, 0);                                                              \
        OFI_CHECK(rc_);                                                                            \
    } while (0)

/* MPI's own bandwidth between the two processes, the transport under ARMCI-MPI and
 * ComEx: a window of 16 messages of @p n bytes from process 0, which process 1 acknowledges
 * with an empty one once all have arrived (as fi_write's completions tell process 0). */
static void run_raw_mpi(int me, char *buf, size_t max)
{
    MPI_Request r[16];
    for (size_t n = 1024; n <= max; n *= 4) {
        double t[BATCHES];
        for (int b = -1; b < BATCHES; b++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = bench_now();
            for (int i = 0; i < 16; i++) {
                if (me == 0)
                    MPI_Isend(buf + max, (int)n, MPI_BYTE, 1, i, MPI_COMM_WORLD, &r[i]);
                else if (me == 1)
                    MPI_Irecv(buf, (int)n, MPI_BYTE, 0, i, MPI_COMM_WORLD, &r[i]);
                else
                    r[i] = MPI_REQUEST_NULL;
            }
            MPI_Waitall(16, r, MPI_STATUSES_IGNORE);
            if (me == 0)
                MPI_Recv(NULL, 0, MPI_BYTE, 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            else if (me == 1)
                MPI_Send(NULL, 0, MPI_BYTE, 0, 99, MPI_COMM_WORLD);
            if (b >= 0)
                t[b] = (double)n * 16 / (bench_now() - t0) / 1e6;
        }
        if (me == 0)
            emit("mpi_bw", n, bench_median(t, BATCHES), "MB/s");
    }
}

static void run_raw_ofi(void)
{
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    struct fi_info *hints = fi_allocinfo(), *list, *info;
    hints->caps = FI_RMA;
    hints->ep_attr->type = FI_EP_RDM;
    hints->mode = FI_CONTEXT | FI_CONTEXT2;
    hints->domain_attr->mr_mode =
        FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    hints->domain_attr->data_progress = FI_PROGRESS_MANUAL;
    hints->tx_attr->op_flags = FI_DELIVERY_COMPLETE;
    OFI_CHECK(fi_getinfo(FI_VERSION(1, 10), NULL, NULL, 0, hints, &list));
    info = list; /* as the runtime does: the first one that is not `net` */
    while (info && strncmp(info->fabric_attr->prov_name, "net", 3) == 0 && info->next)
        info = info->next;
    struct fid_fabric *fab;
    struct fid_domain *dom;
    struct fid_av *av;
    struct fid_mr *mr;
    OFI_CHECK(fi_fabric(info->fabric_attr, &fab, NULL));
    OFI_CHECK(fi_domain(fab, info, &dom, NULL));
    struct fi_av_attr av_attr = {.type = FI_AV_TABLE};
    struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_CONTEXT, .wait_obj = FI_WAIT_NONE};
    OFI_CHECK(fi_av_open(dom, &av_attr, &av, NULL));
    OFI_CHECK(fi_cq_open(dom, &cq_attr, &rcq, NULL));
    OFI_CHECK(fi_endpoint(dom, info, &rep, NULL));
    OFI_CHECK(fi_ep_bind(rep, &av->fid, 0));
    OFI_CHECK(fi_ep_bind(rep, &rcq->fid, FI_TRANSMIT | FI_RECV));
    OFI_CHECK(fi_enable(rep));
    char name[256], names[2 * 256];
    size_t len = sizeof(name);
    OFI_CHECK(fi_getname(&rep->fid, name, &len));
    /* fi_av_insert takes the addresses packed; one provider, so one length. */
    MPI_Allgather(name, (int)len, MPI_BYTE, names, (int)len, MPI_BYTE, MPI_COMM_WORLD);
    fi_addr_t addr[2];
    if (fi_av_insert(av, names, 2, addr, 0, NULL) != 2)
        MPI_Abort(MPI_COMM_WORLD, 1);

    const size_t max = 4 << 20;
    char *buf = NULL;
    if (posix_memalign((void **)&buf, 4096, 2 * max) != 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    memset(buf, 3, 2 * max);
    OFI_CHECK(fi_mr_reg(dom, buf, 2 * max, FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE, 0,
                        1, 0, &mr, NULL));
    if (info->domain_attr->mr_mode & FI_MR_ENDPOINT) {
        OFI_CHECK(fi_mr_bind(mr, &rep->fid, 0));
        OFI_CHECK(fi_mr_enable(mr));
    }
    uint64_t mine[2] = {fi_mr_key(mr), (info->domain_attr->mr_mode & FI_MR_VIRT_ADDR)
                                           ? (uint64_t)(uintptr_t)buf
                                           : 0};
    uint64_t all[2][2];
    MPI_Allgather(mine, 2, MPI_UINT64_T, all, 2, MPI_UINT64_T, MPI_COMM_WORLD);
    void *desc = fi_mr_desc(mr);
    char *local = buf + max; /* the second half: the local side */
    snprintf(path_name, sizeof(path_name), "raw-%s", info->fabric_attr->prov_name);

    if (me == 0) {
        uint64_t key = all[1][0], raddr = all[1][1];
        struct fi_context2 ctx[16];
        printf("# raw libfabric (%s), fi_read/fi_write 0 -> 1, medians of %d batches\n",
               info->fabric_attr->prov_name, BATCHES);
        printf("%-10s %10s %12s\n", "operation", "bytes", "value");
        for (int op = 0; op < 2; op++) {
            for (size_t n = 8; n <= 1024; n *= 4) {
                double t[BATCHES];
                for (int b = -1; b < BATCHES; b++) {
                    double t0 = bench_now();
                    for (int i = 0; i < 200; i++) {
                        if (op == 0)
                            RAW_OP(fi_read(rep, local, n, desc, addr[1], raddr, key, &ctx[0]));
                        else
                            RAW_OP(fi_write(rep, local, n, desc, addr[1], raddr, key, &ctx[0]));
                        cq_wait_one();
                    }
                    if (b >= 0)
                        t[b] = (bench_now() - t0) / 200 * 1e6;
                }
                emit(op == 0 ? "fi_read" : "fi_write", n, bench_median(t, BATCHES), "us");
            }
        }
        for (int op = 0; op < 2; op++) {
            for (size_t n = 1024; n <= max; n *= 4) {
                double t[BATCHES];
                for (int b = -1; b < BATCHES; b++) {
                    double t0 = bench_now();
                    for (int i = 0; i < 16; i++) {
                        if (op == 0)
                            RAW_OP(fi_read(rep, local, n, desc, addr[1], raddr, key, &ctx[i]));
                        else
                            RAW_OP(fi_write(rep, local, n, desc, addr[1], raddr, key, &ctx[i]));
                    }
                    for (int i = 0; i < 16; i++)
                        cq_wait_one();
                    if (b >= 0)
                        t[b] = (double)n * 16 / (bench_now() - t0) / 1e6;
                }
                emit(op == 0 ? "read_bw" : "write_bw", n, bench_median(t, BATCHES), "MB/s");
            }
        }
    }
    /* The target makes progress until the measuring process is done. */
    MPI_Request done;
    int flag = 0;
    MPI_Ibarrier(MPI_COMM_WORLD, &done);
    while (!flag) {
        fi_cq_read(rcq, NULL, 0);
        MPI_Test(&done, &flag, MPI_STATUS_IGNORE);
    }
    run_raw_mpi(me, buf, max);
    fi_close(&rep->fid);
    fi_close(&mr->fid);
    fi_close(&rcq->fid);
    fi_close(&av->fid);
    fi_close(&dom->fid);
    fi_close(&fab->fid);
    fi_freeinfo(list);
    fi_freeinfo(hints);
    free(buf);
}
#endif

int main(int argc, char **argv)
{
    int raw_shm = 0, raw_ofi = 0, overlap_only = 0, agg_only = 0;
    MPI_Init(&argc, &argv);
    world = MPI_COMM_WORLD;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc)
            csv = fopen(argv[++i], "a");
        else if (strcmp(argv[i], "--raw-shm") == 0)
            raw_shm = 1;
        else if (strcmp(argv[i], "--raw-ofi") == 0)
            raw_ofi = 1;
        else if (strcmp(argv[i], "--overlap") == 0)
            overlap_only = 1;
        else if (strcmp(argv[i], "--agg") == 0)
            agg_only = 1;
    }
    int np;
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np < 2) {
        fprintf(stderr, "armci_bench: run with at least 2 processes\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (raw_shm) {
        run_raw_shm();
    } else if (raw_ofi) {
#ifndef BENCH_PEER
        run_raw_ofi();
#endif
    } else {
        ARMCI_Init();
#ifdef BENCH_COMEX
        world = ARMCI_COMM_WORLD;
#endif
        if (overlap_only)
            run_overlap_breakdown();
        else
            run_armci(agg_only);
        ARMCI_Finalize();
    }
    if (csv)
        fclose(csv);
    MPI_Finalize();
    return 0;
}
