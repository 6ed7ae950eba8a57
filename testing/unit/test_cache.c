/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the get cache's pure parts: the cuckoo index (lookups, the kick bound,
 * path eviction, resizing), the storage allocator (best fit, merging, growth), and the
 * engine (containment hits, eviction by score, range invalidation, the adaptive scheme
 * on synthetic access sequences).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "../../src/cache/cache.h"
#include "unit.h"

/* ---- cuckoo index ---- */

static double score_by_id(void *ctx, int32_t id)
{
    (void)ctx;
    return (double)id; /* lower ids are dropped first */
}

static int match_any(void *ctx, int32_t id)
{
    (void)ctx;
    (void)id;
    return 1;
}

static int32_t find_id(armcii_cuckoo_t *c, int32_t id)
{
    return armcii_cuckoo_find(c, armcii_mix64((uint64_t)id), match_any, NULL);
}

static void test_cuckoo_basic(void)
{
    armcii_cuckoo_t c;
    CU_ASSERT_FATAL(armcii_cuckoo_init(&c, 1000, 16) == 0);
    CU_ASSERT_EQUAL(c.nslots, 1024);
    /* half full: every key finds a place without losing another */
    for (int32_t i = 0; i < 512; i++) {
        int32_t v = -7;
        CU_ASSERT_EQUAL(
            armcii_cuckoo_insert(&c, armcii_mix64((uint64_t)i), i, score_by_id, NULL, &v), 0);
        CU_ASSERT_EQUAL(v, -7); /* untouched when nothing was dropped */
    }
    CU_ASSERT_EQUAL(c.used, 512);
    for (int32_t i = 0; i < 512; i++)
        CU_ASSERT_EQUAL(find_id(&c, i), i);
    CU_ASSERT_EQUAL(find_id(&c, 600), -1);
    CU_ASSERT_EQUAL(armcii_cuckoo_remove(&c, armcii_mix64(7), 7), 0);
    CU_ASSERT_EQUAL(armcii_cuckoo_remove(&c, armcii_mix64(7), 7), -1);
    CU_ASSERT_EQUAL(find_id(&c, 7), -1);
    CU_ASSERT_EQUAL(c.used, 511);
    armcii_cuckoo_fini(&c);
}

static void test_cuckoo_kick_bound(void)
{
    /* 8 slots, 3 ways, kicks bounded at 4: once full, each insert must end its chain
     * within the bound, drop exactly one key (the lowest-scored on its path), and leave
     * every other key findable. */
    armcii_cuckoo_t c;
    CU_ASSERT_FATAL(armcii_cuckoo_init(&c, 8, 4) == 0);
    int present[200] = {0};
    int dropped_total = 0;
    for (int32_t i = 100; i < 200; i++) { /* rising scores: newer keys are worth more */
        int32_t v = -1;
        int r = armcii_cuckoo_insert(&c, armcii_mix64((uint64_t)i), i, score_by_id, NULL, &v);
        CU_ASSERT(r == 0 || r == 1);
        present[i] = 1;
        if (r == 1) {
            CU_ASSERT(v >= 100 && v < i); /* never the new, highest-scored key */
            CU_ASSERT(present[v]);
            present[v] = 0;
            dropped_total++;
        }
        CU_ASSERT(c.used <= c.nslots);
    }
    int held = 0;
    for (int32_t i = 100; i < 200; i++) {
        int32_t f = find_id(&c, i);
        CU_ASSERT_EQUAL(f, present[i] ? i : -1);
        held += present[i];
    }
    CU_ASSERT_EQUAL((size_t)held, c.used);
    CU_ASSERT_EQUAL(held + dropped_total, 100);
    CU_ASSERT(held >= 6); /* three ways keep a small table nearly full */

    /* A key that scores below everything on its path is refused, the table unchanged. */
    if (c.used == c.nslots) {
        int32_t v = 0;
        CU_ASSERT_EQUAL(armcii_cuckoo_insert(&c, armcii_mix64(5), 5, score_by_id, NULL, &v), -1);
        CU_ASSERT_EQUAL(v, 5);
        CU_ASSERT_EQUAL(find_id(&c, 5), -1);
        for (int32_t i = 100; i < 200; i++)
            CU_ASSERT_EQUAL(find_id(&c, i), present[i] ? i : -1);
    }
    armcii_cuckoo_fini(&c);
}

static int n_resize_drops;
static void count_drop(void *ctx, int32_t id)
{
    (void)ctx;
    (void)id;
    n_resize_drops++;
}

