/* SPDX-License-Identifier: BSD-3-Clause */
/* I/O-vector put, get and accumulate: several descriptor groups of scattered segments,
 * blocking and nonblocking, small (packed) and large (direct) segments; 50 descriptors of
 * different sizes to myself and a neighbour read straight back; a handle per process in
 * flight at once; accumulate of all six types from every process into one place. Each case is
 * a static test_* function; main runs them in order on every process (they hold collective
 * calls). Long vectors of equal blocks travel as run records. */
#include <string.h>

#include "tester.h"

#define WORDS 12288

/* Element @p i of an accumulate area of ARMCI_ACC_* type @p t, as (re, im): im is 0 for
 * the real types. Every value used below is a small integer, exact in every type. */
static const int acc_size[6] = {sizeof(int),    sizeof(long),      sizeof(float),
                                sizeof(double), 2 * sizeof(float), 2 * sizeof(double)};

static void acc_set(int t, void *buf, int i, long re, long im)
{
    switch (t) {
    case ARMCI_ACC_INT:
        ((int *)buf)[i] = (int)re;
        break;
    case ARMCI_ACC_LNG:
        ((long *)buf)[i] = re;
        break;
    case ARMCI_ACC_FLT:
        ((float *)buf)[i] = (float)re;
        break;
    case ARMCI_ACC_DBL:
        ((double *)buf)[i] = (double)re;
        break;
    case ARMCI_ACC_CPL:
        ((float *)buf)[2 * i] = (float)re;
        ((float *)buf)[2 * i + 1] = (float)im;
        break;
    default:
        ((double *)buf)[2 * i] = (double)re;
        ((double *)buf)[2 * i + 1] = (double)im;
    }
}

static int acc_is(int t, const void *buf, int i, long re, long im)
{
    switch (t) {
    case ARMCI_ACC_INT:
        return ((const int *)buf)[i] == (int)re;
    case ARMCI_ACC_LNG:
        return ((const long *)buf)[i] == re;
    case ARMCI_ACC_FLT:
        return ((const float *)buf)[i] == (float)re;
    case ARMCI_ACC_DBL:
        return ((const double *)buf)[i] == (double)re;
    case ARMCI_ACC_CPL:
        return ((const float *)buf)[2 * i] == (float)re &&
               ((const float *)buf)[2 * i + 1] == (float)im;
    default:
        return ((const double *)buf)[2 * i] == (double)re &&
               ((const double *)buf)[2 * i + 1] == (double)im;
    }
}

/* What the cases share: the ARMCI_Malloc'd blocks, WORDS doubles per process in every
 * process's; two local buffers; the neighbour the first cases write to, and this
 * process's slot in the neighbour's block. */
static void **base;
static double *loc, *back, *slot;
static int peer;

/* A vector put, get or accumulate to the neighbour, blocking (@p nb 0) or with a handle
 * waited on at once (@p nb 1). */
static void putv(armci_giov_t *iov, int n, int nb)
{
    if (!nb) {
        ARMCI_PutV(iov, n, peer);
    } else {
        armci_hdl_t h;
        ARMCI_NbPutV(iov, n, peer, &h);
        ARMCI_Wait(&h);
    }
}

static void getv(armci_giov_t *iov, int n, int nb)
{
    if (!nb) {
        ARMCI_GetV(iov, n, peer);
    } else {
        armci_hdl_t h;
        ARMCI_NbGetV(iov, n, peer, &h);
        ARMCI_Wait(&h);
    }
}

static void accv(double *scale, armci_giov_t *iov, int n, int nb)
{
    if (!nb) {
        ARMCI_AccV(ARMCI_ACC_DBL, scale, iov, n, peer);
    } else {
        armci_hdl_t h;
        ARMCI_NbAccV(ARMCI_ACC_DBL, scale, iov, n, peer, &h);
        ARMCI_Wait(&h);
    }
}

/* Read back through a vector get into fresh places what went to @p d0 (500 single
 * doubles) and @p d1 (3 runs of 2560), and compare with what was sent. */
