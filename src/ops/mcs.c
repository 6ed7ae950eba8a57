/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Mutexes as MCS queue locks (mcs.h): a set over a group, each member hosting its own
 * count of them.
 *
 * Member p hosts the tail word of each of its mutexes. A locker swaps itself into the tail,
 * links behind its predecessor and spins on its own queue node, so waiting costs no network
 * traffic, and the lock is handed over in arrival order (fair). Every word is changed by
 * atomic read-modify-write at its owner (CPU atomics, same node or remote), so peers on
 * either path agree. A process may hold mutex m of several hosts at once (ARMCI-MPI allows
 * it), so it has one queue node per (mutex number, host), not per mutex number: a node
 * can stand in only one queue at a time.
 *
 * Layout of each member's block (8-byte words): tail[maxcount], then
 * node[maxcount][group size] = {next, wait}: next = the successor's group rank + 1, or 0.
 * A process holds 16 bytes per mutex of the whole set, as many as the set has mutexes.
 */
#include <stdlib.h>
#include <string.h>

#include "mcs.h"
#include "../core/mem.h"
#include "../core/order.h"
#include "../core/progress.h"
#include "amo.h"
#include "../base/common.h"
#include "../base/op.h"
#include "../cache/getcache.h"

enum { NEXT = 0, WAIT = 1 };

static uint64_t *tail_of(const armcii_mutexes_t *s, int host, int m)
{
    return (uint64_t *)s->base[host] + m;
}

/* Member @p owner's queue node for mutex @p m of member @p host. */
static uint64_t *node_of(const armcii_mutexes_t *s, int owner, int host, int m, int field)
{
    return (uint64_t *)s->base[owner] + s->maxcount + 2 * ((size_t)m * s->grp.size + host) + field;
}

static uint64_t load(uint64_t *p)
{
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

void armcii_mutexes_create(const char *call, armcii_mutexes_t *s, int count)
{
    MPI_Comm comm = s->grp.comm;
    int P = s->grp.size;
    s->count = malloc((size_t)P * sizeof(int));
    s->base = malloc((size_t)P * sizeof(void *));
    if (!s->count || !s->base)
        armcii_fatal(call, "out of memory");
    MPI_Request r;
    MPI_Iallgather(&count, 1, MPI_INT, s->count, 1, MPI_INT, comm, &r);
    armcii_mpi_wait(call, &r);
    s->maxcount = 0;
    for (int p = 0; p < P; p++)
        if (s->count[p] > s->maxcount)
            s->maxcount = s->count[p];
    size_t nodes = (size_t)s->maxcount * (size_t)P;
    s->held = calloc(nodes ? nodes : 1, 1);
    if (!s->held)
        armcii_fatal(call, "out of memory");
    s->nheld = 0;
    size_t bytes = ((size_t)s->maxcount + 2 * nodes) * sizeof(uint64_t);
    armcii_malloc_comm(call, s->base, (armci_size_t)bytes, comm);
    if (bytes)
        memset(s->base[s->grp.rank], 0, bytes);
    MPI_Ibarrier(comm, &r); /* zeroed everywhere before anyone locks */
    armcii_mpi_wait(call, &r);
}

void armcii_mutexes_destroy(const char *call, armcii_mutexes_t *s)
{
    if (s->nheld > 0)
        for (int m = 0; m < s->maxcount; m++)
            for (int h = 0; h < s->grp.size; h++)
                if (s->held[(size_t)m * s->grp.size + h])
                    armcii_fatal(call, "mutex %d at process %d is still held by this process", m,
                                 s->grp.grp_to_abs[h]);
    armcii_free_comm(call, s->base[s->grp.rank], s->grp.comm);
    free(s->count);
    free(s->held);
    free(s->base);
    s->count = NULL;
    s->held = NULL;
    s->base = NULL;
}

int armcii_mutex_lock(const char *call, armcii_mutexes_t *s, int m, int h, int try)
{
    unsigned char *held = &s->held[(size_t)m * s->grp.size + h];
    if (*held)
        armcii_fatal(call, "mutex %d at process %d is already held by this process", m,
                     s->grp.grp_to_abs[h]);
    armcii_cache_sync();
    int me = s->grp.rank, host = s->grp.grp_to_abs[h];
    uint64_t *mine_next = node_of(s, me, h, m, NEXT), *mine_wait = node_of(s, me, h, m, WAIT);
    /* The node is reset before the tail names us: from then on a successor may link in. */
    __atomic_store_n(mine_next, 0, __ATOMIC_RELEASE);
    __atomic_store_n(mine_wait, 1, __ATOMIC_RELEASE);
    if (try) {
        /* Enter only an empty queue: nobody can then be ahead of us, and a failed attempt
         * leaves no trace to undo. */
        uint64_t old =
            armcii_rmw(call, ARMCII_RMW_CAS64, host, tail_of(s, h, m), NULL, (uint64_t)me + 1, 0);
        if (old != 0) {
            /* Callers retry in a loop (ARMCI-MPI's tests/test_mutex_trylock.c): serve peers,
             * and yield where processes outnumber processors, so the holder can finish. */
            unsigned idle = 0;
            armcii_poll_waiting(call, &idle);
            return 1;
        }
    } else {
        uint64_t pred =
            armcii_rmw(call, ARMCII_RMW_SWAP64, host, tail_of(s, h, m), NULL, (uint64_t)me + 1, 0);
        if (pred != 0) {
            int p = (int)pred - 1;
            armcii_rmw(call, ARMCII_RMW_SWAP64, s->grp.grp_to_abs[p], node_of(s, p, h, m, NEXT),
                       NULL, (uint64_t)me + 1, 0);
            unsigned idle = 0;
            while (load(mine_wait) != 0)
                armcii_poll_waiting(call, &idle);
        }
    }
    *held = 1;
    s->nheld++;
    return 0;
}

void armcii_mutex_unlock(const char *call, armcii_mutexes_t *s, int m, int h)
{
    unsigned char *held = &s->held[(size_t)m * s->grp.size + h];
    int me = s->grp.rank, host = s->grp.grp_to_abs[h];
    if (!*held)
        armcii_fatal(call, "mutex %d at process %d is not held by this process", m, host);
    armcii_cache_sync();
    uint64_t *mine_next = node_of(s, me, h, m, NEXT);
    /* Puts and accumulates made under the lock are complete before the next holder goes. */
    armcii_fence_all(call);
    /* Nobody behind us: the tail goes back from us to empty. */
    int alone = load(mine_next) == 0 && armcii_rmw(call, ARMCII_RMW_CAS64, host, tail_of(s, h, m),
                                                   NULL, 0, (uint64_t)me + 1) == (uint64_t)me + 1;
    if (!alone) {
        /* A successor may have swapped itself in and not yet linked behind us. */
        unsigned idle = 0;
        while (load(mine_next) == 0)
            armcii_poll_waiting(call, &idle);
        int succ = (int)load(mine_next) - 1;
        armcii_rmw(call, ARMCII_RMW_SWAP64, s->grp.grp_to_abs[succ], node_of(s, succ, h, m, WAIT),
                   NULL, 0, 0);
    }
    *held = 0;
    s->nheld--;
}
