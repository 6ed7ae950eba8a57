/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The progress engine: polling, waiting for requests and counters with a bounded time and
 * a clear diagnostic, and the progress thread that serves peers while the application
 * computes. It calls the transport and the job's health; what modules above it need done
 * first they register (armcii_progress_hold). Waits on MPI are mpiwait.c's, ordering and
 * fences order.c's.
 */
#define _GNU_SOURCE /* pthread_setname_np, PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP */
#include <errno.h>
#include <linux/futex.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"
#include "req.h"
#include "runtime.h"
#include "topo.h"
#include "../base/common.h"
#include "../base/env.h"
#include "../base/pool.h"
#include "../base/stats.h"
#include "../health/health.h"
#include "../transport/transport.h"

/* An adaptive mutex spins briefly before sleeping: the progress thread holds the lock for
 * a poll of a microsecond or two, and an application thread arriving then should not pay
 * a futex sleep and wake-up for it. */
armcii_prog_t armcii_prog = {.lock = PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP};

/* How many polls between two asks whether a node peer died (which reads the clock). */
#define POLLS_PER_LIVE_LOOK 256

/* What a module holds back and a wait lets go first (rma.c's open messages), and what
 * runs at every synchronisation point (the get cache's transparent mode): registered at
 * start-up, so that the waits call no module above them by name. */
#define HELD_MAX 2 /* rma.c's open messages, dgram.c's open datagram */
static const armcii_held_t *held[HELD_MAX];
static int nheld;

/* The pass the thread runs between polls (warm.c's, registered by bringup.c). */
static const armcii_idle_pass_t *idle_pass;

void armcii_progress_idle_pass(const armcii_idle_pass_t *pass)
{
    idle_pass = pass;
}

void armcii_progress_hold(const armcii_held_t *h)
{
    if (nheld < HELD_MAX)
        held[nheld++] = h;
}

/* Whether a module holds something back now: one line read per module, on every poll. */
static inline int holding(void)
{
    int any = 0;
    for (int i = 0; i < nheld; i++)
        any |= *held[i]->count > 0;
    return any;
}

static void send_all(const char *call)
{
    for (int i = 0; i < nheld; i++)
        if (*held[i]->count > 0)
            held[i]->send_all(call);
}

static void send_waited(const char *call, int target)
{
    for (int i = 0; i < nheld; i++)
        if (*held[i]->count > 0)
            held[i]->send_waited(call, target);
}

static void age(void)
{
    for (int i = 0; i < nheld; i++)
        if (*held[i]->count > 0)
            held[i]->age();
}

int armcii_progress(void)
{
    if (armcii_prog.in_progress)
        return 0;
    armcii_prog.in_progress = 1;
    int n = armcii_rt.fabric ? armcii_net_progress() : 0;
    armcii_prog.in_progress = 0;
    return n;
}

/* A waiting loop's poll. After a run of empty polls it yields the processor: with more
 * runnable threads than cores (the progress threads, oversubscribed ranks) a spinning
 * waiter otherwise keeps the very thread it waits for off the processor. */
/* ... and with @p spent, the time its fabric pass took (without the yield). */
void armcii_poll_waiting_timed(const char *call, unsigned *idle, double *spent)
{
    static unsigned polls;
    if (++polls % POLLS_PER_LIVE_LOOK == 0) /* a poll is a fraction of a microsecond */
        armcii_live_poll(call);
    if (holding()) /* what is waited for may answer one of them */
        send_all(call);
    double t0 = spent ? armcii_now() : 0;
    int n = armcii_progress();
    if (spent)
        *spent = armcii_now() - t0;
    armcii_idle_poll(idle, n, armcii_prog.yield_after);
}

void armcii_poll_waiting(const char *call, unsigned *idle)
{
    armcii_poll_waiting_timed(call, idle, NULL);
}

static void timed_out(const char *call, const char *what, int target, double waited)
{
    armcii_live_blame(call, target); /* a lost process is the cause worth naming */
    armcii_fatal(call,
                 "%s to rank %d has not completed after %.0f s (provider %s; is rank %d "
                 "alive, and calling ARMCI or running its progress thread? see "
                 "ARMCI_TIMEOUT)",
                 what, target, waited, armcii_net_provider(), target);
}