static int two_groups_read_back(void **d0, void **d1, int mode)
{
    memset(back, 0, WORDS * sizeof(double));
    void *gs0[500], *gd0[500], *gs1[3], *gd1[3];
    for (int i = 0; i < 500; i++) {
        gs0[i] = d0[i];
        gd0[i] = &back[i];
    }
    for (int k = 0; k < 3; k++) {
        gs1[k] = d1[k];
        gd1[k] = &back[600 + k * 2560];
    }
    armci_giov_t giov[2] = {{gs0, gd0, sizeof(double), 500}, {gs1, gd1, 2560 * sizeof(double), 3}};
    getv(giov, 2, mode);
    int bad = 0;
    /* words i*7 % 3500 may repeat: the last write wins (i ascending) */
    for (int i = 0; i < 500; i++) {
        int last = i;
        for (int j = i + 1; j < 500; j++)
            if ((j * 7) % 3500 == (i * 7) % 3500)
                last = j;
        bad += back[i] != loc[last];
    }
    for (int j = 0; j < 3 * 2560; j++)
        bad += back[600 + j] != loc[600 + j];
    return bad;
}

/* Two descriptor groups of scattered segments, put and read back, blocking (@p mode 0) or
 * nonblocking (1). group 0: 500 single doubles at every 7th word; group 1: 3 runs of 2560
 * doubles */
static void test_vector_put_get_two_groups(int mode)
{
    void *s0[500], *d0[500], *s1[3], *d1[3];
    for (int i = 0; i < 500; i++) {
        loc[i] = t_me * 1000.0 + i + mode;
        s0[i] = &loc[i];
        d0[i] = &slot[(i * 7) % 3500];
    }
    for (int k = 0; k < 3; k++) {
        for (int j = 0; j < 2560; j++)
            loc[600 + k * 2560 + j] = -(t_me * 1e5 + k * 1e4 + j);
        s1[k] = &loc[600 + k * 2560];
        d1[k] = &slot[3500 + k * 2600]; /* 2560 doubles = 20 KiB: direct */
    }
    armci_giov_t iov[2] = {{s0, d0, sizeof(double), 500}, {s1, d1, 2560 * sizeof(double), 3}};
    putv(iov, 2, mode);
    int bad = two_groups_read_back(d0, d1, mode);
    CHECK(bad == 0, "vector put/get mode %d: %d wrong", mode, bad);
}

/* accumulate: slot[0..99] = 1.0 then += 3 * (i + me) through a vector of 100, blocking
 * (@p mode 0) or nonblocking (1) */
static void test_vector_acc_reversed(int mode)
{
    for (int i = 0; i < 100; i++)
        back[i] = 1.0;
    ARMCI_Put(back, slot, 100 * sizeof(double), peer);
    void *as[100], *ad[100];
    for (int i = 0; i < 100; i++) {
        loc[i] = i + t_me;
        as[i] = &loc[i];
        ad[i] = &slot[99 - i];
    }
    armci_giov_t aiov = {as, ad, sizeof(double), 100};
    double three = 3.0;
    accv(&three, &aiov, 1, mode);
    ARMCI_Get(slot, back, 100 * sizeof(double), peer);
    int bad = 0;
    for (int i = 0; i < 100; i++)
        bad += back[99 - i] != 1.0 + 3.0 * (i + t_me);
    CHECK(bad == 0, "vector accumulate mode %d: %d wrong", mode, bad);
}

enum { NDESC = 50, SLOTB = 40000 };

/* The buffers of the descriptors of different sizes: the source, where the vector get
 * and the contiguous get of the whole slot land, the background; the segments of the
 * put, NDESC descriptors of them, n in all, ending at toff at the target. */
typedef struct {
    unsigned char *ls, *lg, *whole, *fill;
    void *ps[3 * NDESC], *pd[3 * NDESC];
    armci_giov_t dsc[NDESC];
    int n;
    size_t toff;
} sizes_t;

/* The put's descriptors into @p slotb: target offsets climb, one byte apart; sources are
 * taken from the far end */
