/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Soak: many mixed nonblocking operations (explicit, implicit and aggregate handles;
 * contiguous, strided and accumulate; puts and gets) from every process to random targets,
 * every result checked against a local shadow of what the target must hold. At the end the
 * runtime must have given back every request slot and bounce buffer (ARMCIX_Resources); after
 * the warm-up tenth, the bytes allocated with malloc must not grow by more than HEAP_BOUND
 * (a leak would), nor resident memory by more than RSS_BOUND (the provider's buffer pools
 * may still grow to their high-water mark, once).
 *   t_soak [TOTAL_OPS]   (over all processes; default 100000)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <malloc.h>
#include <unistd.h>

#include "tester.h"

#define W          (32 * 1024) /* bytes of each process's window at each target */
#define KMAX       16          /* operations per batch */
#define RSS_BOUND  (48L << 20)
#define HEAP_BOUND (1L << 20)

enum kind { PUT_EXPLICIT, PUT_IMPLICIT, PUT_AGG, PUT_STRIDED, ACC, NKIND };

static long rss_bytes(void)
{
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
            resident = 0;
        fclose(f);
    }
    return resident * sysconf(_SC_PAGESIZE);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    long total = argc > 1 ? atol(argv[1]) : 100000;
    long mine = total / t_np, done = 0, warm_rss = 0, warm_heap = 0, batches = 0;
    void **win = malloc(sizeof(void *) * t_np), **cnt = malloc(sizeof(void *) * t_np);
    unsigned char **shadow = malloc(sizeof(unsigned char *) * t_np);
    long *acc_sent = calloc(t_np, sizeof(long)), *acc_got = calloc(t_np, sizeof(long));
    unsigned char *src = malloc(W), *dst = malloc(W);
    ARMCI_Malloc(win, (armci_size_t)W * t_np);
    ARMCI_Malloc(cnt, sizeof(int) * t_np);
    memset(win[t_me], 0, (size_t)W * t_np);
    memset(cnt[t_me], 0, sizeof(int) * t_np);
    for (int t = 0; t < t_np; t++)
        shadow[t] = calloc(W, 1);
    unsigned long rng = 0x9e3779b97f4a7c15UL * (unsigned long)(t_me + 1);
    ARMCI_Barrier();

    while (done < mine) {
        int t = (int)(t_rand(&rng) % t_np);
        int k = 1 + (int)(t_rand(&rng) % KMAX);
        enum kind kind = (enum kind)(t_rand(&rng) % NKIND);
        size_t slot = W / KMAX;
        unsigned char *remote = (unsigned char *)win[t] + (size_t)t_me * W;
        armci_hdl_t h[KMAX], agg;
        if (kind == PUT_AGG) {
            ARMCI_INIT_HANDLE(&agg);
            ARMCI_SET_AGGREGATE_HANDLE(&agg);
        }
        for (int i = 0; i < k; i++) {
            /* operations of one batch touch disjoint slots, so their order does not matter */
            size_t len = 1 + t_rand(&rng) % (slot / 2), off = i * slot + t_rand(&rng) % (slot / 2);
            unsigned char *s = src + i * slot;
            for (size_t b = 0; b < len; b++)
                s[b] = (unsigned char)t_rand(&rng);
            switch (kind) {
            case PUT_EXPLICIT:
                ARMCI_INIT_HANDLE(&h[i]);
                ARMCI_NbPut(s, remote + off, (int)len, t, &h[i]);
                memcpy(shadow[t] + off, s, len);
                break;
            case PUT_IMPLICIT:
                ARMCI_NbPut(s, remote + off, (int)len, t, NULL);
                memcpy(shadow[t] + off, s, len);
                break;
            case PUT_AGG:
                ARMCI_NbPut(s, remote + off, (int)len, t, &agg);
                memcpy(shadow[t] + off, s, len);
                break;
            case PUT_STRIDED: {
                /* 4 rows of `row` bytes, 64 bytes apart more than their length */
                int row = 1 + (int)(len % 48), stride = row + 64;
                int count[2] = {row, 4}, sstr[1] = {stride}, dstr[1] = {stride};
                if (off + 3 * (size_t)stride + row > (i + 1) * slot)
                    off = i * slot;
                ARMCI_INIT_HANDLE(&h[i]);
                ARMCI_NbPutS(s, sstr, remote + off, dstr, count, 1, t, &h[i]);
                for (int r = 0; r < 4; r++)
                    memcpy(shadow[t] + off + (size_t)r * stride, s + (size_t)r * stride, row);
                break;
            }
            case ACC: {
                int one = 1;
                ARMCI_NbAcc(ARMCI_ACC_INT, &one, &one, (int *)cnt[t] + t_me, sizeof(int), t, NULL);
                acc_sent[t]++;
                break;
            }
            default:
                break;
            }
        }
        /* complete the batch, in a different way per kind */
        if (kind == PUT_EXPLICIT || kind == PUT_STRIDED) {
            for (int i = k - 1; i >= 0; i--) {
                if (i % 2)
                    while (ARMCI_Test(&h[i]))
                        ;
                else
                    ARMCI_Wait(&h[i]);
            }
        } else if (kind == PUT_AGG) {
            ARMCI_Wait(&agg);
            ARMCI_UNSET_AGGREGATE_HANDLE(&agg);
        } else {
            ARMCI_WaitProc(t);
        }
        /* read back what this process owns at t: a fence first makes the puts visible */
        ARMCI_Fence(t);
        size_t off = t_rand(&rng) % (W / 2), len = 1 + t_rand(&rng) % (W / 2);
        armci_hdl_t g;
        ARMCI_INIT_HANDLE(&g);
        if (batches % 3 == 0) {
            ARMCI_SET_AGGREGATE_HANDLE(&g);
            ARMCI_NbGet(remote + off, dst, (int)(len / 2), t, &g);
            ARMCI_NbGet(remote + off + len / 2, dst + len / 2, (int)(len - len / 2), t, &g);
            ARMCI_Wait(&g);
            ARMCI_UNSET_AGGREGATE_HANDLE(&g);
        } else {
            ARMCI_NbGet(remote + off, dst, (int)len, t, &g);
            ARMCI_Wait(&g);
        }
        CHECK(memcmp(dst, shadow[t] + off, len) == 0,
              "batch %ld: %zu bytes at offset %zu read back from rank %d differ", batches, len, off,
              t);
        done += k + 1;
        batches++;
        if (!warm_rss && done >= mine / 10) {
            warm_rss = rss_bytes();
            warm_heap = (long)mallinfo2().uordblks;
        }
    }

    ARMCI_WaitAll();
    ARMCI_AllFence();
    /* Serving the others takes bounce buffers too (replies, accumulates): once they have
     * all stopped, ours come back as soon as the last completions are reaped. Checking
     * before the barrier raced with a reply still in flight (seen once in CI). */
    ARMCI_Barrier();
    armcix_resources_t res;
    double t0 = MPI_Wtime();
    do {
        ARMCIX_Progress();
        ARMCIX_Resources(&res);
    } while ((res.requests_in_use > 0 || res.bounce_in_use > 0) && MPI_Wtime() - t0 < 5.0);
    CHECK(res.requests_in_use == 0, "%ld request slots still taken", res.requests_in_use);
    CHECK(res.bounce_in_use == 0, "%ld bounce buffers still taken", res.bounce_in_use);
    ARMCI_Barrier();

    /* every window whole, and every accumulate counted exactly once */
    for (int t = 0; t < t_np; t++) {
        ARMCI_Get((unsigned char *)win[t] + (size_t)t_me * W, dst, W, t);
        CHECK(memcmp(dst, shadow[t], W) == 0, "final window at rank %d differs", t);
    }
    MPI_Alltoall(acc_sent, 1, MPI_LONG, acc_got, 1, MPI_LONG, MPI_COMM_WORLD);
    for (int r = 0; r < t_np; r++)
        CHECK(((int *)cnt[t_me])[r] == acc_got[r], "rank %d's accumulates here: %d, sent %ld", r,
              ((int *)cnt[t_me])[r], acc_got[r]);
    long grew[2] = {rss_bytes() - warm_rss, (long)mallinfo2().uordblks - warm_heap}, max_grew[2];
