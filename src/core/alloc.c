/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Allocation: a block comes from this process's slice of the node heap (so same-node
 * peers can address it directly), is registered with libfabric when some peer needs the
 * fabric, and is entered into the region table of every process. This file is the one
 * writer of the region table and the allocation list (armcii_mem) and of this process's local
 * blocks; the API layer (armci/malloc.c, mutex.c) checks the arguments and calls here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"
#include "order.h"
#include "progress.h"
#include "runtime.h"
#include "topo.h"
#include "../base/common.h"
#include "../base/region.h"
#include "../cache/getcache.h"
#include "../transport/transport.h"

armcii_mem_t armcii_mem;

/* What each process tells the others of its block. A size of BLOCK_FAILED: it could not
 * register its block, and the allocation fails everywhere. */
typedef struct {
    uint64_t base, size, key;
} block_info_t;
#define BLOCK_FAILED UINT64_MAX

/* What each process sends first in a collective allocation, a collective free and
 * ARMCI_Finalize alike, so that processes of which some allocate while others free or
 * finalize meet in the same exchange and are told so (rather than meeting in two
 * different MPI collectives on one communicator: Open MPI reports that as an error of its
 * own, or not at all; MPICH delivered one's data to the other, or ended the process). */
enum { HDR_ALLOC, HDR_FREE, HDR_FINALIZE };
typedef struct {
    char call[32];    /* the ARMCI call, for the message */
    uint32_t is_free; /* HDR_*: an allocation, a free (of memory or of mutexes), the end */
    uint32_t failed;  /* allocation: carving the block failed */
    uint64_t word;    /* allocation: the next registration key; free: the pointer */
} alloc_hdr_t;

/* Every process's header of @p comm (@p n processes), in rank order; the caller frees it. */
static alloc_hdr_t *exchange_hdr(const char *call, int is_free, int failed, uint64_t word,
                                 MPI_Comm comm, int n)
{
    alloc_hdr_t mine = {.is_free = (uint32_t)is_free, .failed = (uint32_t)failed, .word = word};
    alloc_hdr_t *all = malloc((size_t)n * sizeof(*all));
    if (!all)
        armcii_fatal(call, "out of memory");
    snprintf(mine.call, sizeof mine.call, "%s", call);
    MPI_Request r;
    MPI_Iallgather(&mine, sizeof(mine), MPI_BYTE, all, sizeof(mine), MPI_BYTE, comm, &r);
    armcii_mpi_wait(call, &r);
    for (int i = 0; i < n; i++) {
        if (all[i].is_free == mine.is_free)
            continue;
        int abs = i;
        armcii_translate(comm, armcii_rt.comm, 1, &i, &abs);
        armcii_fatal(call,
                     "process %d called %.32s where this process called %s: allocating and "
                     "freeing are collective, as is ARMCI_Finalize, and every process of the "
                     "group must make the same calls in the same order",
                     abs, all[i].call, call);
    }
    return all;
}

/* Local allocations (ARMCI_Malloc_local), looked up at free. */
typedef struct local_block {
    void *addr;
    size_t off, rounded;
    armcii_mr_t mr;
    int registered;
    struct local_block *next;
} local_block_t;
static local_block_t *local_blocks;

/* A block of my heap slice; registered with libfabric when @p remote (peers address it). */
static armcii_status_t carve(const char *call, size_t len, int remote, void **addr_p, size_t *off_p,
                             size_t *rounded_p, armcii_mr_t *mr_p, int *registered_p)
{
    armcii_status_t st = armcii_shm_alloc(call, len, addr_p, off_p, rounded_p);
    if (st != ARMCII_OK)
        return st;
    *registered_p = 0;
    if (armcii_rt.fabric && remote) {
        st = armcii_net_register(call, *addr_p, len, mr_p);
        if (st != ARMCII_OK) {
            armcii_shm_free(*off_p, *rounded_p);
            return st;
        }
        *registered_p = 1;
    }
    return ARMCII_OK;
}

/*
 * Collective over @p comm; ptr_arr is indexed by rank in comm.
 *
 * Two rounds: first everybody learns that every block was carved and agrees on a key for
 * the registrations (the largest key any member would use next), then the blocks, now
 * registered under that key, are exchanged. With one key for all blocks, a process keeps per
 * block only its segment in the region table; where the provider picks the keys itself,
 * the allocation also keeps each block's.
 */
