/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Node shared memory. At init the processes of a node map one shared-memory object at
 * the same virtual address (the leader proposes an address, the others map there with
 * MAP_FIXED_NOREPLACE, and they retry elsewhere if anyone failed). Each process owns
 * a slice of it and allocates its ARMCI_Malloc blocks there, so a same-node peer's
 * block is dereferenceable at the very address its owner uses.
 *
 * The mapping is sparse: a block is backed (fallocate) when allocated, so running out
 * of /dev/shm is an error at ARMCI_Malloc rather than a SIGBUS later, and its pages
 * are returned (hole punched) when freed.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "host.h"
#include "nodelock.h"
#include "transport.h"
#include "../base/acc.h"
#include "../base/common.h"
#include "../base/env.h"
#include "../base/halloc.h"
#include "../base/hot.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define HEAP_ALIGN  4096
#define PLACE_TRIES 16

armcii_node_t armcii_node = {.heap_fd = -1};

static size_t round_up(size_t v, size_t a)
{
    return (v + a - 1) / a * a;
}

static void init_slot(armcii_node_slot_t *slot)
{
    __atomic_store_n(&slot->acc_lock, 0, __ATOMIC_RELEASE);
}

/*
 * The address space of a heap of @p n slices after a control area of @p ctrl bytes, in
 * @p total_p. A size whose sum wraps around, or that this process cannot reserve, is
 * refused here with the variable named: unchecked, a wrapped sum made a small mapping
 * that the first ARMCI_Malloc overran, and a sum too large for the address space was
 * blamed on the space in /dev/shm.
 */
static armcii_status_t heap_extent(int n, size_t ctrl, size_t *total_p)
{
    size_t slice = armcii_node.slice_len;
    char who[64] = "", why[160];
    if (n > 1)
        snprintf(who, sizeof who, "the node's %d processes x that much: ", n);
    if (slice > (SIZE_MAX - ctrl) / (size_t)n) {
        snprintf(why, sizeof why, "%sdo not fit in a 64-bit address space", who);
    } else {
        *total_p = ctrl + (size_t)n * slice;
        void *p =
            mmap(NULL, *total_p, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p != MAP_FAILED) {
            munmap(p, *total_p);
            return ARMCII_OK;
        }
        snprintf(why, sizeof why,
                 "%s%zu bytes are more address space than this process can reserve (%s)", who,
                 *total_p, strerror(errno));
    }
    armcii_warn("ARMCI_Init: ARMCI_SHM_HEAP_SIZE=%ld is too large: %s; lower it (it is address "
                "space reserved per process, backed only by what ARMCI_Malloc allocates)",
                armcii_tp.env->SHM_HEAP_SIZE, why);
    return ARMCII_ENOMEM;
}

/* Shared memory off, or alone on the node: a private sparse mapping. */
static armcii_status_t private_heap(void)
{
    size_t ctrl = round_up(sizeof(armcii_node_slot_t), HEAP_ALIGN), total;
    if (heap_extent(1, ctrl, &total) != ARMCII_OK)
        return ARMCII_ENOMEM;
    void *p = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (p == MAP_FAILED) {
        armcii_warn("ARMCI_Init: cannot reserve %zu bytes of address space: %s", total,
                    strerror(errno));
        return ARMCII_ENOMEM;
    }
    armcii_node.heap_base = p;
    armcii_node.heap_len = total;
    armcii_node.heap_fd = -1;
    armcii_node.slots = p;
    armcii_node.my_slice = (char *)p + ctrl;
    init_slot(&armcii_node.slots[0]);
    return ARMCII_OK;
}

/*
 * Node heap objects are named armci-ofi.<pid namespace>.<leader pid>.<nanoseconds>, and the
 * name is removed as soon as every process of the node has opened the object. A job killed
 * in between (during ARMCI_Init) leaves its object in /dev/shm, sparse but as large as the
 * node heap; the next leader of this pid namespace removes every such object whose leader
 * no longer exists. Objects of other pid namespaces (containers sharing /dev/shm) are
 * left alone: their pids mean nothing here.
 */
