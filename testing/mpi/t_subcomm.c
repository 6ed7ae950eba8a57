/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ARMCI on part of the job (issue 35): ARMCI_Init_thread_comm on a sub-communicator of
 * MPI_COMM_WORLD, called by its members only. As ARMCI-MPI defines it
 * (src/init_finalize.c:184-205, PARMCI_Init_thread_comm: ARMCI's world group is a duplicate
 * of comm, and the call is collective on comm alone), ARMCI's world is the communicator:
 * its ranks, its size, its allocations, its collectives and its nodes.
 *
 * The members are the even world ranks, ranked in reverse (world rank 2k is ARMCI's rank
 * m-1-k of m), so that no ARMCI rank equals its world rank and a runtime that asked
 * MPI_COMM_WORLD anything would show. Each check compares with what MPI alone says. The odd
 * world ranks never call ARMCI: they wait in MPI for the members to finish their collectives,
 * which must not wait for them.
 *
 * At the start, with nothing allocated anywhere, ARMCI_Free(NULL) on every member succeeds
 * and frees nothing, as in ARMCI-MPI (src/malloc.c:52-54 and 97-110: ARMCI_Free_group with
 * mreg NULL calls gmr_destroy(NULL, group); src/gmr.c:380-382: "Everyone passed NULL.
 * Nothing to free.").
 */
#include <string.h>
#include <time.h>

#include <message.h>

#include "tester.h"

/* ARMCI's rank @p s of @p m members: its world rank. */
static int world_of(int s, int m)
{
    return 2 * (m - 1 - s);
}

/* Domain checks on @p sub: nodes are tester.h's t_node_model over @p sub rather than the
 * world; with shared memory or node domains off, each process is a domain of its own. */
static void check_domains(MPI_Comm sub, int me, int np)
{
    const char *shm = getenv("ARMCI_SHM"), *dn = getenv("ARMCI_DOMAIN_NODE");
    int per_process = (shm && strcmp(shm, "0") == 0) || (dn && strcmp(dn, "0") == 0);
    int mine = per_process ? me : t_node_model(sub).node;
    int *all = malloc((size_t)np * sizeof(int));
    MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, sub);
    int nnodes = 0, same = 0, bad = 0;
    for (int p = 0; p < np; p++) {
        int first = 1; /* p is the first member of its node */
        for (int q = 0; q < p && first; q++)
            first = all[q] != all[p];
        nnodes += first;
        int with_me = all[p] == mine;
        same += with_me;
        bad += armci_domain_same_id(ARMCI_DOMAIN_SMP, p) != with_me;
    }
    free(all);
    CHECK(armci_domain_count(ARMCI_DOMAIN_SMP) == nnodes, "armci_domain_count %d, expected %d",
          armci_domain_count(ARMCI_DOMAIN_SMP), nnodes);
    int id = armci_domain_my_id(ARMCI_DOMAIN_SMP);
    CHECK(armci_domain_nprocs(ARMCI_DOMAIN_SMP, id) == same,
          "armci_domain_nprocs of my domain %d is %d, expected %d", id,
          armci_domain_nprocs(ARMCI_DOMAIN_SMP, id), same);
    CHECK(bad == 0, "armci_domain_same_id wrong for %d of %d processes", bad, np);
}

static int by_mpi_comm; /* argument "mpi_comm": start with ARMCI_Init_mpi_comm instead */

