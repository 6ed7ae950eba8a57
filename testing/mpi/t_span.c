/* SPDX-License-Identifier: BSD-3-Clause */
/* Strided and vector gets of short blocks, over the fabric read as the one range they span
 * (src/ops/span.c) or, when that range is much longer than the blocks or crosses
 * allocations, sent as a message the target answers. Each process reads the next one's
 * memory, whose bytes are a formula of owner and offset, so every block is checked
 * against the formula; the bytes between the blocks of a scattered destination are
 * checked untouched. Per process: SPAN_GETS calls that read a span, MESSAGE_GETS that
 * cannot (testing/stats.sh counts them on their paths: the numbers must not drift from
 * the cases below). */
#include <stdlib.h>
#include <string.h>

#include "tester.h"

#define SPAN_GETS    13
#define MESSAGE_GETS 2

#define AREA  (256 << 10)
#define OTHER (64 << 10)
#define FENCE 0xA5 /* the bytes around a destination's blocks */

static void **area, **other;
static int next;

/* The byte at offset @p off of process @p p's area (other: @p which 1). */
static unsigned char expect(int p, int which, size_t off)
{
    return (unsigned char)(p * 131 + which * 29 + off * 7 + off / 251);
}

static void fill(void)
{
    unsigned char *a = area[t_me], *o = other[t_me];
    for (size_t i = 0; i < AREA; i++)
        a[i] = expect(t_me, 0, i);
    for (size_t i = 0; i < OTHER; i++)
        o[i] = expect(t_me, 1, i);
}

/* Checks @p n blocks of @p len bytes that came from @p rstride apart from offset @p roff of
 * the next process's area into @p buf, @p lstride apart from @p loff; every other byte of
 * the @p buflen bytes of @p buf must still be FENCE. */
static void check_blocks(const char *what, const unsigned char *buf, size_t buflen, size_t loff,
                         size_t lstride, size_t roff, size_t rstride, size_t len, int n)
{
    int bad = 0, fence = 0;
    char *mark = calloc(buflen, 1);
    for (int k = 0; k < n; k++)
        for (size_t j = 0; j < len; j++) {
            size_t l = loff + k * lstride + j;
            mark[l] = 1;
            bad += buf[l] != expect(next, 0, roff + k * rstride + j);
        }
    for (size_t i = 0; i < buflen; i++)
        fence += !mark[i] && buf[i] != FENCE;
    free(mark);
    CHECK(bad == 0, "%s: %d bytes of %d blocks of %zu differ from process %d's memory", what, bad,
          n, len, next);
    CHECK(fence == 0, "%s: %d bytes between or around the blocks were written", what, fence);
}

/* A vector of @p n blocks (one group), remote @p rstride apart from @p roff, local
 * @p lstride apart from @p loff, into a fresh fenced buffer; blocking, on a handle
 * (@p mode 1), or implicit and completed by ARMCI_WaitAll (@p mode 2). */
static void getv(const char *what, int mode, size_t roff, size_t rstride, size_t loff,
                 size_t lstride, size_t len, int n)
{
    size_t buflen = loff + (size_t)n * lstride + len;
    unsigned char *buf = malloc(buflen);
    void **src = malloc(n * sizeof(void *)), **dst = malloc(n * sizeof(void *));
    memset(buf, FENCE, buflen);
    for (int k = 0; k < n; k++) {
        src[k] = (char *)area[next] + roff + k * rstride;
        dst[k] = buf + loff + k * lstride;
    }
    armci_giov_t v = {src, dst, (int)len, n};
    if (mode == 0) {
        ARMCI_GetV(&v, 1, next);
    } else if (mode == 1) {
        armci_hdl_t h;
        ARMCI_INIT_HANDLE(&h);
        ARMCI_NbGetV(&v, 1, next, &h);
        memset(src, 0, n * sizeof(void *)); /* the call's arrays are the caller's again */
        memset(dst, 0, n * sizeof(void *));
        ARMCI_Wait(&h);
    } else {
        ARMCI_NbGetV(&v, 1, next, NULL);
        memset(src, 0, n * sizeof(void *));
        memset(dst, 0, n * sizeof(void *));
        ARMCI_WaitAll();
    }
    check_blocks(what, buf, buflen, loff, lstride, roff, rstride, len, n);
    free(src);
    free(dst);
    free(buf);
}