/* Bounds a wait by ARMCI_TIMEOUT, looking at the clock only every ARMCII_CLOCK_EVERY polls; with
 * ARMCI_WATCHDOG, says once that the wait is long (a slow peer, not yet a dead one). */
typedef armcii_watch_t watch_t;

/* A wait for a fabric peer that has lasted ARMCI_DOORBELL_US rings the peer's doorbell: the
 * peer may be computing, its progress thread napping (bell.c). It rings again every
 * BELL_AGAIN times as long while the wait goes on: serving one request may take the peer
 * more than one wake (an acknowledgement it defers, a reply still queued), and a datagram
 * may be lost. The clock is read at every poll until then (a poll of the fabric takes a
 * microsecond or more, the clock 23 ns). */
#define BELL_AGAIN 8

static void ring_when_due(watch_t *w, int target)
{
    if (target < 0 || target == armcii_rt.rank || armcii_bell_fd() < 0) {
        w->rung = -1; /* nobody to ring: stop looking */
        return;
    }
    double now = armcii_now(), after = 1e-6 * (double)armcii_prog.bell_us;
    if (w->bell_t0 == 0) {
        w->bell_t0 = now;
    } else if (now - w->bell_t0 >= after * (1 + BELL_AGAIN * w->rung)) {
        armcii_bell_ring(target);
        w->rung++;
    }
}

static void watch_poll(const char *call, watch_t *w, const char *what, int target)
{
    /* Flagged puts whose acknowledgement the target defers may be among what is waited
     * for: ask for it at the first poll, and again for any issued meanwhile by other
     * threads. */
    if (w->spins % ARMCII_CLOCK_EVERY == 0)
        armcii_am_want_acks(target);
    if (w->rung >= 0)
        ring_when_due(w, target);
    armcii_poll_waiting(call, &w->idle);
    if (++w->spins % ARMCII_CLOCK_EVERY != 0)
        return;
    double now = armcii_now();
    if (w->t0 == 0) {
        w->t0 = now;
        return;
    }
    if (now - w->t0 > (double)armcii_rt.env.TIMEOUT)
        timed_out(call, what, target, now - w->t0);
    if (armcii_rt.env.WATCHDOG > 0 && !w->barked && now - w->t0 >= armcii_rt.env.WATCHDOG) {
        w->barked = 1;
        if (target >= 0)
            armcii_warn("watchdog: %s: %s to rank %d has waited %.0f s and is still waiting", call,
                        what, target, now - w->t0);
        else
            armcii_warn("watchdog: %s: %s has waited %.0f s and is still waiting", call, what,
                        now - w->t0);
    }
}

void armcii_poll_watched(const char *call, armcii_watch_t *w, int rank, const char *to_do)
{
    armcii_poll_waiting(call, &w->idle);
    if (++w->spins % ARMCII_CLOCK_EVERY != 0)
        return;
    double now = armcii_now();
    if (w->t0 == 0) {
        w->t0 = now;
        return;
    }
    armcii_census_poll(call, &w->stuck, w->t0, now);
    if (armcii_rt.env.WATCHDOG <= 0 || w->barked || now - w->t0 < armcii_rt.env.WATCHDOG)
        return;
    w->barked = 1;
    if (rank >= 0)
        armcii_warn("watchdog: %s: has waited %.0f s for rank %d to %s, and is still waiting", call,
                    now - w->t0, rank, to_do);
    else
        armcii_warn("watchdog: %s: has waited %.0f s for the node's processes to %s, and is "
                    "still waiting",
                    call, now - w->t0, to_do);
}

void armcii_poll_watched_end(armcii_watch_t *w)
{
    armcii_census_leave(&w->stuck);
}

void armcii_req_wait(const char *call, armcii_req_t *req)
{
    armcii_req_wait_gen(call, req, req->tok.gen);
}

void armcii_req_wait_gen(const char *call, armcii_req_t *req, uint32_t gen)
{
    static const char *what[] = {"a get", "a put", "an operation applied by the target",
                                 "an atomic operation"};
    /* Tested last: a message held back is rare. send_waited sends the one to this target,
     * if any (perhaps this very request). */
    if (req->in_use && req->tok.gen == gen && req->target >= 0 && holding())
        send_waited(call, req->target);
    watch_t w = {0};
    double t0 = armcii_rt.env.STATS ? armcii_now() : 0;
    while (req->in_use && req->tok.gen == gen)
        watch_poll(call, &w, what[req->kind], req->target);
    if (armcii_rt.env.STATS)
        armcii_stat_wait(armcii_now() - t0);
}

