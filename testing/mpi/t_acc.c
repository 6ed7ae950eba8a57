/* Accumulate: all six types with a scale, blocking and nonblocking, and many processes
 * accumulating into one location (the sum must be exact). */
#include <complex.h>
#include <string.h>

#include "tester.h"

#define N 300 /* elements per accumulate */

static int type_size(int t)
{
    static const int s[] = {sizeof(int), sizeof(long), sizeof(float), sizeof(double),
                            sizeof(float complex), sizeof(double complex)};
    return s[t];
}

/* Element i of the source of process `me`, and the scale, as double complex. */
static double complex src_val(int t, int me, int i)
{
    double complex v = (double)(me + 1) + (double)(i % 17);
    if (t >= ARMCI_ACC_CPL)
        v += I * (double)((i % 5) - me);
    return v;
}

static double complex scale_val(int t)
{
    if (t == ARMCI_ACC_CPL || t == ARMCI_ACC_DCP)
        return 2.0 - 1.0 * I;
    return t == ARMCI_ACC_INT || t == ARMCI_ACC_LNG ? 3.0 : 0.5;
}

static void store(int t, void *buf, int i, double complex v)
{
    switch (t) {
    case ARMCI_ACC_INT: ((int *)buf)[i] = (int)creal(v); break;
    case ARMCI_ACC_LNG: ((long *)buf)[i] = (long)creal(v); break;
    case ARMCI_ACC_FLT: ((float *)buf)[i] = (float)creal(v); break;
    case ARMCI_ACC_DBL: ((double *)buf)[i] = creal(v); break;
    case ARMCI_ACC_CPL: ((float complex *)buf)[i] = (float complex)v; break;
    case ARMCI_ACC_DCP: ((double complex *)buf)[i] = v; break;
    }
}

static double complex load(int t, const void *buf, int i)
{
    switch (t) {
    case ARMCI_ACC_INT: return ((const int *)buf)[i];
    case ARMCI_ACC_LNG: return (double)((const long *)buf)[i];
    case ARMCI_ACC_FLT: return ((const float *)buf)[i];
    case ARMCI_ACC_DBL: return ((const double *)buf)[i];
    case ARMCI_ACC_CPL: return ((const float complex *)buf)[i];
    default: return ((const double complex *)buf)[i];
    }
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    const size_t block = N * 16;
    void **base = malloc((size_t)t_np * sizeof(void *));
    ARMCI_Malloc(base, (armci_size_t)(6 * block));

    for (int mode = 0; mode < 2; mode++) {
        memset(base[t_me], 0, 6 * block);
        ARMCI_Barrier();
        /* Every process accumulates into every process, every type. */
        for (int t = 0; t < 6; t++) {
            char src[N * 16], scale[16];
            for (int i = 0; i < N; i++)
                store(t, src, i, src_val(t, t_me, i));
            store(t, scale, 0, scale_val(t));
            for (int k = 0; k < t_np; k++) {
                int p = (t_me + k) % t_np;
                char *dst = (char *)base[p] + (size_t)t * block;
                if (mode == 0) {
                    ARMCI_Acc(t, scale, src, dst, N * type_size(t), p);
                } else {
                    armci_hdl_t h;
                    ARMCI_NbAcc(t, scale, src, dst, N * type_size(t), p, &h);
                    ARMCI_Wait(&h);
                }
            }
        }
        ARMCI_Barrier();
        for (int t = 0; t < 6; t++) {
            int bad = 0;
            for (int i = 0; i < N; i++) {
                double complex want = 0;
                for (int w = 0; w < t_np; w++) {
                    /* round each contribution as the element type does */
                    char tmp[16];
                    store(t, tmp, 0, src_val(t, w, i));
                    store(t, tmp, 0, scale_val(t) * load(t, tmp, 0));
                    want += load(t, tmp, 0);
                }
                double complex got = load(t, (char *)base[t_me] + (size_t)t * block, i);
                double tol = (t == ARMCI_ACC_FLT || t == ARMCI_ACC_CPL) ? 1e-4 : 1e-12;
                if (cabs(got - want) > tol * (1 + cabs(want)))
                    bad++;
            }
            CHECK(bad == 0, "type %d mode %d: %d of %d elements wrong", t, mode, bad, N);
        }
        ARMCI_Barrier();
    }

    /* All processes hammer one int and one double on process 0. */
    memset(base[t_me], 0, 6 * block);
    ARMCI_Barrier();
    int one = 1;
    double half = 0.5, dval = 1.0;
    for (int i = 0; i < 1000; i++) {
        ARMCI_Acc(ARMCI_ACC_INT, &one, &one, base[0], sizeof(int), 0);
        ARMCI_Acc(ARMCI_ACC_DBL, &half, &dval, (char *)base[0] + 64, sizeof(double), 0);
    }
    ARMCI_Barrier();
    if (t_me == 0) {
        int total = *(int *)base[0];
        double dtotal = *(double *)((char *)base[0] + 64);
        CHECK(total == 1000 * t_np, "concurrent int accumulates: %d, expected %d", total,
              1000 * t_np);
        CHECK(dtotal == 500.0 * t_np, "concurrent double accumulates: %g, expected %g", dtotal,
              500.0 * t_np);
    }
    ARMCI_Barrier();
    ARMCI_Free(base[t_me]);
    free(base);
    return t_finish("t_acc");
}
