/* SPDX-License-Identifier: BSD-3-Clause */
/* Strided put, get and accumulate with random shapes of 0..8 stride levels, block sizes
 * from 1 byte to beyond the direct-transfer threshold, checked against a local model:
 * what a get brings back must equal what was put, and gaps must stay untouched; and the
 * same shapes judged by plain loads and stores at the owner. Also: the
 * local side in this process's own ARMCI_Malloc block, stride level 0 with NULL stride
 * arrays, and a return of 0 from every call. Each case is a static test_* function; main
 * runs them in order on every process (they hold collective calls). */
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

/* What the cases share: each process's block of a SLOT per writer, a local source from
 * ARMCI_Malloc_local, two more local buffers, and the block offsets of a shape's two
 * sides. */
static void **base;
static char *src, *back, *expect;
static size_t *soff, *doff;

/* The counts of the random rounds: blocks read back wrong, gap bytes overwritten,
 * accumulated elements wrong (their sum as last reported), calls that returned nonzero. */
typedef struct {
    int bad_put, bad_gap, bad_acc, reported;
    int bad_rc; /* nonzero returns; GA test.c:502,512,1015 (PutS/GetS/AccS), 1696-1760 */
} tally_t;

/* The strided put of a round, blocking or (@p nb) nonblocking; @return nonzero returns. */
static int round_put(shape_t *s, char *rbase, int p, int nb)
{
    armci_hdl_t h;
    int bad_rc = 0;
    if (nb) {
        bad_rc +=
            ARMCI_NbPutS(src, s->src_stride, rbase, s->dst_stride, s->count, s->levels, p, &h) != 0;
        ARMCI_Wait(&h);
    } else {
        bad_rc += ARMCI_PutS(src, s->src_stride, rbase, s->dst_stride, s->count, s->levels, p) != 0;
    }
    return bad_rc;
}