/* Seven vector gets whose blocks lie close together, blocking and not. */
static void test_vectors(void)
{
    getv("1000 doubles every 16 bytes", 0, 0, 16, 0, 8, 8, 1000);
    getv("1000 doubles into every other double", 0, 8, 16, 8, 16, 8, 1000);
    getv("300 blocks of 5 bytes at odd places", 0, 3, 13, 1, 7, 5, 300);
    getv("one byte", 0, 77, 1, 0, 1, 1, 1);
    getv("500 blocks of 24 bytes, on a handle", 1, 4096, 40, 5, 31, 24, 500);
    getv("800 doubles, implicit", 2, 20000, 24, 0, 8, 8, 800);
    /* a vector of two groups of different lengths, interleaved in the target's memory */
    unsigned char buf[2000];
    memset(buf, FENCE, sizeof buf);
    void *s0[50], *d0[50], *s1[20], *d1[20];
    for (int k = 0; k < 50; k++) {
        s0[k] = (char *)area[next] + 1000 + 40 * k;
        d0[k] = buf + 24 * k;
    }
    for (int k = 0; k < 20; k++) {
        s1[k] = (char *)area[next] + 1024 + 40 * k + 3;
        d1[k] = buf + 1500 + 2 * k;
    }
    armci_giov_t v[2] = {{s0, d0, 24, 50}, {s1, d1, 1, 20}};
    ARMCI_GetV(v, 2, next);
    check_blocks("two groups: 50 of 24 bytes", buf, 1200, 0, 24, 1000, 40, 24, 50);
    check_blocks("two groups: 20 single bytes", buf + 1500, 500, 0, 2, 1027, 40, 1, 20);
}

/* Four strided gets, blocking and not, and 100 gets on an aggregate handle. */
static void test_strided(void)
{
    enum { ROWS = 32, ROW = 24, RSTRIDE = 40 };
    unsigned char buf[ROWS * ROW * 2];
    memset(buf, FENCE, sizeof buf);
    int rs[1] = {RSTRIDE}, ls[1] = {2 * ROW}, count[2] = {ROW, ROWS};
    ARMCI_GetS((char *)area[next] + 300, rs, buf, ls, count, 1, next);
    check_blocks("a 32 x 24-byte patch", buf, sizeof buf, 0, 2 * ROW, 300, RSTRIDE, ROW, ROWS);

    /* three levels: 6 planes of 10 rows of 8 bytes, rows 16 bytes apart remotely */
    unsigned char cube[6 * 10 * 8];
    memset(cube, 0, sizeof cube);
    int rs3[2] = {16, 200}, ls3[2] = {8, 80}, count3[3] = {8, 10, 6};
    ARMCI_GetS((char *)area[next] + 50000, rs3, cube, ls3, count3, 2, next);
    int bad = 0;
    for (int z = 0; z < 6; z++)
        for (int y = 0; y < 10; y++)
            for (int x = 0; x < 8; x++)
                bad += cube[z * 80 + y * 8 + x] != expect(next, 0, 50000 + z * 200 + y * 16 + x);
    CHECK(bad == 0, "a 6 x 10 x 8-byte block: %d bytes differ", bad);

    armci_hdl_t h;
    memset(buf, FENCE, sizeof buf);
    ARMCI_INIT_HANDLE(&h);
    ARMCI_NbGetS((char *)area[next] + 70001, rs, buf, ls, count, 1, next, &h);
    ARMCI_Wait(&h);
    check_blocks("a patch on a handle", buf, sizeof buf, 0, 2 * ROW, 70001, RSTRIDE, ROW, ROWS);

    /* 100 doubles every 16 bytes, one nonblocking get each on an aggregate handle: sent
     * as one list at the wait */
    unsigned char agg[100 * 8 + 64];
    memset(agg, FENCE, sizeof agg);
    ARMCI_INIT_HANDLE(&h);
    ARMCI_SET_AGGREGATE_HANDLE(&h);
    for (int k = 0; k < 100; k++)
        ARMCI_NbGet((char *)area[next] + 90000 + 16 * k, agg + 8 * k, 8, next, &h);
    ARMCI_Wait(&h);
    ARMCI_UNSET_AGGREGATE_HANDLE(&h);
    check_blocks("100 gets on an aggregate handle", agg, sizeof agg, 0, 8, 90000, 16, 8, 100);
}

