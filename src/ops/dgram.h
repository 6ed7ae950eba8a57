/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Small requests to a computing holder by datagram (dgram.c).
 */
#ifndef ARMCII_DGRAM_H
#define ARMCII_DGRAM_H

#include <stddef.h>
#include <stdint.h>

/** A read-modify-write on @p target's word @p addr by datagram, where its holder suits
 *  (armcii_serve_suits): 1 with the old value in @p old, else 0 (the caller goes through
 *  libfabric). */
int armcii_dgram_rmw(const char *call, int op, int target, void *addr, uint64_t operand,
                     uint64_t comparand, uint64_t *old);
/** A blocking get of @p len bytes by datagram, where it is small and its holder suits: 1
 *  if it went (and arrived), else 0. */
int armcii_dgram_get(const char *call, const void *src, void *dst, size_t len, int target);
/** An accumulate that may return before it is applied (blocking, or implicit) joins the
 *  open datagram to @p target, where it is small and its holder suits: 1 if it did, else
 *  0. */
int armcii_dgram_acc(const char *call, int type, const void *scale, const void *src, void *dst,
                     size_t len, int target);
/** Registers the open datagram with the waits (armcii_progress_hold). */
void armcii_dgram_init(void);

#endif
