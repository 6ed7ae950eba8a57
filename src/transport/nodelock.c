/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The contended path of the node lock (nodelock.h). A waiter that once slept takes the
 * word with NODELOCK_WAITERS set: it cannot know whether others sleep behind it, so its
 * release wakes one more (Drepper, "Futexes are tricky", mutex 3). The futex is not a
 * private one: the word lies in memory that several processes map.
 */
#include <errno.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "nodelock.h"
#include "host.h"

#define SPINS 128 /* about the time of a short accumulate, before the first sleep */

static int cas(uint32_t *w, uint32_t want, uint32_t to)
{
    return __atomic_compare_exchange_n(w, &want, to, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

int armcii_nodelock_try(uint32_t *w, uint32_t me)
{
    for (int i = 0; i < SPINS; i++) {
        uint32_t v = __atomic_load_n(w, __ATOMIC_RELAXED);
        if (v == 0 && cas(w, 0, me))
            return 1;
        if ((v & ~NODELOCK_WAITERS) == me)
            return 0; /* ours: the thread a signal handler interrupted, say */
        __builtin_ia32_pause();
    }
    return 0;
}

void armcii_nodelock_wait(const char *call, uint32_t *w, uint32_t me)
{
    for (int i = 0; i < SPINS; i++) {
        __builtin_ia32_pause();
        if (__atomic_load_n(w, __ATOMIC_RELAXED) == 0 && cas(w, 0, me))
            return;
    }
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        uint32_t v = __atomic_load_n(w, __ATOMIC_RELAXED);
        if (v == 0) {
            if (cas(w, 0, me | NODELOCK_WAITERS))
                return;
            continue;
        }
        if (!(v & NODELOCK_WAITERS) && !cas(w, v, v | NODELOCK_WAITERS))
            continue;
        struct timespec nap = {0, NODELOCK_NAP_MS * 1000000L};
        if (syscall(SYS_futex, w, FUTEX_WAIT, v | NODELOCK_WAITERS, &nap, NULL, 0) == -1 &&
            errno == ETIMEDOUT) {
            clock_gettime(CLOCK_MONOTONIC, &t);
            double waited =
                (double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec);
            armcii_tp.check_holder(call, (int)(v & ~NODELOCK_WAITERS) - 1, waited);
        }
    }
}

void armcii_nodelock_wake(uint32_t *w)
{
    syscall(SYS_futex, w, FUTEX_WAKE, 1, NULL, NULL, 0);
}
