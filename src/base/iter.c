/* SPDX-License-Identifier: BSD-3-Clause */
/* Strided and vector descriptors as block sequences (see iter.h). */
#include <stdio.h>
#include <string.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "iter.h"

int armcii_strided_check(const int *src_stride, const int *dst_stride, const int *count,
                         int stride_levels, char *err, size_t errlen)
{
    if (stride_levels < 0 || stride_levels > ARMCI_MAX_STRIDE_LEVEL) {
        snprintf(err, errlen, "stride_levels %d is outside 0..%d (ARMCI_MAX_STRIDE_LEVEL)",
                 stride_levels, ARMCI_MAX_STRIDE_LEVEL);
        return -1;
    }
    if (count == NULL) {
        snprintf(err, errlen, "count is NULL");
        return -1;
    }
    if (stride_levels > 0 && (src_stride == NULL || dst_stride == NULL)) {
        snprintf(err, errlen, "%s is NULL with %d stride levels",
                 src_stride == NULL ? "src_stride_arr" : "dst_stride_arr", stride_levels);
        return -1;
    }
    for (int i = 0; i <= stride_levels; i++) {
        if (count[i] < 0) {
            snprintf(err, errlen, "count[%d] is negative (%d)", i, count[i]);
            return -1;
        }
    }
    const int *strides[2] = {src_stride, dst_stride};
    static const char *names[2] = {"src_stride_arr", "dst_stride_arr"};
    for (int s = 0; s < 2; s++) {
        long extent = count[0]; /* bytes spanned by one unit of the current level */
        for (int i = 0; i < stride_levels; i++) {
            if ((long)strides[s][i] < extent && count[i + 1] > 1) {
                snprintf(err, errlen,
                         "%s[%d] = %d is smaller than the %ld bytes of the level below it",
                         names[s], i, strides[s][i], extent);
                return -1;
            }
            /* A level of one unit adds nothing (its stride is never used, whatever its
             * sign); a level of none leaves nothing to move. */
            if (count[i + 1] == 0)
                extent = 0;
            else if (count[i + 1] > 1)
                extent = (long)strides[s][i] * count[i + 1];
        }
    }
    return 0;
}

static size_t product(const long *count, int from, int to)
{
    size_t n = 1;
    for (int i = from; i <= to; i++)
        n *= (size_t)count[i];
    return n;
}

void armcii_iter_strided(armcii_iter_t *it, void *src, const int *src_stride, void *dst,
                         const int *dst_stride, const int *count, int stride_levels,
                         int local_is_src)
{
    memset(it, 0, sizeof(*it));
    it->local_is_src = local_is_src;
    const int *ls = local_is_src ? src_stride : dst_stride;
    const int *rs = local_is_src ? dst_stride : src_stride;
    it->lbase = local_is_src ? src : dst;
    it->rbase = local_is_src ? dst : src;
    it->count[0] = count[0];
    /* Merge a level into the block while both sides are contiguous across it: a patch
     * that is really contiguous becomes one block. Levels of count 1 vanish. */
    int out = 0;
    for (int i = 0; i < stride_levels; i++) {
        long c = count[i + 1];
        if (c == 1)
            continue;
        if (out == 0 && ls[i] == it->count[0] && rs[i] == it->count[0]) {
            it->count[0] *= c;
            continue;
        }
        it->lstride[out] = ls[i];
        it->rstride[out] = rs[i];
        it->count[++out] = c;
    }
    it->levels = out;
    it->nblocks = it->count[0] == 0 ? 0 : product(it->count, 1, out);
}

int armcii_vector_check(const armci_giov_t *iov, int iov_len, char *err, size_t errlen)
{
    if (iov_len < 0) {
        snprintf(err, errlen, "iov_len is negative (%d)", iov_len);
        return -1;
    }
    if (iov_len > 0 && iov == NULL) {
        snprintf(err, errlen, "iov is NULL with iov_len %d", iov_len);
        return -1;
    }
    for (int g = 0; g < iov_len; g++) {
        if (iov[g].bytes < 0 || iov[g].ptr_array_len < 0) {
            snprintf(err, errlen, "iov[%d] has a negative %s (%d)", g,
                     iov[g].bytes < 0 ? "bytes" : "ptr_array_len",
                     iov[g].bytes < 0 ? iov[g].bytes : iov[g].ptr_array_len);
            return -1;
        }
        if (iov[g].ptr_array_len > 0 &&
            (iov[g].src_ptr_array == NULL || iov[g].dst_ptr_array == NULL)) {
            snprintf(err, errlen, "iov[%d].%s is NULL", g,
                     iov[g].src_ptr_array == NULL ? "src_ptr_array" : "dst_ptr_array");
            return -1;
        }
    }
    return 0;
}

/* The plain loop: no branch depends on the addresses. */
static int scan_scalar(void *const *local, void *const *remote, int n, uintptr_t *lo_p,
                       uintptr_t *hi_p)
{
    uintptr_t lo = *lo_p, hi = *hi_p;
    int null = 0;
    for (int k = 0; k < n; k++) {
        null |= local[k] == NULL;
        uintptr_t r = (uintptr_t)remote[k];
        lo = r < lo ? r : lo;
        hi = r > hi ? r : hi;
    }
    *lo_p = lo;
    *hi_p = hi;
    return null;
}

