/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Noncontiguous operations (nc.c): the blocks of a strided or vector call moved to or
 * from one target, and the segment a checked remote range lies in.
 */
#ifndef ARMCII_NC_H
#define ARMCII_NC_H

#include <stddef.h>

#include <armci.h>

#include "../base/op.h"
#include "../base/region.h"

struct armcii_iter; /* (iter.h) */

/* ---- noncontiguous operations (src/ops/nc.c) ---- */

/** Move the blocks of @p it (see iter.h) to or from @p target. Remote blocks were checked. */
int armcii_nc(const char *call, armcii_op_t what, int type, const void *scale,
              struct armcii_iter *it, int target, armci_hdl_t *hdl, int blocking);
/** The segment of @p target holding [@p r, +@p len), which the API layer checked: the job
 *  ends (naming an internal error) if it has none. */
const armcii_seg_t *armcii_seg_of(const char *call, int target, const void *r, size_t len);

#endif
