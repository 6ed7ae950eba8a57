/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Bringing the runtime up and taking it down: the order in which the core, the transport,
 * the get cache, the operations and the collectives start and stop. The API layer
 * (armci/init.c) counts ARMCI_Init calls, starts MPI if nobody did, and sets up what is its
 * own (groups, the aggregate handles' fence hook) around these two calls. Above every other
 * file of the core, which it calls and none of which calls it; the settings it makes are
 * runtime.c's to write.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "bringup.h"
#include "mem.h"
#include "order.h"
#include "progress.h"
#include "req.h"
#include "runtime.h"
#include "topo.h"
#include "warm.h"
#include "../base/common.h"
#include "../base/env.h"
#include "../base/place.h"
#include "../base/pool.h"
#include "../base/region.h"
#include "../base/select.h"
#include "../base/stats.h"
#include "../cache/getcache.h"
#include "../health/health.h"
#include "../transport/transport.h"

extern char **environ;

/* What the runtime holds, by component, beside the process's private memory: where a
 * process's memory goes (libfabric's and MPI's own are the difference). */
static void memory_line(char *line, size_t n)
{
    size_t registered = 0, fabric = armcii_rt.fabric ? armcii_net_bytes(&registered) : 0;
    size_t peers = (size_t)armcii_rt.nproc * sizeof(*armcii_reqs.peers);
    snprintf(line, n,
             "memory: request pool %zu KiB, region table %zu KiB, process table %zu KiB, "
             "fabric buffers and tables %zu KiB (%zu KiB registered, as used), get cache %zu "
             "KiB; private memory of this process %.1f MiB",
             armcii_pool_bytes(&armcii_reqs.pool) >> 10,
             armcii_region_bytes(&armcii_mem.regions) >> 10, peers >> 10, fabric >> 10,
             registered >> 10, armcii_cache_rt_bytes() >> 10,
             (double)armcii_proc_status("RssAnon:") / 1048576.0);
}

/* The layers above the core, bottom up, NULL after the last (armci/init.c). */
static const armcii_above_t *const *above;

void armcii_runtime_above(const armcii_above_t *const *layers)
{
    above = layers;
}

static void warn_setting(const char *line)
{
    armcii_warn("ARMCI_Init: %s", line);
}

/* The open-file limit as ARMCI_Init found it and left it, and what the job needs (VERBOSE). */
static struct {
    long before, after, need;
} files;

static long open_now(void)
{
    DIR *d = opendir("/proc/self/fd");
    long n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

/*
 * Raise the soft open-file limit (ulimit -n) to the hard one when this job may need more
 * than it allows, and end the job at once, naming both numbers, when even the hard limit is
 * too low: otherwise a connection refused for want of a descriptor shows much later as an
 * unreachable peer. A process holds one descriptor per peer it reaches through a
 * connection-based provider (tcp;ofi_rxm: measured one per peer contacted), one per
 * heartbeat connection (a node leader: every other leader and its node's processes; the
 * others: their leader), a few tens for the endpoint, the doorbell, the node heap and the
 * progress thread, and what it had open before ARMCI_Init (MPI's).
 */
static void fit_open_files(const char *call)
{
    int fabric_peers = armcii_rt.nproc - (armcii_rt.shm ? armcii_topo.node_size : 1);
    int heartbeats = 0;
    if (armcii_rt.env.LIVENESS_MS > 0 && armcii_rt.nproc > 1)
        heartbeats =
            armcii_topo.node_rank == 0 ? armcii_topo.nnodes - 1 + armcii_topo.node_size - 1 : 1;
    files.need = open_now() + 32 + heartbeats + fabric_peers;
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return;
    files.before = files.after = rl.rlim_cur == RLIM_INFINITY ? -1 : (long)rl.rlim_cur;
    if (files.before < 0 || files.before >= files.need)
        return;
    if (rl.rlim_max != RLIM_INFINITY && (long)rl.rlim_max < files.need)
        armcii_fatal(call,
                     "this process may need %ld open files (%d peers through libfabric, %d "
                     "heartbeat connections, %ld open now and 32 of the runtime's own), more "
                     "than the hard limit of %ld (ulimit -Hn); raise it for the job (limits.conf "
                     "nofile, or the resource manager's setting), or use fewer processes",
                     files.need, fabric_peers, heartbeats,
                     files.need - 32 - heartbeats - fabric_peers, (long)rl.rlim_max);
    rl.rlim_cur = rl.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &rl) == 0)
        files.after = rl.rlim_max == RLIM_INFINITY ? -1 : (long)rl.rlim_max;
}

