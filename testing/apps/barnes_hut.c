/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Barnes-Hut N-body on ARMCI, the get cache's second application (after LCC).
 *
 * Bodies come from a Plummer sphere drawn with a fixed seed, the same on every process, and
 * are dealt out in Morton order: each process owns a compact region of space. Every step
 * each process builds an octree of its own bodies into its block of two ARMCI allocations
 * (cells, and bodies in tree order), so the union of the P trees holds every body. The
 * force on a body is the sum over the P trees of a walk with the opening criterion
 * size / distance < theta; the walk reads the cells and leaf bodies of other processes'
 * trees with ARMCI_Get (the children of a cell are one group of 8, fetched with one get).
 * Bodies near each other walk the same remote cells, so most gets repeat: the cache's
 * user-defined mode keeps them through the force phase, and each rebuild drops them with
 * ARMCIX_Cache_invalidate. Leapfrog (kick-drift-kick) moves the bodies; bodies stay with
 * the process that owns them.
 *
 *   barnes_hut [--bodies N] [--steps S] [--theta T] [--cache off|adaptive|ENTRIES:BYTES]
 *              [--gets blocking|nb] [--check TOL] [--seed X] [--label L]
 *
 * --cache picks the configuration (through ARMCI_CACHE_* before ARMCI_Init): off; adaptive
 * (the adaptive scheme, from 256 entries and 64 KiB unless ARMCI_CACHE_ENTRIES/BYTES say
 * otherwise); or ENTRIES:BYTES, fixed (sizes as ARMCI_CACHE_ENTRIES/BYTES take them).
 * --gets nb walks the other trees with ARMCI_NbGet, each get issued as soon as its parent
 * group arrives (walk_nb); the sums, and so the positions, stay those of blocking gets.
 * --check TOL compares the first step's accelerations with a direct O(N^2) sum and fails
 * when their RMS relative error exceeds TOL (theta 0 opens every cell: only rounding is left).
 *
 * Prints one line: "barnes_hut label=... force_time_s=T ... checksum=C", T the force phases
 * summed over the steps on the slowest process, C a hash of the final positions' bits (the
 * same for every cache configuration at the same N, S, theta and process count), followed
 * by acc_checksum=, the same of the last accelerations.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#include <armci.h>
#include "../perf/bench.h"
#ifndef BENCH_ARMCI_MPI
#include <armcix.h>
#endif

#define LEAF_MAX  8  /* bodies in a leaf */
#define MAX_DEPTH 40 /* deeper boxes become leaves whatever their count */
#define GROUP     8  /* the children of a cell: one group of consecutive cells */
#define SOFT2     1e-4
#define DT        0.005

typedef struct {
    double com[3]; /* centre of mass (a one-body leaf: the body's position exactly) */
    double mass;   /* 0: an empty child */
    double size;   /* side of the cell's cube */
    int32_t child; /* first cell of the children's group; -1 for a leaf */
    int32_t first; /* a leaf's bodies: [first, first + count) of the body array */
    int32_t count;
    int32_t pad;
} cell_t;

typedef struct {
    double x[3];
    double m;
} body_t;

typedef struct {
    int me, np;
    long cap_cells, cap_bodies; /* capacity of each process's block */
    void **cells, **bodies;     /* ARMCI_Malloc bases, one per process */
    int cached;                 /* the allocations use the cache */
    int nb;                     /* walk others' trees with gets issued ahead (walk_nb) */
    long remote_gets;
} tree_set_t;

/* ---- bodies ------------------------------------------------------------------------- */

static void random_direction(uint64_t *s, double r, double out[3])
{
    double z = 2.0 * bench_rng_unit(s) - 1.0, phi = 2.0 * M_PI * bench_rng_unit(s);
    double rho = sqrt(1.0 - z * z);
    out[0] = r * rho * cos(phi);
    out[1] = r * rho * sin(phi);
    out[2] = r * z;
}

/* A Plummer sphere of total mass 1 and scale radius 1 (G = 1), radii below 8: positions
 * by inverting the cumulative mass, speeds by rejection from the distribution function. */
