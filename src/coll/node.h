/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal interface of the collectives (src/coll): what node.c gives the others (the
 * node's shared-memory barrier, staging buffers, the choice of algorithm), and hier.c's
 * exchange across nodes for coll.c.
 */
#ifndef ARMCII_COLL_NODE_H
#define ARMCII_COLL_NODE_H

#include <stddef.h>

#include "../transport/transport.h"

enum { ARMCII_COLL_MORTON, ARMCII_COLL_NAIVE, ARMCII_COLL_MPI, ARMCII_COLL_PULL, ARMCII_COLL_AUTO };

/** The collectives' part of each process's control block in the node's mapping (the
 *  transport's armcii_node_slot_t keeps room for it, zeroed). */
typedef struct {
    char *buf[4];       /* send and receive buffers (and a node leader's buffers for the
                           exchange between nodes) */
    uint64_t bar_count; /* node barrier (used in node rank 0's slot) */
    uint64_t bar_gen;
    uint64_t small_seq;   /* small collectives: the last call whose send data is staged */
    char *small_buf;      /* ... in these two halves, alternately (see coll.c) */
    uint64_t buf_private; /* buf[0] is private memory, read with process_vm_readv */
} armcii_coll_slot_t;
_Static_assert(sizeof(armcii_coll_slot_t) <= sizeof(((armcii_node_slot_t *)0)->coll),
               "the collectives' part fits the room of a node slot");

/** The collectives' part of the slot of the process of node-local rank @p node_rank. */
static inline armcii_coll_slot_t *armcii_coll_slot(int node_rank)
{
    return (armcii_coll_slot_t *)(void *)armcii_node.slots[node_rank].coll;
}

/** A buffer of this process's slice of the node heap, kept between calls. */
typedef struct {
    char *addr;
    size_t off, rounded, size;
} stage_t;

/* What a collective waits for, as the watchdog says it. */
#define ARMCII_COLL_ENTER                                                                          \
    "reach the same collective call (a process in another call, or with other \
arguments or ARMCI_COLL_* settings, never will)"

/* ---- node.c ---- */

/** Parses ARMCI_COLL_ALG (armcii_coll_init). */
void armcii_coll_alg_init(void);
/** The ARMCII_COLL_* of ARMCI_COLL_ALG; fatal, naming the setting, if it names none. */
int armcii_coll_algorithm(const char *call);

/** Is the world one node whose processes share memory, where ARMCI_COLL_ALG lets the
 *  runtime's own shared-memory steps replace MPI's? */
int armcii_coll_world_in_node(const char *call);
/** A barrier of the world through the node's shared memory: 1 if it was one. */
int armcii_coll_node_sync(const char *call);

/** At least @p len bytes in @p s (reallocated when smaller); fatal if the heap is full. */
char *armcii_coll_staging(const char *call, stage_t *s, size_t len);
void armcii_coll_stage_free(stage_t *s);
/** Every process of the node arrives before any leaves; waiters serve progress. */
void armcii_coll_node_barrier(const char *call);

/** All-to-all / allgather of the world over several nodes (hier.c); @p sbuf and @p rbuf
 *  lie in the node heap. */
int armcii_coll_hier(const char *call, int allgather, char *sbuf, char *rbuf, size_t bb, int alg);
void armcii_coll_hier_fini(void);
void armcii_coll_hier_stage_fini(void);

#endif
