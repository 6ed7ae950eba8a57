/* SPDX-License-Identifier: BSD-3-Clause */
/* Accumulate: all six types with a scale, blocking and nonblocking, and many processes
 * accumulating into one location (the sum must be exact): contiguous, strided and vector
 * accumulates mixed onto overlapping elements, many single-element vector segments, and
 * stride level 0 up to 1 MiB. Every call must return 0. */
#include <complex.h>
#include <string.h>

#include "tester.h"

#define N 300 /* elements per accumulate */

static int type_size(int t)
{
    static const int s[] = {sizeof(int),    sizeof(long),          sizeof(float),
                            sizeof(double), sizeof(float complex), sizeof(double complex)};
    return s[t];
}

/* Element i of the source of process `me`, and the scale, as double complex. */
static double complex src_val(int t, int me, int i)
{
    double complex v = (double)(me + 1) + (double)(i % 17);
    if (t >= ARMCI_ACC_CPL)
        v += I * (double)((i % 5) - me);
    return v;
}

static double complex scale_val(int t)
{
    if (t == ARMCI_ACC_CPL || t == ARMCI_ACC_DCP)
        return 2.0 - 1.0 * I;
    return t == ARMCI_ACC_INT || t == ARMCI_ACC_LNG ? 3.0 : 0.5;
}

static void store(int t, void *buf, int i, double complex v)
{
    switch (t) {
    case ARMCI_ACC_INT:
        ((int *)buf)[i] = (int)creal(v);
        break;
    case ARMCI_ACC_LNG:
        ((long *)buf)[i] = (long)creal(v);
        break;
    case ARMCI_ACC_FLT:
        ((float *)buf)[i] = (float)creal(v);
        break;
    case ARMCI_ACC_DBL:
        ((double *)buf)[i] = creal(v);
        break;
    case ARMCI_ACC_CPL:
        ((float complex *)buf)[i] = (float complex)v;
        break;
    case ARMCI_ACC_DCP:
        ((double complex *)buf)[i] = v;
        break;
    }
}

static double complex load(int t, const void *buf, int i)
{
    switch (t) {
    case ARMCI_ACC_INT:
        return ((const int *)buf)[i];
    case ARMCI_ACC_LNG:
        return (double)((const long *)buf)[i];
    case ARMCI_ACC_FLT:
        return ((const float *)buf)[i];
    case ARMCI_ACC_DBL:
        return ((const double *)buf)[i];
    case ARMCI_ACC_CPL:
        return ((const float complex *)buf)[i];
    default:
        return ((const double complex *)buf)[i];
    }
}

/* The overlap test: OV_PATCH elements per call, landing in a target of OV_TARGET elements.
 * Method 0 (ARMCI_Acc) covers elements 8..23, method 1 (ARMCI_AccS, level 1) the even ones
 * 0..30, method 2 (ARMCI_AccV, two descriptors) every third from 1 to 46. */
#define OV_PATCH  16
#define OV_TARGET 48
#define OV_ITERS  20

static int ov_index(int m, int i)
{
    return m == 0 ? 8 + i : m == 1 ? 2 * i : 3 * i + 1;
}

/* Integer-valued sources and scales: every partial sum is exact, even in float. */
static double complex ov_val(int t, int m, int me, int i)
{
    double v = (double)((m + 1) * (me + 1) + i % 3);
    return t >= ARMCI_ACC_CPL ? v + I * (double)(i % 4 - m) : v;
}

static double complex ov_scale(int t)
{
    if (t >= ARMCI_ACC_CPL)
        return 2.0 - 1.0 * I;
    return t == ARMCI_ACC_INT || t == ARMCI_ACC_LNG ? 3.0 : 2.0;
}

static int ov_issue(int m, int t, void *scale, char *src, void *target, int proc, int es)
{
    if (m == 0)
        return ARMCI_Acc(t, scale, src, (char *)target + 8 * es, OV_PATCH * es, proc);
    if (m == 1) {
        int sst[1] = {es}, dst[1] = {2 * es}, count[2] = {es, OV_PATCH};
        return ARMCI_AccS(t, scale, src, sst, target, dst, count, 1, proc);
    }
    void *ps[OV_PATCH], *pd[OV_PATCH];
    for (int i = 0; i < OV_PATCH; i++) {
        ps[i] = src + i * es;
        pd[i] = (char *)target + ov_index(2, i) * es;
    }
    armci_giov_t iov[2] = {{ps, pd, es, OV_PATCH / 2},
                           {ps + OV_PATCH / 2, pd + OV_PATCH / 2, es, OV_PATCH / 2}};
    return ARMCI_AccV(t, scale, iov, 2, proc);
}