static void plummer(long n, uint64_t seed, double (*x)[3], double (*v)[3])
{
    for (long i = 0; i < n; i++) {
        double r;
        do {
            double u = bench_rng_unit(&seed);
            r = u > 0 ? 1.0 / sqrt(pow(u, -2.0 / 3.0) - 1.0) : 0.0;
        } while (r >= 8.0);
        random_direction(&seed, r, x[i]);
        double q, g;
        do {
            q = bench_rng_unit(&seed);
            g = 0.1 * bench_rng_unit(&seed);
        } while (g > q * q * pow(1.0 - q * q, 3.5));
        random_direction(&seed, q * M_SQRT2 * pow(1.0 + r * r, -0.25), v[i]);
    }
}

static uint64_t spread3(uint64_t v) /* 21 bits to every third of 63 */
{
    v &= 0x1fffff;
    v = (v | v << 32) & 0x1f00000000ffffull;
    v = (v | v << 16) & 0x1f0000ff0000ffull;
    v = (v | v << 8) & 0x100f00f00f00f00full;
    v = (v | v << 4) & 0x10c30c30c30c30c3ull;
    v = (v | v << 2) & 0x1249249249249249ull;
    return v;
}

typedef struct {
    uint64_t key;
    long id;
} keyed_t;

static int cmp_keyed(const void *a, const void *b)
{
    const keyed_t *p = a, *q = b;
    if (p->key != q->key)
        return p->key < q->key ? -1 : 1;
    return p->id < q->id ? -1 : p->id > q->id;
}

/* The box around n >= 1 positions. */
static void bounds(long n, const double (*x)[3], double lo[3], double hi[3])
{
    for (int d = 0; d < 3; d++)
        lo[d] = hi[d] = x[0][d];
    for (long i = 1; i < n; i++)
        for (int d = 0; d < 3; d++) {
            lo[d] = fmin(lo[d], x[i][d]);
            hi[d] = fmax(hi[d], x[i][d]);
        }
}

/* ids of all n bodies in Morton order of their positions */
static void morton_order(long n, double (*x)[3], long *order)
{
    double lo[3], hi[3];
    bounds(n, (const double(*)[3])x, lo, hi);
    keyed_t *k = malloc((size_t)n * sizeof(*k));
    for (long i = 0; i < n; i++) {
        uint64_t key = 0;
        for (int d = 0; d < 3; d++) {
            double f = hi[d] > lo[d] ? (x[i][d] - lo[d]) / (hi[d] - lo[d]) : 0.0;
            key |= spread3((uint64_t)(f * 2097151.0)) << d;
        }
        k[i].key = key;
        k[i].id = i;
    }
    qsort(k, (size_t)n, sizeof(*k), cmp_keyed);
    for (long i = 0; i < n; i++)
        order[i] = k[i].id;
    free(k);
}

/* ---- the octree of one process's bodies ----------------------------------------------- */

typedef struct {
    cell_t *cells;
    long ncells, cap;
    long *perm, *tmp; /* body indices, partitioned in place into tree order */
    const double (*x)[3];
    const double *m;
} builder_t;

static long new_cells(builder_t *b, long k)
{
    if (b->ncells + k > b->cap) {
        b->cap = 2 * (b->ncells + k);
        b->cells = realloc(b->cells, (size_t)b->cap * sizeof(cell_t));
    }
    long at = b->ncells;
    memset(b->cells + at, 0, (size_t)k * sizeof(cell_t));
    b->ncells += k;
    return at;
}

