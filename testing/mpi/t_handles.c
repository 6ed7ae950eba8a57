/* Handles: individual completion, ARMCI_Test, implicit handles with WaitProc/WaitAll,
 * 100 000 outstanding implicit puts (pool recycling), and more explicit handles in flight
 * than the pool holds (the oldest are completed transparently). */
#include <string.h>

#include "tester.h"

#define NIMPLICIT 100000
#define NEXPLICIT 6000 /* more than the default pool of 4096 */

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int peer = (t_me + 1) % t_np;
    void **base = malloc((size_t)t_np * sizeof(void *));
    const size_t words = NEXPLICIT + 64;
    ARMCI_Malloc(base, (armci_size_t)(words * sizeof(long)));
    long *mine = base[t_me];
    for (size_t i = 0; i < words; i++)
        mine[i] = (long)t_me * 1000000 + (long)i;
    ARMCI_Barrier();

    /* Individual completion: two gets, each waited on separately, in reverse order. */
    long a = -1, b = -1;
    armci_hdl_t ha, hb;
    ARMCI_INIT_HANDLE(&ha);
    ARMCI_INIT_HANDLE(&hb);
    long *remote = base[peer];
    ARMCI_NbGet(&remote[5], &a, sizeof(long), peer, &ha);
    ARMCI_NbGet(&remote[9], &b, sizeof(long), peer, &hb);
    ARMCI_Wait(&hb);
    CHECK(b == (long)peer * 1000000 + 9, "second get waited first: %ld", b);
    ARMCI_Wait(&ha);
    CHECK(a == (long)peer * 1000000 + 5, "first get: %ld", a);

    /* ARMCI_Test reports completion eventually, and Wait afterwards is allowed once. */
    long c = -1;
    armci_hdl_t hc;
    ARMCI_NbGet(&remote[11], &c, sizeof(long), peer, &hc);
    long polls = 0;
    while (!ARMCI_Test(&hc))
        polls++;
    CHECK(c == (long)peer * 1000000 + 11, "get completed by Test: %ld (after %ld polls)", c, polls);
    ARMCI_Wait(&hc);
    CHECK(ARMCI_Test(&hc) != 0, "a waited handle tests as complete");

    /* A handle initialised but never used: Wait returns at once. */
    armci_hdl_t hidle;
    ARMCI_INIT_HANDLE(&hidle);
    ARMCI_Wait(&hidle);
    CHECK(1, "wait on an unused initialised handle returned");
    ARMCI_Barrier();

    /* 100 000 implicit puts into one cell of the peer; the last value must win. */
    long *cell = &((long *)base[peer])[words - 1 - (size_t)0];
    static long vals[NIMPLICIT];
    for (long i = 0; i < NIMPLICIT; i++) {
        vals[i] = i + 1;
        ARMCI_NbPut(&vals[i], cell, sizeof(long), peer, NULL);
        if (i % 25000 == 24999)
            ARMCI_WaitProc(peer);
    }
    ARMCI_WaitAll();
    ARMCI_Barrier();
    long last = ((long *)base[t_me])[words - 1];
    CHECK(last == NIMPLICIT, "after %d implicit puts the cell holds %ld", NIMPLICIT, last);

    /* More explicit gets in flight than the pool has requests. */
    long *got = malloc(NEXPLICIT * sizeof(long));
    armci_hdl_t *h = malloc(NEXPLICIT * sizeof(armci_hdl_t));
    for (int i = 0; i < NEXPLICIT; i++) {
        got[i] = -1;
        ARMCI_NbGet(&remote[i], &got[i], sizeof(long), peer, &h[i]);
    }
    for (int i = NEXPLICIT - 1; i >= 0; i--)
        ARMCI_Wait(&h[i]);
    int bad = 0;
    for (int i = 0; i < NEXPLICIT; i++)
        bad += got[i] != (long)peer * 1000000 + i;
    CHECK(bad == 0, "%d of %d explicit gets wrong", bad, NEXPLICIT);

    /* A handle need not be initialised for a plain call: one whose bytes happen to be those
     * of an aggregate handle (here, a copy of one) must still act as a plain handle. */
    {
        armci_hdl_t agg, lookalike;
        long before, after, v = -1;
        ARMCI_INIT_HANDLE(&agg);
        ARMCI_SET_AGGREGATE_HANDLE(&agg);
        memcpy(&lookalike, &agg, sizeof agg);
        ARMCIX_Agg_stats(&before, NULL);
        ARMCI_NbGet(&remote[3], &v, sizeof(long), peer, &lookalike);
        ARMCI_Wait(&lookalike);
        ARMCIX_Agg_stats(&after, NULL);
        CHECK(v == (long)peer * 1000000 + 3, "get on a look-alike handle brought %ld", v);
        CHECK(after == before, "a get on a never-set handle was aggregated (%ld -> %ld)", before,
              after);
        ARMCI_UNSET_AGGREGATE_HANDLE(&agg);
    }

    ARMCI_Barrier();
    free(got);
    free(h);
    ARMCI_Free(base[t_me]);
    free(base);
    return t_finish("t_handles");
}
