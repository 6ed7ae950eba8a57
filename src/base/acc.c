/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Accumulate kernels: dst[i] += scale * src[i] for the six ARMCI element types. Used by
 * same-node accumulates and by the target-side handler of software accumulates; the
 * caller holds the target's accumulate lock.
 */
#include <complex.h>
#include <string.h>

#include <armci.h>

#include "common.h"
#include "acc.h"
#include "op.h"
#include "hot.h"

/* log2(element size) - 2 of each type, two bits each. Computed rather than looked up: the
 * table a switch compiles to is one more line, on a page of its own, for a call made after
 * the application's work to fetch from memory. */
_Static_assert(ARMCI_ACC_INT == 0 && ARMCI_ACC_LNG == 1 && ARMCI_ACC_FLT == 2 &&
                   ARMCI_ACC_DBL == 3 && ARMCI_ACC_CPL == 4 && ARMCI_ACC_DCP == 5,
               "the ARMCI_ACC_* values index TYPE_LOG_SIZES");
#define TYPE_LOG_SIZES (0u << 0 | 1u << 2 | 0u << 4 | 1u << 6 | 1u << 8 | 2u << 10)

ARMCII_HOT size_t armcii_acc_type_size(int type)
{
    if ((unsigned)type > ARMCI_ACC_DCP)
        return 0;
    return (size_t)4 << ((TYPE_LOG_SIZES >> (2 * type)) & 3);
}

/* memcpy-based loads keep unaligned user buffers legal. */
#define ACC_LOOP(T)                                                                                \
    do {                                                                                           \
        T a, x, y;                                                                                 \
        memcpy(&a, scale, sizeof(T));                                                              \
        size_t n = bytes / sizeof(T);                                                              \
        const char *s = src;                                                                       \
        char *d = dst;                                                                             \
        for (size_t i = 0; i < n; i++) {                                                           \
            memcpy(&x, s + i * sizeof(T), sizeof(T));                                              \
            memcpy(&y, d + i * sizeof(T), sizeof(T));                                              \
            y += a * x;                                                                            \
            memcpy(d + i * sizeof(T), &y, sizeof(T));                                              \
        }                                                                                          \
    } while (0)

/*
 * The fast path: aligned, non-overlapping buffers of a real type. GCC 12 does not vectorise
 * this loop at -O2; at -O3 with unrolling it does, about twice as fast with SSE2 and a
 * little more with AVX2, so these kernels ask for it, with an AVX2 clone picked at run
 * time. AVX-512 brought nothing more.
 */
/* The clones are chosen by an ifunc resolver while the library is being relocated, before
 * ThreadSanitizer's runtime is up: a TSan build keeps the default version only. */
#ifdef __SANITIZE_THREAD__
#define ACC_CLONES
#else
#define ACC_CLONES target_clones("avx2", "default")
#endif
#define FAST_LOOP(name, T)                                                                         \
    __attribute__((optimize("O3", "unroll-loops"), ACC_CLONES)) static void name(                  \
        T *restrict d, const T *restrict s, T a, size_t n)                                         \
    {                                                                                              \
        for (size_t i = 0; i < n; i++)                                                             \
            d[i] += a * s[i];                                                                      \
    }
FAST_LOOP(acc_int, int)
FAST_LOOP(acc_long, long)
FAST_LOOP(acc_float, float)
FAST_LOOP(acc_double, double)

/* Up to SMALL_ACC bytes a plain loop here does the work: the kernels above are reached
 * through the slot their ifunc filled, and their vectors pay only for longer rows. The
 * arithmetic is the same (-ffp-contract=off everywhere), so the results are too. */
#define SMALL_ACC 64
#define SMALL_LOOP(T)                                                                              \
    do {                                                                                           \
        T a_ = *(const T *)scale, *d_ = dst;                                                       \
        const T *s_ = src;                                                                         \
        for (size_t i_ = 0; i_ < bytes / sizeof(T); i_++)                                          \
            d_[i_] += a_ * s_[i_];                                                                 \
    } while (0)

/* The kernels are reached through the ifunc that picked a clone: their addresses are those
 * of the clones in use. */
#define KERNEL_HEAD 256

size_t armcii_acc_kernels_touch(unsigned *sum)
{
    const void *k[] = {(const void *)(uintptr_t)&acc_int, (const void *)(uintptr_t)&acc_long,
                       (const void *)(uintptr_t)&acc_float, (const void *)(uintptr_t)&acc_double};
    for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++)
        *sum += armcii_touch(k[i], KERNEL_HEAD);
    return sizeof(k) / sizeof(k[0]) * (KERNEL_HEAD / ARMCII_LINE);
}

static int fast_ok(const void *src, void *dst, size_t bytes, size_t align)
{
    uintptr_t s = (uintptr_t)src, d = (uintptr_t)dst;
    int disjoint = s + bytes <= d || d + bytes <= s;
    return disjoint && ((s | d) & (align - 1)) == 0; /* align: a power of two */
}

