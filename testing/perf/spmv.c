/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Distributed sparse matrix-vector product y = A x, the kind of code aggregate handles are
 * for. A (CSR, generated here) and x are distributed by blocks of rows; each multiply
 * fetches the remote x entries its columns need, either with one ARMCI_Get each or with
 * one aggregate handle per owning process (or one ARMCI_GetV per owner, for reference),
 * then computes. The result is checked against a product computed by one process.
 *
 *   spmv [rows_per_process]     (default 4000)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <armci.h>

static double now(void)
{
    return MPI_Wtime();
}

static unsigned long hash(unsigned long x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdUL;
    x ^= x >> 33;
    return x;
}

/* Row i: the diagonal, two neighbours each side, and four columns anywhere. */
#define NNZ 9
static void row_of(long i, long n, long *cols, double *vals)
{
    long k = 0;
    for (long d = -2; d <= 2; d++)
        cols[k++] = (i + d + n) % n;
    for (int r = 0; r < 4; r++)
        cols[k++] = (long)(hash((unsigned long)i * 4 + r) % (unsigned long)n);
    for (k = 0; k < NNZ; k++)
        vals[k] = k == 2 ? 4.0 : -0.5 + 0.01 * (double)(cols[k] % 7);
}

static double x_of(long j)
{
    return sin(0.001 * (double)j) + 1.0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    long per = argc > 1 ? atol(argv[1]) : 4000, n = per * np, lo = per * me;
    void **xb = malloc((size_t)np * sizeof(void *));
    ARMCI_Malloc(xb, (armci_size_t)(per * sizeof(double)));
    double *x = xb[me];
    for (long j = 0; j < per; j++)
        x[j] = x_of(lo + j);

    /* My rows, and the remote columns they need: unique, grouped by owner. */
    long *cols = malloc((size_t)per * NNZ * sizeof(long));
    double *vals = malloc((size_t)per * NNZ * sizeof(double));
    for (long i = 0; i < per; i++)
        row_of(lo + i, n, cols + i * NNZ, vals + i * NNZ);
    long *slot = malloc((size_t)n * sizeof(long)); /* where remote column j lands locally */
    for (long j = 0; j < n; j++)
        slot[j] = -1;
    long nremote = 0;
    long *rcol = malloc((size_t)per * NNZ * sizeof(long));
    for (int p = 0; p < np; p++)
        for (long k = 0; k < per * NNZ; k++) {
            long j = cols[k];
            if (j / per == p && p != me && slot[j] < 0) {
                slot[j] = nremote;
                rcol[nremote++] = j;
            }
        }
    double *xr = malloc((size_t)(nremote + 1) * sizeof(double)), *y = malloc(per * sizeof(double));
    void **srcs = malloc((size_t)(nremote + 1) * sizeof(void *)),
         **dsts = malloc((size_t)(nremote + 1) * sizeof(void *));
    for (long k = 0; k < nremote; k++) {
        long j = rcol[k];
        srcs[k] = (double *)xb[j / per] + j % per;
        dsts[k] = &xr[k];
    }
    ARMCI_Barrier();

    static const char *names[3] = {"individual gets", "aggregate handles", "one GetV per owner"};
    double best[3];
    int bad = 0;
    for (int mode = 0; mode < 3; mode++) {
        best[mode] = 1e30;
        for (int rep = 0; rep < 3; rep++) {
            memset(xr, 0, (size_t)nremote * sizeof(double));
            ARMCI_Barrier();
            double t0 = now();
            long k = 0;
            for (int p = 0; p < np; p++) {
                long first = k;
                while (k < nremote && rcol[k] / per == p)
                    k++;
                if (k == first)
                    continue;
                if (mode == 0) {
                    for (long q = first; q < k; q++)
                        ARMCI_Get(srcs[q], dsts[q], sizeof(double), p);
                } else if (mode == 1) {
                    armci_hdl_t h;
                    ARMCI_INIT_HANDLE(&h);
                    ARMCI_SET_AGGREGATE_HANDLE(&h);
                    for (long q = first; q < k; q++)
                        ARMCI_NbGet(srcs[q], dsts[q], sizeof(double), p, &h);
                    ARMCI_Wait(&h);
                } else {
                    armci_giov_t v = {srcs + first, dsts + first, sizeof(double), (int)(k - first)};
                    ARMCI_GetV(&v, 1, p);
                }
            }
            for (long i = 0; i < per; i++) {
                double s = 0;
                for (int q = 0; q < NNZ; q++) {
                    long j = cols[i * NNZ + q];
                    double xj = j / per == me ? x[j % per] : xr[slot[j]];
                    s += vals[i * NNZ + q] * xj;
                }
                y[i] = s;
            }
            double t = now() - t0;
            MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            if (t < best[mode])
                best[mode] = t;
            /* check against the product computed from the definition */
            for (long i = 0; i < per; i += 97) {
                long c[NNZ];
                double v[NNZ], s = 0;
                row_of(lo + i, n, c, v);
                for (int q = 0; q < NNZ; q++)
                    s += v[q] * x_of(c[q]);
                bad += fabs(s - y[i]) > 1e-12 * (1 + fabs(s));
            }
        }
    }
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    long total_remote = nremote;
    MPI_Allreduce(MPI_IN_PLACE, &total_remote, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) {
        printf("# spmv: %ld rows, %d nonzeros per row, %d processes, %ld remote entries fetched "
               "per multiply (all processes), results %s\n",
               n, NNZ, np, total_remote, bad ? "WRONG" : "verified");
        for (int mode = 0; mode < 3; mode++)
            printf("spmv %-20s %10.1f us per multiply  (%.1fx vs individual gets)\n", names[mode],
                   best[mode] * 1e6, best[0] / best[mode]);
    }
    ARMCI_Barrier();
    ARMCI_Free(xb[me]);
    ARMCI_Finalize();
    MPI_Finalize();
    return bad != 0;
}
