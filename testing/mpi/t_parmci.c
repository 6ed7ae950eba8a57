/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The profiling interface: a tool defines ARMCI_<name> itself, counts the call, and calls
 * through to PARMCI_<name>. ARMCI-MPI's tests/test_parmci.c (lines 114-121, with
 * test_parmci_lib.c) checks that every ARMCI_Init, _Finalize, _Barrier, _Get and _Put the
 * application makes reaches the tool's wrapper once and the library once. Here the
 * wrappers also count the library's calls between them, and the data must still arrive.
 * Built with -Werror, this also checks that armci.h and message.h declare the PARMCI_*
 * and parmci_msg_* prototypes (ARMCI-MPI's headers do).
 *
 * Then every PARMCI_<name> of include/armci.h and parmci_msg_<name> of message.h is called
 * directly, and each is checked against what the ranks say must be there: the words that
 * arrived, accumulated sums, values fetched by read-modify-write, a counter kept under a
 * mutex, handles that complete, return codes. None of them may reach the program's own
 * ARMCI_Put, _Get, _Barrier or armci_msg_barrier. In ARMCI-MPI each PARMCI_<name> is the
 * implementation and ARMCI_<name> a weak alias of it (src/init_finalize.c:168-824,
 * malloc.c:16-149, armci-memdev.c:8-44, onesided.c:16-280, onesided_nb.c:72-404,
 * util.c:29-73, strided.c:88-628, strided_nb.c:17-224, vector.c:419-498,
 * vector_nb.c:15-110, value_ops.c:15-179, rmw.c:16, mutex.c:32-160, message.c:97-127), or
 * a wrapper calling it where the compiler has no weak symbols (src/parmci.c); here
 * ARMCI_<name> is weak and PARMCI_<name> an alias of it (armci/check.h, ARMCII_PROFILED).
 * PARMCI_SET_AGGREGATE_HANDLE and _UNSET_ are ours alone: ARMCI-MPI defines only the
 * ARMCI_ names (src/onesided_nb.c:34-69) and declares no PARMCI_ ones (src/armci.h:221-310).
 *
 *   t_parmci [init|args|thread|thread_comm|mpi_comm]
 *
 * selects the PARMCI_Init* that brings ARMCI up: PARMCI_Init (the default) and
 * PARMCI_Init_thread_comm after the program's MPI_Init, the latter on MPI_COMM_WORLD in
 * reverse rank order, so that ARMCI's ranks show the communicator was used;
 * PARMCI_Init_args and PARMCI_Init_thread (asking for MPI_THREAD_MULTIPLE) start MPI
 * themselves; PARMCI_Init_mpi_comm, like PARMCI_Init_thread_comm, on the reversed world.
 * The others then only nest, and one PARMCI_Finalize per variant ends ARMCI,
 * the last one MPI too where ARMCI started it (t_init checks nesting by the ARMCI_ names).
 */
#include <sched.h>
#include <string.h>

#include "tester.h"

static int wrapped_put, wrapped_get, wrapped_barrier, wrapped_msg_barrier;

/* ---- bringing ARMCI up and down by the PARMCI_ names ---- */

enum { V_INIT, V_ARGS, V_THREAD, V_THREAD_COMM, V_MPI_COMM, NVARIANTS };
static const char *const variant_arg[NVARIANTS] = {"init", "args", "thread", "thread_comm",
                                                   "mpi_comm"};
static const char *const variant_call[NVARIANTS] = {"PARMCI_Init", "PARMCI_Init_args",
                                                    "PARMCI_Init_thread", "PARMCI_Init_thread_comm",
                                                    "PARMCI_Init_mpi_comm"};
static int variant, armci_starts_mpi;
static MPI_Comm t_comm;                   /* ARMCI's world, as MPI knows it */
static MPI_Comm rev_comm = MPI_COMM_NULL; /* MPI_COMM_WORLD in reverse (thread_comm) */
static int peer_r, peer_l;                /* the next and the previous process */
static void **blk;                        /* the PARMCI_Malloc block of the sections */

static int init_with(int v, int *argc, char ***argv)
{
    switch (v) {
    case V_INIT:
        return PARMCI_Init();
    case V_ARGS:
        return PARMCI_Init_args(argc, argv);
    case V_THREAD:
        return PARMCI_Init_thread(MPI_THREAD_MULTIPLE);
    case V_THREAD_COMM:
        return PARMCI_Init_thread_comm(MPI_THREAD_FUNNELED, t_comm);
    default: /* ARMCI-MPI's later form (src/init_finalize.c:748) */
        return PARMCI_Init_mpi_comm(t_comm);
    }
}

static void parmci_init(int *argc, char ***argv)
{
    variant = V_INIT;
    if (*argc > 1) {
        variant = -1;
        for (int v = 0; v < NVARIANTS; v++)
            if (strcmp((*argv)[1], variant_arg[v]) == 0)
                variant = v;
        if (variant < 0) {
            fprintf(stderr, "usage: t_parmci [init|args|thread|thread_comm|mpi_comm]\n");
            exit(2);
        }
    }
    armci_starts_mpi = variant == V_ARGS || variant == V_THREAD;
    CHECK(!PARMCI_Initialized(), "PARMCI_Initialized says yes before any init");
    if (!armci_starts_mpi)
        MPI_Init(argc, argv);
    t_comm = MPI_COMM_WORLD;
    if (variant == V_THREAD_COMM || variant == V_MPI_COMM) {
        int wr, wn;
        MPI_Comm_rank(MPI_COMM_WORLD, &wr);
        MPI_Comm_size(MPI_COMM_WORLD, &wn);
        MPI_Comm_split(MPI_COMM_WORLD, 0, wn - 1 - wr, &rev_comm);
        t_comm = rev_comm;
    }
    int rc = init_with(variant, argc, argv);
    int mpi_up = 0;
    MPI_Initialized(&mpi_up);
    if (!mpi_up) {
        fprintf(stderr, "t_parmci: %s returned %d without MPI up\n", variant_call[variant], rc);
        exit(1);
    }
    MPI_Comm_rank(t_comm, &t_me);
    MPI_Comm_size(t_comm, &t_np);
    CHECK(rc == 0 && PARMCI_Initialized(), "%s returned %d, PARMCI_Initialized %d",
          variant_call[variant], rc, PARMCI_Initialized());
    CHECK(armci_msg_me() == t_me && armci_msg_nproc() == t_np,
          "after %s ARMCI is rank %d of %d, the communicator's %d of %d", variant_call[variant],
          armci_msg_me(), armci_msg_nproc(), t_me, t_np);
    for (int v = 0; v < NVARIANTS; v++)
        if (v != variant) {
            rc = init_with(v, argc, argv);
            CHECK(rc == 0 && armci_msg_me() == t_me, "%s within %s: returned %d, rank %d",
                  variant_call[v], variant_call[variant], rc, armci_msg_me());
        }
    peer_r = (t_me + 1) % t_np;
    peer_l = (t_me + t_np - 1) % t_np;
}

/* As tester.h's t_finish, by PARMCI_Finalize: the nested ones leave ARMCI up, the last
 * ends it (and MPI where ARMCI started it). */
static int parmci_finish(void)
{
    for (int k = 1; k < NVARIANTS; k++) {
        int rc = PARMCI_Finalize();
        CHECK(rc == 0 && PARMCI_Initialized(),
              "PARMCI_Finalize %d of %d: returned %d, PARMCI_Initialized %d", k, NVARIANTS, rc,
              PARMCI_Initialized());
    }
    int down = 1;
    MPI_Finalized(&down);
    CHECK(!down, "MPI was finalised before the last PARMCI_Finalize");
    int counts[2] = {t_checks, t_failed}, sums[2];
    MPI_Allreduce(counts, sums, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int rc = PARMCI_Finalize();
    MPI_Finalized(&down);
    int ok_after = rc == 0 && !PARMCI_Initialized() && down == armci_starts_mpi;
    if (!ok_after)
        fprintf(stderr,
                "rank %d: t_parmci.c: after the last PARMCI_Finalize: returned %d, "
                "initialised %d, MPI finalised %d (expected %d)\n",
                t_me, rc, PARMCI_Initialized(), down, armci_starts_mpi);
    if (t_me == 0)
        printf("t_parmci: %d processes, %d checks, %d failed (up by %s)\n", t_np, sums[0] + 1,
               sums[1] + !ok_after, variant_call[variant]);
    if (rev_comm != MPI_COMM_NULL)
        MPI_Comm_free(&rev_comm);
    if (!armci_starts_mpi)
        MPI_Finalize();
    return sums[1] == 0 && sums[0] > 0 && ok_after ? 0 : 1;
}

/* ---- the sections: every PARMCI_ call, checked ---- */

/* Each section has a slot of its own in every process's block. */
enum {
    S_CONTIG,
    S_ACC,
    S_LOCAL,
    S_NB,
    S_NBACC,
    S_IMPL,
    S_FENCE,
    S_AFENCE,
    S_PUTS,
    S_ACCS,
    S_NBPUTS,
    S_NBACCS,
    S_PUTV,
    S_ACCV,
    S_NBPUTV,
    S_NBACCV,
    S_VAL,
    S_RMW,
    S_MUTEX,
    S_FLAG,
    S_SFLAG,
    S_ACCESS,
    S_AGG,
    S_MSG,
    NSLOTS
};
#define SLOT 192

static void *at(int p, int slot, size_t off)
{
    return (char *)blk[p] + (size_t)slot * SLOT + off;
}

/* What process @p writes as word @p i: an exact integer also as a double. */
static long val(int p, int i)
{
    return 1000L * p + i + 1;
}

/* The sum of val(p, i) over every process. */
static long sum_val(int i)
{
    long s = 0;
    for (int p = 0; p < t_np; p++)
        s += val(p, i);
    return s;
}

/* Word (r, c) of process @p's strided patch. */
static int sval(int p, int r, int c)
{
    return 100 * p + 10 * r + c + 1;
}

/* Word (r, c) of the strided patch at @p base: rows DST_ROW bytes apart. */
#define DST_ROW 48
static int patch(const void *base, int r, int c)
{
    return *(const int *)((const char *)base + r * DST_ROW + c * (int)sizeof(int));
}

/* PARMCI_Put, _Get and _Acc, from and into a PARMCI_Malloc_local buffer too. */
static void contiguous(void)
{
    long v[8], got[8];
    int w[8], two = 2;
    for (int i = 0; i < 8; i++) {
        v[i] = val(t_me, i);
        w[i] = (int)val(t_me, 20 + i);
    }
    long *loc = PARMCI_Malloc_local(sizeof(v));
    CHECK(loc != NULL, "PARMCI_Malloc_local returned NULL");
    if (!loc)
        return;
    for (int i = 0; i < 8; i++)
        loc[i] = val(t_me, 40 + i);
    int rc = PARMCI_Put(v, at(peer_r, S_CONTIG, 0), sizeof(v), peer_r);
    rc |= PARMCI_Put(loc, at(peer_r, S_LOCAL, 0), sizeof(v), peer_r);
    for (int p = 0; p < t_np; p++)
        rc |= PARMCI_Acc(ARMCI_ACC_INT, &two, w, at(p, S_ACC, 0), sizeof(w), p);
    PARMCI_Barrier();
    memset(loc, 0, sizeof(v));
    rc |= PARMCI_Get(at(peer_r, S_CONTIG, 0), got, sizeof(got), peer_r);
    rc |= PARMCI_Get(at(peer_r, S_LOCAL, 0), loc, sizeof(v), peer_r);
    const long *mine = at(t_me, S_CONTIG, 0), *mine_loc = at(t_me, S_LOCAL, 0);
    const int *acc = at(t_me, S_ACC, 0);
    int bad = 0;
    for (int i = 0; i < 8; i++)
        bad += (got[i] != val(t_me, i)) + (mine[i] != val(peer_l, i)) +
               (loc[i] != val(t_me, 40 + i)) + (mine_loc[i] != val(peer_l, 40 + i)) +
               (acc[i] != 2 * sum_val(20 + i));
    CHECK(rc == 0 && bad == 0, "PARMCI_Put/Get/Acc: return codes %d, %d of 40 words wrong", rc,
          bad);
    CHECK(PARMCI_Free_local(loc) == 0, "PARMCI_Free_local");
}

/* Explicit handles (PARMCI_Wait, _Test) and implicit ones (PARMCI_WaitProc, _WaitAll). A
 * get is complete when its words are here, so the gets check the waits themselves. */
static void handles(void)
{
    long v[8], got[8], got2[8], got3[8];
    double d[8], half = 0.5;
    for (int i = 0; i < 8; i++) {
        v[i] = val(t_me, 60 + i);
        d[i] = (double)val(t_me, 80 + i);
    }
    armci_hdl_t hp, ha, hg;
    ARMCI_INIT_HANDLE(&hp);
    ARMCI_INIT_HANDLE(&ha);
    ARMCI_INIT_HANDLE(&hg);
    int rc = PARMCI_NbPut(v, at(peer_r, S_NB, 0), sizeof(v), peer_r, &hp);
    rc |= PARMCI_NbAcc(ARMCI_ACC_DBL, &half, d, at(peer_r, S_NBACC, 0), sizeof(d), peer_r, &ha);
    rc |= PARMCI_Wait(&hp);
    rc |= PARMCI_Wait(&ha);
    rc |= PARMCI_NbPut(v, at(peer_r, S_IMPL, 0), sizeof(v), peer_r, NULL);
    rc |= PARMCI_WaitProc(peer_r);
    rc |= PARMCI_NbPut(v, at(peer_r, S_IMPL, 64), sizeof(v), peer_r, NULL);
    rc |= PARMCI_WaitAll();
    PARMCI_Barrier();
    rc |= PARMCI_NbGet(at(peer_r, S_NB, 0), got, sizeof(got), peer_r, &hg);
    while (PARMCI_Test(&hg))
        ;
    CHECK(PARMCI_Test(&hg) == 0, "a handle tested complete is in progress again");
    rc |= PARMCI_NbGet(at(peer_r, S_IMPL, 0), got2, sizeof(got2), peer_r, NULL);
    rc |= PARMCI_WaitProc(peer_r);
    rc |= PARMCI_NbGet(at(peer_r, S_IMPL, 64), got3, sizeof(got3), peer_r, NULL);
    rc |= PARMCI_WaitAll();
    const long *nb = at(t_me, S_NB, 0), *impl = at(t_me, S_IMPL, 0);
    const double *nbacc = at(t_me, S_NBACC, 0);
    int bad = 0;
    for (int i = 0; i < 8; i++)
        bad += (got[i] != val(t_me, 60 + i)) + (got2[i] != val(t_me, 60 + i)) +
               (got3[i] != val(t_me, 60 + i)) + (nb[i] != val(peer_l, 60 + i)) +
               (impl[i] != val(peer_l, 60 + i)) + (impl[8 + i] != val(peer_l, 60 + i)) +
               (nbacc[i] != 0.5 * (double)val(peer_l, 80 + i));
    CHECK(rc == 0 && bad == 0,
          "PARMCI_NbPut/NbGet/NbAcc, Wait/Test/WaitProc/WaitAll: return codes %d, %d of 56 "
          "words wrong",
          rc, bad);
}

/* PARMCI_Fence and _AllFence: after them a barrier that completes nothing
 * (parmci_msg_barrier) is enough for the targets to read the words. */
static void fences(void)
{
    long v[8];
    int w[8], one = 1;
    for (int i = 0; i < 8; i++) {
        v[i] = val(t_me, 100 + i);
        w[i] = (int)val(t_me, 120 + i);
    }
    int rc = PARMCI_Put(v, at(peer_r, S_FENCE, 0), sizeof(v), peer_r);
    PARMCI_Fence(peer_r);
    for (int p = 0; p < t_np; p++)
        rc |= PARMCI_Acc(ARMCI_ACC_INT, &one, w, at(p, S_AFENCE, 0), sizeof(w), p);
    PARMCI_AllFence();
    parmci_msg_barrier();
    const long *f = at(t_me, S_FENCE, 0);
    const int *af = at(t_me, S_AFENCE, 0);
    int bad = 0;
    for (int i = 0; i < 8; i++)
        bad += (f[i] != val(peer_l, 100 + i)) + (af[i] != sum_val(120 + i));
    CHECK(rc == 0 && bad == 0, "PARMCI_Fence/AllFence: return codes %d, %d of 16 words wrong", rc,
          bad);
}

/* Strided: a 3 x 4 patch of ints, packed rows of 8 at the source, rows of DST_ROW bytes at
 * the target. */
static void strided(void)
{
    int src[3][8], back[3][4], back2[3][4], three = 3;
    int sst[1] = {sizeof(src[0])}, dst[1] = {DST_ROW}, bst[1] = {sizeof(back[0])};
    int count[2] = {4 * sizeof(int), 3};
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 8; c++)
            src[r][c] = sval(t_me, r, c);
    armci_hdl_t hp, ha, hg;
    ARMCI_INIT_HANDLE(&hp);
    ARMCI_INIT_HANDLE(&ha);
    ARMCI_INIT_HANDLE(&hg);
    int rc = PARMCI_PutS(src, sst, at(peer_r, S_PUTS, 0), dst, count, 1, peer_r);
    for (int p = 0; p < t_np; p++)
        rc |= PARMCI_AccS(ARMCI_ACC_INT, &three, src, sst, at(p, S_ACCS, 0), dst, count, 1, p);
    rc |= PARMCI_NbPutS(src, sst, at(peer_r, S_NBPUTS, 0), dst, count, 1, peer_r, &hp);
    rc |= PARMCI_NbAccS(ARMCI_ACC_INT, &three, src, sst, at(peer_r, S_NBACCS, 0), dst, count, 1,
                        peer_r, &ha);
    rc |= PARMCI_Wait(&hp);
    rc |= PARMCI_Wait(&ha);
    PARMCI_Barrier();
    memset(back, 0, sizeof(back));
    memset(back2, 0, sizeof(back2));
    rc |= PARMCI_GetS(at(peer_r, S_PUTS, 0), dst, back, bst, count, 1, peer_r);
    rc |= PARMCI_NbGetS(at(peer_r, S_NBPUTS, 0), dst, back2, bst, count, 1, peer_r, &hg);
    while (PARMCI_Test(&hg))
        ;
    int bad = 0;
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++) {
            int all = 0;
            for (int p = 0; p < t_np; p++)
                all += sval(p, r, c);
            bad += (back[r][c] != sval(t_me, r, c)) + (back2[r][c] != sval(t_me, r, c)) +
                   (patch(at(t_me, S_PUTS, 0), r, c) != sval(peer_l, r, c)) +
                   (patch(at(t_me, S_NBPUTS, 0), r, c) != sval(peer_l, r, c)) +
                   (patch(at(t_me, S_ACCS, 0), r, c) != 3 * all) +
                   (patch(at(t_me, S_NBACCS, 0), r, c) != 3 * sval(peer_l, r, c));
        }
    CHECK(rc == 0 && bad == 0,
          "PARMCI_PutS/GetS/AccS/NbPutS/NbGetS/NbAccS: return codes %d, %d of 72 words wrong", rc,
          bad);
}

