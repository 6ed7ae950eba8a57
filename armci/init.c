/* Start-up, shut-down and fatal errors. */
#define _GNU_SOURCE /* PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include <armcix.h>
#include "../src/agg/agg.h"
#include "../src/core/place.h"
#include "../src/core/stats.h"

/* An adaptive mutex spins briefly before sleeping: the progress thread holds the lock for
 * a poll of a microsecond or two, and an application thread arriving then should not pay
 * a futex sleep and wake-up for it. */
armcii_state_t armcii_g = {.heap_fd = -1, .lock = PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP};

static const char *env_lookup(const char *name)
{
    return getenv(name);
}

static void print_settings(void)
{
    char line[256];
    armcii_info_line("armci-ofi " PACKAGE_VERSION " settings:");
    armcii_env_print(&armcii_g.env, armcii_info_line);
    snprintf(line, sizeof(line),
             "layout: %d processes on %d node(s), %d on this node; shared memory %s; node has "
             "%u cores, %u PUs, L2 %zu KiB, L3 %zu KiB",
             armcii_g.nproc, armcii_g.nnodes, armcii_g.node_size, armcii_g.shm ? "on" : "off",
             armcii_g.hw_cores, armcii_g.hw_pus, armcii_g.hw_l2 >> 10, armcii_g.hw_l3 >> 10);
    armcii_info_line(line);
    if (armcii_g.rank == 0)
        armcii_ofi_describe(armcii_info_line);
    if (armcii_g.progress_thread_on)
        snprintf(line, sizeof(line), "progress thread: on, runs on %s; %s; %s",
                 armcii_topo_progress_cpus(),
                 armcii_g.progress_own_cpu && armcii_g.env.PROGRESS_WAKE_MIN > 0
                     ? "woken by large nonblocking transfers"
                     : "not woken by transfers",
                 armcii_g.keep_warm ? "keeps the hot structures warm" : "no keep-warm passes");
    else
        snprintf(line, sizeof(line), "progress thread: off");
    armcii_info_line(line);
    if (armcii_g.shm) {
        snprintf(line, sizeof(line),
                 "collectives in the node: %.40s; send blocks outside the node heap %s",
                 armcii_g.env.COLL_ALG,
                 armcii_coll_cma()
                     ? "of ARMCI_COLL_CMA bytes and more read in place (process_vm_readv)"
                 : armcii_g.env.COLL_CMA > 0 ? "staged (process_vm_readv is not permitted here)"
                                             : "staged (ARMCI_COLL_CMA=0)");
        armcii_info_line(line);
    }
    fflush(stdout);
}

static void init_fail(const char *what, armcii_status_t st)
{
    armcii_fatal("ARMCI_Init", "%s failed (status %d); see the message above", what, (int)st);
}

/*
 * ARMCI_Init calls not yet matched by an ARMCI_Finalize. A library and its application may
 * both initialise ARMCI (GA's armci/testing/simple.c calls ARMCI_Init_args twice and
 * ARMCI_Finalize twice; GA and TCGMSG do it underneath): as ARMCI-MPI does
 * (src/init_finalize.c, init_count), only the first call initialises and only the
 * matching last ARMCI_Finalize finalises.
 */
static int init_count;

