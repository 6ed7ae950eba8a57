/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The get cache's hit and miss costs. Process 0 gets from process 1 (run it with
 * ARMCI_SHM=0 so the gets cross libfabric) and times, per size:
 *   off     cache off, a new address every get
 *   miss    cache on (always mode), a new address every get: 0% hits, every get is looked
 *           up, fetched into the runtime's record and inserted
 *   hit     cache on, the same address every get
 *   memcpy  a local copy of the same size, for scale
 * Each figure is the median over 7 batches. Other processes wait at the final barrier.
 *
 *   cache_bench [iterations_per_batch] [csv_file]     (default 400)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <armci.h>
#include <armcix.h>

#define BATCHES 7
#define REGION  (8 << 20)

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Time per get, in microseconds, over one batch walking [remote, remote+span) by @p stride
 * (0: the same address every time) from *off_p. */
static double batch(char *remote, size_t span, char *buf, int size, int iters, size_t stride,
                    size_t *off_p, int proc)
{
    size_t off = *off_p;
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        ARMCI_Get(remote + off, buf, size, proc);
        off += stride;
        if (off + (size_t)size > span)
            off = 0;
    }
    *off_p = off;
    return (MPI_Wtime() - t0) / iters * 1e6;
}

static double median(double *t)
{
    qsort(t, BATCHES, sizeof(double), cmp_double);
    return t[BATCHES / 2];
}

static double time_memcpy(char *src, char *buf, int size, int iters)
{
    double t[BATCHES];
    for (int b = 0; b < BATCHES; b++) {
        double t0 = MPI_Wtime();
        for (int i = 0; i < iters * 100; i++) {
            memcpy(buf, src + (size_t)(i % 64) * 1024, (size_t)size);
            __asm__ volatile("" ::: "memory");
        }
        t[b] = (MPI_Wtime() - t0) / (iters * 100) * 1e6;
    }
    qsort(t, BATCHES, sizeof(double), cmp_double);
    return t[BATCHES / 2];
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int iters = argc > 1 ? atoi(argv[1]) : 400;
    const char *csv = argc > 2 ? argv[2] : NULL;
    void **base = malloc((size_t)np * sizeof(void *));
    ARMCI_Malloc(base, REGION);
    memset(base[me], me + 1, REGION);
    ARMCI_Barrier();
    if (np < 2) {
        if (me == 0)
            fprintf(stderr, "cache_bench: needs 2 processes\n");
        ARMCI_Finalize();
        MPI_Finalize();
        return 1;
    }
    if (me == 0) {
        static char buf[1 << 16];
        char *remote = base[1];
        const char *path = ARMCIX_Path_of(1) == ARMCIX_PATH_FABRIC ? ARMCIX_Provider_name()
                                                                   : "same node (no caching)";
        FILE *out = csv ? fopen(csv, "w") : NULL;
        if (out)
            fprintf(out, "size,off_us,miss_us,hit_us,memcpy_us,miss_overhead_pct,miss_over_hit\n");
        printf("get cache: process 0 gets from process 1 over %s, median of %d batches of %d\n",
               path, BATCHES, iters);
        printf("%8s %10s %10s %9s %10s %10s %10s\n", "bytes", "off us", "miss us", "miss/off",
               "hit us", "memcpy us", "miss/hit");
        int sizes[] = {8, 1024};
        for (int k = 0; k < 2; k++) {
            int size = sizes[k];
            size_t stride = (size_t)size < 64 ? 64 : (size_t)size; /* a new address each time */
            /* Off and miss batches alternate, so drifts of the machine hit both alike.
             * The miss batches read the upper half of the region, every address once. */
            size_t off_at = 0, miss_at = 0;
            double t_off[BATCHES], t_miss[BATCHES];
            armcix_cache_stats_t st;
            long unexpected = 0;
            ARMCIX_Cache_set_mode(base[me], ARMCIX_CACHE_OFF);
            batch(remote, REGION / 2, buf, size, iters / 4, stride, &off_at, 1); /* warm up */
            for (int b = 0; b < BATCHES; b++) {
                ARMCIX_Cache_set_mode(base[me], ARMCIX_CACHE_OFF);
                t_off[b] = batch(remote, REGION / 2, buf, size, iters, stride, &off_at, 1);
                ARMCIX_Cache_set_mode(base[me], ARMCIX_CACHE_ALWAYS);
                ARMCIX_Cache_reset_stats();
                t_miss[b] =
                    batch(remote + REGION / 2, REGION / 2, buf, size, iters, stride, &miss_at, 1);
                ARMCIX_Cache_get_stats(&st);
                unexpected += st.hits;
            }
            double off = median(t_off), miss = median(t_miss);
            if (unexpected)
                fprintf(stderr, "cache_bench: %ld unexpected hits in the miss runs\n", unexpected);
            ARMCIX_Cache_invalidate(NULL);
            ARMCI_Get(remote, buf, size, 1);
            ARMCIX_Cache_reset_stats();
            double t_hit[BATCHES];
            size_t hit_at = 0;
            for (int b = 0; b < BATCHES; b++)
                t_hit[b] = batch(remote, REGION, buf, size, iters * 10, 0, &hit_at, 1);
            double hit = median(t_hit);
            ARMCIX_Cache_get_stats(&st);
            if (st.misses != 0)
                fprintf(stderr, "cache_bench: %ld unexpected misses in the hit run\n", st.misses);
            double mc = time_memcpy(base[me], buf, size, iters);
            printf("%8d %10.2f %10.2f %8.1f%% %10.3f %10.4f %9.0fx\n", size, off, miss,
                   100.0 * (miss - off) / off, hit, mc, miss / hit);
            if (out)
                fprintf(out, "%d,%.3f,%.3f,%.4f,%.5f,%.2f,%.1f\n", size, off, miss, hit, mc,
                        100.0 * (miss - off) / off, miss / hit);
        }
        if (out)
            fclose(out);
        ARMCIX_Cache_set_mode(NULL, ARMCIX_CACHE_OFF);
    }
    ARMCI_Barrier();
    ARMCI_Free(base[me]);
    free(base);
    ARMCI_Finalize();
    MPI_Finalize();
    return 0;
}
