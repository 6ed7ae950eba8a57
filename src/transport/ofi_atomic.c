/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Accumulate through libfabric atomics (the fast path). Types the provider rejects, and
 * complex types which no provider here offers, take the software path in am.c.
 */
#include <stdlib.h>
#include <string.h>

#include <armci.h>

#include "ofi_internal.h"
#include "transport.h"
#include "../base/acc.h"
#include "../base/caps.h"
#include "../base/op.h"
#include "../base/token.h"

static const enum fi_datatype acc_to_fi[6] = {
    [ARMCI_ACC_INT] = FI_INT32,         [ARMCI_ACC_LNG] = FI_INT64,
    [ARMCI_ACC_FLT] = FI_FLOAT,         [ARMCI_ACC_DBL] = FI_DOUBLE,
    [ARMCI_ACC_CPL] = FI_FLOAT_COMPLEX, [ARMCI_ACC_DCP] = FI_DOUBLE_COMPLEX,
};
static size_t max_count[6];

/* Read-modify-write through libfabric: the datatype and operation of each ARMCII_RMW_*. */
static const struct {
    enum fi_datatype dt;
    enum fi_op op;
} rmw_fi[] = {
    [ARMCII_RMW_FADD32] = {FI_INT32, FI_SUM},
    [ARMCII_RMW_FADD64] = {FI_INT64, FI_SUM},
    [ARMCII_RMW_SWAP32] = {FI_UINT32, FI_ATOMIC_WRITE},
    [ARMCII_RMW_SWAP64] = {FI_UINT64, FI_ATOMIC_WRITE},
    [ARMCII_RMW_CAS64] = {FI_UINT64, FI_CSWAP},
};

/* Providers whose atomics are not used whatever ARMCI_ACC_NATIVE says, each with what was
 * measured on libfabric 1.17: `shm` loses updates when two processes add to one element
 * (1849 of 2000) and returns wrong float and complex sums; `net` accepts atomics at
 * fi_atomicvalid and fails them at fi_atomic. */
static const char *const atomic_quirks[] = {"shm", "net", "net;ofi_rxm"};

static int atomics_trusted(const char *prov)
{
    for (size_t i = 0; i < sizeof(atomic_quirks) / sizeof(atomic_quirks[0]); i++)
        if (strcmp(prov, atomic_quirks[i]) == 0)
            return 0;
    return 1;
}

/* Providers that carry out atomics in software at the target (the utility layers, the
 * socket providers, and efa, whose SRD transport has no atomic operations: its RDM
 * endpoint sends them as messages that the target's progress applies) gain nothing over
 * our own target-side accumulate, and lose: on tcp;ofi_rxm native accumulates took two to
 * two and a half times as long, small and large. "auto" uses native atomics only
 * elsewhere (NICs with atomics). */
static int atomics_emulated(const char *prov)
{
    static const char *const soft[] = {"ofi_rxm", "ofi_rxd", "tcp", "udp", "sockets", "efa"};
    for (size_t i = 0; i < sizeof(soft) / sizeof(soft[0]); i++)
        if (strstr(prov, soft[i]))
            return 1;
    return 0;
}

void armcii_ofi_atomic_probe(armcii_caps_t *caps)
{
    _Static_assert(sizeof(int) == 4 && sizeof(long) == 8, "ARMCI_ACC_INT/LNG map to 32/64 bits");
    caps->acc_types = 0;
    for (int t = 0; t < 6; t++) {
        size_t count = 0;
        if (armcii_ofi.atomic_cap &&
            fi_atomicvalid(armcii_ofi.ep, acc_to_fi[t], FI_SUM, &count) == 0 && count > 0) {
            caps->acc_types |= 1u << t;
            max_count[t] = count;
        }
    }
    caps->rmw_ops = 0;
    for (int op = 0; op < 5; op++) {
        size_t count = 0;
        int ok =
            armcii_ofi.atomic_cap &&
            (op == ARMCII_RMW_CAS64
                 ? fi_compare_atomicvalid(armcii_ofi.ep, rmw_fi[op].dt, rmw_fi[op].op, &count) == 0
                 : fi_fetch_atomicvalid(armcii_ofi.ep, rmw_fi[op].dt, rmw_fi[op].op, &count) ==
                       0) &&
            count > 0;
        if (ok)
            caps->rmw_ops |= 1u << op;
    }
    const char *prov = armcii_ofi_prov_name();
    caps->atomics_trusted = atomics_trusted(prov);
    caps->atomics_emulated = atomics_emulated(prov);
}

const char *armcii_ofi_atomics_policy(const char *prov)
{
    if (!atomics_trusted(prov))
        return "never (known wrong)";
    return atomics_emulated(prov) ? "software emulation (ours is used)" : "native";
}

void armcii_net_acc(const char *call, armcii_token_t *tok, int type, const void *src, size_t bytes,
                    int target, uint64_t raddr, uint64_t key)
{
    size_t esize = armcii_acc_type_size(type);
    size_t total = bytes / esize;
    for (size_t done = 0; done < total;) {
        size_t count = total - done < max_count[type] ? total - done : max_count[type];
        ofi_op_t *op = armcii_ofi_op_get();
        op->kind = OFI_OP_RMA;
        op->tok = tok;
        op->target = target;
        armcii_token_posted(tok);
        void *desc = OFI_LOCAL(call, "fi_atomic", target, (const char *)src + done * esize,
                               count * esize, NULL);
        OFI_RETRY(call, "fi_atomic", target,
                  fi_atomic(armcii_ofi.ep, (const char *)src + done * esize, count, desc,
                            armcii_ofi.peers[target].addr, raddr + done * esize, key,
                            acc_to_fi[type], FI_SUM, &op->ctx));
        done += count;
    }
    if (!armcii_ofi.delivery_complete)
        armcii_ofi_mark_unflushed(target);
}

void armcii_net_rmw(const char *call, armcii_token_t *tok, int op, void *result,
                    const void *operand, const void *comparand, int target, uint64_t raddr,
                    uint64_t key)
{
    ofi_op_t *o = armcii_ofi_op_get();
    o->kind = OFI_OP_RMA;
    o->tok = tok;
    o->target = target;
    armcii_token_posted(tok);
    fi_addr_t a = armcii_ofi.peers[target].addr;
    /* (no registered operand or result: never used where local buffers need them) */
    (void)OFI_LOCAL(call, "fi_fetch_atomic", target, result, 8, NULL);
    if (op == ARMCII_RMW_CAS64)
        OFI_RETRY(call, "fi_compare_atomic", target,
                  fi_compare_atomic(armcii_ofi.ep, operand, 1, NULL, comparand, NULL, result, NULL,
                                    a, raddr, key, rmw_fi[op].dt, rmw_fi[op].op, &o->ctx));
    else
        OFI_RETRY(call, "fi_fetch_atomic", target,
                  fi_fetch_atomic(armcii_ofi.ep, operand, 1, NULL, result, NULL, a, raddr, key,
                                  rmw_fi[op].dt, rmw_fi[op].op, &o->ctx));
}
