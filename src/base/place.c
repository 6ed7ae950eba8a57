/* SPDX-License-Identifier: BSD-3-Clause */
/* The placement policy for arriving data (place.h). */
#include <stdint.h>
#include <string.h>
#include <strings.h>
#if defined(__x86_64__)
#include <emmintrin.h>
#endif

#include "place.h"
#include "hot.h"

int armcii_place_mode = ARMCII_PLACE_AUTO;
size_t armcii_place_min = (size_t)16 << 20;
static long around; /* copies around the cache (atomic: several threads copy) */

int armcii_place_parse(const char *s)
{
    if (!strcasecmp(s, "auto"))
        return ARMCII_PLACE_AUTO;
    if (!strcasecmp(s, "cache"))
        return ARMCII_PLACE_CACHE;
    if (!strcasecmp(s, "memory"))
        return ARMCII_PLACE_MEMORY;
    return -1;
}

/* A copy as large as this process's share of the last-level cache would push out what
 * the process and its node peers keep there, and it is no faster through the cache:
 * place_bench showed puts of 16 and 64 MiB faster around the cache, and puts of 1 and 4
 * MiB faster through it (docs/performance.md, "Where arriving data land"). */
void armcii_place_init(int mode, size_t l2, size_t l3, int sharing)
{
    armcii_place_mode = mode;
    size_t llc = l3 ? l3 : l2;
    armcii_place_min = llc ? llc / (size_t)(sharing > 0 ? sharing : 1) : (size_t)16 << 20;
}

size_t armcii_place_threshold(void)
{
    return armcii_place_min;
}

void armcii_copy_nt(void *dst, const void *src, size_t len)
{
#if defined(__x86_64__)
    char *d = dst;
    const char *s = src;
    size_t head = (16 - ((uintptr_t)d & 15)) & 15;
    if (len < head + 64) {
        memcpy(d, s, len);
        return;
    }
    memcpy(d, s, head); /* up to the first 16-byte boundary of the destination */
    d += head;
    s += head;
    len -= head;
    for (; len >= 64; len -= 64, d += 64, s += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)s);
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(s + 32));
        __m128i e = _mm_loadu_si128((const __m128i *)(const void *)(s + 48));
        _mm_stream_si128((__m128i *)(void *)d, a);
        _mm_stream_si128((__m128i *)(void *)(d + 16), b);
        _mm_stream_si128((__m128i *)(void *)(d + 32), c);
        _mm_stream_si128((__m128i *)(void *)(d + 48), e);
    }
    memcpy(d, s, len);
    _mm_sfence(); /* the stores are weakly ordered: a flag written next must not pass them */
#else
    memcpy(dst, src, len);
#endif
}

/* Every same-node put and get copies through here: its code belongs with theirs, in the
 * section the keep-warm pass reads. */
ARMCII_HOT void armcii_place_copy_any(void *dst, const void *src, size_t len, int announced)
{
    uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src;
    int disjoint = d + len <= s || s + len <= d;
    if (disjoint && armcii_place_memory(len, announced)) {
        armcii_copy_nt(dst, src, len);
        __atomic_add_fetch(&around, 1, __ATOMIC_RELAXED);
    } else if (len > 0) {
        memmove(dst, src, len);
    }
}

long armcii_place_count(void)
{
    return __atomic_load_n(&around, __ATOMIC_RELAXED);
}
