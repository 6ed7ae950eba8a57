/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Topology: domains are nodes whose processes reach each other's ARMCI memory through
 * shared memory, so that same-domain pointers may be dereferenced (Global Arrays does).
 * With shared memory off, or ARMCI_DOMAIN_NODE=0, every process is its own domain.
 */
#include "check.h"

/* Decided alike on every process (ARMCI_SHM and ARMCI_DOMAIN_NODE are the same in all):
 * not armcii_rt.shm, which is 0 in a process alone on its node while its peers count nodes. */
static int per_process(void)
{
    return !armcii_rt.env.SHM || !armcii_rt.env.DOMAIN_NODE;
}

static void check_domain(const char *call, armci_domain_t domain)
{
    armcii_check_init(call);
    if (domain != ARMCI_DOMAIN_SMP)
        armcii_fatal(call, "domain type %d is not ARMCI_DOMAIN_SMP", domain);
}

static void check_id(const char *call, int id)
{
    int count = per_process() ? armcii_rt.nproc : armcii_topo.nnodes;
    if (id < 0 || id >= count)
        armcii_fatal(call, "domain id %d is outside 0..%d", id, count - 1);
}

int armci_domain_count(armci_domain_t domain)
{
    check_domain("armci_domain_count", domain);
    return per_process() ? armcii_rt.nproc : armcii_topo.nnodes;
}

int armci_domain_id(armci_domain_t domain, int glob_proc_id)
{
    static const char call[] = "armci_domain_id";
    check_domain(call, domain);
    armcii_check_rank(call, glob_proc_id);
    return per_process() ? glob_proc_id : armcii_node_of(glob_proc_id);
}

int armci_domain_my_id(armci_domain_t domain)
{
    check_domain("armci_domain_my_id", domain);
    return per_process() ? armcii_rt.rank : armcii_topo.node_id;
}

int armci_domain_nprocs(armci_domain_t domain, int id)
{
    static const char call[] = "armci_domain_nprocs";
    check_domain(call, domain);
    /* A negative id is the caller's own domain, as in GA's own ARMCI; Global Arrays asks
     * ga_cluster_nprocs(-1) in its main test (global/testing/test.F). */
    if (id < 0)
        id = armci_domain_my_id(domain);
    check_id(call, id);
    if (per_process())
        return 1;
    int n = 0;
    for (int p = 0; p < armcii_rt.nproc; p++)
        n += armcii_node_of(p) == id;
    return n;
}

int armci_domain_glob_proc_id(armci_domain_t domain, int id, int loc_proc_id)
{
    static const char call[] = "armci_domain_glob_proc_id";
    check_domain(call, domain);
    check_id(call, id);
    if (per_process()) {
        if (loc_proc_id != 0)
            armcii_fatal(call, "local process %d of domain %d: it has one process", loc_proc_id,
                         id);
        return id;
    }
    for (int p = 0, k = 0; p < armcii_rt.nproc; p++)
        if (armcii_node_of(p) == id && k++ == loc_proc_id)
            return p;
    armcii_fatal(call, "domain %d has no local process %d", id, loc_proc_id);
}

int armci_domain_same_id(armci_domain_t domain, int proc)
{
    static const char call[] = "armci_domain_same_id";
    check_domain(call, domain);
    armcii_check_rank(call, proc);
    return armci_domain_id(domain, proc) == armci_domain_my_id(domain);
}

int ARMCI_Same_node(int proc)
{
    static const char call[] = "ARMCI_Same_node";
    armcii_check_init(call);
    armcii_check_rank(call, proc);
    return armcii_path(proc) != ARMCII_PATH_FABRIC;
}

int ARMCI_Uses_shm(void)
{
    armcii_check_init("ARMCI_Uses_shm");
    return armcii_rt.shm;
}

int ARMCI_Uses_shm_grp(ARMCI_Group *group)
{
    armcii_check_init("ARMCI_Uses_shm_grp");
    armcii_check_group("ARMCI_Uses_shm_grp", "the group", group, 0);
    return armcii_rt.shm;
}

/* Accepted for compatibility and ignored: shared memory here is reserved as address
 * space and backed only as allocated, so there is no pool to size; ARMCI_SHM_HEAP_SIZE
 * bounds each process. (ARMCI-MPI ignores it as well.) */
void ARMCI_Set_shm_limit(unsigned long shmemlimit)
{
    (void)shmemlimit;
}