/* Four 8-byte segments, in two descriptors of two; at the target they lie 24 bytes apart. */
static void giov(armci_giov_t iov[2], void *src[4], void *dst[4])
{
    for (int k = 0; k < 2; k++) {
        iov[k].src_ptr_array = &src[2 * k];
        iov[k].dst_ptr_array = &dst[2 * k];
        iov[k].bytes = 8;
        iov[k].ptr_array_len = 2;
    }
}

static double seg(int p, int slot, int k)
{
    return *(const double *)at(p, slot, 24 * (size_t)k);
}

/* PARMCI_PutV, _GetV, _AccV and their nonblocking forms. */
static void vectors(void)
{
    double x[4], back[4], back2[4], two = 2.0;
    void *xs[4], *put[4], *nbput[4], *nbacc[4], *acc[4], *bs[4], *bs2[4];
    armci_giov_t iput[2], inbput[2], inbacc[2], iacc[2], iget[2], inbget[2];
    for (int k = 0; k < 4; k++) {
        x[k] = (double)val(t_me, 140 + k);
        xs[k] = &x[k];
        put[k] = at(peer_r, S_PUTV, 24 * (size_t)k);
        nbput[k] = at(peer_r, S_NBPUTV, 24 * (size_t)k);
        nbacc[k] = at(peer_r, S_NBACCV, 24 * (size_t)k);
        bs[k] = &back[k];
        bs2[k] = &back2[k];
        back[k] = back2[k] = -1;
    }
    giov(iput, xs, put);
    giov(inbput, xs, nbput);
    giov(inbacc, xs, nbacc);
    armci_hdl_t hp, ha, hg;
    ARMCI_INIT_HANDLE(&hp);
    ARMCI_INIT_HANDLE(&ha);
    ARMCI_INIT_HANDLE(&hg);
    int rc = PARMCI_PutV(iput, 2, peer_r);
    for (int p = 0; p < t_np; p++) { /* blocking: the descriptors may change after it */
        for (int k = 0; k < 4; k++)
            acc[k] = at(p, S_ACCV, 24 * (size_t)k);
        giov(iacc, xs, acc);
        rc |= PARMCI_AccV(ARMCI_ACC_DBL, &two, iacc, 2, p);
    }
    rc |= PARMCI_NbPutV(inbput, 2, peer_r, &hp);
    rc |= PARMCI_NbAccV(ARMCI_ACC_DBL, &two, inbacc, 2, peer_r, &ha);
    rc |= PARMCI_Wait(&hp);
    rc |= PARMCI_Wait(&ha);
    PARMCI_Barrier();
    giov(iget, put, bs);
    giov(inbget, nbput, bs2);
    rc |= PARMCI_GetV(iget, 2, peer_r);
    rc |= PARMCI_NbGetV(inbget, 2, peer_r, &hg);
    while (PARMCI_Test(&hg))
        ;
    int bad = 0;
    for (int k = 0; k < 4; k++) {
        double all = 0;
        for (int p = 0; p < t_np; p++)
            all += 2.0 * (double)val(p, 140 + k);
        bad += (back[k] != x[k]) + (back2[k] != x[k]) +
               (seg(t_me, S_PUTV, k) != (double)val(peer_l, 140 + k)) +
               (seg(t_me, S_NBPUTV, k) != (double)val(peer_l, 140 + k)) +
               (seg(t_me, S_NBACCV, k) != 2.0 * (double)val(peer_l, 140 + k)) +
               (seg(t_me, S_ACCV, k) != all);
    }
    CHECK(rc == 0 && bad == 0,
          "PARMCI_PutV/GetV/AccV/NbPutV/NbGetV/NbAccV: return codes %d, %d of 24 words wrong", rc,
          bad);
}