/* Where ARMCI_Init's time went in this process, said with ARMCI_VERBOSE: the end of each
 * step, in seconds from its start. */
static struct {
    const char *name;
    double at;
} steps[10];
static int nsteps;
static double init_t0;

static void step_done(const char *name)
{
    if (nsteps < (int)(sizeof steps / sizeof steps[0]))
        steps[nsteps++] = (typeof(steps[0])){name, armcii_now()};
}

static void print_steps(void)
{
    char line[384];
    size_t used =
        (size_t)snprintf(line, sizeof line,
                         "start-up: ARMCI_Init took %.3f s here:", steps[nsteps - 1].at - init_t0);
    double from = init_t0;
    for (int i = 0; i < nsteps && used < sizeof line; i++) {
        used += (size_t)snprintf(line + used, sizeof line - used, "%s %s %.3f", i ? "," : "",
                                 steps[i].name, steps[i].at - from);
        from = steps[i].at;
    }
    armcii_info_line(line);
}

static void print_settings(void)
{
    char line[384];
    armcii_info_line("armci-ofi " PACKAGE_VERSION " settings:");
    const armcii_env_t *env = &armcii_rt.env; /* runtime.c's: read only */
    armcii_env_print(env, armcii_info_line);
    snprintf(line, sizeof(line),
             "layout: %d processes on %d node(s), %d on this node; shared memory %s; node has "
             "%u cores, %u PUs, L2 %zu KiB, L3 %zu KiB",
             armcii_rt.nproc, armcii_topo.nnodes, armcii_topo.node_size,
             armcii_rt.shm ? "on" : "off", armcii_topo.hw_cores, armcii_topo.hw_pus,
             armcii_topo.hw_l2 >> 10, armcii_topo.hw_l3 >> 10);
    armcii_info_line(line);
    if (files.after != files.before)
        snprintf(line, sizeof(line),
                 "open files: soft limit raised from %ld to the hard limit, %ld (this job may "
                 "need %ld a process)",
                 files.before, files.after, files.need);
    else
        snprintf(line, sizeof(line), "open files: limit %ld, this job may need %ld a process",
                 files.before, files.need);
    armcii_info_line(line);
    if (armcii_node.fitted_limit)
        snprintf(line, sizeof(line),
                 "node heap: %zu MiB per process, fitted to the address-space limit (ulimit -v "
                 "%zu KiB) in place of ARMCI_SHM_HEAP_SIZE's default",
                 armcii_node.slice_len >> 20, armcii_node.fitted_limit >> 10);
    else
        snprintf(line, sizeof(line), "node heap: %zu MiB per process (ARMCI_SHM_HEAP_SIZE)",
                 armcii_node.slice_len >> 20);
    armcii_info_line(line);
    print_steps();
    const armcii_sel_limits_t *limits = &armcii_rt.limits; /* runtime.c's: read only */
    if (armcii_rt.rank == 0)
        armcii_net_describe(armcii_info_line, limits);
    if (armcii_prog.thread_on)
        snprintf(line, sizeof(line),
                 "progress thread: on, runs on %s; naps %ld us when idle (%s); %s; %s",
                 armcii_topo_progress_cpus(), armcii_prog.idle_us, armcii_prog.idle_why,
                 armcii_prog.own_cpu && armcii_rt.env.PROGRESS_WAKE_MIN > 0
                     ? "woken by large nonblocking transfers"
                     : "not woken by transfers",
                 armcii_warm_on() ? "keeps the hot structures warm" : "no keep-warm passes");
    else
        snprintf(line, sizeof(line), "progress thread: off");
    armcii_info_line(line);
    if (armcii_bell_fd() >= 0) {
        snprintf(line, sizeof(line),
                 "doorbell: a wait for a fabric peer rings it after %ld us (%s)",
                 armcii_prog.bell_us, armcii_prog.bell_why);
        armcii_info_line(line);
    }
    memory_line(line, sizeof(line));
    armcii_info_line(line);
    for (int i = 0; above && above[i]; i++)
        if (above[i]->describe)
            above[i]->describe(armcii_info_line);
    fflush(stdout);
}

