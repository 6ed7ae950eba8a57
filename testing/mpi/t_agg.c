/* SPDX-License-Identifier: BSD-3-Clause */
/* Aggregate handles: 1 to 10 000 operations per handle, mixed sizes, puts then gets,
 * several handles to several targets at once, flush on fill, flush by a fence or a barrier,
 * reuse of a handle, ARMCI_Test, value puts, and the counters (one transfer per flush);
 * value, vector, strided and plain operations mixed on one handle per target, self included. */
#include <string.h>

#include "mix.h"

#define WORDS 20000

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    void **base = malloc((size_t)t_np * sizeof(void *));
    ARMCI_Malloc(base, (armci_size_t)(WORDS * sizeof(double) * (size_t)t_np));
    double *src = malloc(WORDS * sizeof(double)), *dst = malloc(WORDS * sizeof(double));
    int p = (t_me + 1) % t_np, q = (t_me + t_np - 1) % t_np;
    int fabric = ARMCIX_Path_of(p) == ARMCIX_PATH_FABRIC;
    double *slot_p = (double *)base[p] + (size_t)t_me * WORDS;
    double *slot_q = (double *)base[q] + (size_t)t_me * WORDS;
    static const int counts[] = {1, 7, 1000, 10000};
    const char *m = getenv("ARMCI_AGG_MAX"); /* the fill threshold of this run */
    long agg_max = m ? atol(m) : 4096;

    for (int c = 0; c < 4; c++) {
        int n = counts[c];
        for (int i = 0; i < WORDS; i++)
            src[i] = c * 1e6 + t_me * 1e4 + i;
        long ops0, fl0, ops1, fl1;
        ARMCIX_Agg_stats(&ops0, &fl0);
        armci_hdl_t h;
        ARMCI_INIT_HANDLE(&h);
        ARMCI_SET_AGGREGATE_HANDLE(&h);
        /* every other double, so nothing is contiguous */
        for (int i = 0; i < n; i++)
            ARMCI_NbPut(&src[i], &slot_p[2 * i % WORDS], sizeof(double), p, &h);
        ARMCI_Wait(&h);
        ARMCIX_Agg_stats(&ops1, &fl1);
        if (fabric)
            CHECK(ops1 - ops0 == n && fl1 - fl0 == (n + agg_max - 1) / agg_max,
                  "%d puts: %ld collected in %ld flushes", n, ops1 - ops0, fl1 - fl0);
        else
            CHECK(ops1 == ops0, "same node: nothing collected");
        /* read them back on one aggregate handle, reused */
        memset(dst, 0, WORDS * sizeof(double));
        for (int i = 0; i < n; i++)
            ARMCI_NbGet(&slot_p[2 * i % WORDS], &dst[i], sizeof(double), p, &h);
        int polls = 0;
        while (ARMCI_Test(&h))
            polls++;
        int bad = 0;
        for (int i = 0; i < n; i++) {
            int last = i; /* with n > WORDS/2 indices wrap: the last writer of the word wins */
            for (int j = i + WORDS / 2; j < n; j += WORDS / 2)
                last = j;
            bad += dst[i] != src[last];
        }
        CHECK(bad == 0, "%d aggregated puts/gets: %d wrong", n, bad);
    }

    /* mixed sizes, puts then gets on one handle: the gets see the puts */
    {
        armci_hdl_t h;
        ARMCI_INIT_HANDLE(&h);
        ARMCI_SET_AGGREGATE_HANDLE(&h);
        int off = 0;
        for (int k = 1; k <= 40; k++) { /* 1 .. 40*90 doubles: small and direct blocks */
            int len = k * 90;
            for (int i = 0; i < len; i++)
                src[off + i] = -(k * 1000 + i);
            ARMCI_NbPut(&src[off], &slot_p[off], len * (int)sizeof(double), p, &h);
            off += len + 3;
            if (off > WORDS - 4000)
                break;
        }
        memset(dst, 0, WORDS * sizeof(double));
        ARMCI_NbGet(slot_p, dst, off * (int)sizeof(double), p, &h);
        ARMCI_Wait(&h);
        int bad = 0, o = 0;
        for (int k = 1; k <= 40 && o <= WORDS - 4000; k++) {
            for (int i = 0; i < k * 90; i++)
                bad += dst[o + i] != -(k * 1000 + i);
            o += k * 90 + 3;
        }
        CHECK(bad == 0, "mixed sizes, get after put on one handle: %d wrong", bad);
    }

    /* ARMCI_Wait on puts promises local completion, no more (docs/DESIGN memory model):
     * the sources may be reused at once. They are overwritten straight after the wait;
     * the fence then delivers the values they held when each put was called, and a get
     * after the wait, from the same process, sees them too. */
    {
        armci_hdl_t h;
        ARMCI_INIT_HANDLE(&h);
        ARMCI_SET_AGGREGATE_HANDLE(&h);
        for (int i = 0; i < 2000; i++) {
            src[i] = 7e6 + t_me * 1e4 + i;
            ARMCI_NbPut(&src[i], &slot_p[3 * i], sizeof(double), p, &h);
        }
        /* and blocks of 16 KiB, which may go zero-copy: the wait sees them read */
        for (int i = 2000; i < 2000 + 4 * 2048; i++)
            src[i] = 7e6 + t_me * 1e4 + i;
        for (int k = 0; k < 4; k++)
            ARMCI_NbPut(&src[2000 + k * 2048], &slot_p[6000 + k * 2048], 2048 * sizeof(double), p,
                        &h);
        ARMCI_Wait(&h);
        for (int i = 0; i < 2000 + 4 * 2048; i++)
            src[i] = -1.0;
        int bad_get = 0;
        for (int i = 0; i < 2000; i += 97)
            bad_get += ARMCI_GetValueDouble(&slot_p[3 * i], p) != 7e6 + t_me * 1e4 + i;
        ARMCI_Fence(p);
        MPI_Barrier(MPI_COMM_WORLD);
        const double *mine = (double *)base[t_me] + (size_t)q * WORDS; /* written by q */
        int bad = 0;
        for (int i = 0; i < 2000; i++)
            bad += mine[3 * i] != 7e6 + q * 1e4 + i;
        for (int i = 2000; i < 2000 + 4 * 2048; i++)
            bad += mine[4000 + i] != 7e6 + q * 1e4 + i;
        CHECK(bad_get == 0 && bad == 0,
              "sources reused after the wait: %d of 21 read back wrong, %d of 10192 delivered "
              "wrong",
              bad_get, bad);
        MPI_Barrier(MPI_COMM_WORLD);
    }

    /* two handles to two targets at once, value puts, flush on fill, flush by fence */
    {
        armci_hdl_t hp, hq;
        ARMCI_INIT_HANDLE(&hp);
        ARMCI_INIT_HANDLE(&hq);
        ARMCI_SET_AGGREGATE_HANDLE(&hp);
        ARMCI_SET_AGGREGATE_HANDLE(&hq);
        for (int i = 0; i < 500; i++) {
            ARMCI_NbPutValueDouble(i + 0.5, &slot_p[i], p, &hp);
            ARMCI_NbPutValueLong(7L * i, &slot_q[i], q, &hq);
        }
        ARMCI_Fence(p); /* sends what hp collected and completes it remotely */
        ARMCI_Fence(q);
        ARMCI_Wait(&hp);
        ARMCI_Wait(&hq);
        MPI_Barrier(MPI_COMM_WORLD);
        /* my slot in my own block was written by my left (q for p=me) and right neighbours */
        double *from_left = (double *)base[t_me] + (size_t)q * WORDS;
        long *from_right = (long *)((double *)base[t_me] + (size_t)p * WORDS);
        int bad = 0;
        for (int i = 0; i < 500; i++) {
            if (t_np > 2 || q != p)
                bad += from_left[i] != i + 0.5 || from_right[i] != 7L * i;
        }
        if (t_np > 2)
            CHECK(bad == 0, "value puts on two handles: %d wrong", bad);
        ARMCI_UNSET_AGGREGATE_HANDLE(&hp);
        long v = 42;                                      /* word 600: nobody checks it */
        ARMCI_NbPut(&v, &slot_p[600], sizeof(v), p, &hp); /* a plain handle again */
        ARMCI_Wait(&hp);
        CHECK(ARMCI_GetValueLong(&slot_p[600], p) == 42, "handle used plain after unset");
    }
    /* ARMCI_Barrier sends what aggregate handles collected and completes it: once it
     * returns, every process sees the puts aimed at it, although no handle was waited */
    {
        ARMCI_Barrier();
        armci_hdl_t h;
        ARMCI_INIT_HANDLE(&h);
        ARMCI_SET_AGGREGATE_HANDLE(&h);
        long ops0, fl0, ops1, fl1;
        ARMCIX_Agg_stats(&ops0, &fl0);
        for (int i = 0; i < 300; i++)
            ARMCI_NbPutValueInt(5000 + t_me * 1000 + i, (int *)&slot_p[700 + 3 * i], p, &h);
        ARMCI_Barrier();
        ARMCIX_Agg_stats(&ops1, &fl1);
        if (fabric)
            CHECK(ops1 - ops0 == 300 && fl1 - fl0 == (300 + agg_max - 1) / agg_max,
                  "barrier: 300 value puts collected in %ld flushes, %ld ops", fl1 - fl0,
                  ops1 - ops0);
        double *mine = (double *)base[t_me] + (size_t)q * WORDS; /* written by q */
        int bad = 0;
        for (int i = 0; i < 300; i++)
            bad += *(int *)&mine[700 + 3 * i] != 5000 + q * 1000 + i;
        CHECK(bad == 0, "puts collected before ARMCI_Barrier, seen after it: %d missing", bad);
        ARMCI_Wait(&h);
    }
    ARMCI_Barrier();

    /* One aggregate handle per target, self included, each carrying value puts, a vector
     * put, level-0 strided puts and plain puts; then vector, strided and plain gets on a
     * second set of aggregate handles. Global Arrays' armci/testing/test.c:1636-1790
     * (test_aggregate) and ARMCI-MPI's tests/contrib/armci-test.c:1426 do exactly this and
     * check every word; each call must return 0 (test.c:1697, 1708, 1719, 1744, 1755,
     * 1766 stop on any other code). Sections of each source's 4000-double slot:
     * [0,1000) value puts / vector get, [1000,2000) vector put / strided gets,
     * [2000,3000) strided puts / plain gets, [3000,4000) plain puts / plain gets. */
    {
        void **putb = malloc((size_t)t_np * sizeof(void *));
        void **srcb = malloc((size_t)t_np * sizeof(void *));
        ARMCI_Malloc(putb, (armci_size_t)(MIX_SLOT * sizeof(double) * (size_t)t_np));
        ARMCI_Malloc(srcb, (armci_size_t)(MIX_SLOT * sizeof(double)));
        double *mysrc = srcb[t_me];
        double *getb = malloc(MIX_SLOT * sizeof(double) * (size_t)t_np);
        for (int j = 0; j < MIX_SLOT; j++)
            mysrc[j] = (t_me + 1) * 100000.0 + j;
        memset(putb[t_me], 0, MIX_SLOT * sizeof(double) * (size_t)t_np);
        memset(getb, 0, MIX_SLOT * sizeof(double) * (size_t)t_np);
        armci_hdl_t *hput = malloc((size_t)t_np * sizeof(armci_hdl_t));
        armci_hdl_t *hget = malloc((size_t)t_np * sizeof(armci_hdl_t));
        void **vs = malloc((size_t)t_np * MIX_NSEG * sizeof(void *));
        void **vd = malloc((size_t)t_np * MIX_NSEG * sizeof(void *));
        for (int i = 0; i < t_np; i++) {
            ARMCI_INIT_HANDLE(&hput[i]);
            ARMCI_INIT_HANDLE(&hget[i]);
            ARMCI_SET_AGGREGATE_HANDLE(&hput[i]);
            ARMCI_SET_AGGREGATE_HANDLE(&hget[i]);
        }
        ARMCI_Barrier();
        int rcbad = 0;
        for (int k = 0; k < t_np; k++) {
            int i = (t_me + k) % t_np; /* targets in a different order on each process */
            rcbad += mix_put(mysrc, (double *)putb[i] + (size_t)t_me * MIX_SLOT, i,
                             &vs[(size_t)i * MIX_NSEG], &vd[(size_t)i * MIX_NSEG], &hput[i]);
        }
        for (int i = 0; i < t_np; i++)
            rcbad += ARMCI_Wait(&hput[i]) != 0;
        CHECK(rcbad == 0, "aggregate puts of every kind: %d non-zero return codes", rcbad);
        rcbad = 0;
        for (int k = 0; k < t_np; k++) {
            int i = (t_me + t_np - k) % t_np;
            rcbad += mix_get(srcb[i], getb + (size_t)i * MIX_SLOT, i, &vs[(size_t)i * MIX_NSEG],
                             &vd[(size_t)i * MIX_NSEG], &hget[i]);
        }
        for (int i = 0; i < t_np; i++)
            rcbad += ARMCI_Wait(&hget[i]) != 0;
        CHECK(rcbad == 0, "aggregate gets of every kind: %d non-zero return codes", rcbad);
        /* the gets are complete once their handles are waited: no barrier needed */
        int bad = 0, first = -1;
        for (int i = 0; i < t_np; i++)
            bad += mix_wrong(getb, i, 0, &first);
        CHECK(bad == 0, "aggregate vector/strided/plain gets: %d of %d words wrong (first %d)", bad,
              MIX_SLOT * t_np, first);
        ARMCI_Barrier();
        bad = 0;
        first = -1;
        for (int i = 0; i < t_np; i++)
            bad += mix_wrong(putb[t_me], i, 0, &first);
        CHECK(bad == 0,
              "aggregate value/vector/strided/plain puts: %d of %d words wrong "
              "(first %d)",
              bad, MIX_SLOT * t_np, first);
        ARMCI_Barrier();
        ARMCI_Free(putb[t_me]);
        ARMCI_Free(srcb[t_me]);
        free(putb);
        free(srcb);
        free(getb);
        free(hput);
        free(hget);
        free(vs);
        free(vd);
    }
    ARMCI_Barrier();
    ARMCI_Free(base[t_me]);
    free(src);
    free(dst);
    free(base);
    return t_finish("t_agg");
}
