/* SPDX-License-Identifier: BSD-3-Clause */
/* Strided put, get and accumulate (0..ARMCI_MAX_STRIDE_LEVEL levels), blocking and not. */
#include <string.h>

#include "check.h"
#include "../src/agg/agg.h"
#include "../src/base/iter.h"

/* Check and start a strided descriptor; the local side is the source unless getting. */
static void begin(const char *call, armcii_op_t what, armcii_iter_t *it, void *src, int *src_stride,
                  void *dst, int *dst_stride, int *count, int levels, int proc)
{
    char err[256];
    armcii_check_rank(call, proc);
    if (armcii_strided_check(src_stride, dst_stride, count, levels, err, sizeof(err)) != 0)
        armcii_fatal(call, "%s", err);
    armcii_iter_strided(it, src, src_stride, dst, dst_stride, count, levels, what != ARMCII_OP_GET);
    if (it->nblocks == 0)
        return;
    armcii_check_local(call, what == ARMCII_OP_GET ? "dst_ptr" : "src_ptr", it->lbase, 1);
    char *lo, *hi;
    armcii_iter_remote_extent(it, &lo, &hi);
    armcii_check_remote(call, lo, (size_t)(hi - lo), proc);
}

static int strided(const char *call, armcii_op_t what, int type, void *scale, void *src,
                   int *src_stride, void *dst, int *dst_stride, int *count, int levels, int proc,
                   armci_hdl_t *hdl, int blocking)
{
    armcii_enter(call);
    if (what == ARMCII_OP_ACC && count) {
        armcii_check_acc(call, type, scale, count[0]);
    }
    armcii_iter_t it;
    if (!blocking)
        armcii_check_aggregate(call, hdl, what == ARMCII_OP_ACC);
    begin(call, what, &it, src, src_stride, dst, dst_stride, count, levels, proc);
    int rc = armcii_route_nc(call, what, type, scale, &it, proc, hdl, blocking);
    armcii_unlock();
    return rc;
}

int ARMCI_PutS(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[], int count[],
               int stride_levels, int proc)
{
    return strided("ARMCI_PutS", ARMCII_OP_PUT, 0, NULL, src_ptr, src_stride_ar, dst_ptr,
                   dst_stride_ar, count, stride_levels, proc, NULL, 1);
}

int ARMCI_GetS(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[], int count[],
               int stride_levels, int proc)
{
    return strided("ARMCI_GetS", ARMCII_OP_GET, 0, NULL, src_ptr, src_stride_ar, dst_ptr,
                   dst_stride_ar, count, stride_levels, proc, NULL, 1);
}

int ARMCI_AccS(int datatype, void *scale, void *src_ptr, int src_stride_ar[], void *dst_ptr,
               int dst_stride_ar[], int count[], int stride_levels, int proc)
{
    return strided("ARMCI_AccS", ARMCII_OP_ACC, datatype, scale, src_ptr, src_stride_ar, dst_ptr,
                   dst_stride_ar, count, stride_levels, proc, NULL, 1);
}

int ARMCI_NbPutS(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[],
                 int count[], int stride_levels, int proc, armci_hdl_t *hdl)
{
    return strided("ARMCI_NbPutS", ARMCII_OP_PUT, 0, NULL, src_ptr, src_stride_ar, dst_ptr,
                   dst_stride_ar, count, stride_levels, proc, hdl, 0);
}

int ARMCI_NbGetS(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[],
                 int count[], int stride_levels, int proc, armci_hdl_t *hdl)
{
    return strided("ARMCI_NbGetS", ARMCII_OP_GET, 0, NULL, src_ptr, src_stride_ar, dst_ptr,
                   dst_stride_ar, count, stride_levels, proc, hdl, 0);
}

int ARMCI_NbAccS(int datatype, void *scale, void *src_ptr, int src_stride_ar[], void *dst_ptr,
                 int dst_stride_ar[], int count[], int stride_levels, int proc, armci_hdl_t *hdl)
{
    return strided("ARMCI_NbAccS", ARMCII_OP_ACC, datatype, scale, src_ptr, src_stride_ar, dst_ptr,
                   dst_stride_ar, count, stride_levels, proc, hdl, 0);
}

int ARMCI_PutS_flag(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[],
                    int count[], int stride_levels, int *flag, int value, int proc)
{
    static const char call[] = "ARMCI_PutS_flag";
    strided(call, ARMCII_OP_PUT, 0, NULL, src_ptr, src_stride_ar, dst_ptr, dst_stride_ar, count,
            stride_levels, proc, NULL, 1);
    armcii_enter(call);
    armcii_check_remote(call, flag, sizeof(int), proc);
    /* The flag alone, as a flagged put of nothing: it follows the blocks' messages in
     * order, and waits (once) for any zero-copy block to have landed. */
    armcii_put_flag(call, NULL, NULL, NULL, 0, flag, value, proc, NULL);
    armcii_unlock();
    return 0;
}

/* Local copies between a strided layout and a contiguous buffer. */
static void local_strided(const char *call, void *ptr, int stride_levels, int stride_arr[],
                          int count[], char *buf, int to_buf)
{
    armcii_check_init(call);
    char err[256];
    if (armcii_strided_check(stride_arr, stride_arr, count, stride_levels, err, sizeof(err)))
        armcii_fatal(call, "%s", err);
    /* The contiguous side's strides: each level packed tight on the level below. */
    int packed[ARMCI_MAX_STRIDE_LEVEL];
    long extent = count[0];
    for (int i = 0; i < stride_levels; i++) {
        packed[i] = (int)extent;
        extent *= count[i + 1];
    }
    armcii_iter_t it;
    armcii_iter_strided(&it, ptr, stride_arr, buf, packed, count, stride_levels, 1);
    if (it.nblocks > 0) {
        armcii_check_local(call, "ptr", ptr, 1);
        armcii_check_local(call, "buf", buf, 1);
    }
    char *p, *b;
    size_t len;
    while (armcii_iter_next(&it, &p, &b, &len)) {
        if (to_buf)
            memmove(b, p, len);
        else
            memmove(p, b, len);
    }
}

void armci_read_strided(void *ptr, int stride_levels, int stride_arr[], int count[], char *buf)
{
    local_strided("armci_read_strided", ptr, stride_levels, stride_arr, count, buf, 1);
}

void armci_write_strided(void *ptr, int stride_levels, int stride_arr[], int count[], char *buf)
{
    local_strided("armci_write_strided", ptr, stride_levels, stride_arr, count, buf, 0);
}

/* Profiling names (see ARMCII_PROFILED). */
ARMCII_PROFILED(PutS)
ARMCII_PROFILED(GetS)
ARMCII_PROFILED(AccS)
ARMCII_PROFILED(NbPutS)
ARMCII_PROFILED(NbGetS)
ARMCII_PROFILED(NbAccS)
ARMCII_PROFILED(PutS_flag)
