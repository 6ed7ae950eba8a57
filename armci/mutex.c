/*
 * ARMCI mutexes as MCS queue locks. Process p hosts the tail word of each of its mutexes;
 * every process has one queue node per mutex number. A locker swaps itself into the tail,
 * links behind its predecessor and spins on its own node, so waiting costs no network
 * traffic, and the lock is handed over in arrival order (fair). Every word is changed by
 * atomic read-modify-write at its owner (CPU atomics, same node or remote), so peers on
 * either path agree.
 *
 * Layout of each process's block: tail[maxcount] (8 bytes each), then
 * node[maxcount] = {next, wait} (8 bytes each): next = successor's rank + 1, or 0.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"

static struct {
    int maxcount;
    int *count; /* mutexes each process hosts */
    int *held;  /* per mutex number: the process it is held (or awaited) at, or -1 */
    void **base;
} mx;

static uint64_t *tail_of(int proc, int m)
{
    return (uint64_t *)mx.base[proc] + m;
}

static uint64_t *node_of(int proc, int m, int field)
{
    return (uint64_t *)mx.base[proc] + mx.maxcount + 2 * m + field;
}

enum { NEXT = 0, WAIT = 1 };

int ARMCI_Create_mutexes(int count)
{
    static const char call[] = "ARMCI_Create_mutexes";
    armcii_enter(call);
    armcii_check_count(call, "count", count);
    if (mx.base)
        armcii_fatal(call, "mutexes exist already (ARMCI_Destroy_mutexes first)");
    int P = armcii_g.nproc;
    mx.count = malloc((size_t)P * sizeof(int));
    mx.base = malloc((size_t)P * sizeof(void *));
    if (!mx.count || !mx.base)
        armcii_fatal(call, "out of memory");
    MPI_Request r;
    MPI_Iallgather(&count, 1, MPI_INT, mx.count, 1, MPI_INT, armcii_g.comm, &r);
    armcii_mpi_wait(call, &r);
    mx.maxcount = 0;
    for (int p = 0; p < P; p++)
        if (mx.count[p] > mx.maxcount)
            mx.maxcount = mx.count[p];
    mx.held = malloc((size_t)(mx.maxcount ? mx.maxcount : 1) * sizeof(int));
    if (!mx.held)
        armcii_fatal(call, "out of memory");
    for (int m = 0; m < mx.maxcount; m++)
        mx.held[m] = -1;
    size_t bytes = (size_t)mx.maxcount * 3 * sizeof(uint64_t);
    armcii_malloc_comm(call, mx.base, (armci_size_t)bytes, armcii_g.comm);
    if (bytes)
        memset(mx.base[armcii_g.rank], 0, bytes);
    MPI_Ibarrier(armcii_g.comm, &r); /* zeroed everywhere before anyone locks */
    armcii_mpi_wait(call, &r);
    armcii_unlock();
    return 0;
}

int ARMCI_Destroy_mutexes(void)
{
    static const char call[] = "ARMCI_Destroy_mutexes";
    armcii_enter(call);
    if (!mx.base)
        armcii_fatal(call, "there are no mutexes (ARMCI_Create_mutexes first)");
    for (int m = 0; m < mx.maxcount; m++)
        if (mx.held[m] >= 0)
            armcii_fatal(call, "mutex %d at process %d is still held by this process", m,
                         mx.held[m]);
    armcii_free_comm(call, mx.base[armcii_g.rank], armcii_g.comm);
    free(mx.count);
    free(mx.held);
    free(mx.base);
    memset(&mx, 0, sizeof(mx));
    armcii_unlock();
    return 0;
}

static void check_mutex(const char *call, int mutex, int proc)
{
    if (!mx.base)
        armcii_fatal(call, "there are no mutexes (ARMCI_Create_mutexes first)");
    armcii_check_rank(call, proc);
    if (mutex < 0 || mutex >= mx.count[proc])
        armcii_fatal(call, "mutex %d is out of range: process %d has %d mutexes", mutex, proc,
                     mx.count[proc]);
}

static uint64_t load(uint64_t *p)
{
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

void ARMCI_Lock(int mutex, int proc)
{
    static const char call[] = "ARMCI_Lock";
    armcii_enter(call);
    check_mutex(call, mutex, proc);
    if (mx.held[mutex] >= 0)
        armcii_fatal(call, "mutex %d is already held by this process (at process %d)", mutex,
                     mx.held[mutex]);
    armcii_cache_sync();
    int me = armcii_g.rank;
    uint64_t *mine_next = node_of(me, mutex, NEXT), *mine_wait = node_of(me, mutex, WAIT);
    __atomic_store_n(mine_next, 0, __ATOMIC_RELEASE);
    __atomic_store_n(mine_wait, 1, __ATOMIC_RELEASE);
    uint64_t pred = armcii_rmw(call, ARMCII_RMW_SWAP64, proc, tail_of(proc, mutex),
                               (uint64_t)me + 1, 0);
    if (pred != 0) {
        int p = (int)pred - 1;
        armcii_rmw(call, ARMCII_RMW_SWAP64, p, node_of(p, mutex, NEXT), (uint64_t)me + 1, 0);
        unsigned idle = 0;
        while (load(mine_wait) != 0)
            armcii_poll_waiting(call, &idle);
    }
    mx.held[mutex] = proc;
    armcii_unlock();
}

void ARMCI_Unlock(int mutex, int proc)
{
    static const char call[] = "ARMCI_Unlock";
    armcii_enter(call);
    check_mutex(call, mutex, proc);
    if (mx.held[mutex] != proc)
        armcii_fatal(call, "mutex %d at process %d is not held by this process", mutex, proc);
    armcii_cache_sync();
    int me = armcii_g.rank;
    uint64_t *mine_next = node_of(me, mutex, NEXT);
    /* Puts and accumulates made under the lock are complete before the next holder goes. */
    armcii_fence_all(call);
    if (load(mine_next) == 0) {
        uint64_t old = armcii_rmw(call, ARMCII_RMW_CAS64, proc, tail_of(proc, mutex), 0,
                                  (uint64_t)me + 1);
        if (old == (uint64_t)me + 1) {
            mx.held[mutex] = -1;
            armcii_unlock();
            return;
        }
        /* A successor swapped itself in and is about to link behind us. */
        unsigned idle = 0;
        while (load(mine_next) == 0)
            armcii_poll_waiting(call, &idle);
    }
    int s = (int)load(mine_next) - 1;
    armcii_rmw(call, ARMCII_RMW_SWAP64, s, node_of(s, mutex, WAIT), 0, 0);
    mx.held[mutex] = -1;
    armcii_unlock();
}

/* Profiling names (see ARMCII_PROFILED). */
ARMCII_PROFILED(Create_mutexes)
ARMCII_PROFILED(Destroy_mutexes)
ARMCII_PROFILED(Lock)
ARMCII_PROFILED(Unlock)
