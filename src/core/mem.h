/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Collective allocations and the region table (armcii_mem, written by alloc.c alone):
 * what an allocation is, where a segment's remote addresses and keys come from, and the
 * calls that allocate and free.
 */
#ifndef ARMCII_MEM_H
#define ARMCII_MEM_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include <armci.h>

#include "../base/common.h"
#include "../base/region.h"
#include "../cache/getcache.h"
#include "runtime.h"

/** One collective allocation (ARMCI_Malloc). */
typedef struct armcii_alloc {
    /* Its blocks, one per process that asked for bytes, are in the region table; nothing
     * here grows with the number of processes unless the provider picks the keys. */
    uint64_t key;   /* every block's registration key, where caps.keys_chosen */
    uint64_t *keys; /* else each block's, by world rank (NULL where keys_chosen) */
    int empty;      /* every process asked for 0 bytes */
    void *my_base;  /* this process's block (NULL when it asked for 0 bytes) */
    size_t my_off;  /* offset of my block in my heap slice */
    size_t my_len;  /* bytes reserved in the slice (rounded) */
    armcii_mr_t mr; /* registration of my block, when the fabric is in use */
    int registered;
    MPI_Comm comm;              /* communicator it was allocated over (not owned) */
    armcii_cache_owner_t cache; /* how this process caches gets from it (the cache's) */
    struct armcii_alloc *next;
} armcii_alloc_t;

/** Every process's allocations, as alloc.c enters and removes them (the node heap itself
 *  is the transport's: armcii_node, transport.h). A lookup reads the table and moves only
 *  the per-rank cursor of the last segment found (region.h). */
typedef struct {
    armcii_region_table_t regions;
    armcii_alloc_t *allocs;
} __attribute__((aligned(64))) armcii_mem_t;

extern armcii_mem_t armcii_mem;

/** The registration key of @p seg, the block of world rank @p rank. */
static inline uint64_t armcii_seg_key(const armcii_seg_t *seg, int rank)
{
    return seg->alloc->keys ? seg->alloc->keys[rank] : seg->alloc->key;
}

/** The address libfabric expects for @p addr within @p seg: the address itself, or its
 *  offset in the registration. */
static inline uint64_t armcii_seg_raddr(const armcii_seg_t *seg, uintptr_t addr)
{
    return armcii_rt.caps.mr_virt_addr ? (uint64_t)addr : (uint64_t)(addr - seg->base);
}

/* ---- allocation (src/core/alloc.c) ---- */

/** Collective over @p comm: a block of @p size bytes on every member (sizes may differ),
 *  their addresses in @p ptr_arr by rank in @p comm; the job ends naming the cause when any
 *  member fails. */
/** The segment of @p target holding [@p r, +@p len), which the API layer checked: the job
 *  ends (naming an internal error) if it has none. */
static inline const armcii_seg_t *armcii_seg_of(const char *call, int target, const void *r,
                                                size_t len)
{
    const armcii_seg_t *seg = armcii_region_find(&armcii_mem.regions, target, (uintptr_t)r, len);
    if (!seg) /* the API layer checked every block; this is a runtime defect */
        armcii_fatal(call, "internal: block %p (+%zu) of process %d lost its segment", r, len,
                     target);
    return seg;
}
int armcii_malloc_comm(const char *call, void **ptr_arr, armci_size_t size, MPI_Comm comm);
/** Collective over @p comm: frees the allocation whose block here is @p ptr (NULL for a
 *  member that contributed none); every member must free the same one. */
int armcii_free_comm(const char *call, void *ptr, MPI_Comm comm);
/** Collective over the job: ARMCI_Finalize's first step, the same exchange that opens an
 *  allocation or a free, so that a process that frees or allocates while another ends is
 *  told, naming both calls. */
void armcii_alloc_announce_end(const char *call);
/** Makes the region table, for every process of the job; 0, or -1 when out of memory. */
int armcii_alloc_init(void);
/** Frees the region table (after armcii_alloc_drop_all). */
void armcii_alloc_fini(void);
/** The allocation whose block on this process starts at @p my_base (NULL if none). */
armcii_alloc_t *armcii_alloc_find(void *my_base);
/** At finalize: releases every allocation the application did not free. */
void armcii_alloc_drop_all(void);
/** ARMCI_Malloc_local's block of @p size bytes (NULL for 0); ends the job when none fits. */
void *armcii_malloc_local(const char *call, size_t size);
/** Frees a block of armcii_malloc_local; the job ends for any other pointer. */
void armcii_free_local(const char *call, void *ptr);

#endif
