/* Strided put, get and accumulate with random shapes of 0..8 stride levels, block sizes
 * from 1 byte to beyond the direct-transfer threshold, checked against a local model:
 * what a get brings back must equal what was put, and gaps must stay untouched. */
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

static size_t elem_size(int type)
{
    static const size_t sz[] = {4, 8, 4, 8, 8, 16};
    return sz[type];
}

static void set_elem(int type, char *p, double v)
{
    switch (type) {
    case 0: *(int *)p = (int)v; break;
    case 1: *(long *)p = (long)v; break;
    case 2: *(float *)p = (float)v; break;
    case 3: *(double *)p = v; break;
    case 4: *(float complex *)p = (float)v + I * (float)(v / 2); break;
    default: *(double complex *)p = v + I * (v / 2); break;
    }
}

static double complex get_elem(int type, const char *p)
{
    switch (type) {
    case 0: return *(const int *)p;
    case 1: return (double)*(const long *)p;
    case 2: return *(const float *)p;
    case 3: return *(const double *)p;
    case 4: return *(const float complex *)p;
    default: return *(const double complex *)p;
    }
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    void **base = malloc((size_t)t_np * sizeof(void *));
    ARMCI_Malloc(base, (armci_size_t)SLOT * t_np);
    char *src = ARMCI_Malloc_local(SLOT), *back = malloc(SLOT), *expect = malloc(SLOT);
    size_t *soff = malloc(70000 * sizeof(size_t)), *doff = malloc(70000 * sizeof(size_t));
    unsigned long rng = 0x9e3779b97f4a7c15UL ^ (unsigned long)(t_me + 1) * 7919;
    int bad_put = 0, bad_gap = 0, bad_acc = 0, rounds = 0, reported = 0;

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
        ARMCI_Put(src, rbase, (int)s.dst_extent, p);
        for (size_t i = 0; i < s.src_extent; i++)
            src[i] = (char)t_rand(&rng);
        memcpy(expect, src, s.src_extent);
        armci_hdl_t h;
        if (!acc) {
            if (nb) {
                ARMCI_NbPutS(src, s.src_stride, rbase, s.dst_stride, s.count, s.levels, p, &h);
                ARMCI_Wait(&h);
            } else {
                ARMCI_PutS(src, s.src_stride, rbase, s.dst_stride, s.count, s.levels, p);
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
            ARMCI_Put(model, rbase, (int)s.dst_extent, p);
            char scale[16];
            set_elem(type, scale, 2.0);
            if (nb) {
                ARMCI_NbAccS(type, scale, src, s.src_stride, rbase, s.dst_stride, s.count,
                             s.levels, p, &h);
                ARMCI_Wait(&h);
            } else {
                ARMCI_AccS(type, scale, src, s.src_stride, rbase, s.dst_stride, s.count,
                           s.levels, p);
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
        ARMCI_Get(rbase, back, (int)s.dst_extent, p);
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
            fprintf(stderr, "rank %d round %d: %s type %d levels %d block %d bytes, %zu blocks, to %d, %s\n",
                    t_me, round, acc ? "acc" : "put", type, s.levels, s.count[0], n, p,
                    nb ? "nonblocking" : "blocking");
            reported = bad_acc + bad_gap + bad_put;
        }
        /* And the strided get of the same shape must return the source blocks. */
        if (!acc) {
            memset(back, 0, SLOT);
            if (nb) {
                ARMCI_NbGetS(rbase, s.dst_stride, back, s.src_stride, s.count, s.levels, p, &h);
                ARMCI_Wait(&h);
            } else {
                ARMCI_GetS(rbase, s.dst_stride, back, s.src_stride, s.count, s.levels, p);
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
            ARMCI_PutS(src, stride, dst, stride, count, 1, p);
            for (int i = 0; i < 16 * 64; i++)
                back[i] = (char)(100 + rep);
            ARMCI_PutS(back, one, dst, one, few, 1, p);
            ARMCI_GetS(dst, stride, expect, stride, count, 1, p);
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
    ARMCI_Free(base[t_me]);
    free(back);
    free(expect);
    free(soff);
    free(doff);
    free(base);
    return t_finish("t_strided");
}
