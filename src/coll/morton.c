/* SPDX-License-Identifier: BSD-3-Clause */
/* Morton order and the even split of the curve (see morton.h). */
#include "morton.h"

static uint64_t spread(uint32_t v)
{
    uint64_t x = v;
    x = (x | (x << 16)) & 0x0000FFFF0000FFFFULL;
    x = (x | (x << 8)) & 0x00FF00FF00FF00FFULL;
    x = (x | (x << 4)) & 0x0F0F0F0F0F0F0F0FULL;
    x = (x | (x << 2)) & 0x3333333333333333ULL;
    x = (x | (x << 1)) & 0x5555555555555555ULL;
    return x;
}

static uint32_t gather(uint64_t x)
{
    x &= 0x5555555555555555ULL;
    x = (x | (x >> 1)) & 0x3333333333333333ULL;
    x = (x | (x >> 2)) & 0x0F0F0F0F0F0F0F0FULL;
    x = (x | (x >> 4)) & 0x00FF00FF00FF00FFULL;
    x = (x | (x >> 8)) & 0x0000FFFF0000FFFFULL;
    x = (x | (x >> 16)) & 0x00000000FFFFFFFFULL;
    return (uint32_t)x;
}

uint64_t armcii_morton_encode(uint32_t row, uint32_t col)
{
    return (spread(row) << 1) | spread(col);
}

void armcii_morton_decode(uint64_t z, uint32_t *row_p, uint32_t *col_p)
{
    *row_p = gather(z >> 1);
    *col_p = gather(z);
}

int armcii_morton_share(int P, int r, uint32_t *rows, uint32_t *cols)
{
    uint64_t side = 1;
    while (side < (uint64_t)P)
        side <<= 1;
    uint64_t first = (uint64_t)r * (uint64_t)P, last = first + (uint64_t)P, seen = 0;
    int n = 0;
    for (uint64_t z = 0; z < side * side && seen < last; z++) {
        uint32_t i, j;
        armcii_morton_decode(z, &i, &j);
        if (i >= (uint32_t)P || j >= (uint32_t)P)
            continue;
        if (seen >= first) {
            rows[n] = i;
            cols[n] = j;
            n++;
        }
        seen++;
    }
    return n;
}
