/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Which NIC, where a node has several that the chosen provider reaches (libfabric lists one
 * domain for each): the one ARMCI_NIC names, else one near the cores the process runs on,
 * the processes of the node spread over the near ones. Pure (names and CPU lists in, an
 * index out), so that the unit tests can try layouts this machine does not have.
 */
#ifndef ARMCII_NIC_H
#define ARMCII_NIC_H

#include <stddef.h>

#include <hwloc.h>

typedef struct {
    char name[64];  /* the domain's name as fi_info lists it: mlx5_0, cxi1, eth0 */
    char cpus[256]; /* the CPUs near it (sysfs local_cpulist: "0-15,32-47"); "" unknown */
} armcii_nic_t;

/** The index of the NIC to use among @p nics[0..n): the one named @p want when it is not
 *  empty; else, of those whose CPUs meet @p mine (the process's), the one at @p local_rank
 *  modulo their number; else @p nics[0] (libfabric's first). Returns -1 when @p want names
 *  none of them. @p why (of @p len bytes) says what was chosen and why, or what is wrong. */
int armcii_nic_pick(const armcii_nic_t *nics, int n, const char *want, hwloc_const_bitmap_t mine,
                    int local_rank, char *why, size_t len);

#endif