/* Where processes outnumber hardware threads the holder may share this process's, and a
 * waiter that polls (yielding or not) keeps it off the processor until the scheduler's
 * slice ends, a millisecond or more: the answer comes sooner to one that sleeps on its
 * socket, whose wake-up then takes the processor back. After SERVE_SLEEPS_MAX sleeps (each
 * until the request goes again) the usual wait, with its watchdog. */
#define SERVE_SLEEPS_MAX 64

void armcii_wait_answer(const char *call, int target)
{
    const int *waiting = armcii_serve_waiting();
    if (armcii_prog.yield_after == 1)
        for (int i = 0; i < SERVE_SLEEPS_MAX && *waiting; i++) {
            armcii_serve_sleep();
            (void)armcii_progress();
        }
    armcii_wait_zero(call, waiting, target);
}

void armcii_wait_datagrams(const char *call, int target)
{
    while (armcii_serve_busy(target)) {
        if (*armcii_serve_waiting())
            armcii_wait_answer(call, armcii_serve_out_target);
        else /* open to the target, nothing out: it goes now */
            armcii_serve_ship();
    }
}

void armcii_wait_zero(const char *call, const int *counter, int target)
{
    if (holding()) /* what is waited for may not have left yet */
        send_waited(call, target);
    if (*counter <= 0)
        return;
    watch_t w = {0};
    double t0 = armcii_rt.env.STATS ? armcii_now() : 0;
    while (*counter > 0)
        watch_poll(call, &w, "an operation", target);
    if (armcii_rt.env.STATS)
        armcii_stat_wait(armcii_now() - t0);
}

/* Every request in flight now, oldest first. */
void armcii_req_wait_all(const char *call)
{
    /* up to the newest of now: requests other threads issue meanwhile are theirs to wait */
    armcii_req_t *last = armcii_reqs.pool.newest;
    uint32_t gen = last ? last->tok.gen : 0;
    while (last && last->in_use && last->tok.gen == gen)
        armcii_req_wait(call, armcii_reqs.pool.oldest);
}

pthread_mutex_t *armcii_progress_lock(void)
{
    return &armcii_prog.lock;
}

void armcii_serve_after_unlock(void)
{
    if (pthread_mutex_trylock(&armcii_prog.lock) != 0)
        return; /* taken again: its holder polls, or looks as it lets go */
    (void)armcii_serve_poll();
    pthread_mutex_unlock(&armcii_prog.lock);
}

/* ---- the progress thread ---- */

/*
 * The progress thread serves peers and completes our requests while the application
 * computes outside ARMCI. It adapts to what there is to do, because on a machine with
 * few cores every needless wake-up is taken from a process doing real work:
 *  - the lock is held: the holder is inside ARMCI driving progress, so stay away longer;
 *  - our own requests are in flight: poll closely, completing them is what lets
 *    communication overlap computation (not for those of blocking calls that have
 *    returned, see armcii_req_finish: only an acknowledgement is due);
 *  - otherwise: serve peers every ARMCI_PROGRESS_INTERVAL_US, or sooner when a large
 *    nonblocking request is issued (armcii_progress_kick).
 * An oversubscribed node (more processes than hardware threads) never polls closely; a
 * thread without a CPU of its own serves peers every millisecond (every 10 ms where peers
 * ring its doorbell) unless ARMCI_PROGRESS_INTERVAL_US says otherwise.
 * It naps rather than sleep on the completion queue's file descriptor: with tcp;ofi_rxm
 * that does not wake for incoming RMA requests (docs/performance.md, "How the runtime
 * waits"). A peer that waits for it rings its doorbell instead (bell.c), which ends the
 * nap.
 */
#define INFLIGHT_NAP_NS 2000L

/*
 * A napping thread that learns of a new nonblocking request only when its nap ends would
 * leave a transfer shorter than the nap to the caller's wait, its data copied out of the
 * socket in ARMCI_Wait instead of during the computation. So the nap is a futex wait on a
 * counter, which a call that issued a large nonblocking request bumps as it releases the
 * lock (the thread would find the lock taken before), waking the thread if it naps. The
 * counter closes the race with a thread about to nap: the thread read it before trying
 * the lock, and its wait returns at once if it has moved since. Worth it only where the
 * thread has a CPU to itself: on its process's core the woken thread preempts the caller,
 * on a busy peer's it delays the peer.
 */