static void sizes_describe(sizes_t *z, unsigned char *slotb)
{
    size_t toff = 0, soff = SLOTB;
    int n = 0;
    for (int d = 0; d < NDESC; d++) {
        int bytes = 8 + 13 * d, len = 1 + d % 3;
        for (int k = 0; k < len; k++, n++) {
            soff -= (size_t)bytes;
            z->ps[n] = z->ls + soff;
            z->pd[n] = slotb + toff;
            toff += (size_t)bytes + 1;
        }
        z->dsc[d] = (armci_giov_t){&z->ps[n - len], &z->pd[n - len], bytes, len};
    }
    z->n = n;
    z->toff = toff;
}

/* the same shape back, into lg at the sources' offsets; then the whole slot */
static int sizes_read_back(sizes_t *z, unsigned char *slotb, int tg)
{
    void *gs[3 * NDESC], *gd[3 * NDESC];
    armci_giov_t gdsc[NDESC];
    for (int i = 0; i < z->n; i++) {
        gs[i] = z->pd[i];
        gd[i] = z->lg + ((unsigned char *)z->ps[i] - z->ls);
    }
    for (int d = 0, i = 0; d < NDESC; i += z->dsc[d].ptr_array_len, d++)
        gdsc[d] = (armci_giov_t){&gs[i], &gd[i], z->dsc[d].bytes, z->dsc[d].ptr_array_len};
    int rcbad = ARMCI_GetV(gdsc, NDESC, tg) != 0;
    rcbad += ARMCI_Get(slotb, z->whole, SLOTB, tg) != 0;
    return rcbad;
}

/* Compare what came back with what was sent; count the bytes outside the segments that
 * lost the background in @p gap_p. */
static int sizes_compare(const sizes_t *z, unsigned char *slotb, int *gap_p)
{
    int bad = 0, gap = 0;
    for (int i = 0; i < z->n; i++) {
        size_t so = (size_t)((unsigned char *)z->ps[i] - z->ls);
        size_t to = (size_t)((unsigned char *)z->pd[i] - slotb);
        int bytes = 0;
        for (int d = 0, c = 0; d < NDESC; c += z->dsc[d].ptr_array_len, d++)
            if (i < c + z->dsc[d].ptr_array_len) {
                bytes = z->dsc[d].bytes;
                break;
            }
        bad += memcmp(z->lg + so, z->ls + so, (size_t)bytes) != 0;
        bad += memcmp(z->whole + to, z->ls + so, (size_t)bytes) != 0;
        gap += z->whole[to + (size_t)bytes] != 0x5a; /* the byte after each segment */
    }
    for (size_t i = z->toff; i < SLOTB; i++)
        gap += z->whole[i] != 0x5a;
    *gap_p = gap;
    return bad;
}

/* One pass of the case below: to myself (@p pass 0) or to my neighbour (1). */
static void sizes_pass(sizes_t *z, void **vb, int pass)
{
    int tg = pass == 0 ? t_me : peer;
    unsigned char *slotb = (unsigned char *)vb[tg] + (size_t)t_me * SLOTB;
    for (int i = 0; i < SLOTB; i++)
        z->ls[i] = (unsigned char)(i * 31 + t_me * 7 + pass + 1);
    memset(z->lg, 0, SLOTB);
    int rcbad = ARMCI_Put(z->fill, slotb, SLOTB, tg) != 0;
    sizes_describe(z, slotb);
    rcbad += ARMCI_PutV(z->dsc, NDESC, tg) != 0;
    rcbad += sizes_read_back(z, slotb, tg);
    CHECK(rcbad == 0, "%s: vector put/get of %d descriptors: non-zero return codes",
          pass == 0 ? "self" : "neighbour", NDESC);
    int gap, bad = sizes_compare(z, slotb, &gap);
    CHECK(bad == 0,
          "%s: %d of %d segments of %d descriptors of different sizes wrong "
          "when read straight back",
          pass == 0 ? "self" : "neighbour", bad, z->n, NDESC);
    CHECK(gap == 0, "%s: vector put wrote %d bytes outside its segments",
          pass == 0 ? "self" : "neighbour", gap);
}

