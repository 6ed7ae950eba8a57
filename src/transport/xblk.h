/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One contiguous block of a transfer: where it is here, where it goes (or comes from) at
 * the target, and its length. The core keeps its block lists in this form (an aggregate
 * handle's, armcii_blk_t in iter.h), so the transport packs them without a call per block.
 * Pure, like caps.h.
 */
#ifndef ARMCII_XBLK_H
#define ARMCII_XBLK_H

#include <stddef.h>

typedef struct {
    char *local, *remote;
    size_t len;
} armcii_xblk_t;

#endif
