/* SPDX-License-Identifier: BSD-3-Clause */
/* The transport's host (host.h): written here only. */
#include "host.h"

armcii_tp_host_t armcii_tp;

void armcii_tp_configure(const armcii_tp_host_t *host)
{
    armcii_tp = *host;
}

void armcii_tp_set_sends_need_caller(int on)
{
    armcii_tp.sends_need_caller = on;
}
