/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory freed and handed out again at the same address, under two libraries that
 * register memory: MPI (its own registration cache when it runs on the fabric: Open MPI's
 * ofi MTL, UCX) and armci-ofi. A cache that missed the release would send what the old
 * pages held, or the new ones would not be what the NIC reads. Each round sends from a
 * buffer with MPI, frees it, takes a buffer of the same size again (the same address,
 * checked), fills it with new data, sends again, and the receiver checks what arrived
 * against what the sender wrote; ARMCI puts and gets from and into such a buffer too.
 *   - ARMCI_Malloc memory above ARMCI_SHM_RELEASE_MIN, whose pages ARMCI_Free returns
 *     (the node heap: a hole punched in its file; a private heap: MADV_DONTNEED);
 *   - malloc memory (glibc returns a large block to the system with munmap).
 * On tcp nothing is pinned and the test passes whatever the caches do; on a NIC that pins
 * registered pages it is the test that would catch them (docs/cluster.md).
 */
#include <malloc.h>
#include <stdint.h>
#include <string.h>

#include "tester.h"

enum { BYTES = 4 << 20 }; /* past every MPI's eager limit: sent by rendezvous */

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(seed * 131u + i * 7u + (i >> 12));
}

static size_t first_wrong(const unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != (unsigned char)(seed * 131u + i * 7u + (i >> 12)))
            return i;
    return n;
}

/* A line of /proc/self/status ("RssShmem:"), in KiB. */
static long status_kib(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    size_t n = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, key, n) == 0)
            v = strtol(line + n, NULL, 10);
    if (f)
        fclose(f);
    return v;
}

/* Rank 0 sends @p buf (filled for @p seed) to rank 1, which checks it. */
static void send_round(unsigned char *buf, unsigned seed, const char *what)
{
    if (t_me == 0) {
        fill(buf, BYTES, seed);
        MPI_Send(buf, BYTES, MPI_BYTE, 1, 7, MPI_COMM_WORLD);
    } else if (t_me == 1) {
        unsigned char *in = malloc(BYTES);
        MPI_Recv(in, BYTES, MPI_BYTE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        size_t at = first_wrong(in, BYTES, seed);
        CHECK(at == BYTES, "%s, round %u: byte %zu of what MPI delivered is not what was sent",
              what, seed, at);
        free(in);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    if (t_np < 2) {
        CHECK(0, "needs 2 processes");
        return t_finish("t_mpireuse");
    }
    void **base = malloc((size_t)t_np * sizeof(void *));

    /* ARMCI_Malloc memory, freed (pages returned) and allocated again */
    const char *rel = getenv("ARMCI_SHM_RELEASE_MIN");
    int release = rel && strcmp(rel, "1M") == 0;
    void *first = NULL;
    for (unsigned round = 1; round <= 3; round++) {
        ARMCI_Malloc(base, BYTES);
        unsigned char *mine = base[t_me];
        if (round == 1)
            first = mine;
        else
            CHECK(mine == first,
                  "ARMCI_Malloc round %u: the block is at %p, not at %p: the "
                  "reuse of an address is not exercised",
                  round, (void *)mine, first);
        send_round(mine, round, "ARMCI_Malloc memory");
        /* one-sided too: rank 1 reads rank 0's block and writes its own into rank 0's */
        if (t_me == 1) {
            unsigned char *got = malloc(BYTES);
            ARMCI_Get(base[0], got, BYTES, 0);
            size_t at = first_wrong(got, BYTES, round);
            CHECK(at == BYTES, "ARMCI_Get of reused memory, round %u: byte %zu wrong", round, at);
            fill(got, BYTES, round + 100);
            ARMCI_Put(got, base[0], BYTES, 0);
            free(got);
        }
        ARMCI_Barrier();
        if (t_me == 0) {
            size_t at = first_wrong(mine, BYTES, round + 100);
            CHECK(at == BYTES, "ARMCI_Put into reused memory, round %u: byte %zu wrong", round, at);
        }
        /* The pages go back (run with ARMCI_SHM_RELEASE_MIN=1M): resident memory of the
         * node heap (shared) or of the private heap (anonymous) drops by the block. */
        const char *which = ARMCI_Uses_shm() ? "RssShmem:" : "RssAnon:";
        memset(mine, 1, BYTES); /* every page of its own block resident in every process */
        long before = status_kib(which);
        ARMCI_Free(mine);
        long after = status_kib(which);
        if (release)
            CHECK(before - after >= BYTES / 1024 / 2,
                  "ARMCI_Free round %u: %s %ld KiB before, %ld KiB after: the %d KiB block's "
                  "pages were not returned",
                  round, which, before, after, BYTES / 1024);
    }

    /* malloc memory, returned to the system and mapped again: a fixed mmap threshold, so
     * that glibc maps every such block (a freed one would raise its threshold) */
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
    ARMCI_Malloc(base, BYTES);
    unsigned char *remote = base[t_me];
    void *at_first = NULL;
#ifdef __SANITIZE_ADDRESS__
    int reuse = 0; /* AddressSanitizer holds freed memory back (its quarantine) */
#else
    int reuse = 1;
#endif
    for (unsigned round = 11; round <= 13; round++) {
        unsigned char *buf = malloc(BYTES);
        if (round == 11)
            at_first = buf;
        else if (reuse)
            CHECK((void *)buf == at_first,
                  "malloc round %u: %p, not %p: the reuse of an "
                  "address is not exercised",
                  round, (void *)buf, at_first);
        send_round(buf, round, "malloc memory");
        /* the same buffer as the local side of a put and of a get (rank 0 to rank 1) */
        if (t_me == 0) {
            ARMCI_Put(buf, base[1], BYTES, 1);
            ARMCI_Fence(1);
        }
        ARMCI_Barrier();
        if (t_me == 1) {
            size_t at = first_wrong(remote, BYTES, round);
            CHECK(at == BYTES, "ARMCI_Put from reused malloc memory, round %u: byte %zu wrong",
                  round, at);
            fill(remote, BYTES, round + 50);
        }
        ARMCI_Barrier();
        if (t_me == 0) {
            ARMCI_Get(base[1], buf, BYTES, 1);
            size_t at = first_wrong(buf, BYTES, round + 50);
            CHECK(at == BYTES, "ARMCI_Get into reused malloc memory, round %u: byte %zu wrong",
                  round, at);
        }
        ARMCI_Barrier();
        free(buf);
    }
    ARMCI_Free(remote);
    free(base);
    return t_finish("t_mpireuse");
}
