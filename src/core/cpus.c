/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where the progress thread runs. Launchers bind each process to a core when there are
 * enough of them (Open MPI does for two processes), and a thread inherits its creator's
 * binding, so by default the thread takes the processor from its own process's
 * computation, the very thing it is there to overlap with. Where the machine has CPUs
 * that no process is bound to, the thread runs there instead, and is then worth waking
 * for a transfer (armcii_progress_kick). Where every CPU has its bound process, moving
 * the thread only moves its interruptions onto a peer, just as much on the critical path
 * (NAS CG over tcp, 2 processes on 2 cores, was slower with the thread on the peer's
 * core), so it stays.
 */
#include <stdio.h>
#include <string.h>

#include "cpus.h"

int armcii_cpus_choose(const char *want, hwloc_const_bitmap_t allowed, hwloc_const_bitmap_t bound,
                       hwloc_const_bitmap_t used, int nprocs, hwloc_bitmap_t set,
                       armcii_cpus_choice_t *out)
{
    char bound_s[64], set_s[64];
    hwloc_bitmap_list_snprintf(bound_s, sizeof bound_s, bound);
    int unbound = hwloc_bitmap_isincluded(allowed, bound);
    out->move = 0;
    /* Unbound, the thread goes wherever the scheduler finds room: there is some when the
     * machine has more CPUs than processes. */
    out->elsewhere = unbound && hwloc_bitmap_weight(allowed) > nprocs;
    snprintf(out->desc, sizeof out->desc, "the process's CPUs (%s)", bound_s);
    hwloc_bitmap_zero(set);
    if (!strcmp(want, "inherit"))
        return 0;
    if (!strcmp(want, "auto") || !want[0]) {
        if (unbound)
            return 0;
        hwloc_bitmap_andnot(set, allowed, used);
        if (hwloc_bitmap_iszero(set)) {
            snprintf(out->desc, sizeof out->desc,
                     "the process's CPUs (%s): every CPU has a process bound to it", bound_s);
            return 0;
        }
    } else if (hwloc_bitmap_list_sscanf(set, want) != 0 || hwloc_bitmap_iszero(set) ||
               !hwloc_bitmap_isincluded(set, allowed)) {
        char allowed_s[64];
        hwloc_bitmap_list_snprintf(allowed_s, sizeof allowed_s, allowed);
        snprintf(out->desc, sizeof out->desc,
                 "ARMCI_PROGRESS_CPUS=%s is not a list of CPUs this process may use (those "
                 "are %s; or say auto or inherit)",
                 want, allowed_s);
        hwloc_bitmap_zero(set);
        return -1;
    }
    hwloc_bitmap_list_snprintf(set_s, sizeof set_s, set);
    out->move = 1;
    /* A list the user gave may hold other processes' CPUs: their choice. */
    out->elsewhere = !hwloc_bitmap_isincluded(set, bound);
    snprintf(out->desc, sizeof out->desc, "CPUs %s (the process is bound to %s)", set_s, bound_s);
    return 0;
}