/* Single values: int, long, float, double at +0, 8, 16, 24, blocking; at +32.. nonblocking. */
static void values(void)
{
    char *r = at(peer_r, S_VAL, 0);
    const char *m = at(t_me, S_VAL, 0);
    armci_hdl_t h;
    ARMCI_INIT_HANDLE(&h);
    int rc = PARMCI_PutValueInt((int)val(t_me, 160), r, peer_r);
    rc |= PARMCI_PutValueLong((1L << 40) + t_me, r + 8, peer_r);
    rc |= PARMCI_PutValueFloat(0.5f + (float)t_me, r + 16, peer_r);
    rc |= PARMCI_PutValueDouble(0.25 + t_me, r + 24, peer_r);
    rc |= PARMCI_NbPutValueInt((int)val(t_me, 161), r + 32, peer_r, &h);
    rc |= PARMCI_Wait(&h);
    rc |= PARMCI_NbPutValueLong((1L << 41) + t_me, r + 40, peer_r, &h);
    rc |= PARMCI_Wait(&h);
    rc |= PARMCI_NbPutValueFloat(1.5f + (float)t_me, r + 48, peer_r, &h);
    rc |= PARMCI_Wait(&h);
    rc |= PARMCI_NbPutValueDouble(2.25 + t_me, r + 56, peer_r, &h);
    rc |= PARMCI_Wait(&h);
    PARMCI_Barrier();
    int gi = PARMCI_GetValueInt(r, peer_r), gi2 = PARMCI_GetValueInt(r + 32, peer_r);
    long gl = PARMCI_GetValueLong(r + 8, peer_r), gl2 = PARMCI_GetValueLong(r + 40, peer_r);
    float gf = PARMCI_GetValueFloat(r + 16, peer_r), gf2 = PARMCI_GetValueFloat(r + 48, peer_r);
    double gd = PARMCI_GetValueDouble(r + 24, peer_r), gd2 = PARMCI_GetValueDouble(r + 56, peer_r);
    CHECK(rc == 0 && gi == val(t_me, 160) && gl == (1L << 40) + t_me && gf == 0.5f + (float)t_me &&
              gd == 0.25 + t_me && gi2 == val(t_me, 161) && gl2 == (1L << 41) + t_me &&
              gf2 == 1.5f + (float)t_me && gd2 == 2.25 + t_me,
          "PARMCI_(Nb)PutValue*/GetValue*: return codes %d; read %d %ld %g %g, %d %ld %g %g", rc,
          gi, gl, gf, gd, gi2, gl2, gf2, gd2);
    CHECK(*(const int *)m == val(peer_l, 160) && *(const long *)(m + 8) == (1L << 40) + peer_l &&
              *(const float *)(m + 16) == 0.5f + (float)peer_l &&
              *(const double *)(m + 24) == 0.25 + peer_l &&
              *(const int *)(m + 32) == val(peer_l, 161) &&
              *(const long *)(m + 40) == (1L << 41) + peer_l &&
              *(const float *)(m + 48) == 1.5f + (float)peer_l &&
              *(const double *)(m + 56) == 2.25 + peer_l,
          "PARMCI_(Nb)PutValue*: the values from process %d did not arrive here", peer_l);
}

