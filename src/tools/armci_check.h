/* SPDX-License-Identifier: BSD-3-Clause */
/* armci-info --check (armci_check.c). */
#ifndef ARMCI_CHECK_H
#define ARMCI_CHECK_H

#include "../base/env.h"

/** Checks this node, or under a launcher every host of the launch; prints the report and
 *  returns the exit status (1 when a check failed). */
int armci_check_run(const armcii_env_t *env);

#endif
