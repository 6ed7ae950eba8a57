/*
 * armci-ofi extensions to ARMCI. Everything here is ours; code that uses it can test
 * for ARMCI_OFI (armci.h).
 */
#ifndef ARMCIX_H
#define ARMCIX_H

#include <armci.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Drive communication progress once (serve incoming requests, complete outgoing ones). */
void ARMCIX_Progress(void);

/** Which path operations to a process take (see ARMCIX_Path_of). */
enum armcix_path_e {
    ARMCIX_PATH_SELF,  /**< the calling process itself: a local copy */
    ARMCIX_PATH_SHM,   /**< same node: loads and stores in the node's shared memory */
    ARMCIX_PATH_FABRIC /**< libfabric */
};

/** @return the ARMCIX_PATH_* that operations from this process to @p proc take. */
int ARMCIX_Path_of(int proc);

/** @return the name of the libfabric provider in use, or "none" when no peer needs it. */
const char *ARMCIX_Provider_name(void);

/**
 * All-to-all: block i of this process's @p sendbuf (blocks of @p block_bytes) lands as block
 * r of process i's @p recvbuf, where r is this process's rank in @p group (NULL: every
 * process), as MPI_Alltoall. Within a node the copies go through the node's shared memory in
 * Morton order (ARMCI_COLL_ALG); buffers from ARMCI_Malloc_local are used without staging.
 * Collective over the group. @return 0.
 */
int ARMCIX_Alltoall(const void *sendbuf, void *recvbuf, size_t block_bytes, ARMCI_Group *group);
/** Allgather: every process's @p sendbuf (one block) lands as block r of every @p recvbuf. */
int ARMCIX_Allgather(const void *sendbuf, void *recvbuf, size_t block_bytes, ARMCI_Group *group);

/**
 * Aggregate-handle counters of this process: operations collected on aggregate handles
 * (@p aggregated_p) and vector transfers they were sent as (@p flushes_p). Either may be
 * NULL. @return 0.
 */
int ARMCIX_Agg_stats(long *aggregated_p, long *flushes_p);

/** What this process holds of the runtime's bounded resources (see ARMCIX_Resources). */
typedef struct {
    long requests_in_use; /**< request slots taken: operations in flight or not yet waited */
    long requests_max;    /**< the pool's size (ARMCI_MAX_REQUESTS) */
    long bounce_in_use;   /**< registered bounce buffers taken by operations in flight */
    long bounce_max;      /**< ARMCI_BOUNCE_COUNT (0 without libfabric peers) */
} armcix_resources_t;

/**
 * This process's use of the request pool and of the bounce buffers, e.g. to check that a
 * long run gives everything back: after ARMCI_WaitAll and ARMCI_AllFence both "in use"
 * counts are 0. @return 0, or -1 if @p res is NULL.
 */
int ARMCIX_Resources(armcix_resources_t *res);

#ifdef __cplusplus
}
#endif

#endif /* ARMCIX_H */
