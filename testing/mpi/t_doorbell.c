/* SPDX-License-Identifier: BSD-3-Clause */
/* The doorbell (src/transport/bell.c): a process that computes, making no ARMCI call,
 * with a progress thread whose nap is longer than the whole test
 * (ARMCI_PROGRESS_INTERVAL_US, set by the matrix line to 5 s), still serves its peers'
 * fetch-and-adds, accumulates and gets at once, because each waiting peer rings it awake.
 *
 * Process 0 computes until its done word says every other process has finished, and
 * gives up after T_BELL_WINDOW_S (default 4) seconds, less than one nap: without the
 * doorbell at most the one timer that was running when it began could serve a request
 * inside the window, and the 40 fetch-and-adds each process makes in a row need 40
 * wakes. (Run by hand with ARMCI_DOORBELL_US=0, it fails so.) The others check what
 * they got back: the counter's old values, each unique; process 0 checks the counter,
 * the accumulated sum and that it ended its computation on the done word, not the
 * window. This is NWChem's nxtval pattern (ga/global/src/nxtval.c: ARMCI_Rmw on one
 * counter of process 0) against a holder that computes. */
#include <string.h>
#include <time.h>

#include "tester.h"

#define ROUNDS 40

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    const char *w = getenv("T_BELL_WINDOW_S");
    double window = w ? atof(w) : 4.0;
    void **base = malloc((size_t)t_np * sizeof(void *));
    ARMCI_Malloc(base, 64);
    long *counter = (long *)base[t_me];
    double *sum = (double *)((char *)base[t_me] + 8);
    long *done = (long *)((char *)base[t_me] + 16);
    double *data = (double *)((char *)base[t_me] + 24);
    *counter = 0;
    *sum = 0;
    *done = 0;
    *data = 100.0 + t_me;
    ARMCI_Barrier();
    /* Connections are made first: their set-up is not what is tested. */
    if (t_me != 0) {
        double x = 0;
        ARMCI_Get(base[0], &x, sizeof x, 0);
    }
    ARMCI_Barrier();

    if (t_me == 0) {
        /* An MPI message from each says it starts; then no ARMCI call until the end. */
        for (int p = 1; p < t_np; p++) {
            int go;
            MPI_Recv(&go, 1, MPI_INT, p, 91, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        volatile double x = 0;
        double t0 = now();
        /* an acquire load: the target stores a fetch-and-add's result with a release */
        while (__atomic_load_n(done, __ATOMIC_ACQUIRE) < t_np - 1 && now() - t0 < window)
            for (int i = 0; i < 10000; i++)
                x += 1e-9 * i;
        long seen = __atomic_load_n(done, __ATOMIC_ACQUIRE);
        CHECK(seen == t_np - 1,
              "after %.1f s of computing, %ld of %d processes were served: the peers' requests "
              "waited for the progress thread's nap",
              now() - t0, seen, t_np - 1);
        if (seen == t_np - 1)
            printf("t_doorbell: the calls of %d processes (%d each) served in %.1f ms of "
                   "computing\n",
                   t_np - 1, 3 * ROUNDS + 1, (now() - t0) * 1e3);
    } else {
        int go = 1;
        MPI_Send(&go, 1, MPI_INT, 0, 91, MPI_COMM_WORLD);
        long prev = -1;
        double one = 1.0;
        for (int k = 0; k < ROUNDS; k++) {
            long old = -1;
            ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, base[0], 1, 0);
            CHECK(old >= 0 && old < (long)(t_np - 1) * ROUNDS && old > prev,
                  "fetch-and-add %d returned %ld after %ld", k, old, prev);
            prev = old;
            ARMCI_Acc(ARMCI_ACC_DBL, &one, &one, (char *)base[0] + 8, sizeof one, 0);
            double x = 0;
            ARMCI_Get((char *)base[0] + 24, &x, sizeof x, 0);
            CHECK(x == 100.0, "get %d read %g, not 100", k, x);
        }
        long old;
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, (char *)base[0] + 16, 1, 0);
    }
    ARMCI_AllFence();
    ARMCI_Barrier();
    if (t_me == 0) {
        CHECK(*counter == (long)(t_np - 1) * ROUNDS, "the counter holds %ld, not %ld", *counter,
              (long)(t_np - 1) * ROUNDS);
        CHECK(*sum == (double)(t_np - 1) * ROUNDS, "the accumulated sum is %g, not %d", *sum,
              (t_np - 1) * ROUNDS);
    }
    ARMCI_Barrier();
    ARMCI_Free(base[t_me]);
    free(base);
    return t_finish("t_doorbell");
}
