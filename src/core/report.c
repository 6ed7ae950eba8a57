/* SPDX-License-Identifier: BSD-3-Clause */
/* The statistics report: the counters (stats.c) gathered over processes at finalize,
 * printed and written (see stats.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"
#include "../base/common.h"
#include "../base/op.h"
#include "../base/place.h"
#include "../base/stats.h"
#include "../cache/getcache.h"

static const char *kind_names[ARMCII_OP_NKIND] = {"get", "put", "acc", "rmw"};
static const char *path_names[ARMCII_ST_NPATH] = {"local",    "direct",  "inject",
                                                  "buffered", "message", "atomic"};

static const char *coll_names[ARMCII_ST_NCOLL] = {"collectives pull",  "collectives morton",
                                                  "collectives naive", "collectives hier",
                                                  "collectives mpi",   "collectives p2p"};

#define NFLAT (ARMCII_OP_NKIND * ARMCII_ST_NPATH + ARMCII_OP_NKIND + ARMCII_ST_NCOLL + 25)

/* All counters as one vector of doubles, in a fixed order, with their names. */
static void flatten(double *v, char names[][40])
{
    int k = 0;
    for (int i = 0; i < ARMCII_OP_NKIND; i++)
        for (int p = 0; p < ARMCII_ST_NPATH; p++) {
            snprintf(names[k], 40, "%s %s", kind_names[i], path_names[p]);
            v[k++] = (double)armcii_stats.ops[i][p];
        }
    for (int i = 0; i < ARMCII_OP_NKIND; i++) {
        snprintf(names[k], 40, "%s bytes", kind_names[i]);
        v[k++] = (double)armcii_stats.bytes[i];
    }
    for (int i = 0; i < ARMCII_ST_NCOLL; i++) {
        strcpy(names[k], coll_names[i]);
        v[k++] = (double)armcii_stats.coll[i];
    }
    strcpy(names[k], "collective blocks by CMA");
    v[k++] = (double)armcii_stats.coll_cma_blocks;
    strcpy(names[k], "aggregated ops");
    v[k++] = (double)armcii_stats.agg_ops;
    strcpy(names[k], "aggregate flushes");
    v[k++] = (double)armcii_stats.agg_flushes;
    armcix_cache_stats_t cs;
    armcii_cache_get_stats(&cs);
    strcpy(names[k], "get cache hits"); /* not in the get rows: they never left the process */
    v[k++] = (double)cs.hits;
    strcpy(names[k], "progress thread wake-ups");
    v[k++] = (double)armcii_stats.progress_wakeups;
    strcpy(names[k], "progress thread woken");
    v[k++] = (double)armcii_stats.progress_woken;
    strcpy(names[k], "... taking the caller's CPU");
    v[k++] = (double)armcii_stats.progress_wake_preempted;
    strcpy(names[k], "progress thread CPU us");
    v[k++] = 1e6 * armcii_stats.progress_cpu_seconds;
    strcpy(names[k], "doorbells rung");
    v[k++] = (double)armcii_stats.bells_rung;
    strcpy(names[k], "naps ended by a doorbell");
    v[k++] = (double)armcii_stats.bell_wakes;
    strcpy(names[k], "datagram requests sent");
    v[k++] = (double)armcii_stats.serve_sent;
    strcpy(names[k], "... sent again");
    v[k++] = (double)armcii_stats.serve_resent;
    strcpy(names[k], "... served in a signal handler");
    v[k++] = (double)armcii_stats.served_signal;
    strcpy(names[k], "... served at a poll");
    v[k++] = (double)armcii_stats.served_poll;
    strcpy(names[k], "... answered again");
    v[k++] = (double)armcii_stats.served_again;
    strcpy(names[k], "queue-full retries");
    v[k++] = (double)armcii_stats.eagain_retries;
    strcpy(names[k], "... yielding the CPU");
    v[k++] = (double)armcii_stats.eagain_yields;
    strcpy(names[k], "idle ARMCIX_Progress yields");
    v[k++] = (double)armcii_stats.idle_yields;
    strcpy(names[k], "acknowledgements sent");
    v[k++] = (double)armcii_stats.acks_sent;
    strcpy(names[k], "acknowledgements asked for");
    v[k++] = (double)armcii_stats.acks_wanted;
    strcpy(names[k], "keep-warm passes");
    v[k++] = (double)armcii_stats.warm_passes;
    strcpy(names[k], "keep-warm lines read");
    v[k++] = (double)armcii_stats.warm_lines;
    strcpy(names[k], "keep-warm microseconds");
    v[k++] = 1e6 * armcii_stats.warm_seconds;
    strcpy(names[k], "copies around the cache");
    v[k++] = (double)armcii_place_count();
    strcpy(names[k], "seconds waiting");
    v[k++] = armcii_stats.wait_seconds;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

void armcii_stats_report(void)
{
    if (!armcii_rt.env.STATS)
        return;
    int P = armcii_rt.nproc;
    double mine[NFLAT];
    static char names[NFLAT][40];
    flatten(mine, names);
    double *all = armcii_rt.rank == 0 ? malloc((size_t)P * NFLAT * sizeof(double)) : NULL;
    MPI_Gather(mine, NFLAT, MPI_DOUBLE, all, NFLAT, MPI_DOUBLE, 0, armcii_rt.comm);
    if (armcii_rt.rank != 0)
        return;
    double *col = malloc((size_t)P * sizeof(double));
    printf("armci: statistics over %d processes (per process: min / median / max)\n", P);
    for (int k = 0; k < NFLAT; k++) {
        double sum = 0;
        for (int r = 0; r < P; r++)
            sum += col[r] = all[(size_t)r * NFLAT + k];
        if (sum == 0)
            continue; /* only what happened */
        qsort(col, (size_t)P, sizeof(double), cmp_double);
        if (k == NFLAT - 1)
            printf("armci:   %-26s %12.6f %12.6f %12.6f\n", names[k], col[0], col[P / 2],
                   col[P - 1]);
        else
            printf("armci:   %-26s %12.0f %12.0f %12.0f\n", names[k], col[0], col[P / 2],
                   col[P - 1]);
    }
    fflush(stdout);
    if (armcii_rt.env.STATS_FILE[0]) {
        FILE *f = fopen(armcii_rt.env.STATS_FILE, "w");
        if (!f) {
            armcii_warn("ARMCI_Finalize: cannot write ARMCI_STATS_FILE %s",
                        armcii_rt.env.STATS_FILE);
        } else {
            fprintf(f, "{\"processes\": %d, \"counters\": {\n", P);
            for (int k = 0; k < NFLAT; k++) {
                fprintf(f, "  \"%s\": [", names[k]);
                for (int r = 0; r < P; r++)
                    fprintf(f, "%s%.9g", r ? ", " : "", all[(size_t)r * NFLAT + k]);
                fprintf(f, "]%s\n", k + 1 < NFLAT ? "," : "");
            }
            fprintf(f, "}}\n");
            fclose(f);
        }
    }
    free(col);
    free(all);
}
