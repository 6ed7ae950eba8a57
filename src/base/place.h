/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where data that another party consumes lands (cache injection, Leon): a copy the
 * consumer reads soon goes through the cache; a large one that will not be read soon goes
 * around it (non-temporal stores), so that it does not push out the working set of the
 * process that writes it. ARMCI_PLACEMENT chooses: auto (by size, against this process's
 * share of the last-level cache that hwloc reports, and the cache for data a flag
 * announces), cache, or memory.
 */
#ifndef ARMCII_PLACE_H
#define ARMCII_PLACE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum { ARMCII_PLACE_AUTO, ARMCII_PLACE_CACHE, ARMCII_PLACE_MEMORY };

/** Parse ARMCI_PLACEMENT; -1 for anything else. */
int armcii_place_parse(const char *s);
/** Set the policy: @p mode from armcii_place_parse; @p l2 and @p l3 the bytes of one
 *  core's L2 and of the L3 (0: unknown), shared by @p sharing processes. The threshold is
 *  the last level's size over @p sharing (16 MiB where hwloc knows neither). */
void armcii_place_init(int mode, size_t l2, size_t l3, int sharing);
/** The smallest copy that goes around the cache under ARMCI_PLACEMENT=auto. */
size_t armcii_place_threshold(void);
extern int armcii_place_mode;
extern size_t armcii_place_min;

/** Whether a copy of @p len bytes goes around the cache; @p announced: a flag tells the
 *  consumer of its arrival, so it is read at once. */
static inline int armcii_place_memory(size_t len, int announced)
{
    if (armcii_place_mode == ARMCII_PLACE_AUTO)
        return !announced && len >= armcii_place_min;
    return armcii_place_mode == ARMCII_PLACE_MEMORY && len > 0;
}
/** Copy @p len bytes with non-temporal stores where the processor has them, then fence;
 *  the ranges must not overlap. */
void armcii_copy_nt(void *dst, const void *src, size_t len);
/** Copy (or move, for overlapping ranges) as the policy says; the general case. */
void armcii_place_copy_any(void *dst, const void *src, size_t len, int announced);

/** Sixteen bytes, which a copy of this size moves in one load and one store. */
typedef struct {
    uint64_t w[2];
} armcii_b16_t;

/** Copy (or move, for overlapping ranges) as the policy says. From 4 to 64 bytes, the sizes
 *  of small operations, without a call: the loads of both ends (and of the middle, past
 *  32), then the stores (overlapping when shorter; every load comes first, so a move is
 *  right too). A same-node NbGet of 32-128 bytes spent 1.6 ns more than ComEx PR's in the
 *  call (docs/performance-log.md, "Vector calls check their blocks eight at a time"). */
static inline void armcii_place_copy(void *dst, const void *src, size_t len, int announced)
{
    if (len < 4 || len > 64 || armcii_place_memory(len, announced)) {
        armcii_place_copy_any(dst, src, len, announced);
    } else if (len > 32) {
        armcii_b16_t a, b, c, d;
        memcpy(&a, src, 16);
        memcpy(&b, (const char *)src + 16, 16);
        memcpy(&c, (const char *)src + len - 32, 16);
        memcpy(&d, (const char *)src + len - 16, 16);
        memcpy(dst, &a, 16);
        memcpy((char *)dst + 16, &b, 16);
        memcpy((char *)dst + len - 32, &c, 16);
        memcpy((char *)dst + len - 16, &d, 16);
    } else if (len > 16) {
        armcii_b16_t a, b;
        memcpy(&a, src, 16);
        memcpy(&b, (const char *)src + len - 16, 16);
        memcpy(dst, &a, 16);
        memcpy((char *)dst + len - 16, &b, 16);
    } else if (len >= 8) {
        uint64_t a, b;
        memcpy(&a, src, 8);
        memcpy(&b, (const char *)src + len - 8, 8);
        memcpy(dst, &a, 8);
        memcpy((char *)dst + len - 8, &b, 8);
    } else {
        uint32_t a, b;
        memcpy(&a, src, 4);
        memcpy(&b, (const char *)src + len - 4, 4);
        memcpy(dst, &a, 4);
        memcpy((char *)dst + len - 4, &b, 4);
    }
}
/** Copies that went around the cache so far (ARMCI_STATS). */
long armcii_place_count(void);

#endif
