/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A process dies in the middle of the run (SIGKILL, as an out-of-memory kill or a node
 * failure would do it) and the survivors must not hang: each must end through ARMCI_Error
 * naming the dead rank. Run by testing/dead.sh with MPI_KEEP_GOING (run-mpi.sh: Open MPI's
 * --enable-recovery, hydra's -disable-auto-cleanup), so that the launcher leaves the
 * survivors to us. The last rank dies after DIE_AFTER seconds, while
 * the survivors are
 *   storm    getting from and putting to it, with a barrier every 64 rounds;
 *   mutex    queued behind it for a mutex it holds;
 *   barrier  waiting for it in ARMCI_Barrier;
 *   coll     waiting for it in ARMCIX_Alltoall;
 *   msg      waiting for it in armci_msg_dgop;
 *   read     reading its memory with ARMCI_Get and nothing else (no wait loop runs when
 *            the victim shares their node: the get is a copy from the node heap).
 * With T_DEAD_EXTERNAL=1 the victim does not kill itself: it calls ARMCIX_Progress until
 * GIVE_UP and something outside (cluster.sh: a kill, a link taken down, SIGSTOP) is the
 * fault; with T_DEAD_ERROR=1 it calls ARMCI_Error after DIE_AFTER seconds, which must end
 * the others too, even under a launcher that leaves them running. Every process says "t_dead: rank
 * N: running (MODE), process PID" as it starts, and in mode read each reader "t_dead: rank N:
 * reading" once its first get has completed (cluster.sh brings the fault then). A survivor that is
 * still running 40 s later prints "no error" and exits 3. Mode "slow" kills nobody: the last rank
 * sleeps (be_late) outside ARMCI while the others get from it and wait for it in a barrier; with
 * ARMCI_WATCHDOG set they must say so, and the run then ends normally. Mode "slowcoll" does the
 * same with collectives.
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <armci.h>
#include <armcix.h>
#include <message.h>

#define DIE_AFTER 0.5
#define GIVE_UP   40.0
#define BYTES     8192

/* In modes slow and slowcoll the last rank is late by the watchdog's limit twice over
 * (ARMCI_WATCHDOG, whole seconds) and half a second more, counted from when every other
 * rank has said it starts the call that waits for it (an MPI message each): so the
 * others wait at least twice the limit, on a machine however loaded. */
static void be_late(int me, int victim, int np)
{
    const char *w = getenv("ARMCI_WATCHDOG");
    int limit = w && atoi(w) > 0 ? atoi(w) : 1, word = 0;
    if (me != victim) {
        MPI_Send(&word, 1, MPI_INT, victim, 77, MPI_COMM_WORLD);
        return;
    }
    for (int q = 0; q < np - 1; q++)
        MPI_Recv(&word, 1, MPI_INT, MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    sleep((unsigned)(2 * limit));
    usleep(500000);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const char *mode = argc > 1 ? argv[1] : "storm";
    int victim = np - 1;
    void **base = malloc(sizeof(void *) * np);
    char *buf = malloc(BYTES);
    ARMCI_Malloc(base, BYTES);
    ARMCI_Create_mutexes(1);
    memset(base[me], me, BYTES);
    /* in mode mutex, the victim's word to the others: it holds the mutex */
    volatile int *held = (volatile int *)((char *)base[me] + BYTES - 64);
    *held = 0;
    ARMCI_Barrier();
    double t0 = MPI_Wtime();

    if (!strcmp(mode, "slowcoll")) {
        /* the last rank is late (be_late) each time, for a small all-to-all (each
         * process waits for each other's data) and a large allgather (a node barrier) */
        char s[16384 * 4], r[16384 * 4];
        int ok = 1;
        for (int big = 0; big < 2; big++) {
            size_t bb = big ? sizeof s / 4 : 8;
            memset(s, me + 1, sizeof s);
            be_late(me, victim, np);
            if (big)
                ARMCIX_Allgather(s, r, bb, NULL);
            else
                ARMCIX_Alltoall(s, r, bb, NULL);
            for (int q = 0; q < np; q++)
                ok &= r[(size_t)q * bb] == (char)(q + 1);
        }
        ARMCI_Free(base[me]);
        ARMCI_Finalize();
        MPI_Finalize();
        return ok ? 0 : 1;
    }
    if (!strcmp(mode, "slow")) {
        be_late(me, victim, np);
        if (me != victim) {
            double tg = MPI_Wtime();
            ARMCI_Get(base[victim], buf, BYTES, victim);
            fprintf(stderr, "t_dead: rank %d: the get took %.2f s\n", me, MPI_Wtime() - tg);
            if (buf[0] != (char)victim)
                fprintf(stderr, "t_dead: rank %d: got %d from rank %d\n", me, buf[0], victim);
        }
        ARMCI_Barrier();
        int ok = me == victim || buf[0] == (char)victim;
        ARMCI_Free(base[me]);
        ARMCI_Finalize();
        MPI_Finalize();
        return ok ? 0 : 1;
    }

    const char *ext = getenv("T_DEAD_EXTERNAL");
    int external = ext && atoi(ext) == 1;
    fprintf(stderr, "t_dead: rank %d: running (%s), process %d\n", me, mode, (int)getpid());
    const char *err = getenv("T_DEAD_ERROR");
    if (me == victim && err && atoi(err) == 1) {
        /* not a death: this process ends the job itself */
        while (MPI_Wtime() - t0 < DIE_AFTER)
            ARMCIX_Progress();
        ARMCI_Error("t_dead: ending the job on purpose", 7);
    }
    if (me == victim && external) {
        while (MPI_Wtime() - t0 < GIVE_UP) {
            ARMCIX_Progress();
            usleep(1000);
        }
        printf("t_dead: rank %d: no fault came (%s)\n", me, mode);
        return 3;
    }
    if (me == victim) {
        if (!strcmp(mode, "mutex")) {
            ARMCI_Lock(0, 0);
            for (int p = 0; p < victim; p++)
                ARMCI_PutValueInt(1, (char *)base[p] + BYTES - 64, p);
            ARMCI_AllFence();
        }
        if (!strcmp(mode, "storm")) {
            /* keep up with the survivors' barriers until the end comes */
            for (long it = 0;; it++) {
                if (it % 64 == 0) {
                    if (MPI_Wtime() - t0 > DIE_AFTER)
                        break;
                    ARMCI_Barrier();
                }
                ARMCI_Get(base[0], buf, BYTES, 0);
            }
        } else {
            while (MPI_Wtime() - t0 < DIE_AFTER)
                ARMCIX_Progress();
        }
        fprintf(stderr, "t_dead: rank %d: dying now (%s)\n", me, mode);
        raise(SIGKILL);
    }

    if (!strcmp(mode, "storm")) {
        for (long it = 0; MPI_Wtime() - t0 < GIVE_UP; it++) {
            armci_hdl_t h;
            ARMCI_INIT_HANDLE(&h);
            ARMCI_NbGet(base[victim], buf, BYTES, victim, &h);
            ARMCI_Wait(&h);
            ARMCI_Put(buf, base[victim], BYTES, victim);
            if (it % 64 == 0)
                ARMCI_Barrier();
        }
    } else if (!strcmp(mode, "read")) {
        for (long it = 0; MPI_Wtime() - t0 < GIVE_UP; it++) {
            ARMCI_Get(base[victim], buf, BYTES, victim);
            if (it == 0) /* for cluster.sh: the fault may come now */
                fprintf(stderr, "t_dead: rank %d: reading\n", me);
        }
    } else if (!strcmp(mode, "mutex")) {
        while (!*held && MPI_Wtime() - t0 < GIVE_UP) /* until the victim holds it */
            ARMCIX_Progress();
        ARMCI_Lock(0, 0); /* the victim holds it and will never give it back */
        ARMCI_Unlock(0, 0);
    } else if (!strcmp(mode, "barrier")) {
        ARMCI_Barrier();
    } else if (!strcmp(mode, "coll")) {
        char s[8 * 16], r[8 * 16];
        memset(s, me, sizeof s);
        ARMCIX_Alltoall(s, r, 8, NULL);
    } else {
        double x = 1.0;
        armci_msg_dgop(&x, 1, "+");
    }
    printf("t_dead: rank %d: no error %.0f s after rank %d died (%s)\n", me, MPI_Wtime() - t0,
           victim, mode);
    return 3;
}
