/* SPDX-License-Identifier: BSD-3-Clause */
/* Read-modify-write and mutexes: 1000 fetch-and-adds from every process into one counter
 * (each returned value distinct, the total exact), long and swap forms, and a counter
 * incremented under a mutex with plain get/put 1000 times by every process; a spin lock
 * built of swaps (int and long) under contention, and a loop driven by fetch-and-add. */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <unistd.h>

#include "tester.h"

#define N 1000

/* After a failed attempt at a lock: step aside briefly, so that on an oversubscribed machine
 * the holder (or the target's progress thread) gets the CPU. Returns 1 to keep trying. */
static int t_backoff(void)
{
    struct timespec nap = {0, 20 * 1000};
    nanosleep(&nap, NULL);
    return 1;
}

static int cmp_int(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

/* With T_SLOW_PEER_S set (and a short ARMCI_TIMEOUT), only this: the last process computes
 * that long before each collective, so the others wait past ARMCI_TIMEOUT in the same call,
 * which must not be taken for a mismatch (census.c), however the waits interleave. Nothing
 * else runs then, so that no other wait meets the short ARMCI_TIMEOUT on a loaded machine. */
static void slow_peer(unsigned s)
{
    int last = t_np - 1;
    if (t_me == last)
        sleep(s);
    ARMCI_Barrier();
    double x = t_me + 1;
    if (t_me == last)
        sleep(s);
    armci_msg_dgop(&x, 1, "+");
    CHECK(x == t_np * (t_np + 1) / 2.0, "sum after a slow peer %g, expected %g", x,
          t_np * (t_np + 1) / 2.0);
    if (t_me == 0)
        sleep(s); /* now rank 0 is the one late: the others told it, it reads that later */
    ARMCI_Barrier();
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    if (getenv("T_SLOW_PEER_S")) {
        slow_peer((unsigned)atoi(getenv("T_SLOW_PEER_S")));
        return t_finish("t_sync");
    }
    void **base = malloc((size_t)t_np * sizeof(void *));
    ARMCI_Malloc(base, 80);
    memset(base[t_me], 0, 80);
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
        CHECK(*(int *)base[0] == N * t_np, "counter %d, expected %d", *(int *)base[0], N * t_np);
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

    /* A spin lock made of ARMCI_SWAP, under contention: Global Arrays' armci/testing/
     * test.c:1402-1427 (test_swap) swaps -1 into a word at process 0 until it gets back
     * something else (the lock is then held and the value is the counter), then swaps
     * the value plus one back; LOOP (200) rounds per process must leave exactly 200 * np.
     * While a process holds the lock, the others can only swap -1 over -1, so the swap
     * that releases it must return -1. Every call returns 0 (test.c:1417, 1421). The same
     * with ARMCI_SWAP_LONG on a long word at the last process, every fourth round. */
    {
        enum { ROUNDS = 200 };
        int *sw = (int *)((char *)base[0] + 40);
        long *slw = (long *)((char *)base[last] + 56);
        int rcbad = 0, held_bad = 0;
        long lheld_bad = 0;
        for (int r = 0; r < ROUNDS; r++) {
            int v;
            do {
                v = -1;
                rcbad += ARMCI_Rmw(ARMCI_SWAP, &v, sw, 0, 0) != 0;
            } while (v == -1 && t_backoff());
            v++;
            rcbad += ARMCI_Rmw(ARMCI_SWAP, &v, sw, 0, 0) != 0;
            held_bad += v != -1;
            if (r % 4 != 0)
                continue; /* the long lock: a quarter of the rounds, to keep the run short */
            long lv2;
            do {
                lv2 = -1;
                rcbad += ARMCI_Rmw(ARMCI_SWAP_LONG, &lv2, slw, 0, last) != 0;
            } while (lv2 == -1 && t_backoff());
            lv2 += 1L << 33; /* a value that needs all 64 bits */
            rcbad += ARMCI_Rmw(ARMCI_SWAP_LONG, &lv2, slw, 0, last) != 0;
            lheld_bad += lv2 != -1;
        }
        CHECK(rcbad == 0, "swap spin lock: %d calls returned non-zero", rcbad);
        CHECK(held_bad == 0 && lheld_bad == 0,
              "swap releasing a held lock returned something other than -1: %d int, %ld long",
              held_bad, lheld_bad);
        ARMCI_Barrier();
        CHECK(ARMCI_GetValueInt(sw, 0) == ROUNDS * t_np, "swap spin lock counter %d, expected %d",
              ARMCI_GetValueInt(sw, 0), ROUNDS * t_np);
        CHECK(ARMCI_GetValueLong(slw, last) == ((long)ROUNDS / 4 * t_np) << 33,
              "long swap spin lock counter %ld, expected %ld", ARMCI_GetValueLong(slw, last),
              ((long)ROUNDS / 4 * t_np) << 33);
        ARMCI_Barrier();
    }

    /* The values ARMCI_FETCH_AND_ADD_LONG returns drive a loop: Global Arrays' armci/
     * testing/test.c:1330-1345 (test_fetch_add) adds 1 until the value it gets back
     * reaches LOOP. The values returned are then exactly 0 .. LOOP+np-1, each once (every
     * process stops at the first value >= LOOP, so np of them are >= LOOP), each
     * process's rising, and the counter ends at LOOP + np. */
    {
        enum { LOOP = 200 };
        long *fc = (long *)((char *)base[0] + 48);
        long *mine_v = malloc((LOOP + 64) * sizeof(long));
        int times = 0, rcbad = 0, rising = 1;
        long val = -1;
        do {
            long prev = val;
            rcbad += ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &val, fc, 1, 0) != 0;
            rising &= val > prev;
            if (times < LOOP + 64)
                mine_v[times] = val;
            times++;
        } while (val < LOOP);
        CHECK(rcbad == 0, "fetch-and-add loop: %d calls returned non-zero", rcbad);
        CHECK(rising, "fetch-and-add values seen by one process do not rise");
        int total;
        MPI_Allreduce(&times, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        CHECK(total == LOOP + t_np, "fetch-and-add loop to %d ran %d times in all, expected %d",
              LOOP, total, LOOP + t_np);
        ARMCI_Barrier();
        CHECK(ARMCI_GetValueLong(fc, 0) == LOOP + t_np, "fetch-and-add loop counter %ld",
              ARMCI_GetValueLong(fc, 0));
        if (total == LOOP + t_np) {
            int *cnt = malloc((size_t)t_np * sizeof(int)),
                *dsp = malloc((size_t)t_np * sizeof(int));
            long *allv = malloc((size_t)total * sizeof(long));
            MPI_Allgather(&times, 1, MPI_INT, cnt, 1, MPI_INT, MPI_COMM_WORLD);
            for (int i = 0, d = 0; i < t_np; d += cnt[i++])
                dsp[i] = d;
            MPI_Allgatherv(mine_v, times, MPI_LONG, allv, cnt, dsp, MPI_LONG, MPI_COMM_WORLD);
            char *seen_v = calloc((size_t)total, 1);
            int dup = 0;
            for (int i = 0; i < total; i++)
                dup += allv[i] < 0 || allv[i] >= total || seen_v[allv[i]]++;
            CHECK(dup == 0, "fetch-and-add loop: %d values outside 0..%d or repeated", dup,
                  total - 1);
            free(seen_v);
            free(allv);
            free(cnt);
            free(dsp);
        }
        free(mine_v);
    }

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
    /* two mutexes held at once, at different processes, each guarding a counter that is
     * read and written back under both; each counter is also updated under its own mutex
     * alone, so that if one mutex excluded nobody, its counter's lone updates would race
     * the nested ones (which the other mutex alone serialises) and lose some. Updated
     * under both only, a working mutex would have hidden a broken one. */
    long *c0 = (long *)((char *)base[0] + 64), *c2 = (long *)((char *)base[last] + 72);
    for (int i = 0; i < N / 10; i++) {
        /* (the processor to another process between each read and write: a mutex that
         * excludes nobody then loses updates at once, even with more processes than cores) */
        ARMCI_Lock(0, 0);
        long a = ARMCI_GetValueLong(c0, 0);
        sched_yield();
        ARMCI_PutValueLong(a + 1, c0, 0);
        ARMCI_Unlock(0, 0);
        ARMCI_Lock(2, last);
        long b = ARMCI_GetValueLong(c2, last);
        sched_yield();
        ARMCI_PutValueLong(b + 1, c2, last);
        ARMCI_Unlock(2, last);
        ARMCI_Lock(0, 0);
        ARMCI_Lock(2, last);
        a = ARMCI_GetValueLong(c0, 0);
        b = ARMCI_GetValueLong(c2, last);
        sched_yield();
        ARMCI_PutValueLong(a + 1, c0, 0);
        ARMCI_PutValueLong(b + 1, c2, last);
        ARMCI_Unlock(2, last);
        ARMCI_Unlock(0, 0);
    }
    ARMCI_Barrier();
    if (t_me == 0)
        CHECK(*c0 == 2L * (N / 10) * t_np,
              "counter under mutex 0 of process 0 (alone and nested): %ld, expected %ld", *c0,
              2L * (N / 10) * t_np);
    if (t_me == last)
        CHECK(*c2 == 2L * (N / 10) * t_np,
              "counter under mutex 2 of process %d (alone and nested): %ld, expected %ld", last,
              *c2, 2L * (N / 10) * t_np);
    ARMCI_Barrier();
    ARMCI_Destroy_mutexes();

    ARMCI_Free(base[t_me]);
    free(got);
    free(seen);
    free(base);
    return t_finish("t_sync");
}
