/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Waits on MPI: the runtime's collectives and messages complete MPI requests while they
 * drive our own progress (peers' operations on us may be what MPI waits for), with a
 * watchdog, the census of lost processes, and the MPI errors named by the ARMCI call
 * that waited. How many MPI tests go to one fabric pass is sampled here. Every such
 * wait is a synchronisation point (armcii_progress_on_sync).
 */
#include "progress.h"
#include "runtime.h"
#include "../base/common.h"
#include "../health/health.h"

/* What runs at every synchronisation point (the get cache's transparent mode): registered
 * at start-up, so that the waits call no module above them by name. */
static void (*on_sync)(void);

void armcii_progress_on_sync(void (*fn)(void))
{
    on_sync = fn;
}

/* MPI is asked at every poll, costly as MPI_Test is: asking less often leaves libfabric
 * polls between a finished collective and our noticing it (docs/performance.md, "How the
 * runtime waits").
 *
 * A wait on MPI alternates MPI tests, which notice the collective's end, with passes of
 * the fabric, which serve the peers whose operations on us the collective may wait for.
 * The two get about equal time: as many tests between passes as one pass costs tests.
 * Where MPI's messages go through shared memory a test costs a tenth of a pass over tcp
 * (so 8 tests to a pass, the start); where MPI too goes over TCP a test polls its sockets
 * and costs as much as a pass, and 8 tests would leave a peer's request unread for as long
 * as 8 passes. Both costs are sampled now and then; a pass that serves a transfer takes
 * longer than one that finds nothing, and is no reason to pass less often, so the least of
 * a window of samples is what counts. ARMCI_WAIT_MPI_TESTS fixes the number instead. */
#define MIX_SAMPLE_EVERY 64 /* one timed test in this many, one timed pass in an eighth */
#define MIX_WINDOW       16 /* samples of each whose least counts */
#define MIX_TESTS_MAX    16

typedef struct {
    double least; /* of the window so far */
    unsigned n;   /* samples in the window */
    double cost;  /* the least of the last full window (0: none yet) */
} mix_cost_t;

static struct {
    mix_cost_t test, pass;
    unsigned tests;           /* MPI tests per fabric pass */
    unsigned ntests, npasses; /* seen, for the sampling */
} mix = {.tests = 8};

static void mix_fold(mix_cost_t *c, double s)
{
    c->least = c->n == 0 || s < c->least ? s : c->least;
    if (++c->n < MIX_WINDOW)
        return;
    c->cost = c->least;
    c->n = 0;
    if (mix.test.cost <= 0 || mix.pass.cost <= 0)
        return;
    double r = mix.pass.cost / mix.test.cost + 0.5;
    mix.tests = r < 1 ? 1 : r > MIX_TESTS_MAX ? MIX_TESTS_MAX : (unsigned)r;
}

static void mix_test(int n, MPI_Request *mreqs, int *done, MPI_Status *statuses)
{
    if (++mix.ntests % MIX_SAMPLE_EVERY != 0 || armcii_rt.env.WAIT_MPI_TESTS > 0) {
        MPI_Testall(n, mreqs, done, statuses);
        return;
    }
    double t0 = armcii_now();
    MPI_Testall(n, mreqs, done, statuses);
    mix_fold(&mix.test, armcii_now() - t0);
}

static void mix_pass(const char *call, unsigned *idle)
{
    if (++mix.npasses % (MIX_SAMPLE_EVERY / 8) != 0 || !armcii_rt.fabric ||
        armcii_rt.env.WAIT_MPI_TESTS > 0) {
        armcii_poll_waiting_timed(call, idle, NULL);
        return;
    }
    double spent;
    armcii_poll_waiting_timed(call, idle, &spent);
    mix_fold(&mix.pass, spent);
}

void armcii_mpi_wait(const char *call, MPI_Request *mreq)
{
    armcii_mpi_waitall(call, 1, mreq);
}

/* The ARMCI call waiting on MPI, for the error handler of the runtime's communicators. */
static const char *mpi_call;

static void on_mpi_error(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    char text[MPI_MAX_ERROR_STRING];
    int len = 0, cls = MPI_ERR_OTHER;
    MPI_Error_string(*code, text, &len);
    MPI_Error_class(*code, &cls);
    armcii_fatal(mpi_call ? mpi_call : "ARMCI (inside MPI)", "MPI reported: %s%s", text,
                 cls == MPI_ERR_TRUNCATE
                     ? " (a message was longer than its receive buffer: the processes called "
                       "this collective with different counts, or called different "
                       "collectives)"
                     : "");
}

void armcii_mpi_name_errors(MPI_Comm comm)
{
    MPI_Errhandler eh;
    MPI_Comm_create_errhandler(on_mpi_error, &eh);
    MPI_Comm_set_errhandler(comm, eh);
    MPI_Errhandler_free(&eh);
}

void armcii_mpi_waitall(const char *call, int n, MPI_Request *mreqs)
{
    armcii_mpi_waitall_status(call, n, mreqs, MPI_STATUSES_IGNORE);
}

void armcii_mpi_waitall_status(const char *call, int n, MPI_Request *mreqs, MPI_Status *statuses)
{
    /* Every MPI wait of the runtime is a collective or a message: a synchronisation point
     * (for the get cache's transparent mode). */
    if (on_sync)
        on_sync();
    int done = 0;
    armcii_watch_t w = {0};
    /* Not bounded by ARMCI_TIMEOUT: peers may compute for long before they join in. */
    w.t0 = armcii_now();
    const char *outer = mpi_call;
    mpi_call = call;
    for (unsigned i = 0; !done; i++) {
        mix_test(n, mreqs, &done, statuses);
        if (done)
            break;
        if (i % mix.tests == mix.tests - 1)
            mix_pass(call, &w.idle);
        if (i % ARMCII_CLOCK_EVERY != ARMCII_CLOCK_EVERY - 1)
            continue;
        double now = armcii_now();
        armcii_census_poll(call, &w.stuck, w.t0, now);
        if (armcii_rt.env.WATCHDOG > 0 && !w.barked && now - w.t0 >= armcii_rt.env.WATCHDOG) {
            w.barked = 1;
            armcii_warn("watchdog: %s: the collective step has waited %.0f s for the other "
                        "processes and is still waiting",
                        call, now - w.t0);
        }
    }
    armcii_census_leave(&w.stuck);
    mpi_call = outer;
}

void armcii_mpi_wait_init(void)
{
    if (armcii_rt.env.WAIT_MPI_TESTS > 0) /* chosen: from the first wait, never sampled */
        mix.tests = (unsigned)armcii_rt.env.WAIT_MPI_TESTS;
}
