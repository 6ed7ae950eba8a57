/* SPDX-License-Identifier: BSD-3-Clause */
/* The job's health's host (health.h): written here only. */
#include "health.h"

armcii_health_host_t armcii_hh;

void armcii_health_configure(const armcii_health_host_t *host)
{
    armcii_hh = *host;
}
