/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * armci-ofi's mp3.h: the MP_* macros with which ARMCI test programs (ARMCI-MPI's
 * tests/contrib, Global Arrays' armci/testing) start, time and synchronise themselves,
 * over MPI's world communicator. ARMCI-MPI installs a header of this name; this one is ours,
 * with the same macros. A macro the program defined before including it is left alone.
 */
#ifndef MP3_H
#define MP3_H

#include <mpi.h>

#ifndef MP_INIT
#define MP_INIT(ARGC, ARGV) MPI_Init(&(ARGC), &(ARGV))
#endif
#ifndef MP_FINALIZE
#define MP_FINALIZE() MPI_Finalize()
#endif
#ifndef MP_BARRIER
#define MP_BARRIER() MPI_Barrier(MPI_COMM_WORLD)
#endif
/** Number of processes, into the int at X. */
#ifndef MP_PROCS
#define MP_PROCS(X) MPI_Comm_size(MPI_COMM_WORLD, (X))
#endif
/** This process's rank, into the int at X. */
#ifndef MP_MYID
#define MP_MYID(X) MPI_Comm_rank(MPI_COMM_WORLD, (X))
#endif
/** Wall-clock seconds, as a double. */
#ifndef MP_TIMER
#define MP_TIMER() MPI_Wtime()
#endif

/* Start ARMCI or Global Arrays after MP_INIT (the program includes armci.h or ga.h). */
#ifndef ARMCI_INIT
#define ARMCI_INIT(ARGC, ARGV) ARMCI_Init()
#endif
#ifndef GA_INIT
#define GA_INIT(ARGC, ARGV) GA_Initialize()
#endif

#endif /* MP3_H */
