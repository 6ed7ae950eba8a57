/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A strided or vector get of blocks too short for an RMA read each, read as the one range
 * of the target's memory they span, when that range is not much longer than the blocks
 * (ARMCI_NC_SPAN_RATIO, ARMCI_NC_SPAN_MIN): one read into memory of the request's own,
 * then the blocks copied out of it when the read completes. The other way, one message
 * the target answers, costs a second message and the target's handler; over tcp a read of
 * 16 KB takes no longer than the message of 1000 8-byte blocks asking for them.
 */
#ifndef ARMCII_SPAN_H
#define ARMCII_SPAN_H

#include <stddef.h>
#include <stdint.h>

#include "../base/iter.h"
#include "../base/region.h"
#include "exec.h"

/** The range a get's blocks span in the target's memory. */
typedef struct {
    uintptr_t lo, hi;        /* lowest remote byte, one past the highest */
    size_t bytes;            /* bytes the blocks ask for */
    size_t nblocks;          /* blocks of nonzero length */
    const armcii_seg_t *seg; /* the target's segment holding the whole range */
} armcii_nc_span_t;

/** Whether the get of @p it from @p target goes as one read of its span; fills @p s. */
int armcii_span_plan(const armcii_iter_t *it, int target, armcii_nc_span_t *s);

/** The get planned in @p s, carried out as the executor's plan @p p says (a request of
 *  kind ARMCII_REQ_GET, waited for here when blocking). */
void armcii_span_get(const char *call, armcii_iter_t *it, const armcii_nc_span_t *s,
                     armcii_plan_t *p);

#endif