static int init_common(int *argc, char ***argv, int level, MPI_Comm comm)
{
    static const char call[] = "ARMCI_Init";
    if (armcii_g.initialized) {
        init_count++;
        return 0;
    }
    if (armcii_g.finalized)
        armcii_fatal(call, "ARMCI cannot be initialised again after ARMCI_Finalize");

    int mpi_up = 0;
    MPI_Initialized(&mpi_up);
    if (!mpi_up) {
        int provided;
        if (MPI_Init_thread(argc, argv, level, &provided) != MPI_SUCCESS)
            armcii_fatal(call, "MPI_Init_thread failed");
        armcii_g.we_init_mpi = 1;
    }
    int mpi_level = MPI_THREAD_SINGLE;
    MPI_Query_thread(&mpi_level);
    armcii_g.one_caller = level != MPI_THREAD_MULTIPLE && mpi_level != MPI_THREAD_MULTIPLE;
    char err[512];
    if (armcii_env_load(&armcii_g.env, env_lookup, err, sizeof(err)) != 0)
        armcii_fatal(call, "%s", err);

    MPI_Comm_dup(comm, &armcii_g.comm);
    armcii_mpi_name_errors(armcii_g.comm);
    MPI_Comm_rank(armcii_g.comm, &armcii_g.rank);
    MPI_Comm_size(armcii_g.comm, &armcii_g.nproc);
    int P = armcii_g.nproc;
    armcii_env_agree(call);

    armcii_status_t st;
    if ((st = armcii_topo_init()) != ARMCII_OK)
        init_fail("finding the node layout", st);
    int place = armcii_place_parse(armcii_g.env.PLACEMENT);
    if (place < 0)
        armcii_fatal(call, "ARMCI_PLACEMENT=%s is not auto, cache or memory",
                     armcii_g.env.PLACEMENT);
    armcii_place_init(place, armcii_g.hw_l2, armcii_g.hw_l3, armcii_g.machine_size);
    armcii_yield_init();
    if ((st = armcii_live_init()) != ARMCII_OK)
        init_fail("learning the node's process ids", st);
    if ((st = armcii_hb_init()) != ARMCII_OK)
        init_fail("connecting the heartbeats", st);
    armcii_g.shm = armcii_g.env.SHM && armcii_g.node_size > 1;
    if ((st = armcii_shm_init()) != ARMCII_OK)
        init_fail("setting up node memory", st);
    if (armcii_region_table_init(&armcii_g.regions, P) != 0 ||
        armcii_pool_init(&armcii_g.pool, (int)armcii_g.env.MAX_REQUESTS) != 0)
        init_fail("allocating the region table and request pool", ARMCII_ENOMEM);
    armcii_fence_hook(armcii_agg_flush_target); /* a fence issues what handles collected */
    armcii_g.out_write = calloc((size_t)P, sizeof(int));
    armcii_g.out_sw = calloc((size_t)P, sizeof(int));
    armcii_g.out_implicit = calloc((size_t)P, sizeof(int));
    if (!armcii_g.out_write || !armcii_g.out_sw || !armcii_g.out_implicit)
        init_fail("allocating per-process counters", ARMCII_ENOMEM);

    /* libfabric is needed only when some peer is not reached through shared memory. */
    int need_fabric = P > 1 && (!armcii_g.shm || armcii_g.nnodes > 1);
    if (need_fabric) {
        if ((st = armcii_ofi_init()) != ARMCII_OK)
            init_fail("opening libfabric", st);
        armcii_g.fabric = 1;
    }
    armcii_groups_init();
    armcii_census_init();
    armcii_coll_init();
    if ((st = armcii_cache_rt_init()) != ARMCII_OK)
        init_fail("creating the get cache", st);
    if ((st = armcii_progress_thread_start()) != ARMCII_OK)
        init_fail("starting the progress thread", st);
    armcii_g.initialized = 1;
    init_count = 1;
    if (armcii_g.env.VERBOSE)
        print_settings();
    MPI_Barrier(armcii_g.comm);
    return 0;
}

int ARMCI_Init(void)
{
    return init_common(NULL, NULL, MPI_THREAD_FUNNELED, MPI_COMM_WORLD);
}

int ARMCI_Init_args(int *argc, char ***argv)
{
    return init_common(argc, argv, MPI_THREAD_FUNNELED, MPI_COMM_WORLD);
}

int ARMCI_Init_thread(int armci_requested)
{
    return init_common(NULL, NULL, armci_requested, MPI_COMM_WORLD);
}

int ARMCI_Init_thread_comm(int armci_requested, MPI_Comm comm)
{
    return init_common(NULL, NULL, armci_requested, comm);
}

int ARMCI_Initialized(void)
{
    return armcii_g.initialized;
}

/* Release every allocation still alive (the application did not free it). */
static void drop_allocations(void)
{
    armcii_alloc_t *a = armcii_g.allocs;
    while (a) {
        armcii_alloc_t *next = a->next;
        if (a->registered)
            armcii_ofi_mr_dereg(&a->mr);
        free(a->bases);
        free(a->sizes);
        free(a);
        a = next;
    }
    armcii_g.allocs = NULL;
}

