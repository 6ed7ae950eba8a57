/* SPDX-License-Identifier: BSD-3-Clause */
/* Generalised I/O vector put, get and accumulate, blocking and not. */
#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "../src/agg/agg.h"
#include "../src/base/iter.h"

/* The blocks of entry @p g of an I/O vector. The remote blocks of a large vector usually
 * lie in one allocation: when the span from the lowest to the highest does, one lookup
 * checks them all; otherwise each block is looked up. A bad block is named by its place in
 * the entry's arrays and the length the caller gave them: a ptr_array_len longer than the
 * arrays shows as a bad block just past their end. */
/* An array this long (512 KiB of pointers) is asked of the kernel whether it lies in
 * mapped memory before it is read: a ptr_array_len far past the arrays' end would
 * otherwise end the job with a segmentation fault and no word of the call. A shorter one
 * that overruns its array reads neighbouring memory, whose values show as bad blocks just
 * past the filled part (below). One system call against a vector of 64Ki blocks. */
#define ARRAY_PROBE_MIN 65536

static void check_array(const char *call, int g, const char *name, void **array, int n)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t from = (uintptr_t)array & ~(page - 1), to = (uintptr_t)(array + n);
    /* msync's only check of an anonymous range with MS_ASYNC: is every page mapped? */
    if (msync((void *)from, to - from, MS_ASYNC) == 0 || errno != ENOMEM)
        return;
    armcii_fatal(call,
                 "iov[%d].%s: ptr_array_len %d entries (%zu bytes from %p) run past the "
                 "process's mapped memory; the arrays are shorter than ptr_array_len says",
                 g, name, n, (size_t)n * sizeof(void *), (void *)array);
}

/* Checks entry @p g; widens [*lo_p, *hi_p) to the remote bytes its blocks cover. */
static void check_group(const char *call, const armci_giov_t *v, int g, int local_is_src, int proc,
                        uintptr_t *lo_p, uintptr_t *hi_p)
{
    if (v->bytes <= 0 || v->ptr_array_len <= 0)
        return;
    void **local = local_is_src ? v->src_ptr_array : v->dst_ptr_array;
    void **remote = local_is_src ? v->dst_ptr_array : v->src_ptr_array;
    const char *lname = local_is_src ? "src_ptr_array" : "dst_ptr_array";
    const char *rname = local_is_src ? "dst_ptr_array" : "src_ptr_array";
    size_t len = (size_t)v->bytes;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    int n = v->ptr_array_len;
    if (n >= ARRAY_PROBE_MIN) {
        check_array(call, g, "src_ptr_array", v->src_ptr_array, n);
        check_array(call, g, "dst_ptr_array", v->dst_ptr_array, n);
    }
    int null = armcii_vector_scan(local, remote, n, &lo, &hi);
    for (int k = 0; null && k < n; k++)
        if (local[k] == NULL)
            armcii_fatal(call,
                         "iov[%d].%s[%d] (of ptr_array_len %d), a local address, is NULL with "
                         "%zu bytes to transfer",
                         g, lname, k, n, len);
    *lo_p = lo < *lo_p ? lo : *lo_p;
    *hi_p = hi + len > *hi_p ? hi + len : *hi_p;
    if (hi - lo <= SIZE_MAX - len &&
        armcii_region_find_fast(&armcii_mem.regions, proc, lo, hi - lo + len))
        return;
    for (int k = 0; k < n; k++)
        if (!armcii_region_find_fast(&armcii_mem.regions, proc, (uintptr_t)remote[k], len))
            armcii_fatal(call,
                         "iov[%d].%s[%d] (of ptr_array_len %d): remote address %p (+%zu bytes) "
                         "on process %d is outside every ARMCI allocation of that process",
                         g, rname, k, n, remote[k], len, proc);
}

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
    /* Every block is checked before any byte moves; the range they cover, found on the
     * way, goes with them (a get may read it whole: src/ops/span.c). */
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (int g = 0; g < iov_len; g++)
        check_group(call, &iov[g], g, what != ARMCII_OP_GET, proc, &lo, &hi);
    armcii_iter_t it;
    armcii_iter_vector(&it, iov, iov_len, what != ARMCII_OP_GET);
    if (lo < hi) {
        it.rlo = lo;
        it.rhi = hi;
    }
    if (!blocking)
        armcii_check_aggregate(call, hdl, what == ARMCII_OP_ACC);
    int rc = armcii_route_nc(call, what, type, scale, &it, proc, hdl, blocking);
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
