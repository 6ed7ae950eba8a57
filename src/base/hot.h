/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What code on the hot path is marked with, and how a pass reads memory to keep it
 * cached (warm.h, warm.c): a leaf every layer may include.
 */
#ifndef ARMCII_HOT_H
#define ARMCII_HOT_H

#include <stddef.h>
#include <stdint.h>

#define ARMCII_LINE 64

/* The functions of an 8-byte get, put and accumulate, from the API down to the copy, are
 * placed together in one section of their own: their code then spans a few pages instead
 * of one per source file, and the keep-warm pass reads it from __start_ to __stop_. Each
 * starts a cache line: where one lands then no longer depends on the size of the
 * functions linked before it (a change elsewhere once moved ARMCI_Get to the middle of a
 * line, and same-node gets took 5-8% longer). */
#define ARMCII_HOT __attribute__((section("armcii_hot_text"), aligned(ARMCII_LINE)))
/* A static helper of such a function, folded into each caller: the API functions that
 * share it pass constants (blocking or not, a handle or none) that then decide its
 * branches at compile time, and it costs no call of its own. */
#define ARMCII_INLINE static inline __attribute__((always_inline))

/* A pass reads bytes whose values it never uses, some of them fields that application
 * threads write without the lock (counters updated with atomics): ThreadSanitizer is told
 * not to instrument those reads. */
#ifdef __SANITIZE_THREAD__
#define ARMCII_TOUCH_ATTR __attribute__((no_sanitize_thread))
#else
#define ARMCII_TOUCH_ATTR
#endif

/** Read one byte of every cache line of [p, p+len); returns their sum so that the reads
 *  are not dropped. */
ARMCII_TOUCH_ATTR static inline unsigned armcii_touch(const void *p, size_t len)
{
    const volatile unsigned char *c = (const volatile unsigned char *)p;
    unsigned s = 0;
    if (!p || len == 0)
        return 0;
    uintptr_t first = (uintptr_t)p & ~(uintptr_t)(ARMCII_LINE - 1);
    for (uintptr_t a = first; a < (uintptr_t)p + len; a += ARMCII_LINE)
        s += c[a < (uintptr_t)p ? 0 : a - (uintptr_t)p];
    return s;
}

#endif
