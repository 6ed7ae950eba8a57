/* SPDX-License-Identifier: BSD-3-Clause */
/* Handles: individual completion, ARMCI_Test, implicit handles with WaitProc/WaitAll,
 * 100 000 outstanding implicit puts (pool recycling), and more explicit handles in flight
 * than the pool holds (the oldest are completed transparently), and implicit value, vector,
 * strided and plain operations to every process completed by WaitAll or WaitProc. */
#include <string.h>
#include <time.h>

#include "mix.h"

#define NIMPLICIT 100000
#define NEXPLICIT 6000 /* more than the default pool of 4096 */

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int peer = (t_me + 1) % t_np;
    void **base = malloc((size_t)t_np * sizeof(void *));
    const size_t words = NEXPLICIT + 64;
    ARMCI_Malloc(base, (armci_size_t)(words * sizeof(long)));
    long *mine = base[t_me];
    for (size_t i = 0; i < words; i++)
        mine[i] = (long)t_me * 1000000 + (long)i;
    ARMCI_Barrier();

    /* Individual completion: two gets, each waited on separately, in reverse order. */
    long a = -1, b = -1;
    armci_hdl_t ha, hb;
    ARMCI_INIT_HANDLE(&ha);
    ARMCI_INIT_HANDLE(&hb);
    long *remote = base[peer];
    ARMCI_NbGet(&remote[5], &a, sizeof(long), peer, &ha);
    ARMCI_NbGet(&remote[9], &b, sizeof(long), peer, &hb);
    ARMCI_Wait(&hb);
    CHECK(b == (long)peer * 1000000 + 9, "second get waited first: %ld", b);
    ARMCI_Wait(&ha);
    CHECK(a == (long)peer * 1000000 + 5, "first get: %ld", a);

    /* ARMCI_Test answers 0 once the operation is complete and non-zero while it is in
     * progress: ARMCI-MPI's src/onesided_nb.c (PARMCI_Test returns !flag), and Global
     * Arrays' global/src/nbutil.c (v5.8.2, nga_test_internal, line 271) removes a handle
     * from its list when ARMCI_Test returns 0. Completion must mean the data is here. */
    long c = -1;
    armci_hdl_t hc;
    ARMCI_NbGet(&remote[11], &c, sizeof(long), peer, &hc);
    long polls = 0;
    while (ARMCI_Test(&hc))
        polls++;
    CHECK(c == (long)peer * 1000000 + 11, "get completed by Test: %ld (after %ld polls)", c, polls);
    /* Tested complete, then waited (GA's nga_wait_internal may do that), then waited and
     * tested again: GA's global/testing/thread_perf_contig.c waits twice on its handles,
     * and ARMCI-MPI and classic ARMCI return at once for a handle that is done. */
    CHECK(ARMCI_Test(&hc) == 0, "a tested-complete handle tests complete again");
    CHECK(ARMCI_Wait(&hc) == 0, "wait on a tested-complete handle returns 0");
    CHECK(ARMCI_Wait(&hc) == 0, "a second wait on a completed handle returns 0");
    CHECK(ARMCI_Test(&hc) == 0, "a waited handle tests as complete");

    /* A handle initialised but never used is complete: Wait returns at once, Test says 0. */
    armci_hdl_t hidle;
    ARMCI_INIT_HANDLE(&hidle);
    CHECK(ARMCI_Wait(&hidle) == 0, "wait on an unused initialised handle returns 0");
    CHECK(ARMCI_Test(&hidle) == 0, "an unused initialised handle tests complete");

    /* A stale copy of a completed handle must not complete the newer operation that took
     * its request slot: it reads as done, and the new handle still owns its operation. */
    armci_hdl_t hs1, hs_copy, hs2;
    long s1 = -1, s2 = -1;
    ARMCI_NbGet(&remote[13], &s1, sizeof(long), peer, &hs1);
    ARMCI_Wait(&hs1);
    hs_copy = hs1;
    ARMCI_NbGet(&remote[17], &s2, sizeof(long), peer, &hs2);
    CHECK(ARMCI_Test(&hs_copy) == 0, "a stale copy of a completed handle tests complete");
    ARMCI_Wait(&hs_copy);
    ARMCI_Wait(&hs2);
    CHECK(s1 == (long)peer * 1000000 + 13 && s2 == (long)peer * 1000000 + 17,
          "stale handle copy: gets read %ld and %ld", s1, s2);
    ARMCI_Barrier();

    /* In flight for real: with T_INFLIGHT=1 (run over the fabric with no progress thread)
     * the peer sleeps outside ARMCI, so nothing can serve a 4 MiB get until it returns:
     * ARMCI_Test must say "in progress" (non-zero) first, then 0 with every byte there. */
    {
        const char *inflight = getenv("T_INFLIGHT");
        int expect_pending = inflight && atoi(inflight) && t_np > 1;
        const size_t big = (size_t)4 << 20;
        void **bb = malloc((size_t)t_np * sizeof(void *));
        ARMCI_Malloc(bb, (armci_size_t)big);
        unsigned char *mine_b = bb[t_me];
        for (size_t i = 0; i < big; i++)
            mine_b[i] = (unsigned char)(i * 7 + (size_t)t_me);
        unsigned char *got_b = malloc(big);
        memset(got_b, 0, big);
        ARMCI_Barrier();
        /* The target stays out of ARMCI, blocked in MPI, until the origin has seen its get
         * pending (an event, not a nap that a loaded machine could outlast); the origin
         * lets it go at once if Test never says pending, and the check fails. */
        int go = 1;
        if (t_me == 0) {
            armci_hdl_t hb4;
            ARMCI_NbGet(bb[peer], got_b, (int)big, peer, &hb4);
            long pending = 0;
            while (ARMCI_Test(&hb4)) {
                if (pending++ == 0 && expect_pending)
                    MPI_Send(&go, 1, MPI_INT, peer, 79, MPI_COMM_WORLD);
            }
            if (pending == 0 && expect_pending)
                MPI_Send(&go, 1, MPI_INT, peer, 79, MPI_COMM_WORLD);
            size_t wrong = 0;
            for (size_t i = 0; i < big; i++)
                wrong += got_b[i] != (unsigned char)(i * 7 + (size_t)peer);
            CHECK(wrong == 0, "ARMCI_Test said complete with %zu of %zu bytes wrong", wrong, big);
            if (expect_pending)
                CHECK(pending > 0, "ARMCI_Test said complete at once although the target slept");
        } else if (expect_pending && t_me == 1) {
            MPI_Recv(&go, 1, MPI_INT, 0, 79, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        ARMCI_Barrier();
        free(got_b);
        ARMCI_Free(bb[t_me]);
        free(bb);
    }

    /* 100 000 implicit puts into one cell of the peer; the last value must win. */
    long *cell = &((long *)base[peer])[words - 1 - (size_t)0];
    static long vals[NIMPLICIT];
    for (long i = 0; i < NIMPLICIT; i++) {
        vals[i] = i + 1;
        ARMCI_NbPut(&vals[i], cell, sizeof(long), peer, NULL);
        if (i % 25000 == 24999)
            ARMCI_WaitProc(peer);
    }
    ARMCI_WaitAll();
    ARMCI_Barrier();
    long last = ((long *)base[t_me])[words - 1];
    CHECK(last == NIMPLICIT, "after %d implicit puts the cell holds %ld", NIMPLICIT, last);

    /* More explicit gets in flight than the pool has requests. */
    long *got = malloc(NEXPLICIT * sizeof(long));
    armci_hdl_t *h = malloc(NEXPLICIT * sizeof(armci_hdl_t));
    for (int i = 0; i < NEXPLICIT; i++) {
        got[i] = -1;
        ARMCI_NbGet(&remote[i], &got[i], sizeof(long), peer, &h[i]);
    }
    for (int i = NEXPLICIT - 1; i >= 0; i--)
        ARMCI_Wait(&h[i]);
    int bad = 0;
    for (int i = 0; i < NEXPLICIT; i++)
        bad += got[i] != (long)peer * 1000000 + i;
    CHECK(bad == 0, "%d of %d explicit gets wrong", bad, NEXPLICIT);

    /* A handle need not be initialised for a plain call: one whose bytes happen to be those
     * of an aggregate handle (here, a copy of one) must still act as a plain handle. */
    {
        armci_hdl_t agg, lookalike;
        long before, after, v = -1;
        ARMCI_INIT_HANDLE(&agg);
        ARMCI_SET_AGGREGATE_HANDLE(&agg);
        memcpy(&lookalike, &agg, sizeof agg);
        ARMCIX_Agg_stats(&before, NULL);
        ARMCI_NbGet(&remote[3], &v, sizeof(long), peer, &lookalike);
        ARMCI_Wait(&lookalike);
        ARMCIX_Agg_stats(&after, NULL);
        CHECK(v == (long)peer * 1000000 + 3, "get on a look-alike handle brought %ld", v);
        CHECK(after == before, "a get on a never-set handle was aggregated (%ld -> %ld)", before,
              after);
        ARMCI_UNSET_AGGREGATE_HANDLE(&agg);
    }

    /* Implicit (NULL) handles on value, vector, strided and plain puts and gets to every
     * process, self included, completed first by ARMCI_WaitAll and then, in a second
     * round, by ARMCI_WaitProc for each target: Global Arrays' armci/testing/test.c:
     * 1811-1943 (test_implicit) issues exactly these and checks every word after
     * ARMCI_WaitAll, a barrier and ARMCI_AllFence; each call must return 0 (test.c:1859,
     * 1870, 1881, 1901, 1912, 1923). Here the gets are checked at once after the wait
     * that completes them, the puts after the barrier. */
    {
        void **putb = malloc((size_t)t_np * sizeof(void *));
        void **srcb = malloc((size_t)t_np * sizeof(void *));
        ARMCI_Malloc(putb, (armci_size_t)(MIX_SLOT * sizeof(double) * (size_t)t_np));
        ARMCI_Malloc(srcb, (armci_size_t)(MIX_SLOT * sizeof(double)));
        double *getb = malloc(MIX_SLOT * sizeof(double) * (size_t)t_np);
        void **vs = malloc((size_t)t_np * MIX_NSEG * sizeof(void *));
        void **vd = malloc((size_t)t_np * MIX_NSEG * sizeof(void *));
        double *mysrc = srcb[t_me];
        for (int round = 0; round < 2; round++) {
            double offset = round * 0.5;
            for (int j = 0; j < MIX_SLOT; j++)
                mysrc[j] = (t_me + 1) * 100000.0 + j + offset;
            memset(putb[t_me], 0, MIX_SLOT * sizeof(double) * (size_t)t_np);
            memset(getb, 0, MIX_SLOT * sizeof(double) * (size_t)t_np);
            ARMCI_Barrier();
            int rcbad = 0;
            for (int k = 0; k < t_np; k++) {
                int i = (t_me + k) % t_np;
                rcbad += mix_put(mysrc, (double *)putb[i] + (size_t)t_me * MIX_SLOT, i,
                                 &vs[(size_t)i * MIX_NSEG], &vd[(size_t)i * MIX_NSEG], NULL);
            }
            for (int k = 0; k < t_np; k++) {
                int i = (t_me + t_np - k) % t_np;
                rcbad += mix_get(srcb[i], getb + (size_t)i * MIX_SLOT, i, &vs[(size_t)i * MIX_NSEG],
                                 &vd[(size_t)i * MIX_NSEG], NULL);
            }
            int bad = 0, first = -1;
            if (round == 0) {
                rcbad += ARMCI_WaitAll() != 0;
                for (int i = 0; i < t_np; i++)
                    bad += mix_wrong(getb, i, offset, &first);
            } else {
                /* each target's gets are complete once ARMCI_WaitProc for it returns */
                for (int k = 0; k < t_np; k++) {
                    int i = (t_me + 1 + k) % t_np;
                    rcbad += ARMCI_WaitProc(i) != 0;
                    bad += mix_wrong(getb, i, offset, &first);
                }
            }
            const char *how = round == 0 ? "ARMCI_WaitAll" : "ARMCI_WaitProc";
            CHECK(rcbad == 0,
                  "implicit value/vector/strided/plain ops, %s: %d non-zero "
                  "return codes",
                  how, rcbad);
            CHECK(bad == 0,
                  "implicit vector/strided/plain gets after %s: %d of %d words "
                  "wrong (first %d)",
                  how, bad, MIX_SLOT * t_np, first);
            ARMCI_Barrier();
            ARMCI_AllFence();
            ARMCI_Barrier();
            bad = 0;
            first = -1;
            for (int i = 0; i < t_np; i++)
                bad += mix_wrong(putb[t_me], i, offset, &first);
            CHECK(bad == 0,
                  "implicit value/vector/strided/plain puts after %s: %d of %d "
                  "words wrong (first %d)",
                  how, bad, MIX_SLOT * t_np, first);
            ARMCI_Barrier();
        }
        ARMCI_Free(putb[t_me]);
        ARMCI_Free(srcb[t_me]);
        free(putb);
        free(srcb);
        free(getb);
        free(vs);
        free(vd);
    }

    ARMCI_Barrier();
    free(got);
    free(h);
    ARMCI_Free(base[t_me]);
    free(base);
    return t_finish("t_handles");
}
