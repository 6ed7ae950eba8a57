/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The runtime's identity and settings (armcii_rt), which every file reads and this one
 * alone writes, each step when bring-up (bringup.c) reaches it. Below the rest of the core:
 * it calls only the settings' parser, the transport's opening and the protocol limits.
 */
#include <stdlib.h>

#include "runtime.h"
#include "../base/common.h"
#include "../base/env.h"
#include "../base/select.h"
#include "../transport/transport.h"

armcii_rt_t armcii_rt;

static const char *env_lookup(const char *name)
{
    return getenv(name);
}

void armcii_rt_begin(const char *call, MPI_Comm comm, int one_caller)
{
    armcii_rt.one_caller = one_caller;
    char err[512];
    if (armcii_env_load(&armcii_rt.env, env_lookup, err, sizeof(err)) != 0)
        armcii_fatal(call, "%s", err);
    MPI_Comm_dup(comm, &armcii_rt.comm);
    MPI_Comm_rank(armcii_rt.comm, &armcii_rt.rank);
    MPI_Comm_size(armcii_rt.comm, &armcii_rt.nproc);
}

void armcii_rt_use_shm(int shm)
{
    armcii_rt.shm = shm;
}

armcii_status_t armcii_rt_open_fabric(void)
{
    armcii_status_t st = armcii_net_init(&armcii_rt.caps);
    if (st != ARMCII_OK)
        return st;
    armcii_rt.fabric = 1;
    armcii_select_limits(&armcii_rt.limits, &armcii_rt.caps, armcii_rt.env.INJECT_MAX,
                         armcii_rt.env.BUFFERED_MAX, armcii_rt.env.PUT_MESSAGE_MAX,
                         armcii_rt.env.ACC_NATIVE);
    return ARMCII_OK;
}

void armcii_rt_close_fabric(void)
{
    if (armcii_rt.fabric)
        armcii_net_fini();
    armcii_rt.fabric = 0;
}

void armcii_rt_up(int up)
{
    armcii_rt.initialized = up;
}

void armcii_rt_end(void)
{
    MPI_Comm_free(&armcii_rt.comm);
    armcii_rt.initialized = 0;
    armcii_rt.finalized = 1;
}
