/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Read-modify-write (amo.c).
 */
#ifndef ARMCII_RMW_H
#define ARMCII_RMW_H

#include <stdint.h>

/* ---- read-modify-write (src/ops/amo.c) ---- */

/** Atomic read-modify-write at @p addr on @p target (an ARMCII_RMW_* op); old value returned. */
uint64_t armcii_rmw(const char *call, int op, int target, void *addr, uint64_t operand,
                    uint64_t comparand);

#endif
