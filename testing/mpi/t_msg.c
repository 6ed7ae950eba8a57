/* SPDX-License-Identifier: BSD-3-Clause */
/* armci_msg_*: reductions with every operation and type checked against MPI's own
 * results, broadcasts, point to point, selection, the binary tree, address exchange and
 * group variants. Each case below is a static test_* function; main runs them in order on
 * every process (they hold collective calls). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tester.h"

static void test_me_and_nproc(void)
{
    CHECK(armci_msg_me() == t_me && armci_msg_nproc() == t_np, "me/nproc");
}

/* The arithmetic reductions of every type, with mixed signs, against MPI_Allreduce. */
static void test_arithmetic_reductions_match_mpi(void)
{
    const char *ops[] = {"+", "*", "max", "min", "absmax", "absmin"};
    for (int o = 0; o < 6; o++) {
        double d[3], dref[3];
        long l[3], lref[3];
        int iv[3], iref[3];
        float f[3], fref[3];
        long long ll[3], llref[3];
        for (int k = 0; k < 3; k++) {
            double v = (t_me % 2 ? -1.0 : 1.0) * (t_me + 1 + k); /* mixed signs */
            d[k] = dref[k] = v;
            f[k] = fref[k] = (float)v;
            l[k] = lref[k] = (long)v;
            iv[k] = iref[k] = (int)v;
            ll[k] = llref[k] = (long long)v;
        }
        armci_msg_dgop(d, 3, (char *)ops[o]);
        armci_msg_fgop(f, 3, (char *)ops[o]);
        armci_msg_lgop(l, 3, (char *)ops[o]);
        armci_msg_igop(iv, 3, (char *)ops[o]);
        armci_msg_llgop(ll, 3, (char *)ops[o]);
        int absop = o >= 4;
        MPI_Op mop = o == 0 ? MPI_SUM : o == 1 ? MPI_PROD : (o == 2 || o == 4) ? MPI_MAX : MPI_MIN;
        if (absop)
            for (int k = 0; k < 3; k++) {
                dref[k] = fabs(dref[k]);
                fref[k] = fabsf(fref[k]);
                lref[k] = labs(lref[k]);
                iref[k] = abs(iref[k]);
                llref[k] = llabs(llref[k]);
            }
        MPI_Allreduce(MPI_IN_PLACE, dref, 3, MPI_DOUBLE, mop, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, fref, 3, MPI_FLOAT, mop, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, lref, 3, MPI_LONG, mop, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, iref, 3, MPI_INT, mop, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, llref, 3, MPI_LONG_LONG, mop, MPI_COMM_WORLD);
        int bad = 0;
        for (int k = 0; k < 3; k++)
            bad += d[k] != dref[k] || f[k] != fref[k] || l[k] != lref[k] || iv[k] != iref[k] ||
                   ll[k] != llref[k];
        CHECK(bad == 0, "reduction \"%s\": %d mismatches against MPI", ops[o], bad);
    }
}

/* Element k of the flags of the logical cases: true everywhere (0), false only at process
 * 0 (1), false everywhere (2), false only at the last process (3). */
static int flag_is_false(int k)
{
    return k == 2 || (k == 1 && t_me == 0) || (k == 3 && t_me == t_np - 1);
}

/* Floats and doubles under the logical operation @p name: the truth (1 or 0) of MPI's
 * reduction @p mop of their truth values @p truth. */
static void logical_floats_give_truth(const char *name, MPI_Op mop, float *f, double *d, int *truth)
{
    armci_msg_fgop(f, 4, (char *)name);
    armci_msg_dgop(d, 4, (char *)name);
    MPI_Allreduce(MPI_IN_PLACE, truth, 4, MPI_INT, mop, MPI_COMM_WORLD);
    int fbad = 0;
    for (int k = 0; k < 4; k++)
        fbad += f[k] != (truth[k] ? 1.0f : 0.0f) || d[k] != (truth[k] ? 1.0 : 0.0);
    CHECK(fbad == 0, "reduction \"%s\" of floats and doubles: %d wrong", name, fbad);
}

