/* SPDX-License-Identifier: BSD-3-Clause */
/* Allocation: sizes differing per process (zero included), same-node pointers usable
 * directly, ARMCI_Free with NULL, local allocations, and many allocate/free cycles. */
#include <string.h>

#include "tester.h"

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    void **base = malloc((size_t)t_np * sizeof(void *));

    /* Process p asks for p * 1000 bytes: process 0 gets NULL. */
    ARMCI_Malloc(base, (armci_size_t)t_me * 1000);
    CHECK(base[0] == NULL, "zero-byte block is NULL (got %p)", base[0]);
    for (int p = 1; p < t_np; p++)
        CHECK(base[p] != NULL, "block of %d is not NULL", p);
    if (t_me > 0)
        memset(base[t_me], t_me, (size_t)t_me * 1000);
    ARMCI_Barrier();
    for (int p = 1; p < t_np; p++) {
        unsigned char last = 0;
        ARMCI_Get((char *)base[p] + p * 1000 - 1, &last, 1, p);
        CHECK(last == p, "last byte of %d's block: %d", p, last);
        if (ARMCIX_Path_of(p) == ARMCIX_PATH_SHM) /* same node: the pointer is usable as is */
            CHECK(((unsigned char *)base[p])[0] == p, "direct load from %d's block", p);
    }
    ARMCI_Barrier();
    ARMCI_Free(t_me == 0 ? NULL : base[t_me]);

    /*
     * Several allocations alive at once, each empty on some processes, freed oldest first
     * with one-sided access to the others in between. ARMCI-MPI's tests/test_malloc_irreg.c
     * (lines 40-76) keeps ten alive, each non-empty on one process only; its test_malloc.c
     * (lines 36-51) a hundred, every fourth of zero bytes everywhere. A process passing NULL
     * to ARMCI_Free must drop the allocation being freed, not another of its empty ones:
     * the others must stay addressable, byte for byte.
     */
    {
        enum { NA = 12 };
        void **bases[NA];
        for (int k = 0; k < NA; k++) {
            bases[k] = malloc((size_t)t_np * sizeof(void *));
            /* k % 4 == 3: zero bytes everywhere; otherwise only process k % t_np has a
             * block, of 64 + k bytes */
            armci_size_t sz = k % 4 == 3 || t_me != k % t_np ? 0 : (armci_size_t)(64 + k);
            CHECK(ARMCI_Malloc(bases[k], sz) == 0, "ARMCI_Malloc %d returned non-zero", k);
            if (sz)
                memset(bases[k][t_me], 0x40 + k, (size_t)sz);
        }
        ARMCI_Barrier();
        for (int k = 0; k < NA; k++) {
            /* every allocation not yet freed still reads back, at its first and last byte */
            int bad = 0;
            for (int j = k; j < NA; j++) {
                if (j % 4 == 3)
                    continue;
                int owner = j % t_np;
                unsigned char b[2] = {0, 0};
                ARMCI_Get(bases[j][owner], &b[0], 1, owner);
                ARMCI_Get((char *)bases[j][owner] + 63 + j, &b[1], 1, owner);
                bad += b[0] != 0x40 + j || b[1] != 0x40 + j;
            }
            CHECK(bad == 0, "before freeing allocation %d: %d later ones read wrong", k, bad);
            int mine = k % 4 != 3 && t_me == k % t_np;
            CHECK(ARMCI_Free(mine ? bases[k][t_me] : NULL) == 0, "ARMCI_Free %d non-zero", k);
            free(bases[k]);
        }
    }

    /* ARMCI_Free(NULL) on every process, with no allocation of zero bytes everywhere alive,
     * frees nothing and succeeds, as in ARMCI-MPI (src/gmr.c, gmr_destroy: "Everyone passed
     * NULL. Nothing to free."); an allocation alive beside it is untouched. */
    {
        void **keep = malloc((size_t)t_np * sizeof(void *));
        ARMCI_Malloc(keep, sizeof(long));
        *(long *)keep[t_me] = 7000 + t_me;
        ARMCI_Barrier();
        CHECK(ARMCI_Free(NULL) == 0, "ARMCI_Free(NULL) everywhere returned non-zero");
        int right = (t_me + 1) % t_np;
        long v = -1;
        ARMCI_Get(keep[right], &v, sizeof(long), right);
        CHECK(v == 7000 + right, "after ARMCI_Free(NULL), process %d's block holds %ld", right, v);
        ARMCI_Barrier();
        CHECK(ARMCI_Free(keep[t_me]) == 0, "freeing the block kept beside it returned non-zero");
        free(keep);
    }

    /* A get still in flight when its allocation is freed: ARMCI_Free completes this
     * process's operations before the memory goes (every process calls it, so the owner
     * keeps its block until the reader's get has landed), and the handle then reads as
     * complete with the data all there. 1 MiB, so that over the fabric the get is still
     * moving when ARMCI_Free begins. */
    {
        const int longs = 1 << 17;
        void **gone = malloc((size_t)t_np * sizeof(void *));
        ARMCI_Malloc(gone, (armci_size_t)longs * sizeof(long));
        for (int k = 0; k < longs; k++)
            ((long *)gone[t_me])[k] = (long)t_me << 32 | k;
        ARMCI_Barrier();
        int right = (t_me + 1) % t_np;
        long *got = malloc((size_t)longs * sizeof(long));
        armci_hdl_t h;
        ARMCI_INIT_HANDLE(&h);
        ARMCI_NbGet(gone[right], got, longs * (int)sizeof(long), right, &h);
        CHECK(ARMCI_Free(gone[t_me]) == 0, "ARMCI_Free with a get from it in flight");
        ARMCI_Wait(&h);
        int bad = 0;
        for (int k = 0; k < longs; k++)
            bad += got[k] != ((long)right << 32 | k);
        CHECK(bad == 0, "a get in flight across ARMCI_Free: %d of %d longs wrong", bad, longs);
        free(got);
        free(gone);
    }

    /* Local memory works as the local side of transfers. */
    double *loc = ARMCI_Malloc_local(1000 * sizeof(double));
    CHECK(loc != NULL, "ARMCI_Malloc_local returned NULL");
    ARMCI_Malloc(base, 1000 * sizeof(double));
    for (int i = 0; i < 1000; i++)
        loc[i] = t_me + i * 0.25;
    int right = (t_me + 1) % t_np;
    ARMCI_Put(loc, base[right], 1000 * sizeof(double), right);
    ARMCI_Barrier();
    int left = (t_me + t_np - 1) % t_np, bad = 0;
    for (int i = 0; i < 1000; i++)
        bad += ((double *)base[t_me])[i] != left + i * 0.25;
    CHECK(bad == 0, "put from local memory: %d wrong", bad);
    ARMCI_Free(base[t_me]);
    ARMCI_Free_local(loc);

    /* Cycles: memory comes back (a freed block is where the next one of its size goes, so
     * every cycle gets the first cycle's block), and each new block is usable: a byte a
     * neighbour wrote into it is there. */
    int cycles_ok = 0, same_block = 0;
    void *first_block = NULL;
    for (int k = 0; k < 200; k++) {
        ARMCI_Malloc(base, 1 << 20);
        if (k == 0)
            first_block = base[t_me];
        same_block += base[t_me] == first_block;
        char c = (char)(k + t_me), got = 0;
        ARMCI_Put(&c, (char *)base[right] + (k << 12), 1, right);
        ARMCI_Barrier();
        got = ((char *)base[t_me])[k << 12];
        cycles_ok += got == (char)(k + left);
        ARMCI_Barrier();
        ARMCI_Free(base[t_me]);
    }
    CHECK(cycles_ok == 200, "%d of 200 allocate/free cycles of 1 MiB held the byte put there",
          cycles_ok);
    CHECK(same_block == 200, "%d of 200 cycles reused the block freed before", same_block);
    free(base);
    return t_finish("t_memory");
}
