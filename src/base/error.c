/* SPDX-License-Identifier: BSD-3-Clause */
/* Error reporting: the function that first sees a problem reports it here, once. */
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "common.h"
#include "invariant.h"

/* What this file knows of the job, told by the runtime: the rank to name, whether the
 * runtime is up (before, the rank is asked of MPI), and whom to tell before the job
 * ends (the heartbeats: the others end too, even where the launcher leaves them
 * running). error.c reads nothing else, so every layer may call it. */
static struct {
    int rank;
    int up;
    void (*on_abort)(const char *msg);
} job;

void armcii_error_rank(int rank, int up)
{
    job.rank = rank;
    job.up = up;
}

void armcii_error_on_abort(void (*fn)(const char *msg))
{
    job.on_abort = fn;
}

void armcii_fatal(const char *call, const char *fmt, ...)
{
    char msg[1024];
    int n = snprintf(msg, sizeof(msg), "%s: ", call);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
    va_end(ap);
    armcii_abort(msg, 1);
}

/* Until a pipe's reader has taken what is in it (at most 2 s; at once for a file or a
 * terminal, where FIONREAD fails or says 0). Linux answers FIONREAD on the writing end too. */
static void wait_read(int fd)
{
    struct timespec nap = {0, 5 * 1000 * 1000};
    for (int i = 0; i < 400; i++) {
        int left = 0;
        if (ioctl(fd, FIONREAD, &left) != 0 || left <= 0)
            break;
        nanosleep(&nap, NULL);
    }
}

void armcii_abort(const char *msg, int code)
{
    int rank = job.rank, mpi_up = 0, mpi_down = 0;
    MPI_Initialized(&mpi_up);
    MPI_Finalized(&mpi_down);
    if (!job.up && mpi_up && !mpi_down)
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "armci: rank %d: %s\n", rank, msg ? msg : "(no message)");
    fflush(stderr);
    if (job.on_abort)
        job.on_abort(msg ? msg : "(no message)");
    if (code == 0)
        code = 1;
    if (mpi_up && !mpi_down) {
        /* The message sits in the pipe to the launcher's daemon; MPI_Abort has the launcher
         * end the job, and hydra (MPICH's) could end that daemon before it had read the pipe:
         * 1 job in 20 here ended with no message after a fixed 100 ms pause, more with every
         * core busy. So wait until the daemon has read what this process wrote. */
        fflush(stdout);
        wait_read(STDOUT_FILENO);
        wait_read(STDERR_FILENO);
        MPI_Abort(MPI_COMM_WORLD, code);
    }
    exit(code);
}

void armcii_invariant_failed(const char *file, int line, const char *cond, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    armcii_fatal("armci-ofi internal check", "failed at %s:%d: %s (%s)", file, line, cond, what);
}

void armcii_warn(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "armci: rank %d: %s\n", job.rank, msg);
    fflush(stderr);
}

void armcii_info_line(const char *line)
{
    if (job.rank == 0)
        printf("armci: %s\n", line);
}

size_t armcii_proc_status(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char l[256];
    size_t kb = 0, n = strlen(key);
    while (f && fgets(l, sizeof l, f))
        if (strncmp(l, key, n) == 0)
            kb = (size_t)strtoull(l + n, NULL, 10);
    if (f)
        fclose(f);
    return kb << 10;
}

double armcii_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int armcii_idle_poll(unsigned *idle, int found, unsigned every)
{
    if (found > 0) {
        *idle = 0;
        return 0;
    }
    if (++*idle % every != 0)
        return 0;
    sched_yield();
    return 1;
}