static unsigned long pid_namespace(void)
{
    struct stat st;
    return stat("/proc/self/ns/pid", &st) == 0 ? (unsigned long)st.st_ino : 0;
}

static void remove_stale_objects(unsigned long ns)
{
    DIR *d = ns ? opendir("/dev/shm") : NULL;
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        unsigned long their_ns;
        int pid, used = 0;
        long nsec;
        if (sscanf(e->d_name, "armci-ofi.%lu.%d.%ld%n", &their_ns, &pid, &nsec, &used) != 3 ||
            e->d_name[used] != '\0' || their_ns != ns || pid <= 0)
            continue;
        if (kill(pid, 0) == 0 || errno != ESRCH)
            continue; /* its leader lives (or is not ours to ask about) */
        char name[300];
        snprintf(name, sizeof(name), "/%s", e->d_name);
        if (shm_unlink(name) == 0)
            armcii_warn("ARMCI_Init: removed /dev/shm%s, left by a job whose process %d ended "
                        "during its start-up",
                        name, pid);
    }
    closedir(d);
}

/* The leader creates the object; everybody opens it; then its name goes. */
static armcii_status_t open_object(size_t total, char *name, size_t namelen)
{
    int err = 0;
    if (armcii_tp.node_rank == 0) {
        unsigned long ns = pid_namespace();
        remove_stale_objects(ns);
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        snprintf(name, namelen, "/armci-ofi.%lu.%d.%ld", ns, (int)getpid(), (long)ts.tv_nsec);
        armcii_node.heap_fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
        if (armcii_node.heap_fd < 0 || ftruncate(armcii_node.heap_fd, (off_t)total) != 0) {
            err = errno;
            armcii_warn("ARMCI_Init: cannot create shared-memory object %s of %zu bytes: %s", name,
                        total, strerror(err));
        }
    }
    MPI_Bcast(&err, 1, MPI_INT, 0, armcii_tp.node_comm);
    MPI_Bcast(name, (int)namelen, MPI_CHAR, 0, armcii_tp.node_comm);
    if (err)
        return ARMCII_ESYS;
    if (armcii_tp.node_rank != 0) {
        armcii_node.heap_fd = shm_open(name, O_RDWR, 0600);
        if (armcii_node.heap_fd < 0)
            err = errno;
    }
    int any = err;
    MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, armcii_tp.node_comm);
    if (err)
        armcii_warn("ARMCI_Init: cannot open shared-memory object %s: %s", name, strerror(err));
    /* Every process holds a descriptor now: the name is no longer needed, and without it a
     * job killed from here on leaves nothing in /dev/shm. */
    if (armcii_tp.node_rank == 0) {
        shm_unlink(name);
        name[0] = '\0';
    }
    return any ? ARMCII_ESYS : ARMCII_OK;
}

/* Agree on one address for the mapping in every process of the node. */
static armcii_status_t place_mapping(size_t total)
{
    void *held[PLACE_TRIES];
    int nheld = 0, ok = 0;
    for (int t = 0; t < PLACE_TRIES && !ok; t++) {
        uintptr_t addr = 0;
        void *mine = MAP_FAILED;
        if (armcii_tp.node_rank == 0) {
            mine = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE,
                        armcii_node.heap_fd, 0);
            addr = mine == MAP_FAILED ? 0 : (uintptr_t)mine;
        }
        int err = errno;
        MPI_Bcast(&addr, sizeof(addr), MPI_BYTE, 0, armcii_tp.node_comm);
        if (addr == 0) {
            /* Only the leader tried; the others' errno says nothing about it. */
            if (armcii_tp.node_rank == 0)
                armcii_warn("ARMCI_Init: cannot map %zu bytes of node shared memory: %s", total,
                            strerror(err));
            break;
        }
        if (armcii_tp.node_rank != 0) {
            mine = mmap((void *)addr, total, PROT_READ | PROT_WRITE,
                        MAP_SHARED | MAP_NORESERVE | MAP_FIXED_NOREPLACE, armcii_node.heap_fd, 0);
            if (mine != MAP_FAILED && mine != (void *)addr) {
                munmap(mine, total); /* kernel without MAP_FIXED_NOREPLACE placed it elsewhere */
                mine = MAP_FAILED;
            }
        }
        ok = mine != MAP_FAILED;
        MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, armcii_tp.node_comm);
        if (ok) {
            armcii_node.heap_base = (char *)addr;
        } else if (mine != MAP_FAILED) {
            /* The leader keeps a failed range mapped so its next proposal differs. */
            if (armcii_tp.node_rank == 0)
                held[nheld++] = mine;
            else
                munmap(mine, total);
        }
    }
    for (int i = 0; i < nheld; i++)
        munmap(held[i], total);
    return ok ? ARMCII_OK : ARMCII_ENOMEM;
}