/* The logical and bitwise operations, under every name ARMCI-MPI's reductions take
 * (src/message_gop.c: && land || lor & band | bor): GA reduces flags with "&&"
 * (global/src/elem_alg.c:1891, global.npatch.c:1212, base.c:2196, v5.8.2) and its
 * elempatch test aborted without it. Integers are checked against MPI's MPI_LAND,
 * MPI_LOR, MPI_BAND, MPI_BOR; floats and doubles take the logical ones, with the
 * truth (1 or 0) of MPI's logical reduction of their truth values. Element 0 is true
 * everywhere, 1 false only at process 0, 2 false everywhere, 3 false only at the last. */
static void test_logical_and_bitwise_reductions_match_mpi(void)
{
    const char *names[] = {"&&", "land", "||", "lor", "&", "band", "|", "bor"};
    const MPI_Op mops[] = {MPI_LAND, MPI_LAND, MPI_LOR, MPI_LOR,
                           MPI_BAND, MPI_BAND, MPI_BOR, MPI_BOR};
    for (int o = 0; o < 8; o++) {
        int logical = o < 4;
        int iv[4], iref[4];
        long l[4], lref[4];
        long long ll[4], llref[4];
        float f[4];
        double d[4];
        int truth[4];
        for (int k = 0; k < 4; k++) {
            int zero = flag_is_false(k);
            /* logical: nonzero values of several sizes; bitwise: overlapping bit
             * patterns that differ between processes */
            long v = zero      ? 0
                     : logical ? (long)(t_me + 2) * (k + 1)
                               : (0x7F3CL >> (t_me % 5)) | (1L << (t_me + 16));
            iv[k] = iref[k] = (int)v;
            l[k] = lref[k] = v;
            ll[k] = llref[k] = v;
            f[k] = zero ? 0.0f : -0.25f * (float)(t_me + 1);
            d[k] = zero ? 0.0 : 1e-300 * (t_me + 1);
            truth[k] = !zero;
        }
        armci_msg_igop(iv, 4, (char *)names[o]);
        armci_msg_lgop(l, 4, (char *)names[o]);
        armci_msg_llgop(ll, 4, (char *)names[o]);
        MPI_Allreduce(MPI_IN_PLACE, iref, 4, MPI_INT, mops[o], MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, lref, 4, MPI_LONG, mops[o], MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, llref, 4, MPI_LONG_LONG, mops[o], MPI_COMM_WORLD);
        int bad = 0;
        for (int k = 0; k < 4; k++)
            bad += iv[k] != iref[k] || l[k] != lref[k] || ll[k] != llref[k];
        CHECK(bad == 0, "reduction \"%s\" of integers: %d mismatches against MPI", names[o], bad);
        if (logical)
            logical_floats_give_truth(names[o], mops[o], f, d, truth);
    }
}

/* expected truth table, independently of MPI: && is 1 0 0 0 (or 1 0 0 1 ... at
 * one process, where element 1 and 3 are the same process's) */
static void test_flags_truth_table(void)
{
    int tv[4];
    for (int k = 0; k < 4; k++)
        tv[k] = !flag_is_false(k);
    int ta[4], to[4];
    memcpy(ta, tv, sizeof(tv));
    memcpy(to, tv, sizeof(tv));
    armci_msg_igop(ta, 4, "&&");
    armci_msg_igop(to, 4, "||");
    CHECK(ta[0] == 1 && ta[1] == 0 && ta[2] == 0 && ta[3] == 0, "&& of flags: %d %d %d %d", ta[0],
          ta[1], ta[2], ta[3]);
    CHECK(to[0] == 1 && to[1] == (t_np > 1) && to[2] == 0 && to[3] == (t_np > 1),
          "|| of flags: %d %d %d %d", to[0], to[1], to[2], to[3]);
}