static void test_cuckoo_resize(void)
{
    armcii_cuckoo_t c;
    CU_ASSERT_FATAL(armcii_cuckoo_init(&c, 64, 32) == 0);
    for (int32_t i = 0; i < 40; i++)
        armcii_cuckoo_insert(&c, armcii_mix64((uint64_t)i), i, score_by_id, NULL, NULL);
    size_t before = c.used;
    n_resize_drops = 0;
    CU_ASSERT_EQUAL(armcii_cuckoo_resize(&c, 256, score_by_id, count_drop, NULL), 0);
    CU_ASSERT_EQUAL(c.nslots, 256);
    CU_ASSERT_EQUAL(n_resize_drops, 0);
    CU_ASSERT_EQUAL(c.used, before); /* growing keeps every key */
    for (int32_t i = 0; i < 40; i++)
        CU_ASSERT_EQUAL(find_id(&c, i), i);
    /* shrinking below the key count must drop the difference, nothing more */
    CU_ASSERT_EQUAL(armcii_cuckoo_resize(&c, 16, score_by_id, count_drop, NULL), 0);
    CU_ASSERT_EQUAL(c.used + (size_t)n_resize_drops, before);
    CU_ASSERT(c.used <= 16);
    armcii_cuckoo_fini(&c);
}

/* ---- storage allocator ---- */

static void test_store_best_fit(void)
{
    armcii_store_t s;
    CU_ASSERT_FATAL(armcii_store_init(&s, 4096) == 0);
    int32_t a = armcii_store_alloc(&s, 100); /* rounded to 104 */
    int32_t b = armcii_store_alloc(&s, 1000);
    int32_t c = armcii_store_alloc(&s, 200);
    int32_t d = armcii_store_alloc(&s, 300);
    int32_t e = armcii_store_alloc(&s, 64);
    CU_ASSERT(a >= 0 && b >= 0 && c >= 0 && d >= 0 && e >= 0);
    CU_ASSERT_EQUAL(armcii_store_off(&s, a), 0);
    CU_ASSERT_EQUAL(armcii_store_off(&s, b), 104);
    CU_ASSERT_EQUAL(s.used, 104 + 1000 + 200 + 304 + 64);
    /* holes of 1000 (b) and 304 (d): a 250-byte request takes the 304 hole (best fit),
     * not the first or the largest */
    armcii_store_free(&s, b);
    armcii_store_free(&s, d);
    int32_t f = armcii_store_alloc(&s, 250);
    CU_ASSERT_EQUAL(armcii_store_off(&s, f), 104 + 1000 + 200);
    /* exact fit of the 1000 hole */
    int32_t g = armcii_store_alloc(&s, 1000);
    CU_ASSERT_EQUAL(armcii_store_off(&s, g), 104);
    armcii_store_fini(&s);
}

static void test_store_merge(void)
{
    armcii_store_t s;
    CU_ASSERT_FATAL(armcii_store_init(&s, 16 * 104) == 0);
    int32_t id[16];
    for (int i = 0; i < 16; i++) {
        id[i] = armcii_store_alloc(&s, 100); /* 104 with the alignment */
        CU_ASSERT_FATAL(id[i] >= 0);
    }
    CU_ASSERT_EQUAL(armcii_store_alloc(&s, 8), -1); /* full */
    /* free every other block: 8 holes of 104 bytes, none can hold 200 */
    for (int i = 0; i < 16; i += 2)
        armcii_store_free(&s, id[i]);
    CU_ASSERT_EQUAL(s.nfree, 8);
    CU_ASSERT_EQUAL(armcii_store_largest_free(&s), 104);
    CU_ASSERT_EQUAL(armcii_store_alloc(&s, 200), -1);
    /* freeing block 1 merges holes 0, 1 and 2 into one of 312 bytes */
    armcii_store_free(&s, id[1]);
    CU_ASSERT_EQUAL(s.nfree, 7);
    CU_ASSERT_EQUAL(armcii_store_largest_free(&s), 312);
    int32_t big = armcii_store_alloc(&s, 300);
    CU_ASSERT_EQUAL(armcii_store_off(&s, big), 0);
    armcii_store_free(&s, big);
    for (int i = 3; i < 16; i += 2)
        armcii_store_free(&s, id[i]);
    /* everything free again: one block of the whole size */
    CU_ASSERT_EQUAL(s.nfree, 1);
    CU_ASSERT_EQUAL(s.used, 0);
    CU_ASSERT_EQUAL(armcii_store_largest_free(&s), 16 * 104);
    /* growth extends the free tail */
    CU_ASSERT_EQUAL(armcii_store_grow(&s, 4000), 0);
    CU_ASSERT_EQUAL(s.nfree, 1);
    CU_ASSERT_EQUAL(armcii_store_largest_free(&s), 4000);
    int32_t x = armcii_store_alloc(&s, 3000);
    CU_ASSERT_EQUAL(armcii_store_grow(&s, 5000), 0); /* the free tail [3000, 4000) grows */
    CU_ASSERT_EQUAL(armcii_store_largest_free(&s), 2000);
    int32_t y = armcii_store_alloc(&s, 2000);
    CU_ASSERT_EQUAL(armcii_store_grow(&s, 6000), 0); /* tail in use: a new free block */
    CU_ASSERT_EQUAL(s.nfree, 1);
    CU_ASSERT_EQUAL(armcii_store_largest_free(&s), 1000);
    armcii_store_free(&s, y);
    armcii_store_free(&s, x);
    CU_ASSERT_EQUAL(armcii_store_largest_free(&s), 6000);
    armcii_store_fini(&s);
}

