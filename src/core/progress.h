/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Progress (armcii_prog, written by progress.c alone): polling, waiting for requests and
 * counters, the watchdog's view of a long wait, the progress thread and the runtime lock
 * every API call takes; and waits on MPI that serve peers meanwhile (mpiwait.c).
 */
#ifndef ARMCII_PROGRESS_H
#define ARMCII_PROGRESS_H

#include <mpi.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/common.h"
#include "../base/pool.h"
#include "../transport/transport.h"

/** The progress engine's state (progress.c writes it; armcii_lock and armcii_unlock,
 *  below, take and release its lock). */
typedef struct {
    /* What is set once at start-up and read on every call ... */
    /* No thread moves data while the application is outside ARMCI, and the provider needs
     * the sender's calls to move it (a large message's later segments): blocking calls
     * then wait until what they sent has arrived, since the caller may next block in MPI
     * and never call ARMCI again until its peer, which waits for that data, does. */
    int sends_need_caller;
    /* Empty polls of a wait between yields of the processor: 1 where processes outnumber
     * hardware threads (ARMCI_YIELD_IDLE), so a waiter gives the processor to the peer it
     * waits for; ARMCIX_Progress then yields too when it finds nothing to do. */
    unsigned yield_after;
    /* The thread runs where no process is bound (armcii_topo_progress_elsewhere) and the
     * node is not oversubscribed: it naps ARMCI_PROGRESS_INTERVAL_US, not 1 ms, and large
     * nonblocking requests wake it (armcii_progress_kick). */
    int own_cpu;
    int thread_on;
    pthread_t tid;
    /* How long the thread naps between passes with nothing to do, and why (VERBOSE). */
    long idle_us;
    const char *idle_why;
    /* How long a wait for a fabric peer lasts before it rings the peer's doorbell, and why
     * (ARMCI_DOORBELL_US, longer where processes outnumber hardware threads). */
    long bell_us;
    const char *bell_why;

    /* ... and what both threads write, on a line of its own, so that the progress
     * thread's writes do not take from the caller the line it only reads. */
    pthread_mutex_t lock __attribute__((aligned(64))); /* held by every ARMCI call and by
                                                          the progress thread */
    int stop; /* set by the main thread, read by the progress thread: atomics */
    /* Waking the napping thread: a counter it sleeps on, and whether it sleeps. */
    int kicks, napping;
    int wake_due;    /* under the lock: wake the thread once the lock is released */
    int in_progress; /* re-entrancy guard */
} armcii_prog_t;
_Static_assert(sizeof(armcii_prog_t) == 128, "what is read, then the lock's line");

extern armcii_prog_t armcii_prog;

/** Drive progress until @p req has completed. */
void armcii_req_wait(const char *call, armcii_req_t *req);
/** Complete every request in flight when called, oldest first (gets included, which no
 *  fence waits for): before memory that they may read or fill goes. */
void armcii_req_wait_all(const char *call);
/** Waits for the request that had generation @p gen when issued (its slot may be reused). */
void armcii_req_wait_gen(const char *call, armcii_req_t *req, uint32_t gen);
/** One poll of a waiting loop: progress, and a yield of the processor after a run of
 *  empty polls (@p idle counts them). */
void armcii_poll_waiting(const char *call, unsigned *idle);
/** The same, and with @p spent non-NULL the time its fabric pass took (mpiwait.c's
 *  sampling). */
void armcii_poll_waiting_timed(const char *call, unsigned *idle, double *spent);
/** Sets how often a waiting loop yields (ARMCI_YIELD_IDLE), how long a wait lasts before it
 *  rings the peer's doorbell (ARMCI_DOORBELL_US, longer in a crowd) and, where
 *  ARMCI_WAIT_MPI_TESTS chooses it, how many MPI tests a wait on MPI runs per poll (after the
 *  node layout is known). */
void armcii_yield_init(void);
/** Whether an empty poll yields at once (the machine is oversubscribed, or asked to). */
int armcii_yield_when_idle(void);
/** A wait that no time bounds (the others may compute long before they join in), watched:
 *  with ARMCI_WATCHDOG it says once that it has lasted, for whom (@p rank, or the node's
 *  processes when negative) to do what (@p to_do). Zero-initialise @p w per wait. */
/** How many polls (or MPI tests) a wait makes between two looks at the clock. */
#define ARMCII_CLOCK_EVERY 1024
typedef struct {
    double t0;
    unsigned spins, idle;
    int barked;
    int stuck;      /* a collective's wait, ARMCI_TIMEOUT s old: told to the census */
    double bell_t0; /* a wait for a fabric peer: when it began, and how often it rang */
    int rung;       /* the peer's doorbell (-1: no doorbell to ring; progress.c) */
} armcii_watch_t;
void armcii_poll_watched(const char *call, armcii_watch_t *w, int rank, const char *to_do);
/** The end of a wait that called armcii_poll_watched. */
void armcii_poll_watched_end(armcii_watch_t *w);

