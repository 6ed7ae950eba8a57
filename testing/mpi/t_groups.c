/* SPDX-License-Identifier: BSD-3-Clause */
/* Groups (create, child, rank/size, absolute ids, default and world), allocation over a
 * group, one create call with disjoint lists (pairs, {me}, nodes), overlapping groups, and
 * the topology calls (domains, same node); puts to a process outside a group, complete
 * for the group's other members after its barrier. */
#include <string.h>

#include "tester.h"

/* Over group @p g (this process a member): an allocation of 16 longs per member; each
 * member puts 1000 * (round + 1) + its world id into slot [its group rank] of the next
 * member's block, addressed by absolute id, and the previous member's value must arrive;
 * MPI_Allreduce on g->comm sums the members' world ids to @p idsum. Returns the number
 * of failed expectations (reported by the caller with its own words). */
static int exercise_group(ARMCI_Group *g, int round, int idsum, const char *what)
{
    int gr, gs, bad = 0;
    ARMCI_Group_rank(g, &gr);
    ARMCI_Group_size(g, &gs);
    void **gb = malloc((size_t)gs * sizeof(void *));
    int rc = ARMCI_Malloc_group(gb, 16 * sizeof(long), g);
    CHECK(rc == 0 && gb[gr] != NULL, "%s: ARMCI_Malloc_group returned %d", what, rc);
    long *mine = gb[gr];
    for (int i = 0; i < 16; i++)
        mine[i] = -1;
    armci_msg_group_barrier(g);
    long v = 1000L * (round + 1) + t_me;
    int nr = (gr + 1) % gs, pr = (gr + gs - 1) % gs;
    int nabs = ARMCI_Absolute_id(g, nr);
    rc = ARMCI_Put(&v, (long *)gb[nr] + gr, sizeof(long), nabs);
    CHECK(rc == 0, "%s: put to group rank %d (process %d) returned %d", what, nr, nabs, rc);
    ARMCI_Fence(nabs);
    armci_msg_group_barrier(g);
    bad += mine[pr] != 1000L * (round + 1) + ARMCI_Absolute_id(g, pr);
    for (int i = 0; i < 16; i++)
        bad += i != pr && mine[i] != -1;
    int sum = -1;
    MPI_Allreduce(&t_me, &sum, 1, MPI_INT, MPI_SUM, g->comm);
    CHECK(sum == idsum, "%s: MPI_Allreduce on group.comm gave %d, expected %d", what, sum, idsum);
    armci_msg_group_barrier(g);
    ARMCI_Free_group(gb[gr], g);
    free(gb);
    return bad;
}

/* The path operations from this process to each process should take, worked out from MPI
 * and the environment alone, not from the runtime, into @p want (t_np entries): the nodes of
 * tester.h's t_node_model; a peer on this node is reached through the node's memory unless
 * ARMCI_SHM=0 (env_defs.h), any other through libfabric. */
static void expected_paths(int *want)
{
    t_node_t mine = t_node_model(MPI_COMM_WORLD);
    int *nodes = malloc((size_t)t_np * sizeof(int));
    MPI_Allgather(&mine.node, 1, MPI_INT, nodes, 1, MPI_INT, MPI_COMM_WORLD);
    const char *e = getenv("ARMCI_SHM");
    int shm = !(e && strcmp(e, "0") == 0); /* the suite sets 0 or 1; the default is 1 */
    for (int q = 0; q < t_np; q++)
        want[q] = q == t_me                      ? ARMCIX_PATH_SELF
                  : shm && nodes[q] == mine.node ? ARMCIX_PATH_SHM
                                                 : ARMCIX_PATH_FABRIC;
    free(nodes);
}

/* Puts to a process outside a group, read by another member after the group's barrier, as
 * GA's copy_patch from a small group into an array of every process does
 * (global/testing/pg2test.F:702): GA's group sync fences the group's members alone
 * (global/src/onesided.c:121) and relies on the message layer's barrier for the rest,
 * which GA's own ARMCI fences everywhere (comex_barrier) and on ARMCI-MPI the put has
 * landed by then. Process 0 puts 64 longs of round r into the last process's memory,
 * processes 0 and 1 meet in armci_msg_group_barrier, and process 1 reads them back;
 * then the same with armci_msg_barrier, every process in it. The others wait in
 * ARMCI_Barrier meanwhile (serving, as GA's ga_sync does). */