ARMCII_HOT void armcii_acc_apply(int type, const void *scale, const void *src, void *dst,
                                 size_t bytes)
{
    size_t es = armcii_acc_type_size(type);
    if (type <= ARMCI_ACC_DBL && fast_ok(src, dst, bytes, es)) {
        if (bytes <= SMALL_ACC) {
            if (type == ARMCI_ACC_DBL)
                SMALL_LOOP(double);
            else if (type == ARMCI_ACC_FLT)
                SMALL_LOOP(float);
            else if (type == ARMCI_ACC_LNG)
                SMALL_LOOP(long);
            else
                SMALL_LOOP(int);
            return;
        }
        switch (type) {
        case ARMCI_ACC_INT:
            acc_int(dst, src, *(const int *)scale, bytes / es);
            return;
        case ARMCI_ACC_LNG:
            acc_long(dst, src, *(const long *)scale, bytes / es);
            return;
        case ARMCI_ACC_FLT:
            acc_float(dst, src, *(const float *)scale, bytes / es);
            return;
        default:
            acc_double(dst, src, *(const double *)scale, bytes / es);
            return;
        }
    }
    switch (type) {
    case ARMCI_ACC_INT:
        ACC_LOOP(int);
        break;
    case ARMCI_ACC_LNG:
        ACC_LOOP(long);
        break;
    case ARMCI_ACC_FLT:
        ACC_LOOP(float);
        break;
    case ARMCI_ACC_DBL:
        ACC_LOOP(double);
        break;
    case ARMCI_ACC_CPL:
        ACC_LOOP(float complex);
        break;
    case ARMCI_ACC_DCP:
        ACC_LOOP(double complex);
        break;
    }
}

#define SCALE_LOOP(T)                                                                              \
    do {                                                                                           \
        T a, x;                                                                                    \
        memcpy(&a, scale, sizeof(T));                                                              \
        size_t n = bytes / sizeof(T);                                                              \
        for (size_t i = 0; i < n; i++) {                                                           \
            memcpy(&x, (const char *)src + i * sizeof(T), sizeof(T));                              \
            x *= a;                                                                                \
            memcpy((char *)dst + i * sizeof(T), &x, sizeof(T));                                    \
        }                                                                                          \
    } while (0)

void armcii_acc_scale(int type, const void *scale, const void *src, void *dst, size_t bytes)
{
    switch (type) {
    case ARMCI_ACC_INT:
        SCALE_LOOP(int);
        break;
    case ARMCI_ACC_LNG:
        SCALE_LOOP(long);
        break;
    case ARMCI_ACC_FLT:
        SCALE_LOOP(float);
        break;
    case ARMCI_ACC_DBL:
        SCALE_LOOP(double);
        break;
    case ARMCI_ACC_CPL:
        SCALE_LOOP(float complex);
        break;
    case ARMCI_ACC_DCP:
        SCALE_LOOP(double complex);
        break;
    }
}

int armcii_acc_scale_is_one(int type, const void *scale)
{
    switch (type) {
    case ARMCI_ACC_INT: {
        int v;
        memcpy(&v, scale, sizeof(v));
        return v == 1;
    }
    case ARMCI_ACC_LNG: {
        long v;
        memcpy(&v, scale, sizeof(v));
        return v == 1;
    }
    case ARMCI_ACC_FLT: {
        float v;
        memcpy(&v, scale, sizeof(v));
        return v == 1.0f;
    }
    case ARMCI_ACC_DBL: {
        double v;
        memcpy(&v, scale, sizeof(v));
        return v == 1.0;
    }
    default:
        return 0;
    }
}

uint64_t armcii_rmw_apply(int op, void *addr, uint64_t operand, const void *extra)
{
    switch (op) {
    case ARMCII_RMW_FADD32:
        return (uint32_t)__atomic_fetch_add((int32_t *)addr, (int32_t)operand, __ATOMIC_SEQ_CST);
    case ARMCII_RMW_FADD64:
        return (uint64_t)__atomic_fetch_add((int64_t *)addr, (int64_t)operand, __ATOMIC_SEQ_CST);
    case ARMCII_RMW_SWAP32:
        return __atomic_exchange_n((uint32_t *)addr, (uint32_t)operand, __ATOMIC_SEQ_CST);
    case ARMCII_RMW_SWAP64:
        return __atomic_exchange_n((uint64_t *)addr, operand, __ATOMIC_SEQ_CST);
    case ARMCII_RMW_CAS64: {
        uint64_t expected;
        memcpy(&expected, extra, sizeof(expected));
        __atomic_compare_exchange_n((uint64_t *)addr, &expected, operand, 0, __ATOMIC_SEQ_CST,
                                    __ATOMIC_SEQ_CST);
        return expected; /* the old value, whether or not it was replaced */
    }
    default:
        armcii_fatal("armci", "unknown read-modify-write operation %d", op);
    }
}