int armcii_malloc_comm(const char *call, void **ptr_arr, armci_size_t size, MPI_Comm comm)
{
    int n, me;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);

    armcii_alloc_t *a = calloc(1, sizeof(*a));
    if (!a)
        armcii_fatal(call, "out of memory");
    a->comm = comm;
    armcii_status_t st = ARMCII_OK;
    if (size > 0)
        st = carve(call, (size_t)size, 0, &a->my_base, &a->my_off, &a->my_len, &a->mr,
                   &a->registered);
    /* Everybody learns whether everybody succeeded, so no one is left waiting. */
    int fabric = armcii_rt.fabric;
    alloc_hdr_t *hdr =
        exchange_hdr(call, HDR_ALLOC, st != ARMCII_OK, fabric ? armcii_net_key_next() : 0, comm, n);
    uint64_t out[2] = {0, 0}; /* any failed; the largest next key */
    for (int i = 0; i < n; i++) {
        out[0] |= hdr[i].failed;
        out[1] = hdr[i].word > out[1] ? hdr[i].word : out[1];
    }
    free(hdr);
    if (out[0])
        armcii_fatal(call, "allocation of %ld bytes failed on %s", (long)size,
                     st == ARMCII_OK ? "another process (see its message)"
                                     : "this process (see above)");
    int agreed = fabric && armcii_rt.caps.keys_chosen;
    block_info_t mine = {(uintptr_t)a->my_base, (uint64_t)size, 0};
    if (fabric && size > 0) {
        st = agreed ? armcii_net_register_key(call, a->my_base, (size_t)size, out[1], &a->mr)
                    : armcii_net_register(call, a->my_base, (size_t)size, &a->mr);
        if (st == ARMCII_OK) {
            a->registered = 1;
            mine.key = a->mr.key;
        } else {
            mine.size = BLOCK_FAILED;
        }
    }
    a->key = agreed ? out[1] : 0;
    if (fabric && !agreed) {
        a->keys = calloc((size_t)armcii_rt.nproc, sizeof(uint64_t));
        if (!a->keys)
            armcii_fatal(call, "out of memory");
        a->keys[armcii_rt.rank] = mine.key;
    }
    /* My own block enters the region table before anybody can learn its address: a peer
     * that leaves the exchange first may aim at it while we still wait in the exchange
     * (serving progress), and must not be refused. */
    if (size > 0 && mine.size != BLOCK_FAILED) {
        armcii_seg_t seg = {.base = mine.base, .size = (size_t)size, .alloc = a};
        if (armcii_region_insert(&armcii_mem.regions, armcii_rt.rank, &seg) != 0)
            armcii_fatal(call, "my new block at %p overlaps another allocation", a->my_base);
    }
    block_info_t *all = malloc((size_t)n * sizeof(*all));
    int *world = malloc((size_t)n * sizeof(int));
    if (!all || !world)
        armcii_fatal(call, "out of memory");
    MPI_Request r;
    MPI_Iallgather(&mine, sizeof(mine), MPI_BYTE, all, sizeof(mine), MPI_BYTE, comm, &r);
    armcii_mpi_wait(call, &r);
    for (int i = 0; i < n; i++)
        if (all[i].size == BLOCK_FAILED)
            armcii_fatal(call, "registering %ld bytes with libfabric failed on %s", (long)size,
                         i == me ? "this process (see above)"
                                 : "another process (see its message)");

    for (int i = 0; i < n; i++)
        world[i] = i;
    armcii_translate(comm, armcii_rt.comm, n, world, world);

    a->empty = 1;
    for (int i = 0; i < n; i++) {
        ptr_arr[i] = (void *)(uintptr_t)all[i].base;
        if (all[i].size > 0)
            a->empty = 0;
        if (a->keys)
            a->keys[world[i]] = all[i].key;
        if (all[i].size == 0 || world[i] == armcii_rt.rank)
            continue;
        armcii_seg_t seg = {
            .base = (uintptr_t)all[i].base, .size = (size_t)all[i].size, .alloc = a};
        if (armcii_region_insert(&armcii_mem.regions, world[i], &seg) != 0)
            armcii_fatal(call, "the block of process %d at %p overlaps another allocation",
                         world[i], (void *)(uintptr_t)all[i].base);
    }
    free(all);
    free(world);
    armcii_cache_alloc_new(&a->cache);
    a->next = armcii_mem.allocs;
    armcii_mem.allocs = a;
    return 0;
}

void armcii_alloc_announce_end(const char *call)
{
    free(exchange_hdr(call, HDR_FINALIZE, 0, 0, armcii_rt.comm, armcii_rt.nproc));
}

armcii_alloc_t *armcii_alloc_find(void *my_base)
{
    for (armcii_alloc_t *a = armcii_mem.allocs; a; a = a->next) {
        if (a->my_base == my_base && my_base != NULL)
            return a;
    }
    return NULL;
}

