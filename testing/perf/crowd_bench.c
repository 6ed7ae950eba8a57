/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A crowded job: every process talks to every other at once, as a Global Arrays program's
 * exchange phase does, with more processes than cores. Each round, each process puts a
 * block into every peer, gets a block from every peer (both nonblocking, explicit
 * handles), accumulates into every peer and adds one to a counter of one process with a
 * fetch-and-add; then all wait and meet at a barrier. The work is checked at the end
 * against values computed here: the last round's blocks, the accumulated sums and the
 * counters' total. Built twice, against armci-ofi and (with -DBENCH_ARMCI_MPI) against
 * ARMCI-MPI; run-crowd.sh runs it on node memory and over tcp, alternating, and reads
 * armci-ofi's queue-full retries from ARMCI_STATS_FILE (make crowd-bench).
 *
 *   crowd_bench LABEL PATH [ROUNDS]
 *
 * Prints one line, "crowd_bench: LABEL PATH P init_s work_s ops errors rss_kib fds":
 * ARMCI_Init's time and the rounds' time (the slowest process's each), the operations one
 * process issued, then the largest private memory (RssAnon) and number of open file
 * descriptors of a process after the rounds. Exits 1 if a check failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#include <armci.h>

#include "bench.h"

#define BLOCK 1024 /* bytes put and got per peer per round */
#define NACC  16   /* doubles accumulated per peer per round */

static int me, np;

/* The value of byte @p i of the block process @p src puts in round @p r. */
static unsigned char pattern(int src, int r, int i)
{
    return (unsigned char)(src * 31 + r * 7 + i);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const char *label = argc > 1 ? argv[1] : "armci";
    const char *path = argc > 2 ? argv[2] : "-";
    int rounds = argc > 3 ? atoi(argv[3]) : 100;
    if (rounds < 1) {
        if (me == 0)
            fprintf(stderr, "crowd_bench: ROUNDS must be at least 1 (got %s)\n", argv[3]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    double t0 = bench_now();
    ARMCI_Init();
    double init_s = bench_max_over(bench_now() - t0);

    /* Each process's allocation: a block per source process (puts land there), the block
     * it offers to gets, the accumulation area and the counter. */
    size_t put_off = 0, get_off = (size_t)np * BLOCK, acc_off = get_off + BLOCK;
    size_t cnt_off = acc_off + NACC * sizeof(double);
    size_t bytes = cnt_off + sizeof(long);
    void **base = malloc((size_t)np * sizeof(void *));
    ARMCI_Malloc(base, (armci_size_t)bytes);
    char *mine = base[me];
    memset(mine, 0, bytes);
    for (int i = 0; i < BLOCK; i++)
        mine[get_off + (size_t)i] = (char)(me + i);
    char *out = malloc(BLOCK), *in = malloc((size_t)np * BLOCK);
    double ones[NACC];
    for (int j = 0; j < NACC; j++)
        ones[j] = 1.0;
    double scale = (double)(me + 1);
    int nh = 2 * (np - 1);
    armci_hdl_t *h = malloc((size_t)(nh > 0 ? nh : 1) * sizeof(*h));
    long ops = 0;
    ARMCI_Barrier();

    t0 = bench_now();
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < BLOCK; i++)
            out[i] = (char)pattern(me, r, i);
        int k = 0;
        for (int d = 1; d < np; d++) {
            int p = (me + d) % np;
            ARMCI_INIT_HANDLE(&h[k]);
            ARMCI_NbPut(out, (char *)base[p] + put_off + (size_t)me * BLOCK, BLOCK, p, &h[k++]);
            ARMCI_INIT_HANDLE(&h[k]);
            ARMCI_NbGet((char *)base[p] + get_off, in + (size_t)p * BLOCK, BLOCK, p, &h[k++]);
            ARMCI_Acc(ARMCI_ACC_DBL, &scale, ones, (char *)base[p] + acc_off,
                      NACC * (int)sizeof(double), p);
            long old;
            int owner = (r + d) % np;
            ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, (char *)base[owner] + cnt_off, 1, owner);
            ops += 4;
        }
        for (int i = 0; i < k; i++)
            ARMCI_Wait(&h[i]);
        ARMCI_Barrier();
    }
    double work_s = bench_max_over(bench_now() - t0);
    long rss_kib = (long)bench_max_over((double)bench_rss_anon() / 1024.0);
    long fds = (long)bench_max_over((double)bench_open_fds());

    /* The checks, against what each process must have done. */
    long errors = 0;
    for (int src = 0; src < np; src++) {
        if (src == me)
            continue;
        for (int i = 0; i < BLOCK; i++) {
            if ((unsigned char)mine[put_off + (size_t)src * BLOCK + (size_t)i] !=
                pattern(src, rounds - 1, i))
                errors++;
            if (in[(size_t)src * BLOCK + (size_t)i] != (char)(src + i))
                errors++;
        }
    }
    double want = 0; /* every peer adds its rank + 1 each round */
    for (int src = 0; src < np; src++)
        if (src != me)
            want += (double)(src + 1) * rounds;
    for (int j = 0; j < NACC; j++) {
        double v;
        memcpy(&v, mine + acc_off + (size_t)j * sizeof(double), sizeof(v));
        if (v != want)
            errors++;
    }
    long count, total;
    memcpy(&count, mine + cnt_off, sizeof(count));
    MPI_Allreduce(&count, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (total != (long)rounds * np * (np - 1))
        errors++;
    long all_errors;
    MPI_Allreduce(&errors, &all_errors, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) {
        if (total != (long)rounds * np * (np - 1))
            fprintf(stderr, "crowd_bench: the counters add up to %ld, not %ld\n", total,
                    (long)rounds * np * (np - 1));
        printf("crowd_bench: %s %s %d %.4f %.4f %ld %ld %ld %ld\n", label, path, np, init_s, work_s,
               ops, all_errors, rss_kib, fds);
    }
    ARMCI_Free(base[me]);
    free(base);
    free(h);
    free(out);
    free(in);
    ARMCI_Finalize();
    MPI_Finalize();
    return all_errors != 0;
}
