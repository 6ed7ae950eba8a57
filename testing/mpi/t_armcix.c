/* SPDX-License-Identifier: BSD-3-Clause */
/* ARMCI-MPI's extensions (armcix.h): groups split by color and duplicated, used for
 * allocation, one-sided data and group collectives; batches of mutexes over groups, beside
 * the world's mutexes, guarding read-modify-write counters; Trylock; one process holding
 * mutex 0 of two processes at once. With an argument, one case of misuse, which must end
 * the job with a clear message (suite.sh checks it). */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "tester.h"

#define N 300

/* The members of the group of color @p c when every process passes color me % 2 and key
 * -me: ordered by key, so by decreasing absolute id. @return their number. */
static int members_of(int c, int *out)
{
    int n = 0;
    for (int p = t_np - 1; p >= 0; p--)
        if (p % 2 == c)
            out[n++] = p;
    return n;
}

/* What every usable group must do: its rank, size and absolute ids as @p members lists,
 * allocation over it carrying data by absolute ids, and a group reduction. */
static void check_group(const char *what, ARMCI_Group *g, const int *members, int n)
{
    int gr = -2, gs = -2;
    ARMCI_Group_rank(g, &gr);
    ARMCI_Group_size(g, &gs);
    CHECK(gs == n, "%s: size %d, expected %d", what, gs, n);
    int want_rank = -1;
    for (int r = 0; r < n; r++)
        if (members[r] == t_me)
            want_rank = r;
    CHECK(gr == want_rank, "%s: rank %d, expected %d", what, gr, want_rank);
    if (gs != n || gr != want_rank)
        return;
    for (int r = 0; r < n; r++)
        CHECK(ARMCI_Absolute_id(g, r) == members[r], "%s: absolute id of rank %d is %d, not %d",
              what, r, ARMCI_Absolute_id(g, r), members[r]);
    /* As ARMCI-MPI's tests/test_malloc_group.c:33-44 (split, ARMCI_Malloc_group, free by
     * base_ptrs[grp_me]), and the memory then carries data: each member puts its id into the
     * block of the next member (ptr_arr is indexed by group rank, data moves by absolute id). */
    void **gb = malloc((size_t)n * sizeof(void *));
    ARMCI_Malloc_group(gb, 2 * sizeof(long), g);
    int next = (gr + 1) % n, prev = (gr + n - 1) % n;
    long v = 1000 + t_me;
    ARMCI_Put(&v, gb[next], sizeof(v), members[next]);
    ARMCI_Fence(members[next]);
    armci_msg_group_barrier(g);
    CHECK(*(long *)gb[gr] == 1000 + members[prev], "%s: block holds %ld, expected %d", what,
          *(long *)gb[gr], 1000 + members[prev]);
    int x[2] = {t_me, 1}, sum = 0;
    for (int r = 0; r < n; r++)
        sum += members[r];
    armci_msg_group_igop(x, 2, "+", g);
    CHECK(x[0] == sum && x[1] == n, "%s: igop gave %d, %d; expected %d, %d", what, x[0], x[1], sum,
          n);
    armci_msg_group_barrier(g);
    ARMCI_Free_group(gb[gr], g);
    free(gb);
}

/* value at @p addr of @p proc, plus one, under a lock the caller holds */
static void bump(long *addr, int proc)
{
    long v;
    ARMCI_Get(addr, &v, sizeof(v), proc);
    /* the processor to another process between read and write: a mutex that excludes
     * nobody then loses updates at once, even where processes outnumber cores */
    sched_yield();
    v++;
    ARMCI_Put(&v, addr, sizeof(v), proc);
}