int ARMCI_Finalize(void)
{
    static const char call[] = "ARMCI_Finalize";
    int mpi_down = 0;
    MPI_Finalized(&mpi_down);
    if (mpi_down && armcii_g.initialized)
        armcii_fatal(call, "called after MPI_Finalize; call ARMCI_Finalize first (it still "
                           "needs MPI to complete what is in flight and free its memory)");
    armcii_check_init(call); /* one more than there were ARMCI_Init calls: an error */
    if (init_count > 1) {
        init_count--; /* an inner pair: ARMCI stays up for the outer one */
        return 0;
    }
    armcii_enter(call);
    /* Complete everything we issued, then wait until everybody has: only then may the
     * endpoint and the memory peers target go away. */
    armcii_agg_fini(call);
    armcii_fence_all(call);
    /* Past the last barrier processes leave at their own pace: one that has exited is no
     * longer a dead peer to those still finishing it. */
    armcii_live_fini();
    MPI_Request r;
    MPI_Ibarrier(armcii_g.comm, &r);
    armcii_mpi_wait(call, &r);
    armcii_census_fini();
    armcii_hb_fini();
    armcii_unlock();
    armcii_progress_thread_stop();
    armcii_stats_report(); /* collective; nothing is in flight any more */
    armcii_cache_report();

    armcii_coll_fini();
    drop_allocations();
    armcii_cache_rt_fini();
    if (armcii_g.fabric)
        armcii_ofi_fini();
    armcii_g.fabric = 0;
    armcii_shm_fini();
    armcii_region_table_fini(&armcii_g.regions);
    armcii_pool_fini(&armcii_g.pool);
    armcii_agg_addr_clear();
    free(armcii_g.out_write);
    free(armcii_g.out_sw);
    free(armcii_g.out_implicit);
    armcii_g.out_write = armcii_g.out_sw = armcii_g.out_implicit = NULL;
    armcii_groups_fini();
    armcii_topo_fini();
    MPI_Comm_free(&armcii_g.comm);
    armcii_g.initialized = 0;
    armcii_g.finalized = 1;
    init_count = 0;
    if (armcii_g.we_init_mpi)
        MPI_Finalize();
    return 0;
}

void ARMCI_Cleanup(void)
{
    /* Local only: stop serving peers. Memory and the endpoint go with the process. */
    armcii_progress_thread_stop();
}

void ARMCI_Error(const char *msg, int code)
{
    int rank = armcii_g.rank, mpi_up = 0, mpi_down = 0;
    MPI_Initialized(&mpi_up);
    MPI_Finalized(&mpi_down);
    if (!armcii_g.initialized && mpi_up && !mpi_down)
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "armci: rank %d: %s\n", rank, msg ? msg : "(no message)");
    fflush(stderr);
    armcii_hb_abort(); /* the others end too, even where the launcher leaves them running */
    if (code == 0)
        code = 1;
    if (mpi_up && !mpi_down)
        MPI_Abort(MPI_COMM_WORLD, code);
    exit(code);
}

void ARMCIX_Progress(void)
{
    armcii_enter("ARMCIX_Progress");
    int n = armcii_progress();
    armcii_unlock();
    /* Called in a loop waiting for a flag, on an oversubscribed machine: give the
     * processor to whoever shares it, likely the peer that is to set the flag. */
    if (n == 0 && armcii_yield_when_idle()) {
        armcii_stats.idle_yields++;
        sched_yield();
    }
}

int ARMCIX_Path_of(int proc)
{
    static const char call[] = "ARMCIX_Path_of";
    armcii_check_init(call);
    armcii_check_rank(call, proc);
    return (int)armcii_path(proc);
}

const char *ARMCIX_Provider_name(void)
{
    armcii_check_init("ARMCIX_Provider_name");
    return armcii_ofi_provider();
}

/* Profiling names (see ARMCII_PROFILED). */
ARMCII_PROFILED(Init)
ARMCII_PROFILED(Init_args)
ARMCII_PROFILED(Init_thread)
ARMCII_PROFILED(Init_thread_comm)
ARMCII_PROFILED(Initialized)
ARMCII_PROFILED(Finalize)

int ARMCIX_Resources(armcix_resources_t *res)
{
    static const char call[] = "ARMCIX_Resources";
    if (!res)
        return -1;
    armcii_enter(call);
    int used = 0, total = 0;
    if (armcii_g.fabric)
        armcii_ofi_bounce_usage(&used, &total);
    res->requests_in_use = armcii_g.pool.nactive;
    res->requests_max = armcii_g.pool.nslots;
    res->bounce_in_use = used;
    res->bounce_max = total;
    armcii_unlock();
    return 0;
}

int ARMCIX_Agg_stats(long *aggregated_p, long *flushes_p)
{
    armcii_check_init("ARMCIX_Agg_stats");
    if (aggregated_p)
        *aggregated_p = armcii_stats.agg_ops;
    if (flushes_p)
        *flushes_p = armcii_stats.agg_flushes;
    return 0;
}
