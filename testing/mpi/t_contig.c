/* Contiguous put and get, blocking and nonblocking, to every process (self included),
 * at sizes from 0 bytes through unaligned single bytes to several bounce buffers. */
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
    ARMCI_Malloc(base, (armci_size_t)(slot * (size_t)t_np));
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
                if (mode == 0) {
                    ARMCI_Put(src, rdst, (int)n, p);
                } else {
                    ARMCI_NbPut(src, rdst, (int)n, p, NULL);
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
                    ARMCI_Get(rsrc, dst, (int)n, p);
                } else {
                    armci_hdl_t h;
                    ARMCI_INIT_HANDLE(&h);
                    ARMCI_NbGet(rsrc, dst, (int)n, p, &h);
                    ARMCI_Wait(&h);
                }
                bad = 0;
                for (size_t i = 0; i < n; i++)
                    bad += dst[i] != pattern(t_me, p, i, round);
                CHECK(bad == 0, "get of %zu bytes from %d (mode %d): %d wrong bytes", n, p, mode,
                      bad);
                CHECK(dst[n] == 0xEE, "get of %zu bytes from %d wrote past its end", n, p);
            }
            ARMCI_Barrier();
        }
    }

    /* A get right after a put to the same process sees the put (blocking ordering). */
    int right = (t_me + 1) % t_np;
    long *cell = (long *)((char *)base[right] + (size_t)t_me * slot);
    for (long v = 1; v <= 200; v++) {
        long got = -1;
        ARMCI_Put(&v, cell, sizeof(v), right);
        ARMCI_Get(cell, &got, sizeof(got), right);
        if (got != v) {
            CHECK(got == v, "get after put saw %ld, expected %ld", got, v);
            break;
        }
    }
    CHECK(1, "ordering loop ran");

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

    ARMCI_Barrier();
    ARMCI_Free_local(src);
    ARMCI_Free(base[t_me]);
    free(dst);
    free(base);
    return t_finish("t_contig");
}