/* A blocking put to the next process, then gets of its span: each sees the put. */
static void test_after_put(void)
{
    double x[64];
    for (int i = 0; i < 64; i++)
        x[i] = 1000.0 * t_me + i;
    char *at = (char *)area[next] + 200000;
    for (int i = 0; i < 64; i++) /* 64 blocking puts of one double, every 32 bytes */
        ARMCI_Put(&x[i], at + 32 * i, 8, next);
    double y[64];
    void *src[64], *dst[64];
    for (int i = 0; i < 64; i++) {
        src[i] = at + 32 * i;
        dst[i] = &y[i];
    }
    armci_giov_t v = {src, dst, 8, 64};
    memset(y, 0, sizeof y);
    ARMCI_GetV(&v, 1, next);
    int bad = 0;
    for (int i = 0; i < 64; i++)
        bad += y[i] != x[i];
    CHECK(bad == 0, "a vector get after 64 puts: %d doubles are not what was put", bad);

    for (int i = 0; i < 64; i++)
        x[i] = -x[i];
    ARMCI_Put(x, at + 32 * 64, sizeof x, next); /* one put of all 64, then a strided get */
    int rs[1] = {8}, ls[1] = {8}, count[2] = {8, 64};
    memset(y, 0, sizeof y);
    armci_hdl_t h;
    ARMCI_INIT_HANDLE(&h);
    ARMCI_NbGetS(at + 32 * 64, rs, y, ls, count, 1, next, &h);
    ARMCI_Wait(&h);
    bad = 0;
    for (int i = 0; i < 64; i++)
        bad += y[i] != x[i];
    CHECK(bad == 0, "a strided get on a handle after a put: %d doubles differ", bad);
}

/* Two gets that cannot be read as one range: blocks far apart for their bytes, and blocks
 * in two allocations. */
static void test_not_spanned(void)
{
    getv("64 doubles 2 KiB apart", 0, 8, 2048, 0, 8, 8, 64);
    unsigned char buf[64];
    memset(buf, FENCE, sizeof buf);
    void *src[2] = {(char *)area[next] + 40, (char *)other[next] + 40}, *dst[2] = {buf, buf + 16};
    armci_giov_t v = {src, dst, 8, 2};
    ARMCI_GetV(&v, 1, next);
    int bad = 0;
    for (int j = 0; j < 8; j++)
        bad += (buf[j] != expect(next, 0, 40 + j)) + (buf[16 + j] != expect(next, 1, 40 + j));
    CHECK(bad == 0, "blocks from two allocations: %d bytes differ", bad);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    area = malloc(t_np * sizeof(void *));
    other = malloc(t_np * sizeof(void *));
    ARMCI_Malloc(area, AREA);
    ARMCI_Malloc(other, OTHER);
    next = (t_me + 1) % t_np;
    fill();
    ARMCI_Barrier();
    test_vectors();     /* 7 span gets */
    test_strided();     /* 4 */
    test_after_put();   /* 2 */
    test_not_spanned(); /* 2 messages */
    ARMCI_Barrier();
    ARMCI_Free(area[t_me]);
    ARMCI_Free(other[t_me]);
    free(area);
    free(other);
    return t_finish("t_span");
}