/* Cell c holds bodies perm[lo, hi) inside the cube of side 2*half around ctr. */
static void build(builder_t *b, long c, const double ctr[3], double half, long lo, long hi,
                  int depth)
{
    long n = hi - lo;
    b->cells[c].size = 2.0 * half;
    b->cells[c].child = -1;
    if (n <= LEAF_MAX || depth == MAX_DEPTH) {
        double mass = 0, s[3] = {0, 0, 0};
        for (long k = lo; k < hi; k++) {
            long i = b->perm[k];
            mass += b->m[i];
            for (int d = 0; d < 3; d++)
                s[d] += b->m[i] * b->x[i][d];
        }
        cell_t *cl = &b->cells[c];
        cl->mass = mass;
        cl->first = (int32_t)lo;
        cl->count = (int32_t)n;
        for (int d = 0; d < 3; d++)
            cl->com[d] = n == 1 ? b->x[b->perm[lo]][d] : (mass > 0 ? s[d] / mass : ctr[d]);
        return;
    }
    /* partition perm[lo, hi) by octant, stably */
    long count[GROUP] = {0}, start[GROUP + 1];
    for (long k = lo; k < hi; k++) {
        const double *p = b->x[b->perm[k]];
        count[(p[0] >= ctr[0]) | (p[1] >= ctr[1]) << 1 | (p[2] >= ctr[2]) << 2]++;
    }
    start[0] = lo;
    for (int o = 0; o < GROUP; o++)
        start[o + 1] = start[o] + count[o];
    long fill[GROUP];
    memcpy(fill, start, sizeof(fill));
    for (long k = lo; k < hi; k++) {
        const double *p = b->x[b->perm[k]];
        b->tmp[fill[(p[0] >= ctr[0]) | (p[1] >= ctr[1]) << 1 | (p[2] >= ctr[2]) << 2]++] =
            b->perm[k];
    }
    memcpy(b->perm + lo, b->tmp + lo, (size_t)n * sizeof(long));

    long g = new_cells(b, GROUP); /* may move b->cells: index only from here */
    b->cells[c].child = (int32_t)g;
    for (int o = 0; o < GROUP; o++) {
        double cc[3];
        for (int d = 0; d < 3; d++)
            cc[d] = ctr[d] + ((o >> d & 1) ? 0.5 : -0.5) * half;
        if (count[o] == 0) {
            b->cells[g + o].child = -1;
            b->cells[g + o].size = half;
            continue;
        }
        build(b, g + o, cc, 0.5 * half, start[o], start[o + 1], depth + 1);
    }
    double mass = 0, s[3] = {0, 0, 0};
    for (int o = 0; o < GROUP; o++) {
        const cell_t *ch = &b->cells[g + o];
        mass += ch->mass;
        for (int d = 0; d < 3; d++)
            s[d] += ch->mass * ch->com[d];
    }
    b->cells[c].mass = mass;
    for (int d = 0; d < 3; d++)
        b->cells[c].com[d] = s[d] / mass;
}

/* Build the tree of n bodies; b->perm ends in tree order. */
static void build_tree(builder_t *b, long n, const double (*x)[3], const double *m)
{
    b->x = x;
    b->m = m;
    b->ncells = 0;
    for (long i = 0; i < n; i++)
        b->perm[i] = i;
    long root = new_cells(b, 1);
    if (n == 0) {
        b->cells[root].child = -1;
        return;
    }
    double lo[3], hi[3];
    bounds(n, x, lo, hi);
    double ctr[3], half = 0;
    for (int d = 0; d < 3; d++) {
        ctr[d] = 0.5 * (lo[d] + hi[d]);
        half = fmax(half, 0.5 * (hi[d] - lo[d]));
    }
    build(b, root, ctr, half * (1.0 + 1e-9) + 1e-12, 0, n, 0);
}

/* ---- publishing and walking ------------------------------------------------------------ */

static void set_cache_mode(tree_set_t *t)
{
#ifndef BENCH_ARMCI_MPI
    if (!t->cached)
        return;
    ARMCIX_Cache_set_mode(t->cells[t->me], ARMCIX_CACHE_USER);
    ARMCIX_Cache_set_mode(t->bodies[t->me], ARMCIX_CACHE_USER);
#else
    (void)t;
#endif
}

