/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Noncontiguous descriptors (strided patches and I/O vectors) as a sequence of
 * contiguous blocks (local address, remote address, length). Pure: validated, merged
 * and walked without communication, so it is unit-tested and fuzzed on its own.
 */
#ifndef ARMCII_ITER_H
#define ARMCII_ITER_H

#include <stddef.h>
#include <stdint.h>

#include <armci.h>

typedef struct armcii_iter {
    int vector; /* 0: strided, 1: I/O vector */
    /* strided, after merging contiguous levels */
    int levels;
    long count[ARMCI_MAX_STRIDE_LEVEL + 1]; /* count[0] in bytes */
    long lstride[ARMCI_MAX_STRIDE_LEVEL], rstride[ARMCI_MAX_STRIDE_LEVEL];
    char *lbase, *rbase;
    long idx[ARMCI_MAX_STRIDE_LEVEL + 1];
    /* vector */
    const armci_giov_t *iov;
    int iov_len, g, k;
    uintptr_t rlo, rhi; /* the remote bytes its blocks cover, where the caller found them
                         * (the API layer's check); rhi 0: not known */
    /* common */
    int local_is_src; /* put/acc: the local side is the source */
    size_t nblocks, done;
} armcii_iter_t;

/**
 * Check a strided descriptor; on error write a message (naming the bad value) into
 * @p err and return -1. The rules: 0 <= stride_levels <= ARMCI_MAX_STRIDE_LEVEL,
 * count[0] >= 0, count[i] >= 0, and each stride at least the extent of the level below
 * it (stride[0] >= count[0], stride[i] >= stride[i-1] * count[i]), on both sides.
 */
int armcii_strided_check(const int *src_stride, const int *dst_stride, const int *count,
                         int stride_levels, char *err, size_t errlen);

/** Start walking a checked strided descriptor; @p local_is_src selects which side the
 *  "local" addresses of the blocks are. */
void armcii_iter_strided(armcii_iter_t *it, void *src, const int *src_stride, void *dst,
                         const int *dst_stride, const int *count, int stride_levels,
                         int local_is_src);

/** Check an I/O vector (non-NULL arrays, non-negative sizes); -1 and a message on error. */
int armcii_vector_check(const armci_giov_t *iov, int iov_len, char *err, size_t errlen);
/**
 * One pass over an I/O vector entry's @p n local and remote addresses: returns whether any
 * local address is NULL, and widens [*lo_p, *hi_p] to the lowest and highest remote
 * address. It is the whole cost of checking a vector of short blocks, as much as moving
 * them on one node (1000 blocks of 8 bytes: 1.0 us of the call's 1.6), so where the
 * processor has AVX2 it reads eight addresses a step (docs/performance-log.md, "Vector calls
 * check their blocks eight at a time").
 */
int armcii_vector_scan(void *const *local, void *const *remote, int n, uintptr_t *lo_p,
                       uintptr_t *hi_p);
void armcii_iter_vector(armcii_iter_t *it, const armci_giov_t *iov, int iov_len, int local_is_src);

/** The next block; 0 when there is none. Zero-length blocks are skipped. */
int armcii_iter_next(armcii_iter_t *it, char **local_p, char **remote_p, size_t *len_p);

/** Lowest and one-past-highest remote address the strided descriptor touches. */
void armcii_iter_remote_extent(const armcii_iter_t *it, char **lo_p, char **hi_p);

#endif
