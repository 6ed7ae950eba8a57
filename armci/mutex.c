/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Mutexes as MCS queue locks, in sets: the world's set (ARMCI_Create_mutexes) and any number
 * of handle batches over groups (ARMCIX_Create_mutexes_hdl, ARMCI-MPI's extension). Both run
 * the one lock algorithm below; a set knows its group, how many mutexes each member hosts
 * and where each member's words are.
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

#include "check.h"
#include "../src/cache/getcache.h"

typedef struct {
    ARMCI_Group grp;     /* the members; a handle's is its own duplicate of the user's */
    int maxcount;        /* the most mutexes any member hosts */
    int *count;          /* mutexes each member hosts, by group rank */
    void **base;         /* each member's block, by group rank */
    unsigned char *held; /* [mutex * size + host]: this process holds (or awaits) it */
    int nheld;
} mxset_t;

/* A batch of ARMCIX_Create_mutexes_hdl. The live ones are listed, so that a stale or made-up
 * handle is reported instead of followed. */
struct armcix_mutex_hdl_s {
    mxset_t set;
    struct armcix_mutex_hdl_s *next;
};

static mxset_t world_set; /* ARMCI_Create_mutexes; its grp is the world group (not owned) */
static int world_live;
static struct armcix_mutex_hdl_s *live_hdls;

enum { NEXT = 0, WAIT = 1 };

static uint64_t *tail_of(const mxset_t *s, int host, int m)
{
    return (uint64_t *)s->base[host] + m;
}

/* Member @p owner's queue node for mutex @p m of member @p host. */
static uint64_t *node_of(const mxset_t *s, int owner, int host, int m, int field)
{
    return (uint64_t *)s->base[owner] + s->maxcount + 2 * ((size_t)m * s->grp.size + host) + field;
}

static uint64_t load(uint64_t *p)
{
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

/* Collective over s->grp (set by the caller): every member hosts @p count mutexes. */
static void set_create(const char *call, mxset_t *s, int count)
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

/* Collective over s->grp. */
static void set_destroy(const char *call, mxset_t *s)
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

/* The group rank of @p proc (an absolute process id, as every ARMCI call takes), after the
 * checks every lock call makes. */
static int set_host(const char *call, const mxset_t *s, int mutex, int proc)
{
    armcii_check_rank(call, proc);
    int h = s->grp.abs_to_grp[proc];
    if (h < 0)
        armcii_fatal(call, "process %d is not in the group of these mutexes", proc);
    if (mutex < 0 || mutex >= s->count[h])
        armcii_fatal(call, "mutex %d is out of range: process %d has %d mutexes", mutex, proc,
                     s->count[h]);
    return h;
}

/* Lock mutex @p m of member @p h, or with @p try only if it is free at once.
 * @return 0 if this process now holds it, 1 if @p try found it taken. */
static int set_lock(const char *call, mxset_t *s, int m, int h, int try)
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
            armcii_rmw(call, ARMCII_RMW_CAS64, host, tail_of(s, h, m), (uint64_t)me + 1, 0);
        if (old != 0) {
            /* Callers retry in a loop (ARMCI-MPI's tests/test_mutex_trylock.c): serve peers,
             * and yield where processes outnumber processors, so the holder can finish. */
            unsigned idle = 0;
            armcii_poll_waiting(call, &idle);
            return 1;
        }
    } else {
        uint64_t pred =
            armcii_rmw(call, ARMCII_RMW_SWAP64, host, tail_of(s, h, m), (uint64_t)me + 1, 0);
        if (pred != 0) {
            int p = (int)pred - 1;
            armcii_rmw(call, ARMCII_RMW_SWAP64, s->grp.grp_to_abs[p], node_of(s, p, h, m, NEXT),
                       (uint64_t)me + 1, 0);
            unsigned idle = 0;
            while (load(mine_wait) != 0)
                armcii_poll_waiting(call, &idle);
        }
    }
    *held = 1;
    s->nheld++;
    return 0;
}

