/* Single values (put, nonblocking put, get), flagged puts seen by a waiting target, local
 * copies and access brackets. */
#include <string.h>

#include "tester.h"

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    void **base = malloc((size_t)t_np * sizeof(void *));
    ARMCI_Malloc(base, 4096);
    memset(base[t_me], 0, 4096);
    ARMCI_Barrier();
    int p = (t_me + 1) % t_np;
    char *r = base[p];
    ARMCI_PutValueInt(-5 - t_me, r + 0, p);
    ARMCI_PutValueLong(1L << 40, r + 8, p);
    ARMCI_PutValueFloat(2.5f, r + 16, p);
    ARMCI_PutValueDouble(-1e300, r + 24, p);
    armci_hdl_t h[4];
    ARMCI_NbPutValueInt(11, r + 32, p, &h[0]);
    ARMCI_NbPutValueLong(12, r + 40, p, &h[1]);
    ARMCI_NbPutValueFloat(13.f, r + 48, p, &h[2]);
    ARMCI_NbPutValueDouble(14., r + 56, p, &h[3]);
    for (int k = 0; k < 4; k++)
        ARMCI_Wait(&h[k]);
    CHECK(ARMCI_GetValueInt(r, p) == -5 - t_me, "int value");
    CHECK(ARMCI_GetValueLong(r + 8, p) == 1L << 40, "long value");
    CHECK(ARMCI_GetValueFloat(r + 16, p) == 2.5f, "float value");
    CHECK(ARMCI_GetValueDouble(r + 24, p) == -1e300, "double value");
    CHECK(ARMCI_GetValueInt(r + 32, p) == 11 && ARMCI_GetValueLong(r + 40, p) == 12 &&
              ARMCI_GetValueFloat(r + 48, p) == 13.f && ARMCI_GetValueDouble(r + 56, p) == 14.,
          "nonblocking values");

    /* flagged put: the target waits for the flag, then must see all the data */
    ARMCI_Barrier();
    double data[256];
    for (int i = 0; i < 256; i++)
        data[i] = t_me + i * 0.5;
    int *flag = (int *)((char *)base[p] + 4000);
    ARMCI_Put_flag(data, (char *)base[p] + 1024, sizeof(data), flag, 1, p);
    volatile int *myflag = (int *)((char *)base[t_me] + 4000);
    while (*myflag != 1)
        ARMCIX_Progress();
    int left = (t_me + t_np - 1) % t_np, bad = 0;
    double *got = (double *)((char *)base[t_me] + 1024);
    for (int i = 0; i < 256; i++)
        bad += got[i] != left + i * 0.5;
    CHECK(bad == 0, "data behind the flag: %d wrong", bad);

    /* local copy and access brackets */
    char a[64], b[64];
    memset(a, 7, 64);
    ARMCI_Copy(a, b, 64);
    CHECK(memcmp(a, b, 64) == 0, "ARMCI_Copy");
    ARMCI_Access_begin(base[t_me]);
    ((char *)base[t_me])[100] = 42;
    ARMCI_Access_end(base[t_me]);
    CHECK(((char *)base[t_me])[100] == 42, "access bracket");
    ARMCI_Barrier();
    ARMCI_Free(base[t_me]);
    free(base);
    return t_finish("t_values");
}
