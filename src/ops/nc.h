/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Noncontiguous operations (nc.c): the blocks of a strided or vector call moved to or
 * from one target.
 */
#ifndef ARMCII_NC_H
#define ARMCII_NC_H

#include <stddef.h>

#include <armci.h>

#include "../base/op.h"

struct armcii_iter; /* (iter.h) */

/* ---- noncontiguous operations (src/ops/nc.c) ---- */

/** Move the blocks of @p it (see iter.h) to or from @p target. Remote blocks were checked. */
int armcii_nc(const char *call, armcii_op_t what, int type, const void *scale,
              struct armcii_iter *it, int target, armci_hdl_t *hdl, int blocking);

#endif
