/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Placement of arriving data (ARMCI_PLACEMENT, src/base/place.c), same node, 2 processes:
 *  (a) consumer: process 0 puts S bytes into process 1's block, fences and sets a flag;
 *      process 1, seeing the flag, sums the bytes: "read" is the time of that sum;
 *  (b) origin: process 0 keeps a working set the size of one core's L2 (1 MiB) and reads
 *      it through between puts of S bytes: "put" is the put, "ws" the next read of the
 *      working set (what the put pushed out of the cache it pays for).
 * S from 4 KiB to 64 MiB; medians of the samples. Run once per ARMCI_PLACEMENT setting
 * (make place-bench alternates them); with @p csv, rows are appended there too.
 *   place_bench [samples] [label] [csv]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#include <armci.h>
#include "bench.h"
#include <armcix.h>

#define WS_BYTES (1l << 20)
#define MAX_SIZE (64l << 20)

static volatile double sink;

/* A read bound by where the bytes are, not by the adds: eight independent sums. */
static double sum_bytes(const void *v, long n)
{
    const uint64_t *p = v;
    uint64_t s[8] = {0};
    long i = 0;
    for (; i + 8 <= n; i += 8)
        for (int k = 0; k < 8; k++)
            s[k] += p[i + k];
    for (; i < n; i++)
        s[0] += p[i];
    uint64_t t = 0;
    for (int k = 0; k < 8; k++)
        t += s[k];
    return (double)t;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int samples = argc > 1 ? atoi(argv[1]) : 11;
    const char *label = argc > 2 ? argv[2] : "-";
    FILE *csv = me == 0 && argc > 3 ? fopen(argv[3], "a") : NULL;
    if (np != 2 || samples < 1) {
        if (me == 0)
            fprintf(stderr, "place_bench: 2 processes and a positive sample count\n");
        ARMCI_Finalize();
        MPI_Finalize();
        return 2;
    }
    void *blk[2], *flg[2];
    ARMCI_Malloc(blk, MAX_SIZE);
    ARMCI_Malloc(flg, 64);
    *(volatile int *)flg[me] = 0;
    double *src = malloc(MAX_SIZE), *ws = malloc(WS_BYTES);
    for (long i = 0; i < MAX_SIZE / 8; i++)
        src[i] = (double)(i % 1000);
    for (long i = 0; i < WS_BYTES / 8; i++)
        ws[i] = 1.0;
    double *tr = malloc((size_t)samples * sizeof(double)), *tp = malloc((size_t)samples * 8),
           *tw = malloc((size_t)samples * sizeof(double));
    if (me == 0)
        printf("%-8s %10s %10s %10s %10s\n", "label", "bytes", "read_us", "put_us", "ws_us");
    ARMCI_Barrier();
    for (long size = 4096; size <= MAX_SIZE; size *= size < (1l << 20) ? 4 : 2) {
        long n = size / 8;
        /* (a) the consumer reads what arrived */
        for (int s = 0; s < samples; s++) {
            if (me == 0) {
                ARMCI_Put(src, blk[1], (int)size, 1);
                ARMCI_Fence(1);
                int one = 1;
                ARMCI_Put(&one, flg[1], sizeof(int), 1);
                ARMCI_Fence(1);
            } else {
                while (*(volatile int *)flg[1] == 0)
                    ARMCIX_Progress();
                double t0 = bench_now();
                sink += sum_bytes(blk[1], n);
                tr[s] = bench_now() - t0;
                *(volatile int *)flg[1] = 0;
            }
            ARMCI_Barrier();
        }
        /* (b) the origin's working set between puts */
        if (me == 0) {
            sink += sum_bytes(ws, WS_BYTES / 8);
            for (int s = 0; s < samples; s++) {
                double t0 = bench_now();
                ARMCI_Put(src, blk[1], (int)size, 1);
                double t1 = bench_now();
                sink += sum_bytes(ws, WS_BYTES / 8);
                tp[s] = t1 - t0;
                tw[s] = bench_now() - t1;
            }
        }
        ARMCI_Barrier();
        double read_us = 0;
        if (me == 1) {
            read_us = 1e6 * bench_median(tr, samples);
            MPI_Send(&read_us, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
        } else {
            MPI_Recv(&read_us, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            printf("%-8s %10ld %10.1f %10.1f %10.1f\n", label, size, read_us,
                   1e6 * bench_median(tp, samples), 1e6 * bench_median(tw, samples));
            fflush(stdout);
            if (csv)
                fprintf(csv, "%s,%ld,%.2f,%.2f,%.2f\n", label, size, read_us,
                        1e6 * bench_median(tp, samples), 1e6 * bench_median(tw, samples));
        }
    }
    if (csv)
        fclose(csv);
    free(src);
    free(ws);
    free(tr);
    free(tp);
    free(tw);
    ARMCI_Free(flg[me]);
    ARMCI_Free(blk[me]);
    ARMCI_Finalize();
    MPI_Finalize();
    return 0;
}
