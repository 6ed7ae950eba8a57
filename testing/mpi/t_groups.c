/* Groups (create, child, rank/size, absolute ids, default and world), allocation over a
 * group, and the topology calls (domains, same node). */
#include <string.h>

#include "tester.h"

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    ARMCI_Group world, g, child;
    ARMCI_Group_get_world(&world);
    int wr, ws;
    ARMCI_Group_rank(&world, &wr);
    ARMCI_Group_size(&world, &ws);
    CHECK(wr == t_me && ws == t_np, "world group rank %d size %d", wr, ws);
    MPI_Comm_compare(world.comm, MPI_COMM_WORLD, &wr);
    CHECK(wr == MPI_CONGRUENT || wr == MPI_IDENT, "world.comm is a world communicator");

    /* the odd processes, listed in reverse order */
    int nodd = t_np / 2, odd[8];
    for (int k = 0; k < nodd; k++)
        odd[k] = 2 * (nodd - k) - 1;
    ARMCI_Group_create(nodd, odd, &g);
    int in = t_me % 2 == 1;
    CHECK((g.comm != MPI_COMM_NULL) == in, "membership");
    if (in) {
        int gr, gs;
        ARMCI_Group_rank(&g, &gr);
        ARMCI_Group_size(&g, &gs);
        CHECK(gs == nodd, "group size %d", gs);
        CHECK(ARMCI_Absolute_id(&g, gr) == t_me, "absolute id of my group rank");
        CHECK(ARMCI_Absolute_id(&g, 0) == odd[0], "group rank 0 is process %d",
              ARMCI_Absolute_id(&g, 0));
        /* allocation over the group: ptr_arr indexed by group rank; data moves by
         * absolute ids */
        void **gb = malloc((size_t)gs * sizeof(void *));
        ARMCI_Malloc_group(gb, 1024, &g);
        long v = 1000 + t_me;
        int nr = (gr + 1) % gs;
        ARMCI_Put(&v, gb[nr], sizeof(v), ARMCI_Absolute_id(&g, nr));
        ARMCI_Fence(ARMCI_Absolute_id(&g, nr));
        armci_msg_group_barrier(&g);
        int pr = (gr + gs - 1) % gs;
        CHECK(*(long *)gb[gr] == 1000 + ARMCI_Absolute_id(&g, pr), "group allocation data %ld",
              *(long *)gb[gr]);
        /* a child group of the first member alone */
        int first = 0;
        ARMCI_Group_create_child(1, &first, &child, &g);
        CHECK((child.comm != MPI_COMM_NULL) == (gr == 0), "child membership");
        ARMCI_Group_free(&child);
        armci_msg_group_barrier(&g);
        ARMCI_Free_group(gb[gr], &g);
        free(gb);

        /* default group */
        ARMCI_Group_set_default(&g);
        ARMCI_Group d;
        ARMCI_Group_get_default(&d);
        CHECK(d.comm == g.comm, "default group set");
        ARMCI_Group_set_default(&world);
    }
    ARMCI_Group_free(&g);

    /* topology */
    int count = armci_domain_count(ARMCI_DOMAIN_SMP), mine = armci_domain_my_id(ARMCI_DOMAIN_SMP);
    int total = 0;
    for (int d = 0; d < count; d++)
        total += armci_domain_nprocs(ARMCI_DOMAIN_SMP, d);
    CHECK(total == t_np, "domains hold %d processes", total);
    CHECK(armci_domain_id(ARMCI_DOMAIN_SMP, t_me) == mine, "my domain id");
    int found = 0;
    for (int k = 0; k < armci_domain_nprocs(ARMCI_DOMAIN_SMP, mine); k++)
        found += armci_domain_glob_proc_id(ARMCI_DOMAIN_SMP, mine, k) == t_me;
    CHECK(found == 1, "I am listed once in my domain");
    CHECK(armci_domain_same_id(ARMCI_DOMAIN_SMP, t_me), "same domain as myself");
    int shm = ARMCI_Uses_shm();
    for (int p = 0; p < t_np; p++) {
        int same = armci_domain_same_id(ARMCI_DOMAIN_SMP, p);
        CHECK(!same || p == t_me || shm, "process %d in my domain without shared memory", p);
        CHECK(ARMCI_Same_node(p) == (ARMCIX_Path_of(p) != ARMCIX_PATH_FABRIC),
              "ARMCI_Same_node(%d)", p);
    }
    /* domains are nodes with shared memory: 2..4 processes on one machine share one (or
     * form ARMCI_NODE_SIZE runs) */
    int nnodes;
    t_node_size(&nnodes);
    if (shm)
        CHECK(count == nnodes, "%d node(s), %d domains", nnodes, count);
    else
        CHECK(count == t_np, "shared memory off: one domain per process, got %d", count);
    ARMCI_Set_shm_limit(1UL << 30);
    return t_finish("t_groups");
}
