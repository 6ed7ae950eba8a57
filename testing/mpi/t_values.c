/* SPDX-License-Identifier: BSD-3-Clause */
/* Single values (put, nonblocking put, get), flagged puts seen by a waiting target, local
 * copies and access brackets. */
#include <string.h>

#include "tester.h"

/* Waits until the flag at @p f reads @p v, driving progress: an acquire load, as a program
 * must use for the data put before the flag to be read after it (and for ThreadSanitizer
 * to see that order). */
static void wait_flag(int *f, int v)
{
    T_WAIT_FOR(f, v, "a flag to become %d", v);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    void **base = malloc((size_t)t_np * sizeof(void *));
    ARMCI_Malloc(base, 4096);
    memset(base[t_me], 0, 4096);
    ARMCI_Barrier();
    int p = (t_me + 1) % t_np;
    char *r = base[p];
    /* Every value names its putter (small integers: exact in a float), so that the target
     * can tell what it should hold without asking the runtime. */
    ARMCI_PutValueInt(-5 - t_me, r + 0, p);
    ARMCI_PutValueLong((1L << 40) + t_me, r + 8, p);
    ARMCI_PutValueFloat(2.5f + (float)t_me, r + 16, p);
    ARMCI_PutValueDouble(-1e300 * (t_me + 1), r + 24, p);
    armci_hdl_t h[4];
    ARMCI_NbPutValueInt(11 + t_me, r + 32, p, &h[0]);
    ARMCI_NbPutValueLong(12L + t_me, r + 40, p, &h[1]);
    ARMCI_NbPutValueFloat(13.f + (float)t_me, r + 48, p, &h[2]);
    ARMCI_NbPutValueDouble(14. + t_me, r + 56, p, &h[3]);
    for (int k = 0; k < 4; k++)
        ARMCI_Wait(&h[k]);
    CHECK(ARMCI_GetValueInt(r, p) == -5 - t_me, "int value");
    CHECK(ARMCI_GetValueLong(r + 8, p) == (1L << 40) + t_me, "long value");
    CHECK(ARMCI_GetValueFloat(r + 16, p) == 2.5f + (float)t_me, "float value");
    CHECK(ARMCI_GetValueDouble(r + 24, p) == -1e300 * (t_me + 1), "double value");
    CHECK(ARMCI_GetValueInt(r + 32, p) == 11 + t_me &&
              ARMCI_GetValueLong(r + 40, p) == 12L + t_me &&
              ARMCI_GetValueFloat(r + 48, p) == 13.f + (float)t_me &&
              ARMCI_GetValueDouble(r + 56, p) == 14. + t_me,
          "nonblocking values");
    /* The same values read by their target with plain loads: a get could agree with a put
     * that never left the putter (a cache, a value kept on the origin's side), the target's
     * own memory cannot. The fence completes the puts at the target, the barrier tells it. */
    ARMCI_Fence(p);
    ARMCI_Barrier();
    {
        int from = (t_me + t_np - 1) % t_np; /* who put into this process's block */
        char *v = base[t_me];
        int vi, vi2;
        long vl, vl2;
        float vf, vf2;
        double vd, vd2;
        memcpy(&vi, v + 0, sizeof(vi));
        memcpy(&vl, v + 8, sizeof(vl));
        memcpy(&vf, v + 16, sizeof(vf));
        memcpy(&vd, v + 24, sizeof(vd));
        memcpy(&vi2, v + 32, sizeof(vi2));
        memcpy(&vl2, v + 40, sizeof(vl2));
        memcpy(&vf2, v + 48, sizeof(vf2));
        memcpy(&vd2, v + 56, sizeof(vd2));
        CHECK(vi == -5 - from && vl == (1L << 40) + from && vf == 2.5f + (float)from &&
                  vd == -1e300 * (from + 1),
              "values from %d in the target's memory: %d %ld %g %g", from, vi, vl, (double)vf, vd);
        CHECK(vi2 == 11 + from && vl2 == 12L + from && vf2 == 13.f + (float)from &&
                  vd2 == 14. + from,
              "nonblocking values from %d in the target's memory: %d %ld %g %g", from, vi2, vl2,
              (double)vf2, vd2);
    }

    /* flagged put: the target waits for the flag, then must see all the data */
    ARMCI_Barrier();
    double data[256];
    for (int i = 0; i < 256; i++)
        data[i] = t_me + i * 0.5;
    int *flag = (int *)((char *)base[p] + 4000);
    ARMCI_Put_flag(data, (char *)base[p] + 1024, sizeof(data), flag, 1, p);
    wait_flag((int *)((char *)base[t_me] + 4000), 1);
    int bad = 0, left0 = (t_me + t_np - 1) % t_np;
    double *got = (double *)((char *)base[t_me] + 1024);
    for (int i = 0; i < 256; i++)
        bad += got[i] != left0 + i * 0.5;
    CHECK(bad == 0, "data behind the flag: %d wrong", bad);
    ARMCI_Barrier();
    ARMCI_Free(base[t_me]);

    /* Flagged puts, blocking and not, of every size (none, one message, just past one
     * message, many), each after a blocking and an implicit put to the same target that
     * the flag must also cover: each round the target waits for the round's number, then
     * checks everything. */
    size_t sizes[] = {0, 1, 8, 4096, 65536 - 128, 65536, 65536 + 8, 1 << 20};
    int nsizes = (int)(sizeof(sizes) / sizeof(sizes[0]));
    size_t big = 1 << 20, side = 1 << 16;
    ARMCI_Malloc(base, 64 + 2 * side + big);
    memset(base[t_me], 0, 64 + 2 * side + big);
    char *src = malloc(big), *before = malloc(2 * side);
    ARMCI_Barrier();
    int left = (t_me + t_np - 1) % t_np;
    int *mine = (int *)base[t_me];
    char *here = (char *)base[t_me], *there = (char *)base[p];
    for (int round = 1; round <= 3 * nsizes; round++) {
        size_t len = sizes[round % nsizes];
        unsigned char tag = (unsigned char)(round * 7 + t_me);
        for (size_t i = 0; i < 2 * side; i++)
            before[i] = (char)(tag ^ (i * 13));
        for (size_t i = 0; i < len; i++)
            src[i] = (char)(tag + i * 31);
        ARMCI_Put(before, there + 64, (int)side, p);
        ARMCI_NbPut(before + side, there + 64 + side, (int)side, p, NULL);
        armci_hdl_t h;
        ARMCI_INIT_HANDLE(&h);
        if (round % 2)
            ARMCI_Put_flag(src, there + 64 + 2 * side, (int)len, (int *)there, round, p);
        else /* the nonblocking form, the source overwritten as soon as it returns */
            ARMCIX_NbPut_flag(src, there + 64 + 2 * side, (int)len, (int *)there, round, p, &h);
        memset(src, 0x5a, len);
        wait_flag(mine, round);
        if (round % 2 == 0)
            ARMCI_Wait(&h);
        unsigned char ltag = (unsigned char)(round * 7 + left);
        long wrong = 0;
        for (size_t i = 0; i < 2 * side; i++)
            wrong += here[64 + i] != (char)(ltag ^ (i * 13));
        for (size_t i = 0; i < len; i++)
            wrong += here[64 + 2 * side + i] != (char)(ltag + i * 31);
        CHECK(wrong == 0, "flagged put of %zu bytes, round %d: %ld bytes wrong", len, round, wrong);
        ARMCI_Barrier(); /* nobody writes the next round before this one is checked */
    }
    free(src);
    free(before);

    /* A blocking flagged put, then at once a plain MPI call, while the target waits for the
     * flag before its own MPI call: the put must not need the sender's later progress
     * (without a progress thread it would never arrive). */
    if (t_np > 1) {
        char *one = malloc(big);
        for (size_t i = 0; i < big; i++)
            one[i] = (char)(i * 3 + 1);
        ARMCI_Barrier();
        if (t_me == 0) {
            ARMCI_Put_flag(one, (char *)base[1] + 64 + 2 * side, (int)big, (int *)base[1], 1000, 1);
        } else if (t_me == 1) {
            wait_flag(mine, 1000);
            CHECK(memcmp(here + 64 + 2 * side, one, big) == 0, "flagged put before MPI_Barrier");
        }
        MPI_Barrier(MPI_COMM_WORLD);
        free(one);
    }

    /* Flagged puts in one direction only: the target sends nothing back that could carry
     * their acknowledgement, so every way of waiting for them must ask for it (a fence, a
     * handle, WaitProc, WaitAll, and a full request pool where ARMCI_MAX_REQUESTS is
     * small); the target meanwhile waits for the last flag, and then checks the data. */
    if (t_np > 1) {
        ARMCI_Barrier();
        int *word = (int *)(there + 64), last = 0;
        if (t_me == 0) {
            for (int k = 1; k <= 300; k++) {
                int v = k * 11;
                if (k <= 100) {
                    ARMCI_Put_flag(&v, word, sizeof(v), (int *)there, 2000 + k, p);
                } else if (k <= 120) {
                    armci_hdl_t h;
                    ARMCI_INIT_HANDLE(&h);
                    ARMCIX_NbPut_flag(&v, word, sizeof(v), (int *)there, 2000 + k, p, &h);
                    ARMCI_Wait(&h);
                } else {
                    ARMCIX_NbPut_flag(&v, word, sizeof(v), (int *)there, 2000 + k, p, NULL);
                }
                if (k == 100)
                    ARMCI_Fence(p);
                if (k == 200)
                    ARMCI_WaitProc(p);
            }
            ARMCI_WaitAll();
            ARMCI_Fence(p);
            /* the fence returns once they are in the target's memory: read them back */
            int flag = 0, value = 0;
            ARMCI_Get(there, &flag, sizeof(flag), p);
            ARMCI_Get(word, &value, sizeof(value), p);
            CHECK(flag == 2300 && value == 300 * 11,
                  "flagged puts in one direction: after ARMCI_Fence the target holds flag %d "
                  "and value %d, not 2300 and %d",
                  flag, value, 300 * 11);
        } else if (t_me == 1) {
            wait_flag(mine, 2300);
            last = *(int *)(here + 64);
            CHECK(last == 300 * 11, "flagged puts in one direction: the last value is %d, not %d",
                  last, 300 * 11);
        }
        ARMCI_Barrier();
    }

    /* Processes 0 and 1 pass a counter back and forth with value puts, no fence: each
     * waits for its flag, first driving progress (ARMCIX_Progress), then in later rounds
     * with plain loads, making no ARMCI call at all. A blocking put to a fabric peer may
     * sit in a message still open for more puts (ARMCI_PUT_COMBINE); the waiting side's
     * progress calls, or else the progress thread, must send it (armci_bench's flag
     * ping-pong waited forever for want of that). The wait with plain loads gives up
     * after 10 s, a failed check rather than a hung test. */
    if (t_np >= 2 && t_me < 2) {
        int *mine = (int *)base[t_me] + 512, *theirs = (int *)base[1 - t_me] + 512;
        /* without progress threads nothing applies a message while its target computes */
        const char *pt = getenv("ARMCI_PROGRESS_THREAD");
        int plain = !(pt && strcmp(pt, "0") == 0);
        int lost = 0;
        for (int round = 1; round <= 40; round++) {
            int v = 2 * round + (t_me == 0 ? 0 : 1); /* 0 sends even values, 1 odd ones */
            if ((round + t_me) % 2 == 1) {
                ARMCI_PutValueInt(v, theirs, 1 - t_me);
                continue;
            }
            int want = 2 * round + (t_me == 0 ? 1 : 0);
            if (round <= 20 || !plain) {
                wait_flag(mine, want);
                continue;
            }
            double t0 = MPI_Wtime();
            while (__atomic_load_n(mine, __ATOMIC_ACQUIRE) != want && MPI_Wtime() - t0 < 10)
                ;
            lost += __atomic_load_n(mine, __ATOMIC_ACQUIRE) != want;
            if (lost)
                break;
        }
        CHECK(lost == 0, "value-put ping-pong, waiting with plain loads: a put never arrived");
    }
    ARMCI_Barrier();

    /* local copy and access brackets */
    char a[64], b[64];
    memset(a, 7, 64);
    ARMCI_Copy(a, b, 64);
    CHECK(memcmp(a, b, 64) == 0, "ARMCI_Copy");
    /* Access brackets as ARMCI-MPI defines them: between ARMCI_Access_begin and
     * ARMCI_Access_end a process loads and stores its own allocation directly, and both
     * calls synchronise that private view with what other processes put and get
     * (ARMCI-MPI's src/onesided.c:31-38 and :59-66 call gmr_sync, src/gmr.c:1030-1041, an
     * MPI_Win_sync where the window is not unified). So what the owner stores in the
     * bracket is what a peer gets after a barrier, and a peer's put before a barrier is
     * what the owner loads in the bracket. Bytes name the writer: a stale or local-only
     * value fails. */
    char *own = base[t_me], seen[64];
    ARMCI_Access_begin(own);
    for (int i = 0; i < 64; i++)
        own[100 + i] = (char)(t_me * 29 + i * 3 + 1);
    ARMCI_Access_end(own);
    ARMCI_Barrier();
    ARMCI_Get((char *)base[p] + 100, seen, 64, p);
    int stale = 0;
    for (int i = 0; i < 64; i++)
        stale += seen[i] != (char)(p * 29 + i * 3 + 1);
    CHECK(stale == 0, "stores of %d in its access bracket, got from it: %d bytes wrong", p, stale);
    char sent[64];
    for (int i = 0; i < 64; i++)
        sent[i] = (char)(t_me * 17 + i * 5 + 2);
    ARMCI_Put(sent, (char *)base[p] + 200, 64, p);
    ARMCI_Barrier();
    ARMCI_Access_begin(own);
    stale = 0;
    for (int i = 0; i < 64; i++)
        stale += own[200 + i] != (char)(left * 17 + i * 5 + 2);
    ARMCI_Access_end(own);
    CHECK(stale == 0, "put of %d, loaded in the access bracket: %d bytes wrong", left, stale);
    ARMCI_Barrier();
    ARMCI_Free(base[t_me]);
    base[t_me] = NULL;
    free(base);
    return t_finish("t_values");
}
