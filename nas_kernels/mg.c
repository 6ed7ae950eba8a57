/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NAS Parallel Benchmarks MG (NPB 3.x algorithm) on ARMCI.
 *
 * V-cycle multigrid on a periodic nx^3 grid: NPB's right-hand side (zran3: +1 at the ten
 * largest and -1 at the ten smallest of NPB's random numbers), NPB's operators A (resid),
 * S (psinv, smoother a or b by class), P (rprj3) and Q (interp), verified against NPB's
 * L2 norm of the final residual.
 *
 * Decomposition: the grid is cut into slabs of whole z planes, one per rank. Every local
 * array is an exact window of NPB's serial array, ghost planes included, and every operator
 * is computed point by point with NPB's formula, so each grid value is bit-for-bit what the
 * serial code computes; only the norm's sum is reordered. A level whose planes cannot give
 * every rank at least two is computed whole on every rank (it is at most 8 planes of at most
 * 10^2 points): the restriction into it gathers the ranks' planes, and the interpolation out
 * of it reads the window a rank needs.
 *
 * Ghost planes move, after each operator, by
 *   mpi       Isend/Irecv of the two boundary planes, then Waitall (NPB's MPI version);
 *   armci     ARMCI_Put_flag of the boundary planes into the neighbours' ghost planes: the
 *             runtime sets the neighbour's flag for this rank once a plane is there;
 *   armci-nb  the two boundary planes are computed first and sent with ARMCIX_NbPut_flag;
 *             the interior planes are computed while they travel.
 */
#include "nas.h"

#include <armci.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXLEVEL 12
#define TOP10    10

struct mg_class {
    char cls;
    int nx, nit;
    double verify;
};

static const struct mg_class classes[] = {
    {'S', 32, 4, 0.5307707005734e-04},
    {'W', 128, 4, 0.6467329375339e-05},
    {'A', 256, 4, 0.2433365309069e-05},
    {'B', 256, 20, 0.1800564401355e-05},
};

/* An array of one level: this rank's base and, for the ARMCI variants, every rank's. */
struct grid {
    double *a;
    double **all;
};

struct level {
    int nx;         /* interior points per axis, globally */
    int n1, n2, n3; /* local extents, ghosts included */
    int lz, z0;     /* local interior planes; local plane i is global plane z0 + i */
    bool dist;      /* slabs (true) or the whole level on every rank */
    size_t plane;   /* n1 * n2 */
    struct grid u, r;
};

struct mg {
    const struct mg_class *c;
    enum nas_variant variant;
    int me, nprocs, lower, upper;
    int lt;
    struct level lv[MAXLEVEL + 1]; /* 1..lt */
    struct grid v;                 /* right-hand side, top level */
    double a[4], cs[4];            /* operator A and smoother S coefficients */
    struct nas_notify note;
    int seq;
    armci_hdl_t hdl[2];
    bool hdl_live; /* armci-nb: hdl hold the last exchange's puts, not yet waited */
    MPI_Request reqs[4];
    double t_comm;
};

#define AT(L, g, i3, i2, i1) ((g)[((size_t)(i3) * (L)->n2 + (i2)) * (L)->n1 + (i1)])

/* ---- operators, on a range of output planes ------------------------------------------ */

/* Row (i3, i2) of grid g. The operators take each row they touch once per output row, and
 * mark the rows they only read `restrict`: with AT() inside the inner loops, and the
 * coefficients read through m, GCC reloaded pointers and coefficients every iteration
 * (the output might alias them) and vectorised short. The arithmetic, term for term and
 * in NPB's order, is unchanged: the results are bit for bit the same. */
#define ROW(L, g, i3, i2) ((g) + ((size_t)(i3) * (L)->n2 + (i2)) * (L)->n1)

/* r = v - A u on planes [i3a, i3b] (NPB's resid; a[1] is zero and skipped as NPB does).
 * v may be r itself (r = r - A u); then only rc touches that row. */
NAS_WIDE static void resid_planes(const struct mg *m, const struct level *L, const double *u,
                                  const double *v, double *r, int i3a, int i3b)
{
    int n1 = L->n1;
    double u1[n1], u2[n1];
    const double a0 = m->a[0], a2 = m->a[2], a3 = m->a[3];
    for (int i3 = i3a; i3 <= i3b; i3++)
        for (int i2 = 1; i2 < L->n2 - 1; i2++) {
            const double *restrict ub = ROW(L, u, i3, i2 - 1), *restrict ut = ROW(L, u, i3, i2 + 1);
            const double *restrict ud = ROW(L, u, i3 - 1, i2), *restrict uu = ROW(L, u, i3 + 1, i2);
            const double *restrict udb = ROW(L, u, i3 - 1, i2 - 1);
            const double *restrict udt = ROW(L, u, i3 - 1, i2 + 1);
            const double *restrict uub = ROW(L, u, i3 + 1, i2 - 1);
            const double *restrict uut = ROW(L, u, i3 + 1, i2 + 1);
            const double *restrict uc = ROW(L, u, i3, i2);
            const double *restrict vc = ROW(L, v, i3, i2);
            double *restrict rc = ROW(L, r, i3, i2);
            for (int i1 = 0; i1 < n1; i1++) {
                u1[i1] = ub[i1] + ut[i1] + ud[i1] + uu[i1];
                u2[i1] = udb[i1] + udt[i1] + uub[i1] + uut[i1];
            }
            /* In place (v is r), the row is read and written through rc alone: with two
             * pointers that may alias, GCC guards the vector loop with an overlap test, which
             * in place always fails (to the scalar loop). */
            if (v == r)
                for (int i1 = 1; i1 < n1 - 1; i1++)
                    rc[i1] = rc[i1] - a0 * uc[i1] - a2 * (u2[i1] + u1[i1 - 1] + u1[i1 + 1]) -
                             a3 * (u2[i1 - 1] + u2[i1 + 1]);
            else
                for (int i1 = 1; i1 < n1 - 1; i1++)
                    rc[i1] = vc[i1] - a0 * uc[i1] - a2 * (u2[i1] + u1[i1 - 1] + u1[i1 + 1]) -
                             a3 * (u2[i1 - 1] + u2[i1 + 1]);
        }
}

/* u = u + S r on planes [i3a, i3b] (NPB's psinv; c[3] is zero and skipped as NPB does). */
NAS_WIDE static void psinv_planes(const struct mg *m, const struct level *L, const double *r,
                                  double *u, int i3a, int i3b)
{
    int n1 = L->n1;
    double r1[n1], r2[n1];
    const double c0 = m->cs[0], c1 = m->cs[1], c2 = m->cs[2];
    for (int i3 = i3a; i3 <= i3b; i3++)
        for (int i2 = 1; i2 < L->n2 - 1; i2++) {
            const double *restrict rb = ROW(L, r, i3, i2 - 1), *restrict rt = ROW(L, r, i3, i2 + 1);
            const double *restrict rd = ROW(L, r, i3 - 1, i2), *restrict ru = ROW(L, r, i3 + 1, i2);
            const double *restrict rdb = ROW(L, r, i3 - 1, i2 - 1);
            const double *restrict rdt = ROW(L, r, i3 - 1, i2 + 1);
            const double *restrict rub = ROW(L, r, i3 + 1, i2 - 1);
            const double *restrict rut = ROW(L, r, i3 + 1, i2 + 1);
            const double *restrict rc = ROW(L, r, i3, i2);
            double *restrict uc = ROW(L, u, i3, i2);
            for (int i1 = 0; i1 < n1; i1++) {
                r1[i1] = rb[i1] + rt[i1] + rd[i1] + ru[i1];
                r2[i1] = rdb[i1] + rdt[i1] + rub[i1] + rut[i1];
            }
            for (int i1 = 1; i1 < n1 - 1; i1++)
                uc[i1] += c0 * rc[i1] + c1 * (rc[i1 - 1] + rc[i1 + 1] + r1[i1]) +
                          c2 * (r2[i1] + r1[i1 - 1] + r1[i1 + 1]);
        }
}

/* s = P r (NPB's rprj3) on coarse planes [j3a, j3b]; F is the fine level, C the coarse one,
 * r and s are windows whose plane 0 is the ghost below the first plane computed here. */
NAS_WIDE static void rprj3_planes(const struct level *F, const double *r, const struct level *C,
                                  double *s, int j3a, int j3b)
{
    int d1 = F->n1 == 3 ? 2 : 1, d2 = F->n2 == 3 ? 2 : 1, d3 = 1;
    double x1[F->n1], y1[F->n1];
    for (int j3 = j3a; j3 <= j3b; j3++) {
        int i3 = 2 * j3 - d3;
        for (int j2 = 1; j2 < C->n2 - 1; j2++) {
            int i2 = 2 * j2 - d2;
            for (int j1 = 1; j1 < C->n1; j1++) {
                int i1 = 2 * j1 - d1;
                x1[i1] = AT(F, r, i3 + 1, i2, i1) + AT(F, r, i3 + 1, i2 + 2, i1) +
                         AT(F, r, i3, i2 + 1, i1) + AT(F, r, i3 + 2, i2 + 1, i1);
                y1[i1] = AT(F, r, i3, i2, i1) + AT(F, r, i3 + 2, i2, i1) +
                         AT(F, r, i3, i2 + 2, i1) + AT(F, r, i3 + 2, i2 + 2, i1);
            }
            for (int j1 = 1; j1 < C->n1 - 1; j1++) {
                int i1 = 2 * j1 - d1;
                double y2 = AT(F, r, i3, i2, i1 + 1) + AT(F, r, i3 + 2, i2, i1 + 1) +
                            AT(F, r, i3, i2 + 2, i1 + 1) + AT(F, r, i3 + 2, i2 + 2, i1 + 1);
                double x2 = AT(F, r, i3 + 1, i2, i1 + 1) + AT(F, r, i3 + 1, i2 + 2, i1 + 1) +
                            AT(F, r, i3, i2 + 1, i1 + 1) + AT(F, r, i3 + 2, i2 + 1, i1 + 1);
                AT(C, s, j3, j2, j1) =
                    0.5 * AT(F, r, i3 + 1, i2 + 1, i1 + 1) +
                    0.25 * (AT(F, r, i3 + 1, i2 + 1, i1) + AT(F, r, i3 + 1, i2 + 1, i1 + 2) + x2) +
                    0.125 * (x1[i1] + x1[i1 + 2] + y2) + 0.0625 * (y1[i1] + y1[i1 + 2]);
            }
        }
    }
}

/* u = u + Q z (NPB's interp): mm3 coarse planes of window z into 2*(mm3-1) fine planes. */
NAS_WIDE static void interp(const struct level *C, const double *z, int mm3, const struct level *F,
                            double *u)
{
    int mm1 = C->n1, mm2 = C->n2;
    double z1[mm1], z2[mm1], z3[mm1];
    for (int i3 = 0; i3 < mm3 - 1; i3++)
        for (int i2 = 0; i2 < mm2 - 1; i2++) {
            const double *restrict z00 = ROW(C, z, i3, i2), *restrict z01 = ROW(C, z, i3, i2 + 1);
            const double *restrict z10 = ROW(C, z, i3 + 1, i2);
            const double *restrict z11 = ROW(C, z, i3 + 1, i2 + 1);
            double *restrict u00 = ROW(F, u, 2 * i3, 2 * i2);
            double *restrict u01 = ROW(F, u, 2 * i3, 2 * i2 + 1);
            double *restrict u10 = ROW(F, u, 2 * i3 + 1, 2 * i2);
            double *restrict u11 = ROW(F, u, 2 * i3 + 1, 2 * i2 + 1);
            for (int i1 = 0; i1 < mm1; i1++) {
                z1[i1] = z01[i1] + z00[i1];
                z2[i1] = z10[i1] + z00[i1];
                z3[i1] = z11[i1] + z10[i1] + z1[i1];
            }
            for (int i1 = 0; i1 < mm1 - 1; i1++) {
                u00[2 * i1] += z00[i1];
                u00[2 * i1 + 1] += 0.5 * (z00[i1 + 1] + z00[i1]);
            }
            for (int i1 = 0; i1 < mm1 - 1; i1++) {
                u01[2 * i1] += 0.5 * z1[i1];
                u01[2 * i1 + 1] += 0.25 * (z1[i1] + z1[i1 + 1]);
            }
            for (int i1 = 0; i1 < mm1 - 1; i1++) {
                u10[2 * i1] += 0.5 * z2[i1];
                u10[2 * i1 + 1] += 0.25 * (z2[i1] + z2[i1 + 1]);
            }
            for (int i1 = 0; i1 < mm1 - 1; i1++) {
                u11[2 * i1] += 0.25 * z3[i1];
                u11[2 * i1 + 1] += 0.125 * (z3[i1] + z3[i1 + 1]);
            }
        }
}

/* ---- ghost points ------------------------------------------------------------------- */

/* Periodic x and y ghosts of planes [a, b] (NPB's comm3, axes 1 and 2). */
static void fix_xy(const struct level *L, double *u, int a, int b)
{
    int n1 = L->n1, n2 = L->n2;
    for (int i3 = a; i3 <= b; i3++) {
        for (int i2 = 1; i2 < n2 - 1; i2++) {
            AT(L, u, i3, i2, 0) = AT(L, u, i3, i2, n1 - 2);
            AT(L, u, i3, i2, n1 - 1) = AT(L, u, i3, i2, 1);
        }
        for (int i1 = 0; i1 < n1; i1++) {
            AT(L, u, i3, 0, i1) = AT(L, u, i3, n2 - 2, i1);
            AT(L, u, i3, n2 - 1, i1) = AT(L, u, i3, 1, i1);
        }
    }
}

/* Sends the boundary planes 1 and lz into the neighbours' ghost planes lz+1 and 0. */
static void halo_start(struct mg *m, const struct level *L, struct grid *g)
{
    size_t plane = L->plane;
    int bytes = (int)(plane * sizeof(double));
    double *first = g->a + plane, *last = g->a + plane * L->lz;
    switch (m->variant) {
    case NAS_MPI:
        /* tag 1: a plane moving up to the next rank; tag 2: moving down. */
        MPI_Irecv(g->a, (int)plane, MPI_DOUBLE, m->lower, 1, MPI_COMM_WORLD, &m->reqs[0]);
        MPI_Irecv(g->a + plane * (L->lz + 1), (int)plane, MPI_DOUBLE, m->upper, 2, MPI_COMM_WORLD,
                  &m->reqs[1]);
        MPI_Isend(last, (int)plane, MPI_DOUBLE, m->upper, 1, MPI_COMM_WORLD, &m->reqs[2]);
        MPI_Isend(first, (int)plane, MPI_DOUBLE, m->lower, 2, MPI_COMM_WORLD, &m->reqs[3]);
        break;
    case NAS_ARMCI:
    case NAS_ARMCI_NB: {
        /* Two numbers per exchange: the plane going up carries the odd one, the plane going
         * down the even one, so that a rank that is both neighbours (two ranks) is waited
         * for until both its planes are here. */
        armci_hdl_t *up = NULL, *down = NULL;
        if (m->variant == NAS_ARMCI_NB) {
            up = &m->hdl[0];
            down = &m->hdl[1];
            if (m->hdl_live) { /* the last exchange's, long acknowledged by now */
                ARMCI_Wait(up);
                ARMCI_Wait(down);
            }
            m->hdl_live = true;
            ARMCI_INIT_HANDLE(up);
            ARMCI_INIT_HANDLE(down);
        }
        m->seq += 2;
        nas_notify_put(&m->note, last, g->all[m->upper], bytes, m->upper, m->seq - 1, up);
        nas_notify_put(&m->note, first, g->all[m->lower] + plane * (L->lz + 1), bytes, m->lower,
                       m->seq, down);
        break;
    }
    }
}

/* Completes halo_start: the own puts are done and the neighbours' planes are here. */
static void halo_finish(struct mg *m)
{
    if (m->variant == NAS_MPI) {
        MPI_Waitall(4, m->reqs, MPI_STATUSES_IGNORE);
        return;
    }
    nas_notify_wait(&m->note, m->lower, m->seq - 1); /* its plane going up, into plane 0 */
    nas_notify_wait(&m->note, m->upper, m->seq);     /* its plane going down */
    /* armci-nb: the handles are waited for at the next exchange (ARMCIX_NbPut_flag has
     * copied the planes out), so a neighbour's acknowledgement costs no wait here. */
}

/* NPB's comm3 for a level: every ghost point of g from its periodic image. */
static void comm3(struct mg *m, const struct level *L, struct grid *g)
{
    fix_xy(L, g->a, 1, L->lz);
    if (!L->dist) {
        memcpy(g->a, g->a + L->plane * L->lz, L->plane * sizeof(double));
        memcpy(g->a + L->plane * (L->lz + 1), g->a + L->plane, L->plane * sizeof(double));
        return;
    }
    double t0 = nas_now();
    halo_start(m, L, g);
    halo_finish(m);
    m->t_comm += nas_now() - t0;
}

/*
 * An operator that writes planes of `out` on level L, then comm3(out). For armci-nb on a
 * sliced level the two boundary planes go first and travel while the interior is computed.
 * The operators never read the ghosts of the array they write, which is what makes sending
 * before the interior is done safe.
 */
enum op_kind { OP_RESID, OP_PSINV };

static void op_planes(struct mg *m, const struct level *L, enum op_kind kind, const double *in1,
                      const double *in2, double *out, int a, int b)
{
    if (a > b)
        return;
    if (kind == OP_RESID)
        resid_planes(m, L, in1, in2, out, a, b);
    else
        psinv_planes(m, L, in1, out, a, b);
}

static void apply(struct mg *m, const struct level *L, enum op_kind kind, const double *in1,
                  const double *in2, struct grid *out)
{
    if (m->variant != NAS_ARMCI_NB || !L->dist) {
        op_planes(m, L, kind, in1, in2, out->a, 1, L->lz);
        comm3(m, L, out);
        return;
    }
    op_planes(m, L, kind, in1, in2, out->a, 1, 1);
    op_planes(m, L, kind, in1, in2, out->a, L->lz, L->lz);
    fix_xy(L, out->a, 1, 1);
    fix_xy(L, out->a, L->lz, L->lz);
    double t0 = nas_now();
    halo_start(m, L, out);
    m->t_comm += nas_now() - t0;
    op_planes(m, L, kind, in1, in2, out->a, 2, L->lz - 1);
    fix_xy(L, out->a, 2, L->lz - 1);
    t0 = nas_now();
    halo_finish(m);
    m->t_comm += nas_now() - t0;
}

static void resid(struct mg *m, const struct level *L, const double *u, const double *v,
                  struct grid *r)
{
    apply(m, L, OP_RESID, u, v, r);
}

static void psinv(struct mg *m, const struct level *L, const double *r, struct grid *u)
{
    apply(m, L, OP_PSINV, r, NULL, u);
}

/* The planes of a whole level that rank `rank` computes when restricting into it. */
static int share_planes(const struct mg *m, const struct level *C)
{
    return C->nx / m->nprocs;
}

/* r(k-1) = P r(k), with the three cases of fine/coarse layout. */
static void rprj3(struct mg *m, int k)
{
    struct level *F = &m->lv[k], *C = &m->lv[k - 1];
    if (C->dist || !F->dist) {
        if (m->variant == NAS_ARMCI_NB && C->dist && C->lz > 2) {
            rprj3_planes(F, F->r.a, C, C->r.a, 1, 1);
            rprj3_planes(F, F->r.a, C, C->r.a, C->lz, C->lz);
            fix_xy(C, C->r.a, 1, 1);
            fix_xy(C, C->r.a, C->lz, C->lz);
            double t0 = nas_now();
            halo_start(m, C, &C->r);
            m->t_comm += nas_now() - t0;
            rprj3_planes(F, F->r.a, C, C->r.a, 2, C->lz - 1);
            fix_xy(C, C->r.a, 2, C->lz - 1);
            t0 = nas_now();
            halo_finish(m);
            m->t_comm += nas_now() - t0;
            return;
        }
        rprj3_planes(F, F->r.a, C, C->r.a, 1, C->lz);
        comm3(m, C, &C->r);
        return;
    }
    /* Sliced fine level into a whole coarse level: each rank computes the coarse planes
     * above its own fine planes, then every rank gets every rank's planes. */
    int share = share_planes(m, C), first = m->me * share;
    size_t plane = C->plane;
    rprj3_planes(F, F->r.a, C, C->r.a + plane * first, 1, share);
    double t0 = nas_now();
    if (m->variant == NAS_MPI) {
        MPI_Allgather(MPI_IN_PLACE, 0, MPI_DOUBLE, C->r.a + plane, (int)(plane * share), MPI_DOUBLE,
                      MPI_COMM_WORLD);
    } else {
        /* The barrier before: no rank still reads this level from the last cycle. */
        ARMCI_Barrier();
        for (int i = 1; i < m->nprocs; i++) {
            int t = (m->me + i) % m->nprocs;
            ARMCI_Put(C->r.a + plane * (first + 1), C->r.all[t] + plane * (first + 1),
                      (int)(plane * share * sizeof(double)), t);
        }
        ARMCI_Barrier();
    }
    m->t_comm += nas_now() - t0;
    comm3(m, C, &C->r);
}

/* u(k) = u(k) + Q u(k-1). */
static void interp_level(struct mg *m, int k)
{
    struct level *F = &m->lv[k], *C = &m->lv[k - 1];
    if (C->dist || !F->dist) {
        interp(C, C->u.a, C->lz + 2, F, F->u.a);
        return;
    }
    /* A whole coarse level into a sliced fine one: the window over this rank's planes. */
    int first = m->me * (F->lz / 2);
    interp(C, C->u.a + C->plane * first, F->lz / 2 + 2, F, F->u.a);
}

static void zero3(const struct level *L, double *u)
{
    memset(u, 0, L->plane * (L->lz + 2) * sizeof(double));
}

/* NPB's V cycle (mg3P). */
static void mg3p(struct mg *m)
{
    int lt = m->lt;
    for (int k = lt; k >= 2; k--)
        rprj3(m, k);
    struct level *L = &m->lv[1];
    zero3(L, L->u.a);
    psinv(m, L, L->r.a, &L->u);
    for (int k = 2; k < lt; k++) {
        L = &m->lv[k];
        zero3(L, L->u.a);
        interp_level(m, k);
        resid(m, L, L->u.a, L->r.a, &L->r);
        psinv(m, L, L->r.a, &L->u);
    }
    L = &m->lv[lt];
    interp_level(m, lt);
    resid(m, L, L->u.a, m->v.a, &L->r);
    psinv(m, L, L->r.a, &L->u);
}

/* NPB's norm2u3: the L2 norm (rnm2) and the largest magnitude (rnmu) of the interior. */
static void norm2u3(const struct level *L, const double *r, double *rnm2_p, double *rnmu_p)
{
    double loc[2] = {0.0, 0.0}, tot[2];
    for (int i3 = 1; i3 <= L->lz; i3++)
        for (int i2 = 1; i2 < L->n2 - 1; i2++)
            for (int i1 = 1; i1 < L->n1 - 1; i1++) {
                double x = AT(L, r, i3, i2, i1);
                loc[0] += x * x;
                if (fabs(x) > loc[1])
                    loc[1] = fabs(x);
            }
    if (L->dist) {
        MPI_Allreduce(&loc[0], &tot[0], 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(&loc[1], &tot[1], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    } else {
        tot[0] = loc[0];
        tot[1] = loc[1];
    }
    double n = (double)L->nx * L->nx * L->nx;
    *rnm2_p = sqrt(tot[0] / n);
    *rnmu_p = tot[1];
}

struct cand {
    double val;
    long pos; /* global linear index of the interior point */
};

static int cand_desc(const void *x, const void *y)
{
    double a = ((const struct cand *)x)->val, b = ((const struct cand *)y)->val;
    return a < b ? 1 : a > b ? -1 : 0;
}

/* Keeps the TOP10 best candidates in c[] (best first by `better`). */
static void keep(struct cand *c, double val, long pos, int sign)
{
    if (sign * val <= sign * c[TOP10 - 1].val)
        return;
    int i = TOP10 - 1;
    while (i > 0 && sign * val > sign * c[i - 1].val) {
        c[i] = c[i - 1];
        i--;
    }
    c[i].val = val;
    c[i].pos = pos;
}

/*
 * NPB's zran3: NPB's random numbers over the grid (each rank jumps the generator to its
 * first plane), +1 at the ten largest, -1 at the ten smallest, zero elsewhere.
 */
static void zran3(struct mg *m, struct grid *z)
{
    const struct level *L = &m->lv[m->lt];
    const double a = pow(5.0, 13), seed = 314159265.0;
    long nx = L->nx;
    double a1 = nas_power(a, nx), a2 = nas_power(a, nx * nx);
    zero3(L, z->a);
    double x0 = seed;
    nas_randlc(&x0, nas_power(a, nx * nx * L->z0));
    for (int i3 = 1; i3 <= L->lz; i3++) {
        double x1 = x0;
        for (int i2 = 1; i2 <= nx; i2++) {
            double xx = x1;
            nas_vranlc(nx, &xx, a, &AT(L, z->a, i3, i2, 1));
            nas_randlc(&x1, a1);
        }
        nas_randlc(&x0, a2);
    }

    struct cand hi[TOP10], lo[TOP10];
    for (int i = 0; i < TOP10; i++) {
        hi[i] = (struct cand){0.0, -1};
        lo[i] = (struct cand){1.0, -1};
    }
    for (int i3 = 1; i3 <= L->lz; i3++)
        for (int i2 = 1; i2 <= nx; i2++)
            for (int i1 = 1; i1 <= nx; i1++) {
                double val = AT(L, z->a, i3, i2, i1);
                long pos = ((long)(L->z0 + i3 - 1) * nx + (i2 - 1)) * nx + (i1 - 1);
                keep(hi, val, pos, +1);
                keep(lo, val, pos, -1);
            }

    /* The globally best ten of each kind among every rank's candidates. */
    int ncand = TOP10 * (L->dist ? m->nprocs : 1);
    struct cand *all_hi = malloc(sizeof(struct cand) * ncand);
    struct cand *all_lo = malloc(sizeof(struct cand) * ncand);
    if (!all_hi || !all_lo)
        nas_die("MG: out of memory");
    if (L->dist) {
        MPI_Allgather(hi, (int)sizeof hi, MPI_BYTE, all_hi, (int)sizeof hi, MPI_BYTE,
                      MPI_COMM_WORLD);
        MPI_Allgather(lo, (int)sizeof lo, MPI_BYTE, all_lo, (int)sizeof lo, MPI_BYTE,
                      MPI_COMM_WORLD);
    } else {
        memcpy(all_hi, hi, sizeof hi);
        memcpy(all_lo, lo, sizeof lo);
    }
    qsort(all_hi, ncand, sizeof(struct cand), cand_desc);
    qsort(all_lo, ncand, sizeof(struct cand), cand_desc);

    zero3(L, z->a);
    for (int i = 0; i < TOP10; i++) {
        const struct cand *c[2] = {&all_hi[i], &all_lo[ncand - 1 - i]};
        for (int s = 0; s < 2; s++) {
            long pos = c[s]->pos;
            int g3 = (int)(pos / (nx * nx)), i3 = g3 - L->z0 + 1;
            if (pos < 0 || i3 < 1 || i3 > L->lz)
                continue;
            AT(L, z->a, i3, (pos / nx) % nx + 1, pos % nx + 1) = s == 0 ? 1.0 : -1.0;
        }
    }
    free(all_hi);
    free(all_lo);
    comm3(m, L, z);
}

/* ---- set-up ------------------------------------------------------------------------- */

static void grid_alloc(struct mg *m, const struct level *L, struct grid *g)
{
    size_t bytes = L->plane * (L->lz + 2) * sizeof(double);
    if (m->variant == NAS_MPI) {
        g->all = NULL;
        g->a = malloc(bytes);
        if (!g->a)
            nas_die("MG: out of memory (%zu bytes)", bytes);
    } else {
        g->all = malloc(sizeof(double *) * m->nprocs);
        if (!g->all || ARMCI_Malloc((void **)g->all, bytes))
            nas_die("MG: ARMCI_Malloc of %zu bytes failed", bytes);
        g->a = g->all[m->me];
    }
    memset(g->a, 0, bytes);
}

static void grid_free(struct mg *m, struct grid *g)
{
    if (m->variant == NAS_MPI) {
        free(g->a);
        return;
    }
    ARMCI_Free(g->a);
    free(g->all);
}

static void setup(struct mg *m)
{
    int nx = m->c->nx, lt = 0;
    while ((1 << lt) < nx)
        lt++;
    m->lt = lt;
    for (int k = lt; k >= 1; k--) {
        struct level *L = &m->lv[k];
        L->nx = 1 << k;
        L->n1 = L->n2 = L->nx + 2;
        L->plane = (size_t)L->n1 * L->n2;
        /* Slices of at least two planes; below that, the whole level on every rank. */
        L->dist = m->nprocs > 1 && L->nx / m->nprocs >= 2;
        L->lz = L->dist ? L->nx / m->nprocs : L->nx;
        L->z0 = L->dist ? m->me * L->lz : 0;
        L->n3 = L->lz + 2;
        grid_alloc(m, L, &L->u);
        grid_alloc(m, L, &L->r);
    }
    grid_alloc(m, &m->lv[lt], &m->v);
    m->a[0] = -8.0 / 3.0;
    m->a[1] = 0.0;
    m->a[2] = 1.0 / 6.0;
    m->a[3] = 1.0 / 12.0;
    if (m->c->cls == 'S' || m->c->cls == 'W' || m->c->cls == 'A') {
        m->cs[0] = -3.0 / 8.0; /* smoother S(a) */
        m->cs[1] = 1.0 / 32.0;
        m->cs[2] = -1.0 / 64.0;
    } else {
        m->cs[0] = -3.0 / 17.0; /* smoother S(b) */
        m->cs[1] = 1.0 / 33.0;
        m->cs[2] = -1.0 / 61.0;
    }
    m->cs[3] = 0.0;
}

int main(int argc, char **argv)
{
    struct nas_opts o;
    struct mg m;
    memset(&m, 0, sizeof m);

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &m.me);
    MPI_Comm_size(MPI_COMM_WORLD, &m.nprocs);
    nas_parse(argc, argv, "mg", "SWAB", &o);
    m.variant = o.variant;
    /* The mpi variant runs as NPB's MPI version would: without ARMCI (whose progress
     * thread would otherwise take processor time from it). */
    if (m.variant != NAS_MPI)
        ARMCI_Init();
    for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
        if (classes[i].cls == o.cls)
            m.c = &classes[i];
    if ((m.nprocs & (m.nprocs - 1)) || m.c->nx / m.nprocs < 2) {
        if (m.me == 0)
            fprintf(stderr,
                    "mg: the number of processes (%d) must be a power of two and at most "
                    "%d for class %c\n",
                    m.nprocs, m.c->nx / 2, m.c->cls);
        if (m.variant != NAS_MPI)
            ARMCI_Finalize();
        MPI_Finalize();
        return 2;
    }
    m.lower = (m.me + m.nprocs - 1) % m.nprocs;
    m.upper = (m.me + 1) % m.nprocs;

    const struct mg_class *c = m.c;
    if (m.me == 0) {
        printf("\n\n NAS Parallel Benchmarks (NPB 3.x algorithm, armci-ofi) - MG Benchmark\n\n");
        printf(" Size: %4dx%4dx%4d  (class %c)\n", c->nx, c->nx, c->nx, c->cls);
        printf(" Iterations: %4d\n", c->nit);
        printf(" Number of processes: %6d\n", m.nprocs);
        printf(" Communication: %s\n", nas_variant_name(m.variant));
    }

    double t_init = nas_now();
    setup(&m);
    if (m.variant != NAS_MPI)
        nas_notify_init(&m.note);
    struct level *top = &m.lv[m.lt];
    double rnm2, rnmu;

    /* One untimed cycle, as NPB does, then the same start again. */
    zero3(top, top->u.a);
    zran3(&m, &m.v);
    resid(&m, top, top->u.a, m.v.a, &top->r);
    mg3p(&m);
    resid(&m, top, top->u.a, m.v.a, &top->r);
    zero3(top, top->u.a);
    zran3(&m, &m.v);
    MPI_Barrier(MPI_COMM_WORLD);
    t_init = nas_now() - t_init;
    if (m.me == 0)
        printf("\n Initialization time: %15.3f seconds\n\n", t_init);

    m.t_comm = 0.0;
    double t0 = nas_now();
    resid(&m, top, top->u.a, m.v.a, &top->r);
    norm2u3(top, top->r.a, &rnm2, &rnmu);
    for (int it = 1; it <= c->nit; it++) {
        if (m.me == 0 && (it == 1 || it == c->nit || it % 5 == 0))
            printf("  iter %4d\n", it);
        mg3p(&m);
        resid(&m, top, top->u.a, m.v.a, &top->r);
        if (o.verbose) {
            norm2u3(top, top->r.a, &rnm2, &rnmu);
            if (m.me == 0)
                printf("  iter %4d  rnm2 %20.13E (%a)  rnmu %20.13E\n", it, rnm2, rnm2, rnmu);
        }
    }
    norm2u3(top, top->r.a, &rnm2, &rnmu);
    double t_local = nas_now() - t0, t, comm_max;
    MPI_Reduce(&t_local, &t, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&m.t_comm, &comm_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

    int verified = 0;
    if (m.me == 0) {
        double err = fabs(rnm2 - c->verify) / c->verify;
        verified = err <= 1.0e-8;
        printf("\n Benchmark completed\n");
        if (verified) {
            printf(" VERIFICATION SUCCESSFUL\n");
            printf(" L2 Norm is %20.13E\n", rnm2);
            printf(" Error is   %20.13E\n", err);
        } else {
            printf(" VERIFICATION FAILED\n");
            printf(" L2 Norm is             %20.13E\n", rnm2);
            printf(" The correct L2 Norm is %20.13E\n", c->verify);
        }
        double n = (double)c->nx * c->nx * c->nx;
        double mops = t > 0.0 ? 58.0 * c->nit * n / t / 1.0e6 : 0.0;
        char size[32];
        snprintf(size, sizeof size, "%dx%dx%d", c->nx, c->nx, c->nx);
        nas_print_results("MG", c->cls, size, c->nit, t, mops, m.nprocs, m.variant, verified);
        printf(" Ghost exchange (max)    = %19.3f seconds\n", comm_max);
    }
    MPI_Bcast(&verified, 1, MPI_INT, 0, MPI_COMM_WORLD);

    if (m.hdl_live) {
        ARMCI_Wait(&m.hdl[0]);
        ARMCI_Wait(&m.hdl[1]);
    }
    if (m.variant != NAS_MPI)
        nas_notify_free(&m.note);
    grid_free(&m, &m.v);
    for (int k = 1; k <= m.lt; k++) {
        grid_free(&m, &m.lv[k].r);
        grid_free(&m, &m.lv[k].u);
    }
    if (m.variant != NAS_MPI)
        ARMCI_Finalize();
    MPI_Finalize();
    return verified ? 0 : 1;
}