static void test_store_random(void)
{
    /* random allocations and frees: used bytes and free space always add up, and no two
     * live blocks overlap */
    armcii_store_t s;
    CU_ASSERT_FATAL(armcii_store_init(&s, 1 << 16) == 0);
    int32_t live[256];
    size_t len[256];
    int n = 0;
    unsigned seed = 12345;
    for (int step = 0; step < 20000; step++) {
        seed = seed * 1103515245u + 12345u;
        if (n > 0 && (n == 256 || (seed >> 16) % 3 == 0)) {
            int k = (int)((seed >> 8) % (unsigned)n);
            armcii_store_free(&s, live[k]);
            live[k] = live[--n];
            len[k] = len[n];
        } else {
            size_t want = 1 + (seed >> 12) % 2000;
            int32_t b = armcii_store_alloc(&s, want);
            if (b >= 0) {
                live[n] = b;
                len[n++] = (want + 7) & ~(size_t)7;
            }
        }
    }
    size_t used = 0;
    for (int i = 0; i < n; i++) {
        used += len[i];
        for (int j = i + 1; j < n; j++) {
            size_t oi = armcii_store_off(&s, live[i]), oj = armcii_store_off(&s, live[j]);
            CU_ASSERT(oi + len[i] <= oj || oj + len[j] <= oi);
        }
    }
    CU_ASSERT_EQUAL(s.used, used);
    for (int i = 0; i < n; i++)
        armcii_store_free(&s, live[i]);
    CU_ASSERT_EQUAL(s.nfree, 1);
    CU_ASSERT_EQUAL(armcii_store_largest_free(&s), (size_t)1 << 16);
    armcii_store_fini(&s);
}

/* ---- engine ---- */

static void params(armcii_cache_params_t *p, size_t slots, size_t bytes, int adaptive)
{
    armcii_cache_params_default(p, 4);
    p->index_slots = slots;
    p->min_slots = 8;
    p->buffer_bytes = bytes;
    p->adaptive = adaptive;
}

