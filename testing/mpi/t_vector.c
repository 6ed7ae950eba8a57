/* I/O-vector put, get and accumulate: several descriptor groups of scattered segments,
 * blocking and nonblocking, small (packed) and large (direct) segments; 50 descriptors of
 * different sizes to myself and a neighbour read straight back; a handle per process in
 * flight at once; accumulate of all six types from every process into one place. */
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

/* One vector entry whose blocks alternate between two allocations of the neighbour: no
 * one allocation holds them all, so each block is checked on its own, and each must land
 * where it was sent (put) and come back from where it is (get). */
static void two_allocations(int p)
{
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

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    void **base = malloc((size_t)t_np * sizeof(void *));
    ARMCI_Malloc(base, (armci_size_t)(WORDS * sizeof(double) * (size_t)t_np));
    double *loc = malloc(WORDS * sizeof(double)), *back = malloc(WORDS * sizeof(double));
    int p = (t_me + 1) % t_np;
    double *slot = (double *)base[p] + (size_t)t_me * WORDS; /* mine in p's block */

    for (int mode = 0; mode < 2; mode++) {
        /* group 0: 500 single doubles at every 7th word; group 1: 3 runs of 2560 doubles */
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
        if (mode == 0) {
            ARMCI_PutV(iov, 2, p);
        } else {
            armci_hdl_t h;
            ARMCI_NbPutV(iov, 2, p, &h);
            ARMCI_Wait(&h);
        }
        /* read it back through a vector get into fresh places */
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
        armci_giov_t giov[2] = {{gs0, gd0, sizeof(double), 500},
                                {gs1, gd1, 2560 * sizeof(double), 3}};
        if (mode == 0) {
            ARMCI_GetV(giov, 2, p);
        } else {
            armci_hdl_t h;
            ARMCI_NbGetV(giov, 2, p, &h);
            ARMCI_Wait(&h);
        }
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
        CHECK(bad == 0, "vector put/get mode %d: %d wrong", mode, bad);

        /* accumulate: slot[0..99] = 1.0 then += 3 * (i + me) through a vector of 100 */
        for (int i = 0; i < 100; i++)
            back[i] = 1.0;
        ARMCI_Put(back, slot, 100 * sizeof(double), p);
        void *as[100], *ad[100];
        for (int i = 0; i < 100; i++) {
            loc[i] = i + t_me;
            as[i] = &loc[i];
            ad[i] = &slot[99 - i];
        }
        armci_giov_t aiov = {as, ad, sizeof(double), 100};
        double three = 3.0;
        if (mode == 0) {
            ARMCI_AccV(ARMCI_ACC_DBL, &three, &aiov, 1, p);
        } else {
            armci_hdl_t h;
            ARMCI_NbAccV(ARMCI_ACC_DBL, &three, &aiov, 1, p, &h);
            ARMCI_Wait(&h);
        }
        ARMCI_Get(slot, back, 100 * sizeof(double), p);
        bad = 0;
        for (int i = 0; i < 100; i++)
            bad += back[99 - i] != 1.0 + 3.0 * (i + t_me);
        CHECK(bad == 0, "vector accumulate mode %d: %d wrong", mode, bad);
    }
    ARMCI_Barrier();

    /* Many descriptors of different sizes, to myself and to my neighbour, read back at
     * once: Global Arrays' armci/testing/test.c:1090-1180 (test_vec_small) puts a
     * triangular patch as up to 50 descriptors, each with its own bytes value (test.c:1119,
     * "each element different in size"), to process nproc-1-me, which is itself for the
     * middle process, and gets it back with ARMCI_GetV straight after, with no fence
     * (test.c:1162-1166: operations to one process are ordered). Here: 50 descriptors of
     * 8 + 13 d bytes (unaligned sizes), 1 to 3 segments each, one byte apart at the target
     * over a prefilled slot; a vector get of the same shape and a contiguous get of the
     * whole slot follow without a fence; every call returns 0 (test.c:1133, 1163). */
    {
        enum { NDESC = 50, SLOTB = 40000 };
        void **vb = malloc((size_t)t_np * sizeof(void *));
        ARMCI_Malloc(vb, (armci_size_t)SLOTB * (armci_size_t)t_np);
        unsigned char *ls = malloc(SLOTB), *lg = malloc(SLOTB), *whole = malloc(SLOTB);
        unsigned char *fill = malloc(SLOTB);
        memset(fill, 0x5a, SLOTB);
        void *ps[3 * NDESC], *pd[3 * NDESC];
        armci_giov_t dsc[NDESC], gdsc[NDESC];
        for (int pass = 0; pass < 2; pass++) {
            int tg = pass == 0 ? t_me : p;
            unsigned char *slotb = (unsigned char *)vb[tg] + (size_t)t_me * SLOTB;
            for (int i = 0; i < SLOTB; i++)
                ls[i] = (unsigned char)(i * 31 + t_me * 7 + pass + 1);
            memset(lg, 0, SLOTB);
            int rcbad = ARMCI_Put(fill, slotb, SLOTB, tg) != 0;
            /* target offsets climb, one byte apart; sources are taken from the far end */
            size_t toff = 0, soff = SLOTB;
            int n = 0;
            for (int d = 0; d < NDESC; d++) {
                int bytes = 8 + 13 * d, len = 1 + d % 3;
                for (int k = 0; k < len; k++, n++) {
                    soff -= (size_t)bytes;
                    ps[n] = ls + soff;
                    pd[n] = slotb + toff;
                    toff += (size_t)bytes + 1;
                }
                dsc[d] = (armci_giov_t){&ps[n - len], &pd[n - len], bytes, len};
            }
            rcbad += ARMCI_PutV(dsc, NDESC, tg) != 0;
            /* the same shape back, into lg at the sources' offsets */
            void *gs[3 * NDESC], *gd[3 * NDESC];
            for (int i = 0; i < n; i++) {
                gs[i] = pd[i];
                gd[i] = lg + ((unsigned char *)ps[i] - ls);
            }
            for (int d = 0, i = 0; d < NDESC; i += dsc[d].ptr_array_len, d++)
                gdsc[d] = (armci_giov_t){&gs[i], &gd[i], dsc[d].bytes, dsc[d].ptr_array_len};
            rcbad += ARMCI_GetV(gdsc, NDESC, tg) != 0;
            rcbad += ARMCI_Get(slotb, whole, SLOTB, tg) != 0;
            CHECK(rcbad == 0, "%s: vector put/get of %d descriptors: non-zero return codes",
                  pass == 0 ? "self" : "neighbour", NDESC);
            int bad = 0, gap = 0;
            for (int i = 0; i < n; i++) {
                size_t so = (size_t)((unsigned char *)ps[i] - ls);
                size_t to = (size_t)((unsigned char *)pd[i] - slotb);
                int bytes = 0;
                for (int d = 0, c = 0; d < NDESC; c += dsc[d].ptr_array_len, d++)
                    if (i < c + dsc[d].ptr_array_len) {
                        bytes = dsc[d].bytes;
                        break;
                    }
                bad += memcmp(lg + so, ls + so, (size_t)bytes) != 0;
                bad += memcmp(whole + to, ls + so, (size_t)bytes) != 0;
                gap += whole[to + (size_t)bytes] != 0x5a; /* the byte after each segment */
            }
            for (size_t i = toff; i < SLOTB; i++)
                gap += whole[i] != 0x5a;
            CHECK(bad == 0,
                  "%s: %d of %d segments of %d descriptors of different sizes wrong "
                  "when read straight back",
                  pass == 0 ? "self" : "neighbour", bad, n, NDESC);
            CHECK(gap == 0, "%s: vector put wrote %d bytes outside its segments",
                  pass == 0 ? "self" : "neighbour", gap);
        }
        ARMCI_Barrier();
        ARMCI_Free(vb[t_me]);
        free(vb);
        free(ls);
        free(lg);
        free(whole);
        free(fill);
    }

    /* One nonblocking vector put, then get, per other process, all in flight at once:
     * Global Arrays' armci/testing/test.c:833-878 (test_vec_small's first part) issues
     * ARMCI_NbPutV of 9 descriptors of 10 segments of 20 doubles to every other process,
     * refilling the one descriptor array for the next process while the previous calls
     * are in flight, from separately malloc'd source segments (test.c:781-784), waits
     * for them all, then does the same with ARMCI_NbGetV; each call returns 0. */
    {
        enum { NG = 9, NP = 10, EL = 20, PER = NG * NP * EL };
        void **vb = malloc((size_t)t_np * sizeof(void *));
        ARMCI_Malloc(vb, (armci_size_t)(PER * sizeof(double)) * (armci_size_t)t_np);
        double *mine = vb[t_me];
        for (int i = 0; i < PER * t_np; i++)
            mine[i] = -1.0 - i; /* gets read the slots of this; puts overwrite them */
        double **seg = malloc((size_t)t_np * NG * NP * sizeof(double *));
        for (int i = 0; i < t_np * NG * NP; i++) {
            seg[i] = malloc(EL * sizeof(double));
            for (int e = 0; e < EL; e++)
                seg[i][e] = t_me * 1e6 + i * 100.0 + e; /* i: target, desc, segment */
        }
        void **ps = malloc((size_t)t_np * NG * NP * sizeof(void *));
        void **pd = malloc((size_t)t_np * NG * NP * sizeof(void *));
        armci_hdl_t *hd = malloc((size_t)t_np * sizeof(armci_hdl_t));
        armci_giov_t dsc[NG];
        ARMCI_Barrier();
        /* the gets below read the values every process had before any put arrived: the
         * slots written here are those the put phase will overwrite, so read first */
        double *snap = malloc((size_t)t_np * PER * sizeof(double));
        int rcbad = 0;
        for (int k = 1; k < t_np; k++) {
            int tg = (t_me + k) % t_np;
            for (int j = 0; j < NG; j++) {
                for (int s2 = 0; s2 < NP; s2++) {
                    int i = (tg * NG + j) * NP + s2;
                    ps[i] = (double *)vb[tg] + (size_t)t_me * PER + (s2 * NG + j) * EL;
                    pd[i] = snap + (size_t)tg * PER + (j * NP + s2) * EL;
                }
                dsc[j] = (armci_giov_t){&ps[(tg * NG + j) * NP], &pd[(tg * NG + j) * NP],
                                        EL * (int)sizeof(double), NP};
            }
            ARMCI_INIT_HANDLE(&hd[tg]);
            rcbad += ARMCI_NbGetV(dsc, NG, tg, &hd[tg]) != 0;
        }
        for (int k = 1; k < t_np; k++)
            rcbad += ARMCI_Wait(&hd[(t_me + k) % t_np]) != 0;
        int bad = 0;
        for (int k = 1; k < t_np; k++) {
            int tg = (t_me + k) % t_np;
            for (int j = 0; j < NG; j++)
                for (int s2 = 0; s2 < NP; s2++)
                    for (int e = 0; e < EL; e++)
                        bad += snap[(size_t)tg * PER + (j * NP + s2) * EL + e] !=
                               -1.0 - (t_me * PER + (s2 * NG + j) * EL + e);
        }
        CHECK(bad == 0, "%d handles of vector gets in flight at once: %d doubles wrong", t_np - 1,
              bad);
        ARMCI_Barrier();
        for (int k = 1; k < t_np; k++) {
            int tg = (t_me + k) % t_np;
            for (int j = 0; j < NG; j++) {
                for (int s2 = 0; s2 < NP; s2++) {
                    int i = (tg * NG + j) * NP + s2;
                    ps[i] = seg[i];
                    pd[i] = (double *)vb[tg] + (size_t)t_me * PER + (s2 * NG + j) * EL;
                }
                dsc[j] = (armci_giov_t){&ps[(tg * NG + j) * NP], &pd[(tg * NG + j) * NP],
                                        EL * (int)sizeof(double), NP};
            }
            ARMCI_INIT_HANDLE(&hd[tg]);
            rcbad += ARMCI_NbPutV(dsc, NG, tg, &hd[tg]) != 0;
        }
        for (int k = 1; k < t_np; k++)
            rcbad += ARMCI_Wait(&hd[(t_me + k) % t_np]) != 0;
        CHECK(rcbad == 0, "vector puts/gets with handles in flight: non-zero return codes");
        ARMCI_Barrier();
        bad = 0;
        for (int src = 0; src < t_np; src++) {
            for (int j = 0; j < NG; j++)
                for (int s2 = 0; s2 < NP; s2++)
                    for (int e = 0; e < EL; e++) {
                        double got = mine[(size_t)src * PER + (s2 * NG + j) * EL + e];
                        double want = src == t_me
                                          ? -1.0 - (src * PER + (s2 * NG + j) * EL + e)
                                          : src * 1e6 + ((t_me * NG + j) * NP + s2) * 100.0 + e;
                        bad += got != want;
                    }
        }
        CHECK(bad == 0,
              "vector puts from %d processes with handles in flight: %d doubles "
              "wrong",
              t_np - 1, bad);
        ARMCI_Barrier();
        for (int i = 0; i < t_np * NG * NP; i++)
            free(seg[i]);
        free(seg);
        free(ps);
        free(pd);
        free(hd);
        free(snap);
        ARMCI_Free(vb[t_me]);
        free(vb);
    }

    /* Vector accumulate of every ARMCI_ACC_* type, all processes into the same elements
     * of process 0, blocking and nonblocking: Global Arrays' armci/testing/test.c:1258
     * checks ARMCI_AccV's return code (ARMCI_ACC_DBL), and GA's scatter-accumulate,
     * global/src/onesided.c:2382-2390, calls ARMCI_AccV with each of the six types.
     * One descriptor of 16 single elements (every other one of the first 32, in reverse
     * order) and one of 2 runs of 16; the odd elements below 32 must stay as they were.
     * Complex scales have an imaginary part, so the product is checked as complex. */
    {
        enum { NE = 64 };
        void **ab = malloc((size_t)t_np * sizeof(void *));
        ARMCI_Malloc(ab, (armci_size_t)(6 * NE * 16));
        for (int t = 0; t < 6; t++)
            for (int i = 0; i < NE; i++)
                acc_set(t, (char *)ab[t_me] + t * NE * 16, i, 10L * i, -i);
        ARMCI_Barrier();
        static const long sre[6] = {3, 3, 2, 2, 2, 2}, sim[6] = {0, 0, 0, 0, 1, -1};
        int rcbad = 0;
        for (int t = 0; t < 6; t++) {
            char src[NE * 16];
            for (int i = 0; i < NE; i++)
                acc_set(t, src, i, i + 1 + t_me, t >= ARMCI_ACC_CPL ? t_me - i : 0);
            if (t == ARMCI_ACC_LNG)
                for (int i = 0; i < NE; i++)
                    ((long *)src)[i] <<= 33; /* values that need all 64 bits */
            char scale[16];
            acc_set(t, scale, 0, sre[t], sim[t]);
            char *area = (char *)ab[0] + t * NE * 16;
            int es = acc_size[t];
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
        }
        CHECK(rcbad == 0, "vector accumulates: non-zero return codes");
        ARMCI_Barrier();
        if (t_me == 0) {
            for (int t = 0; t < 6; t++) {
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
                    bad += !acc_is(t, (char *)ab[0] + t * NE * 16, i, re, im);
                }
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
    two_allocations(p);
    ARMCI_Barrier();
    ARMCI_Free(base[t_me]);
    free(loc);
    free(back);
    free(base);
    return t_finish("t_vector");
}