/* Many descriptors of different sizes, to myself and to my neighbour, read back at
 * once: Global Arrays' armci/testing/test.c:1090-1180 (test_vec_small) puts a
 * triangular patch as up to 50 descriptors, each with its own bytes value (test.c:1119,
 * "each element different in size"), to process nproc-1-me, which is itself for the
 * middle process, and gets it back with ARMCI_GetV straight after, with no fence
 * (test.c:1162-1166: operations to one process are ordered). Here: 50 descriptors of
 * 8 + 13 d bytes (unaligned sizes), 1 to 3 segments each, one byte apart at the target
 * over a prefilled slot; a vector get of the same shape and a contiguous get of the
 * whole slot follow without a fence; every call returns 0 (test.c:1133, 1163). */
static void test_descriptors_of_different_sizes(void)
{
    ARMCI_Barrier(); /* every process past the two-group cases before any of this */
    void **vb = malloc((size_t)t_np * sizeof(void *));
    ARMCI_Malloc(vb, (armci_size_t)SLOTB * (armci_size_t)t_np);
    sizes_t z;
    z.ls = malloc(SLOTB);
    z.lg = malloc(SLOTB);
    z.whole = malloc(SLOTB);
    z.fill = malloc(SLOTB);
    memset(z.fill, 0x5a, SLOTB);
    for (int pass = 0; pass < 2; pass++)
        sizes_pass(&z, vb, pass);
    ARMCI_Barrier();
    ARMCI_Free(vb[t_me]);
    free(vb);
    free(z.ls);
    free(z.lg);
    free(z.whole);
    free(z.fill);
}

enum { NG = 9, NP = 10, EL = 20, PER = NG * NP * EL };

/* The state of the handles-in-flight case: the block (mine: this process's part), the
 * separately malloc'd source segments, the descriptors' address arrays, a handle per
 * process, and where the gets land. */
static struct {
    void **vb;
    double *mine, **seg, *snap;
    void **ps, **pd;
    armci_hdl_t *hd;
} fl;

/* Describe in @p dsc (NG descriptors) the transfer to or from process @p tg: the
 * gets (@p put 0) read my slot of tg's block into snap, the puts (1) write seg there. */
static void inflight_describe(armci_giov_t *dsc, int tg, int put)
{
    for (int j = 0; j < NG; j++) {
        for (int s2 = 0; s2 < NP; s2++) {
            int i = (tg * NG + j) * NP + s2;
            double *remote = (double *)fl.vb[tg] + (size_t)t_me * PER + (s2 * NG + j) * EL;
            if (!put) {
                fl.ps[i] = remote;
                fl.pd[i] = fl.snap + (size_t)tg * PER + (j * NP + s2) * EL;
            } else {
                fl.ps[i] = fl.seg[i];
                fl.pd[i] = remote;
            }
        }
        dsc[j] = (armci_giov_t){&fl.ps[(tg * NG + j) * NP], &fl.pd[(tg * NG + j) * NP],
                                EL * (int)sizeof(double), NP};
    }
}

/* One handle per other process in flight at once, every descriptor array refilled while
 * the calls before are in flight; then wait for all. @return the non-zero return codes. */
static int inflight_issue(int put)
{
    armci_giov_t dsc[NG];
    int rcbad = 0;
    for (int k = 1; k < t_np; k++) {
        int tg = (t_me + k) % t_np;
        inflight_describe(dsc, tg, put);
        ARMCI_INIT_HANDLE(&fl.hd[tg]);
        if (!put)
            rcbad += ARMCI_NbGetV(dsc, NG, tg, &fl.hd[tg]) != 0;
        else
            rcbad += ARMCI_NbPutV(dsc, NG, tg, &fl.hd[tg]) != 0;
    }
    for (int k = 1; k < t_np; k++)
        rcbad += ARMCI_Wait(&fl.hd[(t_me + k) % t_np]) != 0;
    return rcbad;
}

