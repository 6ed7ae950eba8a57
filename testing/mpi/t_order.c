/* SPDX-License-Identifier: BSD-3-Clause */
/* Location consistency: operations from one process to the same target elements take
 * effect in the order they were issued, with no fence between them. Each sequence is a put
 * (contiguous, strided or vector), then a contiguous, a strided and a vector accumulate in
 * a random order, then a get (contiguous, strided or vector) of the same elements; the get
 * must see the put plus every accumulate, exactly. All nine put/get pairs, all six
 * accumulate types, at 16 elements per operation; and at 1024 (contiguous transfers of 4 to
 * 16 KiB beside strided and vector ones of 1024 single elements) each put and each get
 * method once. armci-mpi tests/test_location_consistency.c:250-325. */
#include <complex.h>
#include <string.h>

#include "tester.h"

#define MAXN 1024 /* largest number of elements per operation */

/* Which element of a writer's slot (3n elements) the i-th of n elements of an operation of
 * method m touches: 0 contiguous (n/2 .. 3n/2-1), 1 strided (the even ones below 2n),
 * 2 vector (every third from 1). Each element of method 0 meets one of method 1 or 2, and
 * some meet both. */
static int idx(int m, int n, int i)
{
    return m == 0 ? n / 2 + i : m == 1 ? 2 * i : 3 * i + 1;
}