/* PARMCI_Rmw: fetch-and-add on words of process 0, swaps on words of the last process. Every
 * value fetched must be one the others left, each exactly once. */
static void rmw(void)
{
    enum { REPS = 10 };
    const int host = 0, shost = t_np - 1, n = REPS * t_np;
    char *cnt = at(host, S_RMW, 0), *sw = at(shost, S_RMW, 16);
    int fetched[REPS], rc = 0;
    long lfetched[REPS];
    for (int k = 0; k < REPS; k++) {
        rc |= PARMCI_Rmw(ARMCI_FETCH_AND_ADD, &fetched[k], cnt, 1, host);
        rc |= PARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &lfetched[k], cnt + 8, t_me + 1, host);
    }
    int swi = t_me + 1;
    long swl = (1L << 33) + t_me + 1;
    rc |= PARMCI_Rmw(ARMCI_SWAP, &swi, sw, 0, shost);
    rc |= PARMCI_Rmw(ARMCI_SWAP_LONG, &swl, sw + 8, 0, shost);
    PARMCI_Barrier();
    int *all = malloc((size_t)n * sizeof(int)), *swis = malloc((size_t)t_np * sizeof(int));
    long *swls = malloc((size_t)t_np * sizeof(long));
    char *seen = calloc((size_t)n + 1, 1);
    MPI_Allgather(fetched, REPS, MPI_INT, all, REPS, MPI_INT, t_comm);
    MPI_Allgather(&swi, 1, MPI_INT, swis, 1, MPI_INT, t_comm);
    MPI_Allgather(&swl, 1, MPI_LONG, swls, 1, MPI_LONG, t_comm);
    int bad = 0;
    for (int j = 0; j < n; j++)
        bad += all[j] < 0 || all[j] >= n || seen[all[j]]++;
    long lfinal = PARMCI_GetValueLong(cnt + 8, host), lsum = (long)REPS * t_np * (t_np + 1) / 2;
    for (int k = 0; k < REPS; k++)
        bad += lfetched[k] < 0 || lfetched[k] + t_me + 1 > lsum ||
               (k > 0 && lfetched[k] < lfetched[k - 1] + t_me + 1);
    CHECK(rc == 0 && bad == 0 && PARMCI_GetValueInt(cnt, host) == n && lfinal == lsum,
          "PARMCI_Rmw fetch-and-add: return codes %d, %d fetched values wrong, counters %d of "
          "%d and %ld of %ld",
          rc, bad, PARMCI_GetValueInt(cnt, host), n, lfinal, lsum);
    /* the swaps: the values fetched and the one left make 0 and each process's value once */
    memset(seen, 0, (size_t)n + 1);
    char *seenl = calloc((size_t)t_np + 1, 1);
    int wrong = 0, last = PARMCI_GetValueInt(sw, shost);
    long lastl = PARMCI_GetValueLong(sw + 8, shost);
    for (int p = 0; p <= t_np; p++) {
        int x = p < t_np ? swis[p] : last;
        long y = p < t_np ? swls[p] : lastl, yk = y == 0 ? 0 : y - (1L << 33);
        wrong += x < 0 || x > t_np || seen[x]++;
        wrong += (y != 0 && (yk < 1 || yk > t_np)) || seenl[y == 0 ? 0 : yk]++;
    }
    free(seenl);
    CHECK(wrong == 0, "PARMCI_Rmw swaps: %d values fetched or left wrong", wrong);
    free(seen);
    free(swls);
    free(swis);
    free(all);
}