/* and on a group (the even processes), as GA's pnga_pgroup_gop does with "&&" */
static void test_group_logical_reductions(void)
{
    int nev = (t_np + 1) / 2, ids[64];
    for (int i = 0; i < nev; i++)
        ids[i] = 2 * i;
    ARMCI_Group ge;
    ARMCI_Group_create(nev, ids, &ge);
    if (t_me % 2 == 0) {
        int gflag = t_me != 0; /* false only at process 0 */
        armci_msg_group_igop(&gflag, 1, "&&", &ge);
        double gd = t_me == 0 ? 1.0 : 0.0; /* true only at process 0 */
        armci_msg_group_dgop(&gd, 1, "lor", &ge);
        CHECK(gflag == 0 && gd == 1.0, "group && %d, lor %g", gflag, gd);
    }
    ARMCI_Group_free(&ge);
}

/* "or" over the integer types */
static void test_or_of_integers(void)
{
    int ior = 1 << t_me;
    long lor = 1L << t_me;
    armci_msg_igop(&ior, 1, "or");
    armci_msg_lgop(&lor, 1, "or");
    CHECK(ior == (1 << t_np) - 1 && lor == (1L << t_np) - 1, "or: %d %ld", ior, lor);
}

/* vectors too long for the node's shared path (16 000 bytes: point-to-point messages over
 * the fabric) and for those messages (80 000 bytes: MPI's collective) */
static void test_long_vector_sums(void)
{
    for (int longv = 2000; longv <= 10000; longv += 8000) {
        double *lv = malloc((size_t)longv * sizeof(double));
        for (int k = 0; k < longv; k++)
            lv[k] = t_me + k;
        armci_msg_dgop(lv, longv, "+");
        int lbad = 0;
        for (int k = 0; k < longv; k++)
            lbad += lv[k] != t_np * (t_np - 1) / 2.0 + (double)k * t_np;
        CHECK(lbad == 0, "sum of %d doubles: %d wrong", longv, lbad);
        free(lv);
    }
}

/* Back to back, mixed with ARMCIX collectives: a sum whose rounding depends on the
 * order must come out the same everywhere, and right every time. */
