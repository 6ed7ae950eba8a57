/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Mutexes as MCS queue locks, in sets over a group (mcs.c): the world's set of
 * ARMCI_Create_mutexes and the batches of ARMCIX_Create_mutexes_hdl, which the API layer
 * keeps (armci/mutex.c) and checks the arguments of. Every call here is made holding the
 * runtime lock.
 */
#ifndef ARMCII_MUTEX_H
#define ARMCII_MUTEX_H

#include <armci.h>

/** One set: its group, how many mutexes each member hosts and where each member's words
 *  are. */
typedef struct {
    ARMCI_Group grp;     /* the members; a handle's is its own duplicate of the user's */
    int maxcount;        /* the most mutexes any member hosts */
    int *count;          /* mutexes each member hosts, by group rank */
    void **base;         /* each member's block, by group rank */
    unsigned char *held; /* [mutex * size + host]: this process holds (or awaits) it */
    int nheld;
} armcii_mutexes_t;

/** Collective over s->grp (set by the caller): every member hosts @p count mutexes. */
void armcii_mutexes_create(const char *call, armcii_mutexes_t *s, int count);
/** Collective over s->grp; the job ends if this process still holds one of them. */
void armcii_mutexes_destroy(const char *call, armcii_mutexes_t *s);
/** Lock mutex @p m of member @p h (a group rank), or with @p try only if it is free at
 *  once. @return 0 if this process now holds it, 1 if @p try found it taken. */
int armcii_mutex_lock(const char *call, armcii_mutexes_t *s, int m, int h, int try);
/** Unlock it, after completing this process's puts and accumulates. */
void armcii_mutex_unlock(const char *call, armcii_mutexes_t *s, int m, int h);

#endif