/*
 * Each process's slice of a heap of @p n slices after @p ctrl bytes. ARMCI_SHM_HEAP_SIZE as
 * set; left at its default under an address-space limit (ulimit -v, RLIMIT_AS) that the
 * default does not fit, the slices take a quarter of what the limit leaves this process, the
 * rest staying for the application, MPI and libfabric: MPICH's UCX maps gigabytes more at its
 * first messages, after this count (with half, the node leader's mapping failed under
 * ulimit -v 8000000). Agreed on as the job's least, since peers find each other's blocks
 * through the one size. (armcii_node.fitted_limit: the limit, when it decided.)
 */
static armcii_status_t slice_size(int n, size_t ctrl)
{
    size_t want = round_up((size_t)armcii_tp.env->SHM_HEAP_SIZE, HEAP_ALIGN);
    struct rlimit rl;
    unsigned long fit = want;
    int user = armcii_env_user(armcii_tp.env, "ARMCI_SHM_HEAP_SIZE");
    if (!user && getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
        size_t used = armcii_proc_status("VmSize:"),
               left = rl.rlim_cur > used ? rl.rlim_cur - used : 0;
        size_t room = left / 4;
        size_t share = room > ctrl ? (room - ctrl) / (size_t)n / HEAP_ALIGN * HEAP_ALIGN : 0;
        if (share < want)
            fit = share;
    }
    unsigned long least;
    MPI_Allreduce(&fit, &least, 1, MPI_UNSIGNED_LONG, MPI_MIN, armcii_tp.comm);
    armcii_node.slice_len = least;
    if (least == want)
        return ARMCII_OK;
    armcii_node.fitted_limit = getrlimit(RLIMIT_AS, &rl) == 0 ? (size_t)rl.rlim_cur : 0;
    if (least >= HEAP_ALIGN)
        return ARMCII_OK;
    armcii_warn("ARMCI_Init: the address-space limit (ulimit -v: %zu KiB) leaves no room for "
                "ARMCI_Malloc memory on some process (%zu bytes of it mapped already here); "
                "raise the limit, or set ARMCI_SHM_HEAP_SIZE to the memory the job allocates",
                armcii_node.fitted_limit >> 10, armcii_proc_status("VmSize:"));
    return ARMCII_ENOMEM;
}

armcii_status_t armcii_shm_init(void)
{
    armcii_node.heap_fd = -1;
    armcii_status_t st;
    size_t nslices = armcii_tp.shm ? (size_t)armcii_tp.node_size : 1;
    size_t ctrl_all = round_up(nslices * sizeof(armcii_node_slot_t), HEAP_ALIGN);
    if ((st = slice_size((int)nslices, ctrl_all)) != ARMCII_OK)
        return st;
    if (!armcii_tp.shm) {
        st = private_heap();
    } else {
        size_t ctrl =
            round_up((size_t)armcii_tp.node_size * sizeof(armcii_node_slot_t), HEAP_ALIGN);
        size_t total = 0;
        char name[64] = {0};
        st = heap_extent(armcii_tp.node_size, ctrl, &total);
        if (st == ARMCII_OK)
            st = open_object(total, name, sizeof(name));
        if (st == ARMCII_OK) {
            st = place_mapping(total);
            if (st != ARMCII_OK)
                armcii_warn("ARMCI_Init: the processes of this node found no common address "
                            "for %zu bytes of shared memory (lower ARMCI_SHM_HEAP_SIZE, "
                            "or set ARMCI_SHM=0)",
                            total);
        }
        if (st == ARMCII_OK) {
            armcii_node.heap_len = total;
            armcii_node.slots = (armcii_node_slot_t *)armcii_node.heap_base;
            armcii_node.my_slice =
                armcii_node.heap_base + ctrl + (size_t)armcii_tp.node_rank * armcii_node.slice_len;
            init_slot(&armcii_node.slots[armcii_tp.node_rank]);
        }
        MPI_Barrier(armcii_tp.node_comm);
        /* The name went once everybody had opened the object; if creating or opening it
         * failed, it goes now. */
        if (armcii_tp.node_rank == 0 && name[0])
            shm_unlink(name);
    }
    if (st != ARMCII_OK)
        return st;
    if (armcii_halloc_init(&armcii_node.halloc, armcii_node.slice_len, HEAP_ALIGN) != 0)
        return ARMCII_ENOMEM;
    return ARMCII_OK;
}

