/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ARMCI's mutexes: the world's set (ARMCI_Create_mutexes) and any number of handle
 * batches over groups (ARMCIX_Create_mutexes_hdl, ARMCI-MPI's extension). Here, the
 * checks of each call and which set it names; the lock algorithm, the same for both, is
 * src/ops/mcs.c's.
 */
#include <stdlib.h>

#include "check.h"

/* A batch of ARMCIX_Create_mutexes_hdl. The live ones are listed, so that a stale or made-up
 * handle is reported instead of followed. */
struct armcix_mutex_hdl_s {
    armcii_mutexes_t set;
    struct armcix_mutex_hdl_s *next;
};

static armcii_mutexes_t
    world_set; /* ARMCI_Create_mutexes; its grp is the world group (not owned) */
static int world_live;
static struct armcix_mutex_hdl_s *live_hdls;

/* The group rank of @p proc (an absolute process id, as every ARMCI call takes), after the
 * checks every lock call makes. */
static int set_host(const char *call, const armcii_mutexes_t *s, int mutex, int proc)
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

/* ---- the world's mutexes ---- */

static armcii_mutexes_t *world(const char *call)
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
    armcii_mutexes_create(call, &world_set, count);
    world_live = 1;
    armcii_unlock();
    return 0;
}

/** Destroy the mutexes of ARMCI_Create_mutexes; none may be held. Collective. @return 0 */
int ARMCI_Destroy_mutexes(void)
{
    static const char call[] = "ARMCI_Destroy_mutexes";
    armcii_enter(call);
    armcii_mutexes_destroy(call, world(call));
    world_live = 0;
    armcii_unlock();
    return 0;
}

/** Lock mutex @p mutex of process @p proc, waiting in arrival order. */
void ARMCI_Lock(int mutex, int proc)
{
    static const char call[] = "ARMCI_Lock";
    armcii_enter(call);
    armcii_mutexes_t *s = world(call);
    armcii_mutex_lock(call, s, mutex, set_host(call, s, mutex, proc), 0);
    armcii_unlock();
}

/** Unlock mutex @p mutex of process @p proc, after completing this process's puts and
 *  accumulates. */
void ARMCI_Unlock(int mutex, int proc)
{
    static const char call[] = "ARMCI_Unlock";
    armcii_enter(call);
    armcii_mutexes_t *s = world(call);
    armcii_mutex_unlock(call, s, mutex, set_host(call, s, mutex, proc));
    armcii_unlock();
}

/* ---- handle batches (ARMCI-MPI's armcix.h) ---- */

/* A live handle, or an error. */
static armcii_mutexes_t *handle(const char *call, armcix_mutex_hdl_t hdl)
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
    armcii_mutexes_create(call, &h->set, count);
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
    armcii_mutexes_t *s = handle(call, hdl);
    armcii_mutexes_destroy(call, s);
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
    armcii_mutexes_t *s = handle(call, hdl);
    armcii_mutex_lock(call, s, mutex, set_host(call, s, mutex, proc), 0);
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
    armcii_mutexes_t *s = handle(call, hdl);
    int rc = armcii_mutex_lock(call, s, mutex, set_host(call, s, mutex, proc), 1);
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
    armcii_mutexes_t *s = handle(call, hdl);
    armcii_mutex_unlock(call, s, mutex, set_host(call, s, mutex, proc));
    armcii_unlock();
}

/* Profiling names (see ARMCII_PROFILED). */
ARMCII_PROFILED(Create_mutexes)
ARMCII_PROFILED(Destroy_mutexes)
ARMCII_PROFILED(Lock)
ARMCII_PROFILED(Unlock)
