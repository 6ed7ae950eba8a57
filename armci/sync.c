/* SPDX-License-Identifier: BSD-3-Clause */
/* Handles, completion, fences and the barrier. */
#include "check.h"
#include "../src/agg/agg.h"
#include "../src/cache/getcache.h"
#include "../src/coll/collectives.h"

void ARMCI_INIT_HANDLE(armci_hdl_t *hdl)
{
    if (hdl == NULL)
        armcii_fatal("ARMCI_INIT_HANDLE", "handle is NULL");
    armcii_hdl_init(hdl, 0);
}

int ARMCI_Wait(armci_hdl_t *hdl)
{
    static const char call[] = "ARMCI_Wait";
    /* Completed within its call (a copy on this node, say): nothing the lock guards is
     * read, only the caller's handle. */
    if (armcii_rt.one_caller && hdl && armcii_hdl_done_within_call(hdl)) {
        armcii_check_init(call);
        armcii_hdl_waited(hdl);
        return 0;
    }
    armcii_enter(call);
    armcii_route_wait(call, hdl);
    armcii_unlock();
    return 0;
}

int ARMCI_Test(armci_hdl_t *hdl)
{
    static const char call[] = "ARMCI_Test";
    armcii_enter(call);
    int in_progress = armcii_route_test(call, hdl);
    armcii_unlock();
    /* 0 = complete, as ARMCI-MPI (src/onesided_nb.c returns !flag) and ComEx (comex_test)
     * answer; GA's global/src/nbutil.c (nga_test_internal) drops a handle when it sees 0. */
    return in_progress;
}

void ARMCI_SET_AGGREGATE_HANDLE(armci_hdl_t *hdl)
{
    static const char call[] = "ARMCI_SET_AGGREGATE_HANDLE";
    armcii_check_init(call);
    armcii_lock();
    armcii_agg_set(call, hdl);
    armcii_unlock();
}

void ARMCI_UNSET_AGGREGATE_HANDLE(armci_hdl_t *hdl)
{
    static const char call[] = "ARMCI_UNSET_AGGREGATE_HANDLE";
    armcii_enter(call);
    if (hdl == NULL)
        armcii_fatal(call, "handle is NULL");
    armcii_agg_unset(call, hdl);
    armcii_unlock();
}

int ARMCI_WaitProc(int proc)
{
    static const char call[] = "ARMCI_WaitProc";
    armcii_enter(call);
    armcii_check_rank(call, proc);
    armcii_req_wait_implicit(call, proc);
    armcii_unlock();
    return 0;
}

int ARMCI_WaitAll(void)
{
    static const char call[] = "ARMCI_WaitAll";
    armcii_enter(call);
    armcii_req_wait_implicit(call, -1);
    armcii_unlock();
    return 0;
}

void ARMCI_Fence(int proc)
{
    static const char call[] = "ARMCI_Fence";
    armcii_enter(call);
    armcii_check_rank(call, proc);
    armcii_cache_sync();
    armcii_fence(call, proc);
    armcii_unlock();
}

void ARMCI_AllFence(void)
{
    static const char call[] = "ARMCI_AllFence";
    armcii_enter(call);
    armcii_cache_sync();
    armcii_fence_all(call);
    armcii_unlock();
}

void ARMCI_Barrier(void)
{
    static const char call[] = "ARMCI_Barrier";
    armcii_enter(call);
    armcii_fence_all(call);
    /* Serve peers while waiting: their operations on us may be what they wait for. */
    armcii_coll_barrier(call);
    armcii_unlock();
}

/* Profiling names (see ARMCII_PROFILED). */
ARMCII_PROFILED(SET_AGGREGATE_HANDLE)
ARMCII_PROFILED(UNSET_AGGREGATE_HANDLE)
ARMCII_PROFILED(Barrier)
ARMCII_PROFILED(Fence)
ARMCII_PROFILED(AllFence)
ARMCII_PROFILED(Wait)
ARMCII_PROFILED(Test)
ARMCII_PROFILED(WaitProc)
ARMCII_PROFILED(WaitAll)
