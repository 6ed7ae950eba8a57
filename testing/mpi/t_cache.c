/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The get cache (ARMCIX_Cache_*): each mode's invalidation rules, invalidation by this
 * process's own puts, accumulates and RMW, strided against contiguous entries, a user
 * buffer reused before the wait, gets on aggregate handles, 10 000 pending gets, frees,
 * and the application's rand() left alone. Every process reads the block of the next one.
 * Hits are asserted only when that peer is reached through libfabric (run with
 * ARMCI_SHM=0); the data is checked always.
 */
#include <string.h>

#include "tester.h"

#define N (64 * 1024)

static void **base;
static int me, p, fabric;

/* The value of byte i of process r's block in generation g. */
static unsigned char val(int r, int g, size_t i)
{
    return (unsigned char)(r * 31 + g * 17 + i * 7 + (i >> 8));
}

/* Every process rewrites its own block locally as generation g, between two barriers:
 * afterwards a get that reaches the target sees generation g. */
static int cur_gen; /* what every block holds now */

static void regenerate(int g)
{
    cur_gen = g;
    ARMCI_Barrier();
    unsigned char *mine = base[me];
    for (size_t i = 0; i < N; i++)
        mine[i] = val(me, g, i);
    ARMCI_Barrier();
}

static int is_gen(const unsigned char *buf, size_t off, size_t len, int g)
{
    for (size_t i = 0; i < len; i++)
        if (buf[i] != val(p, g, off + i))
            return 0;
    return 1;
}

static long hits(void)
{
    armcix_cache_stats_t s;
    ARMCIX_Cache_get_stats(&s);
    return s.hits;
}

static void get(size_t off, void *buf, size_t len)
{
    ARMCI_Get((char *)base[p] + off, buf, (int)len, p);
}

static void test_off(void)
{
    unsigned char buf[1024];
    ARMCIX_Cache_set_mode(base[me], ARMCIX_CACHE_OFF);
    CHECK(ARMCIX_Cache_get_mode(base[me]) == ARMCIX_CACHE_OFF, "mode off");
    long h0 = hits();
    get(0, buf, sizeof(buf));
    get(0, buf, sizeof(buf));
    CHECK(is_gen(buf, 0, sizeof(buf), 0), "off: data");
    CHECK(hits() == h0, "off: no hits (%ld)", hits() - h0);
}

static void test_transparent(void)
{
    unsigned char buf[1024];
    ARMCIX_Cache_set_mode(base[me], ARMCIX_CACHE_TRANSPARENT);
    CHECK(ARMCIX_Cache_get_mode(base[me]) == ARMCIX_CACHE_TRANSPARENT, "mode transparent");
    long h0 = hits();
    get(0, buf, sizeof(buf));
    get(0, buf, sizeof(buf));
    CHECK(is_gen(buf, 0, sizeof(buf), 0), "transparent: data");
    get(100, buf, 100); /* contained in the cached range */
    CHECK(is_gen(buf, 100, 100, 0), "transparent: contained data");
    if (fabric)
        CHECK(hits() == h0 + 2, "transparent: 2 hits, got %ld", hits() - h0);

    /* the barriers in regenerate() are synchronisation points: never older data after */
    regenerate(1);
    get(0, buf, sizeof(buf));
    CHECK(is_gen(buf, 0, sizeof(buf), 1), "transparent: fresh after barrier");

    /* each synchronisation point of the caller drops the entries */
    void (*sync[])(void) = {ARMCI_AllFence, armci_msg_barrier};
    for (int k = 0; k < 4; k++) {
        get(0, buf, 64); /* cached (or a hit) */
        long h1 = hits();
        if (k == 0)
            ARMCI_Fence(p);
        else if (k == 1)
            sync[0]();
        else if (k == 2)
            sync[1]();
        else {
            double x = me;
            armci_msg_dgop(&x, 1, "+");
        }
        get(0, buf, 64);
        if (fabric)
            CHECK(hits() == h1, "transparent: sync point %d must drop the entry", k);
    }
    /* RMW on another word of the target is one too */
    get(0, buf, 64);
    long h2 = hits();
    int one = 1;
    ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &one, (char *)base[p] + N - 8, 1, p);
    get(0, buf, 64);
    if (fabric)
        CHECK(hits() == h2, "transparent: RMW must drop the entry");
    ARMCI_Barrier();
}