int armcii_free_comm(const char *call, void *ptr, MPI_Comm comm)
{
    armcii_alloc_t *a = NULL;
    if (ptr) {
        a = armcii_alloc_find(ptr);
        if (!a)
            armcii_fatal(call, "%p is not the start of an ARMCI allocation of this process", ptr);
    }
    /* Nothing may still be in flight into memory that is about to go, nor out of it: a
     * get of this process's from a peer's block of it, which no fence waits for, would
     * find that block deregistered ("Operation canceled" over tcp). */
    armcii_req_wait_all(call);
    armcii_fence_all(call);
    int n;
    MPI_Comm_size(comm, &n);
    void **ptrs = malloc((size_t)n * sizeof(void *));
    int *world = malloc((size_t)n * sizeof(int));
    if (!ptrs || !world)
        armcii_fatal(call, "out of memory");
    alloc_hdr_t *hdr = exchange_hdr(call, HDR_FREE, 0, (uint64_t)(uintptr_t)ptr, comm, n);
    for (int i = 0; i < n; i++)
        ptrs[i] = (void *)(uintptr_t)hdr[i].word;
    free(hdr);
    for (int i = 0; i < n; i++)
        world[i] = i;
    armcii_translate(comm, armcii_rt.comm, n, world, world);
    /* A process that contributed zero bytes passes NULL. It finds the allocation by the
     * block of the first process that passed one: no two live allocations share that
     * address, so it names one allocation even when several of this process's are empty
     * and freed in any order (ARMCI-MPI's tests/test_malloc_irreg.c and test_malloc.c keep
     * ten and a hundred alive). Where every process passed NULL, the allocation had zero
     * bytes everywhere, and any such record of this communicator stands for it; with no
     * such record there is nothing to free, and the call does nothing, as in ARMCI-MPI
     * (src/gmr.c, gmr_destroy: "Everyone passed NULL. Nothing to free."). */
    int first = -1;
    for (int i = 0; i < n && first < 0; i++)
        if (ptrs[i])
            first = i;
    /* Blocks are looked up by their first byte: an empty range at a block's start also lies
     * at the end of a block just below it. */
    if (!a && first >= 0) {
        const armcii_seg_t *seg =
            armcii_region_find(&armcii_mem.regions, world[first], (uintptr_t)ptrs[first], 1);
        if (seg && seg->base == (uintptr_t)ptrs[first] && seg->alloc->comm == comm &&
            seg->alloc->my_base == NULL)
            a = seg->alloc;
    }
    for (armcii_alloc_t *x = armcii_mem.allocs; x && !a && first < 0; x = x->next)
        if (x->comm == comm && x->empty)
            a = x;
    if (!a && first < 0) {
        free(ptrs);
        free(world);
        return 0;
    }
    if (!a)
        armcii_fatal(call, "passed NULL, but this process has no zero-byte part of the "
                           "allocation being freed");
    /* Every block passed must be one of this allocation: the processes freed the same. */
    for (int i = 0; i < n; i++) {
        if (!ptrs[i])
            continue;
        const armcii_seg_t *seg =
            armcii_region_find(&armcii_mem.regions, world[i], (uintptr_t)ptrs[i], 1);
        if (!seg || seg->alloc != a || seg->base != (uintptr_t)ptrs[i])
            armcii_fatal(call,
                         "process %d freed %p, which is not its block of the allocation "
                         "this process freed: every process must free the same allocation",
                         world[i], ptrs[i]);
    }
    armcii_cache_alloc_gone(&a->cache);
    for (int i = 0; i < n; i++)
        if (ptrs[i])
            armcii_region_remove(&armcii_mem.regions, world[i], (uintptr_t)ptrs[i]);
    free(ptrs);
    free(world);
    if (a->registered)
        armcii_net_unregister(&a->mr);
    if (a->my_base)
        armcii_shm_free(a->my_off, a->my_len);
    armcii_alloc_t **pp = &armcii_mem.allocs;
    while (*pp != a)
        pp = &(*pp)->next;
    *pp = a->next;
    free(a->keys);
    free(a);
    return 0;
}

void *armcii_malloc_local(const char *call, size_t size)
{
    if (size == 0)
        return NULL;
    local_block_t *b = calloc(1, sizeof(*b));
    if (!b)
        armcii_fatal(call, "out of memory");
    /* Local memory needs no registration: local buffers are passed to libfabric without
     * descriptors, or staged in bounce buffers where the provider wants them. */
    if (carve(call, size, 0, &b->addr, &b->off, &b->rounded, &b->mr, &b->registered) != ARMCII_OK)
        armcii_fatal(call, "cannot allocate %zu bytes (see above)", size);
    b->next = local_blocks;
    local_blocks = b;
    return b->addr;
}

void armcii_free_local(const char *call, void *ptr)
{
    local_block_t **pp = &local_blocks;
    while (*pp && (*pp)->addr != ptr)
        pp = &(*pp)->next;
    if (!*pp)
        armcii_fatal(call, "%p was not returned by ARMCI_Malloc_local", ptr);
    local_block_t *b = *pp;
    *pp = b->next;
    if (b->registered)
        armcii_net_unregister(&b->mr);
    armcii_shm_free(b->off, b->rounded);
    free(b);
}

int armcii_alloc_init(void)
{
    return armcii_region_table_init(&armcii_mem.regions, armcii_rt.nproc);
}

void armcii_alloc_fini(void)
{
    armcii_region_table_fini(&armcii_mem.regions);
}

/* Release every allocation still alive (the application did not free it). */
void armcii_alloc_drop_all(void)
{
    armcii_alloc_t *a = armcii_mem.allocs;
    while (a) {
        armcii_alloc_t *next = a->next;
        if (a->registered)
            armcii_net_unregister(&a->mr);
        free(a->keys);
        free(a);
        a = next;
    }
    armcii_mem.allocs = NULL;
}