#define OUTSIDE_ROUNDS 200
static void outside_puts(void)
{
    if (t_np < 3)
        return;
    int pair[2] = {0, 1}, last = t_np - 1;
    ARMCI_Group gp;
    ARMCI_Group_create(2, pair, &gp);
    void **ob = malloc((size_t)t_np * sizeof(void *));
    ARMCI_Malloc(ob, 64 * sizeof(long));
    memset(ob[t_me], 0, 64 * sizeof(long));
    ARMCI_Barrier();
    long stale = 0, v[64], w[64];
    if (t_me < 2) {
        for (long r = 1; r <= OUTSIDE_ROUNDS; r++) {
            for (int i = 0; i < 64; i++)
                v[i] = r;
            if (t_me == 0)
                ARMCI_Put(v, ob[last], sizeof(v), last);
            armci_msg_group_barrier(&gp);
            if (t_me == 1) {
                ARMCI_Get(ob[last], w, sizeof(w), last);
                stale += memcmp(v, w, sizeof(v)) != 0;
            }
            armci_msg_group_barrier(&gp);
        }
    }
    CHECK(stale == 0, "%ld of %d reads after armci_msg_group_barrier found another round's data",
          stale, OUTSIDE_ROUNDS);
    ARMCI_Barrier();
    stale = 0;
    for (long r = 1; r <= OUTSIDE_ROUNDS / 4; r++) {
        for (int i = 0; i < 64; i++)
            v[i] = -r;
        if (t_me == 0)
            ARMCI_Put(v, ob[last], sizeof(v), last);
        armci_msg_barrier();
        if (t_me == 1) {
            ARMCI_Get(ob[last], w, sizeof(w), last);
            stale += memcmp(v, w, sizeof(v)) != 0;
        }
        armci_msg_barrier();
    }
    CHECK(stale == 0, "%ld of %d reads after armci_msg_barrier found another round's data", stale,
          OUTSIDE_ROUNDS / 4);
    ARMCI_Group_free(&gp);
    ARMCI_Free(ob[t_me]);
    free(ob);
}

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

    /* One ARMCI_Group_create call, different member lists: it is collective over the
     * default group (ARMCI-MPI's src/groups.c: ARMCI_Group_create_child's collective form
     * passes each process's own list to MPI_Comm_create on the parent, and MPI allows
     * different, disjoint groups there), so disjoint lists, each process in its own, are
     * legal. Global Arrays relies on it: global/src/base.c:2070-2080 (read-only arrays,
     * from global/testing/read_only.c:142) gives each node its own list of its processes,
     * pnga_pgroup_self (base.c:1269-1273) each process {me} alone, and base.c:1106-1147
     * sorts the list and passes it on to ARMCI_Group_create. Three such calls: pairs {2k, 2k+1},
     * {me}, and each shared-memory domain (node). */
    {
        int pair[2] = {t_me & ~1, (t_me & ~1) + 1}, npair = pair[1] < t_np ? 2 : 1;
        ARMCI_Group gp, gself, gnode;
        ARMCI_Group_create(npair, pair, &gp);
        int gr = -1, gs = -1;
        CHECK(gp.comm != MPI_COMM_NULL, "pairs: not a member of my own pair");
        ARMCI_Group_rank(&gp, &gr);
        ARMCI_Group_size(&gp, &gs);
        CHECK(gs == npair && gr == t_me - pair[0], "pairs: size %d rank %d", gs, gr);
        CHECK(ARMCI_Absolute_id(&gp, 0) == pair[0] &&
                  ARMCI_Absolute_id(&gp, npair - 1) == pair[npair - 1],
              "pairs: absolute ids %d, %d", ARMCI_Absolute_id(&gp, 0),
              ARMCI_Absolute_id(&gp, npair - 1));
        int bad = exercise_group(&gp, 0, npair == 2 ? 2 * pair[0] + 1 : pair[0], "pairs");
        CHECK(bad == 0, "pairs: data of the group allocation, %d wrong", bad);

        int self = t_me;
        ARMCI_Group_create(1, &self, &gself);
        CHECK(gself.comm != MPI_COMM_NULL, "{me}: not a member");
        ARMCI_Group_rank(&gself, &gr);
        ARMCI_Group_size(&gself, &gs);
        CHECK(gs == 1 && gr == 0 && ARMCI_Absolute_id(&gself, 0) == t_me,
              "{me}: size %d rank %d absolute id %d", gs, gr, ARMCI_Absolute_id(&gself, 0));
        bad = exercise_group(&gself, 1, t_me, "{me}");
        CHECK(bad == 0, "{me}: data of the group allocation, %d wrong", bad);

        int dom = armci_domain_my_id(ARMCI_DOMAIN_SMP);
        int nd = armci_domain_nprocs(ARMCI_DOMAIN_SMP, dom),
            *list = malloc((size_t)nd * sizeof(int));
        int idsum = 0;
        for (int k = 0; k < nd; k++) { /* ascending, as GA passes it */
            int id = armci_domain_glob_proc_id(ARMCI_DOMAIN_SMP, dom, k), j = k;
            for (; j > 0 && list[j - 1] > id; j--)
                list[j] = list[j - 1];
            list[j] = id;
            idsum += id;
        }
        ARMCI_Group_create(nd, list, &gnode);
        CHECK(gnode.comm != MPI_COMM_NULL, "node: not a member of my node's group");
        ARMCI_Group_size(&gnode, &gs);
        CHECK(gs == nd, "node: size %d, expected %d", gs, nd);
        bad = exercise_group(&gnode, 2, idsum, "node");
        CHECK(bad == 0, "node: data of the group allocation, %d wrong", bad);
        free(list);
        ARMCI_Group_free(&gnode);
        ARMCI_Group_free(&gself);
        ARMCI_Group_free(&gp);
        ARMCI_Barrier();
    }

    /* Overlapping groups, each created by everybody with the same list: Global Arrays'
     * armci/testing/test_groups.c:193-194 creates {0,1,2} and {1,3}, then in each
     * (test_groups.c:145-174) allocates with ARMCI_Malloc_group and puts by absolute id.
     * With fewer than 4 processes: the first three, and {1, np-1}. */
    {
        int la[3] = {0, 1, 2}, lb[2] = {1, t_np >= 4 ? 3 : t_np - 1};
        int na = t_np < 3 ? t_np : 3, nb = lb[1] == 1 ? 1 : 2;
        ARMCI_Group ga, gb;
        ARMCI_Group_create(na, la, &ga);
        ARMCI_Group_create(nb, lb, &gb);
        int ina = t_me < na, inb = t_me == 1 || t_me == lb[1];
        CHECK((ga.comm != MPI_COMM_NULL) == ina && (gb.comm != MPI_COMM_NULL) == inb,
              "overlapping groups: membership %d %d, expected %d %d", ga.comm != MPI_COMM_NULL,
              gb.comm != MPI_COMM_NULL, ina, inb);
        if (ina) {
            int bad = exercise_group(&ga, 3, na * (na - 1) / 2, "{0,1,2}");
            CHECK(bad == 0, "{0,1,2}: data of the group allocation, %d wrong", bad);
        }
        ARMCI_Barrier();
        if (inb) {
            int bad = exercise_group(&gb, 4, nb == 2 ? 1 + lb[1] : 1, "{1,3}");
            CHECK(bad == 0, "{1,3}: data of the group allocation, %d wrong", bad);
        }
        ARMCI_Barrier();
        ARMCI_Group_free(&gb);
        ARMCI_Group_free(&ga);
    }

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
    /* id -1 is "my domain": GA's main test asks ga_cluster_nprocs(-1) (GA 5.8.2
     * global/testing/test.F:147); GA's own ARMCI reads id < 0 as the caller's node
     * (armci/src/common/clusterinfo.c:446), ARMCI-MPI and ComEx answer whatever the id */
    int members = 0;
    for (int p = 0; p < t_np; p++)
        members += armci_domain_id(ARMCI_DOMAIN_SMP, p) == mine;
    CHECK(armci_domain_nprocs(ARMCI_DOMAIN_SMP, -1) == members,
          "armci_domain_nprocs(-1) is %d, expected the %d processes of my domain",
          armci_domain_nprocs(ARMCI_DOMAIN_SMP, -1), members);
    CHECK(armci_domain_same_id(ARMCI_DOMAIN_SMP, t_me), "same domain as myself");
    int shm = ARMCI_Uses_shm();
    /* ARMCI_Same_node and ARMCIX_Path_of against the layout the test works out itself:
     * t_cache, t_agg, t_progress and t_memory choose their checks by ARMCIX_Path_of, and a
     * wrong path would switch those checks off without a failure. */
    int *want = malloc((size_t)t_np * sizeof(int));
    expected_paths(want);
    for (int p = 0; p < t_np; p++) {
        int same = armci_domain_same_id(ARMCI_DOMAIN_SMP, p);
        CHECK(!same || p == t_me || shm, "process %d in my domain without shared memory", p);
        CHECK(!ARMCI_Same_node(p) == (want[p] == ARMCIX_PATH_FABRIC),
              "ARMCI_Same_node(%d) is %d, expected %d", p, ARMCI_Same_node(p),
              want[p] != ARMCIX_PATH_FABRIC);
        CHECK(ARMCIX_Path_of(p) == want[p], "ARMCIX_Path_of(%d) is %d, expected %d", p,
              ARMCIX_Path_of(p), want[p]);
    }
    free(want);
    /* domains are nodes with shared memory: 2..4 processes on one machine share one (or
     * form ARMCI_NODE_SIZE runs) */
    /* every process counts alike, one alone on its node included: by the setting, not by
     * whether this process has node peers to share memory with */
    int nnodes;
    t_node_size(&nnodes, NULL);
    const char *setting = getenv("ARMCI_SHM");
    if (!setting || strcmp(setting, "0") != 0)
        CHECK(count == nnodes, "%d node(s), %d domains", nnodes, count);
    else
        CHECK(count == t_np, "shared memory off: one domain per process, got %d", count);
    ARMCI_Set_shm_limit(1UL << 30);
    outside_puts();
    return t_finish("t_groups");
}
