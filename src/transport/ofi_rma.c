/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reads and writes: a get or put cut into pieces the provider takes, direct from the
 * caller's buffer, injected, or through bounce buffers, and the flush that makes a
 * provider's writes visible where a write's completion does not say they are.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host.h"
#include "ofi_internal.h"
#include "transport.h"
#include "../base/common.h"
#include "../base/select.h"
#include "../base/token.h"

static ofi_op_t *new_rma_op(const char *call, armcii_token_t *tok, int target, const void *local)
{
    ofi_op_t *op = armcii_ofi_op_get();
    op->kind = OFI_OP_RMA;
    op->tok = tok;
    op->target = target;
    op->call = call;
    op->local = local;
    if (tok)
        armcii_token_posted(tok);
    return op;
}

/* An operation whose data go through a bounce buffer: the buffer in *@p buf_p, the
 * descriptor to hand the provider in *@p desc_p; released when the operation completes. */
static ofi_op_t *bounced_op(const char *call, armcii_token_t *tok, int target, void **buf_p,
                            void **desc_p)
{
    void *b = armcii_ofi_bounce_get(call);
    ofi_op_t *op = new_rma_op(call, tok, target, NULL);
    op->bounce = b;
    *buf_p = b;
    *desc_p = armcii_ofi_post.bounce_mr.desc;
    return op;
}

/* The largest piece of one get or put: the provider's largest message, and for the
 * buffered protocol a bounce buffer. Both protocols split a transfer the same way. */
static size_t piece_max(armcii_proto_t proto)
{
    size_t max = armcii_ofi.caps.msg_max;
    if (proto == ARMCII_PROTO_BUFFERED && armcii_ofi_post.bounce_size < max)
        max = armcii_ofi_post.bounce_size;
    return max;
}

void armcii_net_get(const char *call, armcii_token_t *tok, void *dst, size_t len, int target,
                    uint64_t raddr, uint64_t key, armcii_proto_t proto)
{
    fi_addr_t a = armcii_ofi.peers[target].addr;
    size_t max = piece_max(proto), off = 0;
    do {
        size_t n = len - off < max ? len - off : max;
        char *to = (char *)dst + off;
        ofi_op_t *op;
        void *buf = to, *desc = NULL;
        if (proto == ARMCII_PROTO_BUFFERED) {
            op = bounced_op(call, tok, target, &buf, &desc);
            op->copy_to = to;
            op->copy_len = n;
        } else {
            op = new_rma_op(call, tok, target, to);
        }
        desc = OFI_LOCAL(call, "fi_read", target, buf, n, desc);
        OFI_RETRY(call, "fi_read", target,
                  fi_read(armcii_ofi.ep, buf, n, desc, a, raddr + off, key, &op->ctx));
        off += n;
    } while (off < len);
}

void armcii_net_put(const char *call, armcii_token_t *tok, const void *src, size_t len, int target,
                    uint64_t raddr, uint64_t key, armcii_proto_t proto)
{
    fi_addr_t a = armcii_ofi.peers[target].addr;
    if (proto == ARMCII_PROTO_INJECT) {
        /* Locally complete on return and without a completion event; a later fence
         * reads from the target to make it remotely complete (see armcii_net_flush). */
        OFI_RETRY(call, "fi_inject_write", target,
                  fi_inject_write(armcii_ofi.ep, src, len, a, raddr, key));
        armcii_ofi_mark_unflushed(target);
        return;
    }
    if (!armcii_ofi.delivery_complete)
        armcii_ofi_mark_unflushed(target);
    size_t max = piece_max(proto), off = 0;
    do {
        size_t n = len - off < max ? len - off : max;
        const char *from = (const char *)src + off;
        ofi_op_t *op;
        const void *buf = from;
        void *desc = NULL;
        if (proto == ARMCII_PROTO_BUFFERED) {
            void *b;
            op = bounced_op(call, tok, target, &b, &desc);
            memcpy(b, from, n);
            buf = b;
        } else {
            op = new_rma_op(call, tok, target, from);
        }
        desc = OFI_LOCAL(call, "fi_write", target, buf, n, desc);
        OFI_RETRY(call, "fi_write", target,
                  fi_write(armcii_ofi.ep, buf, n, desc, a, raddr + off, key, &op->ctx));
        off += n;
    } while (off < len);
}

int armcii_net_unflushed(int target)
{
    return armcii_ofi.peers && armcii_ofi.peers[target].unflushed;
}

/* A registered word of each process that a flush reads. */
static uint64_t flush_word;
static armcii_mr_t flush_mr;

armcii_status_t armcii_ofi_flush_open(void)
{
    armcii_status_t st =
        armcii_net_register("ARMCI_Init", &flush_word, sizeof(flush_word), &flush_mr);
    if (st != ARMCII_OK)
        return st;
    int P = armcii_tp.nproc;
    uint64_t mine[2] = {flush_mr.raddr_base, flush_mr.key};
    uint64_t *all = malloc(2 * (size_t)P * sizeof(uint64_t));
    if (!all)
        return ARMCII_ENOMEM;
    MPI_Allgather(mine, 2, MPI_UINT64_T, all, 2, MPI_UINT64_T, armcii_tp.comm);
    for (int r = 0; r < P; r++)
        armcii_ofi_set_flush(r, all[2 * r], all[2 * r + 1]);
    free(all);
    return ARMCII_OK;
}

void armcii_ofi_flush_close(void)
{
    armcii_net_unregister(&flush_mr);
}

/* With read-after-write ordering a read that returns was served after the earlier writes
 * landed: it is the flush. */
void armcii_net_flush(const char *call, armcii_token_t *tok, int target)
{
    armcii_ofi_mark_flushed(target);
    void *b, *desc;
    ofi_op_t *op = bounced_op(call, tok, target, &b, &desc);
    op->kind = OFI_OP_FLUSH;
    desc = OFI_LOCAL(call, "fi_read (flush)", target, b, sizeof(uint64_t), desc);
    OFI_RETRY(call, "fi_read (flush)", target,
              fi_read(armcii_ofi.ep, b, sizeof(uint64_t), desc, armcii_ofi.peers[target].addr,
                      armcii_ofi.peers[target].flush_addr, armcii_ofi.peers[target].flush_key,
                      &op->ctx));
}
