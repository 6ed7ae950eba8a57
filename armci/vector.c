/* Generalised I/O vector put, get and accumulate, blocking and not. */
#include "check.h"
#include "../src/agg/agg.h"
#include "../src/core/iter.h"

static int vector(const char *call, armcii_op_t what, int type, void *scale, armci_giov_t *iov,
                  int iov_len, int proc, armci_hdl_t *hdl, int blocking)
{
    armcii_enter(call);
    armcii_check_rank(call, proc);
    char err[256];
    if (armcii_vector_check(iov, iov_len, err, sizeof(err)) != 0)
        armcii_fatal(call, "%s", err);
    if (what == ARMCII_OP_ACC)
        for (int g = 0; g < iov_len; g++)
            armcii_check_acc(call, type, scale, iov[g].bytes);
    /* Every block is checked before any byte moves. */
    armcii_iter_t it;
    armcii_iter_vector(&it, iov, iov_len, what != ARMCII_OP_GET);
    char *l, *r;
    size_t len;
    while (armcii_iter_next(&it, &l, &r, &len)) {
        armcii_check_local(call, "a local segment address", l, len);
        armcii_check_remote(call, r, len, proc);
    }
    armcii_iter_vector(&it, iov, iov_len, what != ARMCII_OP_GET);
    if (!blocking && armcii_check_aggregate(call, hdl, what == ARMCII_OP_ACC)) {
        armcii_agg_add(call, hdl, what, &it, proc);
        armcii_unlock();
        return 0;
    }
    int rc = armcii_nc(call, what, type, scale, &it, proc, hdl, blocking);
    armcii_unlock();
    return rc;
}

int ARMCI_PutV(armci_giov_t *iov, int iov_len, int proc)
{
    return vector("ARMCI_PutV", ARMCII_OP_PUT, 0, NULL, iov, iov_len, proc, NULL, 1);
}

int ARMCI_GetV(armci_giov_t *iov, int iov_len, int proc)
{
    return vector("ARMCI_GetV", ARMCII_OP_GET, 0, NULL, iov, iov_len, proc, NULL, 1);
}

int ARMCI_AccV(int datatype, void *scale, armci_giov_t *iov, int iov_len, int proc)
{
    return vector("ARMCI_AccV", ARMCII_OP_ACC, datatype, scale, iov, iov_len, proc, NULL, 1);
}

int ARMCI_NbPutV(armci_giov_t *iov, int iov_len, int proc, armci_hdl_t *handle)
{
    return vector("ARMCI_NbPutV", ARMCII_OP_PUT, 0, NULL, iov, iov_len, proc, handle, 0);
}

int ARMCI_NbGetV(armci_giov_t *iov, int iov_len, int proc, armci_hdl_t *handle)
{
    return vector("ARMCI_NbGetV", ARMCII_OP_GET, 0, NULL, iov, iov_len, proc, handle, 0);
}

int ARMCI_NbAccV(int datatype, void *scale, armci_giov_t *iov, int iov_len, int proc,
                 armci_hdl_t *handle)
{
    return vector("ARMCI_NbAccV", ARMCII_OP_ACC, datatype, scale, iov, iov_len, proc, handle, 0);
}

/* Profiling names (see ARMCII_PROFILED). */
ARMCII_PROFILED(PutV)
ARMCII_PROFILED(GetV)
ARMCII_PROFILED(AccV)
ARMCII_PROFILED(NbPutV)
ARMCII_PROFILED(NbGetV)
ARMCII_PROFILED(NbAccV)
