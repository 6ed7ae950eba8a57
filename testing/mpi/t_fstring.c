/* SPDX-License-Identifier: BSD-3-Clause */
/* Operators as a Fortran caller passes them. A Fortran character argument carries its
 * length apart and no terminating NUL, and Global Arrays hands NWChem's literal on as it
 * came (global/src/fapi.c, ga_igop_ -> pnga_gop -> armci_msg_lgop; NWChem's first is
 * util_file_name.F, call ga_igop(msg_utscr, toolarge, 1, '+')). What follows the literal is
 * whatever the compiler put there: other literals, blanks of a padded CHARACTER*n variable,
 * any byte. ARMCI-MPI (src/message_gop.c:150-176, strncmp(op, "max", 3) ...; its selection
 * in src/message.c:431) and GA's ComEx (comex/src-armci/message.c:85-131, v5.8.2) match an
 * operator by the prefix of its own length; so must we, for every function that takes one.
 * Every result is checked against MPI's own reduction of the same data. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tester.h"

/* What may follow a Fortran literal. None begins with a byte that would extend an operator
 * into a longer one ("&" then "&"): there the peers, and we, read the longer one. */
static const char *const tails[] = {
    "\x01\xff\x7fgarbage", /* any bytes */
    "       ",             /* a CHARACTER*8 variable, blank padded */
    "max",                 /* the next literal of the same routine */
    "Q",
};
#define NTAILS (int)(sizeof(tails) / sizeof(tails[0]))

/* @p name followed by @p tail with no NUL between, in @p buf (64 bytes; the NUL that ends
 * the buffer lies past every byte a prefix match may read). */
static char *fstr(char buf[64], const char *name, const char *tail)
{
    memset(buf, 'J', 64);
    size_t n = strlen(name), t = strlen(tail);
    memcpy(buf, name, n);
    memcpy(buf + n, tail, t);
    buf[63] = 0;
    return buf;
}

/* The reductions, and what MPI calls each: the test's own table, not the library's. */
static const struct {
    const char *name;
    MPI_Op mop;
    int absolute, bitwise, logical;
} ops[] = {
    {"+", MPI_SUM, 0, 0, 0},     {"*", MPI_PROD, 0, 0, 0},     {"max", MPI_MAX, 0, 0, 0},
    {"min", MPI_MIN, 0, 0, 0},   {"absmax", MPI_MAX, 1, 0, 0}, {"absmin", MPI_MIN, 1, 0, 0},
    {"or", MPI_BOR, 0, 1, 0},    {"&&", MPI_LAND, 0, 0, 1},    {"land", MPI_LAND, 0, 0, 1},
    {"||", MPI_LOR, 0, 0, 1},    {"lor", MPI_LOR, 0, 0, 1},    {"&", MPI_BAND, 0, 1, 0},
    {"band", MPI_BAND, 0, 1, 0}, {"|", MPI_BOR, 0, 1, 0},      {"bor", MPI_BOR, 0, 1, 0},
};
#define NOPS (int)(sizeof(ops) / sizeof(ops[0]))

/* This process's value k for operation o: signs mixed for abs*, overlapping bit patterns
 * for the bitwise ones, some zeros for the logical ones; small enough that * stays exact. */
static long value(int o, int k)
{
    if (ops[o].logical)
        return (k + t_me) % 3 == 0 ? 0 : t_me + k + 1;
    if (ops[o].bitwise)
        return (0x5A3L >> (t_me % 4)) | (1L << (t_me + k));
    return (t_me % 2 ? -1 : 1) * (long)(t_me + k + 1);
}

/* MPI's answer for operation o over @p comm, as longs (|v| applied first for abs*). */
static void expected(int o, long ref[4], MPI_Comm comm)
{
    for (int k = 0; k < 4; k++) {
        ref[k] = value(o, k);
        if (ops[o].absolute)
            ref[k] = labs(ref[k]);
        if (ops[o].logical)
            ref[k] = ref[k] != 0;
    }
    MPI_Allreduce(MPI_IN_PLACE, ref, 4, MPI_LONG, ops[o].mop, comm);
}

