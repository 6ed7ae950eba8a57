/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ARMCIX_Alltoall / ARMCIX_Allgather (the algorithm of ARMCI_COLL_ALG) against Open MPI's
 * MPI_Alltoall / MPI_Allgather in the same run: median time per call against block size,
 * buffers from ARMCI_Malloc_local (in the node heap, so that morton and naive stage
 * nothing) or, with --private, from malloc; then armci_msg_dgop, ARMCI_Barrier and
 * armci_msg_bcast, of the world and of a group, against MPI's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <armci.h>
#include <armcix.h>
#include <message.h>

#define REPS 15

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    int me, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    const char *alg = getenv("ARMCI_COLL_ALG");
    size_t maxb = 1 << 20;
    /* --private: buffers from malloc, which the shared-heap algorithms must stage */
    int priv = argc > 1 && strcmp(argv[1], "--private") == 0;
    char *s = priv ? malloc(maxb * P) : ARMCI_Malloc_local((armci_size_t)(maxb * P));
    char *r = priv ? malloc(maxb * P) : ARMCI_Malloc_local((armci_size_t)(maxb * P));
    if (me == 0)
        printf("# collectives, %d processes%s, %s buffers, median us per call; ours = %s\n", P,
               P > 2 ? " (oversubscribed: 2 cores)" : "", priv ? "malloc" : "ARMCI_Malloc_local",
               alg ? alg : "auto");
    if (me == 0)
        printf("%-10s %10s %12s %12s %8s\n", "op", "block", "ours", "MPI", "MPI/ours");
    for (int ag = 0; ag < 2; ag++)
        for (size_t b = 8; b <= maxb; b *= 4) {
            double t[2][REPS];
            int reps = b >= (1 << 18) ? 5 : REPS;
            for (int impl = 0; impl < 2; impl++)
                for (int k = 0; k < reps; k++) {
                    /* new send data every call, as an application writes it */
                    memset(s, k + 1, ag ? b : b * (size_t)P);
                    MPI_Barrier(MPI_COMM_WORLD);
                    double t0 = MPI_Wtime();
                    if (impl == 0 && ag)
                        ARMCIX_Allgather(s, r, b, NULL);
                    else if (impl == 0)
                        ARMCIX_Alltoall(s, r, b, NULL);
                    else if (ag)
                        MPI_Allgather(s, (int)b, MPI_BYTE, r, (int)b, MPI_BYTE, MPI_COMM_WORLD);
                    else
                        MPI_Alltoall(s, (int)b, MPI_BYTE, r, (int)b, MPI_BYTE, MPI_COMM_WORLD);
                    t[impl][k] = (MPI_Wtime() - t0) * 1e6;
                }
            qsort(t[0], (size_t)reps, sizeof(double), cmp);
            qsort(t[1], (size_t)reps, sizeof(double), cmp);
            double ours = t[0][reps / 2], mpi = t[1][reps / 2];
            MPI_Allreduce(MPI_IN_PLACE, &ours, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            MPI_Allreduce(MPI_IN_PLACE, &mpi, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            if (me == 0)
                printf("%-10s %10zu %12.2f %12.2f %8.2f\n", ag ? "allgather" : "alltoall", b, ours,
                       mpi, mpi / ours);
        }
    /* Reductions (armci_msg_dgop against MPI_Allreduce, "block" = bytes per process),
     * barriers (ARMCI_Barrier against MPI_Barrier, "block" 0), broadcasts from process 0
     * (armci_msg_bcast against MPI_Bcast) and the same reductions and barriers of a group
     * of every process made with ARMCI_Group_create (against MPI's on the group's
     * communicator): many short calls, back to back, the median of batches of BATCH. */
    enum { BATCH = 200 };
    int all[1024];
    for (int p = 0; p < P && p < 1024; p++)
        all[p] = p;
    ARMCI_Group g;
    ARMCI_Group_create(P, all, &g);
    static const struct {
        const char *name;
        int n; /* doubles, or bytes for bcast */
    } rows[] = {{"barrier", 0},   {"dgop", 1},       {"dgop", 8},
                {"dgop", 64},     {"bcast", 8},      {"bcast", 4096},
                {"group-bar", 0}, {"group-dgop", 1}, {"group-dgop", 64}};
    for (size_t row = 0; row < sizeof(rows) / sizeof(rows[0]); row++) {
        const char *name = rows[row].name;
        int n = rows[row].n, grp = name[0] == 'g', bc = name[0] == 'b' && name[1] == 'c';
        MPI_Comm comm = grp ? g.comm : MPI_COMM_WORLD;
        double t[2][REPS], x[512];
        for (int impl = 0; impl < 2; impl++)
            for (int k = 0; k < REPS; k++) {
                MPI_Barrier(MPI_COMM_WORLD);
                double t0 = MPI_Wtime();
                for (int i = 0; i < BATCH; i++) {
                    for (int j = 0; j < n && !bc; j++)
                        x[j] = me + j;
                    if (bc && impl == 0)
                        armci_msg_bcast(x, n, 0);
                    else if (bc)
                        MPI_Bcast(x, n, MPI_BYTE, 0, comm);
                    else if (n == 0 && impl == 0 && grp)
                        armci_msg_group_barrier(&g);
                    else if (n == 0 && impl == 0)
                        ARMCI_Barrier();
                    else if (n == 0)
                        MPI_Barrier(comm);
                    else if (impl == 0 && grp)
                        armci_msg_group_dgop(x, n, "+", &g);
                    else if (impl == 0)
                        armci_msg_dgop(x, n, "+");
                    else
                        MPI_Allreduce(MPI_IN_PLACE, x, n, MPI_DOUBLE, MPI_SUM, comm);
                }
                t[impl][k] = (MPI_Wtime() - t0) * 1e6 / BATCH;
            }
        qsort(t[0], REPS, sizeof(double), cmp);
        qsort(t[1], REPS, sizeof(double), cmp);
        double ours = t[0][REPS / 2], mpi = t[1][REPS / 2];
        MPI_Allreduce(MPI_IN_PLACE, &ours, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, &mpi, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (me == 0)
            printf("%-10s %10zu %12.2f %12.2f %8.2f\n", name,
                   bc ? (size_t)n : (size_t)n * sizeof(double), ours, mpi, mpi / ours);
    }
    ARMCI_Group_free(&g);
    if (priv) {
        free(s);
        free(r);
    } else {
        ARMCI_Free_local(s);
        ARMCI_Free_local(r);
    }
    ARMCI_Finalize();
    MPI_Finalize();
    return 0;
}