static void backing_reset(void);

void armcii_shm_fini(void)
{
    backing_reset();
    armcii_halloc_fini(&armcii_node.halloc);
    if (armcii_node.heap_base)
        munmap(armcii_node.heap_base, armcii_node.heap_len);
    if (armcii_node.heap_fd >= 0)
        close(armcii_node.heap_fd);
    armcii_node.heap_base = NULL;
    armcii_node.heap_fd = -1;
}

/*
 * Which parts of my slice have pages: everything below `backed_end` except the spans whose
 * pages were returned (large frees). fallocate walks the page cache of the whole range even
 * where pages exist, and GA allocates local temporaries in every GA_Dgemm, so an allocation
 * calls it only for what is not backed yet.
 */
static struct {
    size_t backed_end;
    armcii_span_t *released;
    int n, cap;
} backing;

static void backing_reset(void)
{
    free(backing.released);
    memset(&backing, 0, sizeof(backing));
}

static int back_range(size_t off, size_t len)
{
    off_t base = (off_t)(armcii_node.my_slice - armcii_node.heap_base);
    return fallocate(armcii_node.heap_fd, 0, base + (off_t)off, (off_t)len);
}

/* Back [off, off+len): the part above the high-water mark and any released spans in it. */
static int ensure_backed(size_t off, size_t len)
{
    size_t end = off + len;
    for (int i = 0; i < backing.n; i++) {
        armcii_span_t r = backing.released[i];
        size_t lo = r.off > off ? r.off : off, hi = r.off + r.len < end ? r.off + r.len : end;
        if (lo >= hi)
            continue;
        if (back_range(lo, hi - lo) != 0)
            return -1;
        /* keep what lies outside [off, end) */
        armcii_span_t left = {r.off, lo - r.off}, right = {hi, r.off + r.len - hi};
        backing.released[i] = backing.released[--backing.n];
        i--;
        if (left.len && backing.n < backing.cap)
            backing.released[backing.n++] = left;
        if (right.len && backing.n < backing.cap)
            backing.released[backing.n++] = right;
    }
    if (end > backing.backed_end) {
        size_t lo = off > backing.backed_end ? off : backing.backed_end;
        if (back_range(lo, end - lo) != 0)
            return -1;
        /* anything skipped between the old mark and `off` is unbacked: remember it */
        if (off > backing.backed_end && backing.n < backing.cap)
            backing.released[backing.n++] =
                (armcii_span_t){backing.backed_end, off - backing.backed_end};
        backing.backed_end = end;
    }
    return 0;
}

static size_t node_memory(void)
{
    struct sysinfo si;
    if (sysinfo(&si) != 0)
        return SIZE_MAX;
    return ((size_t)si.totalram + (size_t)si.totalswap) * si.mem_unit;
}

/* Whether this process's allocations, with @p more bytes, outgrow the node's RAM and swap. */
static int exceeds_node_memory(size_t more)
{
    return armcii_node.halloc.used + more > node_memory();
}

