/* SPDX-License-Identifier: BSD-3-Clause */
/* ARMCI_Rmw: fetch-and-add and swap on int and long words of any process. */
#include <string.h>

#include "check.h"
#include "../src/cache/getcache.h"

int ARMCI_Rmw(int op, void *ploc, void *prem, int value, int proc)
{
    static const char call[] = "ARMCI_Rmw";
    armcii_enter(call);
    armcii_check_rank(call, proc);
    int wide = op == ARMCI_FETCH_AND_ADD_LONG || op == ARMCI_SWAP_LONG;
    size_t size = wide ? sizeof(long) : sizeof(int);
    if (op < ARMCI_FETCH_AND_ADD || op > ARMCI_SWAP_LONG)
        armcii_fatal(call, "op %d is not ARMCI_FETCH_AND_ADD(_LONG) or ARMCI_SWAP(_LONG)", op);
    armcii_check_local(call, "ploc", ploc, size);
    if ((uintptr_t)prem % size != 0)
        armcii_fatal(call, "remote address %p is not %zu-byte aligned", prem, size);
    const armcii_seg_t *seg = armcii_check_remote(call, prem, size, proc);

    int rop;
    uint64_t operand;
    if (op == ARMCI_FETCH_AND_ADD || op == ARMCI_FETCH_AND_ADD_LONG) {
        rop = wide ? ARMCII_RMW_FADD64 : ARMCII_RMW_FADD32;
        operand = wide ? (uint64_t)(long)value : (uint64_t)(uint32_t)value;
    } else { /* swap: what *ploc holds goes to *prem, and the old *prem comes back */
        rop = wide ? ARMCII_RMW_SWAP64 : ARMCII_RMW_SWAP32;
        if (wide) {
            long v;
            memcpy(&v, ploc, sizeof(v));
            operand = (uint64_t)v;
        } else {
            int v;
            memcpy(&v, ploc, sizeof(v));
            operand = (uint64_t)(uint32_t)v;
        }
    }
    armcii_cache_sync();
    uint64_t old = armcii_rmw(call, rop, proc, prem, seg, operand, 0);
    if (wide) {
        long v = (long)old;
        memcpy(ploc, &v, sizeof(v));
    } else {
        int v = (int)(uint32_t)old;
        memcpy(ploc, &v, sizeof(v));
    }
    armcii_unlock();
    return 0;
}

/* Profiling names (see ARMCII_PROFILED). */
ARMCII_PROFILED(Rmw)
