/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Extensions to ARMCI. The first part is ARMCI-MPI's armcix.h, with its prototypes, so that
 * programs written for it build and link unchanged; the rest is ours (armci-ofi), and code
 * that uses it can test for ARMCI_OFI (armci.h).
 */
#ifndef ARMCIX_H
#define ARMCIX_H

#include <armci.h>
#include <armciconf.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- ARMCI-MPI's extensions ---- */

/** New groups from @p parent, by color and key as MPI_Comm_split. Collective over
 *  @p parent. @return 0. */
int ARMCIX_Group_split(ARMCI_Group *parent, int color, int key, ARMCI_Group *new_group);
/** A copy of @p parent with communicators of its own. Collective over @p parent. @return 0. */
int ARMCIX_Group_dup(ARMCI_Group *parent, ARMCI_Group *new_group);

/** A batch of mutexes over a group. The structure is the runtime's own (ARMCI-MPI's
 *  differs): programs hold only the pointer. */
struct armcix_mutex_hdl_s;
typedef struct armcix_mutex_hdl_s *armcix_mutex_hdl_t;

/** Create @p count mutexes on this process, in a new batch over @p pgroup (collective over
 *  it); batches and ARMCI_Create_mutexes coexist. @return the batch's handle. */
armcix_mutex_hdl_t ARMCIX_Create_mutexes_hdl(int count, ARMCI_Group *pgroup);
/** Destroy a batch (collective over its group); none of its mutexes may be held by the
 *  caller. @return 0. */
int ARMCIX_Destroy_mutexes_hdl(armcix_mutex_hdl_t hdl);
/** Lock mutex @p mutex of process @p proc (an absolute id, as ARMCI-MPI takes it) in the
 *  batch @p hdl. */
void ARMCIX_Lock_hdl(armcix_mutex_hdl_t hdl, int mutex, int proc);
/** As ARMCIX_Lock_hdl, without waiting. @return 0 if the mutex was taken, non-zero if
 *  another process holds or awaits it. */
int ARMCIX_Trylock_hdl(armcix_mutex_hdl_t hdl, int mutex, int proc);
/** Unlock a mutex this process holds, once its puts and accumulates are complete. */
void ARMCIX_Unlock_hdl(armcix_mutex_hdl_t hdl, int mutex, int proc);

/** Drive communication progress once (serve incoming requests, complete outgoing ones).
 *  When it finds nothing to do on a machine with more processes than hardware threads
 *  (see ARMCI_YIELD_IDLE), it also yields the processor, as a loop waiting for a flag
 *  should. */
void ARMCIX_Progress(void);

/* ---- armci-ofi's extensions ---- */

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
 * Nonblocking ARMCI_Put_flag: puts @p size bytes from @p src to @p dst on @p proc, then
 * stores @p value into the int at @p flag on @p proc once the data is in place there, so
 * that a target waiting for the flag may read the data. Over libfabric data and flag travel
 * together in one-way messages, without the round trip of a fence. The call returns with
 * @p src reusable; @p hdl (NULL: implicit, completed by fences and ARMCI_WaitAll) completes
 * when the target has applied both. Aggregate handles are not accepted. @return 0.
 */
int ARMCIX_NbPut_flag(void *src, void *dst, int size, int *flag, int value, int proc,
                      armci_hdl_t *hdl);

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
 * long run gives everything back: after ARMCI_WaitAll and ARMCI_AllFence no request slot is
 * taken; bounce buffers also serve other processes' operations on this one, so they all
 * come back once the others have stopped (after a barrier, and the progress that reaps the
 * last completions). @return 0, or -1 if @p res is NULL.
 */
int ARMCIX_Resources(armcix_resources_t *res);

/* ---- the get cache (CLaMPI) ---- */

/** Cache modes, chosen per allocation (ARMCIX_Cache_set_mode) or for all (ARMCI_CACHE). */
enum armcix_cache_mode_e {
    ARMCIX_CACHE_OFF = 0,     /**< gets from the allocation are never cached */
    ARMCIX_CACHE_TRANSPARENT, /**< cached until this process's next synchronisation point
                                   (barrier, fence, lock, unlock, RMW, armci_msg_*
                                   collectives, ARMCI_Malloc/Free) */
    ARMCIX_CACHE_ALWAYS,      /**< read-only data: never invalidated automatically */
    ARMCIX_CACHE_USER         /**< invalidated only by ARMCIX_Cache_invalidate */
};

/**
 * Choose how this process caches its gets from the allocation whose local block starts at
 * @p my_base (the pointer ARMCI_Malloc returned to this process). @p my_base NULL sets the
 * mode of every allocation, present and future. Only gets that cross libfabric are cached
 * (same-node data is read directly). In every mode, a put, accumulate or RMW by this process
 * first drops the cached bytes it overlaps. Local: no other process is involved.
 * @return 0 (errors such as an unknown mode or address go through ARMCI_Error).
 */
int ARMCIX_Cache_set_mode(void *my_base, int mode);

/** @return the mode of the allocation whose local block starts at @p my_base (NULL: the
 *  mode new allocations get). */
int ARMCIX_Cache_get_mode(void *my_base);

/** Drop what this process has cached from the allocation at @p my_base (NULL: from every
 *  allocation). @return 0. */
int ARMCIX_Cache_invalidate(void *my_base);

/** Counters of this process's cache (since ARMCI_Init or ARMCIX_Cache_reset_stats). */
typedef struct {
    long hits;               /**< gets answered from the cache */
    long misses;             /**< gets of cached allocations that went to the target */
    long bytes_hit;          /**< bytes served from the cache */
    long conflict_evictions; /**< entries dropped because the index had no slot for a key */
    long capacity_evictions; /**< entries dropped to make room in the storage buffer */
    long failed_inserts;     /**< fetched data not kept (too large, or lowest score) */
    long invalidations;      /**< entries dropped by synchronisation, puts or explicit calls */
    long entries;            /**< entries held now */
    long index_slots;        /**< slots of the cuckoo index now */
    long buffer_bytes;       /**< size of the storage buffer now */
    long buffer_used;        /**< bytes of it in use */
    long index_resizes;      /**< adaptive changes of the index size */
    long buffer_resizes;     /**< adaptive growths of the storage buffer */
} armcix_cache_stats_t;

/** Fill @p stats with this process's cache counters (all zero while no allocation has
 *  used the cache). @return 0 (a NULL @p stats goes through ARMCI_Error). */
int ARMCIX_Cache_get_stats(armcix_cache_stats_t *stats);
/** Zero the event counters (the sizes stay). @return 0. */
int ARMCIX_Cache_reset_stats(void);

#ifdef __cplusplus
}
#endif

#endif /* ARMCIX_H */
