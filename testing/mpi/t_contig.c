/* SPDX-License-Identifier: BSD-3-Clause */
/* Contiguous put and get, blocking and nonblocking, to every process (self included),
 * at sizes from 0 bytes through unaligned single bytes to several bounce buffers; and
 * put, get and accumulate whose local buffer lies in this process's own ARMCI_Malloc
 * block. Every call must return 0. */
#include <string.h>

#include "tester.h"

static unsigned char pattern(int from, int to, size_t i, int round)
{
    return (unsigned char)(from * 31 + to * 7 + (int)(i % 251) + round * 13);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    static const size_t sizes[] = {0, 1, 3, 8, 64, 65, 1000, 4096, 65536 + 3, 1 << 20};
    const int nsizes = sizeof(sizes) / sizeof(sizes[0]);
    const size_t slot = (1 << 20) + 64; /* each writer owns one slot of every block */
    void **base = malloc((size_t)t_np * sizeof(void *));
    /* GA armci/testing/test.c:411 asserts ARMCI_Malloc returns 0 */
    int rc = ARMCI_Malloc(base, (armci_size_t)(slot * (size_t)t_np));
    CHECK(rc == 0, "ARMCI_Malloc returned %d", rc);
    int bad_rc = 0; /* nonzero returns of put/get/acc, checked once per size */
    unsigned char *src = ARMCI_Malloc_local((armci_size_t)slot);
    unsigned char *dst = malloc(slot);

    for (int s = 0; s < nsizes; s++) {
        for (int mode = 0; mode < 2; mode++) { /* 0: blocking, 1: nonblocking + WaitAll */
            size_t n = sizes[s], off = 1;      /* odd offset: unaligned transfers */
            int round = s * 2 + mode;
            for (int t = 0; t < t_np; t++) {
                int p = (t_me + t) % t_np;
                for (size_t i = 0; i < n; i++)
                    src[i] = pattern(t_me, p, i, round);
                unsigned char *rdst = (unsigned char *)base[p] + (size_t)t_me * slot + off;
                /* GA armci/testing/test.c:1696-1760 checks NbPut/NbGet return 0 */
                if (mode == 0) {
                    bad_rc += ARMCI_Put(src, rdst, (int)n, p) != 0;
                } else {
                    bad_rc += ARMCI_NbPut(src, rdst, (int)n, p, NULL) != 0;
                    ARMCI_WaitAll(); /* src is reused for the next target */
                }
            }
            ARMCI_Barrier();
            /* What arrived in my block, from every writer. */
            unsigned char *mine = base[t_me];
            int bad = 0;
            for (int w = 0; w < t_np; w++)
                for (size_t i = 0; i < n; i++)
                    bad += mine[(size_t)w * slot + off + i] != pattern(w, t_me, i, round);
            CHECK(bad == 0, "put of %zu bytes (mode %d): %d wrong bytes arrived", n, mode, bad);
            /* Read back what I wrote everywhere. */
            for (int p = 0; p < t_np; p++) {
                memset(dst, 0xEE, n + 1);
                unsigned char *rsrc = (unsigned char *)base[p] + (size_t)t_me * slot + off;
                if (mode == 0) {
                    bad_rc += ARMCI_Get(rsrc, dst, (int)n, p) != 0;
                } else {
                    armci_hdl_t h;
                    ARMCI_INIT_HANDLE(&h);
                    bad_rc += ARMCI_NbGet(rsrc, dst, (int)n, p, &h) != 0;
                    ARMCI_Wait(&h);
                }
                bad = 0;
                for (size_t i = 0; i < n; i++)
                    bad += dst[i] != pattern(t_me, p, i, round);
                CHECK(bad == 0, "get of %zu bytes from %d (mode %d): %d wrong bytes", n, p, mode,
                      bad);
                CHECK(dst[n] == 0xEE, "get of %zu bytes from %d wrote past its end", n, p);
            }
            CHECK(bad_rc == 0, "%zu bytes (mode %d): %d put/get calls returned nonzero", n, mode,
                  bad_rc);
            bad_rc = 0;
            ARMCI_Barrier();
        }
    }

    /* A get right after a put to the same process sees the put (blocking ordering). */
    int right = (t_me + 1) % t_np;
    long *cell = (long *)((char *)base[right] + (size_t)t_me * slot);
    long in_order = 0;
    for (long v = 1; v <= 200; v++) {
        long got = -1;
        ARMCI_Put(&v, cell, sizeof(v), right);
        ARMCI_Get(cell, &got, sizeof(got), right);
        if (got != v) {
            CHECK(got == v, "get after put saw %ld, expected %ld", got, v);
            break;
        }
        in_order++;
    }
    CHECK(in_order == 200, "%ld of 200 gets saw the put before them", in_order);

    /* A fence makes puts visible to a third party: I put, fence, then tell the owner by a
     * barrier; the owner reads its own memory. */
    long token = 1000 + t_me;
    ARMCI_Put(&token, cell, sizeof(token), right);
    ARMCI_Fence(right);
    MPI_Barrier(MPI_COMM_WORLD);
    int left = (t_me + t_np - 1) % t_np;
    long seen = *(long *)((char *)base[t_me] + (size_t)left * slot);
    CHECK(seen == 1000 + left, "after fence + barrier saw %ld from %d, expected %d", seen, left,
          1000 + left);

    /* The local side of a transfer inside this process's own ARMCI_Malloc block: get into
     * it, put and accumulate from it, to and from every process (self included). A runtime
     * that treats a registered or shared-memory local address as remote, or skips staging
     * it, breaks here. armci-mpi tests/test_onesided_shared.c:55 (Get into buf_shared[me]),
     * :74 (Put from it), :102 (Acc from it); GA armci/testing/perf2.c:116-124 (Put, Get, Acc
     * with put_buf[me] / get_buf[me] from ARMCI_Malloc). */
    {
        static const size_t lsizes[] = {4, 1000, 65536 + 4, 1 << 20};
        const size_t lmax = 1 << 20;
        void **lbuf = malloc((size_t)t_np * sizeof(void *));
        rc = ARMCI_Malloc(lbuf, (armci_size_t)(lmax * 2));
        CHECK(rc == 0, "ARMCI_Malloc of the local-buffer block returned %d", rc);
        unsigned char *mylb = lbuf[t_me], *mydata = base[t_me];
        for (int s = 0; s < 4; s++) {
            size_t n = lsizes[s];
            int round = 40 + s, bad = 0;
            /* Get: each process fills slot 0 of its data block; everyone reads them all
             * into its own ARMCI_Malloc block, at an odd offset. */
            for (size_t i = 0; i < n; i++)
                mydata[i] = pattern(t_me, 0, i, round);
            ARMCI_Barrier();
            for (int t = 0; t < t_np; t++) {
                int p = (t_me + t) % t_np;
                memset(mylb, 0xEE, n + 2);
                rc = ARMCI_Get(base[p], mylb + 1, (int)n, p);
                CHECK(rc == 0, "Get of %zu bytes into own block from %d returned %d", n, p, rc);
                bad = 0;
                for (size_t i = 0; i < n; i++)
                    bad += mylb[1 + i] != pattern(p, 0, i, round);
                CHECK(bad == 0, "Get of %zu bytes into own ARMCI_Malloc block from %d: %d wrong", n,
                      p, bad);
                CHECK(mylb[0] == 0xEE && mylb[n + 1] == 0xEE,
                      "Get of %zu bytes into own block from %d wrote outside it", n, p);
            }
            ARMCI_Barrier();
            /* Put: from my block into my slot of every process's data block. */
            for (int t = 0; t < t_np; t++) {
                int p = (t_me + t) % t_np;
                for (size_t i = 0; i < n; i++)
                    mylb[lmax + i] = pattern(t_me, p, i, round);
                rc = ARMCI_Put(mylb + lmax, (unsigned char *)base[p] + (size_t)t_me * slot, (int)n,
                               p);
                CHECK(rc == 0, "Put of %zu bytes from own block to %d returned %d", n, p, rc);
            }
            ARMCI_Barrier();
            bad = 0;
            for (int w = 0; w < t_np; w++)
                for (size_t i = 0; i < n; i++)
                    bad += mydata[(size_t)w * slot + i] != pattern(w, t_me, i, round);
            CHECK(bad == 0, "Put of %zu bytes from an ARMCI_Malloc block: %d wrong bytes", n, bad);
            ARMCI_Barrier();
            /* Acc (int, scale 3): from my block into my slot of every process, whose ints
             * start at the owner's rank. */
            int ne = (int)(n / sizeof(int));
            int *myints = (int *)(mylb + lmax), scale = 3;
            for (int w = 0; w < t_np; w++)
                for (int i = 0; i < ne; i++)
                    ((int *)(mydata + (size_t)w * slot))[i] = t_me;
            ARMCI_Barrier();
            for (int t = 0; t < t_np; t++) {
                int p = (t_me + t) % t_np;
                for (int i = 0; i < ne; i++)
                    myints[i] = t_me * 1000 + p * 10 + i % 7;
                rc = ARMCI_Acc(ARMCI_ACC_INT, &scale, myints,
                               (unsigned char *)base[p] + (size_t)t_me * slot,
                               ne * (int)sizeof(int), p);
                CHECK(rc == 0, "Acc of %d ints from own block to %d returned %d", ne, p, rc);
            }
            ARMCI_Barrier();
            bad = 0;
            for (int w = 0; w < t_np; w++)
                for (int i = 0; i < ne; i++)
                    bad += ((int *)(mydata + (size_t)w * slot))[i] !=
                           t_me + 3 * (w * 1000 + t_me * 10 + i % 7);
            CHECK(bad == 0, "Acc of %d ints from an ARMCI_Malloc block: %d wrong", ne, bad);
            ARMCI_Barrier();
        }
        /* armci-mpi tests/contrib/armci-test.c:335 asserts ARMCI_Free returns 0 */
        rc = ARMCI_Free(lbuf[t_me]);
        CHECK(rc == 0, "ARMCI_Free returned %d", rc);
        free(lbuf);
    }

    ARMCI_Barrier();
    ARMCI_Free_local(src);
    rc = ARMCI_Free(base[t_me]);
    CHECK(rc == 0, "ARMCI_Free returned %d", rc);
    free(dst);
    free(base);
    return t_finish("t_contig");
}
