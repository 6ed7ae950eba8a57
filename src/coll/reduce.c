/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The collectives of armci_msg_* over a communicator that the API layer (armci/message.c)
 * has checked the arguments of: reductions, selection of a process's data by its key,
 * broadcasts and barriers, each taking the node's shared memory (coll.c), the runtime's
 * point-to-point steps (p2p.c) or MPI's collective, whichever the layout and
 * ARMCI_COLL_ALG allow, in that order. Every wait drives ARMCI progress, so a process
 * sitting in a collective still serves one-sided operations aimed at it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives.h"
#include "../core/progress.h"
#include "../core/runtime.h"
#include "../core/topo.h"
#include "../base/common.h"

static int is_fp(int type)
{
    return type == ARMCI_FLOAT || type == ARMCI_DOUBLE;
}

/* The element type as a reduction's description shows it. */
static const char *type_name(int type)
{
    switch (type) {
    case ARMCI_INT:
        return "int";
    case ARMCI_LONG:
        return "long";
    case ARMCI_LONG_LONG:
        return "longlong";
    case ARMCI_FLOAT:
        return "float";
    default:
        return "double";
    }
}

/* Replace each element by its absolute value (for absmax/absmin). */
static void make_abs(void *x, int n, int type)
{
    for (int i = 0; i < n; i++) {
        switch (type) {
        case ARMCI_INT:
            ((int *)x)[i] = abs(((int *)x)[i]);
            break;
        case ARMCI_LONG:
            ((long *)x)[i] = labs(((long *)x)[i]);
            break;
        case ARMCI_LONG_LONG:
            ((long long *)x)[i] = llabs(((long long *)x)[i]);
            break;
        case ARMCI_FLOAT:
            ((float *)x)[i] = fabsf(((float *)x)[i]);
            break;
        case ARMCI_DOUBLE:
            ((double *)x)[i] = fabs(((double *)x)[i]);
            break;
        }
    }
}

/* x = the reduction of the n-element vectors at all (one per process, rank order), in
 * rank order, so that every process computes the same bits. */
#define FOLD(ctype, expr)                                                                          \
    do {                                                                                           \
        ctype *o = x;                                                                              \
        const ctype *in = all;                                                                     \
        for (int i = 0; i < n; i++) {                                                              \
            ctype a = in[i];                                                                       \
            for (int p = 1; p < P; p++) {                                                          \
                ctype b = in[(size_t)p * (size_t)n + (size_t)i];                                   \
                a = (expr);                                                                        \
            }                                                                                      \
            o[i] = a;                                                                              \
        }                                                                                          \
    } while (0)
#define FOLD_ARITH(ctype, mop)                                                                     \
    do {                                                                                           \
        if ((mop) == MPI_SUM)                                                                      \
            FOLD(ctype, a + b);                                                                    \
        else if ((mop) == MPI_PROD)                                                                \
            FOLD(ctype, a *b);                                                                     \
        else if ((mop) == MPI_MAX)                                                                 \
            FOLD(ctype, b > a ? b : a);                                                            \
        else                                                                                       \
            FOLD(ctype, b < a ? b : a);                                                            \
    } while (0)
#define FOLD_INT(ctype, mop)                                                                       \
    do {                                                                                           \
        if ((mop) == MPI_BOR)                                                                      \
            FOLD(ctype, a | b);                                                                    \
        else if ((mop) == MPI_BAND)                                                                \
            FOLD(ctype, a &b);                                                                     \
        else if ((mop) == MPI_LAND)                                                                \
            FOLD(ctype, (ctype)(a && b));                                                          \
        else if ((mop) == MPI_LOR)                                                                 \
            FOLD(ctype, (ctype)(a || b));                                                          \
        else                                                                                       \
            FOLD_ARITH(ctype, mop);                                                                \
    } while (0)

static void fold(void *x, const void *all, int n, int P, int type, MPI_Op mop)
{
    switch (type) {
    case ARMCI_INT:
        FOLD_INT(int, mop);
        break;
    case ARMCI_LONG:
        FOLD_INT(long, mop);
        break;
    case ARMCI_LONG_LONG:
        FOLD_INT(long long, mop);
        break;
    case ARMCI_FLOAT:
        FOLD_ARITH(float, mop);
        break;
    case ARMCI_DOUBLE:
        FOLD_ARITH(double, mop);
        break;
    }
}

/* The world on one node: gather every process's vector through the node's shared memory
 * with one synchronisation and reduce it here (ARMCI_COLL_ALG auto or pull, vectors up to
 * ARMCI_COLL_SMALL). A small reduction through MPI_Iallreduce and the runtime's wait took
 * several times as long as MPI_Allreduce itself; this one needs no MPI call. */
static int node_allreduce(const char *call, void *x, int n, const armcii_reduction_t *red,
                          const char *what)
{
    const void *all = armcii_coll_node_gather(call, x, (size_t)n * red->es, what);
    if (!all)
        return 0;
    fold(x, all, n, armcii_rt.nproc, red->type, red->op);
    return 1;
}

/* Before a reduction that MPI's collective does (long vectors, the node and node-leader
 * scopes), that every process of @p comm does the reduction @p what: one more exchange of
 * two ints, which the runtime's own steps spare (they carry @p what along). Left out
 * where ARMCI_COLL_ALG=mpi asks for MPI's collectives alone. */
static void agree_on(const char *call, const char *what, MPI_Comm comm)
{
    unsigned h = 2166136261u; /* FNV-1a */
    for (const char *c = what; *c; c++)
        h = (h ^ (unsigned char)*c) * 16777619u;
    int v[2] = {(int)(h >> 1), -(int)(h >> 1)};
    MPI_Request r;
    MPI_Iallreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_MAX, comm, &r);
    armcii_mpi_wait(call, &r);
    if (v[0] != -v[1])
        armcii_fatal(call,
                     "the processes called this reduction with different operations or "
                     "element types (this process: %s)",
                     what);
}