static void test_always_and_user(void)
{
    unsigned char buf[1024];
    /* always: read-only data, kept across synchronisation */
    ARMCIX_Cache_set_mode(base[me], ARMCIX_CACHE_ALWAYS);
    get(0, buf, sizeof(buf));
    CHECK(is_gen(buf, 0, sizeof(buf), 1), "always: data");
    regenerate(2);
    long h0 = hits();
    get(0, buf, sizeof(buf));
    if (fabric) {
        CHECK(hits() == h0 + 1, "always: hit after barriers");
        CHECK(is_gen(buf, 0, sizeof(buf), 1), "always: the cached (old) data");
    }
    ARMCIX_Cache_invalidate(base[me]);
    get(0, buf, sizeof(buf));
    CHECK(is_gen(buf, 0, sizeof(buf), 2), "always: fresh after explicit invalidation");

    /* user: only ARMCIX_Cache_invalidate drops entries */
    ARMCIX_Cache_set_mode(base[me], ARMCIX_CACHE_USER);
    get(0, buf, sizeof(buf));
    regenerate(3);
    ARMCI_AllFence();
    ARMCI_Fence(p);
    h0 = hits();
    get(0, buf, sizeof(buf));
    if (fabric) {
        CHECK(hits() == h0 + 1, "user: hit after barriers and fences");
        CHECK(is_gen(buf, 0, sizeof(buf), 2), "user: the cached (old) data");
    }
    ARMCIX_Cache_invalidate(NULL);
    get(0, buf, sizeof(buf));
    CHECK(is_gen(buf, 0, sizeof(buf), 3), "user: fresh after ARMCIX_Cache_invalidate(NULL)");
    armcix_cache_stats_t s;
    ARMCIX_Cache_get_stats(&s);
    if (fabric)
        CHECK(s.invalidations > 0 && s.entries > 0, "stats: invalidations %ld entries %ld",
              s.invalidations, s.entries);
}

/* In every mode, this process's own writes drop what they overlap. */
static void test_own_writes(void)
{
    unsigned char buf[1024];
    ARMCIX_Cache_set_mode(base[me], ARMCIX_CACHE_ALWAYS);
    ARMCIX_Cache_invalidate(NULL);
    regenerate(4);
    char *r = base[p];
    get(0, buf, sizeof(buf));

    unsigned char x[8];
    memset(x, 0xA1, sizeof(x));
    ARMCI_Put(x, r + 512, 8, p);
    get(0, buf, sizeof(buf));
    CHECK(buf[511] == val(p, 4, 511) && buf[512] == 0xA1 && buf[519] == 0xA1 &&
              buf[520] == val(p, 4, 520),
          "put seen through the cache");

    double one = 1.0, d;
    get(256, &d, 8);
    double before = d;
    ARMCI_Acc(ARMCI_ACC_DBL, &one, &one, r + 256, 8, p);
    ARMCI_Fence(p); /* (in this mode a fence drops nothing) */
    get(256, &d, 8);
    CHECK(d == before + 1.0, "accumulate seen through the cache (%g, expected %g)", d,
          before + 1.0);

    /* strided put into a cached range */
    get(0, buf, sizeof(buf));
    unsigned char rows[2][4];
    memset(rows, 0xB2, sizeof(rows));
    int sst[1] = {4}, dst[1] = {100}, cnt[2] = {4, 2};
    ARMCI_PutS(rows, sst, r + 600, dst, cnt, 1, p);
    get(0, buf, sizeof(buf));
    CHECK(buf[600] == 0xB2 && buf[603] == 0xB2 && buf[700] == 0xB2 && buf[703] == 0xB2 &&
              buf[604] == val(p, 4, 604),
          "strided put seen through the cache");

    /* RMW on a cached word */
    get(N - 16, buf, 8);
    long v = 5;
    ARMCI_Rmw(ARMCI_SWAP_LONG, &v, r + N - 16, 0, p);
    long now;
    get(N - 16, &now, 8);
    CHECK(now == 5, "RMW seen through the cache (%ld)", now);
    ARMCI_Barrier();
}

