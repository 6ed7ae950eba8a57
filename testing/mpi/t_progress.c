/* SPDX-License-Identifier: BSD-3-Clause */
/* Progress: while process 1 computes for 2 s without calling ARMCI, 8-byte gets from
 * process 0 must complete before that computation ends: process 1 marks its end in its
 * memory, and the gets must find the mark not yet there (an event, not a time bound; the
 * latency is printed). Likewise while process 1 waits in ARMCI_Barrier and in
 * armci_msg_dgop for process 0, whose accumulates, flagged puts and gets aimed at it must
 * be served before process 0 joins (a runtime that sat inside MPI holding its lock would
 * never serve them, and the run would end at its time limit).
 * With T_PROGRESS_CPUS set (to what ARMCI_PROGRESS_CPUS says), the progress thread of
 * every process must run on exactly those CPUs. */
#include <dirent.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tester.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* How many threads of this process other than the main one may run on exactly @p list. */
static int threads_on(const char *list)
{
    DIR *d = opendir("/proc/self/task");
    CHECK(d != NULL, "cannot list this process's threads");
    int found = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || atoi(e->d_name) == (int)getpid())
            continue;
        char path[300], line[256];
        snprintf(path, sizeof path, "/proc/self/task/%s/status", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue; /* a thread that has just ended */
        while (fgets(line, sizeof line, f))
            if (!strncmp(line, "Cpus_allowed_list:", 18)) {
                char *v = line + 18;
                v += strspn(v, " \t");
                v[strcspn(v, "\n")] = '\0';
                found += !strcmp(v, list);
            }
        fclose(f);
    }
    closedir(d);
    return found;
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    const char *want_cpus = getenv("T_PROGRESS_CPUS");
    if (want_cpus && ARMCIX_Path_of((t_me + 1) % t_np) == ARMCIX_PATH_FABRIC)
        CHECK(threads_on(want_cpus) >= 1, "no progress thread runs on CPUs %s", want_cpus);
    void **base = malloc((size_t)t_np * sizeof(void *));
    ARMCI_Malloc(base, 64);
    *(long *)base[t_me] = 4242 + t_me;
    volatile long *computed = (volatile long *)((char *)base[t_me] + 32);
    *computed = 0;
    ARMCI_Barrier();
    /* Warm the connection up first: its set-up is not what is measured. */
    long v = 0;
    if (t_me == 0)
        ARMCI_Get(base[1], &v, sizeof(v), 1);
    ARMCI_Barrier();

    /* Process 1 computes, making no ARMCI call, until process 0 has read from it and put
     * `stop` (both served only by its progress), then marks `computed` with a plain
     * store. Events, not a window of time: process 1 says by an MPI message that it starts
     * (eager: it waits for no one), and stops when told; only a runtime that serves
     * nobody meanwhile makes it give up, after 60 s, and fail. */
    volatile long *stop = (volatile long *)((char *)base[t_me] + 40);
    *stop = 0;
    ARMCI_Barrier();
    if (t_me == 1) {
        volatile double x = 0;
        int go = 1;
        MPI_Send(&go, 1, MPI_INT, 0, 77, MPI_COMM_WORLD);
        double t0 = now();
        /* an acquire load: the target stores the put word as a release (am_target.c) */
        while (!__atomic_load_n(stop, __ATOMIC_ACQUIRE) && now() - t0 < 60.0)
            for (int i = 0; i < 10000; i++)
                x += 1e-9 * i;
        CHECK(*stop, "process 0's gets and put were not served in 60 s of computing");
        *computed = 1; /* a plain store: no ARMCI call while computing, nor at its end */
    } else if (t_me == 0) {
        int go = 0;
        MPI_Recv(&go, 1, MPI_INT, 1, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        double worst = 0;
        for (int k = 0; k < 5; k++) {
            v = 0;
            double t0 = now();
            ARMCI_Get(base[1], &v, sizeof(v), 1);
            double dt = now() - t0;
            if (dt > worst)
                worst = dt;
            CHECK(v == 4243, "got %ld", v);
        }
        long mark = -1, one = 1;
        ARMCI_Get((char *)base[1] + 32, &mark, sizeof(mark), 1);
        CHECK(mark == 0,
              "the gets to a computing process were served only after it stopped computing "
              "(worst %.1f ms)",
              worst * 1e3);
        ARMCI_Put(&one, (char *)base[1] + 40, sizeof(one), 1);
        printf("t_progress: worst get latency to a computing process %.3f ms (path %d)\n",
               worst * 1e3, ARMCIX_Path_of(1));
    }
    ARMCI_Barrier();

    /* process 1 waits in a collective while process 0 works on it */
    double *acc = (double *)base[t_me];
    int *flag = (int *)((char *)base[t_me] + 16);
    *acc = 0.0;
    *flag = 0;
    ARMCI_Barrier();
    for (int round = 0; round < 2; round++) {
        double one = 1.0, mine = t_me == 1 ? 5.0 : 0.0;
        if (t_me == 1) { /* on its way into the collective (an event, not a nap) */
            int go = 1;
            MPI_Send(&go, 1, MPI_INT, 0, 78, MPI_COMM_WORLD);
        }
        if (t_me == 0) {
            int go = 0;
            MPI_Recv(&go, 1, MPI_INT, 1, 78, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            double worst = 0;
            for (int k = 0; k < 50; k++) {
                double t0 = now();
                ARMCI_Acc(ARMCI_ACC_DBL, &one, &one, base[1], sizeof(double), 1);
                double x = 0;
                ARMCI_Get(base[1], &x, sizeof(x), 1);
                ARMCI_Put_flag(&one, (char *)base[1] + 8, sizeof(one),
                               (int *)((char *)base[1] + 16), round * 50 + k + 1, 1);
                double dt = now() - t0;
                worst = dt > worst ? dt : worst;
                CHECK(x == round * 50 + k + 1, "%s round: process 1 held %g, not %d",
                      round ? "reduction" : "barrier", x, round * 50 + k + 1);
            }
            printf("t_progress: worst accumulate, get and flagged put to a process in %s: "
                   "%.3f ms\n",
                   round ? "armci_msg_dgop" : "ARMCI_Barrier", worst * 1e3);
        }
        if (round == 0) {
            ARMCI_Barrier(); /* process 0 joins last; the barrier completes its puts */
        } else {
            if (t_me == 0)
                ARMCI_Fence(1); /* a reduction is not a fence */
            armci_msg_dgop(&mine, 1, "+");
        }
        if (round == 1)
            CHECK(mine == 5.0, "the reduction gave %g, not 5", mine);
        if (t_me == 1)
            CHECK(*acc == round * 50 + 50 && *flag == round * 50 + 50,
                  "after the %s, process 1 holds %g and flag %d", round ? "reduction" : "barrier",
                  *acc, *flag);
    }

    ARMCI_Barrier();
    ARMCI_Free(base[t_me]);
    free(base);
    return t_finish("t_progress");
}
