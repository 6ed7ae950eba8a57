/* SPDX-License-Identifier: BSD-3-Clause */
/* Argument checks shared by the API files. */
#include <stdio.h>

#include "check.h"
#include "../src/base/hot.h"
#include "../src/base/acc.h"

void armcii_fail_init(const char *call)
{
    armcii_fatal(call, "%s",
                 armcii_rt.finalized ? "called after ARMCI_Finalize" : "called before ARMCI_Init");
}

void armcii_fail_rank(const char *call, int proc)
{
    armcii_fatal(call, "process %d is out of range (0..%d)", proc, armcii_rt.nproc - 1);
}

void armcii_fail_count(const char *call, const char *what, long n)
{
    armcii_fatal(call, "%s is negative (%ld)", what, n);
}

void armcii_fail_local(const char *call, const char *what, const void *p, size_t len)
{
    if (p == NULL)
        armcii_fatal(call, "%s is NULL with %zu bytes to transfer", what, len);
    armcii_fatal(call,
                 "%s is %p with %zu bytes to transfer: an address in the first page, which no "
                 "process maps (a small integer taken for a pointer?)",
                 what, p, len);
}

void armcii_fail_remote(const char *call, const void *addr, size_t len, int proc)
{
    armcii_fatal(call,
                 "remote address %p (+%zu bytes) on process %d is outside every ARMCI "
                 "allocation of that process",
                 addr, len, proc);
}

void armcii_fail_aggregate_acc(const char *call)
{
    armcii_fatal(call, "accumulates are not aggregated: use a handle without "
                       "ARMCI_SET_AGGREGATE_HANDLE");
}

ARMCII_HOT size_t armcii_check_acc(const char *call, int type, const void *scale, long bytes)
{
    size_t es = armcii_acc_type_size(type);
    if (es == 0)
        armcii_fatal(call, "datatype %d is not an ARMCI_ACC_* type (%d..%d)", type, ARMCI_ACC_INT,
                     ARMCI_ACC_DCP);
    if (scale == NULL)
        armcii_fatal(call, "scale is NULL");
    if (bytes % (long)es != 0)
        armcii_fatal(call, "%ld bytes is not a whole number of %zu-byte elements", bytes, es);
    return es;
}