static int misuse(const char *c);

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    if (argc > 1)
        return misuse(argv[1]);
    ARMCI_Group world, g, gd, wd, some;
    ARMCI_Group_get_world(&world);
    int last = t_np - 1;

    /* ---- split by color (ARMCI-MPI's tests/test_group_split.c:29 splits odd and even) */
    int color = t_me % 2, members[64], n = members_of(color, members);
    ARMCIX_Group_split(&world, color, -t_me, &g);
    CHECK(g.comm != MPI_COMM_NULL, "split: a member has a communicator");
    check_group("split", &g, members, n);

    /* MPI_UNDEFINED leaves process 0 out; the rest, in world order */
    ARMCIX_Group_split(&world, t_me == 0 ? MPI_UNDEFINED : 0, 0, &some);
    int rest[64];
    for (int p = 1; p < t_np; p++)
        rest[p - 1] = p;
    if (t_me == 0) {
        int r, s;
        ARMCI_Group_rank(&some, &r);
        ARMCI_Group_size(&some, &s);
        CHECK(some.comm == MPI_COMM_NULL && r == -1 && s == 0,
              "split out: comm %s, rank %d, size %d", some.comm == MPI_COMM_NULL ? "null" : "set",
              r, s);
    } else {
        check_group("split without process 0", &some, rest, t_np - 1);
    }
    ARMCI_Group_free(&some);

    /* ---- dup: of the world (which may then be freed) and of a split group */
    ARMCIX_Group_dup(&world, &wd);
    int cmp, all[64];
    MPI_Comm_compare(wd.comm, world.comm, &cmp);
    CHECK(cmp == MPI_CONGRUENT, "dup of the world: a congruent communicator of its own (%d)", cmp);
    for (int p = 0; p < t_np; p++)
        all[p] = p;
    check_group("dup of the world", &wd, all, t_np);
    ARMCIX_Group_dup(&g, &gd);
    MPI_Comm_compare(gd.comm, g.comm, &cmp);
    CHECK(cmp == MPI_CONGRUENT, "dup of the split group: congruent (%d)", cmp);
    check_group("dup of the split group", &gd, members, n);
    ARMCI_Group_free(&gd);

    /* ---- mutexes: the world's, batch A over the world, batch B over the split group */
    void **base = malloc((size_t)t_np * sizeof(void *));
    ARMCI_Malloc(base, 8 * sizeof(long));
    memset(base[t_me], 0, 8 * sizeof(long));
    ARMCI_Create_mutexes(2);
    armcix_mutex_hdl_t A = ARMCIX_Create_mutexes_hdl(2, &world);
    int gr;
    ARMCI_Group_rank(&g, &gr);
    /* member r hosts r + 1 mutexes; the counter's mutex is the last member's last one, at a
     * process whose absolute id is not its rank in g (ids run backwards there) */
    armcix_mutex_hdl_t B = ARMCIX_Create_mutexes_hdl(gr + 1, &g);
    /* the batch keeps its own copy of the group: the user's may go */
    ARMCIX_Group_dup(&g, &gd);
    armcix_mutex_hdl_t B2 = ARMCIX_Create_mutexes_hdl(1, &gd);
    ARMCI_Group_free(&gd);
    int hb = members[n - 1];
    long *cW = (long *)base[0], *cA = (long *)base[last] + 1, *cB = (long *)base[hb] + 2;
    long *cB2 = (long *)base[members[0]] + 5;
    ARMCI_Barrier();
    for (int i = 0; i < N; i++) {
        ARMCIX_Lock_hdl(A, 1, last);
        bump(cA, last);
        ARMCIX_Unlock_hdl(A, 1, last);
        ARMCIX_Lock_hdl(B, n - 1, hb);
        bump(cB, hb);
        ARMCIX_Unlock_hdl(B, n - 1, hb);
        /* a world mutex and a batch's, held together (always taken in this order) */
        ARMCI_Lock(0, 0);
        ARMCIX_Lock_hdl(A, 1, last);
        bump(cW, 0);
        bump(cA, last);
        ARMCIX_Unlock_hdl(A, 1, last);
        ARMCI_Unlock(0, 0);
        ARMCIX_Lock_hdl(B2, 0, members[0]);
        bump(cB2, members[0]);
        ARMCIX_Unlock_hdl(B2, 0, members[0]);
    }
    ARMCI_Barrier();
    if (t_me == 0)
        CHECK(*cW == (long)N * t_np, "world mutex counter %ld, expected %ld", *cW, (long)N * t_np);
    if (t_me == last)
        CHECK(*cA == 2L * N * t_np, "batch A counter %ld, expected %ld", *cA, 2L * N * t_np);
    if (t_me == hb)
        CHECK(*cB == (long)N * n, "batch B counter %ld, expected %ld", *cB, (long)N * n);
    if (t_me == members[0])
        CHECK(*cB2 == (long)N * n, "batch B2 counter %ld, expected %ld", *cB2, (long)N * n);

    /* ---- mutex 0 of process 0 and mutex 0 of process 1, held at once (issue 21 item 3),
     * in a batch and among the world's; both counters exact */
    if (t_np >= 2) {
        long *c0 = (long *)base[0] + 3, *c1 = (long *)base[1] + 3;
        long *w0 = (long *)base[0] + 4, *w1 = (long *)base[1] + 4;
        /* each counter also under its own mutex alone: under both only, one working mutex
         * would hide a broken one (t_sync.c says why) */
        for (int i = 0; i < N / 3; i++) {
            ARMCIX_Lock_hdl(A, 0, 0);
            bump(c0, 0);
            ARMCIX_Unlock_hdl(A, 0, 0);
            ARMCIX_Lock_hdl(A, 0, 1);
            bump(c1, 1);
            ARMCIX_Unlock_hdl(A, 0, 1);
            ARMCIX_Lock_hdl(A, 0, 0);
            ARMCIX_Lock_hdl(A, 0, 1);
            bump(c0, 0);
            bump(c1, 1);
            ARMCIX_Unlock_hdl(A, 0, 1);
            ARMCIX_Unlock_hdl(A, 0, 0);
            ARMCI_Lock(0, 0);
            bump(w0, 0);
            ARMCI_Unlock(0, 0);
            ARMCI_Lock(0, 1);
            bump(w1, 1);
            ARMCI_Unlock(0, 1);
            ARMCI_Lock(0, 1);
            ARMCI_Lock(0, 0);
            bump(w0, 0);
            bump(w1, 1);
            ARMCI_Unlock(0, 0);
            ARMCI_Unlock(0, 1);
        }
        ARMCI_Barrier();
        if (t_me <= 1) {
            long c = *((long *)base[t_me] + 3), w = *((long *)base[t_me] + 4);
            CHECK(c == 2L * (N / 3) * t_np, "mutex 0 of two processes: counter %ld, expected %ld",
                  c, 2L * (N / 3) * t_np);
            CHECK(w == 2L * (N / 3) * t_np,
                  "world mutex 0 of two processes: counter %ld, expected %ld", w,
                  2L * (N / 3) * t_np);
        }
    }

    /* ---- Trylock: 0 when free, non-zero while another process holds the mutex (made
     * deterministic by barriers) */
    ARMCI_Barrier();
    if (t_me == 0)
        CHECK(ARMCIX_Trylock_hdl(A, 0, last) == 0, "trylock of a free mutex");
    ARMCI_Barrier();
    if (t_me != 0) {
        CHECK(ARMCIX_Trylock_hdl(A, 0, last) != 0, "trylock of a held mutex succeeded");
        /* mutex 1 of this process: nobody else asks for it */
        CHECK(ARMCIX_Trylock_hdl(A, 1, t_me) == 0, "trylock of my own free mutex");
        ARMCIX_Unlock_hdl(A, 1, t_me);
    }
    /* the world's mutex 0 at the last process is another lock than batch A's */
    if (t_me == last)
        ARMCI_Lock(0, last);
    ARMCI_Barrier();
    if (t_me == 0)
        ARMCIX_Unlock_hdl(A, 0, last);
    ARMCI_Barrier();
    if (t_me == last) {
        CHECK(ARMCIX_Trylock_hdl(A, 0, last) == 0, "trylock after the holder unlocked");
        ARMCIX_Unlock_hdl(A, 0, last);
        ARMCI_Unlock(0, last);
    }
    /* in batch B, the host named by absolute id */
    ARMCI_Barrier();
    if (gr == 0)
        CHECK(ARMCIX_Trylock_hdl(B, n - 1, hb) == 0, "trylock in batch B");
    armci_msg_group_barrier(&g);
    if (gr != 0)
        CHECK(ARMCIX_Trylock_hdl(B, n - 1, hb) != 0, "trylock of a held mutex in batch B");
    armci_msg_group_barrier(&g);
    if (gr == 0)
        ARMCIX_Unlock_hdl(B, n - 1, hb);
    /* As ARMCI-MPI's tests/test_mutex_trylock.c:38-43: every mutex of every process, taken
     * by trylock in a loop, by everyone at once; each guards a counter at its host that is
     * read and written back while it is held, so that a trylock which let two in loses an
     * update */
    for (int i = 0; i < t_np; i++)
        for (int j = 0; j < 2; j++) {
            int p = (t_me + i) % t_np;
            long *c = (long *)base[p] + 6 + j;
            while (ARMCIX_Trylock_hdl(A, j, p))
                ;
            ARMCI_PutValueLong(ARMCI_GetValueLong(c, p) + 1, c, p);
            ARMCIX_Unlock_hdl(A, j, p);
        }
    ARMCI_Barrier(); /* nobody asks for A's mutexes any more */
    for (int j = 0; j < 2; j++)
        CHECK(((long *)base[t_me])[6 + j] == t_np,
              "trylock loop: mutex %d here counted %ld holders, expected %d", j,
              ((long *)base[t_me])[6 + j], t_np);

    /* destroying a batch while another batch's mutex is held */
    ARMCIX_Lock_hdl(A, 0, t_me);
    ARMCIX_Destroy_mutexes_hdl(B2);
    ARMCIX_Unlock_hdl(A, 0, t_me);
    ARMCI_Barrier();
    ARMCIX_Destroy_mutexes_hdl(B);
    ARMCIX_Destroy_mutexes_hdl(A);
    ARMCI_Destroy_mutexes();
    /* and the world's can be made again beside a new batch */
    ARMCI_Create_mutexes(1);
    A = ARMCIX_Create_mutexes_hdl(1, &wd);
    ARMCI_Lock(0, last);
    ARMCIX_Lock_hdl(A, 0, last);
    ARMCIX_Unlock_hdl(A, 0, last);
    ARMCI_Unlock(0, last);
    ARMCI_Barrier();
    ARMCIX_Destroy_mutexes_hdl(A);
    ARMCI_Destroy_mutexes();

    ARMCI_Free(base[t_me]);
    free(base);
    ARMCI_Group_free(&wd);
    ARMCI_Group_free(&g);
    return t_finish("t_armcix");
}

