/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * armci-info --check across hosts: data moved between every pair of hosts of the launch,
 * through the runtime itself (ARMCI_Init, ARMCI_Malloc, the provider the job would use).
 *
 * Node checks say what a host has; only moving data says that hosts reach each other over
 * the fabric (a NIC down, a firewall, a wrong interface look fine from each host alone). The
 * first process of each host tests every other host's first process: a put read back and
 * compared, two fetch-and-adds checked against the values they must return, the latency of
 * an 8-byte get (median of PAIR_ROUNDS) and the bandwidth of 1 MiB gets (best of
 * PAIR_BW_ROUNDS). Host j is tested by host i in round (j - i) mod H, so each host serves one
 * tester a round. Waits are bounded by ARMCI_Test and a deadline of the check's own, so a
 * pair that does not answer is a failed pair in the table, not a job killed by the runtime's
 * time limit; an error the runtime would end the job with (a send the provider refuses: a
 * link down, a host unreachable) is taken back to the test of that pair, on this thread,
 * through the runtime's abort hook. A process that left a request unanswered, or whose
 * runtime gave up, ends without ARMCI_Finalize.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <armci.h>
#include <mpi.h>

#include "armci_check.h"
#include "../base/common.h"

#define PAIR_ROUNDS    21
#define PAIR_BW_ROUNDS 4
#define PAIR_BW_BYTES  (1 << 20)
#define PAIR_SLOT      64 /* per tester in each host's block: a word put, a counter */

/* The way back from the runtime's fatal error to the pair under test (main thread only). */
static sigjmp_buf escape;
static volatile int testing;
static pthread_t main_thread;
static char escaped[200];

static void pair_abort(const char *msg)
{
    if (!testing || !pthread_equal(pthread_self(), main_thread))
        return; /* the progress thread's errors end the job as always */
    testing = 0;
    snprintf(escaped, sizeof escaped, "%s", msg);
    siglongjmp(escape, 1);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Waits for @p h until @p deadline (seconds of now()); 0 when it completed. */
static int wait_until(armci_hdl_t *h, double deadline)
{
    while (ARMCI_Test(h) != 0)
        if (now() > deadline)
            return -1;
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One pair: this host's first process tests @p target's; the result in @p r. 0 when every
 * step passed; -1 when a request was left unanswered (the process must not finalize). */
static int test_pair(armci_pair_t *r, int me_host, void **bases, int target, int target_host,
                     char *local, double limit_s)
{
    char *remote = (char *)bases[target];
    char *slot = remote + PAIR_BW_BYTES + (size_t)me_host * PAIR_SLOT;
    long word = 0x5a5a000000000000L | ((long)me_host << 20) | target_host, back = 0;
    armci_hdl_t h;
    double deadline = now() + limit_s;

    /* a put, read back: the data went there and came back */
    ARMCI_INIT_HANDLE(&h);
    ARMCI_NbPut(&word, slot, sizeof word, target, &h);
    if (wait_until(&h, deadline) != 0) {
        snprintf(r->error, sizeof r->error, "a put did not complete in %.0f s", limit_s);
        return -1;
    }
    ARMCI_Fence(target);
    ARMCI_INIT_HANDLE(&h);
    ARMCI_NbGet(slot, &back, sizeof back, target, &h);
    if (wait_until(&h, deadline) != 0) {
        snprintf(r->error, sizeof r->error, "a get did not complete in %.0f s", limit_s);
        return -1;
    }
    r->put_get = back == word;
    if (!r->put_get) {
        snprintf(r->error, sizeof r->error, "a put read back as %#lx, not %#lx", back, word);
        return 0;
    }
    /* two fetch-and-adds on a counter of this host's that starts at 0 */
    long old1 = -1, old2 = -1;
    ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old1, slot + 8, 5, target);
    ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old2, slot + 8, 1, target);
    r->fetch_add = old1 == 0 && old2 == 5;
    if (!r->fetch_add) {
        snprintf(r->error, sizeof r->error, "fetch-and-add returned %ld and %ld, not 0 and 5", old1,
                 old2);
        return 0;
    }
    /* latency: an 8-byte get, median of PAIR_ROUNDS */
    double t[PAIR_ROUNDS];
    for (int i = 0; i < PAIR_ROUNDS; i++) {
        double t0 = now();
        ARMCI_INIT_HANDLE(&h);
        ARMCI_NbGet(slot, &back, sizeof back, target, &h);
        if (wait_until(&h, deadline) != 0) {
            snprintf(r->error, sizeof r->error, "a get did not complete in %.0f s", limit_s);
            return -1;
        }
        t[i] = now() - t0;
    }
    qsort(t, PAIR_ROUNDS, sizeof t[0], cmp_double);
    r->latency_us = t[PAIR_ROUNDS / 2] * 1e6;
    /* bandwidth: 1 MiB gets, the best of PAIR_BW_ROUNDS, and the data checked */
    double best = 0;
    for (int i = 0; i < PAIR_BW_ROUNDS; i++) {
        memset(local, 0, PAIR_BW_BYTES);
        double t0 = now();
        ARMCI_INIT_HANDLE(&h);
        ARMCI_NbGet(remote, local, PAIR_BW_BYTES, target, &h);
        if (wait_until(&h, deadline + 4 * limit_s) != 0) {
            snprintf(r->error, sizeof r->error, "a 1 MiB get did not complete in %.0f s",
                     5 * limit_s);
            return -1;
        }
        double dt = now() - t0;
        best = best == 0 || dt < best ? dt : best;
    }
    r->bandwidth_gbs = PAIR_BW_BYTES / best * 1e-9;
    for (size_t k = 0; k < PAIR_BW_BYTES; k++)
        if (local[k] != (char)(target_host * 31 + k)) {
            snprintf(r->error, sizeof r->error, "a 1 MiB get read byte %zu wrong", k);
            r->put_get = 0;
            return 0;
        }
    return 0;
}

