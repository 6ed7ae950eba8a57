/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The runtime's identity, settings and choices (armcii_rt, written by runtime.c alone),
 * the steps of bring-up that set them, and whether an operation may take libfabric's
 * atomics (from the settings and the provider's capabilities).
 */
#ifndef ARMCII_RUNTIME_H
#define ARMCII_RUNTIME_H

#include "config.h"

#include <mpi.h>
#include <stddef.h>

#include "../base/caps.h"
#include "../base/common.h"
#include "../base/env.h"
#include "../base/select.h"

/** The runtime's identity, settings and choices, made at start-up by runtime.c (which
 *  alone writes them) and read everywhere. */
typedef struct {
    /* The first line: what calls read every time (is ARMCI up, who is this, which
     * protocol an operation takes). */
    armcii_sel_limits_t limits;
    int initialized;
    /* Only one application thread calls ARMCI at a time (neither ARMCI nor MPI was asked
     * for MPI_THREAD_MULTIPLE): a few steps that touch only what API calls touch may then
     * go without the lock. */
    int one_caller;
    int rank, nproc;
    int shm;    /* same-node peers reached through shared memory */
    int fabric; /* libfabric is open */

    MPI_Comm comm; /* private duplicate of the world communicator */
    int finalized;
    armcii_caps_t caps; /* what the transport reported it can do (zero without fabric) */
    armcii_env_t env;
} __attribute__((aligned(64))) armcii_rt_t;
_Static_assert(offsetof(armcii_rt_t, comm) == 64, "what every call reads, on one line");

extern armcii_rt_t armcii_rt;

/* ---- the steps of bring-up that set it (src/core/runtime.c; bringup.c takes them) ---- */

/** Reads the settings (the job ends, naming @p call, on a bad one) and takes the job's
 *  identity from a duplicate of @p comm; @p one_caller: only one application thread calls
 *  ARMCI at a time. */
void armcii_rt_begin(const char *call, MPI_Comm comm, int one_caller);
/** Same-node peers are reached through shared memory (@p shm) or not. */
void armcii_rt_use_shm(int shm);
/** Opens libfabric, keeps its capabilities and derives the protocol limits from them. */
armcii_status_t armcii_rt_open_fabric(void);
/** Closes libfabric if it is open. */
void armcii_rt_close_fabric(void);
/** ARMCI is up (@p up 1) for calls, or not. */
void armcii_rt_up(int up);
/** Frees the duplicate communicator: the runtime is down for good. */
void armcii_rt_end(void);

/** Accumulates of ARMCI type @p type go through libfabric atomics where the fabric is used. */
static inline int armcii_acc_hw_ok(int type)
{
    return armcii_rt.limits.acc_hw && (unsigned)type < 6 && (armcii_rt.caps.acc_types >> type & 1);
}
/** And read-modify-writes ARMCII_RMW_* @p op. */
static inline int armcii_rmw_hw_ok(int op)
{
    return armcii_rt.limits.acc_hw && (unsigned)op < 5 && (armcii_rt.caps.rmw_ops >> op & 1);
}

/* ---- settings (src/core/agree.c) ---- */

/** Collective: end every process, naming the variable and two values, when a setting that
 *  must be the same everywhere (ARMCII_ENV_SAME) differs between processes. */
void armcii_env_agree(const char *call);

#endif
