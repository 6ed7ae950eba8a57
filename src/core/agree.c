/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Settings that must be alike on every process (ARMCII_ENV_SAME rows of env_defs.h). A
 * process with ARMCI_SHM=0 among others with 1 would wait in one start-up collective
 * while they wait in another; a different ARMCI_BOUNCE_SIZE makes messages that the
 * peer's receive buffers cannot hold. So ARMCI_Init compares them first, before any
 * setting has chosen a path, and a mismatch ends every process with the variable and
 * both values.
 */
#include "runtime.h"
#include "../base/common.h"
#include "../base/env.h"

void armcii_env_agree(const char *call)
{
    armcii_env_t first = armcii_rt.env;
    MPI_Bcast(&first, (int)sizeof first, MPI_BYTE, 0, armcii_rt.comm);
    /* The lowest differing row, and the lowest rank that differs in it. */
    int row[2] = {armcii_env_first_difference(&armcii_rt.env, &first, 0), armcii_rt.rank};
    MPI_Allreduce(MPI_IN_PLACE, row, 1, MPI_2INT, MPI_MINLOC, armcii_rt.comm);
    if (row[0] >= armcii_env_nrows)
        return;
    armcii_env_t other = armcii_rt.env;
    MPI_Bcast(&other, (int)sizeof other, MPI_BYTE, row[1], armcii_rt.comm);
    char a[ARMCII_ENV_STR_MAX], b[ARMCII_ENV_STR_MAX];
    armcii_env_format(&first, row[0], a, sizeof a);
    armcii_env_format(&other, row[0], b, sizeof b);
    armcii_fatal(call,
                 "%s differs between processes: \"%.64s\" at rank 0, \"%.64s\" at rank %d; it "
                 "must be the same on every process",
                 armcii_env_rows[row[0]].name, a, b, row[1]);
}
