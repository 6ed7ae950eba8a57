/*
 * The profiling interface: a tool defines ARMCI_<name> itself, counts the call, and calls
 * through to PARMCI_<name>. ARMCI-MPI's tests/test_parmci.c (lines 114-121, with
 * test_parmci_lib.c) checks that every ARMCI_Init, _Finalize, _Barrier, _Get and _Put the
 * application makes reaches the tool's wrapper once and the library once. Here the
 * wrappers also count the library's calls between them, and the data must still arrive.
 * Built with -Werror, this also checks that armci.h and message.h declare the PARMCI_*
 * and parmci_msg_* prototypes (ARMCI-MPI's headers do).
 */
#include <string.h>

#include "tester.h"

static int wrapped_put, wrapped_get, wrapped_barrier, wrapped_msg_barrier;

int ARMCI_Put(void *src, void *dst, int bytes, int proc)
{
    wrapped_put++;
    return PARMCI_Put(src, dst, bytes, proc);
}

int ARMCI_Get(void *src, void *dst, int bytes, int proc)
{
    wrapped_get++;
    return PARMCI_Get(src, dst, bytes, proc);
}

void ARMCI_Barrier(void)
{
    wrapped_barrier++;
    PARMCI_Barrier();
}

void armci_msg_barrier(void)
{
    wrapped_msg_barrier++;
    parmci_msg_barrier();
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    void **base = malloc((size_t)t_np * sizeof(void *));
    CHECK(ARMCI_Malloc(base, 16 * sizeof(int)) == 0, "ARMCI_Malloc");
    int right = (t_me + 1) % t_np, left = (t_me + t_np - 1) % t_np;
    const int rounds = 10;
    for (int k = 0; k < rounds; k++) {
        int v[16], got[16];
        for (int i = 0; i < 16; i++)
            v[i] = 1000 * t_me + 10 * k + i;
        CHECK(ARMCI_Put(v, base[right], sizeof(v), right) == 0, "wrapped ARMCI_Put returned");
        ARMCI_Barrier();
        CHECK(ARMCI_Get(base[t_me], got, sizeof(got), t_me) == 0, "wrapped ARMCI_Get");
        int bad = 0;
        for (int i = 0; i < 16; i++)
            bad += got[i] != 1000 * left + 10 * k + i;
        CHECK(bad == 0, "round %d through the wrappers: %d of 16 wrong", k, bad);
        armci_msg_barrier();
    }
    CHECK(wrapped_put == rounds && wrapped_get == rounds, "wrappers saw %d puts, %d gets of %d",
          wrapped_put, wrapped_get, rounds);
    CHECK(wrapped_barrier == rounds && wrapped_msg_barrier == rounds,
          "wrappers saw %d ARMCI_Barrier and %d armci_msg_barrier calls of %d", wrapped_barrier,
          wrapped_msg_barrier, rounds);
    /* The PARMCI_ names reach the same code directly, without the wrappers. */
    int one = 7, back = 0;
    PARMCI_Put(&one, base[t_me], sizeof(int), t_me);
    PARMCI_Get(base[t_me], &back, sizeof(int), t_me);
    CHECK(back == 7 && wrapped_put == rounds && wrapped_get == rounds,
          "PARMCI_Put/Get: read %d, wrappers now %d/%d", back, wrapped_put, wrapped_get);
    PARMCI_Barrier();
    CHECK(ARMCI_Free(base[t_me]) == 0, "ARMCI_Free");
    free(base);
    return t_finish("t_parmci");
}
