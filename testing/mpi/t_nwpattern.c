/* SPDX-License-Identifier: BSD-3-Clause */
/* The ARMCI calls NWChem's DFT makes through Global Arrays, in the mix and order it makes
 * them, each result checked against values the test computes itself. Counted with ltrace
 * on NWChem 7.2.3's QA test dft_he2+ at 2 processes (testing/apps/nwchem.sh): per process
 * 45 000 armci_msg_barrier and ARMCI_AllFence, 31 000 ARMCI_NbGetS each waited on at once
 * (GA's nga_get), 12 000 ARMCI_PutS, 9 500 ARMCI_AccS of doubles, 12 000 armci_msg_lgop
 * with 1-10 elements and 5 000 armci_msg_dgop, 18 000 armci_msg_bcast from process 0 of 4
 * to 800 bytes, 1 800 ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG) on one counter (NWChem's nxtval,
 * its dynamic load balancing), and 3 400 ARMCI_Malloc/ARMCI_Free of 0 to 2712 bytes
 * (GA's temporary arrays: created and destroyed in every step, most of 8 bytes) beside
 * 2 100 ARMCI_Malloc_local. Here: several steps, each allocating temporaries, then
 * processes claiming tasks from the shared counter until it runs out; a task reads a
 * patch of a distributed matrix, checks it and accumulates a function of it into another
 * distributed matrix; then fences, reductions and broadcasts, and the temporaries freed
 * in an order other than that of their allocation. */
#include <stdlib.h>
#include <string.h>

#include "tester.h"

enum { ROWS = 12, COLS = 10, STEPS = 4 };

/* The source matrix: row r (global), column c. */
static double source(int r, int c)
{
    return r * 1000.0 + c;
}

