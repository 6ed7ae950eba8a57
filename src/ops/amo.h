/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Read-modify-write (amo.c).
 */
#ifndef ARMCII_RMW_H
#define ARMCII_RMW_H

#include <stdint.h>

#include "../base/region.h"

/* ---- read-modify-write (src/ops/amo.c) ---- */

/** Atomic read-modify-write at @p addr on @p target (an ARMCII_RMW_* op); old value returned.
 *  @p seg: the segment holding @p addr where the caller found it, or NULL (found here where
 *  it is needed: libfabric's atomics). */
uint64_t armcii_rmw(const char *call, int op, int target, void *addr, const armcii_seg_t *seg,
                    uint64_t operand, uint64_t comparand);

#endif
