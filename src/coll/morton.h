/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Morton (Z) order over a P x P block matrix, and its even split among P processes: the
 * cells of the matrix in Z order, with the curve cut into P runs of P cells. Walking a run
 * visits blocks that are close in both the sending and the receiving matrix. Pure, for the
 * unit tests.
 */
#ifndef ARMCII_MORTON_H
#define ARMCII_MORTON_H

#include <stdint.h>

/** Interleave the bits of @p row (odd positions) and @p col (even positions). */
uint64_t armcii_morton_encode(uint32_t row, uint32_t col);
void armcii_morton_decode(uint64_t z, uint32_t *row_p, uint32_t *col_p);

/**
 * The cells of rank @p r's share of the Z curve over a @p P x @p P matrix (any P, not only
 * powers of two: cells outside the matrix are skipped). Rank r gets cells r*P .. r*P+P-1 of
 * the curve; @p rows and @p cols receive them (P entries each). @return the number written.
 */
int armcii_morton_share(int P, int r, uint32_t *rows, uint32_t *cols);

#endif