/* A strided get must never take a contiguous entry's bytes into its gaps, nor the reverse. */
static void test_strided_vs_contig(void)
{
    ARMCIX_Cache_set_mode(base[me], ARMCIX_CACHE_ALWAYS);
    ARMCIX_Cache_invalidate(NULL);
    regenerate(5);
    char *r = base[p];
    static unsigned char whole[4096], patch[8 * 128];
    get(0, whole, sizeof(whole));
    /* 8 rows of 64 bytes at a remote stride of 512, into a local stride of 128 */
    memset(patch, 0x5A, sizeof(patch));
    int sst[1] = {512}, dstr[1] = {128}, cnt[2] = {64, 8};
    long h0 = hits();
    ARMCI_GetS(r, sst, patch, dstr, cnt, 1, p);
    int ok = 1;
    for (int row = 0; row < 8; row++)
        for (int i = 0; i < 128; i++)
            ok &=
                patch[row * 128 + i] == (i < 64 ? val(p, 5, (size_t)row * 512 + (size_t)i) : 0x5A);
    CHECK(ok, "strided get from a contiguous entry: rows right, gaps untouched");
    if (fabric)
        CHECK(hits() == h0 + 8, "strided get served from the cache, one hit per row (%ld)",
              hits() - h0);

    /* the reverse: a strided get first, then a contiguous get of the whole range */
    ARMCIX_Cache_invalidate(NULL);
    memset(patch, 0x5A, sizeof(patch));
    ARMCI_GetS(r, sst, patch, dstr, cnt, 1, p);
    memset(whole, 0, sizeof(whole));
    get(0, whole, sizeof(whole));
    CHECK(is_gen(whole, 0, sizeof(whole), 5), "contiguous get after a strided one");
    /* vector get across the cached range and beyond it */
    get(0, whole, sizeof(whole));
    unsigned char a[16], b[16];
    void *src[2] = {r + 10, r + 8000}, *dstv[2] = {a, b};
    armci_giov_t iov = {src, dstv, 16, 2};
    ARMCI_GetV(&iov, 1, p);
    CHECK(is_gen(a, 10, 16, 5) && is_gen(b, 8000, 16, 5), "vector get, one block cached");
    ARMCI_Barrier();
}

/* The entry is filled from the runtime's copy, not from the caller's buffer. */
static void test_buffer_reuse(void)
{
    ARMCIX_Cache_set_mode(base[me], ARMCIX_CACHE_ALWAYS);
    ARMCIX_Cache_invalidate(NULL);
    static unsigned char buf[1024];
    armci_hdl_t h;
    ARMCI_INIT_HANDLE(&h);
    ARMCI_NbGet((char *)base[p] + 8192, buf, sizeof(buf), p, &h);
    memset(buf, 0xEE, sizeof(buf)); /* the caller reuses the buffer before the wait */
    ARMCI_Wait(&h);
    /* again, scribbling after the data has arrived but before the wait */
    ARMCIX_Cache_invalidate(NULL);
    ARMCI_INIT_HANDLE(&h);
    ARMCI_NbGet((char *)base[p] + 8192, buf, sizeof(buf), p, &h);
    while (ARMCI_Test(&h))
        ;
    memset(buf, 0xEE, sizeof(buf));
    ARMCI_Wait(&h);
    long h0 = hits();
    memset(buf, 0, sizeof(buf));
    get(8192, buf, sizeof(buf));
    CHECK(is_gen(buf, 8192, sizeof(buf), 5), "cached data is the target's, not the scribble");
    if (fabric)
        CHECK(hits() == h0 + 1, "the second get hit");
}

/* Gets on an aggregate handle are answered from the cache when they can be, and still see
 * a put collected on the same handle before them. */
static void test_aggregate(void)
{
    ARMCIX_Cache_set_mode(base[me], ARMCIX_CACHE_ALWAYS);
    ARMCIX_Cache_invalidate(NULL);
    regenerate(6);
    char *r = base[p];
    unsigned char buf[256], a[16], b[16], x[8];
    get(0, buf, sizeof(buf));
    long h0 = hits();
    memset(x, 0xC3, sizeof(x));
    armci_hdl_t h;
    ARMCI_INIT_HANDLE(&h);
    ARMCI_SET_AGGREGATE_HANDLE(&h);
    ARMCI_NbGet(r + 16, a, 16, p, &h); /* cached */
    ARMCI_NbPut(x, r + 40, 8, p, &h);  /* collected; drops the cached range */
    ARMCI_NbGet(r + 32, b, 16, p, &h); /* must see the put */
    ARMCI_Wait(&h);
    ARMCI_UNSET_AGGREGATE_HANDLE(&h);
    CHECK(is_gen(a, 16, 16, 6), "aggregate get from the cache");
    int ok = is_gen(b, 32, 8, 6);
    for (int i = 8; i < 16; i++)
        ok &= b[i] == 0xC3;
    CHECK(ok, "aggregate get after a collected put sees the put");
    if (fabric)
        CHECK(hits() == h0 + 1, "one aggregate get hit (%ld)", hits() - h0);
    regenerate(6); /* undo the put */
}

