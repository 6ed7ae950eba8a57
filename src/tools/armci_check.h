/* SPDX-License-Identifier: BSD-3-Clause */
/* armci-info --check (armci_check.c, and armci_pairs.c across hosts). */
#ifndef ARMCI_CHECK_H
#define ARMCI_CHECK_H

#include "../base/env.h"

/** Checks this node, or under a launcher every host of the launch and every pair of hosts;
 *  prints the report (as JSON with @p json) and returns the exit status (1 when a check or
 *  a pair failed). */
int armci_check_run(const armcii_env_t *env, int json);

/** @p s as a JSON string, quoted, to stdout. */
void armci_json_str(const char *s);

/** What one host's first process found testing another's (armci_pairs.c). */
typedef struct {
    int from, to;           /* host indices; from < 0: no pair */
    int put_get, fetch_add; /* each verified */
    int untested;           /* not tried: this host's runtime had given up on another */
    double latency_us;      /* 8-byte get, median */
    double bandwidth_gbs;   /* 1 MiB get, best */
    char error[200];        /* what went wrong, empty when nothing did */
} armci_pair_t;

/**
 * Every host's first process (@p leaders, by host; this process's host @p me_host) tests
 * every other host's through ARMCI, each request given @p limit_s seconds; collective over
 * MPI_COMM_WORLD, which must be initialised. A first process writes its nhosts - 1 results
 * to @p mine_p. Returns 1 when some request was left unanswered: then ARMCI was not
 * finalised, and the process must end without it.
 */
int armci_check_pairs(int nhosts, const int *leaders, int me_host, double limit_s,
                      armci_pair_t *mine_p);

#endif