/* Task i's patch: 2 rows x 3 columns of the rows of process owner(i). */
static void task_patch(int i, int np, int *owner_p, int *row_p, int *col_p, int *dest_p)
{
    *owner_p = i % np;
    *row_p = (i / np) % (ROWS - 1);
    *col_p = (i * 3) % (COLS - 2);
    *dest_p = (i * 7 + 1) % np;
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    const int np = t_np, ntasks = 9 * np + 5;
    const int ld = COLS * (int)sizeof(double);
    void **a = malloc((size_t)np * sizeof(void *)), **b = malloc((size_t)np * sizeof(void *));
    void **counter = malloc((size_t)np * sizeof(void *));
    ARMCI_Malloc(a, ROWS * COLS * sizeof(double));
    ARMCI_Malloc(b, ROWS * COLS * sizeof(double));
    ARMCI_Malloc(counter, t_me == 0 ? sizeof(long) : 0); /* GA's 1-element counter array */
    double *mine = a[t_me], *acc = b[t_me];
    for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < COLS; c++) {
            mine[r * COLS + c] = source(t_me * ROWS + r, c);
            acc[r * COLS + c] = 0.0;
        }
    ARMCI_Barrier();

    /* What b must hold after all steps: every task replayed here, whoever claimed it. */
    double *want = calloc(ROWS * COLS, sizeof(double));
    for (int s = 0; s < STEPS; s++)
        for (int i = 0; i < ntasks; i++) {
            int o, r0, c0, d;
            task_patch(i, np, &o, &r0, &c0, &d);
            if (d != t_me)
                continue;
            for (int r = 0; r < 2; r++)
                for (int c = 0; c < 3; c++)
                    want[(r0 + r) * COLS + c0 + c] += 0.5 * source(o * ROWS + r0 + r, c0 + c) + s;
        }

    /* temporaries of GA's sizes; 0 bytes on odd processes for one of them */
    const armci_size_t sizes[] = {8, 408, 808, 2712, 16, 8};
    enum { NTMP = sizeof(sizes) / sizeof(sizes[0]) };
    void **tmp[NTMP];
    for (int k = 0; k < NTMP; k++)
        tmp[k] = malloc((size_t)np * sizeof(void *));

    int bad_get = 0, bad_tmp = 0, claimed = 0;
    long idsum = 0;
    for (int s = 0; s < STEPS; s++) {
        for (int k = 0; k < NTMP; k++) {
            armci_size_t sz = k == 2 && t_me % 2 ? 0 : sizes[k];
            ARMCI_Malloc(tmp[k], sz);
            if (sz)
                memset(tmp[k][t_me], 0x40 + k, sz);
        }
        void *scratch = ARMCI_Malloc_local(4096);
        if (t_me == 0) {
            long zero = 0;
            ARMCI_Put(&zero, counter[0], sizeof(zero), 0);
        }
        ARMCI_Barrier();

        /* nxtval: claim tasks until the counter passes the last */
        for (;;) {
            long next;
            ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &next, counter[0], 1, 0);
            if (next >= ntasks)
                break;
            int i = (int)next, o, r0, c0, d;
            task_patch(i, np, &o, &r0, &c0, &d);
            claimed++;
            idsum += i;
            double patch[2][3];
            int sstride[1] = {ld}, dstride[1] = {3 * (int)sizeof(double)};
            int count[2] = {3 * (int)sizeof(double), 2};
            armci_hdl_t h;
            ARMCI_INIT_HANDLE(&h);
            ARMCI_NbGetS((double *)a[o] + r0 * COLS + c0, sstride, patch, dstride, count, 1, o, &h);
            ARMCI_Wait(&h);
            for (int r = 0; r < 2; r++)
                for (int c = 0; c < 3; c++) {
                    bad_get += patch[r][c] != source(o * ROWS + r0 + r, c0 + c);
                    patch[r][c] = patch[r][c] + 2.0 * s;
                }
            double half = 0.5;
            /* 0.5 * (x + 2s) = 0.5x + s, the contribution replayed above */
            ARMCI_AccS(ARMCI_ACC_DBL, &half, patch, dstride, (double *)b[d] + r0 * COLS + c0,
                       sstride, count, 1, d);
            /* and a put into a temporary of the owner, as GA's scratch arrays take */
            ARMCI_PutS(patch, dstride, tmp[3][o], dstride, count, 1, o);
        }
        ARMCI_AllFence();
        armci_msg_barrier();

        /* the temporaries kept what their owners wrote, but the one overwritten by puts */
        for (int k = 0; k < NTMP; k++) {
            armci_size_t sz = k == 2 && t_me % 2 ? 0 : sizes[k];
            for (armci_size_t j = 0; k != 3 && j < sz; j++)
                bad_tmp += ((unsigned char *)tmp[k][t_me])[j] != 0x40 + k;
        }
        /* a broadcast of 4 and 8 bytes from process 0, as NWChem's most frequent */
        int i4 = t_me == 0 ? 1000 + s : -1;
        long i8 = t_me == 0 ? 2000 + s : -1;
        armci_msg_bcast(&i4, sizeof(i4), 0);
        armci_msg_bcast(&i8, sizeof(i8), 0);
        CHECK(i4 == 1000 + s && i8 == 2000 + s, "step %d: broadcasts gave %d, %ld", s, i4, i8);

        ARMCI_Free_local(scratch);
        /* freed in another order than allocated: odd ones first, then even ones backwards */
        for (int k = 1; k < NTMP; k += 2)
            ARMCI_Free(tmp[k][t_me]);
        for (int k = (NTMP - 1) / 2 * 2; k >= 0; k -= 2)
            ARMCI_Free(tmp[k][t_me]);
    }

    /* every task claimed exactly once per step: counts and sums of ids, reduced as NWChem
     * does (operators from Fortran, blank padded) */
    long tally[2] = {claimed, idsum};
    char plus[8];
    memcpy(plus, "+       ", 8);
    armci_msg_lgop(tally, 2, plus);
    long wsum = (long)STEPS * ntasks * (ntasks - 1) / 2;
    CHECK(tally[0] == (long)STEPS * ntasks && tally[1] == wsum,
          "tasks claimed %ld times (expected %d), ids summing to %ld (expected %ld)", tally[0],
          STEPS * ntasks, tally[1], wsum);
    long mine_claimed = claimed, most = claimed, most_mpi;
    char max[8];
    memcpy(max, "max     ", 8);
    armci_msg_gop_scope(SCOPE_ALL, &most, 1, max, ARMCI_LONG);
    MPI_Allreduce(&mine_claimed, &most_mpi, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    CHECK(most == most_mpi, "armci_msg_gop_scope's max of claims is %ld, MPI's %ld", most,
          most_mpi);

    int bad_acc = 0;
    for (int j = 0; j < ROWS * COLS; j++)
        bad_acc += acc[j] != want[j];
    double total = 0, wtotal = 0;
    for (int j = 0; j < ROWS * COLS; j++) {
        total += acc[j];
        wtotal += want[j];
    }
    double sums[2] = {total, wtotal}, sums_mpi[2];
    MPI_Allreduce(sums, sums_mpi, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    armci_msg_dgop(sums, 2, plus);
    CHECK(bad_get == 0, "%d patch elements read wrong", bad_get);
    CHECK(bad_tmp == 0, "%d bytes of temporaries changed", bad_tmp);
    CHECK(bad_acc == 0, "%d accumulated elements differ from the replay", bad_acc);
    /* the sums are of whole numbers, exact in any order */
    CHECK(sums[0] == sums_mpi[0] && sums[1] == sums_mpi[1],
          "armci_msg_dgop's sums of the accumulated and replayed totals are %g and %g, MPI's %g "
          "and %g",
          sums[0], sums[1], sums_mpi[0], sums_mpi[1]);
    CHECK(sums[0] == sums[1], "accumulated total %g, expected %g", sums[0], sums[1]);

    for (int k = 0; k < NTMP; k++)
        free(tmp[k]);
    free(want);
    ARMCI_Barrier();
    ARMCI_Free(counter[t_me]);
    ARMCI_Free(b[t_me]);
    ARMCI_Free(a[t_me]);
    free(a);
    free(b);
    free(counter);
    return t_finish("t_nwpattern");
}