static void test_back_to_back_reductions(void)
{
    int burst_bad = 0, differ = 0;
    for (int it = 0; it < 300; it++) {
        double v[2] = {t_me == 0 ? 1e16 : 1.0 + it, (double)(t_me * it)};
        armci_msg_dgop(v, 2, "+");
        double mine[2] = {v[0], v[1]}, lo[2], hi[2];
        MPI_Allreduce(mine, lo, 2, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
        MPI_Allreduce(mine, hi, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        differ += lo[0] != hi[0] || lo[1] != hi[1];
        burst_bad += v[1] != (double)it * t_np * (t_np - 1) / 2;
        if (it % 7 == 0) {
            char s[64], r[64 * 8];
            memset(s, it, sizeof s);
            ARMCIX_Allgather(s, r, 8, NULL);
            burst_bad += r[8 * (t_np - 1)] != (char)it;
        }
        long c = 1;
        armci_msg_lgop(&c, 1, "+");
        burst_bad += c != t_np;
    }
    CHECK(burst_bad == 0, "back-to-back reductions: %d wrong", burst_bad);
    CHECK(differ == 0, "back-to-back reductions: %d results differ between processes", differ);
}

static void test_gop_scope_all_and_node(void)
{
    double gs[2] = {1.0, (double)t_me};
    armci_msg_gop_scope(SCOPE_ALL, gs, 2, "+", ARMCI_DOUBLE);
    CHECK(gs[0] == t_np && gs[1] == t_np * (t_np - 1) / 2.0, "gop_scope all");
    int node_n = 1;
    armci_msg_gop_scope(SCOPE_NODE, &node_n, 1, "+", ARMCI_INT);
    int node_size = t_node_size(NULL, NULL);
    CHECK(node_n == node_size, "gop_scope node: %d, node has %d", node_n, node_size);
}

static void test_reduce_to_process_0(void)
{
    long rv = t_me + 1;
    armci_msg_reduce(&rv, 1, "+", ARMCI_LONG);
    if (t_me == 0)
        CHECK(rv == (long)t_np * (t_np + 1) / 2, "reduce at process 0: %ld", rv);
}

/* broadcasts */
static void test_bcast_and_brdcst(void)
{
    int root = t_np - 1;
    char msg[32] = {0};
    if (t_me == root)
        strcpy(msg, "from the last process");
    armci_msg_bcast(msg, sizeof(msg), root);
    CHECK(strcmp(msg, "from the last process") == 0, "bcast got '%s'", msg);
    long word = t_me == 0 ? 424242 : 0;
    armci_msg_brdcst(&word, sizeof(word), 0);
    CHECK(word == 424242, "brdcst");
}

/* from every root: 1 byte, 65 536 bytes (the longest sent by point-to-point messages
 * over the fabric) and 80 000 (MPI's broadcast) */
static void test_bcast_from_every_root(void)
{
    int bsizes[] = {1, 65536, 80000}, bbad = 0;
    unsigned char *bb = malloc(80000);
    for (int bs = 0; bs < 3; bs++)
        for (int root = 0; root < t_np; root++) {
            for (int k = 0; k < bsizes[bs]; k++)
                bb[k] = t_me == root ? (unsigned char)(k * 7 + root) : 0xee;
            armci_msg_bcast(bb, bsizes[bs], root);
            for (int k = 0; k < bsizes[bs]; k++)
                bbad += bb[k] != (unsigned char)(k * 7 + root);
        }
    free(bb);
    CHECK(bbad == 0, "bcast from every root: %d bytes wrong", bbad);
}

/* point to point around a ring */
static void test_ring_messages(void)
{
    int right = (t_me + 1) % t_np, left = (t_me + t_np - 1) % t_np;
    double out[4] = {t_me, t_me * 2, t_me * 3, 1}, in[8];
    int len = 0;
    if (t_me % 2 == 0) {
        armci_msg_snd(7, out, sizeof(out), right);
        armci_msg_rcv(7, in, sizeof(in), &len, left);
    } else {
        armci_msg_rcv(7, in, sizeof(in), &len, left);
        armci_msg_snd(7, out, sizeof(out), right);
    }
    CHECK(len == sizeof(out) && in[0] == left && in[2] == left * 3, "ring message");
}

/* a receive from anybody */
static void test_rcvany_at_process_0(void)
{
    if (t_me == 0) {
        int from_sum = 0;
        for (int k = 1; k < t_np; k++) {
            int v, l2;
            int from = armci_msg_rcvany(9, &v, sizeof(v), &l2);
            CHECK(v == from * 10 && l2 == sizeof(int), "rcvany value %d from %d", v, from);
            from_sum += from;
        }
        CHECK(from_sum == t_np * (t_np - 1) / 2, "rcvany senders");
    } else {
        int v = t_me * 10;
        armci_msg_snd(9, &v, sizeof(v), 0);
    }
}

/* selection: the contributor with the smallest/largest key wins, whole record copied */
static void test_sel_double_keys(void)
{
    struct {
        double key;
        int who;
    } rec = {100.0 - t_me, t_me};
    armci_msg_sel(&rec, sizeof(rec), "min", ARMCI_DOUBLE, 1);
    CHECK(rec.who == t_np - 1, "sel min picked %d", rec.who);
    rec.key = 100.0 - t_me;
    rec.who = t_me;
    armci_msg_sel_scope(SCOPE_ALL, &rec, sizeof(rec), "max", ARMCI_DOUBLE, t_me != 0);
    CHECK(rec.who == (t_np > 1 ? 1 : 0), "sel max (process 0 abstains) picked %d", rec.who);
}

/* Keys of the integer types and float, with the last process abstaining, as GA's
 * global/src/select.c (lines 265-275, reached from global/testing/elempatch.c:1332)
 * selects by int, long, long long and float values (this case and the next). Long keys
 * 2^60 + rank differ below a double's precision: each must still win by its own value. */
static void test_sel_long_keys_below_double_precision(void)
{
    int contribute = t_np == 1 || t_me != t_np - 1;
    int top = t_np == 1 ? 0 : t_np - 2; /* the highest contributing rank */
    struct {
        long long key;
        int who;
    } rl = {(1LL << 60) + t_me, t_me};
    armci_msg_sel(&rl, sizeof(rl), "max", ARMCI_LONG_LONG, contribute);
    CHECK(rl.who == top && rl.key == (1LL << 60) + top, "sel max long long picked %d", rl.who);
    struct {
        long key;
        int who;
    } rg = {(1L << 60) - t_me, t_me};
    armci_msg_sel(&rg, sizeof(rg), "min", ARMCI_LONG, contribute);
    CHECK(rg.who == top, "sel min long picked %d", rg.who);
}

/* int and float keys, the last process abstaining, ties going to the lowest rank */
static void test_sel_int_and_float_keys(void)
{
    int contribute = t_np == 1 || t_me != t_np - 1;
    struct {
        int key;
        int who;
    } ri = {t_me % 2 ? -t_me : t_me, t_me};
    armci_msg_sel_scope(SCOPE_ALL, &ri, sizeof(ri), "min", ARMCI_INT, contribute);
    int wi = 0; /* the contributor with the most negative key, the lowest rank on ties */
    for (int p = 0; p < t_np; p++)
        if ((t_np == 1 || p != t_np - 1) && (p % 2 ? -p : p) < (wi % 2 ? -wi : wi))
            wi = p;
    CHECK(ri.who == wi, "sel min int picked %d, expected %d", ri.who, wi);
    struct {
        float key;
        int who;
    } rf = {0.5f * (float)(t_me % 3), t_me};
    armci_msg_sel(&rf, sizeof(rf), "max", ARMCI_FLOAT, contribute);
    int wf = 0; /* the largest key, the lowest rank on ties */
    for (int p = 0; p < t_np; p++)
        if ((t_np == 1 || p != t_np - 1) && p % 3 > wf % 3)
            wf = p;
    CHECK(rf.who == wf, "sel max float picked %d, expected %d", rf.who, wf);
}

/* binary tree over everybody */
static void test_bintree(void)
{
    int r, up, l, rt;
    armci_msg_bintree(SCOPE_ALL, &r, &up, &l, &rt);
    CHECK(r == 0 && up == (t_me ? (t_me - 1) / 2 : -1) &&
              l == (2 * t_me + 1 < t_np ? 2 * t_me + 1 : -1),
          "bintree root %d up %d left %d", r, up, l);
}

/* address exchange */
static void test_exchange_address(void)
{
    void **ptrs = malloc((size_t)t_np * sizeof(void *));
    ptrs[t_me] = (void *)(long)(t_me * 4096 + 8);
    armci_exchange_address(ptrs, t_np);
    int badp = 0;
    for (int k = 0; k < t_np; k++)
        badp += ptrs[k] != (void *)(long)(k * 4096 + 8);
    CHECK(badp == 0, "exchange_address");
    free(ptrs);
}

/* group variants on the even processes */
static void test_even_group_variants(void)
{
    int nev = (t_np + 1) / 2, ev[8];
    for (int k = 0; k < nev; k++)
        ev[k] = 2 * k;
    ARMCI_Group g;
    ARMCI_Group_create(nev, ev, &g);
    if (t_me % 2 == 0) {
        double gx = 1.5;
        armci_msg_group_dgop(&gx, 1, "+", &g);
        CHECK(gx == 1.5 * nev, "group dgop %g", gx);
        long gl = t_me;
        armci_msg_group_lgop(&gl, 1, "max", &g);
        CHECK(gl == 2 * (nev - 1), "group lgop max %ld", gl);
        int gb = t_me == 0 ? 99 : 0;
        armci_msg_group_bcast_scope(SCOPE_ALL, &gb, sizeof(gb), 0, &g);
        CHECK(gb == 99, "group bcast");
        armci_msg_group_barrier(&g);
    }
    ARMCI_Group_free(&g);
}

/* The reductions of the case below on group @p gm, whose rank here is @p gme. */
static void parity_group_reductions(ARMCI_Group *gm, int gme)
{
    int gbad = 0, gdiffer = 0;
    for (int len = 1; len <= 10000; len = len == 1 ? 2000 : len + 8000) {
        double *v = malloc((size_t)len * sizeof(double)),
               *ref = malloc((size_t)len * sizeof(double));
        for (int k = 0; k < len; k++)
            v[k] = ref[k] = (gme == 0 ? 1e16 : 1.0) + k * 0.25 + t_me;
        armci_msg_group_dgop(v, len, "+", gm);
        MPI_Allreduce(MPI_IN_PLACE, ref, len, MPI_DOUBLE, MPI_SUM, gm->comm);
        double *lo = malloc((size_t)len * sizeof(double)),
               *hi = malloc((size_t)len * sizeof(double));
        MPI_Allreduce(v, lo, len, MPI_DOUBLE, MPI_MIN, gm->comm);
        MPI_Allreduce(v, hi, len, MPI_DOUBLE, MPI_MAX, gm->comm);
        for (int k = 0; k < len; k++) {
            gbad += fabs(v[k] - ref[k]) > 1e-6 * fabs(ref[k]);
            gdiffer += lo[k] != hi[k];
        }
        free(v);
        free(ref);
        free(lo);
        free(hi);
    }
    CHECK(gbad == 0, "group reductions against MPI: %d wrong", gbad);
    CHECK(gdiffer == 0, "group reductions: %d results differ within the group", gdiffer);
}

/* The broadcasts of the case below on group @p gm (@p gme: rank here, @p gsize: size). */
static void parity_group_bcasts(ARMCI_Group *gm, int gme, int gsize)
{
    int gbb = 0;
    for (int root = 0; root < gsize; root++) {
        long w = gme == root ? 1000 + ARMCI_Absolute_id(gm, root) : -1;
        armci_msg_group_bcast_scope(SCOPE_ALL, &w, sizeof(w), ARMCI_Absolute_id(gm, root), gm);
        gbb += w != 1000 + ARMCI_Absolute_id(gm, root);
        armci_msg_group_barrier(gm);
    }
    CHECK(gbb == 0, "group broadcasts from every member: %d wrong", gbb);
}

/* two groups at once, the even and the odd processes: reductions of 1, 2000 and 10 000
 * doubles (the last longer than point-to-point messages take) against MPI's on the
 * group's communicator, the same bits everywhere; broadcasts from every member;
 * barriers */
static void test_even_and_odd_groups_at_once(void)
{
    int nev = (t_np + 1) / 2, ev[8];
    for (int k = 0; k < nev; k++)
        ev[k] = 2 * k;
    int parity = t_me % 2, nodd = t_np / 2, odd[8];
    for (int k = 0; k < nodd; k++)
        odd[k] = 2 * k + 1;
    ARMCI_Group ge, go;
    ARMCI_Group_create(nev, ev, &ge);
    ARMCI_Group_create(nodd, odd, &go);
    ARMCI_Group *gm = parity ? &go : &ge;
    int gme, gsize;
    ARMCI_Group_rank(gm, &gme);
    ARMCI_Group_size(gm, &gsize);
    CHECK(gsize == (parity ? nodd : nev) && ARMCI_Absolute_id(gm, gme) == t_me,
          "group of my parity");
    parity_group_reductions(gm, gme);
    parity_group_bcasts(gm, gme, gsize);
    ARMCI_Group_free(&ge);
    ARMCI_Group_free(&go);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    test_me_and_nproc();
    test_arithmetic_reductions_match_mpi();
    test_logical_and_bitwise_reductions_match_mpi();
    test_flags_truth_table();
    test_group_logical_reductions();
    test_or_of_integers();
    test_long_vector_sums();
    test_back_to_back_reductions();
    test_gop_scope_all_and_node();
    test_reduce_to_process_0();
    test_bcast_and_brdcst();
    test_bcast_from_every_root();
    test_ring_messages();
    test_rcvany_at_process_0();
    test_sel_double_keys();
    test_sel_long_keys_below_double_precision();
    test_sel_int_and_float_keys();
    test_bintree();
    test_exchange_address();
    test_even_group_variants();
    test_even_and_odd_groups_at_once();
    armci_msg_barrier();
    return t_finish("t_msg");
}
