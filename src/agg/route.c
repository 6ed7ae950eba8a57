/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The way down from the API layer: each call the API layer checked goes to an aggregate
 * handle's collection (agg.c) or to the operations (src/ops), decided here, so that the API
 * layer checks and translates only.
 */
#include "agg.h"
#include "../core/progress.h"
#include "../core/req.h"
#include "../ops/nc.h"
#include "../ops/rma.h"
#include "../base/iter.h"
#include "../base/op.h"
#include "../base/pool.h"
#include "../base/region.h"

int armcii_route_nc(const char *call, armcii_op_t what, int type, const void *scale,
                    armcii_iter_t *it, int proc, armci_hdl_t *hdl, int blocking)
{
    if (!blocking && armcii_agg_is(hdl)) {
        armcii_agg_add(call, hdl, what, it, proc);
        return 0;
    }
    return armcii_nc(call, what, type, scale, it, proc, hdl, blocking);
}

void armcii_route_put_value(const char *call, const void *src, void *dst, size_t len, int proc,
                            const armcii_seg_t *seg, armci_hdl_t *hdl)
{
    if (armcii_agg_is(hdl)) { /* the value is copied into the collection */
        armcii_agg_add_copy(call, hdl, src, len, dst, proc);
        return;
    }
    armcii_put(call, src, dst, len, proc, seg, NULL, 1);
    armcii_hdl_done(call, hdl);
}

void armcii_route_wait(const char *call, armci_hdl_t *hdl)
{
    if (hdl && armcii_hdl_collecting(hdl)) {
        armcii_agg_complete(call, hdl, 1);
        armcii_hdl_waited(hdl);
        return;
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
}

int armcii_route_test(const char *call, armci_hdl_t *hdl)
{
    if (hdl && armcii_hdl_collecting(hdl)) {
        int done = armcii_agg_complete(call, hdl, 0);
        if (done)
            armcii_hdl_tested(hdl);
        return !done;
    }
    armcii_hdl_state_t st;
    if (armcii_req_of_handle(call, hdl, &st)) {
        armcii_progress();
        armcii_req_of_handle(call, hdl, &st);
    }
    if (st == ARMCII_HDL_DONE)
        armcii_hdl_tested(hdl);
    return st == ARMCII_HDL_ACTIVE;
}
