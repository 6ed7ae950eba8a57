/* SPDX-License-Identifier: BSD-3-Clause */
/* Which NIC of several (nic.h). */
#include <stdio.h>
#include <string.h>

#include "nic.h"

int armcii_nic_pick(const armcii_nic_t *nics, int n, const char *want, hwloc_const_bitmap_t mine,
                    int local_rank, char *why, size_t len)
{
    if (n <= 0) {
        snprintf(why, len, "no NIC to choose from");
        return -1;
    }
    if (want && want[0]) {
        for (int i = 0; i < n; i++)
            if (strcmp(nics[i].name, want) == 0) {
                snprintf(why, len, "%s (ARMCI_NIC)", nics[i].name);
                return i;
            }
        size_t used = (size_t)snprintf(why, len, "ARMCI_NIC=%s names none of this node's:", want);
        for (int i = 0; i < n && used < len; i++)
            used += (size_t)snprintf(why + used, len - used, "%s %s", i ? "," : "", nics[i].name);
        return -1;
    }
    if (n == 1) {
        snprintf(why, len, "%s (the only one)", nics[0].name);
        return 0;
    }
    /* the near ones, in libfabric's order */
    int near[64], nnear = 0;
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    for (int i = 0; i < n && nnear < 64; i++) {
        if (!nics[i].cpus[0] || hwloc_bitmap_list_sscanf(set, nics[i].cpus) != 0)
            continue;
        if (mine && hwloc_bitmap_intersects(set, mine))
            near[nnear++] = i;
    }
    hwloc_bitmap_free(set);
    if (nnear == 0) {
        snprintf(why, len,
                 "%s (libfabric's first of %d; none is known to be near this process's "
                 "cores)",
                 nics[0].name, n);
        return 0;
    }
    int pick = near[(local_rank < 0 ? 0 : local_rank) % nnear];
    snprintf(why, len,
             "%s (near this process's cores; %d of the node's %d NICs are, shared out "
             "by local rank)",
             nics[pick].name, nnear, n);
    return pick;
}