/* One misuse, on rank 0 at 2 processes; the others wait to be taken down by its abort. */
static int misuse(const char *c)
{
    ARMCI_Group world, even;
    ARMCI_Group_get_world(&world);
    armcix_mutex_hdl_t h = ARMCIX_Create_mutexes_hdl(2, &world);
    ARMCIX_Group_split(&world, t_me % 2, 0, &even);
    armcix_mutex_hdl_t he = ARMCIX_Create_mutexes_hdl(1, &even);
    ARMCI_Barrier();
    if (strcmp(c, "destroyed") == 0) /* collective, then rank 0 uses it */
        ARMCIX_Destroy_mutexes_hdl(h);
    if (t_me == 0) {
        if (strcmp(c, "null") == 0)
            ARMCIX_Lock_hdl(NULL, 0, 1);
        else if (strcmp(c, "range") == 0)
            ARMCIX_Lock_hdl(h, 5, 1);
        else if (strcmp(c, "outside") == 0)
            ARMCIX_Trylock_hdl(he, 0, 1); /* process 1 is not in the even group */
        else if (strcmp(c, "rank") == 0)
            ARMCIX_Unlock_hdl(h, 0, t_np);
        else if (strcmp(c, "not_held") == 0)
            ARMCIX_Unlock_hdl(h, 0, 1);
        else if (strcmp(c, "twice") == 0) {
            ARMCIX_Lock_hdl(h, 1, 1);
            ARMCIX_Trylock_hdl(h, 1, 1);
        } else if (strcmp(c, "destroy_held") == 0) {
            ARMCIX_Lock_hdl(h, 0, 1);
            ARMCIX_Destroy_mutexes_hdl(h);
        } else if (strcmp(c, "destroyed") == 0)
            ARMCIX_Lock_hdl(h, 0, 1);
        else if (strcmp(c, "color") == 0)
            ARMCIX_Group_split(&world, -3, 0, &even);
        else if (strcmp(c, "create_null") == 0)
            ARMCIX_Create_mutexes_hdl(1, NULL);
        fprintf(stderr, "t_armcix: misuse '%s' was not rejected\n", c);
        MPI_Abort(MPI_COMM_WORLD, 99);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return 1;
}