/* The members' part; returns the sum armci_msg_igop found, for the others to check. */
static int member(MPI_Comm sub, int level)
{
    int me, np;
    MPI_Comm_rank(sub, &me);
    MPI_Comm_size(sub, &np);
    CHECK(world_of(me, np) == t_me, "the split made world rank %d ARMCI rank %d", t_me, me);

    CHECK(ARMCI_Initialized() == 0, "ARMCI_Initialized before ARMCI_Init_thread_comm");
    if (by_mpi_comm) /* ARMCI-MPI's later form (src/init_finalize.c:748) */
        CHECK(ARMCI_Init_mpi_comm(sub) == 0, "ARMCI_Init_mpi_comm returned non-zero");
    else
        CHECK(ARMCI_Init_thread_comm(level, sub) == 0, "ARMCI_Init_thread_comm returned non-zero");
    CHECK(ARMCI_Initialized() != 0, "ARMCI_Initialized is 0 after ARMCI_Init_thread_comm");
    int now = -1;
    MPI_Query_thread(&now);
    CHECK(now == level, "MPI's thread level went from %d to %d", level, now);

    /* ARMCI's world is the communicator */
    CHECK(armci_msg_me() == me, "armci_msg_me %d, expected %d", armci_msg_me(), me);
    CHECK(armci_msg_nproc() == np, "armci_msg_nproc %d, expected %d", armci_msg_nproc(), np);
    ARMCI_Group world;
    int grank = -1, gsize = -1, ids = 0;
    ARMCI_Group_get_world(&world);
    ARMCI_Group_rank(&world, &grank);
    ARMCI_Group_size(&world, &gsize);
    CHECK(grank == me && gsize == np, "ARMCI's world group: rank %d of %d, expected %d of %d",
          grank, gsize, me, np);
    for (int s = 0; s < np; s++)
        ids += ARMCI_Absolute_id(&world, s) == s;
    CHECK(ids == np, "ARMCI_Absolute_id on the world group is the identity for %d of %d", ids, np);
    check_domains(sub, me, np);

    /* nothing allocated anywhere yet: ARMCI_Free(NULL) frees nothing and succeeds */
    CHECK(ARMCI_Free(NULL) == 0, "ARMCI_Free(NULL) before any allocation returned non-zero");

    /* each member puts (its ARMCI rank, its world rank) into the next one's block */
    void **base = malloc((size_t)np * sizeof(void *));
    for (int s = 0; s < np; s++)
        base[s] = NULL;
    CHECK(ARMCI_Malloc(base, 2 * sizeof(long)) == 0, "ARMCI_Malloc after ARMCI_Free(NULL)");
    int nulls = 0;
    for (int s = 0; s < np; s++)
        nulls += base[s] == NULL;
    CHECK(nulls == 0, "ARMCI_Malloc gave %d NULL blocks of %d", nulls, np);
    int right = (me + 1) % np, left = (me + np - 1) % np;
    long v[2] = {me, t_me}, got[2] = {-1, -1};
    ARMCI_Put(v, base[right], sizeof v, right);
    ARMCI_Barrier();
    long *mine = base[me];
    CHECK(mine[0] == left && mine[1] == world_of(left, np),
          "my block holds (%ld, %ld), expected (%d, %d) from my left", mine[0], mine[1], left,
          world_of(left, np));
    ARMCI_Get(base[right], got, sizeof got, right);
    CHECK(got[0] == me && got[1] == t_me, "got (%ld, %ld) back from %d, expected (%d, %d)", got[0],
          got[1], right, me, t_me);
    ARMCI_Barrier();
    CHECK(ARMCI_Free(base[me]) == 0, "ARMCI_Free of the block returned non-zero");
    free(base);
    /* nothing allocated again */
    CHECK(ARMCI_Free(NULL) == 0, "ARMCI_Free(NULL) after the last free returned non-zero");

    /* reductions over the members alone: world ranks 0, 2, .., 2(m-1) */
    int sum = t_me + 1;
    armci_msg_igop(&sum, 1, "+");
    CHECK(sum == np * np, "armci_msg_igop + of world rank + 1: %d, expected %d", sum, np * np);
    long max = t_me;
    armci_msg_lgop(&max, 1, "max");
    CHECK(max == 2L * (np - 1), "armci_msg_lgop max of world rank: %ld, expected %d", max,
          2 * (np - 1));
    armci_msg_barrier();
    return sum;
}

/* The others, never calling ARMCI: the members' result reaches them, or they end the job
 * naming the wait, rather than leaving it to the timeout. */
static void outsider(int members)
{
    int sum = -1, done = 0;
    MPI_Request r;
    MPI_Irecv(&sum, 1, MPI_INT, 0, 35, MPI_COMM_WORLD, &r);
    double t0 = MPI_Wtime();
    struct timespec nap = {0, 1000 * 1000};
    while (!done && MPI_Wtime() - t0 < 60) {
        MPI_Test(&r, &done, MPI_STATUS_IGNORE);
        if (!done)
            nanosleep(&nap, NULL);
    }
    if (!done) {
        fprintf(stderr,
                "rank %d: the members of the sub-communicator did not finish in 60 s: "
                "do their collectives wait for processes outside it?\n",
                t_me);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    CHECK(sum == members * members, "the members' sum reached world rank %d as %d, expected %d",
          t_me, sum, members * members);
}

int main(int argc, char **argv)
{
    int level = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &level);
    by_mpi_comm = argc > 1 && strcmp(argv[1], "mpi_comm") == 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &t_me);
    MPI_Comm_size(MPI_COMM_WORLD, &t_np);
    CHECK(t_np >= 2, "needs a process outside the sub-communicator: run on 2 or more");
    int members = (t_np + 1) / 2, in = t_me % 2 == 0;
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, in ? 0 : MPI_UNDEFINED, -t_me, &sub);
    if (in) {
        /* ARMCI-MPI takes the level MPI provides and no more (src/init_finalize.c:243-249) */
        int sum = member(sub, level);
        if (t_me == 0)
            for (int p = 1; p < t_np; p += 2)
                MPI_Send(&sum, 1, MPI_INT, p, 35, MPI_COMM_WORLD);
        ARMCI_Finalize();
        MPI_Comm_free(&sub);
    } else {
        outsider(members);
    }

    int counts[2] = {t_checks, t_failed}, sums[2];
    MPI_Allreduce(counts, sums, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (t_me == 0)
        printf("t_subcomm: %d processes (%d in ARMCI), %d checks, %d failed\n", t_np, members,
               sums[0], sums[1]);
    MPI_Finalize();
    return sums[1] == 0 && sums[0] > 0 ? 0 : 1;
}