static void set_unlock(const char *call, mxset_t *s, int m, int h)
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
                                                   0, (uint64_t)me + 1) == (uint64_t)me + 1;
    if (!alone) {
        /* A successor may have swapped itself in and not yet linked behind us. */
        unsigned idle = 0;
        while (load(mine_next) == 0)
            armcii_poll_waiting(call, &idle);
        int succ = (int)load(mine_next) - 1;
        armcii_rmw(call, ARMCII_RMW_SWAP64, s->grp.grp_to_abs[succ], node_of(s, succ, h, m, WAIT),
                   0, 0);
    }
    *held = 0;
    s->nheld--;
}

/* ---- the world's mutexes ---- */

static mxset_t *world(const char *call)
{
    if (!world_live)
        armcii_fatal(call, "there are no mutexes (ARMCI_Create_mutexes first)");
    return &world_set;
}

/**
 * Create @p count mutexes on this process (others may pass other counts). Collective.
 * @return 0
 */
int ARMCI_Create_mutexes(int count)
{
    static const char call[] = "ARMCI_Create_mutexes";
    armcii_enter(call);
    armcii_check_count(call, "count", count);
    if (world_live)
        armcii_fatal(call, "mutexes exist already (ARMCI_Destroy_mutexes first)");
    world_set.grp = *armcii_world_group();
    set_create(call, &world_set, count);
    world_live = 1;
    armcii_unlock();
    return 0;
}

/** Destroy the mutexes of ARMCI_Create_mutexes; none may be held. Collective. @return 0 */
int ARMCI_Destroy_mutexes(void)
{
    static const char call[] = "ARMCI_Destroy_mutexes";
    armcii_enter(call);
    set_destroy(call, world(call));
    world_live = 0;
    armcii_unlock();
    return 0;
}

/** Lock mutex @p mutex of process @p proc, waiting in arrival order. */
void ARMCI_Lock(int mutex, int proc)
{
    static const char call[] = "ARMCI_Lock";
    armcii_enter(call);
    mxset_t *s = world(call);
    set_lock(call, s, mutex, set_host(call, s, mutex, proc), 0);
    armcii_unlock();
}

/** Unlock mutex @p mutex of process @p proc, after completing this process's puts and
 *  accumulates. */
void ARMCI_Unlock(int mutex, int proc)
{
    static const char call[] = "ARMCI_Unlock";
    armcii_enter(call);
    mxset_t *s = world(call);
    set_unlock(call, s, mutex, set_host(call, s, mutex, proc));
    armcii_unlock();
}

/* ---- handle batches (ARMCI-MPI's armcix.h) ---- */

/* A live handle, or an error. */
static mxset_t *handle(const char *call, armcix_mutex_hdl_t hdl)
{
    if (hdl == NULL)
        armcii_fatal(call, "the mutex handle is NULL");
    for (struct armcix_mutex_hdl_s *h = live_hdls; h; h = h->next)
        if (h == hdl)
            return &h->set;
    armcii_fatal(call,
                 "%p is not a mutex handle of ARMCIX_Create_mutexes_hdl (or was "
                 "destroyed)",
                 (void *)hdl);
}

/**
 * Create a batch of mutexes, @p count on this process, over the processes of @p pgroup
 * (collective over it). Several batches, and the world's ARMCI_Create_mutexes, may exist at
 * once. The handle keeps a duplicate of the group: @p pgroup may be freed meanwhile.
 * @param count  mutexes this process hosts (others may pass other counts)
 * @param pgroup a group this process belongs to
 * @return the handle, for ARMCIX_Lock_hdl and the others
 */
