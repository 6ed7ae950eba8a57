/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Dead peers. A process of this node that was killed or crashed leaves the others waiting
 * for something it will never do: a completion, a barrier, a lock it held. Every waiting
 * loop of the runtime goes through armcii_poll_waiting, which asks here every
 * ARMCI_LIVENESS_MS whether the node's processes still exist, and ends the job through
 * ARMCI_Error naming the dead rank as soon as one is gone. Processes on other nodes, and
 * deaths while nothing waits, are heartbeat.c's. When an operation fails, the transport
 * asks armcii_live_blame first, so a peer's death is named rather than its symptom.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "health.h"
#include "../base/common.h"

static pid_t *node_pids; /* by node-local rank */
static double last_look;

armcii_status_t armcii_live_init(void)
{
    node_pids = malloc((size_t)armcii_hh.node_size * sizeof(pid_t));
    if (!node_pids)
        return ARMCII_ENOMEM;
    pid_t me = getpid();
    MPI_Allgather(&me, (int)sizeof me, MPI_BYTE, node_pids, (int)sizeof me, MPI_BYTE,
                  armcii_hh.node_comm);
    last_look = armcii_now();
    return ARMCII_OK;
}

pid_t armcii_live_pid(int node_rank)
{
    return node_pids ? node_pids[node_rank] : -1;
}

void armcii_live_fini(void)
{
    free(node_pids);
    node_pids = NULL;
}

/* A process that was killed stays a zombie until its parent collects it: /proc tells. */
static int gone(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT)
            return 1;
        return kill(pid, 0) == -1 && errno == ESRCH; /* no /proc to read: ask the kernel */
    }
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* "pid (comm) S ...": the name may hold anything, the state follows the last ')'. */
    char *p = strrchr(buf, ')');
    return p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X' || p[2] == 'x');
}

static int world_rank_of(int node_rank)
{
    for (int r = 0; r < armcii_hh.nproc; r++)
        if (armcii_hh.node_of(r) == armcii_hh.node_id && armcii_hh.node_rank_of(r) == node_rank)
            return r;
    return -1;
}

/* A process that ends because it learned of a loss tells its leader first (heartbeat.c),
 * so a dead node peer may be the second loss, not the first: give that news a moment to
 * arrive (the heartbeat thread then ends this process naming the first) before blaming. */
#define NEWS_GRACE_MS 300

static void died(const char *call, int node_rank)
{
    int r = world_rank_of(node_rank);
    if (armcii_hb_running())
        for (int ms = 0; ms < NEWS_GRACE_MS; ms += 10)
            usleep(10000);
    armcii_hb_lost(call, r); /* the other hosts hear of it too (returns if not running) */
    armcii_fatal(call,
                 "rank %d (process %d on %s, this node) has died; this process cannot go on "
                 "without it (see ARMCI_LIVENESS_MS)",
                 r, (int)node_pids[node_rank], armcii_hb_host(r));
}

/* A dying process closes its sockets before it becomes a zombie, so the failure can be seen
 * a moment before /proc shows the death: look a few times over BLAME_GRACE_MS. */
#define BLAME_GRACE_MS 1000

void armcii_live_blame(const char *call, int rank)
{
    if (!node_pids || rank < 0 || rank >= armcii_hh.nproc || rank == armcii_hh.rank ||
        armcii_hh.node_of(rank) != armcii_hh.node_id) {
        /* Another host's process, or no target known (a standing receive): its node's
         * leader hears of a death within milliseconds and the heartbeat thread ends this
         * process naming it; give it that moment before the symptom is reported. */
        if (armcii_hb_running())
            for (int ms = 0; ms <= BLAME_GRACE_MS; ms += 10)
                usleep(10000);
        return;
    }
    int i = armcii_hh.node_rank_of(rank);
    for (int ms = 0; ms <= BLAME_GRACE_MS; ms += 10) {
        if (gone(node_pids[i]))
            died(call, i);
        usleep(10000);
    }
}

void armcii_live_check(const char *call, int node_rank, double waited)
{
    if (node_rank < 0 || node_rank >= armcii_hh.node_size || node_rank == armcii_hh.node_rank)
        return;
    if (node_pids && armcii_hh.env->LIVENESS_MS > 0 && gone(node_pids[node_rank]))
        died(call, node_rank);
    if (waited > (double)armcii_hh.env->TIMEOUT)
        armcii_fatal(call,
                     "rank %d (process %d, this node) has held the accumulate lock of memory "
                     "this call updates for %.0f s; is it stopped? (see ARMCI_TIMEOUT)",
                     world_rank_of(node_rank), (int)armcii_live_pid(node_rank), waited);
}

void armcii_live_poll(const char *call)
{
    if (!node_pids || armcii_hh.env->LIVENESS_MS <= 0)
        return;
    double now = armcii_now();
    if (now - last_look < 1e-3 * (double)armcii_hh.env->LIVENESS_MS)
        return;
    last_look = now;
    for (int i = 0; i < armcii_hh.node_size; i++) {
        if (i != armcii_hh.node_rank && gone(node_pids[i]))
            died(call, i);
    }
}