/* Where a doorbell is (src/transport/bell.c), the thread naps in poll() on its socket, for
 * a peer whose request waits, and on an eventfd, for this process's own wakes (a large
 * nonblocking transfer, the thread's stop). */
static int bell_fd = -1, wake_fd = -1;

static void nap(const struct timespec *howlong, int seen)
{
    __atomic_store_n(&armcii_prog.napping, 1, __ATOMIC_SEQ_CST);
    if (bell_fd < 0) {
        syscall(SYS_futex, &armcii_prog.kicks, FUTEX_WAIT_PRIVATE, seen, howlong, NULL, 0);
    } else if (__atomic_load_n(&armcii_prog.kicks, __ATOMIC_SEQ_CST) == seen) {
        /* (a wake after this load finds napping set, and writes the eventfd) */
        struct pollfd fds[2] = {{.fd = bell_fd, .events = POLLIN},
                                {.fd = wake_fd, .events = POLLIN}};
        if (ppoll(fds, 2, howlong, NULL) > 0) {
            uint64_t v;
            if (fds[1].revents & POLLIN)
                (void)!read(wake_fd, &v, sizeof v);
            if ((fds[0].revents & POLLIN) && armcii_bell_drain() > 0) {
                armcii_stat_bell_wake();
                armcii_serve_nudge(); /* a peer waits: perhaps on the serving socket */
            }
        }
    }
    __atomic_store_n(&armcii_prog.napping, 0, __ATOMIC_RELAXED);
}

/*
 * A wake-up that takes the caller's processor. The thread is woken only where the node
 * seems to leave it a CPU; where that view is wrong (hosts that share one machine's
 * processors, another job on the same cores), the woken thread preempts its caller on
 * the way out of the futex call and does the whole transfer's work there, while the caller
 * waits (docs/tuning.md). The futex call then lasts as long as the thread ran:
 * past PREEMPTED_S, wake-ups stop for a while (16 transfers, doubling up to 4096 while it
 * goes on), and one that returns at once lets them resume.
 */
#define PREEMPTED_S      30e-6
#define KICK_BACKOFF_MAX 4096

static unsigned kick_skip, kick_backoff;

void armcii_progress_kick(size_t bytes)
{
    long min = armcii_rt.env.PROGRESS_WAKE_MIN;
    if (!armcii_prog.own_cpu || min <= 0 || bytes < (size_t)min)
        return;
    unsigned skip = __atomic_load_n(&kick_skip, __ATOMIC_RELAXED);
    if (skip > 0) {
        __atomic_store_n(&kick_skip, skip - 1, __ATOMIC_RELAXED);
        return;
    }
    armcii_prog.wake_due = 1; /* armcii_unlock then calls armcii_progress_wake */
}

