/* SPDX-License-Identifier: BSD-3-Clause */
/* ARMCI_Init*, ARMCI_Finalize, ARMCI_Error and the runtime's queries; the runtime itself
 * comes up and goes down in src/core/bringup.c. */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "../src/transport/transport.h"
#include <armcix.h>
#include "../src/agg/agg.h"
#include "../src/coll/collectives.h"
#include "../src/base/stats.h"

/*
 * ARMCI_Init calls not yet matched by an ARMCI_Finalize. A library and its application may
 * both initialise ARMCI (GA's armci/testing/simple.c calls ARMCI_Init_args twice and
 * ARMCI_Finalize twice; GA and TCGMSG do it underneath): as ARMCI-MPI does
 * (src/init_finalize.c, init_count), only the first call initialises and only the
 * matching last ARMCI_Finalize finalises.
 */
static int init_count;
static int we_init_mpi; /* MPI_Init_thread was ours, and so is MPI_Finalize */

/*
 * Both MPI families ship libmpi under other sonames, and this library's soname is one: a
 * program built for MPICH that finds the Open MPI build of libarmci.so.0 first loads both
 * MPIs, and the calls here bind to the program's, with handles of the other (Open MPI's
 * MPI_COMM_WORLD is a pointer, MPICH's an int): the job died inside MPI_Comm_dup, with no
 * word from us. The library version string says which MPI the calls reach (callable before
 * MPI_Init, MPI 3.0); a mismatch ends the process here, without a further MPI call.
 */
static void check_mpi_family(const char *call)
{
#ifdef OPEN_MPI
    static const char built_for[] = "Open MPI", other[] = "MPICH";
#else
    static const char built_for[] = "MPICH", other[] = "Open MPI";
#endif
    /* larger than either family's MPI_MAX_LIBRARY_VERSION_STRING (MPICH's is 8192): the
     * other family's may be the one that writes it */
    static char version[16384];
    int len = 0;
    if (MPI_Get_library_version(version, &len) != MPI_SUCCESS)
        return;
    version[sizeof version - 1] = '\0';
    int open_mpi = strncmp(version, "Open MPI", 8) == 0;
#ifdef OPEN_MPI
    if (open_mpi)
        return;
#else
    if (!open_mpi)
        return;
#endif
    version[strcspn(version, "\n,")] = '\0';
    for (char *c = version; *c; c++) /* MPICH writes "MPICH Version:\t4.0.2" */
        if (*c == '\t')
            *c = ' ';
    Dl_info me = {0};
    dladdr((void *)check_mpi_family, &me);
    fprintf(stderr,
            "armci: %s: this libarmci (%s) was built for %s, but the program runs on another "
            "MPI (\"%.100s\"): the two cannot be mixed. Put the armci-ofi build for %s first "
            "in the library path (LD_LIBRARY_PATH, or the program's -Wl,-rpath; Debian: the "
            "package for that MPI), or rebuild the program with %s's mpicc\n",
            call, me.dli_fname ? me.dli_fname : "libarmci", built_for, version, other, built_for);
    fflush(stderr);
    _exit(1);
}

static int init_common(int *argc, char ***argv, int level, MPI_Comm comm)
{
    static const char call[] = "ARMCI_Init";
    if (armcii_rt.initialized) {
        init_count++;
        return 0;
    }
    check_mpi_family(call);
    if (armcii_rt.finalized)
        armcii_fatal(call, "ARMCI cannot be initialised again after ARMCI_Finalize");

    int mpi_up = 0;
    MPI_Initialized(&mpi_up);
    if (!mpi_up) {
        int provided;
        if (MPI_Init_thread(argc, argv, level, &provided) != MPI_SUCCESS)
            armcii_fatal(call, "MPI_Init_thread failed");
        we_init_mpi = 1;
    }
    int mpi_level = MPI_THREAD_SINGLE;
    MPI_Query_thread(&mpi_level);
    armcii_fence_hook(armcii_agg_flush_target); /* a fence issues what handles collected */
    /* the runtime brings the operations and the collectives up in its order */
    static const armcii_above_t ops = {armcii_ops_init, NULL, NULL};
    static const armcii_above_t coll = {armcii_coll_init, armcii_coll_fini, armcii_coll_describe};
    static const armcii_above_t *const above[] = {&ops, &coll, NULL};
    armcii_runtime_above(above);
    armcii_runtime_init(call, comm,
                        level != MPI_THREAD_MULTIPLE && mpi_level != MPI_THREAD_MULTIPLE);
    armcii_groups_init();
    init_count = 1;
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

int ARMCI_Init_mpi_comm(MPI_Comm comm)
{
    return init_common(NULL, NULL, MPI_THREAD_FUNNELED, comm);
}

int ARMCI_Initialized(void)
{
    return armcii_rt.initialized;
}

int ARMCI_Finalize(void)
{
    static const char call[] = "ARMCI_Finalize";
    int mpi_down = 0;
    MPI_Finalized(&mpi_down);
    if (mpi_down && armcii_rt.initialized)
        armcii_fatal(call, "called after MPI_Finalize; call ARMCI_Finalize first (it still "
                           "needs MPI to complete what is in flight and free its memory)");
    armcii_check_init(call); /* one more than there were ARMCI_Init calls: an error */
    if (init_count > 1) {
        init_count--; /* an inner pair: ARMCI stays up for the outer one */
        return 0;
    }
    armcii_enter(call);
    armcii_agg_fini(call);
    armcii_runtime_fini(call); /* returns without the lock */
    armcii_agg_addr_clear();
    armcii_groups_fini();
    init_count = 0;
    if (we_init_mpi)
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
    armcii_abort(msg, code);
}

void ARMCIX_Progress(void)
{
    armcii_enter("ARMCIX_Progress");
    /* The caller waits for something, perhaps the answer to a put still in an open
     * message: everything issued leaves now. */
    if (armcii_put_open_count > 0)
        armcii_put_open_send_all("ARMCIX_Progress");
    int n = armcii_progress();
    armcii_unlock();
    /* Called in a loop waiting for a flag, on an oversubscribed machine: give the
     * processor to whoever shares it, likely the peer that is to set the flag. */
    if (n == 0 && armcii_yield_when_idle()) {
        armcii_stat_idle_yield();
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
    return armcii_net_provider();
}

/* Profiling names (see ARMCII_PROFILED). */
ARMCII_PROFILED(Init)
ARMCII_PROFILED(Init_args)
ARMCII_PROFILED(Init_thread)
ARMCII_PROFILED(Init_thread_comm)
ARMCII_PROFILED(Init_mpi_comm)
ARMCII_PROFILED(Initialized)
ARMCII_PROFILED(Finalize)

int ARMCIX_Resources(armcix_resources_t *res)
{
    static const char call[] = "ARMCIX_Resources";
    if (!res)
        return -1;
    armcii_enter(call);
    int used = 0, total = 0, reqs = 0, slots = 0;
    if (armcii_rt.fabric)
        armcii_net_bounce_usage(&used, &total);
    armcii_req_counts(&reqs, &slots);
    res->requests_in_use = reqs;
    res->requests_max = slots;
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