#if defined(__SANITIZE_ADDRESS__)
    /* AddressSanitizer keeps freed blocks in quarantine and bypasses malloc's accounting:
     * the growth is printed, not judged (the normal build judges it), and the output says so */
    if (t_me == 0)
        printf("t_soak: memory growth not judged under AddressSanitizer (the plain build "
               "judges it)\n");
#else
    CHECK(grew[0] <= RSS_BOUND, "resident memory grew by %ld KiB after warm-up", grew[0] >> 10);
    CHECK(grew[1] <= HEAP_BOUND, "malloc'd memory grew by %ld KiB after warm-up", grew[1] >> 10);
#endif
    MPI_Reduce(grew, max_grew, 2, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    if (t_me == 0)
        printf("t_soak: %ld operations per process, %ld batches here; after warm-up resident "
               "memory grew by at most %ld KiB, malloc'd memory by %ld KiB; requests max %ld, "
               "bounce buffers max %ld\n",
               done, batches, max_grew[0] >> 10, max_grew[1] >> 10, res.requests_max,
               res.bounce_max);

    ARMCI_Barrier();
    ARMCI_Free(cnt[t_me]);
    ARMCI_Free(win[t_me]);
    for (int t = 0; t < t_np; t++)
        free(shadow[t]);
    free(shadow);
    free(win);
    free(cnt);
    free(acc_sent);
    free(acc_got);
    free(src);
    free(dst);
    return t_finish("t_soak");
}
