/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared parts of the NAS kernels; see nas.h.
 */
#include "nas.h"

#include <armci.h>
#include <armcix.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <time.h>

/*
 * The generator works on 46-bit integers kept in doubles. Products are split into 23-bit
 * halves so that every partial product is exact in 53 bits: that is what makes the
 * sequence (and so the verification values) the same on every machine.
 */
#define R23 (1.0 / 8388608.0)
#define T23 8388608.0
#define R46 (R23 * R23)
#define T46 (T23 * T23)

static inline double mul46(double *x, double a)
{
    double a_hi = (double)(long)(R23 * a);
    double a_lo = a - T23 * a_hi;
    double x_hi = (double)(long)(R23 * *x);
    double x_lo = *x - T23 * x_hi;
    /* (a_hi*2^23 + a_lo)(x_hi*2^23 + x_lo) mod 2^46: the a_hi*x_hi term vanishes. */
    double mid = a_hi * x_lo + a_lo * x_hi;
    double mid_lo = mid - T23 * (double)(long)(R23 * mid);
    double full = T23 * mid_lo + a_lo * x_lo;
    *x = full - T46 * (double)(long)(R46 * full);
    return R46 * *x;
}

double nas_randlc(double *x, double a)
{
    return mul46(x, a);
}

void nas_vranlc(long n, double *x, double a, double *y)
{
    for (long i = 0; i < n; i++)
        y[i] = mul46(x, a);
}

double nas_power(double a, long n)
{
    double result = 1.0, sq = a;
    while (n > 0) {
        if (n & 1)
            mul46(&result, sq);
        mul46(&sq, sq);
        n >>= 1;
    }
    return result;
}

const char *nas_variant_name(enum nas_variant v)
{
    switch (v) {
    case NAS_MPI:
        return "mpi";
    case NAS_ARMCI:
        return "armci";
    case NAS_ARMCI_NB:
        return "armci-nb";
    }
    return "?";
}

static void usage(const char *kernel, const char *classes)
{
    fprintf(stderr, "usage: %s [--class ", kernel);
    for (const char *c = classes; *c; c++)
        fprintf(stderr, "%s%c", c == classes ? "" : "|", *c);
    fprintf(stderr, "] [--variant mpi|armci|armci-nb] [--verbose]\n"
                    "  run under mpirun with a power-of-two number of processes\n");
}

void nas_parse(int argc, char **argv, const char *kernel, const char *classes, struct nas_opts *o)
{
    o->cls = 'S';
    o->variant = NAS_ARMCI;
    o->verbose = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *val = NULL;
        if (!strcmp(arg, "--verbose")) {
            o->verbose = true;
            continue;
        }
        if ((!strcmp(arg, "--class") || !strcmp(arg, "--variant")) && i + 1 < argc)
            val = argv[++i];
        else if (!strncmp(arg, "--class=", 8))
            val = arg + 8, arg = "--class";
        else if (!strncmp(arg, "--variant=", 10))
            val = arg + 10, arg = "--variant";
        if (val && !strcmp(arg, "--class") && strlen(val) == 1 && strchr(classes, val[0])) {
            o->cls = val[0];
        } else if (val && !strcmp(arg, "--variant") && !strcmp(val, "mpi")) {
            o->variant = NAS_MPI;
        } else if (val && !strcmp(arg, "--variant") && !strcmp(val, "armci")) {
            o->variant = NAS_ARMCI;
        } else if (val && !strcmp(arg, "--variant") && !strcmp(val, "armci-nb")) {
            o->variant = NAS_ARMCI_NB;
        } else {
            int rank = 0;
            MPI_Comm_rank(MPI_COMM_WORLD, &rank);
            if (rank == 0) {
                fprintf(stderr, "%s: bad argument '%s%s%s'\n", kernel, arg, val ? " " : "",
                        val ? val : "");
                usage(kernel, classes);
            }
            MPI_Finalize();
            exit(2);
        }
    }
}

void nas_print_results(const char *kernel, char cls, const char *size, int niter, double seconds,
                       double mops, int nprocs, enum nas_variant variant, bool verified)
{
    printf("\n %s Benchmark Completed.\n", kernel);
    printf(" Class           = %24c\n", cls);
    printf(" Size            = %24s\n", size);
    printf(" Iterations      = %24d\n", niter);
    printf(" Time in seconds = %24.3f\n", seconds);
    printf(" Total processes = %24d\n", nprocs);
    printf(" Mop/s total     = %24.2f\n", mops);
    printf(" Mop/s/process   = %24.2f\n", mops / nprocs);
    printf(" Operation type  = %24s\n", "floating point");
    printf(" Verification    = %24s\n", verified ? "SUCCESSFUL" : "UNSUCCESSFUL");
    printf(" Communication   = %24s\n", nas_variant_name(variant));
    printf(" Runtime         = %24s\n", variant == NAS_MPI ? "MPI only" : "armci-ofi");
    fflush(stdout);
}

void nas_die(const char *fmt, ...)
{
    int rank = 0;
    va_list ap;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "nas: rank %d: ", rank);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

double nas_now(void)
{
    return MPI_Wtime();
}

void nas_notify_init(struct nas_notify *n)
{
    MPI_Comm_rank(MPI_COMM_WORLD, &n->me);
    MPI_Comm_size(MPI_COMM_WORLD, &n->nprocs);
    n->slots = malloc(sizeof(int *) * n->nprocs);
    if (!n->slots || ARMCI_Malloc((void **)n->slots, sizeof(int) * n->nprocs))
        nas_die("cannot allocate %d notification slots", n->nprocs);
    memset(n->slots[n->me], 0, sizeof(int) * n->nprocs);
    ARMCI_Barrier();
}

void nas_notify_free(struct nas_notify *n)
{
    ARMCI_Barrier();
    ARMCI_Free(n->slots[n->me]);
    free(n->slots);
}

void nas_notify_put(struct nas_notify *n, void *src, void *dst, int bytes, int target, int seq,
                    armci_hdl_t *hdl)
{
    int *slot = &n->slots[target][n->me];
    if (hdl)
        ARMCIX_NbPut_flag(src, dst, bytes, slot, seq, target, hdl);
    else
        ARMCI_Put_flag(src, dst, bytes, slot, seq, target);
}

void nas_notify_wait(struct nas_notify *n, int source, int seq)
{
    int *slot = &n->slots[n->me][source];
    if (__atomic_load_n(slot, __ATOMIC_ACQUIRE) >= seq)
        return;
    double start = nas_now();
    for (unsigned spins = 0;; spins++) {
        if (__atomic_load_n(slot, __ATOMIC_ACQUIRE) >= seq)
            return;
        /* The fabric path may need this process to drive progress for the put to land;
         * with more ranks than cores, the sender needs this processor more than we do. */
        ARMCIX_Progress();
        if ((spins & 127) == 127)
            sched_yield();
        if ((spins & 0xfff) == 0 && nas_now() - start > 60.0)
            nas_die("no notification %d from rank %d after 60 s (last seen %d)", seq, source,
                    __atomic_load_n(slot, __ATOMIC_ACQUIRE));
    }
}
