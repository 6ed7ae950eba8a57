/* SPDX-License-Identifier: BSD-3-Clause */
/* ARMCIX_Alltoall and ARMCIX_Allgather against MPI_Alltoall and MPI_Allgather: block sizes
 * from 1 byte to 1 MiB, ordinary buffers (staged or read in place), ARMCI_Malloc_local
 * buffers (used in place) and some of each, the world and a group of the odd processes;
 * and a burst of calls back to back, checked against the values sent. The algorithm is
 * ARMCI_COLL_ALG. */
#include <string.h>

#include "tester.h"

static void fill(unsigned char *b, size_t n, int me, int salt)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)(me * 37 + (int)(i * 13 % 251) + salt);
}

static int run(int allgather, size_t bb, int local_mem, MPI_Comm mcomm, ARMCI_Group *g)
{
    int P, me;
    MPI_Comm_size(mcomm, &P);
    MPI_Comm_rank(mcomm, &me);
    size_t ssize = allgather ? bb : bb * (size_t)P, rsize = bb * (size_t)P;
    unsigned char *s, *r, *ref = malloc(rsize);
    if (local_mem == 2) /* mixed: the odd processes' buffers in the heap, the others' not */
        local_mem = me % 2;
    if (local_mem) {
        s = ARMCI_Malloc_local((armci_size_t)ssize);
        r = ARMCI_Malloc_local((armci_size_t)rsize);
    } else {
        s = malloc(ssize);
        r = malloc(rsize);
    }
    fill(s, ssize, me, (int)bb);
    memset(r, 0, rsize);
    if (allgather) {
        ARMCIX_Allgather(s, r, bb, g);
        MPI_Allgather(s, (int)bb, MPI_BYTE, ref, (int)bb, MPI_BYTE, mcomm);
    } else {
        ARMCIX_Alltoall(s, r, bb, g);
        MPI_Alltoall(s, (int)bb, MPI_BYTE, ref, (int)bb, MPI_BYTE, mcomm);
    }
    int bad = memcmp(r, ref, rsize) != 0;
    if (local_mem) {
        ARMCI_Free_local(s);
        ARMCI_Free_local(r);
    } else {
        free(s);
        free(r);
    }
    free(ref);
    return bad;
}

/* The byte that process @p from sends to process @p to at byte @p i of a block in call
 * @p k of a burst (allgather: the same for every @p to). */
static unsigned char burst_byte(int k, int from, int to, size_t i)
{
    return (unsigned char)(k * 7 + from * 31 + to * 5 + (int)i);
}

/* Calls back to back, no other synchronisation between them, alternating all-to-all and
 * allgather, small and large (so the small path's alternating staging halves are reused
 * while a slow peer may still be in the previous call, and the paths mix), and a process
 * that lags now and then. Every result is kept and checked at the end. */
static int burst(void)
{
    enum { K = 400 };
    const size_t small = 40, large = 6000; /* large: above ARMCI_COLL_SMALL with P >= 1 */
    size_t max = large * (size_t)t_np;
    unsigned char *s = malloc(max), *r = malloc((size_t)K * max);
    size_t *bbs = malloc(K * sizeof(size_t));
    for (int k = 0; k < K; k++) {
        int ag = k % 2, big = k % 17 == 16;
        size_t bb = big ? large : small + (size_t)(k % 5);
        bbs[k] = bb;
        for (int to = 0; to < (ag ? 1 : t_np); to++)
            for (size_t i = 0; i < bb; i++)
                s[(size_t)to * bb + i] = burst_byte(k, t_me, ag ? 0 : to, i);
        if ((k + t_me) % 13 == 0)
            for (volatile int spin = 0; spin < 20000; spin++)
                ;
        if (ag)
            ARMCIX_Allgather(s, r + (size_t)k * max, bb, NULL);
        else
            ARMCIX_Alltoall(s, r + (size_t)k * max, bb, NULL);
    }
    int bad = 0;
    for (int k = 0; k < K && !bad; k++) {
        const unsigned char *got = r + (size_t)k * max;
        for (int from = 0; from < t_np; from++)
            for (size_t i = 0; i < bbs[k]; i++)
                if (got[(size_t)from * bbs[k] + i] != burst_byte(k, from, k % 2 ? 0 : t_me, i)) {
                    CHECK(0, "burst call %d (%s, %zu-byte blocks): byte %zu from rank %d wrong", k,
                          k % 2 ? "allgather" : "alltoall", bbs[k], i, from);
                    bad = 1;
                    break;
                }
    }
    free(s);
    free(r);
    free(bbs);
    return bad;
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    static const size_t sizes[] = {1, 7, 64, 1000, 16384, 1 << 20};
    /* Each configuration is checked by its own CHECK against MPI's result; no count of
     * runs follows, as one would count loop iterations and could not fail. */
    for (int s = 0; s < 6; s++)
        for (int ag = 0; ag < 2; ag++)
            for (int lm = 0; lm < 3; lm++) {
                int b = run(ag, sizes[s], lm, MPI_COMM_WORLD, NULL);
                CHECK(!b, "%s of %zu-byte blocks (%s buffers) differs from MPI",
                      ag ? "allgather" : "alltoall", sizes[s],
                      lm == 2 ? "mixed"
                      : lm    ? "ARMCI local"
                              : "private");
            }
    CHECK(!burst(), "back-to-back collectives");
    /* a group: the odd processes */
    int nodd = t_np / 2, odd[8];
    for (int k = 0; k < nodd; k++)
        odd[k] = 2 * k + 1;
    ARMCI_Group g;
    if (nodd > 0) {
        ARMCI_Group_create(nodd, odd, &g);
        MPI_Comm mc;
        MPI_Comm_split(MPI_COMM_WORLD, t_me % 2 ? 0 : MPI_UNDEFINED, t_me, &mc);
        if (t_me % 2) {
            for (int ag = 0; ag < 2; ag++) {
                int b = run(ag, 100, 0, mc, &g);
                CHECK(!b, "group %s differs from MPI", ag ? "allgather" : "alltoall");
            }
            MPI_Comm_free(&mc);
        }
        ARMCI_Group_free(&g);
    }
    ARMCI_Barrier();
    return t_finish("t_coll");
}