/* the doubles the gets brought that are not what every process had before any put */
static int inflight_gets_wrong(void)
{
    int bad = 0;
    for (int k = 1; k < t_np; k++) {
        int tg = (t_me + k) % t_np;
        for (int j = 0; j < NG; j++)
            for (int s2 = 0; s2 < NP; s2++)
                for (int e = 0; e < EL; e++)
                    bad += fl.snap[(size_t)tg * PER + (j * NP + s2) * EL + e] !=
                           -1.0 - (t_me * PER + (s2 * NG + j) * EL + e);
    }
    return bad;
}

/* the doubles of my block that are not what the puts of every process should have left */
static int inflight_puts_wrong(void)
{
    int bad = 0;
    for (int src = 0; src < t_np; src++) {
        for (int j = 0; j < NG; j++)
            for (int s2 = 0; s2 < NP; s2++)
                for (int e = 0; e < EL; e++) {
                    double got = fl.mine[(size_t)src * PER + (s2 * NG + j) * EL + e];
                    double want = src == t_me ? -1.0 - (src * PER + (s2 * NG + j) * EL + e)
                                              : src * 1e6 + ((t_me * NG + j) * NP + s2) * 100.0 + e;
                    bad += got != want;
                }
    }
    return bad;
}

static void inflight_setup(void)
{
    fl.vb = malloc((size_t)t_np * sizeof(void *));
    ARMCI_Malloc(fl.vb, (armci_size_t)(PER * sizeof(double)) * (armci_size_t)t_np);
    fl.mine = fl.vb[t_me];
    for (int i = 0; i < PER * t_np; i++)
        fl.mine[i] = -1.0 - i; /* gets read the slots of this; puts overwrite them */
    fl.seg = malloc((size_t)t_np * NG * NP * sizeof(double *));
    for (int i = 0; i < t_np * NG * NP; i++) {
        fl.seg[i] = malloc(EL * sizeof(double));
        for (int e = 0; e < EL; e++)
            fl.seg[i][e] = t_me * 1e6 + i * 100.0 + e; /* i: target, desc, segment */
    }
    fl.ps = malloc((size_t)t_np * NG * NP * sizeof(void *));
    fl.pd = malloc((size_t)t_np * NG * NP * sizeof(void *));
    fl.hd = malloc((size_t)t_np * sizeof(armci_hdl_t));
}

static void inflight_teardown(void)
{
    for (int i = 0; i < t_np * NG * NP; i++)
        free(fl.seg[i]);
    free(fl.seg);
    free(fl.ps);
    free(fl.pd);
    free(fl.hd);
    free(fl.snap);
    ARMCI_Free(fl.vb[t_me]);
    free(fl.vb);
}

/* One nonblocking vector put, then get, per other process, all in flight at once:
 * Global Arrays' armci/testing/test.c:833-878 (test_vec_small's first part) issues
 * ARMCI_NbPutV of 9 descriptors of 10 segments of 20 doubles to every other process,
 * refilling the one descriptor array for the next process while the previous calls
 * are in flight, from separately malloc'd source segments (test.c:781-784), waits
 * for them all, then does the same with ARMCI_NbGetV; each call returns 0. */
static void test_vector_handles_in_flight(void)
{
    inflight_setup();
    ARMCI_Barrier();
    /* the gets below read the values every process had before any put arrived: the
     * slots written here are those the put phase will overwrite, so read first */
    fl.snap = malloc((size_t)t_np * PER * sizeof(double));
    int rcbad = inflight_issue(0);
    int bad = inflight_gets_wrong();
    CHECK(bad == 0, "%d handles of vector gets in flight at once: %d doubles wrong", t_np - 1, bad);
    ARMCI_Barrier();
    rcbad += inflight_issue(1);
    CHECK(rcbad == 0, "vector puts/gets with handles in flight: non-zero return codes");
    ARMCI_Barrier();
    bad = inflight_puts_wrong();
    CHECK(bad == 0,
          "vector puts from %d processes with handles in flight: %d doubles "
          "wrong",
          t_np - 1, bad);
    ARMCI_Barrier();
    inflight_teardown();
}

enum { NE = 64 };

