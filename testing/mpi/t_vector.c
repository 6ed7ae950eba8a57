/* I/O-vector put, get and accumulate: several descriptor groups of scattered segments,
 * blocking and nonblocking, small (packed) and large (direct) segments. */
#include <string.h>

#include "tester.h"

#define WORDS 12288

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    void **base = malloc((size_t)t_np * sizeof(void *));
    ARMCI_Malloc(base, (armci_size_t)(WORDS * sizeof(double) * (size_t)t_np));
    double *loc = malloc(WORDS * sizeof(double)), *back = malloc(WORDS * sizeof(double));
    int p = (t_me + 1) % t_np;
    double *slot = (double *)base[p] + (size_t)t_me * WORDS; /* mine in p's block */

    for (int mode = 0; mode < 2; mode++) {
        /* group 0: 500 single doubles at every 7th word; group 1: 3 runs of 2560 doubles */
        void *s0[500], *d0[500], *s1[3], *d1[3];
        for (int i = 0; i < 500; i++) {
            loc[i] = t_me * 1000.0 + i + mode;
            s0[i] = &loc[i];
            d0[i] = &slot[(i * 7) % 3500];
        }
        for (int k = 0; k < 3; k++) {
            for (int j = 0; j < 2560; j++)
                loc[600 + k * 2560 + j] = -(t_me * 1e5 + k * 1e4 + j);
            s1[k] = &loc[600 + k * 2560];
            d1[k] = &slot[3500 + k * 2600]; /* 2560 doubles = 20 KiB: direct */
        }
        armci_giov_t iov[2] = {{s0, d0, sizeof(double), 500}, {s1, d1, 2560 * sizeof(double), 3}};
        if (mode == 0) {
            ARMCI_PutV(iov, 2, p);
        } else {
            armci_hdl_t h;
            ARMCI_NbPutV(iov, 2, p, &h);
            ARMCI_Wait(&h);
        }
        /* read it back through a vector get into fresh places */
        memset(back, 0, WORDS * sizeof(double));
        void *gs0[500], *gd0[500], *gs1[3], *gd1[3];
        for (int i = 0; i < 500; i++) {
            gs0[i] = d0[i];
            gd0[i] = &back[i];
        }
        for (int k = 0; k < 3; k++) {
            gs1[k] = d1[k];
            gd1[k] = &back[600 + k * 2560];
        }
        armci_giov_t giov[2] = {{gs0, gd0, sizeof(double), 500},
                                {gs1, gd1, 2560 * sizeof(double), 3}};
        if (mode == 0) {
            ARMCI_GetV(giov, 2, p);
        } else {
            armci_hdl_t h;
            ARMCI_NbGetV(giov, 2, p, &h);
            ARMCI_Wait(&h);
        }
        int bad = 0;
        /* words i*7 % 3500 may repeat: the last write wins (i ascending) */
        for (int i = 0; i < 500; i++) {
            int last = i;
            for (int j = i + 1; j < 500; j++)
                if ((j * 7) % 3500 == (i * 7) % 3500)
                    last = j;
            bad += back[i] != loc[last];
        }
        for (int j = 0; j < 3 * 2560; j++)
            bad += back[600 + j] != loc[600 + j];
        CHECK(bad == 0, "vector put/get mode %d: %d wrong", mode, bad);

        /* accumulate: slot[0..99] = 1.0 then += 3 * (i + me) through a vector of 100 */
        for (int i = 0; i < 100; i++)
            back[i] = 1.0;
        ARMCI_Put(back, slot, 100 * sizeof(double), p);
        void *as[100], *ad[100];
        for (int i = 0; i < 100; i++) {
            loc[i] = i + t_me;
            as[i] = &loc[i];
            ad[i] = &slot[99 - i];
        }
        armci_giov_t aiov = {as, ad, sizeof(double), 100};
        double three = 3.0;
        if (mode == 0) {
            ARMCI_AccV(ARMCI_ACC_DBL, &three, &aiov, 1, p);
        } else {
            armci_hdl_t h;
            ARMCI_NbAccV(ARMCI_ACC_DBL, &three, &aiov, 1, p, &h);
            ARMCI_Wait(&h);
        }
        ARMCI_Get(slot, back, 100 * sizeof(double), p);
        bad = 0;
        for (int i = 0; i < 100; i++)
            bad += back[99 - i] != 1.0 + 3.0 * (i + t_me);
        CHECK(bad == 0, "vector accumulate mode %d: %d wrong", mode, bad);
    }
    ARMCI_Barrier();
    ARMCI_Free(base[t_me]);
    free(loc);
    free(back);
    free(base);
    return t_finish("t_vector");
}
