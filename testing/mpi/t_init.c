/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ARMCI_Init and ARMCI_Finalize nest, as consumers rely on: GA's armci/testing/simple.c
 * (v5.8.2, lines 23-24 and 66-67) initialises twice and finalises twice, and GA and TCGMSG
 * initialise ARMCI underneath an application that may have done so itself. As in
 * ARMCI-MPI (src/init_finalize.c, init_count): only the first Init initialises, only the
 * matching last Finalize finalises, and ARMCI works in between.
 *
 *   t_init            the application initialises MPI
 *   t_init armci-mpi  ARMCI initialises MPI: MPI must stay up until the last Finalize
 */
#include <string.h>

#include "tester.h"

/* A put to the next process and a get back, checked: ARMCI is fully working. */
static void ring_check(const char *when)
{
    void **base = malloc((size_t)t_np * sizeof(void *));
    ARMCI_Malloc(base, 2 * sizeof(long));
    int next = (t_me + 1) % t_np, prev = (t_me + t_np - 1) % t_np;
    long v = 1000L * t_me + 7, got = -1;
    ARMCI_Put(&v, base[next], sizeof(long), next);
    ARMCI_Barrier();
    ARMCI_Get(base[t_me], &got, sizeof(long), t_me);
    CHECK(got == 1000L * prev + 7, "%s: a put from process %d read %ld", when, prev, got);
    ARMCI_Barrier();
    ARMCI_Free(base[t_me]);
    free(base);
}

int main(int argc, char **argv)
{
    int armci_inits_mpi = argc > 1 && strcmp(argv[1], "armci-mpi") == 0;
    if (!armci_inits_mpi)
        MPI_Init(&argc, &argv);
    CHECK(!ARMCI_Initialized(), "initialised before ARMCI_Init");
    ARMCI_Init_args(&argc, &argv); /* the application */
    MPI_Comm_rank(MPI_COMM_WORLD, &t_me);
    MPI_Comm_size(MPI_COMM_WORLD, &t_np);
    ARMCI_Init();                           /* a library it uses */
    ARMCI_Init_thread(MPI_THREAD_FUNNELED); /* and one more */
    CHECK(ARMCI_Initialized(), "not initialised after three ARMCI_Init calls");
    ring_check("after three inits");

    ARMCI_Finalize(); /* the innermost library is done */
    CHECK(ARMCI_Initialized(), "the first of three finalizes ended ARMCI");
    ring_check("after one of three finalizes");
    ARMCI_Finalize();
    CHECK(ARMCI_Initialized(), "the second of three finalizes ended ARMCI");
    ring_check("after two of three finalizes");
    int mpi_done = 1;
    MPI_Finalized(&mpi_done);
    CHECK(!mpi_done, "MPI was finalised before the last ARMCI_Finalize");

    /* the result, while MPI is surely up */
    int counts[2] = {t_checks, t_failed}, sums[2];
    MPI_Allreduce(counts, sums, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);

    ARMCI_Finalize(); /* the matching last one */
    int ok_after = !ARMCI_Initialized();
    if (armci_inits_mpi) {
        MPI_Finalized(&mpi_done);
        ok_after = ok_after && mpi_done; /* ARMCI started MPI, so the last finalize ends it */
    } else {
        /* the application's MPI is still up, and ARMCI may not be used any more */
        MPI_Finalized(&mpi_done);
        ok_after = ok_after && !mpi_done;
    }
    if (!ok_after)
        fprintf(stderr,
                "rank %d: t_init.c: after the last ARMCI_Finalize: initialised %d, "
                "MPI finalised %d\n",
                t_me, ARMCI_Initialized(), mpi_done);
    if (t_me == 0)
        printf("t_init: %d processes, %d checks, %d failed\n", t_np, sums[0] + 1,
               sums[1] + !ok_after);
    if (!armci_inits_mpi)
        MPI_Finalize();
    return sums[1] == 0 && ok_after ? 0 : 1;
}
