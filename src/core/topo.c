/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Node layout: which ranks share a node (MPI_Comm_split_type), and hwloc's view of the
 * node (cores, caches, the CPUs the progress thread may use), loaded once for the parts
 * of the runtime that size themselves from it.
 */
#define _GNU_SOURCE /* cpu_set_t, pthread_attr_setaffinity_np */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>
#include <hwloc/glibc-sched.h>

#include "topo.h"
#include "cpus.h"
#include "runtime.h"
#include "../base/common.h"

armcii_topo_t armcii_topo;

/* The progress thread's CPUs, chosen by armcii_cpus_choose (cpus.c). */
static cpu_set_t progress_set;
static int progress_set_on;
static int progress_elsewhere;
static char progress_desc[192];

/* The CPUs some process of this machine is bound to (collective over @p machine; a
 * process without a topology takes part with NULL bitmaps). */
static void machine_bound(hwloc_const_cpuset_t allowed, hwloc_const_cpuset_t bound,
                          hwloc_bitmap_t used, MPI_Comm machine)
{
    int nr = allowed ? hwloc_bitmap_nr_ulongs(allowed) : 1;
    if (nr < 1)
        nr = 1;
    MPI_Allreduce(MPI_IN_PLACE, &nr, 1, MPI_INT, MPI_MAX, machine);
    unsigned long *mine = calloc((size_t)nr, sizeof(unsigned long));
    unsigned long *all = calloc((size_t)nr, sizeof(unsigned long));
    if (!mine || !all)
        armcii_fatal("ARMCI_Init", "out of memory reading the CPU bindings");
    if (bound)
        hwloc_bitmap_to_ulongs(bound, (unsigned)nr, mine);
    MPI_Allreduce(mine, all, nr, MPI_UNSIGNED_LONG, MPI_BOR, machine);
    if (used)
        hwloc_bitmap_from_ulongs(used, (unsigned)nr, all);
    free(mine);
    free(all);
}

static void progress_cpus_choose(hwloc_topology_t topo, MPI_Comm machine)
{
    hwloc_const_cpuset_t allowed = hwloc_topology_get_allowed_cpuset(topo);
    hwloc_bitmap_t bound = hwloc_bitmap_alloc(), set = hwloc_bitmap_alloc();
    hwloc_bitmap_t used = hwloc_bitmap_alloc();
    if (!bound || !set || !used)
        armcii_fatal("ARMCI_Init", "out of memory reading the CPU bindings");
    if (hwloc_get_cpubind(topo, bound, HWLOC_CPUBIND_THREAD) != 0)
        hwloc_bitmap_copy(bound, allowed);
    machine_bound(allowed, bound, used, machine);
    armcii_cpus_choice_t c;
    if (armcii_cpus_choose(armcii_rt.env.PROGRESS_CPUS, allowed, bound, used,
                           armcii_topo.machine_size, set, &c) != 0)
        armcii_fatal("ARMCI_Init", "%s", c.desc);
    progress_elsewhere = c.elsewhere;
    snprintf(progress_desc, sizeof progress_desc, "%s", c.desc);
    if (c.move &&
        hwloc_cpuset_to_glibc_sched_affinity(topo, set, &progress_set, sizeof progress_set) == 0)
        progress_set_on = 1;
    hwloc_bitmap_free(bound);
    hwloc_bitmap_free(set);
    hwloc_bitmap_free(used);
}

int armcii_topo_place_progress_thread(pthread_attr_t *attr)
{
    if (!progress_set_on)
        return 0;
    return pthread_attr_setaffinity_np(attr, sizeof progress_set, &progress_set) == 0;
}

const char *armcii_topo_progress_cpus(void)
{
    return progress_desc;
}

int armcii_topo_progress_elsewhere(void)
{
    return progress_elsewhere;
}

/* hwloc opens its plugins (Debian's: OpenCL, GL, PCI, libxml2; GPU libraries elsewhere) in
 * the first topology of a process, and again after the last is destroyed: 2-3 ms of every
 * process's ARMCI_Init (measured, Debian 12), 0.1 s of a 64-process job's start on two
 * cores. The runtime reads cores, threads, caches and bindings, which hwloc's own Linux
 * backend gives: the plugins are pointed at a folder that does not exist while the topology
 * starts, unless the job chose them itself (HWLOC_PLUGINS_PATH or _BLACKLIST set). The
 * variable is back as it was before this returns. */
static int topology_init_plain(hwloc_topology_t *topo)
{
    if (getenv("HWLOC_PLUGINS_PATH") || getenv("HWLOC_PLUGINS_BLACKLIST"))
        return hwloc_topology_init(topo);
    setenv("HWLOC_PLUGINS_PATH", "/proc/self/no-hwloc-plugins", 0);
    int rc = hwloc_topology_init(topo);
    unsetenv("HWLOC_PLUGINS_PATH");
    return rc;
}

