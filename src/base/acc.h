/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Accumulate and read-modify-write kernels (acc.c): pure arithmetic on local memory, for
 * every path that applies an accumulate or an atomic where the data is (same-node copies,
 * the target's handler of software accumulates, the staging of native ones).
 */
#ifndef ARMCII_ACC_H
#define ARMCII_ACC_H

#include <stddef.h>
#include <stdint.h>

/** Atomically apply @p op at @p addr; @return the old value. @p extra: CAS comparand. */
uint64_t armcii_rmw_apply(int op, void *addr, uint64_t operand, const void *extra);

size_t armcii_acc_type_size(int type); /* 0 for an unknown type */
void armcii_acc_apply(int type, const void *scale, const void *src, void *dst, size_t bytes);
/** Read the first lines of the accumulate kernels' code (src/core/warm.c); returns the lines. */
size_t armcii_acc_kernels_touch(unsigned *sum);
/** dst = scale * src, element-wise (used to pre-scale hardware accumulates). */
void armcii_acc_scale(int type, const void *scale, const void *src, void *dst, size_t bytes);
int armcii_acc_scale_is_one(int type, const void *scale);

#endif