static int wake(void)
{
    __atomic_add_fetch(&armcii_prog.kicks, 1, __ATOMIC_SEQ_CST);
    if (!__atomic_load_n(&armcii_prog.napping, __ATOMIC_SEQ_CST))
        return 0;
    double t0 = armcii_now();
    if (wake_fd >= 0) {
        uint64_t one = 1;
        (void)!write(wake_fd, &one, sizeof one);
    } else {
        syscall(SYS_futex, &armcii_prog.kicks, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    }
    unsigned backoff = __atomic_load_n(&kick_backoff, __ATOMIC_RELAXED);
    if (armcii_now() - t0 > PREEMPTED_S) {
        backoff = backoff ? 2 * backoff : 16;
        backoff = backoff < KICK_BACKOFF_MAX ? backoff : KICK_BACKOFF_MAX;
        __atomic_store_n(&kick_skip, backoff, __ATOMIC_RELAXED);
        armcii_stat_progress_wake_preempted();
    } else {
        backoff = 0;
    }
    __atomic_store_n(&kick_backoff, backoff, __ATOMIC_RELAXED);
    return 1;
}

void armcii_progress_wake_taken(void)
{
    armcii_prog.wake_due = 0;
}

void armcii_progress_wake(void)
{
    if (wake()) /* outside the lock: other application threads may wake it too */
        armcii_stat_progress_woken();
}

/* Without a CPU of its own (oversubscribed, or every CPU has its bound process), every
 * wake-up of a progress thread takes the processor from a computing process: unless the
 * interval was chosen, it is this long (docs/performance.md, "How the runtime waits"). */
#define SHARED_INTERVAL_US 1000L
/* ... and where peers that wait ring its doorbell, 10 ms: the timer is then only for what
 * no peer waits on yet (unless it keeps the hot structures warm, which rides on its
 * wake-ups: ARMCI_KEEP_WARM). */
#define BELL_INTERVAL_US 10000L

static int oversubscribed(void)
{
    return armcii_topo.hw_pus && (unsigned)armcii_topo.machine_size > armcii_topo.hw_pus;
}

/* Where K processes share each hardware thread, a peer that is runnable gets the processor
 * within about K turns of the scheduler: a wait of ARMCI_DOORBELL_US is then the crowd's
 * doing, not a peer computing, and a ring would only wake one more thread to compete for
 * the processor. Unless the delay was chosen, it is K times as long (docs/performance.md,
 * "More processes than cores": at 8 processes on 2 cores over tcp, about 1 700 rings a
 * process in 500 exchange rounds before, about 4 after). */
static void bell_delay(void)
{
    long us = armcii_rt.env.DOORBELL_US;
    armcii_prog.bell_why = "ARMCI_DOORBELL_US";
    if (us > 0 && oversubscribed() && !armcii_env_user(&armcii_rt.env, "ARMCI_DOORBELL_US")) {
        long k = ((long)armcii_topo.machine_size + (long)armcii_topo.hw_pus - 1) /
                 (long)armcii_topo.hw_pus;
        us *= k;
        armcii_prog.bell_why = "ARMCI_DOORBELL_US times the processes per hardware thread";
    }
    armcii_prog.bell_us = us;
}

/* Oversubscribed, an empty poll yields at once: a process polling 128 times (each a
 * provider call) before yielding keeps its core's other process, often the one it waits
 * for, off the processor that long. Open MPI yields likewise when oversubscribed
 * (docs/performance.md, "How the runtime waits"). */
void armcii_yield_init(void)
{
    long want = armcii_rt.env.YIELD_IDLE;
    int every = want == 1 || (want == -1 && oversubscribed());
    armcii_prog.yield_after = every ? 1 : 128;
    bell_delay();
}

int armcii_yield_when_idle(void)
{
    return armcii_prog.yield_after == 1;
}

/* The nap between passes with nothing to do (idle_us), and why, once the thread's CPU,
 * the doorbell and keep-warm are known. */
static void idle_interval(void)
{
    long us = armcii_rt.env.PROGRESS_INTERVAL_US;
    armcii_prog.idle_why = "ARMCI_PROGRESS_INTERVAL_US";
    if (!armcii_prog.own_cpu && !armcii_env_user(&armcii_rt.env, "ARMCI_PROGRESS_INTERVAL_US")) {
        int bell = bell_fd >= 0 && !(idle_pass && idle_pass->on());
        long shared = bell ? BELL_INTERVAL_US : SHARED_INTERVAL_US;
        if (shared > us) {
            us = shared;
            armcii_prog.idle_why =
                bell ? "no CPU of its own; a peer that waits rings it" : "no CPU of its own";
        }
    }
    armcii_prog.idle_us = us;
}

static void *progress_main(void *arg)
{
    /* idle: serving peers; in flight: our own requests, where polling closely would take
     * the processor from a process (oversubscribed) */
    long idle_us = armcii_prog.idle_us, inflight_us = armcii_rt.env.PROGRESS_INTERVAL_US;
    if (!armcii_prog.own_cpu && !armcii_env_user(&armcii_rt.env, "ARMCI_PROGRESS_INTERVAL_US"))
        inflight_us = inflight_us > SHARED_INTERVAL_US ? inflight_us : SHARED_INTERVAL_US;
    struct timespec idle = {.tv_sec = idle_us / 1000000, .tv_nsec = (idle_us % 1000000) * 1000L};
    struct timespec busy = {.tv_sec = (5 * idle_us) / 1000000,
                            .tv_nsec = ((5 * idle_us) % 1000000) * 1000L};
    struct timespec inflight = {.tv_sec = 0, .tv_nsec = INFLIGHT_NAP_NS};
    /* With more processes on the machine than hardware threads, close polling takes the
     * processor from a process that is computing (or is the peer we wait for): every
     * process's thread then polls at the shared interval, and new requests do not wake it. */
    if (oversubscribed()) {
        inflight.tv_sec = inflight_us / 1000000;
        inflight.tv_nsec = (inflight_us % 1000000) * 1000L;
    }

    /* Linux stretches short sleeps by the timer slack (50 us by default), which would
     * turn the close polling of in-flight requests into a poll per 55 us. */
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    while (!__atomic_load_n(&armcii_prog.stop, __ATOMIC_ACQUIRE)) {
        int seen = __atomic_load_n(&armcii_prog.kicks, __ATOMIC_SEQ_CST);
        if (pthread_mutex_trylock(&armcii_prog.lock) != 0) {
            nap(&busy, seen);
            continue;
        }
        int n = armcii_progress();
        if (holding())
            age();
        int mine = armcii_reqs.pool.nactive > armcii_reqs.ncopied;
        armcii_stat_progress_poll(n);
        if (idle_pass)
            idle_pass->maybe(armcii_now());
        pthread_mutex_unlock(&armcii_prog.lock);
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        if (armcii_serve_due())
            armcii_serve_after_unlock();
        if (n > 0)
            continue;
        if (mine)
            nanosleep(&inflight, NULL);
        else
            nap(&idle, seen);
    }
    struct timespec cpu; /* what serving peers cost this process (ARMCI_STATS) */
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu) == 0)
        armcii_stat_progress_cpu((double)cpu.tv_sec + 1e-9 * (double)cpu.tv_nsec);
    return NULL;
}