/* the scale of each type: complex scales have an imaginary part */
static const long sre[6] = {3, 3, 2, 2, 2, 2}, sim[6] = {0, 0, 0, 0, 1, -1};

/* Accumulate type @p t from this process into the area of process 0's block @p ab0,
 * blocking or nonblocking by type and rank. @return the non-zero return codes. */
static int acc_type_into_process0(int t, char *ab0)
{
    char src[NE * 16];
    for (int i = 0; i < NE; i++)
        acc_set(t, src, i, i + 1 + t_me, t >= ARMCI_ACC_CPL ? t_me - i : 0);
    if (t == ARMCI_ACC_LNG)
        for (int i = 0; i < NE; i++)
            ((long *)src)[i] <<= 33; /* values that need all 64 bits */
    char scale[16];
    acc_set(t, scale, 0, sre[t], sim[t]);
    char *area = ab0 + t * NE * 16;
    int es = acc_size[t], rcbad = 0;
    void *s0[16], *d0[16], *s1[2], *d1[2];
    for (int i = 0; i < 16; i++) {
        s0[i] = src + (size_t)(2 * i) * es;
        d0[i] = area + (size_t)(2 * (15 - i)) * es;
    }
    for (int r = 0; r < 2; r++) {
        s1[r] = src + (size_t)(32 + 16 * r) * es;
        d1[r] = area + (size_t)(32 + 16 * r) * es;
    }
    armci_giov_t iov[2] = {{s0, d0, es, 16}, {s1, d1, 16 * es, 2}};
    if ((t + t_me) % 2 == 0) {
        rcbad += ARMCI_AccV(t, scale, iov, 2, 0) != 0;
    } else {
        armci_hdl_t h;
        ARMCI_INIT_HANDLE(&h);
        rcbad += ARMCI_NbAccV(t, scale, iov, 2, 0, &h) != 0;
        rcbad += ARMCI_Wait(&h) != 0;
    }
    return rcbad;
}

/* At process 0: the elements of type @p t's area in @p ab0 that are wrong. */
static int acc_type_wrong(int t, const char *ab0)
{
    int bad = 0;
    for (int i = 0; i < NE; i++) {
        /* element i of the area received source element s from every process */
        int hit = i >= 32 || i % 2 == 0;
        int si = i >= 32 ? i : 2 * (15 - i / 2);
        long re = 10L * i, im = -i;
        for (int m = 0; hit && m < t_np; m++) {
            long xr = si + 1 + m, xi = t >= ARMCI_ACC_CPL ? m - si : 0;
            if (t == ARMCI_ACC_LNG)
                xr <<= 33;
            re += sre[t] * xr - sim[t] * xi;
            im += sre[t] * xi + sim[t] * xr;
        }
        if (t < ARMCI_ACC_CPL)
            im = 0;
        bad += !acc_is(t, ab0 + t * NE * 16, i, re, im);
    }
    return bad;
}

/* Vector accumulate of every ARMCI_ACC_* type, all processes into the same elements
 * of process 0, blocking and nonblocking: Global Arrays' armci/testing/test.c:1258
 * checks ARMCI_AccV's return code (ARMCI_ACC_DBL), and GA's scatter-accumulate,
 * global/src/onesided.c:2382-2390, calls ARMCI_AccV with each of the six types.
 * One descriptor of 16 single elements (every other one of the first 32, in reverse
 * order) and one of 2 runs of 16; the odd elements below 32 must stay as they were.
 * Complex scales have an imaginary part, so the product is checked as complex. */
static void test_vector_acc_every_type_into_one_place(void)
{
    void **ab = malloc((size_t)t_np * sizeof(void *));
    ARMCI_Malloc(ab, (armci_size_t)(6 * NE * 16));
    for (int t = 0; t < 6; t++)
        for (int i = 0; i < NE; i++)
            acc_set(t, (char *)ab[t_me] + t * NE * 16, i, 10L * i, -i);
    ARMCI_Barrier();
    int rcbad = 0;
    for (int t = 0; t < 6; t++)
        rcbad += acc_type_into_process0(t, ab[0]);
    CHECK(rcbad == 0, "vector accumulates: non-zero return codes");
    ARMCI_Barrier();
    if (t_me == 0) {
        for (int t = 0; t < 6; t++) {
            int bad = acc_type_wrong(t, ab[0]);
            CHECK(bad == 0,
                  "vector accumulate of type %d from %d processes: %d of %d "
                  "elements wrong",
                  t, t_np, bad, NE);
        }
    }
    ARMCI_Barrier();
    ARMCI_Free(ab[t_me]);
    free(ab);
}

