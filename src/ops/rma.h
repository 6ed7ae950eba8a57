/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Contiguous operations (rma.c): put, get, accumulate and the flagged put (their same-node
 * part is local.h's).
 */
#ifndef ARMCII_RMA_H
#define ARMCII_RMA_H

#include <stddef.h>

#include <armci.h>

#include "../base/region.h"

/* ---- contiguous operations (src/ops/rma.c) ---- */

int armcii_put(const char *call, const void *src, void *dst, size_t len, int target,
               const armcii_seg_t *seg, armci_hdl_t *hdl, int blocking);
int armcii_get(const char *call, const void *src, void *dst, size_t len, int target,
               const armcii_seg_t *seg, armci_hdl_t *hdl, int blocking);
int armcii_acc(const char *call, int type, const void *scale, const void *src, void *dst,
               size_t len, int target, const armcii_seg_t *seg, armci_hdl_t *hdl, int blocking);
/** ARMCI_Put_flag: the data, then @p value stored into @p flag once the data is in place
 *  (@p seg: the segment of @p dst, NULL when @p len is 0). */
void armcii_put_flag(const char *call, const void *src, void *dst, const armcii_seg_t *seg,
                     size_t len, int *flag, int value, int target, armci_hdl_t *hdl);

#endif