/* PARMCI_Lock/_Unlock: every process increments a word of process 0 by a get and a put under
 * mutex 1 of the last process; a lost update would show in the count. The processor is given
 * up between the get and the put, so that without exclusion the others' increments land in
 * between: with Lock and Unlock left out, the count came out short on both paths. */
static void mutexes(void)
{
    enum { REPS = 20 };
    const int owner = 0, host = t_np - 1;
    long *ctr = at(owner, S_MUTEX, 0);
    int rc = PARMCI_Create_mutexes(2);
    for (int k = 0; k < REPS; k++) {
        long c = -1;
        PARMCI_Lock(1, host);
        rc |= PARMCI_Get(ctr, &c, sizeof(c), owner);
        sched_yield();
        c++;
        rc |= PARMCI_Put(&c, ctr, sizeof(c), owner);
        PARMCI_Unlock(1, host);
    }
    PARMCI_Barrier();
    long final = PARMCI_GetValueLong(ctr, owner);
    rc |= PARMCI_Destroy_mutexes();
    CHECK(rc == 0 && final == (long)REPS * t_np,
          "PARMCI_Lock/Unlock: return codes %d, the counter reached %ld of %ld", rc, final,
          (long)REPS * t_np);
}

/* PARMCI_Put_flag and _PutS_flag: once the flag shows here, the words must be here. */
static void flags(void)
{
    volatile int *myflag = at(t_me, S_FLAG, 64), *mysflag = at(t_me, S_SFLAG, 3 * DST_ROW);
    int sst[1] = {8 * sizeof(int)}, dst[1] = {DST_ROW}, count[2] = {4 * sizeof(int), 3};
    int bad = 0, rc = 0;
    for (int round = 1; round <= 2; round++) {
        long v[8];
        int src[3][8];
        for (int i = 0; i < 8; i++)
            v[i] = val(t_me, 180 + 10 * round + i);
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 8; c++)
                src[r][c] = sval(t_me, r, c) + 10000 * round;
        rc |= PARMCI_Put_flag(v, at(peer_r, S_FLAG, 0), sizeof(v), at(peer_r, S_FLAG, 64), round,
                              peer_r);
        rc |= PARMCI_PutS_flag(src, sst, at(peer_r, S_SFLAG, 0), dst, count, 1,
                               at(peer_r, S_SFLAG, 3 * DST_ROW), round, peer_r);
        /* acquire loads: the target stores each flag as a release after its data */
        T_WAIT_FOR(myflag, round, "round %d: the flag of PARMCI_Put_flag", round);
        T_WAIT_FOR(mysflag, round, "round %d: the flag of PARMCI_PutS_flag", round);
        const long *m = at(t_me, S_FLAG, 0);
        for (int i = 0; i < 8; i++)
            bad += m[i] != val(peer_l, 180 + 10 * round + i);
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 4; c++)
                bad += patch(at(t_me, S_SFLAG, 0), r, c) != sval(peer_l, r, c) + 10000 * round;
        PARMCI_Barrier(); /* everyone has read this round before the next overwrites it */
    }
    CHECK(rc == 0 && bad == 0,
          "PARMCI_Put_flag/PutS_flag: return codes %d, %d of 40 words not in place behind the "
          "flag",
          rc, bad);
}

