/* SPDX-License-Identifier: BSD-3-Clause */
/* A known number of operations for the statistics check (testing/stats.sh): 1000 gets of
 * 8 bytes, 100 puts of 64 bytes, 10 double accumulates and 5 fetch-and-adds per process,
 * all to the next process; then 10 small all-to-alls, 4 large allgathers and 3 reductions
 * of a double; then broadcasts of 8 and 100 000 bytes, and a barrier and a reduction of a
 * group of every process; then 1000 calls of ARMCIX_Progress with nothing to do; then a
 * ping-pong of 100 flagged puts each way between processes 0 and 1. With T_FLOOD, first a
 * flood of puts to a process that is away (below). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <message.h>

#include "tester.h"

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    void **base = malloc((size_t)t_np * sizeof(void *));
    ARMCI_Malloc(base, 4096);
    memset(base[t_me], 0, 4096);
    ARMCI_Barrier();
    /* T_FLOOD=N, before anything else: process 1 stays outside ARMCI for 300 ms while
     * process 0 puts N blocks of 8 bytes to it, nonblocking; run without progress threads,
     * nothing there meanwhile takes the connection process 0 asks for, nor what it sends
     * (stats.sh's queue-full cases). The last block must have arrived once all are
     * complete. The counts of everything after are as above, plus these N puts. */
    const char *flood = getenv("T_FLOOD");
    if (flood && t_np > 1) {
        long n = atol(flood);
        long *block = (long *)((char *)base[t_me] + 2048);
        ARMCI_Barrier();
        if (t_me == 1) {
            struct timespec ts = {0, 300000000L};
            nanosleep(&ts, NULL);
        } else if (t_me == 0) {
            long *vals = malloc((size_t)n * sizeof(long)); /* each put's source its own */
            for (long i = 0; i < n; i++) {
                vals[i] = i + 1;
                ARMCI_NbPut(&vals[i], (char *)base[1] + 2048, sizeof(long), 1, NULL);
            }
            ARMCI_WaitAll();
            free(vals);
        }
        ARMCI_Barrier();
        if (t_me == 1)
            CHECK(*block == n, "after %ld puts of 1..%ld the block holds %ld", n, n, *block);
    }
    int p = (t_me + 1) % t_np, old;
    char buf[64] = {0};
    double one = 1.0, v = 2.0;
    for (int i = 0; i < 1000; i++)
        ARMCI_Get(base[p], buf, 8, p);
    for (int i = 0; i < 100; i++)
        ARMCI_Put(buf, (char *)base[p] + 64, 64, p);
    for (int i = 0; i < 10; i++)
        ARMCI_Acc(ARMCI_ACC_DBL, &one, &v, (char *)base[p] + 256, sizeof(double), p);
    for (int i = 0; i < 5; i++)
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &old, (char *)base[p] + 512, 1, p);
    ARMCI_Barrier();
    /* what the previous process did to this one's memory arrived (zeroed above; nothing
     * else writes these words) */
    double acc = *(double *)((char *)base[t_me] + 256);
    int adds = *(int *)((char *)base[t_me] + 512);
    CHECK(acc == 20.0, "10 accumulates of 1.0 x 2.0 summed to %g", acc);
    CHECK(adds == 5 && old == 4, "5 fetch-and-adds of 1: the word is %d, the last fetched %d", adds,
          old);
    /* collectives: 10 all-to-alls of 8-byte blocks, 4 allgathers of 64 KiB blocks from
     * malloc buffers */
    size_t big = 64 << 10;
    char *s = malloc(big), *r = malloc(big * (size_t)t_np), small[64] = {0}, out[64];
    memset(s, t_me, big);
    for (int i = 0; i < 10; i++)
        ARMCIX_Alltoall(small, out, 8, NULL);
    for (int i = 0; i < 4; i++)
        ARMCIX_Allgather(s, r, big, NULL);
    int got = 1;
    for (int q = 0; q < t_np; q++)
        got &= r[(size_t)q * big + big - 1] == (char)q;
    CHECK(got, "allgather delivered every block");
    double d = 1.0; /* 3 reductions: on one node, through shared memory like the above */
    for (int i = 0; i < 3; i++)
        armci_msg_dgop(&d, 1, "+");
    CHECK(d == (double)t_np * t_np * t_np, "dgop");
    /* off one node, point-to-point messages carry the 8-byte broadcast and the group's
     * barrier and reduction; the 100 000-byte broadcast is longer than they take */
    char *bb = malloc(100000);
    memset(bb, t_me == 0 ? 7 : 0, 100000);
    long w = t_me == 0 ? 99 : 0;
    armci_msg_bcast(&w, sizeof(w), 0);
    armci_msg_bcast(bb, 100000, 0);
    CHECK(w == 99 && bb[0] == 7 && bb[99999] == 7, "broadcasts");
    free(bb);
    int *all = malloc((size_t)t_np * sizeof(int));
    for (int q = 0; q < t_np; q++)
        all[q] = q;
    ARMCI_Group g;
    ARMCI_Group_create(t_np, all, &g);
    armci_msg_group_barrier(&g);
    double gd = 1.0;
    armci_msg_group_dgop(&gd, 1, "+", &g);
    CHECK(gd == (double)t_np, "group dgop");
    ARMCI_Group_free(&g);
    free(all);
    free(s);
    free(r);
    ARMCI_Barrier();
    for (int i = 0; i < 1000; i++) /* nothing in flight: each yields if ARMCI_YIELD_IDLE */
        ARMCIX_Progress();
    /* each flag answered at once: the acknowledgement of a flagged put can ride on the
     * answer (ARMCI_ACK_DEFER) */
    int *flag = (int *)((char *)base[t_me] + 1024);
    long *data = (long *)((char *)base[t_me] + 1104);
    if (t_me < 2 && t_np > 1) {
        int peer = 1 - t_me, *theirs = (int *)((char *)base[peer] + 1024);
        long out = 0, late = 0;
        for (int i = 1; i <= 100; i++) {
            out = 1000L * (t_me + 1) + i; /* the data of round i, and whose */
            if (t_me == 0)
                ARMCI_Put_flag(&out, (char *)base[peer] + 1104, 8, theirs, i, peer);
            /* an acquire load: the target stores the flag as a release after the data */
            T_WAIT_FOR(flag, i, "round %d: the flag of ARMCI_Put_flag", i);
            /* the flag of round i is up: the data it carries must be there with it */
            late += *data != 1000L * (2 - t_me) + i;
            if (t_me == 1)
                ARMCI_Put_flag(&out, (char *)base[peer] + 1104, 8, theirs, i, peer);
        }
        CHECK(late == 0, "%ld of 100 flags of the ping-pong were seen before their data", late);
    }
    ARMCI_Barrier();
    /* T_IDLE_MS: each process then leaves ARMCI alone that long, a window in which its
     * progress thread finds the runtime's lock free (stats.sh's keep-warm cases) */
    const char *idle = getenv("T_IDLE_MS");
    if (idle) {
        long ms = atol(idle);
        struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
    ARMCI_Free(base[t_me]);
    free(base);
    return t_finish("t_stats");
}