static void test_engine_containment(void)
{
    armcii_cache_params_t p;
    params(&p, 64, 1 << 16, 0);
    armcii_cache_t c;
    CU_ASSERT_FATAL(armcii_cache_init(&c, &p) == 0);
    char data[10000];
    for (int i = 0; i < 10000; i++)
        data[i] = (char)(i * 7);
    /* an entry crossing page boundaries: [0x10f00, 0x10f00 + 10000) of target 1 */
    uintptr_t base = 0x10f00;
    CU_ASSERT_EQUAL(armcii_cache_insert(&c, 1, base, 10000, data, NULL), 0);
    const char *hit = armcii_cache_lookup(&c, 1, base, 10000);
    CU_ASSERT_PTR_NOT_NULL_FATAL(hit);
    CU_ASSERT(memcmp(hit, data, 10000) == 0);
    /* wholly inside, starting on a later page */
    hit = armcii_cache_lookup(&c, 1, base + 5000, 300);
    CU_ASSERT_PTR_NOT_NULL_FATAL(hit);
    CU_ASSERT(memcmp(hit, data + 5000, 300) == 0);
    /* same start, shorter */
    CU_ASSERT_PTR_NOT_NULL(armcii_cache_lookup(&c, 1, base, 8));
    /* sticking out at either end, or another target: misses */
    CU_ASSERT_PTR_NULL(armcii_cache_lookup(&c, 1, base - 8, 16));
    CU_ASSERT_PTR_NULL(armcii_cache_lookup(&c, 1, base + 9990, 16));
    CU_ASSERT_PTR_NULL(armcii_cache_lookup(&c, 2, base, 8));
    armcix_cache_stats_t st;
    armcii_cache_stats(&c, &st);
    CU_ASSERT_EQUAL(st.hits, 3);
    CU_ASSERT_EQUAL(st.misses, 3);
    CU_ASSERT_EQUAL(st.bytes_hit, 10000 + 300 + 8);
    CU_ASSERT_EQUAL(st.entries, 1);
    /* a longer get at the same address replaces the entry */
    char more[12000];
    memset(more, 9, sizeof(more));
    CU_ASSERT_EQUAL(armcii_cache_insert(&c, 1, base, 12000, more, NULL), 0);
    armcii_cache_stats(&c, &st);
    CU_ASSERT_EQUAL(st.entries, 1);
    hit = armcii_cache_lookup(&c, 1, base + 11000, 1000);
    CU_ASSERT(hit && hit[0] == 9 && hit[999] == 9);
    armcii_cache_fini(&c);
}

static void test_engine_invalidate(void)
{
    armcii_cache_params_t p;
    params(&p, 64, 1 << 16, 0);
    armcii_cache_t c;
    CU_ASSERT_FATAL(armcii_cache_init(&c, &p) == 0);
    char d[64] = {0};
    int owner_a, owner_b;
    /* target 0: [1000,1064) [1064,1128) [5000,5064); target 1: [1000,1064) */
    armcii_cache_insert(&c, 0, 1000, 64, d, &owner_a);
    armcii_cache_insert(&c, 0, 1064, 64, d, &owner_a);
    armcii_cache_insert(&c, 0, 5000, 64, d, &owner_b);
    armcii_cache_insert(&c, 1, 1000, 64, d, &owner_a);
    /* a write of [1060, 1070) on target 0 overlaps the first two only */
    CU_ASSERT_EQUAL(armcii_cache_invalidate_range(&c, 0, 1060, 10), 2);
    CU_ASSERT_PTR_NULL(armcii_cache_peek(&c, 0, 1000, 8));
    CU_ASSERT_PTR_NULL(armcii_cache_peek(&c, 0, 1064, 8));
    CU_ASSERT_PTR_NOT_NULL(armcii_cache_peek(&c, 0, 5000, 8));
    CU_ASSERT_PTR_NOT_NULL(armcii_cache_peek(&c, 1, 1000, 8));
    /* touching but not overlapping */
    CU_ASSERT_EQUAL(armcii_cache_invalidate_range(&c, 0, 5064, 100), 0);
    CU_ASSERT_EQUAL(armcii_cache_invalidate_range(&c, 0, 4900, 100), 0);
    /* a wide write takes the look-at-every-entry path */
    CU_ASSERT_EQUAL(armcii_cache_invalidate_range(&c, 0, 0, 1 << 30), 1);
    CU_ASSERT_FALSE(armcii_cache_holds(&c, 0));
    CU_ASSERT_TRUE(armcii_cache_holds(&c, 1));
    armcii_cache_insert(&c, 2, 1000, 64, d, &owner_b);
    /* by owner */
    CU_ASSERT_EQUAL(armcii_cache_invalidate_if(&c, NULL, NULL), 2);
    armcix_cache_stats_t st;
    armcii_cache_stats(&c, &st);
    CU_ASSERT_EQUAL(st.entries, 0);
    CU_ASSERT_EQUAL(st.buffer_used, 0);
    CU_ASSERT_EQUAL(st.invalidations, 5);
    /* usable after a reset */
    CU_ASSERT_EQUAL(armcii_cache_insert(&c, 3, 8, 64, d, &owner_a), 0);
    CU_ASSERT_PTR_NOT_NULL(armcii_cache_peek(&c, 3, 8, 64));
    armcii_cache_fini(&c);
}

static int owner_is(const void *owner, const void *ctx)
{
    return owner == ctx;
}

