/*
 * Keeping the runtime's hot structures in the processor's caches while the application
 * computes ("hot caching", Dosanjh et al.): a pass of the progress thread reads one word
 * of every cache line an operation will touch first, so that the application's next call
 * finds them in a cache (the thread's core or the shared last level) instead of memory.
 */
#ifndef ARMCII_WARM_H
#define ARMCII_WARM_H

#include <stddef.h>
#include <stdint.h>

#define ARMCII_LINE 64

/* The functions of an 8-byte get, put and accumulate, from the API down to the copy, are
 * placed together in one section of their own: their code then spans a few pages instead
 * of one per source file, and the keep-warm pass reads it from __start_ to __stop_. */
#define ARMCII_HOT __attribute__((section("armcii_hot_text")))

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

/** A module's own pass over its hot structures (called under the runtime lock); returns
 *  the lines it read. */
typedef size_t (*armcii_warm_fn)(void);

/** Add @p fn to the pass (cache, aggregation: modules beside the core). At most 8. */
void armcii_warm_register(armcii_warm_fn fn);
/** Whether the progress thread keeps the structures warm, from ARMCI_KEEP_WARM. */
void armcii_warm_init(void);
/** Under the runtime lock, from the progress thread: a pass if one is due at @p now. */
void armcii_warm_maybe(double now);
/** One pass (under the runtime lock); returns the lines read. */
size_t armcii_warm_pass(void);

#endif
