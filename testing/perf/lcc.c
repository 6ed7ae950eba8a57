/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Local clustering coefficient (LCC) over a distributed graph: the application the get
 * cache is for. The graph is R-MAT (Graph500 parameters A=0.57, B=0.19, C=0.19, D=0.05,
 * vertex labels permuted), made undirected without loops or duplicate edges, stored as CSR
 * in ARMCI memory by blocks of vertices. For each of its vertices v a process fetches, for
 * every neighbour u, u's row offsets and u's adjacency list with ARMCI_Get (from u's owner;
 * its own rows it reads directly) and counts |N(v) & N(u)|; then
 * lcc(v) = sum_u |N(v) & N(u)| / (d(v) (d(v) - 1)).
 *
 * High-degree vertices are everybody's neighbours, so the same lists are fetched again and
 * again; the graph does not change, so the allocations use the cache's always mode.
 * The cache configuration comes from the environment (ARMCI_CACHE_*), one per run; see
 * run-lcc.sh. Every process also builds the whole graph (it is generated, not read) to
 * check each fetched list; the result line carries a checksum of all LCC values that must
 * be identical in every run.
 *
 *   lcc [scale] [edge_factor] [label]      (default 12 16 run)
 * prints: LCC label scale ef time_s hits misses hit_pct conflict capacity resizes_index
 *         resizes_buffer buffer_bytes checksum
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <armci.h>
#include "bench.h"
#ifndef BENCH_ARMCI_MPI
#include <armcix.h>
#endif

typedef struct {
    long n;       /* vertices */
    long *off;    /* n + 1 */
    int32_t *adj; /* off[n] */
} graph_t;

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return x < y ? -1 : x > y;
}

