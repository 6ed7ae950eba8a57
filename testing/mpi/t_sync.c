/* Read-modify-write and mutexes: 1000 fetch-and-adds from every process into one counter
 * (each returned value distinct, the total exact), long and swap forms, and a counter
 * incremented under a mutex with plain get/put 1000 times by every process. */
#include <stdlib.h>
#include <string.h>

#include "tester.h"

#define N 1000

static int cmp_int(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    void **base = malloc((size_t)t_np * sizeof(void *));
    ARMCI_Malloc(base, 64);
    memset(base[t_me], 0, 64);
    ARMCI_Barrier();

    /* fetch-and-add on an int at process 0 */
    int *got = malloc(N * sizeof(int));
    for (int i = 0; i < N; i++)
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &got[i], base[0], 1, 0);
    int *all = t_me == 0 ? malloc((size_t)N * t_np * sizeof(int)) : NULL;
    MPI_Gather(got, N, MPI_INT, all, N, MPI_INT, 0, MPI_COMM_WORLD);
    ARMCI_Barrier();
    if (t_me == 0) {
        qsort(all, (size_t)N * t_np, sizeof(int), cmp_int);
        int bad = 0;
        for (int i = 0; i < N * t_np; i++)
            bad += all[i] != i;
        CHECK(bad == 0, "fetch-and-add returned values are not 0..%d each once (%d off)",
              N * t_np - 1, bad);
        CHECK(*(int *)base[0] == N * t_np, "counter %d, expected %d", *(int *)base[0],
              N * t_np);
        free(all);
    }

    /* long fetch-and-add with a large increment on the last process */
    int last = t_np - 1;
    long *lc = (long *)((char *)base[last] + 8);
    long lold = 0;
    for (int i = 0; i < 100; i++)
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &lold, lc, 1 << 30, last);
    ARMCI_Barrier();
    if (t_me == last)
        CHECK(*lc == 100L * t_np * (1L << 30), "long counter %ld", *lc);

    /* swap: everybody swaps its rank into one word; the values seen plus the final one
     * are exactly the initial value and every rank, once each */
    int *w = (int *)((char *)base[0] + 16);
    int mine = t_me + 100;
    ARMCI_Rmw(ARMCI_SWAP, &mine, w, 0, 0);
    int *seen = malloc((size_t)t_np * sizeof(int));
    MPI_Allgather(&mine, 1, MPI_INT, seen, 1, MPI_INT, MPI_COMM_WORLD);
    ARMCI_Barrier();
    int final = ARMCI_GetValueInt(w, 0);
    long sum = final;
    for (int i = 0; i < t_np; i++)
        sum += seen[i];
    long want = 0; /* initial 0 plus 100..100+np-1 */
    for (int i = 0; i < t_np; i++)
        want += 100 + i;
    CHECK(sum == want, "swap values sum %ld, expected %ld", sum, want);
    long lv = 7 + t_me;
    long *lw = (long *)((char *)base[0] + 24);
    ARMCI_Rmw(ARMCI_SWAP_LONG, &lv, lw, 0, 0);
    CHECK(lv == 0 || (lv >= 7 && lv < 7 + t_np), "long swap returned %ld", lv);
    ARMCI_Barrier();

    /* mutexes: 3 per process; a counter at process 0 guarded by mutex 1 of the last one */
    ARMCI_Create_mutexes(3);
    long *counter = (long *)((char *)base[0] + 32);
    for (int i = 0; i < N; i++) {
        ARMCI_Lock(1, last);
        long v = ARMCI_GetValueLong(counter, 0);
        ARMCI_PutValueLong(v + 1, counter, 0);
        ARMCI_Unlock(1, last);
    }
    ARMCI_Barrier();
    if (t_me == 0)
        CHECK(*counter == (long)N * t_np, "counter under mutex %ld, expected %ld", *counter,
              (long)N * t_np);
    /* two mutexes held at once, at different processes */
    ARMCI_Lock(0, 0);
    ARMCI_Lock(2, last);
    ARMCI_Unlock(2, last);
    ARMCI_Unlock(0, 0);
    CHECK(1, "nested mutexes");
    ARMCI_Barrier();
    ARMCI_Destroy_mutexes();

    ARMCI_Free(base[t_me]);
    free(got);
    free(seen);
    free(base);
    return t_finish("t_sync");
}
