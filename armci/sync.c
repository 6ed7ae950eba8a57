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

/* An aggregate handle with a collection attached. */
static int collecting(const armci_hdl_t *hdl)
{
    return hdl && armcii_hdl_collecting(hdl);
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
    if (collecting(hdl)) {
        armcii_agg_complete(call, hdl, 1);
        armcii_hdl_waited(hdl);
        armcii_unlock();
        return 0;
    }
    armcii_hdl_state_t st;
    armcii_req_t *req = armcii_req_of_handle(call, hdl, &st);
    if (req)
        armcii_req_wait(call, req);
    /* A handle whose operation is done (waited or tested before, or never used) returns at
     * once, as in ARMCI-MPI and GA's own ARMCI: GA's global/testing/thread_perf_contig.c
     * waits on its handles a second time. A stale handle cannot reach a newer operation of
     * its slot: the generation it holds no longer matches (src/core/req.c). */
    if (st != ARMCII_HDL_IDLE)
        armcii_hdl_waited(hdl);
    armcii_unlock();
    return 0;
}

int ARMCI_Test(armci_hdl_t *hdl)
{
    static const char call[] = "ARMCI_Test";
    armcii_enter(call);
    if (collecting(hdl)) {
        int done = armcii_agg_complete(call, hdl, 0);
        if (done)
            armcii_hdl_tested(hdl);
        armcii_unlock();
        return !done;
    }
    armcii_hdl_state_t st;
    if (armcii_req_of_handle(call, hdl, &st)) {
        armcii_progress();
        armcii_req_of_handle(call, hdl, &st);
    }
    int in_progress = st == ARMCII_HDL_ACTIVE;
    if (st == ARMCII_HDL_DONE)
        armcii_hdl_tested(hdl);
    armcii_unlock();
    /* 0 = complete, as ARMCI-MPI (src/onesided_nb.c returns !flag) and ComEx (comex_test)
     * answer; GA's global/src/nbutil.c (nga_test_internal) drops a handle when it sees 0. */
    return in_progress;
}

void ARMCI_SET_AGGREGATE_HANDLE(armci_hdl_t *hdl)
{
    static const char call[] = "ARMCI_SET_AGGREGATE_HANDLE";
    armcii_check_init(call);
    armcii_hdl_state_t st;
    armcii_lock();
    armcii_req_of_handle(call, hdl, &st); /* must be a handle we know */
    if (st == ARMCII_HDL_ACTIVE)
        armcii_fatal(call, "handle %p has an operation in flight (ARMCI_Wait on it first)",
                     (void *)hdl);
    if (!armcii_hdl_is_aggregate(hdl))
        armcii_hdl_init(hdl, 1);
    if (armcii_agg_addr_add(hdl) != 0)
        armcii_fatal(call, "out of memory");
    armcii_unlock();
}

void ARMCI_UNSET_AGGREGATE_HANDLE(armci_hdl_t *hdl)
{
    static const char call[] = "ARMCI_UNSET_AGGREGATE_HANDLE";
    armcii_enter(call);
    if (hdl == NULL)
        armcii_fatal(call, "handle is NULL");
    /* What it collected is completed: a plain handle cannot name a collection. */
    if (collecting(hdl))
        armcii_agg_complete(call, hdl, 1);
    if (armcii_hdl_is_aggregate(hdl))
        armcii_hdl_init(hdl, 0);
    armcii_agg_addr_remove(hdl);
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