/* PARMCI_Access_begin/_end around direct loads and stores in this process's own block. */
static void access_epoch(void)
{
    long v[8], got[8];
    for (int i = 0; i < 8; i++)
        v[i] = val(t_me, 220 + i);
    int rc = PARMCI_Put(v, at(peer_r, S_ACCESS, 64), sizeof(v), peer_r);
    PARMCI_Barrier();
    long *mine = at(t_me, S_ACCESS, 0);
    int bad = 0;
    PARMCI_Access_begin(mine);
    for (int i = 0; i < 8; i++) {
        bad += mine[8 + i] != val(peer_l, 220 + i);
        mine[i] = val(t_me, 240 + i);
    }
    PARMCI_Access_end(mine);
    PARMCI_Barrier();
    rc |= PARMCI_Get(at(peer_r, S_ACCESS, 0), got, sizeof(got), peer_r);
    for (int i = 0; i < 8; i++)
        bad += got[i] != val(peer_r, 240 + i);
    CHECK(rc == 0 && bad == 0, "PARMCI_Access_begin/end: return codes %d, %d of 16 words wrong", rc,
          bad);
}

/* PARMCI_SET_ and _UNSET_AGGREGATE_HANDLE: puts, a value put and gets collected on one handle;
 * to another node they travel as collections (ARMCIX_Agg_stats counts what was collected). */
