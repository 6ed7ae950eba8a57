/* Argument checks shared by the API files. */
#include <stdio.h>

#include "check.h"
#include "../src/transport/transport.h"
#include "../src/agg/agg.h"
#include "../src/core/hot.h"
#include "../src/core/acc.h"

void armcii_fail_init(const char *call)
{
    armcii_fatal(call, "%s",
                 armcii_g.finalized ? "called after ARMCI_Finalize" : "called before ARMCI_Init");
}

void armcii_fail_rank(const char *call, int proc)
{
    armcii_fatal(call, "process %d is out of range (0..%d)", proc, armcii_g.nproc - 1);
}

void armcii_fail_count(const char *call, const char *what, long n)
{
    armcii_fatal(call, "%s is negative (%ld)", what, n);
}

void armcii_fail_local(const char *call, const char *what, size_t len)
{
    armcii_fatal(call, "%s is NULL with %zu bytes to transfer", what, len);
}

ARMCII_HOT const armcii_seg_t *armcii_check_remote(const char *call, const void *addr, size_t len,
                                                   int proc)
{
    const armcii_seg_t *seg =
        armcii_region_find_fast(&armcii_g.regions, proc, (uintptr_t)addr, len);
    if (!seg)
        armcii_fatal(call,
                     "remote address %p (+%zu bytes) on process %d is outside every ARMCI "
                     "allocation of that process",
                     addr, len, proc);
    return seg;
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

ARMCII_HOT const armcii_seg_t *armcii_check_contig(const char *call, const void *local,
                                                   const void *remote, int bytes, int proc)
{
    armcii_check_rank(call, proc);
    armcii_check_count(call, "size", bytes);
    if (bytes == 0)
        return NULL;
    armcii_check_local(call, "local buffer", local, (size_t)bytes);
    return armcii_check_remote(call, remote, (size_t)bytes, proc);
}

ARMCII_HOT int armcii_check_aggregate(const char *call, const armci_hdl_t *hdl, int is_acc)
{
    /* known addresses first: the bytes of a plain handle may be uninitialised */
    if (hdl == NULL || !armcii_agg_addr_known(hdl) || !armcii_hdl_is_aggregate(hdl))
        return 0;
    if (is_acc)
        armcii_fatal(call, "accumulates are not aggregated: use a handle without "
                           "ARMCI_SET_AGGREGATE_HANDLE");
    return 1;
}