/* @p model += @p scale * src over the @p n blocks of shape @p s, elements of @p type. */
static void acc_model(int type, const char *scale, char *model, shape_t *s, size_t n, size_t es)
{
    for (size_t b = 0; b < n; b++)
        for (size_t e = 0; e < (size_t)s->count[0] / es; e++) {
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
}

/* The strided accumulate of a round; what the target should then hold goes to expect.
 * @return nonzero returns. */
static int round_acc(shape_t *s, size_t n, int type, size_t es, char *rbase, int p, int nb)
{
    armci_hdl_t h;
    int bad_rc = 0;
    /* Known values there first: dst = 1 + index, then dst += scale * src. */
    char *model = malloc(s->dst_extent);
    memset(model, 0x5a, s->dst_extent);
    for (size_t b = 0; b < n; b++)
        for (size_t e = 0; e < (size_t)s->count[0] / es; e++) {
            set_elem(type, model + doff[b] + e * es, 1.0 + (double)e);
            set_elem(type, src + soff[b] + e * es, (double)(b + e % 7));
        }
    bad_rc += ARMCI_Put(model, rbase, (int)s->dst_extent, p) != 0;
    char scale[16];
    set_elem(type, scale, 2.0);
    if (nb) {
        bad_rc += ARMCI_NbAccS(type, scale, src, s->src_stride, rbase, s->dst_stride, s->count,
                               s->levels, p, &h) != 0;
        ARMCI_Wait(&h);
    } else {
        bad_rc += ARMCI_AccS(type, scale, src, s->src_stride, rbase, s->dst_stride, s->count,
                             s->levels, p) != 0;
    }
    acc_model(type, scale, model, s, n, es);
    memcpy(expect, model, s->dst_extent);
    free(model);
    return bad_rc;
}

/* Bring the whole destination extent back, contiguous, and compare. */
static void round_compare(shape_t *s, size_t n, int acc, int type, size_t es, char *rbase, int p,
                          tally_t *tl)
{
    memset(back, 0, SLOT);
    tl->bad_rc += ARMCI_Get(rbase, back, (int)s->dst_extent, p) != 0;
    char *inblock = calloc(s->dst_extent, 1);
    for (size_t b = 0; b < n; b++)
        memset(inblock + doff[b], 1, (size_t)s->count[0]);
    for (size_t i = 0; i < s->dst_extent; i++)
        tl->bad_gap += !inblock[i] && back[i] != 0x5a;
    for (size_t b = 0; b < n && !acc; b++)
        tl->bad_put += memcmp(back + doff[b], expect + soff[b], (size_t)s->count[0]) != 0;
    for (size_t b = 0; b < n && acc; b++)
        for (size_t e = 0; e < (size_t)s->count[0] / es; e++) {
            double complex got = get_elem(type, back + doff[b] + e * es);
            double complex want = get_elem(type, expect + doff[b] + e * es);
            /* small integers, exact in every type: any difference is an error */
            tl->bad_acc += got != want;
        }
    free(inblock);
}

/* And the strided get of the same shape must return the source blocks. */
static void round_get(shape_t *s, size_t n, char *rbase, int p, int nb, tally_t *tl)
{
    armci_hdl_t h;
    memset(back, 0, SLOT);
    if (nb) {
        tl->bad_rc += ARMCI_NbGetS(rbase, s->dst_stride, back, s->src_stride, s->count, s->levels,
                                   p, &h) != 0;
        ARMCI_Wait(&h);
    } else {
        tl->bad_rc +=
            ARMCI_GetS(rbase, s->dst_stride, back, s->src_stride, s->count, s->levels, p) != 0;
    }
    for (size_t b = 0; b < n; b++)
        tl->bad_put += memcmp(back + soff[b], expect + soff[b], (size_t)s->count[0]) != 0;
}

/* Round @p round of the random shapes: a put (with a get back) or an accumulate. */
static void random_round(int round, unsigned long *rng, tally_t *tl)
{
    shape_t s;
    int type = (int)(t_rand(rng) % 6), acc = round % 3 == 2, nb = round % 2;
    size_t es = acc ? elem_size(type) : 1;
    make_shape(rng, &s, (int)es);
    int p = (int)(t_rand(rng) % (unsigned)t_np);
    char *rbase = (char *)base[p] + (size_t)t_me * SLOT;
    size_t n = blocks(&s, s.src_stride, soff);
    blocks(&s, s.dst_stride, doff);
    /* Remote slot: a known background, so gaps can be checked. */
    memset(src, 0x5a, s.dst_extent);
    tl->bad_rc += ARMCI_Put(src, rbase, (int)s.dst_extent, p) != 0;
    for (size_t i = 0; i < s.src_extent; i++)
        src[i] = (char)t_rand(rng);
    memcpy(expect, src, s.src_extent);
    if (!acc)
        tl->bad_rc += round_put(&s, rbase, p, nb);
    else
        tl->bad_rc += round_acc(&s, n, type, es, rbase, p, nb);
    round_compare(&s, n, acc, type, es, rbase, p, tl);
    if (tl->bad_acc + tl->bad_gap + tl->bad_put > tl->reported) {
        fprintf(stderr,
                "rank %d round %d: %s type %d levels %d block %d bytes, %zu blocks, to %d, %s\n",
                t_me, round, acc ? "acc" : "put", type, s.levels, s.count[0], n, p,
                nb ? "nonblocking" : "blocking");
        tl->reported = tl->bad_acc + tl->bad_gap + tl->bad_put;
    }
    if (!acc)
        round_get(&s, n, rbase, p, nb, tl);
}

/* 60 rounds of random shapes, checked against the local model. */
static void test_random_shapes_match_model(void)
{
    unsigned long rng = 0x9e3779b97f4a7c15UL ^ (unsigned long)(t_me + 1) * 7919;
    tally_t tl = {0, 0, 0, 0, 0};
    for (int round = 0; round < 60; round++)
        random_round(round, &rng, &tl);
    CHECK(tl.bad_put == 0, "%d strided put/get blocks wrong", tl.bad_put);
    CHECK(tl.bad_gap == 0, "%d gap bytes overwritten", tl.bad_gap);
    CHECK(tl.bad_acc == 0, "%d accumulated elements wrong", tl.bad_acc);
    CHECK(tl.bad_rc == 0, "%d put/get/acc calls of the random shapes returned nonzero", tl.bad_rc);
}

/* The same random shapes judged by plain loads and stores at the owner, not by another
 * of our calls (a fault shared by put and get would cancel out in the rounds above). All
 * processes draw the round's shape from one seed; each puts into its slot at its right
 * neighbour and the owner compares its memory with the writer's bytes (a formula of
 * writer, round and position) and the background it stored in the gaps; then the owner
 * stores a pattern of its own there and the writer brings it back with a strided get,
 * into a background of its own. */
static char owner_byte(int w, int round, size_t at)
{
    return (char)(w * 29 + round * 13 + (int)(at % 251));
}

static void test_random_shapes_at_owner(void)
{
    unsigned long rng = 0x2545f4914f6cdd1dUL; /* the same on every process */
    int p = (t_me + 1) % t_np, left = (t_me + t_np - 1) % t_np;
    char *mine = (char *)base[t_me] + (size_t)left * SLOT, *theirs = (char *)base[p];
    theirs += (size_t)t_me * SLOT;
    long bad_put = 0, bad_gap = 0, bad_back = 0, bad_get = 0, bad_rc = 0;
    ARMCI_Barrier(); /* the rounds above put into these slots until each process is done */
    for (int round = 0; round < 24; round++) {
        shape_t s;
        make_shape(&rng, &s, 1);
        size_t n = blocks(&s, s.src_stride, soff);
        blocks(&s, s.dst_stride, doff);
        memset(mine, 0x5a, s.dst_extent); /* the owner's background */
        for (size_t i = 0; i < s.src_extent; i++)
            src[i] = owner_byte(t_me, round, i);
        ARMCI_Barrier();
        if (round % 2)
            bad_rc += ARMCI_PutS(src, s.src_stride, theirs, s.dst_stride, s.count, s.levels, p);
        else {
            armci_hdl_t h;
            ARMCI_INIT_HANDLE(&h);
            bad_rc +=
                ARMCI_NbPutS(src, s.src_stride, theirs, s.dst_stride, s.count, s.levels, p, &h);
            ARMCI_Wait(&h);
        }
        ARMCI_Barrier();
        char *covered = calloc(s.dst_extent, 1);
        for (size_t b = 0; b < n; b++)
            for (size_t i = 0; i < (size_t)s.count[0]; i++) {
                bad_put += mine[doff[b] + i] != owner_byte(left, round, soff[b] + i);
                covered[doff[b] + i] = 1;
            }
        for (size_t i = 0; i < s.dst_extent; i++)
            bad_gap += !covered[i] && mine[i] != 0x5a;
        free(covered);
        for (size_t i = 0; i < s.dst_extent; i++) /* the owner's own bytes, for the get */
            mine[i] = owner_byte(100 + t_me, round, i);
        memset(back, 0x3c, s.src_extent);
        ARMCI_Barrier();
        bad_rc += ARMCI_GetS(theirs, s.dst_stride, back, s.src_stride, s.count, s.levels, p);
        covered = calloc(s.src_extent, 1);
        for (size_t b = 0; b < n; b++)
            for (size_t i = 0; i < (size_t)s.count[0]; i++) {
                bad_get += back[soff[b] + i] != owner_byte(100 + p, round, doff[b] + i);
                covered[soff[b] + i] = 1;
            }
        for (size_t i = 0; i < s.src_extent; i++)
            bad_back += !covered[i] && back[i] != 0x3c;
        free(covered);
        ARMCI_Barrier();
    }
    CHECK(bad_put == 0, "%ld bytes of random strided puts wrong at the owner", bad_put);
    CHECK(bad_get == 0, "%ld bytes of random strided gets differ from the owner's stores", bad_get);
    CHECK(bad_gap == 0, "%ld gap bytes at the owner overwritten by strided puts", bad_gap);
    CHECK(bad_back == 0, "%ld gap bytes of the reader overwritten by strided gets", bad_back);
    CHECK(bad_rc == 0, "%ld PutS/GetS calls returned nonzero", bad_rc);
}

/* Puts of small blocks travel as messages. A long one (several messages, the first
 * larger than a provider's eager size) followed by a short one to the same bytes: the
 * short one must land last, though it may arrive first. */
static void test_overlapping_puts_last_writer_wins(void)
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
static void test_puts_flag_blocks_in_behind_flag(void)
{
    int p = (t_me + 1) % t_np, left = (t_me + t_np - 1) % t_np, wrong = 0;
    char *mine = (char *)base[t_me] + (size_t)left * SLOT;
    int *myflag = (int *)(mine + SLOT - sizeof(int));
    int *flag = (int *)((char *)base[p] + (size_t)t_me * SLOT + SLOT - sizeof(int));
    char *dst = (char *)base[p] + (size_t)t_me * SLOT;
    ARMCI_Barrier();
    for (int round = 1; round <= 8; round++) {
        int blk = round % 2 ? 64 : 60000, rows = round % 2 ? 200 : 4;
        int stride[1] = {blk + 8}, count[2] = {blk, rows};
        for (int i = 0; i < stride[0] * rows; i++)
            src[i] = (char)(round * 11 + t_me + i);
        ARMCI_PutS_flag(src, stride, dst, stride, count, 1, flag, round, p);
        /* An acquire load, as the target stores the flag with a release after the blocks
         * (am_target.c): the reads below are ordered after it, on any processor. */
        T_WAIT_FOR(myflag, round, "round %d: the flag of ARMCI_PutS_flag", round);
        for (int r = 0; r < rows; r++)
            for (int i = 0; i < blk; i++) {
                int at = r * stride[0] + i;
                wrong += mine[at] != (char)(round * 11 + left + at);
            }
        ARMCI_Barrier();
    }
    CHECK(wrong == 0, "ARMCI_PutS_flag: %d bytes not in place behind the flag", wrong);
}

/* One shape of the own-block case: blocks of blk bytes in rows and planes, laid out as
 * sst in this process's own block (lsrc, with lback beside it) and as dst at the
 * targets; mine is this process's block of base. */
typedef struct {
    int sh, blk, rows, planes, count[3], sst[2], dst[2];
    char *lsrc, *lback, *mine;
} own_t;

static void own_block_puts(own_t *o)
{
    int blk = o->blk, rows = o->rows, planes = o->planes, *sst = o->sst, *dst = o->dst;
    int wrong_put = 0;
    for (int t = 0; t < t_np; t++) {
        int p = (t_me + t) % t_np;
        for (int q = 0; q < planes; q++)
            for (int r = 0; r < rows; r++)
                for (int b = 0; b < blk; b++)
                    o->lsrc[q * sst[1] + r * sst[0] + b] = lb(o->sh, t_me, p, q, r, b);
        int rc =
            ARMCI_PutS(o->lsrc, sst, (char *)base[p] + (size_t)t_me * SLOT, dst, o->count, 2, p);
        CHECK(rc == 0, "PutS from own block to %d returned %d", p, rc);
    }
    ARMCI_Barrier();
    for (int w = 0; w < t_np; w++)
        for (int q = 0; q < planes; q++)
            for (int r = 0; r < rows; r++)
                for (int b = 0; b < blk; b++)
                    wrong_put +=
                        o->mine[(size_t)w * SLOT + (size_t)(q * dst[1] + r * dst[0] + b)] !=
                        lb(o->sh, w, t_me, q, r, b);
    CHECK(wrong_put == 0, "PutS of %d-byte blocks from an ARMCI_Malloc block: %d wrong", blk,
          wrong_put);
    ARMCI_Barrier();
}

/* Read back what I put everywhere, into my own block with the source layout. */
static void own_block_gets(own_t *o)
{
    int blk = o->blk, rows = o->rows, planes = o->planes, *sst = o->sst, *dst = o->dst;
    int wrong_get = 0;
    for (int t = 0; t < t_np; t++) {
        int p = (t_me + t) % t_np;
        memset(o->lback, 0x33, SLOT);
        int rc =
            ARMCI_GetS((char *)base[p] + (size_t)t_me * SLOT, dst, o->lback, sst, o->count, 2, p);
        CHECK(rc == 0, "GetS into own block from %d returned %d", p, rc);
        for (int q = 0; q < planes; q++)
            for (int r = 0; r < rows; r++) {
                for (int b = 0; b < blk; b++)
                    wrong_get +=
                        o->lback[q * sst[1] + r * sst[0] + b] != lb(o->sh, t_me, p, q, r, b);
                wrong_get += o->lback[q * sst[1] + r * sst[0] + blk] != 0x33; /* gap */
            }
    }
    CHECK(wrong_get == 0, "GetS of %d-byte blocks into an ARMCI_Malloc block: %d wrong", blk,
          wrong_get);
    ARMCI_Barrier();
}

/* AccS of doubles (scale 2) from my block; the owner's doubles start at 1. */
static void own_block_accs(own_t *o)
{
    int blk = o->blk, rows = o->rows, planes = o->planes, *sst = o->sst, *dst = o->dst;
    int wrong_acc = 0;
    int dcount[3] = {blk / 8 * 8, rows, planes};
    int ne = dcount[0] / 8;
    for (size_t i = 0; i < (size_t)t_np * SLOT / 8; i++)
        ((double *)o->mine)[i] = 1.0;
    ARMCI_Barrier();
    double two = 2.0;
    for (int t = 0; t < t_np; t++) {
        int p = (t_me + t) % t_np;
        for (int q = 0; q < planes; q++)
            for (int r = 0; r < rows; r++)
                for (int e = 0; e < ne; e++)
                    *(double *)(o->lsrc + q * sst[1] + r * sst[0] + e * 8) =
                        (double)(t_me * 100 + p * 10 + q + r + e % 5);
        int rc = ARMCI_AccS(ARMCI_ACC_DBL, &two, o->lsrc, sst,
                            (char *)base[p] + (size_t)t_me * SLOT, dst, dcount, 2, p);
        CHECK(rc == 0, "AccS from own block to %d returned %d", p, rc);
    }
    ARMCI_Barrier();
    for (int w = 0; w < t_np; w++)
        for (int q = 0; q < planes; q++)
            for (int r = 0; r < rows; r++)
                for (int e = 0; e < ne; e++) {
                    double got = *(double *)(o->mine + (size_t)w * SLOT +
                                             (size_t)(q * dst[1] + r * dst[0] + e * 8));
                    wrong_acc += got != 1.0 + 2.0 * (w * 100 + t_me * 10 + q + r + e % 5);
                }
    CHECK(wrong_acc == 0, "AccS of %d-byte blocks from an ARMCI_Malloc block: %d wrong", blk,
          wrong_acc);
    ARMCI_Barrier();
}

/* The local side in this process's own ARMCI_Malloc block: strided put and accumulate
 * from it, strided get into it, with blocks that travel as messages (24 B) and blocks
 * large enough to move by zero-copy RMA (40000 B). armci-mpi
 * tests/test_puts_gets_dla.c:60-69 (PutS from, GetS into buffers of shared allocations);
 * GA armci/testing/perf_nb.c:376 (AccS from dsrc[me], an ARMCI_Malloc block). */
static void test_local_side_in_own_malloc_block(void)
{
    void **lbuf = malloc((size_t)t_np * sizeof(void *));
    int rc = ARMCI_Malloc(lbuf, (armci_size_t)(2 * SLOT));
    CHECK(rc == 0, "ARMCI_Malloc of the local-buffer block returned %d", rc);
    static const int shapes[2][3] = {{24, 20, 3}, {40000, 2, 2}};
    for (int sh = 0; sh < 2; sh++) {
        int blk = shapes[sh][0], rows = shapes[sh][1], planes = shapes[sh][2];
        own_t o = {.sh = sh, .blk = blk, .rows = rows, .planes = planes};
        o.count[0] = blk, o.count[1] = rows, o.count[2] = planes;
        o.sst[0] = blk + 8, o.sst[1] = (blk + 8) * rows + 16;
        o.dst[0] = blk + 16, o.dst[1] = (blk + 16) * rows;
        o.lsrc = lbuf[t_me], o.lback = o.lsrc + SLOT, o.mine = base[t_me];
        own_block_puts(&o);
        own_block_gets(&o);
        own_block_accs(&o);
    }
    rc = ARMCI_Free(lbuf[t_me]);
    CHECK(rc == 0, "ARMCI_Free returned %d", rc); /* armci-mpi tests/contrib/armci-test.c:335 */
    free(lbuf);
}

/* Variant @p v of a level-0 put and get of @p bytes to @p dst at process @p p (blocking;
 * handle + Wait; NULL handle + WaitAll) over a background: the get must bring back what
 * was put, and the 8 bytes past count[0] keep the background. @return wrong transfers. */
static int level0_put_get(int k, int v, int bytes, char *dst, int p)
{
    armci_hdl_t h;
    int wrong = 0, rc;
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
    return wrong;
}

/* AccS and NbAccS at level 0: doubles, scale 3, onto 1.0 each. @return wrong elements. */
static int level0_acc(int k, int bytes, char *dst, int p)
{
    armci_hdl_t h;
    int rc, wrong = 0;
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
    return wrong;
}

/* Stride level 0 with NULL stride arrays: count[0] bytes, contiguous, as GA's test.c
 * issues ARMCI_NbPutS (:1704, :1868) and ARMCI_NbGetS (:1747, :1906) with NULL handles
 * and with handles, and perf_nb.c:376 ARMCI_AccS at level 0. Each must return 0 and move
 * exactly count[0] bytes. */
static void test_level0_null_strides(void)
{
    static const int lens[] = {8, 3000, 100000};
    int p = (t_me + 1) % t_np, wrong = 0;
    char *dst = (char *)base[p] + (size_t)t_me * SLOT;
    for (int k = 0; k < 3; k++) {
        for (int v = 0; v < 3; v++) /* blocking; handle + Wait; NULL handle + WaitAll */
            wrong += level0_put_get(k, v, lens[k], dst, p);
        wrong += level0_acc(k, lens[k], dst, p);
    }
    CHECK(wrong == 0, "stride level 0 with NULL strides: %d wrong transfers", wrong);
}

/* armci_write_strided / armci_read_strided are local packing helpers. */
static void test_write_read_strided_locally(void)
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

static void setup(void)
{
    base = malloc((size_t)t_np * sizeof(void *));
    int rc = ARMCI_Malloc(base, (armci_size_t)SLOT * t_np);
    CHECK(rc == 0, "ARMCI_Malloc returned %d", rc); /* GA armci/testing/test.c:411 */
    src = ARMCI_Malloc_local(SLOT);
    back = malloc(SLOT);
    expect = malloc(SLOT);
    soff = malloc(70000 * sizeof(size_t));
    doff = malloc(70000 * sizeof(size_t));
}

static void teardown(void)
{
    ARMCI_Barrier();
    ARMCI_Free_local(src);
    int rc = ARMCI_Free(base[t_me]);
    CHECK(rc == 0, "ARMCI_Free returned %d", rc);
    free(back);
    free(expect);
    free(soff);
    free(doff);
    free(base);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    setup();
    test_random_shapes_match_model();
    test_random_shapes_at_owner();
    test_overlapping_puts_last_writer_wins();
    test_puts_flag_blocks_in_behind_flag();
    test_local_side_in_own_malloc_block();
    test_level0_null_strides();
    test_write_read_strided_locally();
    teardown();
    return t_finish("t_strided");
}