static void init_fail(const char *call, const char *what, armcii_status_t st)
{
    armcii_fatal(call, "%s failed (status %d); see the message above", what, (int)st);
}

/* What the transport is told of the job, and how it calls back (host.h). */
static void configure_transport(void)
{
    const armcii_env_t *env = &armcii_rt.env;                   /* runtime.c's: read only */
    const armcii_region_table_t *regions = &armcii_mem.regions; /* alloc.c's: read only */
    armcii_tp_host_t host = {
        .rank = armcii_rt.rank,
        .nproc = armcii_rt.nproc,
        .node_rank = armcii_topo.node_rank,
        .node_size = armcii_topo.node_size,
        .shm = armcii_rt.shm,
        .max_requests = (int)armcii_rt.env.MAX_REQUESTS,
        .yield_after = armcii_prog.yield_after,
        .bell_us = armcii_prog.bell_us,
        .comm = armcii_rt.comm,
        .node_comm = armcii_topo.node_comm,
        .env = env,
        .regions = regions,
        .lock = armcii_progress_lock(),
        .op_done = armcii_req_op_done,
        .copied = armcii_req_copied,
        .of_cookie = armcii_req_of_cookie,
        .make_progress = armcii_poll_waiting,
        .blame = armcii_live_blame,
        .check_holder = armcii_live_check,
        .poll_peers = armcii_live_poll,
    };
    armcii_tp_configure(&host);
}

static int node_rank_of(int rank)
{
    return armcii_reqs.peers[rank].node_rank;
}

/* What the job's health is told of the job (health.h). */
static void configure_health(void)
{
    const armcii_env_t *env = &armcii_rt.env; /* runtime.c's: read only */
    armcii_health_host_t host = {
        .rank = armcii_rt.rank,
        .nproc = armcii_rt.nproc,
        .node_id = armcii_topo.node_id,
        .node_rank = armcii_topo.node_rank,
        .node_size = armcii_topo.node_size,
        .comm = armcii_rt.comm,
        .node_comm = armcii_topo.node_comm,
        .env = env,
        .node_of = armcii_node_of,
        .node_rank_of = node_rank_of,
    };
    armcii_health_configure(&host);
}