#if defined(__x86_64__) && defined(__GNUC__)
/* AVX2 compares 64-bit lanes as signed: each address is biased by 2^63 so that the signed
 * order is the unsigned one. Two sets of accumulators keep two compare-and-blend chains in
 * flight. */
__attribute__((target("avx2"))) static int scan_avx2(void *const *local, void *const *remote, int n,
                                                     uintptr_t *lo_p, uintptr_t *hi_p)
{
    const __m256i bias = _mm256_set1_epi64x(INT64_MIN), zero = _mm256_setzero_si256();
    __m256i lo0 = _mm256_set1_epi64x((long long)(*lo_p ^ (uintptr_t)INT64_MIN));
    __m256i hi0 = _mm256_set1_epi64x((long long)(*hi_p ^ (uintptr_t)INT64_MIN));
    __m256i lo1 = lo0, hi1 = hi0, null = zero;
    int k = 0;
    for (; k + 8 <= n; k += 8) {
        __m256i l0 = _mm256_loadu_si256((const __m256i *)(const void *)(local + k));
        __m256i l1 = _mm256_loadu_si256((const __m256i *)(const void *)(local + k + 4));
        __m256i r0 =
            _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(const void *)(remote + k)), bias);
        __m256i r1 = _mm256_xor_si256(
            _mm256_loadu_si256((const __m256i *)(const void *)(remote + k + 4)), bias);
        null = _mm256_or_si256(null, _mm256_cmpeq_epi64(l0, zero));
        null = _mm256_or_si256(null, _mm256_cmpeq_epi64(l1, zero));
        lo0 = _mm256_blendv_epi8(lo0, r0, _mm256_cmpgt_epi64(lo0, r0));
        lo1 = _mm256_blendv_epi8(lo1, r1, _mm256_cmpgt_epi64(lo1, r1));
        hi0 = _mm256_blendv_epi8(hi0, r0, _mm256_cmpgt_epi64(r0, hi0));
        hi1 = _mm256_blendv_epi8(hi1, r1, _mm256_cmpgt_epi64(r1, hi1));
    }
    uint64_t los[8], his[8];
    _mm256_storeu_si256((__m256i *)(void *)los, lo0);
    _mm256_storeu_si256((__m256i *)(void *)(los + 4), lo1);
    _mm256_storeu_si256((__m256i *)(void *)his, hi0);
    _mm256_storeu_si256((__m256i *)(void *)(his + 4), hi1);
    uintptr_t lo = *lo_p, hi = *hi_p;
    for (int i = 0; i < 8; i++) {
        uintptr_t a = (uintptr_t)(los[i] ^ (uint64_t)INT64_MIN);
        uintptr_t b = (uintptr_t)(his[i] ^ (uint64_t)INT64_MIN);
        lo = a < lo ? a : lo;
        hi = b > hi ? b : hi;
    }
    *lo_p = lo;
    *hi_p = hi;
    int tail = scan_scalar(local + k, remote + k, n - k, lo_p, hi_p);
    return tail || !_mm256_testz_si256(null, null);
}
#endif

int armcii_vector_scan(void *const *local, void *const *remote, int n, uintptr_t *lo_p,
                       uintptr_t *hi_p)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (n >= 16 && __builtin_cpu_supports("avx2"))
        return scan_avx2(local, remote, n, lo_p, hi_p);
#endif
    return scan_scalar(local, remote, n, lo_p, hi_p);
}

void armcii_iter_vector(armcii_iter_t *it, const armci_giov_t *iov, int iov_len, int local_is_src)
{
    memset(it, 0, sizeof(*it));
    it->vector = 1;
    it->iov = iov;
    it->iov_len = iov_len;
    it->local_is_src = local_is_src;
    for (int g = 0; g < iov_len; g++)
        if (iov[g].bytes > 0)
            it->nblocks += (size_t)iov[g].ptr_array_len;
}

int armcii_iter_next(armcii_iter_t *it, char **local_p, char **remote_p, size_t *len_p)
{
    if (it->vector) {
        while (it->g < it->iov_len) {
            const armci_giov_t *v = &it->iov[it->g];
            if (v->bytes > 0 && it->k < v->ptr_array_len) {
                char *s = v->src_ptr_array[it->k], *d = v->dst_ptr_array[it->k];
                it->k++;
                *local_p = it->local_is_src ? s : d;
                *remote_p = it->local_is_src ? d : s;
                *len_p = (size_t)v->bytes;
                it->done++;
                return 1;
            }
            it->g++;
            it->k = 0;
        }
        return 0;
    }
    if (it->done >= it->nblocks)
        return 0;
    long loff = 0, roff = 0;
    for (int i = 0; i < it->levels; i++) {
        loff += it->idx[i + 1] * it->lstride[i];
        roff += it->idx[i + 1] * it->rstride[i];
    }
    *local_p = it->lbase + loff;
    *remote_p = it->rbase + roff;
    *len_p = (size_t)it->count[0];
    it->done++;
    /* odometer */
    for (int i = 1; i <= it->levels; i++) {
        if (++it->idx[i] < it->count[i])
            break;
        it->idx[i] = 0;
    }
    return 1;
}

void armcii_iter_remote_extent(const armcii_iter_t *it, char **lo_p, char **hi_p)
{
    long hi = it->count[0];
    for (int i = 0; i < it->levels; i++)
        hi += (it->count[i + 1] - 1) * it->rstride[i];
    *lo_p = it->rbase;
    *hi_p = it->rbase + (it->nblocks ? hi : 0);
}
