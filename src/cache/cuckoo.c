/* SPDX-License-Identifier: BSD-3-Clause */
/* Cuckoo hash index with bounded kick chains and path eviction (see cuckoo.h). */
#include <stdlib.h>
#include <string.h>

#include "cuckoo.h"

static size_t round_slots(size_t n)
{
    size_t s = 8;
    while (s < n && s < ((size_t)1 << 40))
        s <<= 1;
    return s;
}

/* Candidate slot @p way of hash @p h (already well mixed): each way takes its own 21-bit
 * rotation of it, so two keys that share one candidate rarely share the others, and a probe
 * costs no further hashing. */
static inline size_t slot_of(const armcii_cuckoo_t *c, uint64_t h, int way)
{
    unsigned r = 21u * (unsigned)way;
    uint64_t x = r ? (h >> r) | (h << (64 - r)) : h;
    return (size_t)x & (c->nslots - 1);
}

static uint64_t next_rand(armcii_cuckoo_t *c)
{
    /* xorshift64: deterministic, private to the table */
    uint64_t x = c->rng;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    c->rng = x;
    return x;
}

static armcii_cslot_t *alloc_table(size_t nslots)
{
    armcii_cslot_t *t = malloc(nslots * sizeof(*t));
    if (t)
        for (size_t i = 0; i < nslots; i++)
            t[i].id = -1;
    return t;
}

int armcii_cuckoo_init(armcii_cuckoo_t *c, size_t nslots, int max_kicks)
{
    memset(c, 0, sizeof(*c));
    c->nslots = round_slots(nslots);
    c->max_kicks = max_kicks < 1                         ? 1
                   : max_kicks > ARMCII_CUCKOO_MAX_KICKS ? ARMCII_CUCKOO_MAX_KICKS
                                                         : max_kicks;
    c->rng = 0x2545f4914f6cdd1dull;
    c->slots = alloc_table(c->nslots);
    return c->slots ? 0 : -1;
}

void armcii_cuckoo_fini(armcii_cuckoo_t *c)
{
    free(c->slots);
    memset(c, 0, sizeof(*c));
}

void armcii_cuckoo_clear(armcii_cuckoo_t *c)
{
    for (size_t i = 0; i < c->nslots; i++)
        c->slots[i].id = -1;
    c->used = 0;
}

int32_t armcii_cuckoo_find(const armcii_cuckoo_t *c, uint64_t h, armcii_cuckoo_match_fn match,
                           void *ctx)
{
    for (int w = 0; w < ARMCII_CUCKOO_WAYS; w++) {
        size_t s = slot_of(c, h, w);
        if (c->slots[s].id >= 0 && c->slots[s].key == h && match(ctx, c->slots[s].id))
            return c->slots[s].id;
    }
    return -1;
}

static int place_if_free(armcii_cuckoo_t *c, uint64_t h, int32_t id)
{
    for (int w = 0; w < ARMCII_CUCKOO_WAYS; w++) {
        size_t s = slot_of(c, h, w);
        if (c->slots[s].id < 0) {
            c->slots[s].id = id;
            c->slots[s].key = h;
            c->used++;
            return 1;
        }
    }
    return 0;
}

int armcii_cuckoo_insert(armcii_cuckoo_t *c, uint64_t h, int32_t id, armcii_cuckoo_score_fn score,
                         void *ctx, int32_t *victim_p)
{
    if (place_if_free(c, h, id))
        return 0;
    /* Step k puts the carried key K[k] into slot S[k], displacing K[k+1]. */
    size_t S[ARMCII_CUCKOO_MAX_KICKS];
    int32_t K[ARMCII_CUCKOO_MAX_KICKS + 1];
    uint64_t H[ARMCII_CUCKOO_MAX_KICKS + 1];
    K[0] = id;
    H[0] = h;
    size_t prev = (size_t)-1;
    int n;
    for (n = 0; n < c->max_kicks; n++) {
        int w = (int)(next_rand(c) % ARMCII_CUCKOO_WAYS);
        size_t s = slot_of(c, H[n], w);
        for (int t = 1; s == prev && t < ARMCII_CUCKOO_WAYS; t++) /* do not bounce straight back */
            s = slot_of(c, H[n], (w + t) % ARMCII_CUCKOO_WAYS);
        S[n] = s;
        K[n + 1] = c->slots[s].id;
        H[n + 1] = c->slots[s].key;
        c->slots[s].id = K[n];
        c->slots[s].key = H[n];
        prev = s;
        if (place_if_free(c, H[n + 1], K[n + 1]))
            return 0;
    }
    /* K[n] is homeless. Drop the lowest-scored key on the path: undo the steps after
     * it was displaced, which leaves exactly that key without a slot. */
    int j = 0;
    double best = score(ctx, K[0]);
    for (int i = 1; i <= n; i++) {
        double v = score(ctx, K[i]);
        if (v < best) {
            best = v;
            j = i;
        }
    }
    for (int k = n - 1; k >= j; k--) {
        c->slots[S[k]].id = K[k + 1];
        c->slots[S[k]].key = H[k + 1];
    }
    if (victim_p)
        *victim_p = K[j];
    return j == 0 ? -1 : 1;
}

int armcii_cuckoo_remove(armcii_cuckoo_t *c, uint64_t h, int32_t id)
{
    for (int w = 0; w < ARMCII_CUCKOO_WAYS; w++) {
        size_t s = slot_of(c, h, w);
        if (c->slots[s].id == id) {
            c->slots[s].id = -1;
            c->used--;
            return 0;
        }
    }
    return -1;
}

int armcii_cuckoo_resize(armcii_cuckoo_t *c, size_t nslots, armcii_cuckoo_score_fn score,
                         void (*drop)(void *ctx, int32_t id), void *ctx)
{
    size_t n = round_slots(nslots);
    armcii_cslot_t *t = alloc_table(n);
    if (!t)
        return -1;
    armcii_cslot_t *old = c->slots;
    size_t old_n = c->nslots;
    c->slots = t;
    c->nslots = n;
    c->used = 0;
    for (size_t s = 0; s < old_n; s++) {
        if (old[s].id < 0)
            continue;
        int32_t victim;
        if (armcii_cuckoo_insert(c, old[s].key, old[s].id, score, ctx, &victim) != 0)
            drop(ctx, victim);
    }
    free(old);
    return 0;
}
