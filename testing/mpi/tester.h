/* A minimal harness for the SPMD test programs: count failed checks on every rank,
 * report them with rank and line, and agree on the outcome at the end. */
#ifndef TESTER_H
#define TESTER_H

#include <stdio.h>
#include <stdlib.h>

#include <armci.h>
#include <armcix.h>

static int t_me, t_np, t_checks, t_failed;

/* Keep shared objects loaded to the end. Open MPI unloads its components at MPI_Finalize;
 * LeakSanitizer (the sanitizer build checks leaks in these programs) could then no longer
 * name the module of what they leaked, and testing/lsan.supp could not pass it over. Each
 * test program is one translation unit, so this definition is made once per program. */
int dlclose(void *handle);
int dlclose(void *handle)
{
    (void)handle;
    return 0;
}

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

/* A small deterministic generator, so every process can replay another's choices. */
static inline unsigned long t_rand(unsigned long *state)
{
    unsigned long x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

/* What the runtime should call this process's node: the processes of this machine, cut
 * into runs of ARMCI_NODE_SIZE when that is set. @p nnodes_p: nodes in the whole job;
 * @p node_rank_p: this process's rank in its node (0: the node's first). Either may be
 * NULL. */
static inline int t_node_size(int *nnodes_p, int *node_rank_p)
{
    MPI_Comm node;
    int n, r;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &n);
    MPI_Comm_rank(node, &r);
    MPI_Comm_free(&node);
    const char *e = getenv("ARMCI_NODE_SIZE");
    int k = e ? atoi(e) : 0;
    if (k <= 0 || k >= n)
        k = n;
    /* nodes over all machines (the cluster's hosts are machines of their own): each
     * machine's first process counts that machine's nodes */
    int mine = r == 0 ? (n + k - 1) / k : 0, nnodes;
    MPI_Allreduce(&mine, &nnodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (nnodes_p)
        *nnodes_p = nnodes;
    int first = r / k * k;
    if (node_rank_p)
        *node_rank_p = r - first;
    return n - first < k ? n - first : k;
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
