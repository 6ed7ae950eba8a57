/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Collectives that can never complete. Processes that called different collectives (one
 * ARMCI_Free, another ARMCI_Barrier) each wait for the others, forever. A collective's wait
 * has no time limit of its own, because peers may compute for long before they join in;
 * but once every process of the job has waited ARMCI_TIMEOUT seconds in a collective, and
 * not all in the same call, none of them will return.
 *
 * So a process whose collective has lasted ARMCI_TIMEOUT seconds tells rank 0 which call
 * it waits in, and tells it again when that wait ends. Rank 0 keeps the last word of
 * every process; while it waits that long itself, it reads what arrived, and when every
 * process waits, in calls that differ, it ends the job naming what each one waits in.
 * The messages travel on a communicator of their own, and only in waits that have lasted
 * ARMCI_TIMEOUT: a job whose collectives complete sends none.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "health.h"
#include "../base/common.h"

#define CENSUS_TAG 7
#define RING       16 /* messages in flight from one process (each one a wait of ARMCI_TIMEOUT) */

typedef struct {
    int32_t stuck; /* 1: waits in @p call since ARMCI_TIMEOUT s; 0: that wait ended */
    int32_t pad;
    char call[56];
} census_msg_t;

static MPI_Comm comm = MPI_COMM_NULL;
static census_msg_t ring[RING];
static MPI_Request ring_req[RING];
static unsigned ring_next;
static long nsent, nreceived;
static census_msg_t *table; /* rank 0: the last word of every process */
static int nstuck, told;    /* rank 0: how many wait; said that all wait in one call */

void armcii_census_init(void)
{
    if (armcii_hh.nproc == 1)
        return;
    MPI_Comm_dup(armcii_hh.comm, &comm);
    for (int i = 0; i < RING; i++)
        ring_req[i] = MPI_REQUEST_NULL;
    if (armcii_hh.rank == 0 && !(table = calloc((size_t)armcii_hh.nproc, sizeof *table)))
        armcii_fatal("ARMCI_Init", "out of memory");
}

static void note(int rank, const census_msg_t *m)
{
    if (table[rank].stuck != m->stuck)
        nstuck += m->stuck ? 1 : -1;
    table[rank] = *m;
    told = 0;
}

static void tell(int stuck, const char *call)
{
    census_msg_t m = {.stuck = stuck};
    snprintf(m.call, sizeof m.call, "%s", call);
    if (armcii_hh.rank == 0) {
        note(0, &m);
        return;
    }
    int i = ring_next++ % RING;
    if (ring_req[i] != MPI_REQUEST_NULL) /* RING waits of ARMCI_TIMEOUT ago */
        MPI_Wait(&ring_req[i], MPI_STATUS_IGNORE);
    ring[i] = m;
    MPI_Isend(&ring[i], (int)sizeof m, MPI_BYTE, 0, CENSUS_TAG, comm, &ring_req[i]);
    nsent++;
}

static void receive_one(int from)
{
    census_msg_t m;
    MPI_Status st;
    MPI_Recv(&m, (int)sizeof m, MPI_BYTE, from, CENSUS_TAG, comm, &st);
    note(st.MPI_SOURCE, &m);
    nreceived++;
}

static void drain(void)
{
    for (;;) {
        int flag = 0;
        MPI_Iprobe(MPI_ANY_SOURCE, CENSUS_TAG, comm, &flag, MPI_STATUS_IGNORE);
        if (!flag)
            return;
        receive_one(MPI_ANY_SOURCE);
    }
}

/* Every process waits: in one call (then MPI does not complete it: said once), or not. */
static void judge(void)
{
    int P = armcii_hh.nproc, same = 1;
    for (int r = 1; r < P; r++)
        same &= strcmp(table[r].call, table[0].call) == 0;
    if (same) {
        if (!told)
            armcii_warn("%s: every process has waited %ld s or more in this call, and it has "
                        "not completed (see ARMCI_WATCHDOG to follow it)",
                        table[0].call, armcii_hh.env->TIMEOUT);
        told = 1;
        return;
    }
    /* "rank 0, 2 in ARMCI_Free; rank 1 in ARMCI_Barrier", each call once, in rank order */
    char text[640] = "";
    size_t len = 0;
    for (int r = 0; r < P && len < sizeof text - 80; r++) {
        int first = 1;
        for (int q = 0; q < r && first; q++)
            first = strcmp(table[q].call, table[r].call) != 0;
        if (!first)
            continue;
        len += (size_t)snprintf(text + len, sizeof text - len, "%srank", len ? "; " : "");
        for (int q = r, n = 0; q < P && len < sizeof text - 80; q++) {
            if (strcmp(table[q].call, table[r].call) != 0)
                continue;
            if (n++ == 16) {
                len += (size_t)snprintf(text + len, sizeof text - len, " ...");
                break;
            }
            len += (size_t)snprintf(text + len, sizeof text - len, "%s %d", n > 1 ? "," : "", q);
        }
        len += (size_t)snprintf(text + len, sizeof text - len, " in %s", table[r].call);
    }
    armcii_fatal(table[0].call,
                 "every process has waited %ld s or more in a collective, and not in the same "
                 "one: %s; every process must call the same collectives in the same order "
                 "(see ARMCI_TIMEOUT)",
                 armcii_hh.env->TIMEOUT, text);
}

void armcii_census_poll(const char *call, int *stuck, double since, double now)
{
    if (comm == MPI_COMM_NULL)
        return;
    if (!*stuck && now - since >= (double)armcii_hh.env->TIMEOUT) {
        *stuck = 1;
        tell(1, call);
    }
    if (armcii_hh.rank == 0 && *stuck) {
        drain();
        if (nstuck == armcii_hh.nproc)
            judge();
    }
}

void armcii_census_leave(int *stuck)
{
    if (*stuck && comm != MPI_COMM_NULL)
        tell(0, "");
    *stuck = 0;
}

void armcii_census_fini(void)
{
    if (comm == MPI_COMM_NULL)
        return;
    /* Every message sent reaches rank 0 before the communicator goes. */
    long total = 0;
    MPI_Reduce(&nsent, &total, 1, MPI_LONG, MPI_SUM, 0, comm);
    while (armcii_hh.rank == 0 && nreceived < total)
        receive_one(MPI_ANY_SOURCE);
    MPI_Waitall(RING, ring_req, MPI_STATUSES_IGNORE);
    MPI_Comm_free(&comm);
    free(table);
    table = NULL;
    nstuck = told = 0;
    nsent = nreceived = 0;
    ring_next = 0;
}