armcii_status_t armcii_shm_alloc(const char *call, size_t len, void **addr_p, size_t *off_p,
                                 size_t *rounded_p)
{
    size_t off;
    if (armcii_halloc_alloc(&armcii_node.halloc, len, &off) != 0) {
        armcii_warn("%s: %zu bytes do not fit in this process's heap (%zu of %zu bytes in "
                    "use; raise ARMCI_SHM_HEAP_SIZE)",
                    call, len, armcii_node.halloc.used, armcii_node.halloc.capacity);
        return ARMCII_ENOMEM;
    }
    size_t rounded = armcii_halloc_round(&armcii_node.halloc, len);
    if (armcii_node.heap_fd >= 0) {
        if (!backing.released) {
            backing.cap = 256;
            backing.released = malloc((size_t)backing.cap * sizeof(armcii_span_t));
            if (!backing.released)
                return ARMCII_ENOMEM;
        }
        if (ensure_backed(off, rounded) != 0) {
            int err = errno;
            armcii_halloc_free(&armcii_node.halloc, off, rounded);
            armcii_warn("%s: cannot back %zu bytes of node shared memory: %s (free space in "
                        "/dev/shm?)",
                        call, rounded, strerror(err));
            return ARMCII_ENOMEM;
        }
    } else if (exceeds_node_memory(rounded)) {
        /* A private heap is reserved, not backed: without this check the allocation would
         * succeed and the process be killed later, when the pages are touched. */
        armcii_halloc_free(&armcii_node.halloc, off, rounded);
        armcii_warn("%s: %zu bytes (with %zu already allocated here) exceed this node's memory "
                    "(%zu bytes of RAM and swap)",
                    call, rounded, armcii_node.halloc.used, node_memory());
        return ARMCII_ENOMEM;
    }
    *addr_p = armcii_node.my_slice + off;
    *off_p = off;
    *rounded_p = rounded;
    return ARMCII_OK;
}

void armcii_shm_free(size_t off, size_t rounded)
{
    char *addr = armcii_node.my_slice + off;
    /* Returning pages is costly for everybody: every process of the node that mapped them
     * loses them (TLB shootdowns under the mmap lock) and faults fresh zeroed pages in at
     * the next allocation there. So only large blocks give theirs back. */
    if (rounded >= (size_t)armcii_tp.env->SHM_RELEASE_MIN) {
        if (armcii_node.heap_fd >= 0) {
            /* The hole is punched through this process's mapping (MADV_REMOVE), not the
             * file (fallocate): the same release, but one that the memory monitors of a
             * registration cache in this process see (libfabric's memhooks and uffd, Open
             * MPI's patcher, UCX's hooks: MPI on the fabric), so that none keeps a NIC
             * registration of the old pages for this range. */
            if (backing.n < backing.cap && madvise(addr, rounded, MADV_REMOVE) == 0)
                backing.released[backing.n++] = (armcii_span_t){off, rounded};
        } else {
            madvise(addr, rounded, MADV_DONTNEED);
        }
    }
    armcii_halloc_free(&armcii_node.halloc, off, rounded);
}

/* The accumulate lock of a node-local process (nodelock.h). It was a robust process-shared
 * pthread mutex; after the application's own work had evicted the runtime, that mutex's
 * path (the C library's general lock function, and the robust list in the caller's thread
 * descriptor, which no other thread can warm) was the largest part of what a cold 8-byte
 * accumulate cost above a put. */
ARMCII_HOT void armcii_shm_acc_lock(const char *call, int slot)
{
    armcii_nodelock_take(call, &armcii_node.slots[slot].acc_lock,
                         (uint32_t)armcii_tp.node_rank + 1);
}

ARMCII_HOT void armcii_shm_acc_unlock(int slot)
{
    armcii_nodelock_release(&armcii_node.slots[slot].acc_lock);
}

int armcii_shm_acc_trylock(int slot)
{
    return armcii_nodelock_try(&armcii_node.slots[slot].acc_lock,
                               (uint32_t)armcii_tp.node_rank + 1);
}

ARMCII_HOT void armcii_shm_acc(const char *call, int owner_node_rank, int type, const void *scale,
                               const void *src, void *dst, size_t bytes)
{
    armcii_shm_acc_lock(call, owner_node_rank);
    armcii_acc_apply(type, scale, src, dst, bytes);
    armcii_shm_acc_unlock(owner_node_rank);
}
