/* Error reporting: the function that first sees a problem reports it here, once. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "armcii.h"
#include "invariant.h"
#include "../health/health.h"

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

void armcii_abort(const char *msg, int code)
{
    int rank = armcii_g.rank, mpi_up = 0, mpi_down = 0;
    MPI_Initialized(&mpi_up);
    MPI_Finalized(&mpi_down);
    if (!armcii_g.initialized && mpi_up && !mpi_down)
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "armci: rank %d: %s\n", rank, msg ? msg : "(no message)");
    fflush(stderr);
    armcii_hb_abort(); /* the others end too, even where the launcher leaves them running */
    if (code == 0)
        code = 1;
    if (mpi_up && !mpi_down)
        MPI_Abort(MPI_COMM_WORLD, code);
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
    fprintf(stderr, "armci: rank %d: %s\n", armcii_g.rank, msg);
    fflush(stderr);
}

void armcii_info_line(const char *line)
{
    if (armcii_g.rank == 0)
        printf("armci: %s\n", line);
}

double armcii_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
