/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What every layer shares and nothing more: the internal status codes, a registration
 * with libfabric, and the calls that report an error, read the clock or let a waiting
 * loop yield (error.c). Every
 * file of src/base is such a leaf: it includes nothing outside src/base, and the
 * transport, the core and the layers above it share them (docs/layers.md).
 */
#ifndef ARMCII_COMMON_H
#define ARMCII_COMMON_H

#include <stddef.h>
#include <stdint.h>

/** The one internal status type. */
typedef enum {
    ARMCII_OK = 0,
    ARMCII_ENOMEM,  /* memory, address space or registration exhausted */
    ARMCII_EFABRIC, /* libfabric reported an error */
    ARMCII_ESYS,    /* a system call failed */
    ARMCII_EINVAL   /* a value outside what the runtime accepts */
} armcii_status_t;

/** A registration with libfabric. */
typedef struct {
    void *handle;        /* struct fid_mr * */
    void *desc;          /* local descriptor */
    uint64_t key;        /* remote key */
    uint64_t raddr_base; /* address peers use for the first byte (0 with offset addressing) */
} armcii_mr_t;

/* ---- waiting ---- */

/** After one poll of a waiting loop that found @p found things to do: a run of empty polls
 *  is counted in @p idle, and every @p every-th of them yields the processor (1: each;
 *  ARMCI_YIELD_IDLE). @return 1 if it yielded. */
int armcii_idle_poll(unsigned *idle, int found, unsigned every);

/* ---- errors (src/base/error.c) ---- */

/** Report "CALL: message" and end the job (armcii_abort). */
void armcii_fatal(const char *call, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 2, 3)));
/** Print "armci: rank R: msg", tell the other processes, and end the job with @p code (1
 *  for 0). ARMCI_Error is this. */
void armcii_abort(const char *msg, int code) __attribute__((noreturn));
/** Print "armci: rank R: message" to stderr and go on. */
void armcii_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/** Print on rank 0 only (ARMCI_VERBOSE). */
void armcii_info_line(const char *line);
/** What errors name: this process's @p rank, and whether the runtime is @p up (before,
 *  the rank in MPI_COMM_WORLD is named). The runtime tells it. */
void armcii_error_rank(int rank, int up);
/** Called by armcii_abort with its message before the job ends (the heartbeats tell the
 *  others; armci-info --check records a pair that failed). */
void armcii_error_on_abort(void (*fn)(const char *msg));
/** Seconds on a monotonic clock. */
double armcii_now(void);
/** A size line of /proc/self/status (@p key with its colon: "VmSize:", "RssAnon:"), in
 *  bytes; 0 where /proc does not say. */
size_t armcii_proc_status(const char *key);

#endif
