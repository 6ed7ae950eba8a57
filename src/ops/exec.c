/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The executor: the prologue of every operation, each rule in one place (exec.h says which
 * door keeps which).
 */
#include "exec.h"
#include "dgram.h"
#include "open.h"
#include "../core/order.h"
#include "../core/progress.h"
#include "../base/hot.h"
#include "../base/op.h"
#include "../base/pool.h"
#include "../base/stats.h"

void armcii_exec_local(const char *call, armcii_op_t what, int target, long bytes)
{
    armcii_stat_op(what, ARMCII_ST_LOCAL, bytes);
    armcii_order_local(call, target);
}

void armcii_exec_join(const char *call, const armcii_plan_t *p)
{
    armcii_stat_op(p->what, p->stat, p->bytes);
    if (p->blocking)
        armcii_order_before(call, ARMCII_REQ_AM, p->target);
}

/* What goes to the target next must not overtake what waits in its open message; a
 * blocking operation keeps ARMCI's ordering promise (armcii_order_before); a nonblocking
 * one that is not a message waits for the messages in flight to the target. */
ARMCII_HOT static void before(const char *call, const armcii_plan_t *p)
{
    armcii_stat_op(p->what, p->stat, p->bytes);
    armcii_put_open_send(call, p->target);
    if (p->blocking || p->in_order)
        armcii_order_before(call, p->kind, p->target);
    else if (p->kind != ARMCII_REQ_AM)
        armcii_order_after_messages(call, p->target);
}

ARMCII_HOT armcii_req_t *armcii_exec_begin(const char *call, armcii_plan_t *p)
{
    before(call, p);
    p->is = (armcii_issue_t){.hdl = p->hdl, .blocking = p->blocking, .wait_here = p->wait_here};
    return armcii_issue_begin(call, &p->is, p->kind, p->target);
}

void armcii_exec_unrequested(const char *call, const armcii_plan_t *p)
{
    before(call, p);
    armcii_datagrams_before(call, p->target); /* (what armcii_req_new would ask) */
}

void armcii_ops_init(void)
{
    armcii_put_open_init();
    armcii_dgram_init();
}
