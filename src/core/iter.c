/* Strided and vector descriptors as block sequences (see iter.h). */
#include <stdio.h>
#include <string.h>

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

void armcii_iter_list(armcii_iter_t *it, const armcii_blk_t *blocks, size_t n)
{
    memset(it, 0, sizeof(*it));
    it->vector = 2;
    it->list = blocks;
    it->nblocks = n;
}

int armcii_iter_next(armcii_iter_t *it, char **local_p, char **remote_p, size_t *len_p)
{
    if (it->vector == 2) {
        while (it->done < it->nblocks) {
            const armcii_blk_t *b = &it->list[it->done++];
            if (b->len == 0)
                continue;
            *local_p = b->local;
            *remote_p = b->remote;
            *len_p = b->len;
            return 1;
        }
        return 0;
    }
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
