/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where the progress thread runs: the choice from the CPUs the process may use, those it
 * is bound to, those any process of the machine is bound to and ARMCI_PROGRESS_CPUS. Pure
 * (hwloc bitmaps in, a bitmap and words out), so that the unit tests can try any layout.
 */
#ifndef ARMCII_CPUS_H
#define ARMCII_CPUS_H

#include <stddef.h>

#include <hwloc.h>

typedef struct {
    int move;       /* 1: run the thread on `set`; 0: leave it on the process's CPUs */
    int elsewhere;  /* the thread may run on a CPU its process's main thread is not bound to
                     * and that no other process needs: worth waking for a transfer */
    char desc[192]; /* the choice in words, or what is wrong with the request */
} armcii_cpus_choice_t;

/** Fills @p set and @p out for @p want ("auto", "inherit" or a list such as "0-3,8").
 *  @p nprocs is the number of processes on the machine. Returns 0, or -1 when @p want is
 *  not a list of allowed CPUs (out->desc then says why). */
int armcii_cpus_choose(const char *want, hwloc_const_bitmap_t allowed, hwloc_const_bitmap_t bound,
                       hwloc_const_bitmap_t used, int nprocs, hwloc_bitmap_t set,
                       armcii_cpus_choice_t *out);

#endif
