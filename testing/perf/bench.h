/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Small helpers the benchmark and application programs share: a clock, the slowest
 * process's value, the median of a batch of timings, a reproducible random generator
 * (splitmix64), so that a program's input is the same on every process and in every run,
 * and the process's private memory and heap (scale_bench.c, testing/mpi/t_footprint.c).
 */
#ifndef ARMCI_BENCH_H
#define ARMCI_BENCH_H

#include <dirent.h>
#include <malloc.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/** Seconds on the monotonic clock. */
static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/** The largest of @p v over the processes of the job: the slowest process's time. */
static inline double bench_max_over(double v)
{
    double m;
    MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/** The median of @p v[0..n) (sorts @p v). */
static inline double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(double), bench_cmp_double);
    return v[n / 2];
}

/** The next value of the generator whose state is @p s. */
static inline uint64_t bench_rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/** A double uniform in [0, 1), from the top 53 bits of the next value. */
static inline double bench_rng_unit(uint64_t *s)
{
    return (double)(bench_rng_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

/** A checksum term of value @p v at place @p index: the exact bits of the value, so that
 *  XOR over all places changes with any last-bit difference, and the place, so that two
 *  values that trade places change it too. */
static inline uint64_t bench_hash_term(double v, uint64_t index)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof(bits));
    return (bits + 0x9e3779b97f4a7c15ull * index) * 0xff51afd7ed558ccdull;
}

/** Private memory of this process in bytes (RssAnon of /proc/self/status), -1024 when
 *  /proc does not say. */
static inline long bench_rss_anon(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "RssAnon:", 8) == 0)
            kb = atol(line + 8);
    if (f)
        fclose(f);
    return kb * 1024;
}

/** Open file descriptors of this process (entries of /proc/self/fd, less the one that
 *  reads it), -1 when /proc does not say. */
static inline long bench_open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    long n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n - 1;
}

/** Heap bytes in use, in malloc's arenas and in chunks mapped of their own. */
static inline long bench_heap_in_use(void)
{
    struct mallinfo2 m = mallinfo2();
    return (long)(m.uordblks + m.hblkhd);
}

#endif