/** Tells the progress thread, if it naps, that a nonblocking request of @p bytes is in
 *  flight (the wake itself comes at armcii_unlock, through armcii_progress_wake). */
void armcii_progress_kick(size_t bytes);
void armcii_progress_wake(void);
/** Under the lock, before it is released: the wake that armcii_progress_kick made due is
 *  taken (armcii_unlock then calls armcii_progress_wake). */
void armcii_progress_wake_taken(void);
/** One round of progress: completions, incoming requests, deferred sends. */
int armcii_progress(void);
/** Drive progress until *counter == 0. */
void armcii_wait_zero(const char *call, const int *counter, int target);
/** Waits for the answer to the datagram out to @p target (serve.c). */
void armcii_wait_answer(const char *call, int target);
/** Waits until no datagram to @p target (-1: to anyone) is out or open: the one out
 *  answered, the open one sent and answered (dgram.c). */
void armcii_wait_datagrams(const char *call, int target);
/** What goes to @p target through libfabric calls this first: a datagram went around
 *  libfabric's queues, and must not be overtaken. */
static inline void armcii_datagrams_before(const char *call, int target)
{
    if (__builtin_expect(armcii_serve_busy(target), 0))
        armcii_wait_datagrams(call, target);
}
/** Messages a module holds back (rma.c's open messages, dgram.c's open datagram), which
 *  waits send first. */
typedef struct {
    const int *count;                                  /* how many are held now */
    void (*send_all)(const char *call);                /* send them all */
    void (*send_waited)(const char *call, int target); /* those to @p target (-1: all),
                                                          whose answer is awaited next */
    void (*age)(void);                                 /* the progress thread's pass */
} armcii_held_t;
/** Registers @p h with the waits (at start-up). */
void armcii_progress_hold(const armcii_held_t *h);
/** @p fn runs at every synchronisation point: each MPI wait of the runtime (the get
 *  cache's transparent mode registers its invalidation). */
void armcii_progress_on_sync(void (*fn)(void));
armcii_status_t armcii_progress_thread_start(void);
void armcii_progress_thread_stop(void);

/* (waits on MPI: src/core/mpiwait.c) */
/** ARMCI_WAIT_MPI_TESTS, if set, fixes the MPI tests per fabric pass (at start-up). */
void armcii_mpi_wait_init(void);
/** Complete an MPI request while driving progress (so peers' operations on us advance). */
void armcii_mpi_wait(const char *call, MPI_Request *req);
void armcii_mpi_waitall(const char *call, int n, MPI_Request *reqs);
void armcii_mpi_waitall_status(const char *call, int n, MPI_Request *reqs, MPI_Status *statuses);
/** MPI errors on @p comm (and the communicators made from it) end the job naming the
 *  ARMCI call that was waiting on MPI, instead of with MPI's message alone. */
void armcii_mpi_name_errors(MPI_Comm comm);

/** The runtime lock, for the transport's signal handler to try (serve.c). */
pthread_mutex_t *armcii_progress_lock(void);
/** Serves what came for the serving socket while the lock was held, if the lock is free. */
void armcii_serve_after_unlock(void);

/* ---- locking around API calls ---- */

static inline void armcii_lock(void)
{
    pthread_mutex_lock(&armcii_prog.lock);
}
static inline void armcii_unlock(void)
{
    int wake = armcii_prog.wake_due;
    if (wake)
        armcii_progress_wake_taken();
    pthread_mutex_unlock(&armcii_prog.lock);
    if (wake)
        armcii_progress_wake();
    /* A datagram that came for the serving socket while we held the lock (serve.c): the
     * handler marked it due before it tried the lock. No fence between the unlock and
     * this load (the hottest path of every locked call): on x86 the unlock is a locked
     * instruction, which orders them anyway, and where a load passed the unlock the one
     * missed is served at the next poll, or when its origin sends it again (1 ms). */
    if (__builtin_expect(armcii_serve_due(), 0))
        armcii_serve_after_unlock();
}

/** Waits for the operations issued with implicit (NULL) handles to @p proc, or to every
 *  process when @p proc is negative (ARMCI_WaitProc, ARMCI_WaitAll). */
void armcii_req_wait_implicit(const char *call, int proc);

/** A pass the progress thread runs between its polls (warm.c's keep-warm pass, registered by
 *  bringup.c, so that the waits call nothing above them by name): @p init once the thread's
 *  place is known, @p on whether it runs, @p maybe at each wake-up, given the time. */
typedef struct {
    void (*init)(void);
    int (*on)(void);
    void (*maybe)(double now);
} armcii_idle_pass_t;
void armcii_progress_idle_pass(const armcii_idle_pass_t *pass);

#endif
