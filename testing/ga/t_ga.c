/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Global Arrays on armci-ofi: Debian's prebuilt GA library (compiled against ARMCI-MPI's
 * headers) linked against our libarmci. Every operation is checked against a local
 * replica that every process updates identically.
 *
 *   t_ga            run the checks
 *   t_ga --bench    also time put/get/acc of patches and a dgemm (for comparison runs)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ga.h>
#include <macdecls.h>
#include <mpi.h>

static int me, np, checks, failed;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        checks++;                                                                                  \
        if (!(cond)) {                                                                             \
            if (failed < 20) {                                                                     \
                fprintf(stderr, "rank %d: t_ga.c:%d: check failed: ", me, __LINE__);               \
                fprintf(stderr, __VA_ARGS__);                                                      \
                fprintf(stderr, "\n");                                                             \
            }                                                                                      \
            failed++;                                                                              \
        }                                                                                          \
    } while (0)

static unsigned long rnd(unsigned long *s)
{
    unsigned long x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

/* ---- typed element access: the replica holds real and imaginary parts as doubles ---- */

static size_t esize(int type)
{
    switch (type) {
    case C_INT:
        return sizeof(int);
    case C_LONG:
        return sizeof(long);
    case C_DBL:
        return sizeof(double);
    default:
        return sizeof(DoubleComplex);
    }
}

static void put_elem(int type, void *buf, size_t i, double re, double im)
{
    switch (type) {
    case C_INT:
        ((int *)buf)[i] = (int)re;
        break;
    case C_LONG:
        ((long *)buf)[i] = (long)re;
        break;
    case C_DBL:
        ((double *)buf)[i] = re;
        break;
    default:
        ((DoubleComplex *)buf)[i].real = re;
        ((DoubleComplex *)buf)[i].imag = im;
        break;
    }
}

static void get_elem(int type, const void *buf, size_t i, double *re, double *im)
{
    *im = 0;
    switch (type) {
    case C_INT:
        *re = ((const int *)buf)[i];
        break;
    case C_LONG:
        *re = (double)((const long *)buf)[i];
        break;
    case C_DBL:
        *re = ((const double *)buf)[i];
        break;
    default:
        *re = ((const DoubleComplex *)buf)[i].real;
        *im = ((const DoubleComplex *)buf)[i].imag;
    }
}

typedef struct {
    int ndim, dims[3];
    size_t n;
    double *re, *im; /* replica, row-major */
} model_t;

static size_t lin(const model_t *m, const int *idx)
{
    size_t k = 0;
    for (int d = 0; d < m->ndim; d++)
        k = k * (size_t)m->dims[d] + (size_t)idx[d];
    return k;
}

static void random_patch(unsigned long *s, const model_t *m, int *lo, int *hi, int *ld,
                         size_t *count)
{
    *count = 1;
    for (int d = 0; d < m->ndim; d++) {
        lo[d] = (int)(rnd(s) % (unsigned)m->dims[d]);
        hi[d] = lo[d] + (int)(rnd(s) % (unsigned)(m->dims[d] - lo[d]));
        *count *= (size_t)(hi[d] - lo[d] + 1);
        if (d > 0)
            ld[d - 1] = hi[d] - lo[d] + 1;
    }
}

/* Walk a patch in row-major order: the i-th element's global index. */
static void patch_index(const model_t *m, const int *lo, const int *hi, size_t i, int *idx)
{
    for (int d = m->ndim - 1; d >= 0; d--) {
        int ext = hi[d] - lo[d] + 1;
        idx[d] = lo[d] + (int)(i % (size_t)ext);
        i /= (size_t)ext;
    }
}

/* Puts by each process in turn, concurrent accumulates into one patch, then random gets. */
static void patch_test(int g, int type, model_t *m, const char *what, unsigned long seed)
{
    size_t es = esize(type);
    void *buf = malloc(m->n * es);
    int lo[3], hi[3], ld[2], idx[3];
    size_t cnt;
    GA_Zero(g);
    memset(m->re, 0, m->n * sizeof(double));
    memset(m->im, 0, m->n * sizeof(double));
    for (int q = 0; q < np; q++) {
        unsigned long s = seed * 31 + (unsigned long)q + 1;
        random_patch(&s, m, lo, hi, ld, &cnt);
        for (size_t i = 0; i < cnt; i++) {
            patch_index(m, lo, hi, i, idx);
            double v = q * 1000 + (double)(lin(m, idx) % 997) + 1;
            if (q == me)
                put_elem(type, buf, i, v, -v / 2);
            m->re[lin(m, idx)] = v;
            m->im[lin(m, idx)] = type == C_DCPL ? -v / 2 : 0;
        }
        if (q == me)
            NGA_Put(g, lo, hi, buf, ld);
        GA_Sync();
    }
    /* everybody accumulates 2 * (q + 1 + i%5) into one shared patch at once */
    unsigned long s = seed * 77 + 5;
    random_patch(&s, m, lo, hi, ld, &cnt);
    for (size_t i = 0; i < cnt; i++)
        put_elem(type, buf, i, me + 1 + (double)(i % 5), 1.0);
    if (type == C_INT) {
        int a = 2;
        NGA_Acc(g, lo, hi, buf, ld, &a);
    } else if (type == C_LONG) {
        long a = 2;
        NGA_Acc(g, lo, hi, buf, ld, &a);
    } else if (type == C_DBL) {
        double a = 2;
        NGA_Acc(g, lo, hi, buf, ld, &a);
    } else {
        DoubleComplex a = {2, 0};
        NGA_Acc(g, lo, hi, buf, ld, &a);
    }
    for (size_t i = 0; i < cnt; i++) {
        patch_index(m, lo, hi, i, idx);
        for (int q = 0; q < np; q++) {
            m->re[lin(m, idx)] += 2 * (q + 1 + (double)(i % 5));
            m->im[lin(m, idx)] += type == C_DCPL ? 2 : 0;
        }
    }
    GA_Sync();
    int bad = 0;
    unsigned long mine = seed * 13 + (unsigned long)me * 7 + 3;
    for (int k = 0; k < 6; k++) {
        random_patch(&mine, m, lo, hi, ld, &cnt);
        NGA_Get(g, lo, hi, buf, ld);
        for (size_t i = 0; i < cnt; i++) {
            double re, im;
            patch_index(m, lo, hi, i, idx);
            get_elem(type, buf, i, &re, &im);
            size_t l = lin(m, idx);
            bad += fabs(re - m->re[l]) > 1e-9 * (1 + fabs(m->re[l])) ||
                   fabs(im - m->im[l]) > 1e-9 * (1 + fabs(m->im[l]));
        }
    }
    CHECK(bad == 0, "%s: %d elements differ from the replica", what, bad);
    free(buf);
    GA_Sync();
}

static void model_init(model_t *m, int ndim, const int *dims)
{
    m->ndim = ndim;
    m->n = 1;
    for (int d = 0; d < ndim; d++) {
        m->dims[d] = dims[d];
        m->n *= (size_t)dims[d];
    }
    m->re = malloc(m->n * sizeof(double));
    m->im = malloc(m->n * sizeof(double));
}

static void model_free(model_t *m)
{
    free(m->re);
    free(m->im);
}

static double now(void)
{
    return MPI_Wtime();
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    GA_Initialize();
    MA_init(C_DBL, 2000000, 2000000);
    me = GA_Nodeid();
    np = GA_Nnodes();
    int bench = argc > 1 && strcmp(argv[1], "--bench") == 0;

    /* regular arrays: four types, one to three dimensions */
    static const int shapes[3][3] = {{97, 0, 0}, {23, 19, 0}, {7, 9, 5}};
    static const int types[4] = {C_INT, C_LONG, C_DBL, C_DCPL};
    static const char *tnames[4] = {"int", "long", "double", "dcomplex"};
    for (int t = 0; t < 4; t++)
        for (int nd = 1; nd <= 3; nd++) {
            int chunk[3] = {-1, -1, -1};
            model_t m;
            model_init(&m, nd, shapes[nd - 1]);
            char name[32];
            snprintf(name, sizeof(name), "%s%dd", tnames[t], nd);
            int g = NGA_Create(types[t], nd, (int *)shapes[nd - 1], name, chunk);
            CHECK(g != 0, "NGA_Create %s", name);
            patch_test(g, types[t], &m, name, (unsigned long)(t * 10 + nd));
            GA_Destroy(g);
            model_free(&m);
        }

    /* irregular distribution: uneven row blocks */
    {
        int dims[2] = {20, 10}, block[2] = {np, 1}, map[5] = {0, 2, 7, 13, 0};
        map[np] = 0; /* column map: one block starting at 0 */
        model_t m;
        model_init(&m, 2, dims);
        int g = NGA_Create_irreg(C_DBL, 2, dims, "irregular", block, map);
        CHECK(g != 0, "NGA_Create_irreg");
        patch_test(g, C_DBL, &m, "irregular", 99);
        int lo[2], hi[2];
        NGA_Distribution(g, me, lo, hi);
        CHECK(lo[0] == map[me] && hi[0] == (me + 1 < np ? map[me + 1] - 1 : dims[0] - 1),
              "irregular distribution rows %d..%d", lo[0], hi[0]);
        GA_Destroy(g);
        model_free(&m);
    }

    /* scatter and gather */
    {
        int dims[2] = {13, 17}, chunk[2] = {-1, -1};
        int g = NGA_Create(C_DBL, 2, dims, "scatter", chunk);
        GA_Zero(g);
        int n = 0, *subs = malloc(2 * 13 * 17 * sizeof(int)),
            **sp = malloc(13 * 17 * sizeof(int *));
        double *v = malloc(13 * 17 * sizeof(double));
        for (int i = 0; i < 13; i++)
            for (int j = 0; j < 17; j++)
                if ((i * 17 + j) % np == me) {
                    subs[2 * n] = i;
                    subs[2 * n + 1] = j;
                    sp[n] = &subs[2 * n];
                    v[n++] = i * 100 + j + 0.25;
                }
        NGA_Scatter(g, v, sp, n);
        GA_Sync();
        int all = 0;
        for (int i = 0; i < 13; i++)
            for (int j = 0; j < 17; j++) {
                subs[2 * all] = i;
                subs[2 * all + 1] = j;
                sp[all] = &subs[2 * all];
                all++;
            }
        NGA_Gather(g, v, sp, all);
        int bad = 0;
        for (int k = 0; k < all; k++)
            bad += v[k] != subs[2 * k] * 100 + subs[2 * k + 1] + 0.25;
        CHECK(bad == 0, "scatter/gather: %d wrong", bad);
        free(subs);
        free(sp);
        free(v);
        GA_Destroy(g);
    }

    /* read-and-increment: every returned value distinct, the total exact */
    {
        int dims[1] = {1}, chunk[1] = {-1}, sub[1] = {0};
        int g = NGA_Create(C_LONG, 1, dims, "counter", chunk);
        GA_Zero(g);
        long got[200];
        for (int i = 0; i < 200; i++)
            got[i] = NGA_Read_inc(g, sub, 1);
        long *all = malloc(200 * (size_t)np * sizeof(long));
        MPI_Allgather(got, 200, MPI_LONG, all, 200, MPI_LONG, MPI_COMM_WORLD);
        char *seen = calloc(200 * (size_t)np, 1);
        int bad = 0;
        for (int i = 0; i < 200 * np; i++) {
            if (all[i] < 0 || all[i] >= 200 * np || seen[all[i]]++)
                bad++;
        }
        CHECK(bad == 0, "read_inc returned %d duplicate or out-of-range values", bad);
        GA_Sync();
        long final = 0;
        NGA_Get(g, sub, sub, &final, NULL);
        CHECK(final == 200L * np, "read_inc counter %ld", final);
        free(all);
        free(seen);
        GA_Destroy(g);
    }

    /* locks */
    {
        int dims[1] = {1}, chunk[1] = {-1}, sub[1] = {0};
        int g = NGA_Create(C_LONG, 1, dims, "locked", chunk);
        GA_Zero(g);
        CHECK(GA_Create_mutexes(1), "GA_Create_mutexes");
        for (int i = 0; i < 100; i++) {
            long v;
            GA_Lock(0);
            NGA_Get(g, sub, sub, &v, NULL);
            v++;
            NGA_Put(g, sub, sub, &v, NULL);
            GA_Unlock(0);
        }
        GA_Sync();
        long v = 0;
        NGA_Get(g, sub, sub, &v, NULL);
        CHECK(v == 100L * np, "counter under GA_Lock %ld", v);
        GA_Destroy_mutexes();
        GA_Destroy(g);
    }

    /* dgemm, ddot, copy, transpose */
    {
        enum { M = 30, K = 24, N = 20 };
        int da[2] = {M, K}, db[2] = {K, N}, dc[2] = {M, N}, dt[2] = {K, M}, chunk[2] = {-1, -1};
        int ga = NGA_Create(C_DBL, 2, da, "A", chunk), gb = NGA_Create(C_DBL, 2, db, "B", chunk);
        int gc = NGA_Create(C_DBL, 2, dc, "C", chunk), gt = NGA_Create(C_DBL, 2, dt, "At", chunk);
        int ga2 = GA_Duplicate(ga, "A2");
        static double A[M][K], B[K][N], C[M][N], got[M][N], T[K][M];
        for (int i = 0; i < M; i++)
            for (int k = 0; k < K; k++)
                A[i][k] = sin(i + 2.0 * k);
        for (int k = 0; k < K; k++)
            for (int j = 0; j < N; j++)
                B[k][j] = cos(3.0 * k - j);
        if (me == 0) {
            int lo[2] = {0, 0}, hia[2] = {M - 1, K - 1}, hib[2] = {K - 1, N - 1};
            int lda = K, ldb = N;
            NGA_Put(ga, lo, hia, A, &lda);
            NGA_Put(gb, lo, hib, B, &ldb);
        }
        GA_Sync();
        GA_Dgemm('N', 'N', M, N, K, 1.0, ga, gb, 0.0, gc);
        int lo[2] = {0, 0}, hic[2] = {M - 1, N - 1}, ldc = N;
        NGA_Get(gc, lo, hic, got, &ldc);
        double err = 0;
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                C[i][j] = 0;
                for (int k = 0; k < K; k++)
                    C[i][j] += A[i][k] * B[k][j];
                err = fmax(err, fabs(C[i][j] - got[i][j]));
            }
        CHECK(err < 1e-10, "GA_Dgemm differs from the local product by %g", err);
        double dot = GA_Ddot(ga, ga), ref = 0;
        for (int i = 0; i < M; i++)
            for (int k = 0; k < K; k++)
                ref += A[i][k] * A[i][k];
        CHECK(fabs(dot - ref) < 1e-9 * ref, "GA_Ddot %g, expected %g", dot, ref);
        GA_Copy(ga, ga2);
        CHECK(fabs(GA_Ddot(ga, ga2) - ref) < 1e-9 * ref, "GA_Copy");
        GA_Transpose(ga, gt);
        int hit[2] = {K - 1, M - 1}, ldt = M;
        NGA_Get(gt, lo, hit, T, &ldt);
        int bad = 0;
        for (int i = 0; i < M; i++)
            for (int k = 0; k < K; k++)
                bad += T[k][i] != A[i][k];
        CHECK(bad == 0, "GA_Transpose: %d wrong", bad);
        GA_Destroy(ga);
        GA_Destroy(ga2);
        GA_Destroy(gb);
        GA_Destroy(gc);
        GA_Destroy(gt);
    }

    /* nonblocking put and get */
    {
        int dims[2] = {40, 40}, chunk[2] = {-1, -1};
        int g = NGA_Create(C_DBL, 2, dims, "nb", chunk);
        GA_Zero(g);
        int lo[2] = {me * 40 / np, 0}, hi[2] = {(me + 1) * 40 / np - 1, 39}, ld = 40;
        double *mine = malloc(40 * 40 * sizeof(double)), *all = malloc(40 * 40 * sizeof(double));
        for (int i = 0; i < 40 * 40; i++)
            mine[i] = i + 0.5;
        ga_nbhdl_t h;
        NGA_NbPut(g, lo, hi, mine + lo[0] * 40, &ld, &h);
        NGA_NbWait(&h);
        GA_Sync();
        ga_nbhdl_t hs[4];
        for (int q = 0; q < 4; q++) {
            int l[2] = {q * 10, 0}, hh[2] = {q * 10 + 9, 39};
            NGA_NbGet(g, l, hh, all + q * 400, &ld, &hs[q]);
        }
        for (int q = 0; q < 4; q++)
            NGA_NbWait(&hs[q]);
        int bad = 0;
        for (int i = 0; i < 40 * 40; i++)
            bad += all[i] != i + 0.5;
        CHECK(bad == 0, "nonblocking put/get: %d wrong", bad);
        free(mine);
        free(all);
        GA_Destroy(g);
    }

    /*
     * NGA_NbTest while transfers are in flight. GA's nga_test_internal (global/src/nbutil.c,
     * v5.8.2 lines 270-292) calls ARMCI_Test on each ARMCI handle of a GA handle and drops
     * the ones for which it returns 0; NGA_NbTest answers 1 once none is left. With
     * ARMCI_Test's answer inverted, the handles still in flight are dropped and NbTest says
     * done before the data is there (GA's global/testing/nbtestc.c then hangs). Process 0
     * gets the whole array, 6 MiB of it from the others; with T_INFLIGHT=1 (over tcp) the
     * others also nap outside ARMCI, and NbTest must say "not yet" at least once: the first
     * test follows the call that started the transfers by microseconds, which no path here
     * moves 6 MiB in. GA_Sync is MPI's barrier, so these runs keep the progress thread.
     */
    {
        const int n = 1024; /* 8 MiB of doubles */
        int dims[2] = {n, n}, chunk[2] = {-1, -1};
        int g = NGA_Create(C_DBL, 2, dims, "nbtest", chunk);
        int lo[2], hi[2], ld;
        double *p;
        NGA_Distribution(g, me, lo, hi);
        NGA_Access(g, lo, hi, &p, &ld);
        for (int i = lo[0]; i <= hi[0]; i++)
            for (int j = lo[1]; j <= hi[1]; j++)
                p[(size_t)(i - lo[0]) * (size_t)ld + (size_t)(j - lo[1])] = i * 1000.0 + j;
        NGA_Release_update(g, lo, hi);
        GA_Sync();
        const char *inflight = getenv("T_INFLIGHT");
        int expect_pending = inflight && atoi(inflight) && np > 1;
        if (me == 0) {
            double *all = malloc((size_t)n * (size_t)n * sizeof(double));
            int alo[2] = {0, 0}, ahi[2] = {n - 1, n - 1}, ald = n;
            for (size_t i = 0; i < (size_t)n * (size_t)n; i++)
                all[i] = -1.0;
            /* The targets stay out of ARMCI, blocked in MPI, until this process has seen
             * the get pending (an event, not a nap a loaded machine could outlast); they go
             * at once if NbTest never says so, and the check fails. */
            ga_nbhdl_t h;
            NGA_NbGet(g, alo, ahi, all, &ald, &h);
            long pending = 0;
            int go = 1;
            while (!NGA_NbTest(&h)) {
                if (pending++ == 0 && expect_pending)
                    for (int p = 1; p < np; p++)
                        MPI_Send(&go, 1, MPI_INT, p, 79, MPI_COMM_WORLD);
            }
            if (pending == 0 && expect_pending)
                for (int p = 1; p < np; p++)
                    MPI_Send(&go, 1, MPI_INT, p, 79, MPI_COMM_WORLD);
            /* At the moment NbTest says done, every element must be there. */
            int bad = 0;
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++)
                    bad += all[(size_t)i * (size_t)n + (size_t)j] != i * 1000.0 + j;
            CHECK(bad == 0, "NGA_NbTest said done with %d of %d elements missing", bad, n * n);
            if (expect_pending)
                CHECK(pending > 0, "NGA_NbTest said done at once although the targets slept");
            free(all);
        } else if (expect_pending) {
            int go = 0;
            MPI_Recv(&go, 1, MPI_INT, 0, 79, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        GA_Sync();
        GA_Destroy(g);
    }

    /* processor group: the even processes */
    if (np > 1) {
        int list[4], n = 0;
        for (int p = 0; p < np; p += 2)
            list[n++] = p;
        int pg = GA_Pgroup_create(list, n);
        if (me % 2 == 0) {
            GA_Pgroup_set_default(pg);
            CHECK(GA_Nnodes() == n && GA_Nodeid() == me / 2, "group view %d of %d", GA_Nodeid(),
                  GA_Nnodes());
            int dims[1] = {60}, chunk[1] = {-1};
            int g = NGA_Create(C_DBL, 1, dims, "grouped", chunk);
            GA_Zero(g);
            int lo[1] = {GA_Nodeid() * 60 / n}, hi[1] = {(GA_Nodeid() + 1) * 60 / n - 1};
            double v[60];
            for (int i = 0; i < 60; i++)
                v[i] = 7.0 * i;
            NGA_Put(g, lo, hi, v + lo[0], NULL);
            GA_Sync();
            int alo[1] = {0}, ahi[1] = {59};
            double w[60];
            NGA_Get(g, alo, ahi, w, NULL);
            int bad = 0;
            for (int i = 0; i < 60; i++)
                bad += w[i] != 7.0 * i;
            CHECK(bad == 0, "processor group array: %d wrong", bad);
            GA_Destroy(g);
            GA_Pgroup_set_default(GA_Pgroup_get_world());
        }
        GA_Sync();
    }

    /* timings for side-by-side runs against ARMCI-MPI */
    if (bench) {
        int dims[2] = {400, 400}, chunk[2] = {-1, -1};
        int g = NGA_Create(C_DBL, 2, dims, "bench", chunk);
        GA_Zero(g);
        double *buf = calloc(100 * 100, sizeof(double)), t0, t[4];
        int ld = 100;
        GA_Sync();
        const char *names[4] = {"put 100x100", "get 100x100", "acc 100x100", "dgemm 200"};
        for (int op = 0; op < 3; op++) {
            t0 = now();
            for (int k = 0; k < 50; k++) {
                int q = (me + 1 + k) % np; /* a patch owned elsewhere when np > 1 */
                int lo[2], hi[2];
                NGA_Distribution(g, q, lo, hi);
                int h2[2] = {lo[0] + 99 < hi[0] ? lo[0] + 99 : hi[0],
                             lo[1] + 99 < hi[1] ? lo[1] + 99 : hi[1]};
                ld = h2[1] - lo[1] + 1;
                double one = 1.0;
                if (op == 0)
                    NGA_Put(g, lo, h2, buf, &ld);
                else if (op == 1)
                    NGA_Get(g, lo, h2, buf, &ld);
                else
                    NGA_Acc(g, lo, h2, buf, &ld, &one);
            }
            GA_Sync();
            t[op] = (now() - t0) / 50 * 1e6;
        }
        int d2[2] = {200, 200};
        int a = NGA_Create(C_DBL, 2, d2, "a", chunk), b = GA_Duplicate(a, "b"),
            c = GA_Duplicate(a, "c");
        double one = 1.0;
        GA_Fill(a, &one);
        GA_Fill(b, &one);
        t0 = now();
        for (int k = 0; k < 20; k++)
            GA_Dgemm('N', 'N', 200, 200, 200, 1.0, a, b, 0.0, c);
        t[3] = (now() - t0) / 20 * 1e6;
        if (me == 0)
            for (int op = 0; op < 4; op++)
                printf("ga-bench %-12s %10.1f us\n", names[op], t[op]);
        GA_Destroy(a);
        GA_Destroy(b);
        GA_Destroy(c);
        GA_Destroy(g);
        free(buf);
    }

    int sums[2] = {checks, failed}, tot[2];
    MPI_Allreduce(sums, tot, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf("t_ga: %d processes, %d checks, %d failed\n", np, tot[0], tot[1]);
    GA_Terminate();
    MPI_Finalize();
    return tot[1] == 0 && tot[0] > 0 ? 0 : 1;
}
