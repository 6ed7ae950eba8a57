/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Keeping the runtime's hot structures in the processor's caches while the application
 * computes ("hot caching", Dosanjh et al.): a pass of the progress thread reads one word
 * of every cache line an operation will touch first, so that the application's next call
 * finds them in a cache (the thread's core or the shared last level) instead of memory.
 */
#ifndef ARMCII_WARM_H
#define ARMCII_WARM_H

#include <stddef.h>

/** A module's own pass over its hot structures (called under the runtime lock); returns
 *  the lines it read. */
typedef size_t (*armcii_warm_fn)(void);

/** Add @p fn to the pass (cache, aggregation: modules beside the core). At most 8. */
void armcii_warm_register(armcii_warm_fn fn);
/** Whether the progress thread keeps the structures warm, from ARMCI_KEEP_WARM. */
void armcii_warm_init(void);
/** Whether it does (armcii_warm_init decided). */
int armcii_warm_on(void);
/** Under the runtime lock, from the progress thread: a pass if one is due at @p now. */
void armcii_warm_maybe(double now);
/** One pass (under the runtime lock); returns the lines read. */
size_t armcii_warm_pass(void);

#endif