/* One vector entry whose blocks alternate between two allocations of the neighbour: no
 * one allocation holds them all, so each block is checked on its own, and each must land
 * where it was sent (put) and come back from where it is (get). */
static void test_one_entry_over_two_allocations(void)
{
    int p = peer;
    void **a = malloc((size_t)t_np * sizeof(void *)), **b = malloc((size_t)t_np * sizeof(void *));
    ARMCI_Malloc(a, 64 * sizeof(long));
    ARMCI_Malloc(b, 64 * sizeof(long));
    memset(a[t_me], 0, 64 * sizeof(long));
    memset(b[t_me], 0, 64 * sizeof(long));
    ARMCI_Barrier();
    long src[8], got[8] = {0};
    void *s[8], *d[8], *gs[8], *gd[8];
    for (int i = 0; i < 8; i++) {
        src[i] = 1000L * (t_me + 1) + i;
        s[i] = &src[i];
        d[i] = (long *)(i % 2 ? b[p] : a[p]) + 3 * i;
        gs[i] = d[i];
        gd[i] = &got[7 - i];
    }
    armci_giov_t put = {s, d, sizeof(long), 8}, get = {gs, gd, sizeof(long), 8};
    ARMCI_PutV(&put, 1, p);
    ARMCI_GetV(&get, 1, p);
    int bad = 0;
    for (int i = 0; i < 8; i++)
        bad += got[7 - i] != 1000L * (t_me + 1) + i;
    CHECK(bad == 0, "PutV then GetV over two allocations of process %d: %d of 8 wrong", p, bad);
    ARMCI_Barrier(); /* my neighbour's blocks in my allocations, at the places it chose */
    int from = (t_me + t_np - 1) % t_np, seen = 0;
    for (int i = 0; i < 8; i++)
        seen += ((long *)(i % 2 ? b[t_me] : a[t_me]))[3 * i] == 1000L * (from + 1) + i;
    CHECK(seen == 8, "blocks of process %d in my two allocations: %d of 8 arrived", from, seen);
    ARMCI_Free(a[t_me]);
    ARMCI_Free(b[t_me]);
    free(a);
    free(b);
}

/* Long vectors of equal blocks, which travel over the fabric as run records (a block's
 * address an offset from the run's first): 9001 blocks (odd, more than one message holds)
 * of 1, 5, 8, 24 and 64 bytes at places scattered both ways through the neighbour's area;
 * put, read back in reverse order, checked here and where they landed; then accumulated
 * 8-byte blocks. The expected bytes are a formula of the block, byte and sender. */
#define RUN_N      9001
#define RUN_STRIDE 64

static unsigned char run_byte(int k, int j, int from, int len)
{
    return (unsigned char)(k * 31 + j * 7 + from * 13 + len);
}

static int run_place(int k)
{
    return (int)(((long)k * 7919) % RUN_N); /* a permutation: 7919 and 9001 are prime */
}