/* Collective: make every block hold at least ncells cells and nbodies bodies. */
static void ensure_capacity(tree_set_t *t, long ncells, long nbodies)
{
    long need[2] = {ncells, nbodies}, all[2];
    MPI_Allreduce(need, all, 2, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    if (all[0] <= t->cap_cells && all[1] <= t->cap_bodies)
        return;
    if (t->cap_cells > 0) {
        ARMCI_Free(t->cells[t->me]);
        ARMCI_Free(t->bodies[t->me]);
    }
    t->cap_cells = all[0] + all[0] / 4 + GROUP;
    t->cap_bodies = all[1] > 0 ? all[1] : 1;
    ARMCI_Malloc(t->cells, (armci_size_t)(t->cap_cells * (long)sizeof(cell_t)));
    ARMCI_Malloc(t->bodies, (armci_size_t)(t->cap_bodies * (long)sizeof(body_t)));
    set_cache_mode(t);
}

static void fetch(tree_set_t *t, int p, const void *src, void *dst, long bytes)
{
    if (p == t->me) {
        memcpy(dst, src, (size_t)bytes);
        return;
    }
    t->remote_gets++;
    ARMCI_Get((void *)src, dst, (int)bytes, p);
}

static inline void interact(const double x[3], const double y[3], double m, double a[3])
{
    double dx = y[0] - x[0], dy = y[1] - x[1], dz = y[2] - x[2];
    double r2 = dx * dx + dy * dy + dz * dz + SOFT2;
    double inv = 1.0 / sqrt(r2);
    double f = m * inv * inv * inv;
    a[0] += f * dx;
    a[1] += f * dy;
    a[2] += f * dz;
}

/* Add to a[] the acceleration at x from process p's tree. */
static void walk(tree_set_t *t, int p, const double x[3], double theta, double a[3])
{
    const cell_t *cells = t->cells[p];
    const body_t *bodies = t->bodies[p];
    cell_t stack[GROUP * MAX_DEPTH + 1];
    body_t leaf[LEAF_MAX];
    int top = 0;
    fetch(t, p, cells, &stack[top++], (long)sizeof(cell_t));
    double theta2 = theta * theta;
    while (top > 0) {
        cell_t c = stack[--top];
        if (c.mass == 0)
            continue;
        double dx = c.com[0] - x[0], dy = c.com[1] - x[1], dz = c.com[2] - x[2];
        double d2 = dx * dx + dy * dy + dz * dz;
        if (c.size * c.size < theta2 * d2 || (c.child < 0 && c.count == 1)) {
            interact(x, c.com, c.mass, a);
        } else if (c.child < 0) { /* a leaf at MAX_DEPTH may hold more than LEAF_MAX */
            for (int k0 = 0; k0 < c.count; k0 += LEAF_MAX) {
                int k1 = c.count - k0 < LEAF_MAX ? c.count - k0 : LEAF_MAX;
                fetch(t, p, bodies + c.first + k0, leaf, (long)k1 * (long)sizeof(body_t));
                for (int k = 0; k < k1; k++)
                    interact(x, leaf[k].x, leaf[k].m, a);
            }
        } else {
            /* pushed in reverse, so that the children are visited in octant order */
            cell_t group[GROUP];
            fetch(t, p, cells + c.child, group, (long)sizeof(group));
            for (int o = GROUP - 1; o >= 0; o--)
                if (group[o].mass != 0)
                    stack[top++] = group[o];
        }
    }
}

/* The walk of another process's tree with its gets issued ahead (--nb): when a group of
 * children arrives, every child that will be opened starts the get of its own children
 * (or of its bodies) at once, in octant order, and the walk waits for it only when it
 * reaches that child. The cells and interactions come in the order of walk(), so the
 * sums are the same to the bit. */
typedef struct {
    cell_t c;
    int pending; /* 0: nothing fetched; 1: group; 2: bodies */
    armci_hdl_t h;
    union {
        cell_t group[GROUP];
        body_t leaf[LEAF_MAX];
    } buf;
} nb_entry_t;

static int opened(const cell_t *c, const double x[3], double theta2)
{
    double dx = c->com[0] - x[0], dy = c->com[1] - x[1], dz = c->com[2] - x[2];
    double d2 = dx * dx + dy * dy + dz * dz;
    return !(c->size * c->size < theta2 * d2 || (c->child < 0 && c->count == 1));
}

/* Start what entry e will need once the walk reaches it. */
static void prefetch(tree_set_t *t, int p, nb_entry_t *e, const double x[3], double theta2)
{
    e->pending = 0;
    if (e->c.mass == 0 || !opened(&e->c, x, theta2))
        return;
    const cell_t *cells = t->cells[p];
    const body_t *bodies = t->bodies[p];
    if (e->c.child >= 0) {
        ARMCI_INIT_HANDLE(&e->h);
        ARMCI_NbGet((void *)(cells + e->c.child), e->buf.group, (int)sizeof(e->buf.group), p,
                    &e->h);
        e->pending = 1;
    } else if (e->c.count <= LEAF_MAX) { /* larger leaves: fetched in pieces on arrival */
        ARMCI_INIT_HANDLE(&e->h);
        ARMCI_NbGet((void *)(bodies + e->c.first), e->buf.leaf, e->c.count * (int)sizeof(body_t), p,
                    &e->h);
        e->pending = 2;
    } else {
        return;
    }
    t->remote_gets++;
}

static void walk_nb(tree_set_t *t, int p, const double x[3], double theta, double a[3])
{
    static nb_entry_t *stack;
    if (!stack && !(stack = malloc((GROUP * MAX_DEPTH + 1) * sizeof(*stack)))) {
        fprintf(stderr, "barnes_hut: out of memory\n");
        ARMCI_Error("barnes_hut: out of memory", 1);
    }
    const body_t *bodies = t->bodies[p];
    double theta2 = theta * theta;
    int top = 0;
    fetch(t, p, t->cells[p], &stack[0].c, (long)sizeof(cell_t));
    prefetch(t, p, &stack[top++], x, theta2);
    while (top > 0) {
        nb_entry_t *e = &stack[--top];
        if (e->c.mass == 0)
            continue;
        if (e->pending)
            ARMCI_Wait(&e->h);
        if (!opened(&e->c, x, theta2)) {
            interact(x, e->c.com, e->c.mass, a);
        } else if (e->c.child < 0) {
            if (e->pending == 2) {
                for (int k = 0; k < e->c.count; k++)
                    interact(x, e->buf.leaf[k].x, e->buf.leaf[k].m, a);
                continue;
            }
            body_t leaf[LEAF_MAX];
            for (int k0 = 0; k0 < e->c.count; k0 += LEAF_MAX) {
                int k1 = e->c.count - k0 < LEAF_MAX ? e->c.count - k0 : LEAF_MAX;
                fetch(t, p, bodies + e->c.first + k0, leaf, (long)k1 * (long)sizeof(body_t));
                for (int k = 0; k < k1; k++)
                    interact(x, leaf[k].x, leaf[k].m, a);
            }
        } else {
            /* e's slot is reused by its children: copy the group out first. Child o lands
             * below the children after it, so that octant 0 is visited first, as in walk(). */
            cell_t group[GROUP];
            memcpy(group, e->buf.group, sizeof(group));
            int k = 0;
            for (int o = 0; o < GROUP; o++)
                k += group[o].mass != 0;
            int slot = top + k - 1;
            for (int o = 0; o < GROUP; o++) {
                if (group[o].mass == 0)
                    continue;
                stack[slot].c = group[o];
                prefetch(t, p, &stack[slot--], x, theta2);
            }
            top += k;
        }
    }
}

/* ---- the run --------------------------------------------------------------------------- */

typedef struct {
    long bodies;
    int steps;
    double theta;
    const char *cache;
    double check_tol; /* < 0: no check */
    uint64_t seed;
    const char *label;
    int nb; /* walk other processes' trees with ARMCI_NbGet issued ahead */
} options_t;

static void usage(const char *why, int me)
{
    if (me == 0)
        fprintf(stderr,
                "barnes_hut: %s\n"
                "usage: barnes_hut [--bodies N] [--steps S] [--theta T]"
                " [--cache off|adaptive|ENTRIES:BYTES] [--gets blocking|nb] [--check TOL]"
                " [--seed X] [--label L]\n",
                why);
    MPI_Finalize();
    exit(2);
}

static options_t parse(int argc, char **argv, int me)
{
    options_t o = {4000, 3, 0.5, "off", -1.0, 20261124, NULL, 0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (i + 1 >= argc)
            usage("an option without its value", me);
        const char *v = argv[++i];
        char *end;
        if (strcmp(a, "--bodies") == 0) {
            o.bodies = strtol(v, &end, 10);
            if (*end || o.bodies < 1)
                usage("--bodies takes a positive count", me);
        } else if (strcmp(a, "--steps") == 0) {
            o.steps = (int)strtol(v, &end, 10);
            if (*end || o.steps < 1)
                usage("--steps takes a positive count", me);
        } else if (strcmp(a, "--theta") == 0) {
            o.theta = strtod(v, &end);
            if (*end || o.theta < 0 || o.theta > 2)
                usage("--theta takes a number from 0 to 2", me);
        } else if (strcmp(a, "--check") == 0) {
            o.check_tol = strtod(v, &end);
            if (*end || o.check_tol <= 0)
                usage("--check takes a positive tolerance", me);
        } else if (strcmp(a, "--seed") == 0) {
            o.seed = strtoull(v, &end, 10);
            if (*end)
                usage("--seed takes an integer", me);
        } else if (strcmp(a, "--cache") == 0) {
            o.cache = v;
        } else if (strcmp(a, "--label") == 0) {
            o.label = v;
        } else if (strcmp(a, "--gets") == 0) {
            if (strcmp(v, "nb") != 0 && strcmp(v, "blocking") != 0)
                usage("--gets takes blocking or nb", me);
            o.nb = strcmp(v, "nb") == 0;
        } else {
            usage("unknown option", me);
        }
    }
    if (!o.label)
        o.label = o.cache;
    return o;
}

/* Turn --cache into the runtime's settings; before ARMCI_Init, which reads them. */
static int configure_cache(const char *spec, int me)
{
    if (strcmp(spec, "off") == 0)
        return 0;
#ifdef BENCH_ARMCI_MPI
    usage("this build (on ARMCI-MPI) has no get cache: --cache off only", me);
#endif
    if (strcmp(spec, "adaptive") == 0) {
        setenv("ARMCI_CACHE_ADAPTIVE", "1", 1);
        setenv("ARMCI_CACHE_ENTRIES", "256", 0);
        setenv("ARMCI_CACHE_BYTES", "64K", 0);
        return 1;
    }
    const char *colon = strchr(spec, ':');
    if (!colon || colon == spec || !colon[1])
        usage("--cache takes off, adaptive or ENTRIES:BYTES", me);
    char entries[32];
    size_t len = (size_t)(colon - spec);
    if (len >= sizeof(entries))
        usage("--cache ENTRIES is too long", me);
    memcpy(entries, spec, len);
    entries[len] = 0;
    setenv("ARMCI_CACHE_ADAPTIVE", "0", 1);
    setenv("ARMCI_CACHE_ENTRIES", entries, 1);
    setenv("ARMCI_CACHE_BYTES", colon + 1, 1);
    return 1;
}

/* Accelerations of my bodies at x from all trees; returns the seconds it took. */
static double forces(tree_set_t *t, long nmine, const double (*x)[3], double theta,
                     double (*acc)[3])
{
    double t0 = MPI_Wtime();
    for (long i = 0; i < nmine; i++) {
        acc[i][0] = acc[i][1] = acc[i][2] = 0;
        for (int p = 0; p < t->np; p++) {
            if (t->nb && p != t->me)
                walk_nb(t, p, x[i], theta, acc[i]);
            else
                walk(t, p, x[i], theta, acc[i]);
        }
    }
    return MPI_Wtime() - t0;
}

/* Tree of my bodies into my blocks; others' trees are then readable after a barrier. */
static void publish(tree_set_t *t, builder_t *b, long nmine, const double (*x)[3], const double *m)
{
    build_tree(b, nmine, x, m);
    ensure_capacity(t, b->ncells, nmine);
    memcpy(t->cells[t->me], b->cells, (size_t)b->ncells * sizeof(cell_t));
    body_t *out = t->bodies[t->me];
    for (long k = 0; k < nmine; k++) {
        long i = b->perm[k];
        memcpy(out[k].x, x[i], sizeof(out[k].x));
        out[k].m = m[i];
    }
#ifndef BENCH_ARMCI_MPI
    if (t->cached) { /* what I hold of the old trees is stale */
        ARMCIX_Cache_invalidate(t->cells[t->me]);
        ARMCIX_Cache_invalidate(t->bodies[t->me]);
    }
#endif
    ARMCI_Barrier();
}

/* RMS and largest relative error of my accelerations against the direct sum over all n. */
static void direct_check(long n, const double (*xall)[3], double mass, long lo, long nmine,
                         const double (*acc)[3], double *sq_sum, double *worst)
{
    *sq_sum = 0;
    *worst = 0;
    for (long i = 0; i < nmine; i++) {
        double a[3] = {0, 0, 0};
        for (long j = 0; j < n; j++)
            interact(xall[lo + i], xall[j], mass, a);
        double e2 = 0, a2 = 0;
        for (int d = 0; d < 3; d++) {
            e2 += (acc[i][d] - a[d]) * (acc[i][d] - a[d]);
            a2 += a[d] * a[d];
        }
        double rel2 = a2 > 0 ? e2 / a2 : e2;
        *sq_sum += rel2;
        *worst = fmax(*worst, sqrt(rel2));
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    options_t o = parse(argc, argv, me);
    int cached = configure_cache(o.cache, me);
    ARMCI_Init();

    /* every process draws all bodies, then keeps its run of them in Morton order */
    long n = o.bodies;
    double(*xall)[3] = malloc((size_t)n * sizeof(*xall));
    double(*vall)[3] = malloc((size_t)n * sizeof(*vall));
    long *order = malloc((size_t)n * sizeof(long));
    plummer(n, o.seed, xall, vall);
    morton_order(n, xall, order);
    long per = n / np, extra = n % np;
    long lo = me * per + (me < extra ? me : extra);
    long nmine = per + (me < extra);
    double(*x)[3] = malloc((size_t)(nmine ? nmine : 1) * sizeof(*x));
    double(*v)[3] = malloc((size_t)(nmine ? nmine : 1) * sizeof(*v));
    double(*acc)[3] = malloc((size_t)(nmine ? nmine : 1) * sizeof(*acc));
    double *m = malloc((size_t)(nmine ? nmine : 1) * sizeof(double));
    long *ids = malloc((size_t)(nmine ? nmine : 1) * sizeof(long));
    double(*xsorted)[3] = malloc((size_t)n * sizeof(*xsorted));
    for (long k = 0; k < n; k++)
        memcpy(xsorted[k], xall[order[k]], sizeof(xsorted[k]));
    for (long i = 0; i < nmine; i++) {
        ids[i] = order[lo + i];
        memcpy(x[i], xall[ids[i]], sizeof(x[i]));
        memcpy(v[i], vall[ids[i]], sizeof(v[i]));
        m[i] = 1.0 / (double)n;
    }

    tree_set_t t = {me, np, 0, 0, NULL, NULL, cached, o.nb, 0};
    t.cells = malloc((size_t)np * sizeof(void *));
    t.bodies = malloc((size_t)np * sizeof(void *));
    builder_t b = {0};
    b.perm = malloc((size_t)(nmine ? nmine : 1) * sizeof(long));
    b.tmp = malloc((size_t)(nmine ? nmine : 1) * sizeof(long));

    publish(&t, &b, nmine, (const double(*)[3])x, m);
#ifndef BENCH_ARMCI_MPI
    ARMCIX_Cache_reset_stats();
#endif
    double force_time = forces(&t, nmine, (const double(*)[3])x, o.theta, acc);
    int failed = 0;
    if (o.check_tol > 0) {
        double sq, worst, sq_all, worst_all;
        direct_check(n, (const double(*)[3])xsorted, 1.0 / (double)n, lo, nmine,
                     (const double(*)[3])acc, &sq, &worst);
        MPI_Allreduce(&sq, &sq_all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(&worst, &worst_all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        double rms = sqrt(sq_all / (double)n);
        failed = !(rms <= o.check_tol);
        if (me == 0)
            printf("barnes_hut check theta=%g rms_rel_err=%.3e max_rel_err=%.3e tol=%g %s\n",
                   o.theta, rms, worst_all, o.check_tol, failed ? "FAILED" : "ok");
    }
    for (int s = 0; s < o.steps; s++) {
        for (long i = 0; i < nmine; i++)
            for (int d = 0; d < 3; d++) {
                v[i][d] += 0.5 * DT * acc[i][d];
                x[i][d] += DT * v[i][d];
            }
        ARMCI_Barrier(); /* nobody reads the old trees any more */
        publish(&t, &b, nmine, (const double(*)[3])x, m);
        force_time += forces(&t, nmine, (const double(*)[3])x, o.theta, acc);
        for (long i = 0; i < nmine; i++)
            for (int d = 0; d < 3; d++)
                v[i][d] += 0.5 * DT * acc[i][d];
    }

    ARMCI_Barrier(); /* others may still read my tree: no MPI-only call before this */
    double tmax;
    MPI_Allreduce(&force_time, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    /* Positions move by dt^2 times the force: a last-bit change of a force is lost in
     * them. The last accelerations are hashed too, so that such a change shows. */
    uint64_t h[2] = {0, 0}, hall[2];
    for (long i = 0; i < nmine; i++)
        for (int d = 0; d < 3; d++) {
            h[0] ^= bench_hash_term(x[i][d], (uint64_t)(3 * ids[i] + d));
            h[1] ^= bench_hash_term(acc[i][d], (uint64_t)(3 * ids[i] + d));
        }
    MPI_Allreduce(h, hall, 2, MPI_UINT64_T, MPI_BXOR, MPI_COMM_WORLD);

    long c[9] = {0};
#ifndef BENCH_ARMCI_MPI
    armcix_cache_stats_t st;
    ARMCIX_Cache_get_stats(&st);
    c[0] = st.hits;
    c[1] = st.misses;
    c[2] = st.conflict_evictions;
    c[3] = st.capacity_evictions;
    c[4] = st.index_resizes;
    c[5] = st.buffer_resizes;
    c[7] = st.buffer_bytes;
    c[8] = st.index_slots;
#endif
    c[6] = t.remote_gets;
    long sum[9], max[9];
    MPI_Allreduce(c, sum, 9, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(c, max, 9, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    if (me == 0) {
        long cached_gets = sum[0] + sum[1];
        printf("barnes_hut label=%s bodies=%ld steps=%d procs=%d theta=%g force_time_s=%.4f "
               "gets=%ld hits=%ld misses=%ld hit_pct=%.1f conflict=%ld capacity=%ld "
               "index_resizes=%ld buffer_resizes=%ld buffer_bytes=%ld index_slots=%ld "
               "checksum=%016llx acc_checksum=%016llx\n",
               o.label, n, o.steps, np, o.theta, tmax, sum[6], sum[0], sum[1],
               cached_gets ? 100.0 * (double)sum[0] / (double)cached_gets : 0.0, sum[2], sum[3],
               max[4], max[5], max[7], max[8], (unsigned long long)hall[0],
               (unsigned long long)hall[1]);
    }

    ARMCI_Barrier();
    ARMCI_Free(t.cells[me]);
    ARMCI_Free(t.bodies[me]);
    free(t.cells);
    free(t.bodies);
    free(b.cells);
    free(b.perm);
    free(b.tmp);
    free(xall);
    free(vall);
    free(xsorted);
    free(order);
    free(x);
    free(v);
    free(acc);
    free(m);
    free(ids);
    ARMCI_Finalize();
    MPI_Finalize();
    return failed;
}