static void test_engine_invalidate_owner(void)
{
    armcii_cache_params_t p;
    params(&p, 256, 1 << 16, 0);
    armcii_cache_t c;
    CU_ASSERT_FATAL(armcii_cache_init(&c, &p) == 0);
    char d[16] = {0};
    int a, b;
    for (int i = 0; i < 100; i++)
        armcii_cache_insert(&c, i % 4, (uintptr_t)(4096 + 64 * i), 16, d, i % 3 ? &a : &b);
    CU_ASSERT_EQUAL(armcii_cache_invalidate_if(&c, owner_is, &b), 34);
    for (int i = 0; i < 100; i++)
        CU_ASSERT_EQUAL(armcii_cache_peek(&c, i % 4, (uintptr_t)(4096 + 64 * i), 16) != NULL,
                        i % 3 != 0);
    armcii_cache_fini(&c);
}

static void test_engine_eviction_score(void)
{
    /* 4 KiB of storage holds four 1 KiB entries; the fifth must evict the least recently
     * used, and a large old entry goes before a small old one */
    armcii_cache_params_t p;
    params(&p, 64, 4096, 0);
    armcii_cache_t c;
    CU_ASSERT_FATAL(armcii_cache_init(&c, &p) == 0);
    char d[2048] = {0};
    for (int i = 0; i < 4; i++)
        CU_ASSERT_EQUAL(armcii_cache_insert(&c, 0, (uintptr_t)(0x100000 * (i + 1)), 1024, d, NULL),
                        0);
    /* use 1, 2 and 4; 3 is now the oldest */
    armcii_cache_lookup(&c, 0, 0x100000, 8);
    armcii_cache_lookup(&c, 0, 0x200000, 8);
    armcii_cache_lookup(&c, 0, 0x400000, 8);
    CU_ASSERT_EQUAL(armcii_cache_insert(&c, 0, 0x500000, 1024, d, NULL), 0);
    CU_ASSERT_PTR_NULL(armcii_cache_peek(&c, 0, 0x300000, 8));
    CU_ASSERT_PTR_NOT_NULL(armcii_cache_peek(&c, 0, 0x100000, 8));
    CU_ASSERT_PTR_NOT_NULL(armcii_cache_peek(&c, 0, 0x500000, 8));
    armcix_cache_stats_t st;
    armcii_cache_stats(&c, &st);
    CU_ASSERT_EQUAL(st.capacity_evictions, 1);
    armcii_cache_fini(&c);

    /* size: a 2 KiB entry younger than twenty 64 B ones is still dropped first for a
     * 1 KiB newcomer (per byte, the small ones save more round trips) */
    params(&p, 64, 4096, 0);
    CU_ASSERT_FATAL(armcii_cache_init(&c, &p) == 0);
    for (int i = 0; i < 20; i++)
        armcii_cache_insert(&c, 0, (uintptr_t)(0x10000 + 0x100 * i), 64, d, NULL);
    for (int i = 0; i < 3; i++) /* time passes: lookups elsewhere */
        CU_ASSERT_PTR_NULL(armcii_cache_lookup(&c, 1, 0x8000, 8));
    CU_ASSERT_EQUAL(armcii_cache_insert(&c, 0, 0x1000, 2048, d, NULL), 0);
    for (int i = 0; i < 2; i++)
        CU_ASSERT_PTR_NULL(armcii_cache_lookup(&c, 1, 0x8000, 8));
    CU_ASSERT_EQUAL(armcii_cache_insert(&c, 0, 0x90000, 1024, d, NULL), 0);
    CU_ASSERT_PTR_NULL(armcii_cache_peek(&c, 0, 0x1000, 8));
    int small_left = 0;
    for (int i = 0; i < 20; i++)
        small_left += armcii_cache_peek(&c, 0, (uintptr_t)(0x10000 + 0x100 * i), 64) != NULL;
    CU_ASSERT_EQUAL(small_left, 20);
    /* an entry larger than the whole buffer is refused */
    char big[8192];
    CU_ASSERT_EQUAL(armcii_cache_insert(&c, 0, 0x200000, sizeof(big), big, NULL), -1);
    armcii_cache_stats(&c, &st);
    CU_ASSERT_EQUAL(st.failed_inserts, 1);
    armcii_cache_fini(&c);
}

/* A run of gets over @p nkeys distinct 64-byte ranges, each fetched and kept on a miss. */
static void cycle(armcii_cache_t *c, int nkeys, int rounds, size_t len)
{
    static char d[4096];
    for (int r = 0; r < rounds; r++) {
        for (int k = 0; k < nkeys; k++) {
            uintptr_t a = (uintptr_t)(0x100000 + 0x1000 * (uintptr_t)k);
            if (!armcii_cache_lookup(c, k % 4, a, len))
                armcii_cache_insert(c, k % 4, a, len, d, NULL);
        }
    }
}

