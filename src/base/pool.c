/* SPDX-License-Identifier: BSD-3-Clause */
/* The request pool, made and freed; what each operation does to it is inline in pool.h
 * (the life of a request in flight: req.c). */
#include <stdlib.h>
#include <string.h>

#include "pool.h"

int armcii_pool_init(armcii_pool_t *pool, int nslots)
{
    memset(pool, 0, sizeof(*pool));
    pool->slots = calloc((size_t)nslots, sizeof(*pool->slots));
    unsigned size = 4;
    while (size < 2u * (unsigned)nslots)
        size *= 2;
    pool->bound = calloc(size, sizeof(*pool->bound));
    if (!pool->slots || !pool->bound) {
        free(pool->slots);
        free(pool->bound);
        return -1;
    }
    pool->bound_mask = size - 1;
    pool->nslots = nslots;
    for (int i = 0; i < nslots; i++) {
        pool->slots[i].tok.index = i;
        pool->slots[i].next_free = i + 1 < nslots ? i + 1 : -1;
    }
    pool->free_head = 0;
    return 0;
}

size_t armcii_pool_bytes(const armcii_pool_t *pool)
{
    return (size_t)pool->nslots * sizeof(*pool->slots) +
           (pool->bound_mask + 1) * sizeof(*pool->bound);
}

void armcii_pool_fini(armcii_pool_t *pool)
{
    free(pool->slots);
    free(pool->bound);
    memset(pool, 0, sizeof(*pool));
}