/* test_pair under the abort hook: 0 passed or failed, 1 a request left unanswered, 2 the
 * runtime gave up inside a call (its message printed and kept as the pair's error: what it
 * holds stays held, so no further ARMCI call). */
static int guarded_test(armci_pair_t *r, int me_host, void **bases, int target, int target_host,
                        char *local, double limit_s)
{
    if (sigsetjmp(escape, 0) != 0) {
        snprintf(r->error, sizeof r->error, "%s", escaped);
        r->put_get = r->fetch_add = 0;
        return 2;
    }
    testing = 1;
    int st = test_pair(r, me_host, bases, target, target_host, local, limit_s);
    testing = 0;
    return st != 0;
}

int armci_check_pairs(int nhosts, const int *leaders, int me_host, double limit_s,
                      armci_pair_t *mine_p)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int leader = me_host >= 0 && leaders[me_host] == rank;
    ARMCI_Init();
    int np;
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    void **bases = calloc((size_t)np, sizeof *bases);
    size_t bytes = PAIR_BW_BYTES + (size_t)nhosts * PAIR_SLOT;
    ARMCI_Malloc(bases, leader ? bytes : 0);
    char *local = leader ? ARMCI_Malloc_local(PAIR_BW_BYTES) : NULL;
    if (leader) { /* what testers read: a known pattern, then zeroed slots */
        char *mem = bases[rank];
        for (size_t k = 0; k < PAIR_BW_BYTES; k++)
            mem[k] = (char)(me_host * 31 + k);
        memset(mem + PAIR_BW_BYTES, 0, (size_t)nhosts * PAIR_SLOT);
    }
    ARMCI_Barrier();
    int stuck = 0;
    main_thread = pthread_self();
    armcii_error_on_abort(pair_abort);
    for (int k = 1; leader && k < nhosts; k++) {
        int th = (me_host + k) % nhosts;
        armci_pair_t *r = &mine_p[k - 1];
        memset(r, 0, sizeof *r);
        r->from = me_host;
        r->to = th;
        int got = guarded_test(r, me_host, bases, leaders[th], th, local, limit_s);
        stuck |= got != 0;
        if (got == 2) { /* the pairs left are not tested */
            for (int j = k; j < nhosts - 1; j++) {
                mine_p[j].from = me_host;
                mine_p[j].to = (me_host + j + 1) % nhosts;
                mine_p[j].untested = 1;
                snprintf(mine_p[j].error, sizeof mine_p[j].error,
                         "not tested: this host's runtime had given up on another");
            }
            break;
        }
    }
    /* nobody may leave, or free, while a tester still reads its memory; a process with a
     * request unanswered skips the rest (its peer is unreachable: ARMCI_Free and
     * ARMCI_Finalize would wait for it), and the caller ends it after the report */
    int any_stuck = 0;
    MPI_Allreduce(&stuck, &any_stuck, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!any_stuck) {
        ARMCI_Barrier();
        if (local)
            ARMCI_Free_local(local);
        ARMCI_Free(bases[rank]);
        ARMCI_Finalize();
    }
    free(bases);
    return any_stuck;
}
