/* SPDX-License-Identifier: BSD-3-Clause */
/* The program of testing/dist.sh and deb.sh: it knows only an installed armci-ofi.
 * Each process puts its rank into the next one's block; the version macros exist. */
#include <armci.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    int me, np;
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    void **base = malloc(sizeof(void *) * (size_t)np);
    ARMCI_Malloc(base, sizeof(long));
    long v = 1000 + me;
    ARMCI_Put(&v, base[(me + 1) % np], sizeof v, (me + 1) % np);
    ARMCI_Barrier();
    long got = *(long *)base[me];
    int ok = got == 1000 + (me + np - 1) % np;
    printf("rank %d: got %ld, %s; built against armci-ofi %s (%d)\n", me, got,
           ok ? "right" : "WRONG", ARMCI_OFI_VERSION_STRING, ARMCI_OFI_VERSION);
    ARMCI_Free(base[me]);
    ARMCI_Finalize();
    MPI_Finalize();
    return ok ? 0 : 1;
}