/* The same graph on every process: R-MAT edges, permuted labels, symmetric, sorted rows. */
static void make_graph(int scale, int ef, graph_t *g)
{
    long n = 1L << scale, m = (long)ef * n;
    uint64_t seed = 20261122;
    int32_t *perm = malloc((size_t)n * sizeof(*perm));
    for (long i = 0; i < n; i++)
        perm[i] = (int32_t)i;
    for (long i = n - 1; i > 0; i--) {
        long j = (long)(bench_rng_next(&seed) % (uint64_t)(i + 1));
        int32_t t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    int32_t *src = malloc((size_t)m * sizeof(int32_t)), *dst = malloc((size_t)m * sizeof(int32_t));
    for (long e = 0; e < m; e++) {
        long u = 0, v = 0;
        for (int b = 0; b < scale; b++) {
            double r = bench_rng_unit(&seed);
            int right = r >= 0.57 && (r < 0.76 || r >= 0.95); /* B or D */
            int down = r >= 0.76;                             /* C or D */
            u = (u << 1) | down;
            v = (v << 1) | right;
        }
        src[e] = perm[u];
        dst[e] = perm[v];
    }
    long *deg = calloc((size_t)n + 1, sizeof(long));
    for (long e = 0; e < m; e++)
        if (src[e] != dst[e]) {
            deg[src[e]]++;
            deg[dst[e]]++;
        }
    g->n = n;
    g->off = malloc(((size_t)n + 1) * sizeof(long));
    g->off[0] = 0;
    for (long i = 0; i < n; i++)
        g->off[i + 1] = g->off[i] + deg[i];
    int32_t *tmp = malloc((size_t)g->off[n] * sizeof(int32_t));
    long *fill = calloc((size_t)n, sizeof(long));
    for (long e = 0; e < m; e++)
        if (src[e] != dst[e]) {
            tmp[g->off[src[e]] + fill[src[e]]++] = dst[e];
            tmp[g->off[dst[e]] + fill[dst[e]]++] = src[e];
        }
    /* sort each row and drop duplicates */
    long w = 0;
    long *noff = malloc(((size_t)n + 1) * sizeof(long));
    noff[0] = 0;
    for (long i = 0; i < n; i++) {
        int32_t *row = tmp + g->off[i];
        long d = g->off[i + 1] - g->off[i];
        qsort(row, (size_t)d, sizeof(int32_t), cmp_i32);
        for (long k = 0; k < d; k++)
            if (k == 0 || row[k] != row[k - 1])
                tmp[w++] = row[k];
        noff[i + 1] = w;
    }
    free(g->off);
    g->off = noff;
    g->adj = realloc(tmp, (size_t)(w ? w : 1) * sizeof(int32_t));
    free(perm);
    free(src);
    free(dst);
    free(deg);
    free(fill);
}

static long common(const int32_t *a, long na, const int32_t *b, long nb)
{
    long i = 0, j = 0, c = 0;
    while (i < na && j < nb) {
        if (a[i] < b[j])
            i++;
        else if (a[i] > b[j])
            j++;
        else {
            c++;
            i++;
            j++;
        }
    }
    return c;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int scale = argc > 1 ? atoi(argv[1]) : 12, ef = argc > 2 ? atoi(argv[2]) : 16;
    const char *label = argc > 3 ? argv[3] : "run";

    graph_t g;
    make_graph(scale, ef, &g);
    long per = (g.n + np - 1) / np;
    long lo = per * me, hi = lo + per < g.n ? lo + per : g.n;

    /* My block in ARMCI memory: row offsets relative to my first edge, and my edges. */
    void **offs = malloc((size_t)np * sizeof(void *)), **adjs = malloc((size_t)np * sizeof(void *));
    long nmine = hi > lo ? hi - lo : 0;
    ARMCI_Malloc(offs, (armci_size_t)((nmine + 1) * (long)sizeof(long)));
    long first = g.off[lo < g.n ? lo : g.n];
    long nedges = g.off[hi] - first;
    ARMCI_Malloc(adjs, (armci_size_t)(nedges * (long)sizeof(int32_t)));
    long *my_off = offs[me];
    for (long i = 0; i <= nmine; i++)
        my_off[i] = g.off[lo + i] - first;
    if (nedges > 0)
        memcpy(adjs[me], g.adj + first, (size_t)nedges * sizeof(int32_t));
#ifndef BENCH_ARMCI_MPI
    ARMCIX_Cache_set_mode(offs[me], ARMCIX_CACHE_ALWAYS); /* the graph is read-only */
    ARMCIX_Cache_set_mode(adjs[me], ARMCIX_CACHE_ALWAYS);
    if (getenv("LCC_CACHE_OFF"))
        ARMCIX_Cache_set_mode(NULL, ARMCIX_CACHE_OFF);
    ARMCIX_Cache_reset_stats();
#endif
    ARMCI_Barrier();

    long maxdeg = 0;
    for (long i = 0; i < g.n; i++)
        if (g.off[i + 1] - g.off[i] > maxdeg)
            maxdeg = g.off[i + 1] - g.off[i];
    int32_t *row = malloc((size_t)(maxdeg ? maxdeg : 1) * sizeof(int32_t));
    double *lcc = malloc((size_t)(nmine ? nmine : 1) * sizeof(double));
    long bad = 0;

    double t0 = MPI_Wtime();
    for (long v = lo; v < hi; v++) {
        const int32_t *nv = g.adj + g.off[v];
        long dv = g.off[v + 1] - g.off[v];
        long sum = 0;
        for (long k = 0; k < dv; k++) {
            long u = nv[k];
            int q = (int)(u / per);
            const int32_t *nu;
            long du;
            if (q == me) {
                nu = (const int32_t *)adjs[me] + my_off[u - lo];
                du = my_off[u - lo + 1] - my_off[u - lo];
            } else {
                long ou[2];
                ARMCI_Get((long *)offs[q] + (u - per * q), ou, 2 * (int)sizeof(long), q);
                du = ou[1] - ou[0];
                if (du > 0)
                    ARMCI_Get((int32_t *)adjs[q] + ou[0], row, (int)(du * (long)sizeof(int32_t)),
                              q);
                nu = row;
                if (du != g.off[u + 1] - g.off[u] ||
                    memcmp(row, g.adj + g.off[u], (size_t)du * sizeof(int32_t)) != 0)
                    bad++;
            }
            sum += common(nv, dv, nu, du);
        }
        lcc[v - lo] = dv > 1 ? (double)sum / ((double)dv * (double)(dv - 1)) : 0.0;
    }
    double t = MPI_Wtime() - t0, tmax;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

    /* checksum: the sum of the values and a hash of their bits, over all processes */
    double s = 0;
    uint64_t h = 0;
    for (long i = 0; i < nmine; i++) {
        s += lcc[i];
        h ^= bench_hash_term(lcc[i], (uint64_t)(lo + i));
    }
    double ssum;
    uint64_t hall;
    long badall;
    MPI_Allreduce(&s, &ssum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&h, &hall, 1, MPI_UINT64_T, MPI_BXOR, MPI_COMM_WORLD);
    MPI_Allreduce(&bad, &badall, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);

    long c[8] = {0}, call[8];
#ifndef BENCH_ARMCI_MPI
    armcix_cache_stats_t st;
    ARMCIX_Cache_get_stats(&st);
    c[0] = st.hits;
    c[1] = st.misses;
    c[2] = st.conflict_evictions;
    c[3] = st.capacity_evictions;
    c[4] = st.index_resizes;
    c[5] = st.buffer_resizes;
    c[6] = st.buffer_bytes;
    c[7] = st.index_slots;
#endif
    MPI_Allreduce(c, call, 8, MPI_LONG, MPI_MAX, MPI_COMM_WORLD); /* sizes: the largest */
    MPI_Allreduce(c, call, 6, MPI_LONG, MPI_SUM, MPI_COMM_WORLD); /* counts: the sum */
    if (me == 0) {
        long gets = call[0] + call[1];
        printf("LCC %s %d %d %.4f %ld %ld %.1f %ld %ld %ld %ld %ld %.12f/%016llx\n", label, scale,
               ef, tmax, call[0], call[1], gets ? 100.0 * (double)call[0] / (double)gets : 0.0,
               call[2], call[3], call[4], call[5], call[6], ssum, (unsigned long long)hall);
        if (badall)
            printf("LCC %s: %ld fetched adjacency lists differ from the graph\n", label, badall);
    }
    ARMCI_Barrier();
    ARMCI_Free(adjs[me]);
    ARMCI_Free(offs[me]);
    free(offs);
    free(adjs);
    free(row);
    free(lcc);
    free(g.off);
    free(g.adj);
    ARMCI_Finalize();
    MPI_Finalize();
    return badall ? 1 : 0;
}
