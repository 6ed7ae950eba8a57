/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the NAS kernels (mg.c, cg.c) share: NPB's random number generator, the command line,
 * the communication variant, NPB-style result output and the point-to-point notification
 * that the ARMCI variants use in place of a receive.
 */
#ifndef NAS_H
#define NAS_H

#include <armci.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * A kernel's hot loop built twice on x86-64: for AVX2 and for the SSE2 every x86-64 has, the
 * processor choosing at load time. AVX2 alone brings no fused multiply-add (the flags also
 * say -ffp-contract=off), so both compute every value with the same roundings.
 */
#ifndef NAS_WIDE /* -DNAS_WIDE= builds the one version */
#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define NAS_WIDE __attribute__((target_clones("avx2", "default")))
#endif
#endif
#endif
#ifndef NAS_WIDE
#define NAS_WIDE
#endif

enum nas_variant {
    NAS_MPI,     /**< two-sided MPI, as NPB's MPI version */
    NAS_ARMCI,   /**< blocking ARMCI puts */
    NAS_ARMCI_NB /**< nonblocking ARMCI puts overlapped with computation */
};

struct nas_opts {
    char cls; /**< 'S', 'W', 'A' or 'B' */
    enum nas_variant variant;
    bool verbose; /**< print per-iteration values */
};

/** NPB's linear congruential generator x <- a*x mod 2^46; returns x * 2^-46. */
double nas_randlc(double *x, double a);
/** n values of the same generator into y[0..n-1]; advances *x. */
void nas_vranlc(long n, double *x, double a, double *y);
/** a^n mod 2^46 (a, the result and every step held as exact doubles, as NPB does). */
double nas_power(double a, long n);

/** Parses --class and --variant; prints usage and exits on anything else. */
void nas_parse(int argc, char **argv, const char *kernel, const char *classes, struct nas_opts *o);
const char *nas_variant_name(enum nas_variant v);

/** Prints NPB's result block on rank 0. */
void nas_print_results(const char *kernel, char cls, const char *size, int niter, double seconds,
                       double mops, int nprocs, enum nas_variant variant, bool verified);

/** Collective abort with a message naming the kernel (rank 0 prints nothing more). */
void nas_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/*
 * Point-to-point notification for the ARMCI variants: a put carries a sequence number that
 * the runtime stores into the target's slot for the sender once the data is in place
 * (ARMCI_Put_flag, or ARMCIX_NbPut_flag); the target waits until the slot has reached the
 * number it expects. Sequence numbers only grow, so no slot is ever reset.
 */
struct nas_notify {
    int **slots; /**< slots[r] = rank r's array of nprocs slots (ARMCI memory) */
    int me, nprocs;
};

void nas_notify_init(struct nas_notify *n);
void nas_notify_free(struct nas_notify *n);
/** Puts @p bytes from @p src to @p dst on @p target, then @p seq into its slot for this
 *  rank: blocking (ARMCI_Put_flag) when @p hdl is NULL, else nonblocking on @p hdl. */
void nas_notify_put(struct nas_notify *n, void *src, void *dst, int bytes, int target, int seq,
                    armci_hdl_t *hdl);
/** Waits until @p source's slot here holds at least @p seq; dies with a diagnostic after 60 s. */
void nas_notify_wait(struct nas_notify *n, int source, int seq);

/** Wall clock, seconds. */
double nas_now(void);

#endif /* NAS_H */