static int type_size(int t)
{
    static const int s[] = {sizeof(int),    sizeof(long),          sizeof(float),
                            sizeof(double), sizeof(float complex), sizeof(double complex)};
    return s[t];
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

/* Integer values and scales (with integer imaginary parts for the complex types), so that
 * every sum is exact in every type. */
static double complex value(int t, int re, int im)
{
    return t >= ARMCI_ACC_CPL ? (double)re + I * (double)im : (double)re;
}

static double complex scale_of(int t)
{
    if (t >= ARMCI_ACC_CPL)
        return 1.0 + 2.0 * I;
    return t == ARMCI_ACC_INT || t == ARMCI_ACC_LNG ? 3.0 : 2.0;
}

/* Point the address lists at n elements: local ones contiguous, remote ones as method 2
 * lays them out; and two descriptors of different lengths over them, local to remote
 * (@p get 0) or remote to local (@p get 1). */
static void vec(armci_giov_t iov[2], void **lp, void **rp, char *local, char *remote, int n, int es,
                int get)
{
    for (int i = 0; i < n; i++) {
        lp[i] = local + i * es;
        rp[i] = remote + idx(2, n, i) * es;
    }
    void **from = get ? rp : lp, **to = get ? lp : rp;
    iov[0] = (armci_giov_t){from, to, es, 5};
    iov[1] = (armci_giov_t){from + 5, to + 5, es, n - 5};
}

static void *lp[MAXN], *rp[MAXN];

static int put(int m, char *src, char *slot, int n, int es, int proc)
{
    if (m == 0)
        return ARMCI_Put(src, slot + idx(0, n, 0) * es, n * es, proc);
    if (m == 1) {
        int sst[1] = {es}, dst[1] = {2 * es}, count[2] = {es, n};
        return ARMCI_PutS(src, sst, slot, dst, count, 1, proc);
    }
    armci_giov_t iov[2];
    vec(iov, lp, rp, src, slot, n, es, 0);
    return ARMCI_PutV(iov, 2, proc);
}

static int acc(int m, int t, void *scale, char *src, char *slot, int n, int es, int proc)
{
    if (m == 0)
        return ARMCI_Acc(t, scale, src, slot + idx(0, n, 0) * es, n * es, proc);
    if (m == 1) {
        int sst[1] = {es}, dst[1] = {2 * es}, count[2] = {es, n};
        return ARMCI_AccS(t, scale, src, sst, slot, dst, count, 1, proc);
    }
    armci_giov_t iov[2];
    vec(iov, lp, rp, src, slot, n, es, 0);
    return ARMCI_AccV(t, scale, iov, 2, proc);
}

static int get(int m, char *slot, char *dst, int n, int es, int proc)
{
    if (m == 0)
        return ARMCI_Get(slot + idx(0, n, 0) * es, dst, n * es, proc);
    if (m == 1) {
        int sst[1] = {2 * es}, dst_st[1] = {es}, count[2] = {es, n};
        return ARMCI_GetS(slot, sst, dst, dst_st, count, 1, proc);
    }
    armci_giov_t iov[2];
    vec(iov, lp, rp, dst, slot, n, es, 1);
    return ARMCI_GetV(iov, 2, proc);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    const size_t slot_bytes = 3 * MAXN * 16;
    void **base = malloc((size_t)t_np * sizeof(void *));
    int rc = ARMCI_Malloc(base, (armci_size_t)(slot_bytes * (size_t)t_np));
    CHECK(rc == 0, "ARMCI_Malloc returned %d", rc); /* GA armci/testing/test.c:411 */
    unsigned long rng = 0x85ebca6b2545f491UL ^ (unsigned long)(t_me + 1) * 2654435761UL;
    char *zero = calloc(slot_bytes, 1), *whole = malloc(slot_bytes);
    char *put_src = malloc(MAXN * 16), *result = malloc(MAXN * 16), *acc_src[3];
    for (int m = 0; m < 3; m++)
        acc_src[m] = malloc(MAXN * 16);
    double complex *model = malloc(3 * MAXN * sizeof(double complex));

    static const int sizes[2] = {16, MAXN}, iters[2] = {27, 3};
    for (int sz = 0; sz < 2; sz++)
        for (int t = 0; t < 6; t++) {
            int n = sizes[sz], es = type_size(t), bad_rc = 0, wrong = 0, wrong_slot = 0;
            char scale[16];
            store(t, scale, 0, scale_of(t));
            for (int m = 0; m < 3; m++)
                for (int i = 0; i < n; i++)
                    store(t, acc_src[m], i, value(t, m + 1 + i % 2, m - i % 3));
            /* small: three times through the 3 x 3 put/get matrix */
            for (int it = 0; it < iters[sz]; it++) {
                int pm = it % 3, gm = sz == 0 ? it / 3 % 3 : (it + 1) % 3;
                /* the next process, then the one after, ... and at np <= 3 this one too */
                int p = (t_me + 1 + it / 9 + sz) % t_np;
                char *slot = (char *)base[p] + (size_t)t_me * slot_bytes;
                int order[3] = {0, 1, 2};
                for (int k = 2; k > 0; k--) {
                    int j = (int)(t_rand(&rng) % (unsigned long)(k + 1)), tmp = order[k];
                    order[k] = order[j];
                    order[j] = tmp;
                }
                for (int i = 0; i < n; i++)
                    store(t, put_src, i, value(t, 20 + t + it, it % 5 - i % 2));
                /* The same sequence on a local model, in exact arithmetic. */
                for (int e = 0; e < 3 * n; e++)
                    model[e] = 0;
                for (int i = 0; i < n; i++)
                    model[idx(pm, n, i)] = load(t, put_src, i);
                for (int k = 0; k < 3; k++)
                    for (int i = 0; i < n; i++)
                        model[idx(order[k], n, i)] += scale_of(t) * load(t, acc_src[order[k]], i);

                /* No fence anywhere from here to the get: clear, put, three accumulates,
                 * get. */
                bad_rc += ARMCI_Put(zero, slot, 3 * n * es, p) != 0;
                bad_rc += put(pm, put_src, slot, n, es, p) != 0;
                for (int k = 0; k < 3; k++)
                    bad_rc += acc(order[k], t, scale, acc_src[order[k]], slot, n, es, p) != 0;
                memset(result, 0x7f, (size_t)(n * es));
                bad_rc += get(gm, slot, result, n, es, p) != 0;
                int w = 0;
                for (int i = 0; i < n; i++)
                    w += load(t, result, i) != model[idx(gm, n, i)];
                if (w && wrong == 0)
                    fprintf(stderr,
                            "rank %d: %d elements of type %d, put method %d, acc order %d%d%d, "
                            "get method %d, to %d: %d wrong\n",
                            t_me, n, t, pm, order[0], order[1], order[2], gm, p, w);
                wrong += w;
                /* and nothing outside the operations' elements changed */
                bad_rc += ARMCI_Get(slot, whole, 3 * n * es, p) != 0;
                for (int e = 0; e < 3 * n; e++)
                    wrong_slot += load(t, whole, e) != model[e];
            }
            /* armci-mpi tests/test_location_consistency.c:257,269,280 abort on a nonzero
             * status of the put, the accumulates and the get */
            CHECK(bad_rc == 0, "%d elements of type %d: %d calls returned nonzero", n, t, bad_rc);
            /* test_location_consistency.c:284-325: the get sees put + every accumulate */
            CHECK(wrong == 0, "%d elements of type %d: %d read back without every earlier update",
                  n, t, wrong);
            CHECK(wrong_slot == 0, "%d elements of type %d: %d slot elements differ from the model",
                  n, t, wrong_slot);
        }

    /* Contiguous puts on both sides of ARMCI_PUT_MESSAGE_MAX. Where the provider keeps no
     * write behind the one before it (tcp;ofi_rxm), puts up to 16 KiB go as messages the
     * target applies in order (blocking ones sharing a message until something else goes
     * to the target, ARMCI_PUT_COMBINE) and longer ones as RMA writes; neither kind may
     * overtake the other, nor a nonblocking get or write issued after them, and blocking
     * 8-byte puts to one word land in the order issued. Patterns from a counter; the
     * expected bytes are computed here. */
    {
        const size_t big = 32768, small = 4096;
        unsigned char *a = malloc(big), *b = malloc(big), *got = malloc(big);
        int p = (t_me + 1) % t_np, wrong_last = 0, wrong_mw = 0, wrong_wm = 0, wrong_nb = 0;
        char *slot = (char *)base[p] + (size_t)t_me * slot_bytes;
        for (int round = 0; round < 4; round++) {
            for (size_t i = 0; i < big; i++) {
                a[i] = (unsigned char)(i * 7 + (size_t)round + 1);
                b[i] = (unsigned char)(i * 13 + (size_t)round + 101);
            }
            /* 50 one-word puts, no fence: the last value stays */
            long word = 0;
            for (long v = 1; v <= 50; v++)
                ARMCI_Put(&v, slot, (int)sizeof(v), p);
            ARMCI_Get(slot, &word, (int)sizeof(word), p);
            wrong_last += word != 50;
            /* a message, then a write over it: the write's bytes everywhere */
            ARMCI_Put(a, slot, (int)small, p);
            ARMCI_Put(b, slot, (int)big, p);
            ARMCI_Get(slot, got, (int)big, p);
            wrong_mw += memcmp(got, b, big) != 0;
            /* a write, then a message over its start: the message's bytes there */
            ARMCI_Put(b, slot, (int)big, p);
            ARMCI_Put(a, slot, (int)small, p);
            ARMCI_Get(slot, got, (int)big, p);
            wrong_wm += memcmp(got, a, small) != 0 || memcmp(got + small, b + small, big - small);
            /* nonblocking operations after blocking ones: a get sees the puts before it,
             * a write lands after them */
            armci_hdl_t h;
            long seen = 0, last = 1000 + round;
            ARMCI_Put(&last, slot, (int)sizeof(last), p);
            ARMCI_INIT_HANDLE(&h);
            ARMCI_NbGet(slot, &seen, (int)sizeof(seen), p, &h);
            ARMCI_Wait(&h);
            wrong_nb += seen != last;
            ARMCI_Put(a, slot, (int)small, p);
            ARMCI_INIT_HANDLE(&h);
            ARMCI_NbPut(b, slot, (int)big, p, &h);
            ARMCI_Wait(&h);
            ARMCI_Get(slot, got, (int)big, p);
            wrong_nb += memcmp(got, b, big) != 0;
        }
        CHECK(wrong_last == 0, "50 blocking 8-byte puts to one word: %d rounds read another value",
              wrong_last);
        CHECK(wrong_mw == 0, "4 KiB put then 32 KiB put over it: %d rounds read the older data",
              wrong_mw);
        CHECK(wrong_wm == 0, "32 KiB put then 4 KiB put over it: %d rounds read the older data",
              wrong_wm);
        CHECK(wrong_nb == 0,
              "blocking puts then a nonblocking get or put of the same bytes: %d wrong in 4 rounds",
              wrong_nb);
        free(a);
        free(b);
        free(got);
    }

    ARMCI_Barrier();
    rc = ARMCI_Free(base[t_me]);
    CHECK(rc == 0, "ARMCI_Free returned %d", rc); /* armci-mpi tests/contrib/armci-test.c:335 */
    for (int m = 0; m < 3; m++)
        free(acc_src[m]);
    free(model);
    free(result);
    free(put_src);
    free(whole);
    free(zero);
    free(base);
    return t_finish("t_order");
}
