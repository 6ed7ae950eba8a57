/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Argument checks of the API layer. They are always on: each costs a compare or a
 * binary search, and each failure names the call, the argument and its value.
 */
#ifndef ARMCII_CHECK_H
#define ARMCII_CHECK_H

#include "../src/ops/armcii.h"
#include "../src/agg/agg.h"

/* ---- groups (armci/groups.c) ---- */

void armcii_groups_init(void);
void armcii_groups_fini(void);
/** The group of every process. */
const ARMCI_Group *armcii_world_group(void);

/* The reports (out of line, cold); the checks themselves are inline: they run on every call. */
void armcii_fail_init(const char *call) __attribute__((noreturn, cold));
void armcii_fail_rank(const char *call, int proc) __attribute__((noreturn, cold));
void armcii_fail_count(const char *call, const char *what, long n) __attribute__((noreturn, cold));
void armcii_fail_local(const char *call, const char *what, const void *p, size_t len)
    __attribute__((noreturn, cold));
void armcii_fail_remote(const char *call, const void *addr, size_t len, int proc)
    __attribute__((noreturn, cold));
void armcii_fail_aggregate_acc(const char *call) __attribute__((noreturn, cold));

/** As armcii_enter, without taking the lock (for calls that take it themselves). */
static inline void armcii_check_init(const char *call)
{
    if (__builtin_expect(!armcii_rt.initialized, 0))
        armcii_fail_init(call);
}

/** Every API call starts here: ARMCI must be initialised; takes the runtime lock. */
static inline void armcii_enter(const char *call)
{
    armcii_check_init(call);
    armcii_lock();
}

static inline void armcii_check_rank(const char *call, int proc)
{
    if (__builtin_expect(proc < 0 || proc >= armcii_rt.nproc, 0))
        armcii_fail_rank(call, proc);
}

static inline void armcii_check_count(const char *call, const char *what, long n)
{
    if (__builtin_expect(n < 0, 0))
        armcii_fail_count(call, what, n);
}

/** The first page of the address space, which no process maps: a local address below it
 *  is NULL or a small integer taken for a pointer (0x10 ended in SIGSEGV in the copy of a
 *  small put). The compare costs what the NULL test did. */
#define ARMCII_LOW_PAGE 4096

static inline void armcii_check_local(const char *call, const char *what, const void *p, size_t len)
{
    if (__builtin_expect((uintptr_t)p < ARMCII_LOW_PAGE && len > 0, 0))
        armcii_fail_local(call, what, p, len);
}
/** @p g must be a live group (the world group, or one made by this process and not
 *  freed), and with @p member, one this process belongs to; else an error naming @p what
 *  (a freed group, or a copy of one, is named so). */
void armcii_check_group(const char *call, const char *what, const ARMCI_Group *g, int member);
/** The segment of @p proc holding [addr, addr+len), or an error naming the address. */
static inline const armcii_seg_t *armcii_check_remote(const char *call, const void *addr,
                                                      size_t len, int proc)
{
    const armcii_seg_t *seg =
        armcii_region_find_fast(&armcii_mem.regions, proc, (uintptr_t)addr, len);
    if (__builtin_expect(!seg, 0))
        armcii_fail_remote(call, addr, len, proc);
    return seg;
}
/** Checks of every contiguous call; the remote segment, or NULL for 0 bytes. */
static inline const armcii_seg_t *armcii_check_contig(const char *call, const void *local,
                                                      const void *remote, int bytes, int proc)
{
    armcii_check_rank(call, proc);
    armcii_check_count(call, "size", bytes);
    if (bytes == 0)
        return NULL;
    armcii_check_local(call, "local buffer", local, (size_t)bytes);
    return armcii_check_remote(call, remote, (size_t)bytes, proc);
}
/** Is @p hdl an aggregate handle (its nonblocking puts and gets are collected)? Refuses
 *  accumulates on one. */
static inline int armcii_check_aggregate(const char *call, const armci_hdl_t *hdl, int is_acc)
{
    /* known addresses first: the bytes of a plain handle may be uninitialised */
    if (!armcii_agg_is(hdl))
        return 0;
    if (is_acc)
        armcii_fail_aggregate_acc(call);
    return 1;
}
/** Element size of accumulate type @p type, checking @p scale and that @p bytes fits it. */
size_t armcii_check_acc(const char *call, int type, const void *scale, long bytes);

/**
 * The profiling interface: after the definition of ARMCI_<name>, makes it weak and defines
 * PARMCI_<name> as another name for the same code, so that a tool may define ARMCI_<name>
 * itself and call through to PARMCI_<name>.
 */
#define ARMCII_STR_(x) #x
#define ARMCII_PROFILED(name)                                                                      \
    _Pragma(ARMCII_STR_(weak ARMCI_##name)) extern __typeof__(ARMCI_##name) PARMCI_##name          \
        __attribute__((alias("ARMCI_" #name)));

#endif
