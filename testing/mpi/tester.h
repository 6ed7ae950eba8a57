/* SPDX-License-Identifier: BSD-3-Clause */
/* A minimal harness for the SPMD test programs: count failed checks on every rank,
 * report them with rank and line, and agree on the outcome at the end. */
#ifndef TESTER_H
#define TESTER_H

#include <stdio.h>
#include <stdlib.h>

#include <armci.h>
#include <armcix.h>

static int t_me, t_np, t_checks, t_failed;

#if defined(__SANITIZE_ADDRESS__)
/* In the AddressSanitizer build only, keep shared objects loaded to the end. Open MPI
 * unloads its components at MPI_Finalize; LeakSanitizer's report at exit could then not
 * name the frames of what they leaked, and report.sh's verdict could not tell a leak of
 * Open MPI's own from one made through the runtime. (Elsewhere components unload as in an
 * application.) Each test program is one translation unit: one definition per program. */
int dlclose(void *handle);
int dlclose(void *handle)
{
    (void)handle;
    return 0;
}
#endif

#if defined(__SANITIZE_THREAD__)
/* ThreadSanitizer cannot follow an order that passes through another process. After
 * ARMCI_Fence and MPI_Barrier, an owner reads what its progress thread wrote for a peer:
 * the record was applied, under the runtime lock, before the acknowledgement that ended
 * the peer's fence, and so before the barrier; but the only path from that write to this
 * read runs through the peer. In the TSan build a barrier therefore ends by taking the
 * runtime lock once (a fence to ourselves does, and moves nothing), which orders this
 * thread after every record applied before, as the real barrier does. */
int MPI_Barrier(MPI_Comm comm);
int MPI_Barrier(MPI_Comm comm)
{
    int rc = PMPI_Barrier(comm);
    if (rc == MPI_SUCCESS && ARMCI_Initialized())
        ARMCIX_Progress();
    return rc;
}
#endif

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        t_checks++;                                                                                \
        if (!(cond)) {                                                                             \
            if (t_failed < 20) {                                                                   \
                fprintf(stderr, "rank %d: %s:%d: %s: check failed: ", t_me, __FILE__, __LINE__,    \
                        __func__);                                                                 \
                fprintf(stderr, __VA_ARGS__);                                                      \
                fprintf(stderr, "\n");                                                             \
            }                                                                                      \
            t_failed++;                                                                            \
        }                                                                                          \
    } while (0)

/* How long a wait for a value another process stores may last: T_WAIT_S seconds (30). */
static inline double t_wait_limit(void)
{
    static double limit;
    if (limit == 0) {
        const char *e = getenv("T_WAIT_S");
        limit = e && atof(e) > 0 ? atof(e) : 30.0;
    }
    return limit;
}

/* Wait, driving progress, until *@p ptr (an int or a long that another process stores with a
 * release) holds @p want. A value that never comes is a failed check that ends the job at
 * once, naming the wait and what the location holds, instead of holding the job until the
 * launcher's time limit. */
#define T_WAIT_FOR(ptr, want, ...)                                                                 \
    do {                                                                                           \
        double t_w0_ = MPI_Wtime();                                                                \
        while (__atomic_load_n((ptr), __ATOMIC_ACQUIRE) != (want)) {                               \
            ARMCIX_Progress();                                                                     \
            if (MPI_Wtime() - t_w0_ > t_wait_limit()) {                                            \
                CHECK(0, __VA_ARGS__);                                                             \
                fprintf(stderr,                                                                    \
                        "rank %d: the wait above holds %ld after %.0f s, not %ld: ending "         \
                        "the job\n",                                                               \
                        t_me, (long)__atomic_load_n((ptr), __ATOMIC_ACQUIRE), t_wait_limit(),      \
                        (long)(want));                                                             \
                fflush(stderr);                                                                    \
                MPI_Abort(MPI_COMM_WORLD, 1);                                                      \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/* A small deterministic generator, so every process can replay another's choices. */
static inline unsigned long t_rand(unsigned long *state)
{
    unsigned long x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

/* The node layout the runtime should find, worked out from MPI and the environment alone,
 * not from the runtime: the processes of @p comm on one machine (MPI_COMM_TYPE_SHARED, in
 * rank order), cut into runs of ARMCI_NODE_SIZE when that is set. The one model every test
 * that checks a layout uses. */
typedef struct {
    int node;   /* the node's name: the rank in @p comm of its first process */
    int rank;   /* this process's rank in its node (0: the node's first) */
    int size;   /* processes of its node */
    int nnodes; /* nodes over all of @p comm (the cluster's hosts are machines of their own) */
} t_node_t;

static inline t_node_t t_node_model(MPI_Comm comm)
{
    MPI_Comm machine;
    int me, n, r;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &machine);
    MPI_Comm_size(machine, &n);
    MPI_Comm_rank(machine, &r);
    int *members = malloc((size_t)n * sizeof(int));
    MPI_Allgather(&me, 1, MPI_INT, members, 1, MPI_INT, machine);
    MPI_Comm_free(&machine);
    const char *e = getenv("ARMCI_NODE_SIZE");
    int k = e ? atoi(e) : 0;
    if (k <= 0 || k >= n)
        k = n;
    int first = r / k * k;
    t_node_t t = {.node = members[first], .rank = r - first, .size = n - first < k ? n - first : k};
    free(members);
    /* each machine's first process counts that machine's nodes */
    int mine = r == 0 ? (n + k - 1) / k : 0;
    MPI_Allreduce(&mine, &t.nnodes, 1, MPI_INT, MPI_SUM, comm);
    return t;
}

/* This process's node in the world (t_node_model): its size; @p nnodes_p: nodes in the
 * whole job; @p node_rank_p: this process's rank in its node. Either may be NULL. */
static inline int t_node_size(int *nnodes_p, int *node_rank_p)
{
    t_node_t t = t_node_model(MPI_COMM_WORLD);
    if (nnodes_p)
        *nnodes_p = t.nnodes;
    if (node_rank_p)
        *node_rank_p = t.rank;
    return t.size;
}

/* MPI is initialised by the test, so ARMCI must leave it alone at finalize. */
static inline void t_init(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    ARMCI_Init();
    MPI_Comm_rank(MPI_COMM_WORLD, &t_me);
    MPI_Comm_size(MPI_COMM_WORLD, &t_np);
}

/* Agree on the result; rank 0 prints one line; returns the exit code. */
static inline int t_finish(const char *name)
{
    int counts[2] = {t_checks, t_failed}, sums[2];
    MPI_Allreduce(counts, sums, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (t_me == 0)
        printf("%s: %d processes, %d checks, %d failed\n", name, t_np, sums[0], sums[1]);
    ARMCI_Finalize();
    MPI_Finalize();
    return sums[1] == 0 && sums[0] > 0 ? 0 : 1;
}

#endif
