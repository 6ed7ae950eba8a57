/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The collectives as the rest of the runtime uses them (src/coll): the world's barrier,
 * reductions and broadcasts for armci_msg_*, and their bring-up. What the files of
 * src/coll share among themselves is in node.h.
 *
 * Its files: coll.c (the node's shared-memory all-to-all and allgather, and their
 * bring-up), node.c (what the others share on a node: the choice of algorithm, staging,
 * the node barrier; it calls none of them), reduce.c (armci_msg_*'s reductions, selection,
 * broadcasts and barriers over a communicator: the folding of a reduction, the choice among the
 * node's memory, p2p.c and MPI), hier.c (all-to-all and allgather across nodes through node
 * leaders), p2p.c (reductions and broadcasts over MPI's point-to-point messages, completed by the
 * runtime's wait) and morton.c (the Morton order of the node's exchange). It may call the
 * core, the transport's contract (the node heap) and the job's health.
 */
#ifndef ARMCII_COLLECTIVES_H
#define ARMCII_COLLECTIVES_H

#include <mpi.h>
#include <stddef.h>

/** A reduction as the processes must agree on it: its operation and element type, a string
 *  ("max double") of at most this many bytes, NUL-padded. Processes that disagree are told
 *  so, naming both, by the steps below that exchange data. */
#define ARMCII_COLL_WHAT 16

/** A reduction as the API layer has parsed it (armci/message.c): the elements and the
 *  operation. */
typedef struct {
    int type;         /**< ARMCI_INT, _LONG, _LONG_LONG, _FLOAT or _DOUBLE */
    MPI_Datatype dt;  /**< its MPI type */
    size_t es;        /**< its size in bytes */
    MPI_Op op;        /**< MPI_SUM, _PROD, _MAX, _MIN, _LAND, _LOR, _BAND or _BOR */
    int absolute;     /**< absmax, absmin: the absolute values are reduced */
    int logical;      /**< && or ||: floating-point operands are reduced as ints */
    const char *name; /**< the operation as the user named it ("max"), for the agreement */
} armcii_reduction_t;

/*
 * The collectives of armci_msg_* (src/coll/reduce.c), over @p comm, which this process
 * belongs to, with their arguments checked by the caller. @p own is the runtime's own
 * communicator over the same processes (armcii_coll_p2p_world, or a group's
 * noncoll_pgroup_comm), or MPI_COMM_NULL where there is none, for the point-to-point steps.
 */
/** In place, the reduction @p red of the @p n (> 0) elements at @p x; every process gets the
 *  same bits. Processes that reduce differently are told so. */
void armcii_coll_allreduce(const char *call, void *x, int n, const armcii_reduction_t *red,
                           MPI_Comm comm, MPI_Comm own);
/** The @p len bytes at @p buf of rank @p root of @p comm, to every process. */
void armcii_coll_bcast(const char *call, MPI_Comm comm, MPI_Comm own, void *buf, int len, int root);
/** A barrier of @p comm (the world's: armcii_coll_barrier). */
void armcii_coll_comm_barrier(const char *call, MPI_Comm comm, MPI_Comm own);
/** Every process gets the @p n bytes at @p x of the contributing process whose first
 *  element (of ARMCI type @p type, @p es bytes, which @p n holds) is the largest
 *  (@p want_max) or smallest; the lowest rank wins a tie, nothing changes if none
 *  contributes. Processes that select differently are told so. */
void armcii_coll_select(const char *call, MPI_Comm comm, void *x, int n, int type, size_t es,
                        int want_max, int contribute);

void armcii_coll_init(void);
/** Does ARMCI_COLL_ALG=mpi leave every collective to MPI? */
int armcii_coll_mpi_only(const char *call);
/** May collectives read send buffers in other processes' private memory (process_vm_readv)? */
int armcii_coll_cma(void);
/** Its line of ARMCI_VERBOSE's settings, through @p line. */
void armcii_coll_describe(void (*line)(const char *text));
/** Where the world is one node sharing memory and ARMCI_COLL_ALG allows it, gathers the
 *  @p bytes at @p x of every process (rank order, valid until the next call) with one
 *  synchronisation, for the reduction @p what; NULL, doing nothing, elsewhere. Collective
 *  over the world. */
const void *armcii_coll_node_gather(const char *call, const void *x, size_t bytes,
                                    const char *what);
/** Ends the job: this process reduces with @p mine, process @p other (of the world) with
 *  @p theirs. */
void armcii_coll_what_mismatch(const char *call, int other, const char *mine, const char *theirs);
/*
 * Collectives by MPI point-to-point messages (src/coll/p2p.c), which the runtime's wait
 * completes, over @p comm: a communicator of the runtime's own (the world's,
 * armcii_coll_p2p_world, or a group's noncoll_pgroup_comm). Each returns 0, doing nothing,
 * where MPI's collective is to do it: no such communicator (MPI_COMM_NULL),
 * ARMCI_COLL_ALG=mpi, or more than 64 KiB per process.
 */
/** In place, MPI's @p op on @p n elements of @p dt, @p es bytes each, the reduction @p what;
 *  every process gets the same bits. */
int armcii_coll_p2p_allreduce(const char *call, MPI_Comm comm, void *x, int n, MPI_Datatype dt,
                              size_t es, MPI_Op op, const char *what);
/** The @p bytes at @p buf of rank @p root of @p comm, to every process. */
int armcii_coll_p2p_bcast(const char *call, MPI_Comm comm, void *buf, size_t bytes, int root);
int armcii_coll_p2p_barrier(const char *call, MPI_Comm comm);
/** The runtime's own duplicate of the world's communicator, for the above. */
MPI_Comm armcii_coll_p2p_world(void);
/** The barrier of the world: the node's shared memory, point-to-point messages or MPI's
 *  barrier, as the layout and ARMCI_COLL_ALG say; waiters serve peers. */
void armcii_coll_barrier(const char *call);
void armcii_coll_p2p_init(void);
void armcii_coll_p2p_fini(void);
void armcii_coll_fini(void);

#endif
