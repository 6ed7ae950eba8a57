/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Requests and the table of processes (armcii_reqs, written by req.c alone): how each
 * process is reached, the life of a request from its slot to its release, and the
 * caller's handles bound to requests. Nothing here waits: waiting for a request is
 * progress.h's, and issuing one, which may wait, issue.h's.
 */
#ifndef ARMCII_REQ_H
#define ARMCII_REQ_H

#include <stddef.h>
#include <stdint.h>

#include <armci.h>

#include "runtime.h"
#include "../base/common.h"
#include "../base/pool.h"
#include "../base/select.h"
#include "../base/token.h"

/** What the core keeps of one process of the job, in one place (req.c makes the table from
 *  what topo.c found, and counts the requests): a small operation to a target reads how
 *  it is reached and its counters from one line. */
typedef struct {
    int node;         /* node id */
    int node_rank;    /* rank within its node */
    int path;         /* armcii_path_t: self, the node's memory or the fabric */
    int out_write;    /* puts and hardware accumulates in flight to it */
    int out_sw;       /* software accumulates awaiting their acknowledgement */
    int out_implicit; /* implicit-handle requests in flight */
    int pad[2];
} armcii_peer_t;
_Static_assert(sizeof(armcii_peer_t) == 32, "two peers to a cache line, none across two");

/** The requests and what is in flight to each process (req.c writes it, whichever thread
 *  holds the runtime lock). */
typedef struct {
    /* Set at start-up and read by every operation: on a line that nothing writes later. */
    armcii_peer_t *peers; /* every rank: where it is, what is in flight to it */
    /* Written as requests are made and completed, by the caller or the progress thread:
     * on a line of their own (the pool's free list and active list, and the counts). */
    armcii_pool_t pool __attribute__((aligned(64)));
    int implicit_total; /* implicit-handle requests in flight, to anyone */
    int ncopied;        /* requests in flight of blocking calls that returned (armcii_req_finish) */
} armcii_reqs_t;
_Static_assert(sizeof(armcii_reqs_t) == 128, "the table's line, then the pool's");

extern armcii_reqs_t armcii_reqs;

/* ---- paths and regions ---- */

/** How @p target is reached: itself, through the node's memory (a peer of this node, and
 *  shared memory on), or over the fabric (decided once, by armcii_peers_init). */
static inline armcii_path_t armcii_path(int target)
{
    return (armcii_path_t)armcii_reqs.peers[target].path;
}

/** The node-local rank of @p rank, which names its slot in the node's control blocks
 *  (0 when shared memory is off). */
static inline int armcii_slot_of(int rank)
{
    return armcii_rt.shm ? armcii_reqs.peers[rank].node_rank : 0;
}

/** The node of @p rank, numbered as topo.c found the nodes. */
static inline int armcii_node_of(int rank)
{
    return armcii_reqs.peers[rank].node;
}

/* ---- requests (src/core/req.c; waiting for them: progress.c) ---- */

/** Makes the table of processes from what topo.c found (@p node and @p node_rank, by
 *  world rank), once it is known whether shared memory is used. */
armcii_status_t armcii_peers_init(const int *node, const int *node_rank);
/** Makes the request pool, of ARMCI_MAX_REQUESTS slots; 0, or -1 when out of memory. */
int armcii_req_init(void);
/** Frees the pool and the table of processes. */
void armcii_req_fini(void);

/** A new request of @p kind to @p target (@p implicit: no handle will wait for it), counted
 *  as in flight there; NULL when the pool is full (issue.c's armcii_req_new then waits for
 *  the oldest). */
armcii_req_t *armcii_req_take(armcii_req_kind_t kind, int target, int implicit);
/** Whether some caller's handle names an operation in flight: a handle given to an
 *  unlocked fast path must then be checked on the locked way (only the calling thread
 *  binds handles, so the count cannot grow behind this look). */
static inline int armcii_req_handles_bound(void)
{
    return armcii_pool_nbound(&armcii_reqs.pool) > 0;
}
/** Ends the job if the caller's handle at @p h still names an operation in flight: a
 *  handle takes one operation at a time. */
void armcii_hdl_check_free(const char *call, const armci_hdl_t *h);
/** The caller's handle @p h (if any) names @p req, in flight; checked first. */
void armcii_hdl_bind(const char *call, armci_hdl_t *h, armcii_req_t *req);
/** Marks @p h (if any) as holding an operation that completed within its issuing call,
 *  once checked as armcii_hdl_bind checks. */
static inline void armcii_hdl_done(const char *call, armci_hdl_t *h)
{
    if (!h)
        return;
    if (armcii_req_handles_bound())
        armcii_hdl_check_free(call, h);
    armcii_hdl_set(h, ARMCII_HDL_SLOT_DONE, 0, 0);
}

/** Requests of the pool in flight now, and its size (ARMCI_MAX_REQUESTS). */
static inline void armcii_req_counts(int *in_use, int *slots)
{
    *in_use = armcii_reqs.pool.nactive;
    *slots = armcii_reqs.pool.nslots;
}
/** The request the caller's handle @p h names, or NULL when its operation is done;
 *  @p st_p receives the handle's state. A NULL handle, or one neither initialised nor
 *  returned by a nonblocking call, ends the job naming @p call. */
armcii_req_t *armcii_req_of_handle(const char *call, const armci_hdl_t *h,
                                   armcii_hdl_state_t *st_p);
/** A transport operation of @p req completed. */
void armcii_req_op_done(armcii_token_t *tok);
/** A blocking call's data has left (its request waits for an acknowledgement only). */
void armcii_req_copied(armcii_token_t *tok);
/** The request in flight that armcii_token_cookie named; the job ends on a stale name. */
armcii_token_t *armcii_req_of_cookie(uint64_t cookie);
/** Mark @p req issued (drops the count armcii_req_new took): if nothing else is pending
 *  it completes at once. */
void armcii_req_issued(armcii_req_t *req);

#endif
