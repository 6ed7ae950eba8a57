/* Contiguous put, get and accumulate, blocking and nonblocking. */
#include "check.h"

/* Checks common to every contiguous call; returns the remote segment (NULL for 0 bytes). */
static const armcii_seg_t *check_contig(const char *call, const void *local, const void *remote,
                                        int bytes, int proc)
{
    armcii_check_rank(call, proc);
    armcii_check_count(call, "size", bytes);
    if (bytes == 0)
        return NULL;
    armcii_check_local(call, "local buffer", local, (size_t)bytes);
    return armcii_check_remote(call, remote, (size_t)bytes, proc);
}

static int get_common(const char *call, void *src, void *dst, int bytes, int proc,
                      armci_hdl_t *hdl, int blocking)
{
    armcii_enter(call);
    const armcii_seg_t *seg = check_contig(call, dst, src, bytes, proc);
    int rc = armcii_get(call, src, dst, (size_t)bytes, proc, seg, hdl, blocking);
    armcii_unlock();
    return rc;
}

static int put_common(const char *call, void *src, void *dst, int bytes, int proc,
                      armci_hdl_t *hdl, int blocking)
{
    armcii_enter(call);
    const armcii_seg_t *seg = check_contig(call, src, dst, bytes, proc);
    int rc = armcii_put(call, src, dst, (size_t)bytes, proc, seg, hdl, blocking);
    armcii_unlock();
    return rc;
}

static int acc_common(const char *call, int type, void *scale, void *src, void *dst, int bytes,
                      int proc, armci_hdl_t *hdl, int blocking)
{
    armcii_enter(call);
    armcii_check_acc(call, type, scale, bytes);
    const armcii_seg_t *seg = check_contig(call, src, dst, bytes, proc);
    int rc = armcii_acc(call, type, scale, src, dst, (size_t)bytes, proc, seg, hdl, blocking);
    armcii_unlock();
    return rc;
}

int ARMCI_Get(void *src, void *dst, int size, int target)
{
    return get_common("ARMCI_Get", src, dst, size, target, NULL, 1);
}

int ARMCI_Put(void *src, void *dst, int size, int target)
{
    return put_common("ARMCI_Put", src, dst, size, target, NULL, 1);
}

int ARMCI_Acc(int datatype, void *scale, void *src, void *dst, int bytes, int proc)
{
    return acc_common("ARMCI_Acc", datatype, scale, src, dst, bytes, proc, NULL, 1);
}

int ARMCI_NbGet(void *src, void *dst, int bytes, int proc, armci_hdl_t *hdl)
{
    return get_common("ARMCI_NbGet", src, dst, bytes, proc, hdl, 0);
}

int ARMCI_NbPut(void *src, void *dst, int bytes, int proc, armci_hdl_t *hdl)
{
    return put_common("ARMCI_NbPut", src, dst, bytes, proc, hdl, 0);
}

int ARMCI_NbAcc(int datatype, void *scale, void *src, void *dst, int bytes, int proc,
                armci_hdl_t *hdl)
{
    return acc_common("ARMCI_NbAcc", datatype, scale, src, dst, bytes, proc, hdl, 0);
}
