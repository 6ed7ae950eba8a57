/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The mix of operations Global Arrays' armci/testing/test.c issues to every process in
 * test_aggregate (lines 1636-1790) and test_implicit (lines 1811-1943), shared by t_agg
 * (aggregate handles) and t_handles (implicit ones). Each source process owns a slot of
 * MIX_SLOT doubles, (rank + 1) * 100000 + j + offset at word j. Puts to process i land in
 * the slot of the putting process within i's destination block: [0,1000) value puts,
 * [1000,2000) one vector put, [2000,3000) level-0 strided puts, [3000,4000) plain puts.
 * Gets from i fill i's slot of a local buffer: [0,1000) one vector get, [1000,2000)
 * level-0 strided gets, [2000,4000) plain gets. Segments are MIX_SEG doubles.
 */
#ifndef MIX_H
#define MIX_H

#include "tester.h"

enum { MIX_SLOT = 4000, MIX_SEG = 20, MIX_NSEG = 50 };

/* The puts of the mix from @p mysrc to @p dst (this process's slot at process @p i) on
 * handle @p h (NULL: implicit); @p s and @p d hold MIX_NSEG vector addresses and must
 * stay untouched until the operations complete. @return the non-zero return codes. */
static int mix_put(double *mysrc, double *dst, int i, void **s, void **d, armci_hdl_t *h)
{
    int rcbad = 0, bytes = MIX_SEG * (int)sizeof(double);
    for (int j = 0; j < 1000; j++)
        rcbad += ARMCI_NbPutValueDouble(mysrc[j], &dst[j], i, h) != 0;
    for (int g = 0; g < MIX_NSEG; g++) {
        s[g] = &mysrc[1000 + g * MIX_SEG];
        d[g] = &dst[1000 + g * MIX_SEG];
    }
    armci_giov_t v = {s, d, bytes, MIX_NSEG};
    rcbad += ARMCI_NbPutV(&v, 1, i, h) != 0;
    for (int j = 2000; j < 3000; j += MIX_SEG)
        rcbad += ARMCI_NbPutS(&mysrc[j], NULL, &dst[j], NULL, &bytes, 0, i, h) != 0;
    for (int j = 3000; j < MIX_SLOT; j += MIX_SEG)
        rcbad += ARMCI_NbPut(&mysrc[j], &dst[j], bytes, i, h) != 0;
    return rcbad;
}

/* The gets of the mix from @p rs (process @p i's slot) into @p ld, as mix_put. */
static int mix_get(double *rs, double *ld, int i, void **s, void **d, armci_hdl_t *h)
{
    int rcbad = 0, bytes = MIX_SEG * (int)sizeof(double);
    for (int g = 0; g < MIX_NSEG; g++) {
        s[g] = &rs[g * MIX_SEG];
        d[g] = &ld[g * MIX_SEG];
    }
    armci_giov_t v = {s, d, bytes, MIX_NSEG};
    rcbad += ARMCI_NbGetV(&v, 1, i, h) != 0;
    for (int j = 1000; j < 2000; j += MIX_SEG)
        rcbad += ARMCI_NbGetS(&rs[j], NULL, &ld[j], NULL, &bytes, 0, i, h) != 0;
    for (int j = 2000; j < MIX_SLOT; j += MIX_SEG)
        rcbad += ARMCI_NbGet(&rs[j], &ld[j], bytes, i, h) != 0;
    return rcbad;
}

/* Words of process @p i's slot in @p buf that differ from its source values; *first_p
 * gets the first wrong word's index over all slots, if it is still -1. */
static int mix_wrong(const double *buf, int i, double offset, int *first_p)
{
    int bad = 0;
    for (int j = 0; j < MIX_SLOT; j++)
        if (buf[(size_t)i * MIX_SLOT + j] != (i + 1) * 100000.0 + j + offset && bad++ == 0 &&
            *first_p < 0)
            *first_p = i * MIX_SLOT + j;
    return bad;
}

#endif