armcix_mutex_hdl_t ARMCIX_Create_mutexes_hdl(int count, ARMCI_Group *pgroup)
{
    static const char call[] = "ARMCIX_Create_mutexes_hdl";
    armcii_check_init(call);
    armcii_check_count(call, "count", count);
    armcii_check_group(call, "the group", pgroup, 1);
    struct armcix_mutex_hdl_s *h = calloc(1, sizeof(*h));
    if (!h)
        armcii_fatal(call, "out of memory");
    /* A communicator of the batch's own, as ARMCI-MPI's mutex_hdl_queue.c takes one:
     * the batch outlives the user's group if need be, and frees its memory over it. */
    ARMCIX_Group_dup(pgroup, &h->set.grp);
    armcii_lock();
    set_create(call, &h->set, count);
    h->next = live_hdls;
    live_hdls = h;
    armcii_unlock();
    return h;
}

/**
 * Destroy a batch; this process may hold none of its mutexes. Collective over its group.
 * @param hdl the handle of ARMCIX_Create_mutexes_hdl
 * @return 0
 */
int ARMCIX_Destroy_mutexes_hdl(armcix_mutex_hdl_t hdl)
{
    static const char call[] = "ARMCIX_Destroy_mutexes_hdl";
    armcii_enter(call);
    mxset_t *s = handle(call, hdl);
    set_destroy(call, s);
    struct armcix_mutex_hdl_s **pp = &live_hdls;
    while (*pp != hdl)
        pp = &(*pp)->next;
    *pp = hdl->next;
    armcii_unlock();
    ARMCI_Group_free(&hdl->set.grp);
    free(hdl);
    return 0;
}

/**
 * Lock mutex @p mutex of process @p proc in the batch @p hdl, waiting in arrival order.
 * @param hdl   the batch
 * @param mutex 0 .. the count @p proc passed at creation - 1
 * @param proc  the absolute id of the hosting process (a member of the batch's group), as
 *              ARMCI-MPI takes it (src/mutex_hdl_queue.c translates "world_proc" to the
 *              group's rank)
 */
void ARMCIX_Lock_hdl(armcix_mutex_hdl_t hdl, int mutex, int proc)
{
    static const char call[] = "ARMCIX_Lock_hdl";
    armcii_enter(call);
    mxset_t *s = handle(call, hdl);
    set_lock(call, s, mutex, set_host(call, s, mutex, proc), 0);
    armcii_unlock();
}

/**
 * Lock mutex @p mutex of process @p proc in the batch @p hdl if nobody holds or awaits it;
 * never waits for it.
 * @param hdl   the batch
 * @param mutex 0 .. the count @p proc passed at creation - 1
 * @param proc  the absolute id of the hosting process (a member of the batch's group)
 * @return 0 if this process now holds the mutex, 1 if it did not take it (as ARMCI-MPI's
 *         src/mutex_hdl_spin.c returns)
 */
int ARMCIX_Trylock_hdl(armcix_mutex_hdl_t hdl, int mutex, int proc)
{
    static const char call[] = "ARMCIX_Trylock_hdl";
    armcii_enter(call);
    mxset_t *s = handle(call, hdl);
    int rc = set_lock(call, s, mutex, set_host(call, s, mutex, proc), 1);
    armcii_unlock();
    return rc;
}

/**
 * Unlock mutex @p mutex of process @p proc in the batch @p hdl, after completing this
 * process's puts and accumulates.
 * @param hdl   the batch
 * @param mutex a mutex this process holds
 * @param proc  the absolute id of the hosting process
 */
void ARMCIX_Unlock_hdl(armcix_mutex_hdl_t hdl, int mutex, int proc)
{
    static const char call[] = "ARMCIX_Unlock_hdl";
    armcii_enter(call);
    mxset_t *s = handle(call, hdl);
    set_unlock(call, s, mutex, set_host(call, s, mutex, proc));
    armcii_unlock();
}

/* Profiling names (see ARMCII_PROFILED). */
ARMCII_PROFILED(Create_mutexes)
ARMCII_PROFILED(Destroy_mutexes)
ARMCII_PROFILED(Lock)
ARMCII_PROFILED(Unlock)
