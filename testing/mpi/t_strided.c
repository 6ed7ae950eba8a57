/* Strided put, get and accumulate with random shapes of 0..8 stride levels, block sizes
 * from 1 byte to beyond the direct-transfer threshold, checked against a local model:
 * what a get brings back must equal what was put, and gaps must stay untouched. Also: the
 * local side in this process's own ARMCI_Malloc block, stride level 0 with NULL stride
 * arrays, and a return of 0 from every call. */
#include <complex.h>
#include <string.h>

#include "tester.h"

#define SLOT (256 * 1024) /* each writer owns one slot of every process's block */

typedef struct {
    int levels, count[9], src_stride[8], dst_stride[8];
    size_t src_extent, dst_extent;
} shape_t;

static const int block_sizes[] = {1, 3, 8, 24, 64, 100, 1000, 20000};

static void make_shape(unsigned long *rng, shape_t *s, int elem)
{
    do {
        s->levels = (int)(t_rand(rng) % 9);
        int b = block_sizes[t_rand(rng) % 8];
        s->count[0] = (b + elem - 1) / elem * elem;
        long se = s->count[0], de = s->count[0];
        for (int i = 0; i < s->levels; i++) {
            s->count[i + 1] = 1 + (int)(t_rand(rng) % (s->levels > 4 ? 2 : 4));
            s->src_stride[i] = (int)se + (int)(t_rand(rng) % 3) * elem; /* sometimes tight */
            s->dst_stride[i] = (int)de + (int)(t_rand(rng) % 4) * elem;
            se = (long)s->src_stride[i] * s->count[i + 1];
            de = (long)s->dst_stride[i] * s->count[i + 1];
        }
        s->src_extent = (size_t)se;
        s->dst_extent = (size_t)de;
    } while (s->src_extent > SLOT || s->dst_extent > SLOT);
}

/* Offsets of every block of a shape, on one side. */
static size_t blocks(const shape_t *s, const int *stride, size_t *off)
{
    size_t n = 1;
    for (int i = 1; i <= s->levels; i++)
        n *= (size_t)s->count[i];
    for (size_t b = 0; b < n; b++) {
        size_t rem = b, o = 0;
        for (int i = 0; i < s->levels; i++) {
            o += (rem % (size_t)s->count[i + 1]) * (size_t)stride[i];
            rem /= (size_t)s->count[i + 1];
        }
        off[b] = o;
    }
    return n;
}

/* Byte b of row r, plane q of shape sh, from writer w to owner o. */
static char lb(int sh, int w, int o, int q, int r, int b)
{
    return (char)(w * 37 + o * 11 + q * 5 + r * 3 + b + sh);
}

static size_t elem_size(int type)
{
    static const size_t sz[] = {4, 8, 4, 8, 8, 16};
    return sz[type];
}

static void set_elem(int type, char *p, double v)
{
    switch (type) {
    case 0:
        *(int *)p = (int)v;
        break;
    case 1:
        *(long *)p = (long)v;
        break;
    case 2:
        *(float *)p = (float)v;
        break;
    case 3:
        *(double *)p = v;
        break;
    case 4:
        *(float complex *)p = (float)v + I * (float)(v / 2);
        break;
    default:
        *(double complex *)p = v + I * (v / 2);
        break;
    }
}