armcii_status_t armcii_progress_thread_start(void)
{
    long want = armcii_rt.env.PROGRESS_THREAD;
    int on = want == 1 || (want == -1 && armcii_rt.fabric && armcii_rt.caps.manual_progress);
    armcii_prog.sends_need_caller = armcii_rt.fabric && armcii_rt.caps.manual_progress && !on;
    armcii_tp_set_sends_need_caller(armcii_prog.sends_need_caller);
    /* Without the fabric the thread has nothing to poll: it runs only to keep the hot
     * structures warm, when ARMCI_KEEP_WARM=1 asks for that. */
    if (!armcii_rt.fabric)
        on = want != 0 && armcii_rt.env.KEEP_WARM == 1;
    if (!on)
        return ARMCII_OK;
    armcii_prog.stop = 0;
    bell_fd = armcii_bell_fd();
    if (bell_fd >= 0 && (wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0)
        bell_fd = -1; /* the futex then, and rings wake nobody before the nap ends */
    /* Oversubscribed, or confined to CPUs with a bound process, every wake of the thread
     * takes the processor from a computing process (the caller that woke it, or a peer). */
    armcii_prog.own_cpu = !oversubscribed() && armcii_topo_progress_elsewhere();
    if (idle_pass)
        idle_pass->init();
    idle_interval();
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    int placed = armcii_topo_place_progress_thread(&attr);
    int rc = pthread_create(&armcii_prog.tid, &attr, progress_main, NULL);
    pthread_attr_destroy(&attr);
    if (rc != 0 && placed) {
        armcii_warn("progress thread: cannot start on %s (%s); it runs on the process's CPUs",
                    armcii_topo_progress_cpus(), strerror(rc));
        armcii_prog.own_cpu = 0;
        if (idle_pass)
            idle_pass->init();
        idle_interval();
        rc = pthread_create(&armcii_prog.tid, NULL, progress_main, NULL);
    }
    if (rc != 0)
        return ARMCII_ESYS;
    pthread_setname_np(armcii_prog.tid, "armci-progress"); /* for top -H, perf, gdb */
    armcii_prog.thread_on = 1;
    return ARMCII_OK;
}

void armcii_progress_thread_stop(void)
{
    if (!armcii_prog.thread_on)
        return;
    __atomic_store_n(&armcii_prog.stop, 1, __ATOMIC_RELEASE);
    wake();
    pthread_join(armcii_prog.tid, NULL);
    armcii_prog.thread_on = 0;
    if (wake_fd >= 0)
        close(wake_fd);
    bell_fd = wake_fd = -1;
}

void armcii_req_wait_implicit(const char *call, int proc)
{
    if (proc < 0)
        armcii_wait_zero(call, &armcii_reqs.implicit_total, proc);
    else
        armcii_wait_zero(call, &armcii_reqs.peers[proc].out_implicit, proc);
}