/* Every operator with every tail through the five world reductions; the integer types
 * take every operator, floats and doubles all but the bitwise ones. */
static void world_reductions(void)
{
    char op[64];
    for (int o = 0; o < NOPS; o++) {
        long ref[4];
        expected(o, ref, MPI_COMM_WORLD);
        for (int t = 0; t < NTAILS; t++) {
            int iv[4];
            long l[4];
            long long ll[4];
            float f[4];
            double d[4];
            for (int k = 0; k < 4; k++) {
                l[k] = value(o, k);
                iv[k] = (int)l[k];
                ll[k] = l[k];
                f[k] = (float)l[k];
                d[k] = (double)l[k];
            }
            armci_msg_igop(iv, 4, fstr(op, ops[o].name, tails[t]));
            armci_msg_lgop(l, 4, fstr(op, ops[o].name, tails[t]));
            armci_msg_llgop(ll, 4, fstr(op, ops[o].name, tails[t]));
            int bad = 0;
            for (int k = 0; k < 4; k++)
                bad += iv[k] != ref[k] || l[k] != ref[k] || ll[k] != ref[k];
            if (!ops[o].bitwise) {
                armci_msg_fgop(f, 4, fstr(op, ops[o].name, tails[t]));
                armci_msg_dgop(d, 4, fstr(op, ops[o].name, tails[t]));
                for (int k = 0; k < 4; k++)
                    bad += f[k] != (float)ref[k] || d[k] != (double)ref[k];
            }
            CHECK(bad == 0, "\"%s\" followed by tail %d: %d elements differ from MPI's",
                  ops[o].name, t, bad);
        }
    }
}

/* The other functions that take an operator: scoped, group, reduce and cluster variants,
 * and selection. One operator each, with a tail. */
static void other_reductions(void)
{
    char op[64];
    long ref[4];
    const int plus = 0, absmax = 4, land = 8, bor = 14;

    long a[4];
    for (int k = 0; k < 4; k++)
        a[k] = value(absmax, k);
    armci_msg_gop_scope(SCOPE_ALL, a, 4, fstr(op, "absmax", tails[0]), ARMCI_LONG);
    expected(absmax, ref, MPI_COMM_WORLD);
    CHECK(memcmp(a, ref, sizeof(a)) == 0, "gop_scope \"absmax\" with a tail");

    double d[4];
    for (int k = 0; k < 4; k++)
        d[k] = (double)value(plus, k);
    armci_msg_reduce(d, 4, fstr(op, "+", tails[1]), ARMCI_DOUBLE);
    expected(plus, ref, MPI_COMM_WORLD);
    int bad = 0;
    for (int k = 0; k < 4; k++)
        bad += d[k] != (double)ref[k];
    CHECK(bad == 0, "reduce \"+\" with a tail: %d wrong", bad);

    int iv[4];
    for (int k = 0; k < 4; k++)
        iv[k] = (int)value(land, k);
    armci_msg_reduce_scope(SCOPE_ALL, iv, 4, fstr(op, "land", tails[2]), ARMCI_INT);
    expected(land, ref, MPI_COMM_WORLD);
    bad = 0;
    for (int k = 0; k < 4; k++)
        bad += iv[k] != ref[k];
    CHECK(bad == 0, "reduce_scope \"land\" with a tail: %d wrong", bad);

    /* a group of the even processes, every group reduction */
    int nev = (t_np + 1) / 2, ids[64];
    for (int i = 0; i < nev; i++)
        ids[i] = 2 * i;
    ARMCI_Group ge;
    ARMCI_Group_create(nev, ids, &ge);
    MPI_Comm evens;
    MPI_Comm_split(MPI_COMM_WORLD, t_me % 2, t_me, &evens);
    if (t_me % 2 == 0) {
        long l[4];
        long long ll[4];
        float f[4];
        for (int k = 0; k < 4; k++) {
            l[k] = value(bor, k);
            iv[k] = (int)l[k];
            ll[k] = l[k];
        }
        armci_msg_group_igop(iv, 4, fstr(op, "bor", tails[3]), &ge);
        armci_msg_group_lgop(l, 4, fstr(op, "bor", tails[0]), &ge);
        armci_msg_group_llgop(ll, 4, fstr(op, "bor", tails[1]), &ge);
        expected(bor, ref, evens);
        bad = 0;
        for (int k = 0; k < 4; k++)
            bad += iv[k] != ref[k] || l[k] != ref[k] || ll[k] != ref[k];
        for (int k = 0; k < 4; k++) {
            f[k] = (float)value(plus, k);
            d[k] = (double)value(plus, k);
        }
        armci_msg_group_fgop(f, 4, fstr(op, "+", tails[2]), &ge);
        armci_msg_group_dgop(d, 4, fstr(op, "+", tails[3]), &ge);
        expected(plus, ref, evens);
        for (int k = 0; k < 4; k++)
            bad += f[k] != (float)ref[k] || d[k] != (double)ref[k];
        for (int k = 0; k < 4; k++)
            a[k] = value(absmax, k);
        armci_msg_group_gop_scope(SCOPE_ALL, a, 4, fstr(op, "absmax", tails[1]), ARMCI_LONG, &ge);
        expected(absmax, ref, evens);
        for (int k = 0; k < 4; k++)
            bad += a[k] != ref[k];
        CHECK(bad == 0, "group reductions with tails: %d wrong", bad);
    }
    MPI_Comm_free(&evens);
    ARMCI_Group_free(&ge);

    /* selection: "min" and "max" followed by other bytes */
    struct {
        double key;
        int who;
    } rec = {100.0 - t_me, t_me};
    armci_msg_sel(&rec, sizeof(rec), fstr(op, "min", tails[0]), ARMCI_DOUBLE, 1);
    CHECK(rec.who == t_np - 1, "sel \"min\" with a tail picked %d", rec.who);
    rec.key = 100.0 - t_me;
    rec.who = t_me;
    armci_msg_sel_scope(SCOPE_ALL, &rec, sizeof(rec), fstr(op, "max", tails[1]), ARMCI_DOUBLE, 1);
    CHECK(rec.who == 0, "sel_scope \"max\" with a tail picked %d", rec.who);
}

