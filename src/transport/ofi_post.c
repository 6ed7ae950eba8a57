/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What every operation posted to the endpoint takes: a context (ofi_op_t) from the free
 * list and a bounce buffer where its data are copied; and the one report of a failed post.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host.h"
#include "ofi_internal.h"
#include "transport.h"
#include "../base/common.h"
#include "../base/invariant.h"

void armcii_ofi_fail(const char *call, const char *what, int target, ssize_t rc)
{
    armcii_tp.blame(call, target);
    armcii_fatal(call, "%s to rank %d failed: %s (provider %s)", what, target,
                 fi_strerror((int)-rc), armcii_ofi_prov_name());
}

ofi_post_t armcii_ofi_post;

/* ---- operation contexts ---- */

ofi_op_t *armcii_ofi_op_get(void)
{
    ofi_op_t *op = armcii_ofi_post.op_free;
    if (op) {
        armcii_ofi_post.op_free = op->next_free;
    } else {
        op = malloc(sizeof(*op));
        if (!op)
            armcii_fatal("armci", "out of memory for an operation context");
    }
    memset(op, 0, sizeof(*op));
    armcii_ofi_post.ops_out++;
    return op;
}

ofi_op_t *armcii_ofi_op_get_standing(void)
{
    ofi_op_t *op = armcii_ofi_op_get();
    armcii_ofi_post.ops_out--;
    return op;
}

void armcii_ofi_op_put(ofi_op_t *op)
{
    ARMCII_INVARIANT(armcii_ofi_post.ops_out > 0, "an operation context given back twice (%ld out)",
                     armcii_ofi_post.ops_out);
    armcii_ofi_post.ops_out--;
    op->next_free = armcii_ofi_post.op_free;
    armcii_ofi_post.op_free = op;
}

/* ---- bounce buffers ---- */

void *armcii_ofi_bounce_get(const char *call)
{
    double t0 = armcii_now();
    unsigned idle = 0;
    while (armcii_ofi_post.nbounce_free == 0) {
        /* Every bounce buffer belongs to an operation in flight: completing them frees
         * one. This is where the oldest holder gets completed. */
        armcii_tp.make_progress(call, &idle);
        if (armcii_now() - t0 > (double)armcii_tp.env->TIMEOUT)
            armcii_fatal(call,
                         "no bounce buffer came free in %ld s (%d in use; see "
                         "ARMCI_BOUNCE_COUNT and ARMCI_TIMEOUT)",
                         armcii_tp.env->TIMEOUT, armcii_ofi_post.bounce_count);
    }
    return armcii_ofi_post.bounce_free[--armcii_ofi_post.nbounce_free];
}

void armcii_ofi_bounce_put(void *b)
{
    ARMCII_INVARIANT(
        armcii_ofi_post.nbounce_free < armcii_ofi_post.bounce_count &&
            (char *)b >= armcii_ofi_post.bounce_slab &&
            (size_t)((char *)b - armcii_ofi_post.bounce_slab) % armcii_ofi_post.bounce_size == 0,
        "bounce buffer %p given back, %d of %d free", b, armcii_ofi_post.nbounce_free,
        armcii_ofi_post.bounce_count);
    armcii_ofi_post.bounce_free[armcii_ofi_post.nbounce_free++] = b;
}

void armcii_net_bounce_usage(int *in_use_p, int *total_p)
{
    *in_use_p = armcii_ofi_post.bounce_count - armcii_ofi_post.nbounce_free;
    *total_p = armcii_ofi_post.bounce_count;
}

armcii_status_t armcii_ofi_post_open(void)
{
    armcii_ofi_post.bounce_size = (size_t)armcii_tp.env->BOUNCE_SIZE;
    armcii_ofi_post.bounce_count = (int)armcii_tp.env->BOUNCE_COUNT;
    size_t total = armcii_ofi_post.bounce_size * (size_t)armcii_ofi_post.bounce_count;
    if (posix_memalign((void **)&armcii_ofi_post.bounce_slab, 4096, total) != 0)
        return ARMCII_ENOMEM;
    armcii_ofi_post.bounce_free = malloc((size_t)armcii_ofi_post.bounce_count * sizeof(void *));
    if (!armcii_ofi_post.bounce_free)
        return ARMCII_ENOMEM;
    for (int i = 0; i < armcii_ofi_post.bounce_count; i++)
        armcii_ofi_post.bounce_free[i] =
            armcii_ofi_post.bounce_slab + (size_t)i * armcii_ofi_post.bounce_size;
    armcii_ofi_post.nbounce_free = armcii_ofi_post.bounce_count;
    return armcii_net_register("ARMCI_Init", armcii_ofi_post.bounce_slab, total,
                               &armcii_ofi_post.bounce_mr);
}

void armcii_ofi_post_close(void)
{
    armcii_net_unregister(&armcii_ofi_post.bounce_mr);
    free(armcii_ofi_post.bounce_slab);
    free(armcii_ofi_post.bounce_free);
    while (armcii_ofi_post.op_free) {
        ofi_op_t *n = armcii_ofi_post.op_free->next_free;
        free(armcii_ofi_post.op_free);
        armcii_ofi_post.op_free = n;
    }
    memset(&armcii_ofi_post, 0, sizeof(armcii_ofi_post));
}
