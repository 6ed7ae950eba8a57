/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A lock shared by the processes of a node: one 32-bit word in node memory, 0 when free,
 * else its holder's id (node rank + 1), with NODELOCK_WAITERS set once somebody sleeps on
 * it. Taking it free is one compare-and-swap on that word and releasing it one exchange, in
 * the caller's code: no call into the C library and nothing of the calling thread's own,
 * so that after the application's work has evicted the runtime the cost is that one line,
 * which the keep-warm pass reads (warm.c). Contended, nodelock.c spins briefly, then sleeps
 * on a futex: the node's processes often outnumber its cores.
 *
 * A holder that died leaves its id in the word. A sleeper looks every NODELOCK_NAP_MS and,
 * if the holder is gone, ends the job naming it (armcii_live_check). That is what every
 * other wait of the runtime does on a dead node peer; an accumulate it left half applied
 * must not be built upon. A holder alive but stopped ends the job after ARMCI_TIMEOUT.
 */
#ifndef ARMCII_NODELOCK_H
#define ARMCII_NODELOCK_H

#include <stdint.h>

#define NODELOCK_WAITERS 0x80000000u
#define NODELOCK_NAP_MS  10

/** Waits for the word and takes it (the contended path of armcii_nodelock_take). */
void armcii_nodelock_wait(const char *call, uint32_t *w, uint32_t me);
/** Tries to take the lock as @p me without sleeping: spins a little while another
 *  holds it, fails at once where @p me does. @return 1 if taken. */
int armcii_nodelock_try(uint32_t *w, uint32_t me);
/** Wakes one sleeper (the word had NODELOCK_WAITERS when it was released). */
void armcii_nodelock_wake(uint32_t *w);

/** Take the lock at @p w as @p me (a node rank + 1); @p call names the wait if the holder
 *  died or held it for ARMCI_TIMEOUT. */
static inline void armcii_nodelock_take(const char *call, uint32_t *w, uint32_t me)
{
    uint32_t free_word = 0;
    if (!__atomic_compare_exchange_n(w, &free_word, me, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        armcii_nodelock_wait(call, w, me);
}

static inline void armcii_nodelock_release(uint32_t *w)
{
    if (__atomic_exchange_n(w, 0, __ATOMIC_RELEASE) & NODELOCK_WAITERS)
        armcii_nodelock_wake(w);
}

#endif