void armcii_coll_allreduce(const char *call, void *x, int n, const armcii_reduction_t *red,
                           MPI_Comm comm, MPI_Comm own)
{
    if (red->absolute)
        make_abs(x, n, red->type);
    if (red->logical && is_fp(red->type)) {
        /* MPI defines MPI_LAND and MPI_LOR on integers only: reduce the truth values as
         * ints, on every path alike, and hand back 1.0 or 0.0. */
        int small[64], *t = n <= 64 ? small : malloc((size_t)n * sizeof(int));
        if (!t)
            armcii_fatal(call, "out of memory for a reduction of %d elements", n);
        for (int i = 0; i < n; i++)
            t[i] = red->type == ARMCI_FLOAT ? ((float *)x)[i] != 0.0f : ((double *)x)[i] != 0.0;
        armcii_reduction_t as_int = *red;
        as_int.type = ARMCI_INT;
        as_int.dt = MPI_INT;
        as_int.es = sizeof(int);
        armcii_coll_allreduce(call, t, n, &as_int, comm, own);
        for (int i = 0; i < n; i++) {
            if (red->type == ARMCI_FLOAT)
                ((float *)x)[i] = (float)t[i];
            else
                ((double *)x)[i] = (double)t[i];
        }
        if (t != small)
            free(t);
        return;
    }
    /* what every process must agree on, told apart by the runtime's own steps */
    char what[ARMCII_COLL_WHAT + 1];
    snprintf(what, sizeof what, "%s %s", red->name, type_name(red->type));
    if (comm == armcii_rt.comm && node_allreduce(call, x, n, red, what))
        return;
    if (armcii_coll_p2p_allreduce(call, own, x, n, red->dt, red->es, red->op, what))
        return;
    if (!armcii_coll_mpi_only(call))
        agree_on(call, what, comm);
    MPI_Request r;
    MPI_Iallreduce(MPI_IN_PLACE, x, n, red->dt, red->op, comm, &r);
    armcii_mpi_wait(call, &r);
}

void armcii_coll_bcast(const char *call, MPI_Comm comm, MPI_Comm own, void *buf, int len, int root)
{
    if (armcii_coll_p2p_bcast(call, own, buf, (size_t)len, root))
        return;
    MPI_Request r;
    MPI_Ibcast(buf, len, MPI_BYTE, root, comm, &r);
    armcii_mpi_wait(call, &r);
}

void armcii_coll_comm_barrier(const char *call, MPI_Comm comm, MPI_Comm own)
{
    if (comm == armcii_rt.comm) {
        armcii_coll_barrier(call);
        return;
    }
    if (armcii_coll_p2p_barrier(call, own))
        return;
    MPI_Request r;
    MPI_Ibarrier(comm, &r);
    armcii_mpi_wait(call, &r);
}

/* ---- selection ---- */

typedef union {
    int i;
    long l;
    long long ll;
    float f;
    double d;
} sel_key_t;

/* Does key @p a (of ARMCI type @p type) come strictly before @p b: larger for max,
 * smaller for min? */
static int key_before(int type, int want_max, const sel_key_t *a, const sel_key_t *b)
{
    int c;
    switch (type) {
    case ARMCI_INT:
        c = (a->i > b->i) - (a->i < b->i);
        break;
    case ARMCI_LONG:
        c = (a->l > b->l) - (a->l < b->l);
        break;
    case ARMCI_LONG_LONG:
        c = (a->ll > b->ll) - (a->ll < b->ll);
        break;
    case ARMCI_FLOAT:
        c = (a->f > b->f) - (a->f < b->f);
        break;
    default:
        c = (a->d > b->d) - (a->d < b->d);
        break;
    }
    return want_max ? c > 0 : c < 0;
}

void armcii_coll_select(const char *call, MPI_Comm comm, void *x, int n, int type, size_t es,
                        int want_max, int contribute)
{
    /* The key keeps its type: long keys that differ below a double's 53-bit precision
     * must not tie (ARMCI-MPI compares them as their own type, src/message.c). */
    struct {
        sel_key_t key;
        int contributes, want_max;
    } mine, *all;
    memset(&mine, 0, sizeof(mine));
    mine.contributes = contribute != 0;
    mine.want_max = want_max;
    if (contribute)
        memcpy(&mine.key, x, es);
    int size;
    MPI_Comm_size(comm, &size);
    all = malloc((size_t)size * sizeof(*all));
    if (!all)
        armcii_fatal(call, "out of memory");
    MPI_Request r;
    MPI_Iallgather(&mine, sizeof(mine), MPI_BYTE, all, sizeof(mine), MPI_BYTE, comm, &r);
    armcii_mpi_wait(call, &r);
    /* Every process picks the same winner: best key among contributors, lowest rank on ties. */
    int winner = -1;
    for (int i = 0; i < size; i++) {
        if (all[i].want_max != want_max) {
            int abs = i;
            armcii_translate(comm, armcii_rt.comm, 1, &i, &abs);
            armcii_fatal(call,
                         "the processes called this selection with different operations: "
                         "this process selects the %s, process %d the %s",
                         want_max ? "max" : "min", abs, want_max ? "min" : "max");
        }
        if (!all[i].contributes)
            continue;
        if (winner < 0 || key_before(type, want_max, &all[i].key, &all[winner].key))
            winner = i;
    }
    free(all);
    if (winner < 0 || n == 0)
        return;
    MPI_Ibcast(x, n, MPI_BYTE, winner, comm, &r);
    armcii_mpi_wait(call, &r);
}
