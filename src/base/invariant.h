/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal invariants: counters that must balance (a request's pending operations, the
 * operation contexts and bounce buffers taken and given back). A build configured with
 * --enable-debug checks them where they change and ends the job on the first that does
 * not hold, naming the place; any other build compiles them out.
 */
#ifndef ARMCII_INVARIANT_H
#define ARMCII_INVARIANT_H

#include "config.h"

/** Ends the job: "armci-ofi internal check failed at FILE:LINE: COND (message)". */
void armcii_invariant_failed(const char *file, int line, const char *cond, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 4, 5)));

#ifdef ARMCII_DEBUG
#define ARMCII_INVARIANT(cond, ...)                                                                \
    ((cond) ? (void)0 : armcii_invariant_failed(__FILE__, __LINE__, #cond, __VA_ARGS__))
#else
#define ARMCII_INVARIANT(cond, ...) ((void)0)
#endif

#endif