static double complex get_elem(int type, const char *p)
{
    switch (type) {
    case 0:
        return *(const int *)p;
    case 1:
        return (double)*(const long *)p;
    case 2:
        return *(const float *)p;
    case 3:
        return *(const double *)p;
    case 4:
        return *(const float complex *)p;
    default:
        return *(const double complex *)p;
    }
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    void **base = malloc((size_t)t_np * sizeof(void *));
    int rc = ARMCI_Malloc(base, (armci_size_t)SLOT * t_np);
    CHECK(rc == 0, "ARMCI_Malloc returned %d", rc); /* GA armci/testing/test.c:411 */
    char *src = ARMCI_Malloc_local(SLOT), *back = malloc(SLOT), *expect = malloc(SLOT);
    size_t *soff = malloc(70000 * sizeof(size_t)), *doff = malloc(70000 * sizeof(size_t));
    unsigned long rng = 0x9e3779b97f4a7c15UL ^ (unsigned long)(t_me + 1) * 7919;
    int bad_put = 0, bad_gap = 0, bad_acc = 0, rounds = 0, reported = 0;
    int bad_rc = 0; /* nonzero returns; GA test.c:502,512,1015 (PutS/GetS/AccS), 1696-1760 */

    for (int round = 0; round < 60; round++) {
        shape_t s;
        int type = (int)(t_rand(&rng) % 6), acc = round % 3 == 2, nb = round % 2;
        size_t es = acc ? elem_size(type) : 1;
        make_shape(&rng, &s, (int)es);
        int p = (int)(t_rand(&rng) % (unsigned)t_np);
        char *rbase = (char *)base[p] + (size_t)t_me * SLOT;
        size_t n = blocks(&s, s.src_stride, soff);
        blocks(&s, s.dst_stride, doff);
        /* Remote slot: a known background, so gaps can be checked. */
        memset(src, 0x5a, s.dst_extent);
        bad_rc += ARMCI_Put(src, rbase, (int)s.dst_extent, p) != 0;
        for (size_t i = 0; i < s.src_extent; i++)
            src[i] = (char)t_rand(&rng);
        memcpy(expect, src, s.src_extent);
        armci_hdl_t h;
        if (!acc) {
            if (nb) {
                bad_rc += ARMCI_NbPutS(src, s.src_stride, rbase, s.dst_stride, s.count, s.levels, p,
                                       &h) != 0;
                ARMCI_Wait(&h);
            } else {
                bad_rc +=
                    ARMCI_PutS(src, s.src_stride, rbase, s.dst_stride, s.count, s.levels, p) != 0;
            }
        } else {
            /* Known values there first: dst = 1 + index, then dst += scale * src. */
            char *model = malloc(s.dst_extent);
            memset(model, 0x5a, s.dst_extent);
            for (size_t b = 0; b < n; b++)
                for (size_t e = 0; e < (size_t)s.count[0] / es; e++) {
                    set_elem(type, model + doff[b] + e * es, 1.0 + (double)e);
                    set_elem(type, src + soff[b] + e * es, (double)(b + e % 7));
                }
            bad_rc += ARMCI_Put(model, rbase, (int)s.dst_extent, p) != 0;
            char scale[16];
            set_elem(type, scale, 2.0);
            if (nb) {
                bad_rc += ARMCI_NbAccS(type, scale, src, s.src_stride, rbase, s.dst_stride, s.count,
                                       s.levels, p, &h) != 0;
                ARMCI_Wait(&h);
            } else {
                bad_rc += ARMCI_AccS(type, scale, src, s.src_stride, rbase, s.dst_stride, s.count,
                                     s.levels, p) != 0;
            }
            for (size_t b = 0; b < n; b++)
                for (size_t e = 0; e < (size_t)s.count[0] / es; e++) {
                    double complex sc = get_elem(type, scale);
                    double complex want = get_elem(type, model + doff[b] + e * es) +
                                          sc * get_elem(type, src + soff[b] + e * es);
                    if (type >= 4) {
                        if (type == 4)
                            *(float complex *)(model + doff[b] + e * es) = (float complex)want;
                        else
                            *(double complex *)(model + doff[b] + e * es) = want;
                    } else {
                        set_elem(type, model + doff[b] + e * es, creal(want));
                    }
                }
            memcpy(expect, model, s.dst_extent);
            free(model);
        }
        /* Bring the whole destination extent back, contiguous, and compare. */
        memset(back, 0, SLOT);
        bad_rc += ARMCI_Get(rbase, back, (int)s.dst_extent, p) != 0;
        char *inblock = calloc(s.dst_extent, 1);
        for (size_t b = 0; b < n; b++)
            memset(inblock + doff[b], 1, (size_t)s.count[0]);
        for (size_t i = 0; i < s.dst_extent; i++)
            bad_gap += !inblock[i] && back[i] != 0x5a;
        for (size_t b = 0; b < n && !acc; b++)
            bad_put += memcmp(back + doff[b], expect + soff[b], (size_t)s.count[0]) != 0;
        for (size_t b = 0; b < n && acc; b++)
            for (size_t e = 0; e < (size_t)s.count[0] / es; e++) {
                double complex got = get_elem(type, back + doff[b] + e * es);
                double complex want = get_elem(type, expect + doff[b] + e * es);
                bad_acc += cabs(got - want) > 1e-3 * (1 + cabs(want));
            }
        free(inblock);
        if (bad_acc + bad_gap + bad_put > reported) {
            fprintf(
                stderr,
                "rank %d round %d: %s type %d levels %d block %d bytes, %zu blocks, to %d, %s\n",
                t_me, round, acc ? "acc" : "put", type, s.levels, s.count[0], n, p,
                nb ? "nonblocking" : "blocking");
            reported = bad_acc + bad_gap + bad_put;
        }
        /* And the strided get of the same shape must return the source blocks. */
        if (!acc) {
            memset(back, 0, SLOT);
            if (nb) {
                bad_rc += ARMCI_NbGetS(rbase, s.dst_stride, back, s.src_stride, s.count, s.levels,
                                       p, &h) != 0;
                ARMCI_Wait(&h);
            } else {
                bad_rc +=
                    ARMCI_GetS(rbase, s.dst_stride, back, s.src_stride, s.count, s.levels, p) != 0;
            }
            for (size_t b = 0; b < n; b++)
                bad_put += memcmp(back + soff[b], expect + soff[b], (size_t)s.count[0]) != 0;
        }
        rounds++;
    }
    CHECK(bad_put == 0, "%d strided put/get blocks wrong", bad_put);
    CHECK(bad_gap == 0, "%d gap bytes overwritten", bad_gap);
    CHECK(bad_acc == 0, "%d accumulated elements wrong", bad_acc);
    CHECK(rounds == 60, "rounds %d", rounds);
    CHECK(bad_rc == 0, "%d put/get/acc calls of the random shapes returned nonzero", bad_rc);

    /* Puts of small blocks travel as messages. A long one (several messages, the first
     * larger than a provider's eager size) followed by a short one to the same bytes: the
     * short one must land last, though it may arrive first. */
    {
        int p = (t_me + 1) % t_np, nblk = 6000, wrong = 0;
        int stride[1] = {16}, count[2] = {8, nblk}, one[1] = {16}, few[2] = {8, 64};
        char *dst = (char *)base[p] + (size_t)t_me * SLOT;
        for (int rep = 0; rep < 10; rep++) {
            for (int i = 0; i < 16 * nblk; i++)
                src[i] = (char)(rep + 1);
            int r = ARMCI_PutS(src, stride, dst, stride, count, 1, p);
            for (int i = 0; i < 16 * 64; i++)
                back[i] = (char)(100 + rep);
            r |= ARMCI_PutS(back, one, dst, one, few, 1, p);
            r |= ARMCI_GetS(dst, stride, expect, stride, count, 1, p);
            CHECK(r == 0, "overlapping strided puts: PutS/GetS returned nonzero (%d)", r);
            for (int b = 0; b < nblk; b++)
                for (int i = 0; i < 8; i++)
                    wrong += expect[16 * b + i] != (char)(b < 64 ? 100 + rep : rep + 1);
        }
        CHECK(wrong == 0, "overlapping strided puts: %d bytes not the last writer's", wrong);
    }

    /* ARMCI_PutS_flag with blocks that travel in messages (64 B) and blocks that move by
     * zero-copy RMA (60000 B): the target waits for the flag, then every block must be in.
     * The flag word sits at the end of each writer's slot. */
    {
        int p = (t_me + 1) % t_np, left = (t_me + t_np - 1) % t_np, wrong = 0;
        char *mine = (char *)base[t_me] + (size_t)left * SLOT;
        volatile int *myflag = (volatile int *)(mine + SLOT - sizeof(int));
        int *flag = (int *)((char *)base[p] + (size_t)t_me * SLOT + SLOT - sizeof(int));
        char *dst = (char *)base[p] + (size_t)t_me * SLOT;
        ARMCI_Barrier();
        for (int round = 1; round <= 8; round++) {
            int blk = round % 2 ? 64 : 60000, rows = round % 2 ? 200 : 4;
            int stride[1] = {blk + 8}, count[2] = {blk, rows};
            for (int i = 0; i < stride[0] * rows; i++)
                src[i] = (char)(round * 11 + t_me + i);
            ARMCI_PutS_flag(src, stride, dst, stride, count, 1, flag, round, p);
            while (*myflag != round)
                ARMCIX_Progress();
            for (int r = 0; r < rows; r++)
                for (int i = 0; i < blk; i++) {
                    int at = r * stride[0] + i;
                    wrong += mine[at] != (char)(round * 11 + left + at);
                }
            ARMCI_Barrier();
        }
        CHECK(wrong == 0, "ARMCI_PutS_flag: %d bytes not in place behind the flag", wrong);
    }

    /* The local side in this process's own ARMCI_Malloc block: strided put and accumulate
     * from it, strided get into it, with blocks that travel as messages (24 B) and blocks
     * large enough to move by zero-copy RMA (40000 B). armci-mpi
     * tests/test_puts_gets_dla.c:60-69 (PutS from, GetS into buffers of shared allocations);
     * GA armci/testing/perf_nb.c:376 (AccS from dsrc[me], an ARMCI_Malloc block). */
    {
        void **lbuf = malloc((size_t)t_np * sizeof(void *));
        rc = ARMCI_Malloc(lbuf, (armci_size_t)(2 * SLOT));
        CHECK(rc == 0, "ARMCI_Malloc of the local-buffer block returned %d", rc);
        char *lsrc = lbuf[t_me], *lback = lsrc + SLOT, *mine = base[t_me];
        static const int shapes[2][3] = {{24, 20, 3}, {40000, 2, 2}};
        for (int sh = 0; sh < 2; sh++) {
            int blk = shapes[sh][0], rows = shapes[sh][1], planes = shapes[sh][2];
            int count[3] = {blk, rows, planes};
            int sst[2] = {blk + 8, (blk + 8) * rows + 16};
            int dst[2] = {blk + 16, (blk + 16) * rows};
            int wrong_put = 0, wrong_get = 0, wrong_acc = 0;
            for (int t = 0; t < t_np; t++) {
                int p = (t_me + t) % t_np;
                for (int q = 0; q < planes; q++)
                    for (int r = 0; r < rows; r++)
                        for (int b = 0; b < blk; b++)
                            lsrc[q * sst[1] + r * sst[0] + b] = lb(sh, t_me, p, q, r, b);
                rc = ARMCI_PutS(lsrc, sst, (char *)base[p] + (size_t)t_me * SLOT, dst, count, 2, p);
                CHECK(rc == 0, "PutS from own block to %d returned %d", p, rc);
            }
            ARMCI_Barrier();
            for (int w = 0; w < t_np; w++)
                for (int q = 0; q < planes; q++)
                    for (int r = 0; r < rows; r++)
                        for (int b = 0; b < blk; b++)
                            wrong_put +=
                                mine[(size_t)w * SLOT + (size_t)(q * dst[1] + r * dst[0] + b)] !=
                                lb(sh, w, t_me, q, r, b);
            CHECK(wrong_put == 0, "PutS of %d-byte blocks from an ARMCI_Malloc block: %d wrong",
                  blk, wrong_put);
            ARMCI_Barrier();
            /* Read back what I put everywhere, into my own block with the source layout. */
            for (int t = 0; t < t_np; t++) {
                int p = (t_me + t) % t_np;
                memset(lback, 0x33, SLOT);
                rc =
                    ARMCI_GetS((char *)base[p] + (size_t)t_me * SLOT, dst, lback, sst, count, 2, p);
                CHECK(rc == 0, "GetS into own block from %d returned %d", p, rc);
                for (int q = 0; q < planes; q++)
                    for (int r = 0; r < rows; r++) {
                        for (int b = 0; b < blk; b++)
                            wrong_get +=
                                lback[q * sst[1] + r * sst[0] + b] != lb(sh, t_me, p, q, r, b);
                        wrong_get += lback[q * sst[1] + r * sst[0] + blk] != 0x33; /* gap */
                    }
            }
            CHECK(wrong_get == 0, "GetS of %d-byte blocks into an ARMCI_Malloc block: %d wrong",
                  blk, wrong_get);
            ARMCI_Barrier();
            /* AccS of doubles (scale 2) from my block; the owner's doubles start at 1. */
            int dcount[3] = {blk / 8 * 8, rows, planes};
            int ne = dcount[0] / 8;
            for (size_t i = 0; i < (size_t)t_np * SLOT / 8; i++)
                ((double *)mine)[i] = 1.0;
            ARMCI_Barrier();
            double two = 2.0;
            for (int t = 0; t < t_np; t++) {
                int p = (t_me + t) % t_np;
                for (int q = 0; q < planes; q++)
                    for (int r = 0; r < rows; r++)
                        for (int e = 0; e < ne; e++)
                            *(double *)(lsrc + q * sst[1] + r * sst[0] + e * 8) =
                                (double)(t_me * 100 + p * 10 + q + r + e % 5);
                rc = ARMCI_AccS(ARMCI_ACC_DBL, &two, lsrc, sst,
                                (char *)base[p] + (size_t)t_me * SLOT, dst, dcount, 2, p);
                CHECK(rc == 0, "AccS from own block to %d returned %d", p, rc);
            }
            ARMCI_Barrier();
            for (int w = 0; w < t_np; w++)
                for (int q = 0; q < planes; q++)
                    for (int r = 0; r < rows; r++)
                        for (int e = 0; e < ne; e++) {
                            double got = *(double *)(mine + (size_t)w * SLOT +
                                                     (size_t)(q * dst[1] + r * dst[0] + e * 8));
                            wrong_acc += got != 1.0 + 2.0 * (w * 100 + t_me * 10 + q + r + e % 5);
                        }
            CHECK(wrong_acc == 0, "AccS of %d-byte blocks from an ARMCI_Malloc block: %d wrong",
                  blk, wrong_acc);
            ARMCI_Barrier();
        }
        rc = ARMCI_Free(lbuf[t_me]);
        CHECK(rc == 0, "ARMCI_Free returned %d", rc); /* armci-mpi tests/contrib/armci-test.c:335 */
        free(lbuf);
    }

    /* Stride level 0 with NULL stride arrays: count[0] bytes, contiguous, as GA's test.c
     * issues ARMCI_NbPutS (:1704, :1868) and ARMCI_NbGetS (:1747, :1906) with NULL handles
     * and with handles, and perf_nb.c:376 ARMCI_AccS at level 0. Each must return 0 and move
     * exactly count[0] bytes. */
    {
        static const int lens[] = {8, 3000, 100000};
        int p = (t_me + 1) % t_np, wrong = 0;
        char *dst = (char *)base[p] + (size_t)t_me * SLOT;
        for (int k = 0; k < 3; k++) {
            int bytes = lens[k];
            armci_hdl_t h;
            for (int v = 0; v < 3; v++) { /* blocking; handle + Wait; NULL handle + WaitAll */
                for (int i = 0; i < bytes + 8; i++)
                    src[i] = (char)(k * 7 + v * 3 + i);
                memset(back, 0x11, (size_t)bytes + 8);
                rc = ARMCI_Put(back, dst, bytes + 8, p); /* background, to see overruns */
                CHECK(rc == 0, "Put returned %d", rc);
                if (v == 0) {
                    rc = ARMCI_PutS(src, NULL, dst, NULL, &bytes, 0, p);
                } else if (v == 1) {
                    ARMCI_INIT_HANDLE(&h);
                    rc = ARMCI_NbPutS(src, NULL, dst, NULL, &bytes, 0, p, &h);
                    ARMCI_Wait(&h);
                } else {
                    rc = ARMCI_NbPutS(src, NULL, dst, NULL, &bytes, 0, p, NULL);
                    ARMCI_WaitAll();
                }
                CHECK(rc == 0, "level-0 put variant %d of %d bytes returned %d", v, bytes, rc);
                memset(back, 0, (size_t)bytes + 8);
                if (v == 0) {
                    rc = ARMCI_GetS(dst, NULL, back, NULL, &bytes, 0, p);
                } else if (v == 1) {
                    ARMCI_INIT_HANDLE(&h);
                    rc = ARMCI_NbGetS(dst, NULL, back, NULL, &bytes, 0, p, &h);
                    ARMCI_Wait(&h);
                } else {
                    rc = ARMCI_NbGetS(dst, NULL, back, NULL, &bytes, 0, p, NULL);
                    ARMCI_WaitAll();
                }
                CHECK(rc == 0, "level-0 get variant %d of %d bytes returned %d", v, bytes, rc);
                wrong += memcmp(back, src, (size_t)bytes) != 0;
                /* the 8 bytes past count[0] kept the background */
                rc = ARMCI_Get(dst + bytes, back, 8, p);
                CHECK(rc == 0, "Get returned %d", rc);
                for (int i = 0; i < 8; i++)
                    wrong += back[i] != 0x11;
            }
            /* AccS and NbAccS at level 0: doubles, scale 3, onto 1.0 each. */
            int n = bytes / 8 * 8, ne = n / 8;
            double three = 3.0;
            for (int i = 0; i < ne; i++)
                ((double *)back)[i] = 1.0, ((double *)src)[i] = (double)(i % 9 + k);
            rc = ARMCI_Put(back, dst, n, p);
            CHECK(rc == 0, "Put returned %d", rc);
            rc = ARMCI_AccS(ARMCI_ACC_DBL, &three, src, NULL, dst, NULL, &n, 0, p);
            CHECK(rc == 0, "level-0 AccS of %d bytes returned %d", n, rc);
            ARMCI_INIT_HANDLE(&h);
            rc = ARMCI_NbAccS(ARMCI_ACC_DBL, &three, src, NULL, dst, NULL, &n, 0, p, &h);
            CHECK(rc == 0, "level-0 NbAccS of %d bytes returned %d", n, rc);
            ARMCI_Wait(&h);
            rc = ARMCI_Get(dst, back, n, p);
            CHECK(rc == 0, "Get returned %d", rc);
            for (int i = 0; i < ne; i++)
                wrong += ((double *)back)[i] != 1.0 + 6.0 * (i % 9 + k);
        }
        CHECK(wrong == 0, "stride level 0 with NULL strides: %d wrong transfers", wrong);
    }

    /* armci_write_strided / armci_read_strided are local packing helpers. */
    {
        int stride[2] = {16, 64}, count[3] = {8, 4, 3};
        char grid[192], packed[96], again[96];
        for (int i = 0; i < 96; i++)
            packed[i] = (char)i;
        memset(grid, -1, sizeof(grid));
        armci_write_strided(grid, 2, stride, count, packed);
        armci_read_strided(grid, 2, stride, count, again);
        CHECK(memcmp(packed, again, 96) == 0, "read_strided(write_strided(x)) != x");
        CHECK(grid[8] == -1 && grid[16] == 8 && grid[64] == 32, "write_strided layout");
    }
    ARMCI_Barrier();
    ARMCI_Free_local(src);
    rc = ARMCI_Free(base[t_me]);
    CHECK(rc == 0, "ARMCI_Free returned %d", rc);
    free(back);
    free(expect);
    free(soff);
    free(doff);
    free(base);
    return t_finish("t_strided");
}