/* Many gets in flight at once, with handles and without. */
static void test_many_pending(void)
{
    enum { M = 10000 };
    ARMCIX_Cache_set_mode(base[me], ARMCIX_CACHE_ALWAYS);
    ARMCIX_Cache_invalidate(NULL);
    static unsigned char out[M];
    static armci_hdl_t h[M];
    for (int pass = 0; pass < 2; pass++) {
        memset(out, 0, sizeof(out));
        long h0 = hits();
        for (int i = 0; i < M; i++) {
            ARMCI_INIT_HANDLE(&h[i]);
            ARMCI_NbGet((char *)base[p] + (i * 13) % N, &out[i], 1, p, &h[i]);
        }
        for (int i = 0; i < M; i++)
            ARMCI_Wait(&h[i]);
        int ok = 1;
        for (int i = 0; i < M; i++)
            ok &= out[i] == val(p, cur_gen, (size_t)(i * 13) % N);
        CHECK(ok, "%d nonblocking gets with handles, pass %d", M, pass);
        armcix_cache_stats_t s;
        ARMCIX_Cache_get_stats(&s);
        if (fabric && pass == 1 && s.index_slots >= M) /* (a small fixed cache cannot) */
            CHECK(hits() - h0 > M / 2, "second pass mostly hits (%ld)", hits() - h0);
    }
    memset(out, 0, sizeof(out));
    for (int i = 0; i < M; i++)
        ARMCI_NbGet((char *)base[p] + (i * 29) % N, &out[i], 1, p, NULL);
    ARMCI_WaitAll();
    int ok = 1;
    for (int i = 0; i < M; i++)
        ok &= out[i] == val(p, cur_gen, (size_t)(i * 29) % N);
    CHECK(ok, "%d implicit nonblocking gets", M);
}

/* Freed memory's entries go: a new allocation at the same address shows its own data. */
static void test_free(void)
{
    void **b2 = malloc((size_t)t_np * sizeof(void *));
    ARMCIX_Cache_set_mode(NULL, ARMCIX_CACHE_ALWAYS); /* also for allocations to come */
    ARMCI_Malloc(b2, 4096);
    CHECK(ARMCIX_Cache_get_mode(b2[me]) == ARMCIX_CACHE_ALWAYS, "NULL sets future allocations");
    memset(b2[me], 1, 4096);
    ARMCI_Barrier();
    char buf[64];
    ARMCI_Get(b2[p], buf, 64, p);
    ARMCI_Get(b2[p], buf, 64, p);
    CHECK(buf[0] == 1 && buf[63] == 1, "first allocation's data");
    void *old = b2[p];
    ARMCI_Free(b2[me]);
    ARMCI_Malloc(b2, 4096);
    memset(b2[me], 2, 4096);
    ARMCI_Barrier();
    ARMCI_Get(b2[p], buf, 64, p);
    CHECK(buf[0] == 2 && buf[63] == 2, "new allocation's data (same address: %d)", old == b2[p]);
    ARMCI_Free(b2[me]);
    free(b2);
}

/* The cache draws its own random numbers; the application's rand() sequence is untouched. */
static void test_rand(void)
{
    srand(4242);
    int expect[4];
    for (int i = 0; i < 4; i++)
        expect[i] = rand();
    srand(4242);
    int got0 = rand();
    ARMCIX_Cache_set_mode(base[me], ARMCIX_CACHE_ALWAYS);
    char buf[256];
    for (int i = 0; i < 3000; i++) /* enough entries to kick and evict */
        ARMCI_Get((char *)base[p] + (i * 97) % (N - 256), buf, 1 + i % 200, p);
    int ok = got0 == expect[0];
    for (int i = 1; i < 4; i++)
        ok &= rand() == expect[i];
    CHECK(ok, "rand() sequence unchanged by the cache");
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    me = t_me;
    p = (t_me + 1) % t_np;
    fabric = ARMCIX_Path_of(p) == ARMCIX_PATH_FABRIC;
    base = malloc((size_t)t_np * sizeof(void *));
    ARMCI_Malloc(base, N);
    /* ARMCI_CACHE gives new allocations their mode (the reference code never read its
     * mode option) */
    const char *env = getenv("ARMCI_CACHE");
    if (env) {
        int want = strcmp(env, "transparent") == 0 ? ARMCIX_CACHE_TRANSPARENT
                   : strcmp(env, "always") == 0    ? ARMCIX_CACHE_ALWAYS
                   : strcmp(env, "user") == 0      ? ARMCIX_CACHE_USER
                                                   : ARMCIX_CACHE_OFF;
        CHECK(ARMCIX_Cache_get_mode(base[me]) == want && ARMCIX_Cache_get_mode(NULL) == want,
              "ARMCI_CACHE=%s: mode %d", env, ARMCIX_Cache_get_mode(base[me]));
    }
    regenerate(0);
    test_off();
    test_transparent();
    test_always_and_user();
    test_own_writes();
    test_strided_vs_contig();
    test_buffer_reuse();
    test_aggregate();
    test_many_pending();
    test_free();
    test_rand();
    ARMCIX_Cache_set_mode(NULL, ARMCIX_CACHE_OFF);
    ARMCI_Barrier();
    ARMCI_Free(base[me]);
    free(base);
    return t_finish("t_cache");
}