static void test_engine_adaptive(void)
{
    armcii_cache_params_t p;
    armcii_cache_t c;
    armcix_cache_stats_t st;

    /* conflicts: 2000 keys into 16 slots; the index grows until they fit, and the
     * hit rate of a later pass over the same keys is then (almost) perfect */
    params(&p, 16, 1 << 20, 1);
    p.window = 256;
    CU_ASSERT_FATAL(armcii_cache_init(&c, &p) == 0);
    cycle(&c, 2000, 6, 64);
    armcii_cache_stats(&c, &st);
    CU_ASSERT(st.index_resizes >= 5);
    CU_ASSERT(st.index_slots >= 2048);
    CU_ASSERT_EQUAL(st.buffer_resizes, 0);
    long hits0 = st.hits;
    cycle(&c, 2000, 1, 64);
    armcii_cache_stats(&c, &st);
    CU_ASSERT(st.hits - hits0 >= 1900);
    armcii_cache_fini(&c);

    /* the same without the adaptive scheme stays small and keeps missing */
    params(&p, 16, 1 << 20, 0);
    CU_ASSERT_FATAL(armcii_cache_init(&c, &p) == 0);
    cycle(&c, 2000, 7, 64);
    armcii_cache_stats(&c, &st);
    CU_ASSERT_EQUAL(st.index_slots, 16);
    CU_ASSERT(st.hits < 7 * 2000 / 10);
    armcii_cache_fini(&c);

    /* capacity: 400 entries of 1 KiB through a 16 KiB buffer grow it towards the maximum of
     * 1 MiB, keeping what it holds while growing */
    params(&p, 1024, 16 << 10, 1);
    p.window = 256;
    p.max_bytes = 1 << 20;
    CU_ASSERT_FATAL(armcii_cache_init(&c, &p) == 0);
    cycle(&c, 400, 8, 1024);
    armcii_cache_stats(&c, &st);
    CU_ASSERT(st.buffer_resizes >= 2); /* x2, or x4 far past the threshold */
    CU_ASSERT(st.buffer_bytes <= 1 << 20);
    CU_ASSERT(st.buffer_bytes >= 400 * 1024);
    hits0 = st.hits;
    cycle(&c, 400, 1, 1024);
    armcii_cache_stats(&c, &st);
    CU_ASSERT_EQUAL(st.hits - hits0, 400);
    armcii_cache_fini(&c);

    /* a mostly empty index shrinks, down to the minimum, with its entries still found */
    params(&p, 4096, 1 << 20, 1);
    p.window = 128;
    p.min_slots = 64;
    CU_ASSERT_FATAL(armcii_cache_init(&c, &p) == 0);
    cycle(&c, 10, 100, 64); /* 7 windows: not yet, quiet windows must follow each other */
    armcii_cache_stats(&c, &st);
    CU_ASSERT(st.index_slots >= 1024);
    cycle(&c, 10, 400, 64);
    armcii_cache_stats(&c, &st);
    CU_ASSERT_EQUAL(st.index_slots, 64);
    CU_ASSERT(st.index_resizes >= 6);
    for (int k = 0; k < 10; k++)
        CU_ASSERT_PTR_NOT_NULL(
            armcii_cache_peek(&c, k % 4, (uintptr_t)(0x100000 + 0x1000 * k), 64));
    armcii_cache_fini(&c);
}

int main(void)
{
    unit_watch_crashes();
    static const unit_test_t tests[] = {
        {"cuckoo_basic", test_cuckoo_basic},
        {"cuckoo_kick_bound", test_cuckoo_kick_bound},
        {"cuckoo_resize", test_cuckoo_resize},
        {"store_best_fit", test_store_best_fit},
        {"store_merge", test_store_merge},
        {"store_random", test_store_random},
        {"engine_containment", test_engine_containment},
        {"engine_invalidate", test_engine_invalidate},
        {"engine_invalidate_owner", test_engine_invalidate_owner},
        {"engine_eviction_score", test_engine_eviction_score},
        {"engine_adaptive", test_engine_adaptive},
    };
    return unit_run("cache", tests, sizeof(tests) / sizeof(tests[0]));
}
