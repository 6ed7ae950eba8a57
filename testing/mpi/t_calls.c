/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The public calls no other test makes, each checked against what is known without ARMCI:
 * MPI's ranks, the monotonic clock, the environment, and the node layout tester.h finds
 * (ARMCI's nodes are runs of consecutive processes of a machine, cut by ARMCI_NODE_SIZE).
 *
 *   armci_timer; armci_msg_bcast_scope (all, node); armci_msg_clus_brdcst and
 *   armci_grp_clus_brdcst; armci_exchange_address_grp; armci_msg_reduce_scope (node);
 *   ARMCI_Uses_shm_grp; ARMCI_Malloc_memdev, ARMCI_Malloc_group_memdev, ARMCI_Free_memdev;
 *   ARMCIX_Provider_name; ARMCIX_Cache_reset_stats; ARMCI_Cleanup.
 *
 * armci_msg_abort ends the job: errors.sh's msg_abort.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <message.h>

#include "tester.h"

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Bytes of @p b[0..n) that are not @p v. */
static int not_all(const char *b, int n, int v)
{
    int bad = 0;
    for (int i = 0; i < n; i++)
        bad += b[i] != (char)v;
    return bad;
}

/* A put of this process's rank to the next one's block and a get back from the previous
 * one's, in an allocation @p base of at least sizeof(long) per process. */
static int ring_ok(void **base)
{
    int right = (t_me + 1) % t_np, left = (t_me + t_np - 1) % t_np;
    long v = 1000 + t_me, got = -1;
    ARMCI_Put(&v, base[right], sizeof(long), right);
    ARMCI_Barrier();
    got = *(long *)base[t_me];
    ARMCI_Barrier();
    return got == 1000 + left;
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    int nnodes, node_rank, node_size = t_node_size(&nnodes, &node_rank);
    int node_first = t_me - node_rank, master = node_rank == 0;
    const char *shm_env = getenv("ARMCI_SHM");
    int shm_off = shm_env && strcmp(shm_env, "0") == 0;
    ARMCI_Group world;
    ARMCI_Group_get_world(&world);

    /* armci_timer counts seconds: across a 20 ms sleep it agrees with the monotonic clock.
     * Each of its reads is bracketed by two of the clock's, so that the interval it measures
     * must lie between the clock's inner and outer intervals however long the process is
     * kept off the processor between two reads (100 us allowed for the clocks' grain). */
    double c0a = mono(), a0 = armci_timer(), c0b = mono();
    struct timespec nap = {0, 20 * 1000 * 1000};
    nanosleep(&nap, NULL);
    double c1a = mono(), a1 = armci_timer(), c1b = mono();
    double da = a1 - a0, inner = c1a - c0b, outer = c1b - c0a;
    CHECK(da >= 0.019 && da >= inner - 1e-4 && da <= outer + 1e-4,
          "armci_timer measured %.6f s of a sleep the monotonic clock measured as %.6f to %.6f s",
          da, inner, outer);

    /* broadcasts: from the last process to everyone; within the node from its first */
    char b[16];
    memset(b, t_me, sizeof b);
    armci_msg_bcast_scope(SCOPE_ALL, b, sizeof b, t_np - 1);
    CHECK(not_all(b, sizeof b, t_np - 1) == 0, "bcast_scope(SCOPE_ALL) from %d", t_np - 1);
    memset(b, t_me, sizeof b);
    armci_msg_bcast_scope(SCOPE_NODE, b, sizeof b, node_first);
    CHECK(not_all(b, sizeof b, node_first) == 0, "bcast_scope(SCOPE_NODE) from %d", node_first);
    /* among the nodes' first processes, from the first node's; the others keep theirs */
    memset(b, t_me, sizeof b);
    armci_msg_clus_brdcst(b, sizeof b);
    CHECK(not_all(b, sizeof b, master ? 0 : t_me) == 0, "clus_brdcst (%s)",
          master ? "a node's first" : "not a node's first");
    /* over a group, from a root named by its absolute id */
    memset(b, t_me, sizeof b);
    armci_grp_clus_brdcst(b, sizeof b, t_np - 1, t_np, &world);
    CHECK(not_all(b, sizeof b, t_np - 1) == 0, "grp_clus_brdcst from %d", t_np - 1);

    /* every member's address, each at its rank */
    void **pa = calloc((size_t)t_np, sizeof(void *));
    pa[t_me] = (void *)(uintptr_t)(0x1000 + 16 * t_me);
    armci_exchange_address_grp(pa, t_np, &world);
    int bad = 0;
    for (int i = 0; i < t_np; i++)
        bad += pa[i] != (void *)(uintptr_t)(0x1000 + 16 * i);
    CHECK(bad == 0, "exchange_address_grp: %d addresses wrong", bad);
    free(pa);

    /* a sum within the node: its processes' ranks */
    long s = t_me, want = (long)node_size * node_first + (long)node_size * (node_size - 1) / 2;
    armci_msg_reduce_scope(SCOPE_NODE, &s, 1, "+", ARMCI_LONG);
    CHECK(s == want, "reduce_scope(SCOPE_NODE) summed to %ld, not %ld", s, want);

    /* shared memory: on unless ARMCI_SHM=0, and only with another process in the node */
    int shm = !shm_off && node_size > 1;
    CHECK(ARMCI_Uses_shm_grp(&world) == shm && ARMCI_Uses_shm() == shm,
          "Uses_shm_grp %d, Uses_shm %d; expected %d", ARMCI_Uses_shm_grp(&world), ARMCI_Uses_shm(),
          shm);

    /* device memory is host memory here, and works as any allocation */
    void **md = malloc((size_t)t_np * sizeof(void *));
    CHECK(ARMCI_Malloc_memdev(md, sizeof(long), "host") == 0, "Malloc_memdev returned non-zero");
    CHECK(ring_ok(md), "a put into a Malloc_memdev block");
    CHECK(ARMCI_Free_memdev(md[t_me]) == 0, "Free_memdev returned non-zero");
    CHECK(ARMCI_Malloc_group_memdev(md, sizeof(long), &world, "host") == 0,
          "Malloc_group_memdev returned non-zero");
    CHECK(ring_ok(md), "a put into a Malloc_group_memdev block");
    CHECK(ARMCI_Free_group(md[t_me], &world) == 0, "freeing a Malloc_group_memdev block");

    /* the provider: the one FI_PROVIDER names, wherever some peer is reached through
     * libfabric; "none" where shared memory reaches every peer */
    const char *prov = ARMCIX_Provider_name(), *asked = getenv("FI_PROVIDER");
    int fabric = t_np > 1 && (shm_off || nnodes > 1);
    if (fabric)
        CHECK(prov && strcmp(prov, "none") != 0 && (!asked || strstr(prov, asked)),
              "provider \"%s\" with FI_PROVIDER=%s", prov ? prov : "(null)",
              asked ? asked : "(unset)");
    else
        CHECK(prov && strcmp(prov, "none") == 0, "provider \"%s\" with every peer in the node",
              prov ? prov : "(null)");

    /* cache counters: gets from a cached allocation count, the reset zeroes every event
     * counter; gets go through the cache where the next process is reached by libfabric */
    int right = (t_me + 1) % t_np;
    int right_remote = shm_off || right < node_first || right >= node_first + node_size;
    void **cb = malloc((size_t)t_np * sizeof(void *));
    ARMCI_Malloc(cb, 64);
    memset(cb[t_me], t_me, 64);
    ARMCIX_Cache_set_mode(cb[t_me], ARMCIX_CACHE_ALWAYS);
    ARMCI_Barrier();
    char got[64];
    for (int i = 0; i < 3; i++)
        ARMCI_Get(cb[right], got, 64, right);
    CHECK(not_all(got, 64, right) == 0, "get from the cached allocation");
    armcix_cache_stats_t st;
    ARMCIX_Cache_get_stats(&st);
    if (right_remote && t_np > 1)
        CHECK(st.hits + st.misses == 3, "3 gets over the fabric counted %ld hits, %ld misses",
              st.hits, st.misses);
    CHECK(ARMCIX_Cache_reset_stats() == 0, "Cache_reset_stats returned non-zero");
    ARMCIX_Cache_get_stats(&st);
    CHECK(st.hits == 0 && st.misses == 0 && st.bytes_hit == 0 && st.conflict_evictions == 0 &&
              st.capacity_evictions == 0 && st.failed_inserts == 0 && st.invalidations == 0,
          "after the reset: hits %ld misses %ld bytes %ld evictions %ld/%ld failed %ld "
          "invalidations %ld",
          st.hits, st.misses, st.bytes_hit, st.conflict_evictions, st.capacity_evictions,
          st.failed_inserts, st.invalidations);
    ARMCI_Barrier();
    ARMCI_Free(cb[t_me]);

    /* ARMCI_Cleanup does nothing an application can see in ARMCI-MPI, whose ARMCI_Finalize
     * calls it first (src/init_finalize.c:875, 896-898): ARMCI works on, and finalizes */
    ARMCI_Barrier();
    ARMCI_Cleanup();
    ARMCI_Malloc(cb, sizeof(long));
    CHECK(ring_ok(cb), "a put after ARMCI_Cleanup");
    ARMCI_Free(cb[t_me]);
    free(cb);
    free(md);
    return t_finish("t_calls");
}