/* The cluster reductions run among the first process of each node (ARMCI's node, as
 * tester.h's t_node_size finds it); the others keep their data. */
static void cluster_reductions(void)
{
    char op[64];
    MPI_Comm masters;
    int node_rank;
    t_node_size(NULL, &node_rank);
    int master = node_rank == 0;
    MPI_Comm_split(MPI_COMM_WORLD, master, t_me, &masters);
    const int o = 2; /* max */
    long ref[4], own[4];
    expected(o, ref, masters);
    for (int i = 0; i < 4; i++)
        own[i] = value(o, i);
    const long *want = master ? ref : own;
    int iv[4];
    long l[4];
    long long ll[4];
    float f[4];
    double d[4];
    for (int i = 0; i < 4; i++) {
        l[i] = own[i];
        iv[i] = (int)own[i];
        ll[i] = own[i];
        f[i] = (float)own[i];
        d[i] = (double)own[i];
    }
    armci_msg_clus_igop(iv, 4, fstr(op, "max", tails[0]));
    armci_msg_clus_lgop(l, 4, fstr(op, "max", tails[1]));
    armci_msg_clus_llgop(ll, 4, fstr(op, "max", tails[2]));
    armci_msg_clus_fgop(f, 4, fstr(op, "max", tails[3]));
    armci_msg_clus_dgop(d, 4, fstr(op, "max", tails[0]));
    int bad = 0;
    for (int i = 0; i < 4; i++)
        bad += iv[i] != want[i] || l[i] != want[i] || ll[i] != want[i] || f[i] != (float)want[i] ||
               d[i] != (double)want[i];
    CHECK(bad == 0, "cluster reductions (%s) with tails: %d wrong",
          master ? "a node's first" : "not a node's first", bad);
    MPI_Comm_free(&masters);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    world_reductions();
    other_reductions();
    cluster_reductions();
    armci_msg_barrier();
    return t_finish("t_fstring");
}
