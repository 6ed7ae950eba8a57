/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for the argument checks that take whole descriptors: strided
 * descriptors, I/O vectors and handles. The input is read as a little program:
 *   byte 0 selects the target (0: strided, 1: vector, 2: handle); the rest fills it.
 * A descriptor the check accepts is then walked, and the walk must keep its promises:
 * every block inside the extent the descriptor declares, the bytes adding up to the product
 * of the counts. Any broken promise aborts (a finding). Built and run by `make fuzz`.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/iter.h"
#include "base/pool.h"

#define MAX_BLOCKS 20000 /* walk at most this many blocks of one descriptor */

typedef struct {
    const uint8_t *p;
    size_t n;
} input_t;

static int take_int(input_t *in)
{
    int v = 0;
    size_t k = in->n < sizeof v ? in->n : sizeof v;
    memcpy(&v, in->p, k);
    in->p += k;
    in->n -= k;
    return v;
}

static void strided(input_t *in)
{
    int levels = take_int(in) % (ARMCI_MAX_STRIDE_LEVEL + 3) - 1; /* -1 .. 9 */
    int count[ARMCI_MAX_STRIDE_LEVEL + 1], ss[ARMCI_MAX_STRIDE_LEVEL], ds[ARMCI_MAX_STRIDE_LEVEL];
    for (int i = 0; i <= ARMCI_MAX_STRIDE_LEVEL; i++)
        count[i] = take_int(in);
    for (int i = 0; i < ARMCI_MAX_STRIDE_LEVEL; i++) {
        ss[i] = take_int(in);
        ds[i] = take_int(in);
    }
    char err[256];
    if (armcii_strided_check(ss, ds, count, levels, err, sizeof err) != 0) {
        if (!memchr(err, '\0', sizeof err) || err[0] == '\0')
            abort(); /* a rejection must say why */
        return;
    }
    /* Fake bases: addresses are computed, never dereferenced. */
    char *src = (char *)(uintptr_t)0x100000000000ULL, *dst = (char *)(uintptr_t)0x200000000000ULL;
    armcii_iter_t it;
    armcii_iter_strided(&it, src, ss, dst, ds, count, levels, 1);
    char *lo, *hi;
    armcii_iter_remote_extent(&it, &lo, &hi);
    unsigned __int128 expect = (unsigned)count[0];
    for (int i = 1; i <= levels; i++)
        expect *= (unsigned)count[i];
    unsigned __int128 seen = 0;
    char *l, *r;
    size_t len;
    for (int b = 0; b < MAX_BLOCKS && armcii_iter_next(&it, &l, &r, &len); b++) {
        if (len == 0 || r < lo || r + len > hi || l < src)
            abort();
        seen += len;
    }
    if (!armcii_iter_next(&it, &l, &r, &len) && seen != expect)
        abort(); /* the walk ended: it must have covered the whole patch */
}

static void vector(input_t *in)
{
    enum { MAXG = 8, MAXP = 16 };
    static void *srcs[MAXG][MAXP], *dsts[MAXG][MAXP];
    armci_giov_t iov[MAXG];
    int n = take_int(in) % (MAXG + 2) - 1; /* -1 .. MAXG */
    for (int g = 0; g < MAXG; g++) {
        int flags = take_int(in);
        iov[g].ptr_array_len = take_int(in) % (MAXP + 2) - 1;
        iov[g].bytes = take_int(in);
        iov[g].src_ptr_array = (flags & 1) ? NULL : srcs[g];
        iov[g].dst_ptr_array = (flags & 2) ? NULL : dsts[g];
        for (int k = 0; k < MAXP; k++) {
            srcs[g][k] = (char *)(uintptr_t)(0x100000000000ULL + (uint64_t)(g * MAXP + k) * 65536);
            dsts[g][k] = (char *)(uintptr_t)(0x200000000000ULL + (uint64_t)(g * MAXP + k) * 65536);
        }
    }
    char err[256];
    if (armcii_vector_check(n < 0 ? NULL : iov, n, err, sizeof err) != 0) {
        if (err[0] == '\0')
            abort();
        return;
    }
    armcii_iter_t it;
    armcii_iter_vector(&it, iov, n, 1);
    unsigned __int128 expect = 0, seen = 0;
    for (int g = 0; g < n; g++)
        expect += (unsigned __int128)(unsigned)iov[g].ptr_array_len * (unsigned)iov[g].bytes;
    char *l, *r;
    size_t len;
    while (armcii_iter_next(&it, &l, &r, &len)) {
        if (len == 0)
            abort();
        seen += len;
    }
    if (seen != expect)
        abort();
}

static void handle(input_t *in)
{
    static armcii_pool_t pool;
    static int ready;
    if (!ready) {
        if (armcii_pool_init(&pool, 8) != 0)
            abort();
        for (int i = 0; i < 3; i++) /* a few requests in flight */
            armcii_pool_take(&pool);
        ready = 1;
    }
    armci_hdl_t h;
    h.slot = take_int(in);
    h.tag = take_int(in);
    armcii_req_t *req = NULL;
    armcii_hdl_state_t st = armcii_hdl_state(&pool, &h, &req);
    if (st == ARMCII_HDL_ACTIVE && (req == NULL || req < pool.slots || req >= pool.slots + 8))
        abort();
    (void)armcii_hdl_is_aggregate(&h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    input_t in = {data + 1, size - 1};
    switch (data[0] % 3) {
    case 0:
        strided(&in);
        break;
    case 1:
        vector(&in);
        break;
    default:
        handle(&in);
        break;
    }
    return 0;
}
