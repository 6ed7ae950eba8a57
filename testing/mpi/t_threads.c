/* SPDX-License-Identifier: BSD-3-Clause */
/* Thread safety: after ARMCI_Init_thread(MPI_THREAD_MULTIPLE), four threads per process
 * issue puts, gets, accumulates and fetch-and-adds at once, alongside the progress thread.
 * Data round-trips exactly, and the shared counters come out exact with every fetched
 * value distinct.
 *   t_threads [ITERS]   (operations of each kind per thread; default 300) */
#include <pthread.h>
#include <string.h>

#include "tester.h"

#define THREADS 4
#define SLOT    512 /* longs per (process, thread) slot */

static void **base;
static int iters = 300;
static int errors[THREADS];
static int *fetched[THREADS];

static void *worker(void *arg)
{
    int t = (int)(long)arg;
    unsigned long rng = 0x1234567UL + (unsigned long)(t_me * THREADS + t) * 977;
    long *src = malloc(SLOT * sizeof(long)), *dst = malloc(SLOT * sizeof(long));
    fetched[t] = malloc(iters * sizeof(int));
    int one = 1;
    for (int i = 0; i < iters; i++) {
        int p = (int)(t_rand(&rng) % (unsigned)t_np);
        int n = 1 + (int)(t_rand(&rng) % SLOT);
        long *slot = (long *)base[p] + 2 + (size_t)(t_me * THREADS + t) * SLOT;
        for (int k = 0; k < n; k++)
            src[k] = (long)i * 100000 + k + t;
        armci_hdl_t h;
        ARMCI_NbPut(src, slot, n * (int)sizeof(long), p, &h);
        ARMCI_Wait(&h);
        ARMCI_Get(slot, dst, n * (int)sizeof(long), p);
        errors[t] += memcmp(src, dst, (size_t)n * sizeof(long)) != 0;
        /* The same slot read back as rows of a 2-D patch with a nonblocking strided get on
         * the thread's own handle, as GA's NGA_Get does underneath (global/src/onesided.c,
         * ARMCI_NbGetS; GA's global/testing/thread_perf_strided.c reads patches from
         * OpenMP threads this way). */
        if (n >= 8) {
            int rows = n / 8, cols = 4; /* the first 4 longs of each 8 */
            int rstride[1] = {8 * (int)sizeof(long)}, lstride[1] = {cols * (int)sizeof(long)};
            int count[2] = {cols * (int)sizeof(long), rows};
            memset(dst, 0xff, (size_t)n * sizeof(long));
            armci_hdl_t hs;
            ARMCI_INIT_HANDLE(&hs);
            ARMCI_NbGetS(slot, rstride, dst, lstride, count, 1, p, &hs);
            ARMCI_Wait(&hs);
            int wrong = 0;
            for (int r = 0; r < rows; r++)
                for (int c = 0; c < cols; c++)
                    wrong += dst[r * cols + c] != src[r * 8 + c];
            errors[t] += wrong != 0;
        }
        ARMCI_Acc(ARMCI_ACC_INT, &one, &one, base[0], sizeof(int), 0);
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &fetched[t][i], (char *)base[t_np - 1] + 4, 1, t_np - 1);
    }
    free(src);
    free(dst);
    return NULL;
}

/* One handle waited for by two threads at once, and by each again: legal, as a wait on a
 * completed handle returns at once (armci.h; GA's global/testing/thread_perf_contig.c
 * waits on its handles a second time). The first thread issues a get of the next
 * process's pattern on the shared handle; after the wait each thread, the other one
 * included, must find all of it here. */
#define SHARED_LONGS 4096
static armci_hdl_t shared_hdl;
static long shared_buf[SHARED_LONGS];
static pthread_barrier_t issued;
static int shared_bad[2];

static void *shared_waiter(void *arg)
{
    int t = (int)(long)arg, next = (t_me + 1) % t_np;
    if (t == 0) {
        ARMCI_INIT_HANDLE(&shared_hdl);
        ARMCI_NbGet((long *)base[next] + 2 + (size_t)t_np * THREADS * SLOT, shared_buf,
                    (int)sizeof(shared_buf), next, &shared_hdl);
    }
    pthread_barrier_wait(&issued);
    ARMCI_Wait(&shared_hdl);
    for (int k = 0; k < SHARED_LONGS; k++)
        shared_bad[t] += shared_buf[k] != (long)next * 1000003 + k;
    ARMCI_Wait(&shared_hdl); /* a second time: returns at once */
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    ARMCI_Init_thread(MPI_THREAD_MULTIPLE);
    MPI_Comm_rank(MPI_COMM_WORLD, &t_me);
    MPI_Comm_size(MPI_COMM_WORLD, &t_np);
    if (argc > 1)
        iters = atoi(argv[1]);
    CHECK(provided == MPI_THREAD_MULTIPLE, "MPI gave thread level %d", provided);
    base = malloc((size_t)t_np * sizeof(void *));
    ARMCI_Malloc(base,
                 (armci_size_t)((2 + (size_t)t_np * THREADS * SLOT + SHARED_LONGS) * sizeof(long)));
    memset(base[t_me], 0, 2 * sizeof(long));
    long *pattern = (long *)base[t_me] + 2 + (size_t)t_np * THREADS * SLOT;
    for (int k = 0; k < SHARED_LONGS; k++)
        pattern[k] = (long)t_me * 1000003 + k;
    ARMCI_Barrier();
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, worker, (void *)(long)t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    pthread_barrier_init(&issued, NULL, 2);
    for (int t = 0; t < 2; t++)
        pthread_create(&th[t], NULL, shared_waiter, (void *)(long)t);
    for (int t = 0; t < 2; t++)
        pthread_join(th[t], NULL);
    pthread_barrier_destroy(&issued);
    CHECK(shared_bad[0] == 0 && shared_bad[1] == 0,
          "after two threads waited on one handle, %d and %d longs differ", shared_bad[0],
          shared_bad[1]);
    ARMCI_Barrier();
    int bad = 0;
    for (int t = 0; t < THREADS; t++)
        bad += errors[t];
    CHECK(bad == 0, "%d put/get round trips (contiguous or strided) differed", bad);
    int total = THREADS * iters * t_np;
    if (t_me == 0)
        CHECK(*(int *)base[0] == total, "accumulated counter %d, expected %d", *(int *)base[0],
              total);
    int *mine = malloc(THREADS * iters * sizeof(int));
    for (int t = 0; t < THREADS; t++)
        memcpy(mine + t * iters, fetched[t], iters * sizeof(int));
    int *all = malloc((size_t)total * sizeof(int));
    MPI_Allgather(mine, THREADS * iters, MPI_INT, all, THREADS * iters, MPI_INT, MPI_COMM_WORLD);
    char *seen = calloc((size_t)total, 1);
    int dup = 0;
    for (int i = 0; i < total; i++)
        dup += all[i] < 0 || all[i] >= total || seen[all[i]]++;
    CHECK(dup == 0, "%d fetch-and-add values duplicated or out of range", dup);
    ARMCI_Barrier();
    ARMCI_Free(base[t_me]);
    free(base);
    free(mine);
    free(all);
    free(seen);
    return t_finish("t_threads");
}