static void aggregate(void)
{
    long v[8], got[8], ops0, ops1, fl;
    int gi = -1, rc = 0;
    int fabric = ARMCIX_Path_of(peer_r) == ARMCIX_PATH_FABRIC;
    armci_hdl_t h;
    ARMCI_INIT_HANDLE(&h);
    PARMCI_SET_AGGREGATE_HANDLE(&h);
    ARMCIX_Agg_stats(&ops0, &fl);
    for (int i = 0; i < 8; i++) {
        v[i] = val(t_me, 260 + i);
        got[i] = -1;
        rc |= PARMCI_NbPut(&v[i], at(peer_r, S_AGG, 8 * (size_t)i), sizeof(long), peer_r, &h);
    }
    rc |= PARMCI_NbPutValueInt((int)val(t_me, 270), at(peer_r, S_AGG, 64), peer_r, &h);
    rc |= PARMCI_Wait(&h);
    ARMCIX_Agg_stats(&ops1, &fl);
    CHECK(ops1 - ops0 == (fabric ? 9 : 0), "an aggregate handle to a %s process collected %ld",
          fabric ? "fabric" : "near", ops1 - ops0);
    PARMCI_Barrier();
    for (int i = 0; i < 8; i++)
        rc |= PARMCI_NbGet(at(peer_r, S_AGG, 8 * (size_t)i), &got[i], sizeof(long), peer_r, &h);
    while (PARMCI_Test(&h))
        ;
    PARMCI_UNSET_AGGREGATE_HANDLE(&h);
    ARMCIX_Agg_stats(&ops0, &fl);
    rc |= PARMCI_NbGet(at(peer_r, S_AGG, 64), &gi, sizeof(int), peer_r, &h);
    rc |= PARMCI_Wait(&h);
    ARMCIX_Agg_stats(&ops1, &fl);
    CHECK(ops1 == ops0, "a get on an unset aggregate handle was collected");
    const long *m = at(t_me, S_AGG, 0);
    int bad = gi != val(t_me, 270) || *(const int *)(m + 8) != val(peer_l, 270);
    for (int i = 0; i < 8; i++)
        bad += (got[i] != v[i]) + (m[i] != val(peer_l, 260 + i));
    CHECK(rc == 0 && bad == 0, "aggregate handle: return codes %d, %d of 18 words wrong", rc, bad);
}

/* parmci_msg_barrier orders this process's stores before the others' gets;
 * parmci_msg_group_barrier does for a group, here the world in reverse, whose allocation
 * comes from PARMCI_Malloc_group_memdev. And PARMCI_Malloc_memdev/_Free_memdev. */