void armcii_runtime_init(const char *call, MPI_Comm comm, int one_caller)
{
    init_t0 = armcii_now();
    nsteps = 0;
    armcii_rt_begin(call, comm, one_caller);
    armcii_mpi_name_errors(armcii_rt.comm);
    armcii_error_rank(armcii_rt.rank, 0);
    int P = armcii_rt.nproc;
    /* A misspelled setting, or another ARMCI's, is said once: the job goes on without it. */
    if (armcii_rt.rank == 0)
        armcii_env_review(environ, warn_setting);
    armcii_env_agree(call);
    step_done("settings");

    armcii_status_t st;
    int *where;
    if ((st = armcii_topo_init(&where)) != ARMCII_OK)
        init_fail(call, "finding the node layout", st);
    armcii_rt_use_shm(armcii_rt.env.SHM && armcii_topo.node_size > 1);
    st = armcii_peers_init(where, where + P);
    free(where);
    if (st != ARMCII_OK)
        init_fail(call, "making the table of processes", st);
    fit_open_files(call);
    step_done("node layout");
    int place = armcii_place_parse(armcii_rt.env.PLACEMENT);
    if (place < 0)
        armcii_fatal(call, "ARMCI_PLACEMENT=%s is not auto, cache or memory",
                     armcii_rt.env.PLACEMENT);
    armcii_place_init(place, armcii_topo.hw_l2, armcii_topo.hw_l3, armcii_topo.machine_size);
    if (strcmp(armcii_rt.env.MR_MODE, "auto") != 0 && strcmp(armcii_rt.env.MR_MODE, "strict") != 0)
        armcii_fatal(call, "ARMCI_MR_MODE=%s is not auto or strict", armcii_rt.env.MR_MODE);
    armcii_yield_init();
    armcii_mpi_wait_init();
    configure_health();
    if ((st = armcii_live_init()) != ARMCII_OK)
        init_fail(call, "learning the node's process ids", st);
    if ((st = armcii_hb_init()) != ARMCII_OK)
        init_fail(call, "connecting the heartbeats", st);
    step_done("health");
    configure_transport();
    if ((st = armcii_shm_init()) != ARMCII_OK)
        init_fail(call, "setting up node memory", st);
    if (armcii_alloc_init() != 0 || armcii_req_init() != 0)
        init_fail(call, "allocating the region table and request pool", ARMCII_ENOMEM);
    step_done("node memory");

    /* libfabric is needed only when some peer is not reached through shared memory. */
    int need_fabric = P > 1 && (!armcii_rt.shm || armcii_topo.nnodes > 1);
    if (need_fabric) {
        if ((st = armcii_rt_open_fabric()) != ARMCII_OK)
            init_fail(call, "opening libfabric", st);
        step_done("libfabric");
    }
    armcii_census_init();
    for (int i = 0; above && above[i]; i++)
        above[i]->init();
    const armcii_env_t *env = &armcii_rt.env; /* runtime.c's: read only */
    armcii_cache_host_t cache_host = {
        .rank = armcii_rt.rank,
        .nproc = armcii_rt.nproc,
        .comm = armcii_rt.comm,
        .env = env,
        .wait = armcii_mpi_wait,
    };
    if ((st = armcii_cache_rt_init(&cache_host)) != ARMCII_OK)
        init_fail(call, "creating the get cache", st);
    armcii_warm_register(armcii_cache_warm);
    static const armcii_idle_pass_t warm = {armcii_warm_init, armcii_warm_on, armcii_warm_maybe};
    armcii_progress_idle_pass(&warm);
    armcii_progress_on_sync(armcii_cache_sync); /* every MPI wait is a synchronisation point */
    if ((st = armcii_progress_thread_start()) != ARMCII_OK)
        init_fail(call, "starting the progress thread", st);
    step_done("the rest");
    armcii_rt_up(1);
    armcii_error_rank(armcii_rt.rank, 1);
    if (armcii_rt.env.VERBOSE)
        print_settings();
    MPI_Barrier(armcii_rt.comm);
}

void armcii_runtime_fini(const char *call)
{
    /* Everybody ends, nobody allocates or frees on the job's communicator meanwhile. */
    armcii_alloc_announce_end(call);
    /* Complete everything we issued, then wait until everybody has: only then may the
     * endpoint and the memory peers target go away. */
    armcii_fence_all(call);
    /* Past the last barrier processes leave at their own pace: one that has exited is no
     * longer a dead peer to those still finishing it. */
    armcii_live_fini();
    MPI_Request r;
    MPI_Ibarrier(armcii_rt.comm, &r);
    armcii_mpi_wait(call, &r);
    armcii_census_fini();
    armcii_hb_fini();
    armcii_unlock();
    armcii_progress_thread_stop();
    armcii_stats_report(); /* collective; nothing is in flight any more */
    armcii_cache_report();

    int nabove = 0;
    while (above && above[nabove])
        nabove++;
    while (nabove-- > 0) /* (the last first) */
        if (above[nabove]->fini)
            above[nabove]->fini();
    armcii_alloc_drop_all();
    armcii_progress_on_sync(NULL);
    armcii_cache_rt_fini();
    armcii_rt_close_fabric();
    armcii_flush_fini();
    armcii_shm_fini();
    armcii_alloc_fini();
    armcii_req_fini();
    armcii_topo_fini();
    armcii_rt_end();
    armcii_error_rank(armcii_rt.rank, 0);
}