/* Accumulates one after another to one neighbour, their scale or type changing from call
 * to call, with puts to the same elements between them and no fence: each must be applied
 * with its own scale, in the order issued (over the fabric such calls share a message until
 * one of another kind or scale comes; ARMCI_PUT_COMBINE). Blocking calls, then (@p nb)
 * nonblocking ones on implicit handles completed by ARMCI_WaitAll, each with a source of
 * its own, as such calls need until then. The expected values are plain arithmetic. */
static void mixed_sequence(int p, int nb)
{
    enum { E = 8, STEPS = 96 };
    void **d = malloc((size_t)t_np * sizeof(void *)), **n = malloc((size_t)t_np * sizeof(void *));
    ARMCI_Malloc(d, E * sizeof(double));
    ARMCI_Malloc(n, E * sizeof(int));
    memset(d[t_me], 0, E * sizeof(double));
    memset(n[t_me], 0, E * sizeof(int));
    ARMCI_Barrier();
    double want_d[E] = {0}, dsrc[STEPS], dscale[STEPS];
    int want_n[E] = {0}, isrc[STEPS], iscale[STEPS];
    for (int s = 0; s < STEPS; s++) {
        int e = (s * 5) % E;
        double *rd = (double *)d[p] + e;
        int *rn = (int *)n[p] + e;
        dscale[s] = 1.0 + s % 3;
        iscale[s] = 1 + s % 2;
        isrc[s] = s;
        if (s % 11 == 10) { /* a put of the element between accumulates */
            dsrc[s] = 10.0 * s;
            if (nb)
                ARMCI_NbPut(&dsrc[s], rd, sizeof(double), p, NULL);
            else
                ARMCI_Put(&dsrc[s], rd, sizeof(double), p);
            want_d[e] = dsrc[s];
        } else if (s % 4 == 3) { /* another type, another allocation */
            if (nb)
                ARMCI_NbAcc(ARMCI_ACC_INT, &iscale[s], &isrc[s], rn, sizeof(int), p, NULL);
            else
                ARMCI_Acc(ARMCI_ACC_INT, &iscale[s], &isrc[s], rn, sizeof(int), p);
            want_n[e] += iscale[s] * isrc[s];
        } else {
            dsrc[s] = s + 0.5;
            if (nb)
                ARMCI_NbAcc(ARMCI_ACC_DBL, &dscale[s], &dsrc[s], rd, sizeof(double), p, NULL);
            else
                ARMCI_Acc(ARMCI_ACC_DBL, &dscale[s], &dsrc[s], rd, sizeof(double), p);
            want_d[e] += dscale[s] * dsrc[s];
        }
    }
    if (nb)
        ARMCI_WaitAll();
    double got_d[E];
    int got_n[E], bad = 0;
    ARMCI_Get(d[p], got_d, sizeof(got_d), p); /* no fence: a get must see what came before */
    ARMCI_Get(n[p], got_n, sizeof(got_n), p);
    for (int e = 0; e < E; e++)
        bad += got_d[e] != want_d[e] || got_n[e] != want_n[e];
    CHECK(bad == 0,
          "%d %s accumulates and puts of changing scale and type to process %d: %d of %d "
          "elements wrong (first: %g, expected %g)",
          STEPS, nb ? "implicit nonblocking" : "blocking", p, bad, 2 * E, got_d[0], want_d[0]);
    ARMCI_Barrier();
    ARMCI_Free(d[t_me]);
    ARMCI_Free(n[t_me]);
    free(d);
    free(n);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    const size_t block = N * 16;
    void **base = malloc((size_t)t_np * sizeof(void *));
    int rc = ARMCI_Malloc(base, (armci_size_t)(6 * block));
    CHECK(rc == 0, "ARMCI_Malloc returned %d", rc); /* GA armci/testing/test.c:411 */
    int bad_rc = 0;

    for (int mode = 0; mode < 2; mode++) {
        memset(base[t_me], 0, 6 * block);
        ARMCI_Barrier();
        /* Every process accumulates into every process, every type. */
        for (int t = 0; t < 6; t++) {
            char src[N * 16], scale[16];
            for (int i = 0; i < N; i++)
                store(t, src, i, src_val(t, t_me, i));
            store(t, scale, 0, scale_val(t));
            for (int k = 0; k < t_np; k++) {
                int p = (t_me + k) % t_np;
                char *dst = (char *)base[p] + (size_t)t * block;
                if (mode == 0) {
                    bad_rc += ARMCI_Acc(t, scale, src, dst, N * type_size(t), p) != 0;
                } else {
                    armci_hdl_t h;
                    bad_rc += ARMCI_NbAcc(t, scale, src, dst, N * type_size(t), p, &h) != 0;
                    ARMCI_Wait(&h);
                }
            }
        }
        ARMCI_Barrier();
        /* armci-mpi tests/test_acc_overlap.c:169 aborts on a nonzero accumulate status */
        CHECK(bad_rc == 0, "mode %d: %d accumulates returned nonzero", mode, bad_rc);
        bad_rc = 0;
        for (int t = 0; t < 6; t++) {
            int bad = 0;
            for (int i = 0; i < N; i++) {
                double complex want = 0;
                for (int w = 0; w < t_np; w++) {
                    /* round each contribution as the element type does */
                    char tmp[16];
                    store(t, tmp, 0, src_val(t, w, i));
                    store(t, tmp, 0, scale_val(t) * load(t, tmp, 0));
                    want += load(t, tmp, 0);
                }
                double complex got = load(t, (char *)base[t_me] + (size_t)t * block, i);
                double tol = (t == ARMCI_ACC_FLT || t == ARMCI_ACC_CPL) ? 1e-4 : 1e-12;
                if (cabs(got - want) > tol * (1 + cabs(want)))
                    bad++;
            }
            CHECK(bad == 0, "type %d mode %d: %d of %d elements wrong", t, mode, bad, N);
        }
        ARMCI_Barrier();
    }

    /* All processes hammer one int and one double on process 0. */
    memset(base[t_me], 0, 6 * block);
    ARMCI_Barrier();
    int one = 1;
    double half = 0.5, dval = 1.0;
    for (int i = 0; i < 1000; i++) {
        bad_rc += ARMCI_Acc(ARMCI_ACC_INT, &one, &one, base[0], sizeof(int), 0) != 0;
        bad_rc +=
            ARMCI_Acc(ARMCI_ACC_DBL, &half, &dval, (char *)base[0] + 64, sizeof(double), 0) != 0;
    }
    ARMCI_Barrier();
    CHECK(bad_rc == 0, "%d single-element accumulates returned nonzero", bad_rc);
    bad_rc = 0;
    if (t_me == 0) {
        int total = *(int *)base[0];
        double dtotal = *(double *)((char *)base[0] + 64);
        CHECK(total == 1000 * t_np, "concurrent int accumulates: %d, expected %d", total,
              1000 * t_np);
        CHECK(dtotal == 500.0 * t_np, "concurrent double accumulates: %g, expected %g", dtotal,
              500.0 * t_np);
    }
    ARMCI_Barrier();

    /* Contiguous, strided and vector accumulates from every process onto overlapping
     * elements of process 0, each process in its own random order, every type. Acc goes
     * through the contiguous accumulate path and AccS/AccV through the noncontiguous one;
     * the sum must still be exact (integer values and scales). armci-mpi
     * tests/test_acc_overlap.c:141-207. */
    {
        unsigned long rng = 0x2545f4914f6cdd1dUL ^ (unsigned long)(t_me + 1) * 104729;
        for (int t = 0; t < 6; t++) {
            int es = type_size(t), wrong = 0;
            char srcs[3][OV_PATCH * 16], scale[16];
            store(t, scale, 0, ov_scale(t));
            for (int m = 0; m < 3; m++)
                for (int i = 0; i < OV_PATCH; i++)
                    store(t, srcs[m], i, ov_val(t, m, t_me, i));
            memset(base[t_me], 0, OV_TARGET * 16);
            ARMCI_Barrier();
            for (int it = 0; it < OV_ITERS; it++) {
                int order[3] = {0, 1, 2};
                for (int k = 2; k > 0; k--) {
                    int j = (int)(t_rand(&rng) % (unsigned long)(k + 1)), tmp = order[k];
                    order[k] = order[j];
                    order[j] = tmp;
                }
                for (int k = 0; k < 3; k++)
                    bad_rc += ov_issue(order[k], t, scale, srcs[order[k]], base[0], 0, es) != 0;
            }
            CHECK(bad_rc == 0, "type %d: %d overlapping accumulates returned nonzero", t, bad_rc);
            bad_rc = 0;
            ARMCI_Barrier();
            if (t_me == 0)
                for (int e = 0; e < OV_TARGET; e++) {
                    double complex want = 0;
                    for (int w = 0; w < t_np; w++)
                        for (int m = 0; m < 3; m++)
                            for (int i = 0; i < OV_PATCH; i++)
                                if (ov_index(m, i) == e)
                                    want += OV_ITERS * ov_scale(t) * ov_val(t, m, w, i);
                    wrong += load(t, base[0], e) != want;
                }
            CHECK(wrong == 0, "type %d: %d of %d overlapped elements not the exact sum", t, wrong,
                  OV_TARGET);
            ARMCI_Barrier();
        }
    }

    /* Vector accumulates of many single doubles from every process into process 0, even
     * elements in one call and odd in the next, repeated. GA armci/testing/test.c:1247-1283
     * (and :1258, which checks that ARMCI_AccV returns 0). */
    {
        enum { NV = 1000, TIMES = 3 };
        double a[NV], alpha = 2.0;
        void *ps[NV / 2], *pd[NV / 2];
        armci_giov_t dsc = {ps, pd, sizeof(double), NV / 2};
        for (int j = 0; j < NV; j++)
            a[j] = (double)(j % 13 + 1);
        memset(base[t_me], 0, NV * sizeof(double));
        ARMCI_Barrier();
        int bad = 0;
        for (int r = 0; r < TIMES; r++)
            for (int odd = 0; odd < 2; odd++) {
                for (int j = 0; j < NV / 2; j++) {
                    ps[j] = &a[2 * j + odd];
                    pd[j] = (double *)base[0] + 2 * j + odd;
                }
                bad += ARMCI_AccV(ARMCI_ACC_DBL, &alpha, &dsc, 1, 0) != 0;
            }
        CHECK(bad == 0, "%d of %d AccV calls returned nonzero", bad, 2 * TIMES);
        ARMCI_Barrier();
        if (t_me == 0) {
            bad = 0;
            for (int j = 0; j < NV; j++)
                bad += ((double *)base[0])[j] != alpha * TIMES * t_np * a[j];
            CHECK(bad == 0, "AccV of single doubles from all: %d of %d elements wrong", bad, NV);
        }
        ARMCI_Barrier();
    }

    /* Strided accumulates at stride level 0 (count[0] bytes, contiguous) from every process
     * into process 0, up to 1 MiB. GA armci/testing/perf_nb.c:372-390. */
    {
        const int big = 1 << 20;
        void **bb = malloc((size_t)t_np * sizeof(void *));
        rc = ARMCI_Malloc(bb, big);
        CHECK(rc == 0, "ARMCI_Malloc of 1 MiB returned %d", rc);
        double *dsrc = malloc((size_t)big), scale = 2.0;
        static const int lens[] = {8, 4096 + 8, 1 << 20};
        for (int k = 0; k < 3; k++) {
            int bytes = lens[k], ne = bytes / 8, stride = bytes;
            for (int i = 0; i < ne; i++)
                dsrc[i] = (double)(t_me + 1 + i % 5);
            memset(bb[t_me], 0, (size_t)bytes);
            ARMCI_Barrier();
            rc = ARMCI_AccS(ARMCI_ACC_DBL, &scale, dsrc, &stride, bb[0], &stride, &bytes, 0, 0);
            CHECK(rc == 0, "level-0 AccS of %d bytes returned %d", bytes, rc);
            ARMCI_Barrier();
            if (t_me == 0) {
                int bad = 0;
                for (int i = 0; i < ne; i++) {
                    double want = 0;
                    for (int w = 0; w < t_np; w++)
                        want += scale * (w + 1 + i % 5);
                    bad += ((double *)bb[0])[i] != want;
                }
                CHECK(bad == 0, "level-0 AccS of %d bytes from all: %d elements wrong", bytes, bad);
            }
        }
        ARMCI_Barrier();
        rc = ARMCI_Free(bb[t_me]);
        CHECK(rc == 0, "ARMCI_Free returned %d", rc); /* armci-mpi tests/contrib/armci-test.c:335 */
        free(dsrc);
        free(bb);
    }

    mixed_sequence((t_me + 1) % t_np, 0);
    mixed_sequence((t_me + 1) % t_np, 1);
    ARMCI_Barrier();
    rc = ARMCI_Free(base[t_me]);
    CHECK(rc == 0, "ARMCI_Free returned %d", rc);
    free(base);
    return t_finish("t_acc");
}