static void memory_and_barriers(void)
{
    long got = -1, *mine = at(t_me, S_MSG, 0);
    mine[0] = val(t_me, 280);
    parmci_msg_barrier();
    int rc = PARMCI_Get(at(peer_r, S_MSG, 0), &got, sizeof(got), peer_r);
    CHECK(got == val(peer_r, 280), "after parmci_msg_barrier, process %d's store read %ld", peer_r,
          got);

    void **md = malloc((size_t)t_np * sizeof(void *));
    rc |= PARMCI_Malloc_memdev(md, 2 * sizeof(long), "DDR4");
    long v = val(t_me, 290);
    rc |= PARMCI_Put(&v, md[peer_r], sizeof(v), peer_r);
    PARMCI_Barrier();
    CHECK(*(long *)md[t_me] == val(peer_l, 290), "PARMCI_Malloc_memdev block holds %ld",
          *(long *)md[t_me]);
    PARMCI_Barrier();
    rc |= PARMCI_Free_memdev(md[t_me]);

    int *pids = malloc((size_t)t_np * sizeof(int)), grank = -1;
    for (int k = 0; k < t_np; k++)
        pids[k] = t_np - 1 - k;
    ARMCI_Group g;
    ARMCI_Group_create(t_np, pids, &g);
    ARMCI_Group_rank(&g, &grank);
    CHECK(grank == t_np - 1 - t_me, "rank %d in the reversed group", grank);
    if (grank >= 0 && grank < t_np) {
        rc |= PARMCI_Malloc_group_memdev(md, sizeof(long), &g, "DDR4");
        *(long *)md[grank] = val(t_me, 300);
        parmci_msg_group_barrier(&g);
        int gnext = (grank + 1) % t_np, abs = ARMCI_Absolute_id(&g, gnext);
        got = -1;
        rc |= PARMCI_Get(md[gnext], &got, sizeof(got), abs);
        CHECK(abs == t_np - 1 - gnext && got == val(abs, 300),
              "PARMCI_Malloc_group_memdev: group rank %d is process %d, its block holds %ld", gnext,
              abs, got);
        parmci_msg_group_barrier(&g);
        rc |= ARMCI_Free_group(md[grank], &g);
    }
    ARMCI_Group_free(&g);
    CHECK(rc == 0, "parmci_msg_*barrier, PARMCI_*memdev: return codes %d", rc);
    free(pids);
    free(md);
}

int ARMCI_Put(void *src, void *dst, int bytes, int proc)
{
    wrapped_put++;
    return PARMCI_Put(src, dst, bytes, proc);
}

int ARMCI_Get(void *src, void *dst, int bytes, int proc)
{
    wrapped_get++;
    return PARMCI_Get(src, dst, bytes, proc);
}

void ARMCI_Barrier(void)
{
    wrapped_barrier++;
    PARMCI_Barrier();
}

void armci_msg_barrier(void)
{
    wrapped_msg_barrier++;
    parmci_msg_barrier();
}

int main(int argc, char **argv)
{
    parmci_init(&argc, &argv);
    void **base = malloc((size_t)t_np * sizeof(void *));
    CHECK(ARMCI_Malloc(base, 16 * sizeof(int)) == 0, "ARMCI_Malloc");
    int right = (t_me + 1) % t_np, left = (t_me + t_np - 1) % t_np;
    const int rounds = 10;
    for (int k = 0; k < rounds; k++) {
        int v[16], got[16];
        for (int i = 0; i < 16; i++)
            v[i] = 1000 * t_me + 10 * k + i;
        CHECK(ARMCI_Put(v, base[right], sizeof(v), right) == 0, "wrapped ARMCI_Put returned");
        ARMCI_Barrier();
        CHECK(ARMCI_Get(base[t_me], got, sizeof(got), t_me) == 0, "wrapped ARMCI_Get");
        int bad = 0;
        for (int i = 0; i < 16; i++)
            bad += got[i] != 1000 * left + 10 * k + i;
        CHECK(bad == 0, "round %d through the wrappers: %d of 16 wrong", k, bad);
        armci_msg_barrier();
    }
    CHECK(wrapped_put == rounds && wrapped_get == rounds, "wrappers saw %d puts, %d gets of %d",
          wrapped_put, wrapped_get, rounds);
    CHECK(wrapped_barrier == rounds && wrapped_msg_barrier == rounds,
          "wrappers saw %d ARMCI_Barrier and %d armci_msg_barrier calls of %d", wrapped_barrier,
          wrapped_msg_barrier, rounds);
    /* The PARMCI_ names reach the same code directly, without the wrappers. */
    int one = 7, back = 0;
    PARMCI_Put(&one, base[t_me], sizeof(int), t_me);
    PARMCI_Get(base[t_me], &back, sizeof(int), t_me);
    CHECK(back == 7 && wrapped_put == rounds && wrapped_get == rounds,
          "PARMCI_Put/Get: read %d, wrappers now %d/%d", back, wrapped_put, wrapped_get);
    PARMCI_Barrier();

    /* every other PARMCI_ name, each checked */
    blk = malloc((size_t)t_np * sizeof(void *));
    CHECK(PARMCI_Malloc(blk, NSLOTS * SLOT) == 0, "PARMCI_Malloc");
    memset(blk[t_me], 0, NSLOTS * SLOT);
    PARMCI_Barrier();
    contiguous();
    handles();
    fences();
    strided();
    vectors();
    values();
    rmw();
    mutexes();
    flags();
    access_epoch();
    aggregate();
    memory_and_barriers();
    PARMCI_Barrier();
    CHECK(PARMCI_Free(blk[t_me]) == 0, "PARMCI_Free");
    free(blk);
    CHECK(wrapped_put == rounds && wrapped_get == rounds && wrapped_barrier == rounds &&
              wrapped_msg_barrier == rounds,
          "the PARMCI_ calls reached the wrappers: %d puts, %d gets, %d barriers, %d msg "
          "barriers of %d",
          wrapped_put, wrapped_get, wrapped_barrier, wrapped_msg_barrier, rounds);

    CHECK(ARMCI_Free(base[t_me]) == 0, "ARMCI_Free");
    free(base);
    return parmci_finish();
}
