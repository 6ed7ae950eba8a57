/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Bringing the runtime up and taking it down (bringup.c), and the layers above the core
 * whose bring-up it places in its order.
 */
#ifndef ARMCII_BRINGUP_H
#define ARMCII_BRINGUP_H

#include <mpi.h>

/** Brings the runtime up over a duplicate of @p comm, once MPI is initialised; collective.
 *  @p one_caller: only one application thread calls ARMCI at a time. */
void armcii_runtime_init(const char *call, MPI_Comm comm, int one_caller);
/** Completes what is in flight everywhere and takes the runtime down; collective. Entered
 *  holding the lock, returns without it. */
void armcii_runtime_fini(const char *call);
/** A layer above the core whose bring-up and shut-down the runtime places in its own
 *  order: the core calls it through these pointers alone, never by name. */
typedef struct {
    void (*init)(void);                               /* collective; the transport is up,
                                                         the progress thread not yet */
    void (*fini)(void);                               /* past the last barrier, before
                                                         the node heap goes; or NULL */
    void (*describe)(void (*line)(const char *text)); /* its lines of ARMCI_VERBOSE, or NULL */
} armcii_above_t;
/** Registers the layers above the core, bottom up, NULL after the last (armci/init.c,
 *  before armcii_runtime_init): brought up in that order, taken down in the reverse. */
void armcii_runtime_above(const armcii_above_t *const *layers);

#endif
