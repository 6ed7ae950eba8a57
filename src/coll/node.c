/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the collectives of src/coll share on a node: the choice of algorithm
 * (ARMCI_COLL_ALG), staging buffers in the node heap, the node's barrier, and the
 * message for processes that reduce differently. coll.c, hier.c, p2p.c and reduce.c
 * call it; it calls none of them.
 */
#include <string.h>

#include "node.h"
#include "collectives.h"
#include "../core/progress.h"
#include "../core/runtime.h"
#include "../core/topo.h"
#include "../base/common.h"
#include "../cache/getcache.h"
#include "../transport/transport.h"

/* ARMCI_COLL_ALG's words in the order of ARMCII_COLL_*; coll_alg is the one set, parsed
 * at init (-1: not a word of it, which the first collective reports). */
static const char *const alg_names[] = {"morton", "naive", "mpi", "pull", "auto", NULL};
static int coll_alg = -1;

static int name_code(const char *v, const char *const *names)
{
    for (int i = 0; names[i]; i++)
        if (strcmp(v, names[i]) == 0)
            return i;
    return -1; /* not a valid value: the first collective says so */
}

int armcii_coll_mpi_only(const char *call)
{
    return armcii_coll_algorithm(call) == ARMCII_COLL_MPI;
}

char *armcii_coll_staging(const char *call, stage_t *s, size_t len)
{
    if (s->size < len) {
        if (s->addr)
            armcii_shm_free(s->off, s->rounded);
        void *a;
        if (armcii_shm_alloc(call, len, &a, &s->off, &s->rounded) != ARMCII_OK)
            armcii_fatal(call, "no room to stage %zu bytes in the node heap", len);
        s->addr = a;
        s->size = len;
    }
    return s->addr;
}

void armcii_coll_stage_free(stage_t *s)
{
    if (s->addr)
        armcii_shm_free(s->off, s->rounded);
    memset(s, 0, sizeof(*s));
}

int armcii_coll_algorithm(const char *call)
{
    if (coll_alg < 0)
        armcii_fatal(call, "ARMCI_COLL_ALG=\"%s\" is not morton, naive, pull, mpi or auto",
                     armcii_rt.env.COLL_ALG);
    return coll_alg;
}

void armcii_coll_what_mismatch(const char *call, int other, const char *mine, const char *theirs)
{
    armcii_fatal(call,
                 "this process reduces with %.*s, process %d with %.*s: the processes called "
                 "this reduction with different operations or element types",
                 ARMCII_COLL_WHAT, mine, other, ARMCII_COLL_WHAT, theirs);
}

/* The world is one node whose processes share memory, and ARMCI_COLL_ALG lets the
 * runtime's own shared-memory steps replace MPI's. */
int armcii_coll_world_in_node(const char *call)
{
    int alg = armcii_coll_algorithm(call);
    return armcii_rt.shm && armcii_topo.nnodes == 1 &&
           (alg == ARMCII_COLL_AUTO || alg == ARMCII_COLL_PULL);
}

/* The node barrier is one counter that every process bumps: at most this many processes
 * (measured up to 4 here; MPI's barrier scales better beyond some count). */
#define NODE_BARRIER_MAX 16

int armcii_coll_node_sync(const char *call)
{
    if (!armcii_coll_world_in_node(call) || armcii_topo.node_size > NODE_BARRIER_MAX)
        return 0;
    armcii_cache_sync(); /* a synchronisation point, as armcii_mpi_wait's */
    armcii_coll_node_barrier(call);
    return 1;
}

/* A barrier of the node's processes in shared memory: the last to arrive opens the next
 * generation. Waiters keep serving progress and yield when the cores are oversubscribed. */
void armcii_coll_node_barrier(const char *call)
{
    /* A full fence first: large copies before it (memcpy's, ours) may have used
     * non-temporal stores, which the locked add alone does not order on every processor. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    armcii_coll_slot_t *s0 = armcii_coll_slot(0);
    uint64_t gen = __atomic_load_n(&s0->bar_gen, __ATOMIC_ACQUIRE);
    if (__atomic_add_fetch(&s0->bar_count, 1, __ATOMIC_ACQ_REL) ==
        (uint64_t)armcii_topo.node_size) {
        __atomic_store_n(&s0->bar_count, 0, __ATOMIC_RELAXED);
        __atomic_add_fetch(&s0->bar_gen, 1, __ATOMIC_RELEASE);
        return;
    }
    armcii_watch_t w = {0};
    while (__atomic_load_n(&s0->bar_gen, __ATOMIC_ACQUIRE) == gen)
        armcii_poll_watched(call, &w, -1, ARMCII_COLL_ENTER);
    armcii_poll_watched_end(&w);
}

void armcii_coll_alg_init(void)
{
    /* ARMCI_COLL_* are alike on every process (ARMCII_ENV_SAME), so every process takes
     * the same path through a collective. */
    coll_alg = name_code(armcii_rt.env.COLL_ALG, alg_names);
}
