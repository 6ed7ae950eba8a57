/* SPDX-License-Identifier: BSD-3-Clause */
/* Atomicity across paths: every process, node peers and remote ones alike, hammers the same
 * words of process 0 at once with fetch-and-adds (ARMCI_Rmw, 32 and 64 bits) and
 * accumulates of doubles (ARMCI_Acc), and no update may be lost: each word must end at
 * exactly the sum of all the increments, and each fetch-and-add's old value must be one
 * no other call got. Where accumulates take libfabric's atomics (ARMCI_ACC_NATIVE=1)
 * while node peers reach the memory directly, a node peer's CPU atomic racing the
 * provider's would lose updates here: every atomic on a word must go one way (src/ops/amo.c,
 * select.h). GA's armci test (armci/testing/test.c, test_fetch_add and test_acc) makes
 * the same checks with fewer calls at a time; NWChem's nxtval is the counter.
 *   t_atomics [ROUNDS]   (default 4000 calls of each kind per process) */
#include <string.h>

#include "tester.h"

#define NACC 4

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int rounds = argc > 1 ? atoi(argv[1]) : 4000;
    void **base = malloc((size_t)t_np * sizeof(void *));
    ARMCI_Malloc(base, 64);
    memset(base[t_me], 0, 64);
    ARMCI_Barrier();
    long *c64 = (long *)base[0];
    int *c32 = (int *)((char *)base[0] + 8);
    double *sums = (double *)((char *)base[0] + 16);

    long *got = malloc((size_t)rounds * sizeof(long));
    long *got32 = malloc((size_t)rounds * sizeof(long));
    double one[NACC] = {1, 1, 1, 1}, scale = 1.0;
    for (int k = 0; k < rounds; k++) {
        long old = -1;
        int old32 = -1;
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, c64, 1, 0);
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &old32, c32, 2, 0);
        ARMCI_Acc(ARMCI_ACC_DBL, &scale, one, sums, sizeof one, 0);
        got[k] = old;
        got32[k] = old32;
    }
    ARMCI_AllFence();
    ARMCI_Barrier();

    /* The 64-bit counter's old values, of every process together, are 0 .. np*rounds-1,
     * each once. */
    long total = (long)t_np * rounds;
    long *all = t_me == 0 ? malloc((size_t)total * sizeof(long)) : NULL;
    long *all32 = t_me == 0 ? malloc((size_t)total * sizeof(long)) : NULL;
    MPI_Gather(got, rounds, MPI_LONG, all, rounds, MPI_LONG, 0, MPI_COMM_WORLD);
    MPI_Gather(got32, rounds, MPI_LONG, all32, rounds, MPI_LONG, 0, MPI_COMM_WORLD);
    if (t_me == 0) {
        qsort(all, (size_t)total, sizeof(long), cmp_long);
        long wrong = 0;
        for (long i = 0; i < total; i++)
            wrong += all[i] != i;
        CHECK(wrong == 0, "%ld of %ld fetch-and-add results were repeated or missing", wrong,
              total);
        /* The 32-bit counter's, adding 2: 0, 2 .. 2*(np*rounds-1), each once; a call that
         * returned the value after its add (2 .. 2*np*rounds) fails here. */
        qsort(all32, (size_t)total, sizeof(long), cmp_long);
        long wrong32 = 0;
        for (long i = 0; i < total; i++)
            wrong32 += all32[i] != 2 * i;
        CHECK(wrong32 == 0,
              "%ld of %ld 32-bit fetch-and-add results were not the counter's value before "
              "the add (sorted, the first is %ld, the last %ld)",
              wrong32, total, all32[0], all32[total - 1]);
        free(all32);
        CHECK(*c64 == total, "the 64-bit counter holds %ld, not %ld", *c64, total);
        CHECK(*c32 == (int)(2 * total), "the 32-bit counter holds %d, not %ld", *c32, 2 * total);
        for (int i = 0; i < NACC; i++)
            CHECK(sums[i] == (double)total, "sum %d is %.0f, not %ld: updates were lost", i,
                  sums[i], total);
        free(all);
    }
    ARMCI_Barrier();
    free(got);
    free(got32);
    ARMCI_Free(base[t_me]);
    free(base);
    return t_finish("t_atomics");
}
