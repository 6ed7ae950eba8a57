/* SPDX-License-Identifier: BSD-3-Clause */
/* Single values, flagged puts, local copies and local-access brackets. */
#include <string.h>

#include "check.h"
#include "../src/agg/agg.h"

/* A value lives on the caller's stack: every put of one returns locally complete, the
 * nonblocking forms included (their handle then reads as completed). */
static int put_value(const char *call, const void *src, void *dst, int bytes, int proc,
                     armci_hdl_t *hdl)
{
    armcii_enter(call);
    const armcii_seg_t *seg = armcii_check_contig(call, src, dst, bytes, proc);
    armcii_route_put_value(call, src, dst, (size_t)bytes, proc, seg, hdl);
    armcii_unlock();
    return 0;
}

static void get_value(const char *call, void *src, void *dst, int bytes, int proc)
{
    armcii_enter(call);
    const armcii_seg_t *seg = armcii_check_contig(call, dst, src, bytes, proc);
    armcii_get(call, src, dst, (size_t)bytes, proc, seg, NULL, 1);
    armcii_unlock();
}

#define VALUE_OPS(Name, T)                                                                         \
    int ARMCI_PutValue##Name(T src, void *dst, int proc)                                           \
    {                                                                                              \
        return put_value("ARMCI_PutValue" #Name, &src, dst, sizeof(T), proc, NULL);                \
    }                                                                                              \
    int ARMCI_NbPutValue##Name(T src, void *dst, int proc, armci_hdl_t *hdl)                       \
    {                                                                                              \
        return put_value("ARMCI_NbPutValue" #Name, &src, dst, sizeof(T), proc, hdl);               \
    }                                                                                              \
    T ARMCI_GetValue##Name(void *src, int proc)                                                    \
    {                                                                                              \
        T v = 0;                                                                                   \
        get_value("ARMCI_GetValue" #Name, src, &v, sizeof(T), proc);                               \
        return v;                                                                                  \
    }

VALUE_OPS(Int, int)
VALUE_OPS(Long, long)
VALUE_OPS(Float, float)
VALUE_OPS(Double, double)

/* ARMCI_Put_flag (@p hdl NULL) and its nonblocking form. */
static int put_flag(const char *call, void *src, void *dst, int size, int *flag, int value,
                    int proc, armci_hdl_t *hdl)
{
    armcii_enter(call);
    if (armcii_agg_is(hdl))
        armcii_fatal(call, "flagged puts are not aggregated: use a handle without "
                           "ARMCI_SET_AGGREGATE_HANDLE");
    const armcii_seg_t *seg = armcii_check_contig(call, src, dst, size, proc);
    armcii_check_contig(call, &value, flag, sizeof(int), proc);
    armcii_put_flag(call, src, dst, seg, (size_t)size, flag, value, proc, hdl);
    armcii_unlock();
    return 0;
}

int ARMCI_Put_flag(void *src, void *dst, int size, int *flag, int value, int proc)
{
    return put_flag("ARMCI_Put_flag", src, dst, size, flag, value, proc, NULL);
}

int ARMCIX_NbPut_flag(void *src, void *dst, int size, int *flag, int value, int proc,
                      armci_hdl_t *hdl)
{
    return put_flag("ARMCIX_NbPut_flag", src, dst, size, flag, value, proc, hdl);
}

void ARMCI_Copy(void *src, void *dst, int size)
{
    static const char call[] = "ARMCI_Copy";
    armcii_check_count(call, "size", size);
    armcii_check_local(call, "src", src, (size_t)size);
    armcii_check_local(call, "dst", dst, (size_t)size);
    if (size > 0)
        memmove(dst, src, (size_t)size);
}

/* Direct loads and stores into one's own block need no epoch here: the memory is plain
 * memory. The brackets check that @p ptr is in an allocation of this process and order
 * the caller's accesses against communication with a full memory barrier. */
static void access_bracket(const char *call, void *ptr)
{
    armcii_check_init(call);
    armcii_lock();
    armcii_check_remote(call, ptr, 1, armcii_rt.rank);
    armcii_unlock();
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

void ARMCI_Access_begin(void *ptr)
{
    access_bracket("ARMCI_Access_begin", ptr);
}

void ARMCI_Access_end(void *ptr)
{
    access_bracket("ARMCI_Access_end", ptr);
}

/* Profiling names (see ARMCII_PROFILED). */
ARMCII_PROFILED(Access_begin)
ARMCII_PROFILED(Access_end)
ARMCII_PROFILED(Put_flag)
ARMCII_PROFILED(PutValueInt)
ARMCII_PROFILED(PutValueLong)
ARMCII_PROFILED(PutValueFloat)
ARMCII_PROFILED(PutValueDouble)
ARMCII_PROFILED(NbPutValueInt)
ARMCII_PROFILED(NbPutValueLong)
ARMCII_PROFILED(NbPutValueFloat)
ARMCII_PROFILED(NbPutValueDouble)
ARMCII_PROFILED(GetValueInt)
ARMCII_PROFILED(GetValueLong)
ARMCII_PROFILED(GetValueFloat)
ARMCII_PROFILED(GetValueDouble)