static void test_vector_long_runs(void)
{
    static const int lens[] = {1, 5, 8, 24, 64};
    size_t area = (size_t)RUN_N * RUN_STRIDE;
    void **a = malloc((size_t)t_np * sizeof(void *));
    ARMCI_Malloc(a, (armci_size_t)(area * (size_t)t_np));
    unsigned char *src = malloc(area), *got = malloc(area);
    void **ls = malloc(RUN_N * sizeof(void *)), **rs = malloc(RUN_N * sizeof(void *));
    unsigned char *mine = (unsigned char *)a[peer] + area * (size_t)t_me;
    int from = (t_me + t_np - 1) % t_np;
    for (size_t li = 0; li < sizeof(lens) / sizeof(lens[0]); li++) {
        int len = lens[li];
        for (int k = 0; k < RUN_N; k++)
            for (int j = 0; j < len; j++)
                src[(size_t)k * len + j] = run_byte(k, j, t_me, len);
        for (int k = 0; k < RUN_N; k++) {
            ls[k] = src + (size_t)k * len;
            rs[k] = mine + (size_t)run_place(k) * RUN_STRIDE;
        }
        armci_giov_t put = {ls, rs, len, RUN_N};
        ARMCI_PutV(&put, 1, peer);
        for (int k = 0; k < RUN_N; k++)
            ls[k] = got + (size_t)(RUN_N - 1 - k) * len;
        memset(got, 0, area);
        armci_giov_t get = {rs, ls, len, RUN_N};
        getv(&get, 1, 1);
        int bad = 0;
        for (int k = 0; k < RUN_N; k++)
            for (int j = 0; j < len; j++)
                bad += got[(size_t)(RUN_N - 1 - k) * len + j] != run_byte(k, j, t_me, len);
        CHECK(bad == 0, "%d blocks of %d bytes put and read back from process %d: %d bytes wrong",
              RUN_N, len, peer, bad);
        ARMCI_Barrier(); /* what my neighbour put into my area */
        const unsigned char *in = (const unsigned char *)a[t_me] + area * (size_t)from;
        bad = 0;
        for (int k = 0; k < RUN_N; k++)
            for (int j = 0; j < len; j++)
                bad += in[(size_t)run_place(k) * RUN_STRIDE + j] != run_byte(k, j, from, len);
        CHECK(bad == 0, "%d blocks of %d bytes from process %d where they landed: %d bytes wrong",
              RUN_N, len, from, bad);
        ARMCI_Barrier();
    }
    /* accumulate: 2 * (k + 1) into zeroed doubles */
    memset(a[t_me], 0, area * (size_t)t_np);
    ARMCI_Barrier();
    double *vals = (double *)src, scale = 2.0;
    for (int k = 0; k < RUN_N; k++) {
        vals[k] = k + 1;
        ls[k] = &vals[k];
        rs[k] = mine + (size_t)run_place(k) * RUN_STRIDE;
    }
    armci_giov_t acc = {ls, rs, sizeof(double), RUN_N};
    accv(&scale, &acc, 1, 0);
    ARMCI_Barrier();
    const unsigned char *in = (const unsigned char *)a[t_me] + area * (size_t)from;
    int bad = 0;
    for (int k = 0; k < RUN_N; k++) {
        double v;
        memcpy(&v, in + (size_t)run_place(k) * RUN_STRIDE, sizeof(v));
        bad += v != 2.0 * (k + 1);
    }
    CHECK(bad == 0, "%d doubles accumulated by process %d: %d wrong", RUN_N, from, bad);
    ARMCI_Barrier();
    ARMCI_Free(a[t_me]);
    free(a);
    free(src);
    free(got);
    free(ls);
    free(rs);
}

static void setup(void)
{
    base = malloc((size_t)t_np * sizeof(void *));
    ARMCI_Malloc(base, (armci_size_t)(WORDS * sizeof(double) * (size_t)t_np));
    loc = malloc(WORDS * sizeof(double));
    back = malloc(WORDS * sizeof(double));
    peer = (t_me + 1) % t_np;
    slot = (double *)base[peer] + (size_t)t_me * WORDS; /* mine in peer's block */
}

static void teardown(void)
{
    ARMCI_Barrier();
    ARMCI_Free(base[t_me]);
    free(loc);
    free(back);
    free(base);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    setup();
    test_vector_put_get_two_groups(0);
    test_vector_acc_reversed(0);
    test_vector_put_get_two_groups(1);
    test_vector_acc_reversed(1);
    test_descriptors_of_different_sizes();
    test_vector_handles_in_flight();
    test_vector_acc_every_type_into_one_place();
    test_one_entry_over_two_allocations();
    test_vector_long_runs();
    teardown();
    return t_finish("t_vector");
}