static void hw_probe(MPI_Comm machine)
{
    hwloc_topology_t topo;
    if (topology_init_plain(&topo) != 0) {
        machine_bound(NULL, NULL, NULL, machine);
        return;
    }
    if (hwloc_topology_load(topo) != 0) {
        machine_bound(NULL, NULL, NULL, machine);
    } else {
        armcii_topo.hw_cores = (unsigned)hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
        armcii_topo.hw_pus = (unsigned)hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
        hwloc_obj_t l2 = hwloc_get_obj_by_type(topo, HWLOC_OBJ_L2CACHE, 0);
        hwloc_obj_t l3 = hwloc_get_obj_by_type(topo, HWLOC_OBJ_L3CACHE, 0);
        if (l2 && l2->attr)
            armcii_topo.hw_l2 = (size_t)l2->attr->cache.size;
        if (l3 && l3->attr)
            armcii_topo.hw_l3 = (size_t)l3->attr->cache.size;
        progress_cpus_choose(topo, machine);
    }
    hwloc_topology_destroy(topo);
}

armcii_status_t armcii_topo_init(int **where_p)
{
    int P = armcii_rt.nproc;
    if (MPI_Comm_split_type(armcii_rt.comm, MPI_COMM_TYPE_SHARED, armcii_rt.rank, MPI_INFO_NULL,
                            &armcii_topo.node_comm) != MPI_SUCCESS)
        return ARMCII_ESYS;
    MPI_Comm_rank(armcii_topo.node_comm, &armcii_topo.node_rank);
    MPI_Comm_size(armcii_topo.node_comm, &armcii_topo.node_size);
    armcii_topo.machine_size = armcii_topo.node_size;
    hw_probe(armcii_topo.node_comm); /* the whole machine, before any virtual split */
    long k = armcii_rt.env.NODE_SIZE;
    if (k < 0)
        armcii_fatal("ARMCI_Init", "ARMCI_NODE_SIZE=%ld is negative", k);
    if (k > 0 && armcii_topo.node_size > k) {
        /* Virtual nodes: everything below keys on node_comm, so splitting it is enough. */
        MPI_Comm real = armcii_topo.node_comm;
        MPI_Comm_split(real, (int)(armcii_topo.node_rank / k), armcii_topo.node_rank,
                       &armcii_topo.node_comm);
        MPI_Comm_free(&real);
        MPI_Comm_rank(armcii_topo.node_comm, &armcii_topo.node_rank);
        MPI_Comm_size(armcii_topo.node_comm, &armcii_topo.node_size);
    }

    /* A node is named by its lowest world rank; node ids are those names made dense. */
    int leader = armcii_rt.rank;
    MPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MIN, armcii_topo.node_comm);
    int *where = malloc(2 * (size_t)P * sizeof(int)); /* leaders, then node ids */
    if (!where)
        return ARMCII_ENOMEM;
    int *node_ranks = where + P;
    MPI_Allgather(&leader, 1, MPI_INT, where, 1, MPI_INT, armcii_rt.comm);
    MPI_Allgather(&armcii_topo.node_rank, 1, MPI_INT, node_ranks, 1, MPI_INT, armcii_rt.comm);
    armcii_topo.nnodes = 0;
    for (int r = 0; r < P; r++) /* a leader comes before the rest of its node */
        where[r] = where[r] == r ? armcii_topo.nnodes++ : where[where[r]];
    armcii_topo.node_id = where[armcii_rt.rank];

    MPI_Comm_split(armcii_rt.comm, armcii_topo.node_rank == 0 ? 0 : MPI_UNDEFINED, armcii_rt.rank,
                   &armcii_topo.masters_comm);
    *where_p = where;
    return ARMCII_OK;
}

void armcii_translate(MPI_Comm from, MPI_Comm to, int n, const int *in, int *out)
{
    /* MPI forbids aliased arguments, and MPICH holds to it: its translation first sets
     * every output to MPI_UNDEFINED, so a call in place (in == out) reads that back as a
     * rank and answers -32766, or faults. Open MPI happens to allow it. Callers here
     * translate in place, so this copies first. */
    int small[16], *src = (int *)in;
    if (in == out && n > 0) {
        src = n <= 16 ? small : malloc((size_t)n * sizeof(int));
        if (!src)
            armcii_fatal("armcii_translate", "out of memory for %d ranks", n);
        memcpy(src, in, (size_t)n * sizeof(int));
    }
    MPI_Group gf, gt;
    MPI_Comm_group(from, &gf);
    MPI_Comm_group(to, &gt);
    MPI_Group_translate_ranks(gf, n, src, gt, out);
    MPI_Group_free(&gf);
    MPI_Group_free(&gt);
    if (src != in && src != small)
        free(src);
}

void armcii_topo_fini(void)
{
    if (armcii_topo.node_comm != MPI_COMM_NULL)
        MPI_Comm_free(&armcii_topo.node_comm);
    if (armcii_topo.masters_comm != MPI_COMM_NULL)
        MPI_Comm_free(&armcii_topo.masters_comm);
}
