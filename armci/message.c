/*
 * armci_msg_*: message passing and collectives over MPI. Every wait drives ARMCI progress,
 * so a process sitting in a collective still serves one-sided operations aimed at it.
 * Process arguments (roots, senders) are absolute ids, as in ARMCI-MPI. Reductions and
 * barriers of a world on one node go through the node's shared memory (src/coll), those
 * of a world over several nodes through MPI point-to-point messages (src/coll/p2p.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "../src/coll/collectives.h"

/* The communicator of a scope; MPI_COMM_NULL when this process is not in it. */
static MPI_Comm scope_comm(const char *call, int scope, MPI_Comm all)
{
    switch (scope) {
    case SCOPE_ALL:
        return all;
    case SCOPE_NODE:
        return armcii_g.node_comm;
    case SCOPE_MASTERS:
        return armcii_g.masters_comm;
    default:
        armcii_fatal(call, "scope %d is not SCOPE_ALL, SCOPE_NODE or SCOPE_MASTERS", scope);
    }
}

/* Rank in @p comm of absolute process @p abs, or an error naming it. */
static int rank_in(const char *call, MPI_Comm comm, int abs)
{
    armcii_check_rank(call, abs);
    int r;
    armcii_translate(armcii_g.comm, comm, 1, &abs, &r);
    if (r == MPI_UNDEFINED)
        armcii_fatal(call, "process %d is not in the communicating group", abs);
    return r;
}

static MPI_Datatype mpi_type(const char *call, int type, size_t *size_p)
{
    switch (type) {
    case ARMCI_INT:
        *size_p = sizeof(int);
        return MPI_INT;
    case ARMCI_LONG:
        *size_p = sizeof(long);
        return MPI_LONG;
    case ARMCI_LONG_LONG:
        *size_p = sizeof(long long);
        return MPI_LONG_LONG;
    case ARMCI_FLOAT:
        *size_p = sizeof(float);
        return MPI_FLOAT;
    case ARMCI_DOUBLE:
        *size_p = sizeof(double);
        return MPI_DOUBLE;
    default:
        armcii_fatal(call, "type %d is not one of ARMCI_INT, _LONG, _LONG_LONG, _FLOAT, _DOUBLE",
                     type);
    }
}

/* The element type as a reduction's description shows it. */
static const char *type_name(int type)
{
    switch (type) {
    case ARMCI_INT:
        return "int";
    case ARMCI_LONG:
        return "long";
    case ARMCI_LONG_LONG:
        return "longlong";
    case ARMCI_FLOAT:
        return "float";
    default:
        return "double";
    }
}

/* Replace each element by its absolute value (for absmax/absmin). */
static void make_abs(void *x, int n, int type)
{
    for (int i = 0; i < n; i++) {
        switch (type) {
        case ARMCI_INT:
            ((int *)x)[i] = abs(((int *)x)[i]);
            break;
        case ARMCI_LONG:
            ((long *)x)[i] = labs(((long *)x)[i]);
            break;
        case ARMCI_LONG_LONG:
            ((long long *)x)[i] = llabs(((long long *)x)[i]);
            break;
        case ARMCI_FLOAT:
            ((float *)x)[i] = fabsf(((float *)x)[i]);
            break;
        case ARMCI_DOUBLE:
            ((double *)x)[i] = fabs(((double *)x)[i]);
            break;
        }
    }
}

static int is_fp(int type)
{
    return type == ARMCI_FLOAT || type == ARMCI_DOUBLE;
}

/*
 * Does @p op begin with @p name? Fortran passes a character argument without a terminating
 * NUL (GA's ga_igop_ in global/src/fapi.c hands NWChem's '+' on as it came), so an
 * operator is matched by the prefix of its own length, as ARMCI-MPI does (src/message_gop.c,
 * strncmp(op, "max", 3) and so on) and GA's ComEx (comex/src-armci/message.c:85-131, v5.8.2).
 * Bytes are read up to the first that differs, never past it: the caller's literal may be
 * one byte long.
 */
static int op_is(const char *op, const char *name)
{
    for (; *name; op++, name++)
        if (*op != *name)
            return 0;
    return 1;
}

/* @p op as an error message may show it: at most its first 8 bytes, up to a NUL, with any
 * unprintable byte escaped (a Fortran operator is followed by whatever the linker placed
 * after the literal). */
static const char *op_shown(const char *op, char buf[40])
{
    if (op == NULL)
        return "(null)";
    char *b = buf;
    for (int i = 0; i < 8 && op[i]; i++) {
        unsigned char c = (unsigned char)op[i];
        b += c >= 0x20 && c < 0x7f && c != '"' && c != '\\' ? sprintf(b, "%c", c)
                                                            : sprintf(b, "\\x%02x", c);
    }
    *b = 0;
    return buf;
}

/*
 * The operations ARMCI-MPI's reductions take (src/message_gop.c): +, *, max, min, absmax,
 * absmin, "or" (bitwise), and the logical and bitwise ones ComEx and GA's own ARMCI added
 * in 2017: && or land, || or lor, & or band, | or bor. Global Arrays relies on them:
 * global/src/elem_alg.c and global.npatch.c reduce compatibility flags with "&&".
 * ARMCI-MPI hands a bitwise operation on floating-point data to MPI, which refuses it;
 * here that is an error naming the call and the type. *logical_p tells a logical operation
 * (whose floating-point operands are reduced as ints, see allreduce). Names that begin
 * another name come after it ("&&" before "&", "||" before "|"), as in both peers.
 */
static MPI_Op mpi_op(const char *call, const char *op, int type, int *abs_p, int *logical_p,
                     const char **name_p)
{
    static const struct {
        const char *name;
        MPI_Op mop;
        int absolute, logical, bitwise;
    } ops[] = {
        {"+", MPI_SUM, 0, 0, 0},     {"*", MPI_PROD, 0, 0, 0},     {"max", MPI_MAX, 0, 0, 0},
        {"min", MPI_MIN, 0, 0, 0},   {"absmax", MPI_MAX, 1, 0, 0}, {"absmin", MPI_MIN, 1, 0, 0},
        {"&&", MPI_LAND, 0, 1, 0},   {"land", MPI_LAND, 0, 1, 0},  {"||", MPI_LOR, 0, 1, 0},
        {"lor", MPI_LOR, 0, 1, 0},   {"or", MPI_BOR, 0, 0, 1},     {"&", MPI_BAND, 0, 0, 1},
        {"band", MPI_BAND, 0, 0, 1}, {"|", MPI_BOR, 0, 0, 1},      {"bor", MPI_BOR, 0, 0, 1},
    };
    char shown[40];
    if (op == NULL)
        armcii_fatal(call, "op is NULL");
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
        if (!op_is(op, ops[i].name))
            continue;
        if (ops[i].bitwise && is_fp(type))
            armcii_fatal(call,
                         "operation \"%s\" is bitwise and the elements are %s; bitwise "
                         "reductions take ARMCI_INT, _LONG or _LONG_LONG",
                         ops[i].name, type == ARMCI_FLOAT ? "floats" : "doubles");
        *abs_p = ops[i].absolute;
        *logical_p = ops[i].logical;
        *name_p = ops[i].name;
        return ops[i].mop;
    }
    armcii_fatal(call,
                 "operation \"%s\" is not one of +, *, max, min, absmax, absmin, && (land), "
                 "|| (lor)%s",
                 op_shown(op, shown), is_fp(type) ? "" : ", & (band), | (bor), or");
}

/* x = the reduction of the n-element vectors at all (one per process, rank order), in
 * rank order, so that every process computes the same bits. */
#define FOLD(ctype, expr)                                                                          \
    do {                                                                                           \
        ctype *o = x;                                                                              \
        const ctype *in = all;                                                                     \
        for (int i = 0; i < n; i++) {                                                              \
            ctype a = in[i];                                                                       \
            for (int p = 1; p < P; p++) {                                                          \
                ctype b = in[(size_t)p * (size_t)n + (size_t)i];                                   \
                a = (expr);                                                                        \
            }                                                                                      \
            o[i] = a;                                                                              \
        }                                                                                          \
    } while (0)
#define FOLD_ARITH(ctype, mop)                                                                     \
    do {                                                                                           \
        if ((mop) == MPI_SUM)                                                                      \
            FOLD(ctype, a + b);                                                                    \
        else if ((mop) == MPI_PROD)                                                                \
            FOLD(ctype, a *b);                                                                     \
        else if ((mop) == MPI_MAX)                                                                 \
            FOLD(ctype, b > a ? b : a);                                                            \
        else                                                                                       \
            FOLD(ctype, b < a ? b : a);                                                            \
    } while (0)
#define FOLD_INT(ctype, mop)                                                                       \
    do {                                                                                           \
        if ((mop) == MPI_BOR)                                                                      \
            FOLD(ctype, a | b);                                                                    \
        else if ((mop) == MPI_BAND)                                                                \
            FOLD(ctype, a &b);                                                                     \
        else if ((mop) == MPI_LAND)                                                                \
            FOLD(ctype, (ctype)(a && b));                                                          \
        else if ((mop) == MPI_LOR)                                                                 \
            FOLD(ctype, (ctype)(a || b));                                                          \
        else                                                                                       \
            FOLD_ARITH(ctype, mop);                                                                \
    } while (0)

static void fold(void *x, const void *all, int n, int P, int type, MPI_Op mop)
{
    switch (type) {
    case ARMCI_INT:
        FOLD_INT(int, mop);
        break;
    case ARMCI_LONG:
        FOLD_INT(long, mop);
        break;
    case ARMCI_LONG_LONG:
        FOLD_INT(long long, mop);
        break;
    case ARMCI_FLOAT:
        FOLD_ARITH(float, mop);
        break;
    case ARMCI_DOUBLE:
        FOLD_ARITH(double, mop);
        break;
    }
}

/* The world on one node: gather every process's vector through the node's shared memory
 * with one synchronisation and reduce it here (ARMCI_COLL_ALG auto or pull, vectors up to
 * ARMCI_COLL_SMALL). A small reduction through MPI_Iallreduce and the runtime's wait took
 * several times as long as MPI_Allreduce itself; this one needs no MPI call. */
static int node_allreduce(const char *call, void *x, int n, size_t es, int type, MPI_Op mop,
                          const char *what)
{
    const void *all = armcii_coll_node_gather(call, x, (size_t)n * es, what);
    if (!all)
        return 0;
    fold(x, all, n, armcii_g.nproc, type, mop);
    return 1;
}

/* The runtime's own communicator over the processes of @p comm, for point-to-point
 * collectives: the world's, or that of group @p g (made with it); MPI_COMM_NULL where there
 * is none (the scopes of the node and of node leaders), and MPI's collectives serve. */
static MPI_Comm own_comm(MPI_Comm comm, const ARMCI_Group *g)
{
    if (comm == armcii_g.comm)
        return armcii_coll_p2p_world();
    if (g && comm == g->comm)
        return g->noncoll_pgroup_comm;
    return MPI_COMM_NULL;
}

/* Before a reduction that MPI's collective does (long vectors, the node and node-leader
 * scopes), that every process of @p comm does the reduction @p what: one more exchange of
 * two ints, which the runtime's own steps spare (they carry @p what along). Left out
 * where ARMCI_COLL_ALG=mpi asks for MPI's collectives alone. */
static void agree_on(const char *call, const char *what, MPI_Comm comm)
{
    unsigned h = 2166136261u; /* FNV-1a */
    for (const char *c = what; *c; c++)
        h = (h ^ (unsigned char)*c) * 16777619u;
    int v[2] = {(int)(h >> 1), -(int)(h >> 1)};
    MPI_Request r;
    MPI_Iallreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_MAX, comm, &r);
    armcii_mpi_wait(call, &r);
    if (v[0] != -v[1])
        armcii_fatal(call,
                     "the processes called this reduction with different operations or "
                     "element types (this process: %s)",
                     what);
}

/* x = op over the processes of comm (of group @p g, if not NULL); in place, everyone gets
 * the result. */
static void allreduce(const char *call, void *x, int n, const char *op, int type, MPI_Comm comm,
                      const ARMCI_Group *g)
{
    size_t es;
    MPI_Datatype dt = mpi_type(call, type, &es);
    int absolute, logical;
    const char *name;
    MPI_Op mop = mpi_op(call, op, type, &absolute, &logical, &name);
    if (n < 0)
        armcii_fatal(call, "element count is negative (%d)", n);
    if (comm == MPI_COMM_NULL || n == 0)
        return;
    armcii_check_local(call, "x", x, (size_t)n);
    if (absolute)
        make_abs(x, n, type);
    if (logical && is_fp(type)) {
        /* MPI defines MPI_LAND and MPI_LOR on integers only: reduce the truth values as
         * ints, on every path alike, and hand back 1.0 or 0.0. */
        int small[64], *t = n <= 64 ? small : malloc((size_t)n * sizeof(int));
        if (!t)
            armcii_fatal(call, "out of memory for a reduction of %d elements", n);
        for (int i = 0; i < n; i++)
            t[i] = type == ARMCI_FLOAT ? ((float *)x)[i] != 0.0f : ((double *)x)[i] != 0.0;
        allreduce(call, t, n, op, ARMCI_INT, comm, g);
        for (int i = 0; i < n; i++) {
            if (type == ARMCI_FLOAT)
                ((float *)x)[i] = (float)t[i];
            else
                ((double *)x)[i] = (double)t[i];
        }
        if (t != small)
            free(t);
        return;
    }
    /* what every process must agree on, told apart by the runtime's own steps */
    char what[ARMCII_COLL_WHAT + 1];
    snprintf(what, sizeof what, "%s %s", name, type_name(type));
    if (comm == armcii_g.comm && node_allreduce(call, x, n, es, type, mop, what))
        return;
    if (armcii_coll_p2p_allreduce(call, own_comm(comm, g), x, n, dt, es, mop, what))
        return;
    if (!armcii_coll_mpi_only(call))
        agree_on(call, what, comm);
    MPI_Request r;
    MPI_Iallreduce(MPI_IN_PLACE, x, n, dt, mop, comm, &r);
    armcii_mpi_wait(call, &r);
}

static void bcast(const char *call, void *buf, int len, int root_abs, MPI_Comm comm,
                  const ARMCI_Group *g)
{
    armcii_check_count(call, "len", len);
    if (comm == MPI_COMM_NULL || len == 0)
        return;
    armcii_check_local(call, "buffer", buf, (size_t)len);
    int root = rank_in(call, comm, root_abs);
    if (armcii_coll_p2p_bcast(call, own_comm(comm, g), buf, (size_t)len, root))
        return;
    MPI_Request r;
    MPI_Ibcast(buf, len, MPI_BYTE, root, comm, &r);
    armcii_mpi_wait(call, &r);
}

static void barrier(const char *call, MPI_Comm comm, const ARMCI_Group *g)
{
    if (comm == armcii_g.comm) {
        armcii_coll_barrier(call);
        return;
    }
    if (armcii_coll_p2p_barrier(call, own_comm(comm, g)))
        return;
    MPI_Request r;
    MPI_Ibarrier(comm, &r);
    armcii_mpi_wait(call, &r);
}

#define MSG_ENTER(name)                                                                            \
    static const char call[] = name;                                                               \
    armcii_enter(call)

/* ---- identity and odds and ends ---- */

int armci_msg_me(void)
{
    int r = 0;
    if (armcii_g.initialized)
        return armcii_g.rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &r); /* usable before ARMCI_Init, as tcgmsg codes expect */
    return r;
}

int armci_msg_nproc(void)
{
    int n = 1;
    if (armcii_g.initialized)
        return armcii_g.nproc;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    return n;
}

void armci_msg_abort(int code)
{
    ARMCI_Error("armci_msg_abort called", code);
}

double armci_timer(void)
{
    return MPI_Wtime();
}

/* ---- point to point ---- */

void armci_msg_snd(int tag, void *buffer, int len, int to)
{
    MSG_ENTER("armci_msg_snd");
    armcii_check_rank(call, to);
    armcii_check_count(call, "len", len);
    armcii_check_local(call, "buffer", buffer, (size_t)len);
    MPI_Request r;
    MPI_Isend(buffer, len, MPI_BYTE, to, tag, armcii_g.comm, &r);
    armcii_mpi_wait(call, &r);
    armcii_unlock();
}

static int receive(const char *call, int tag, void *buffer, int buflen, int *msglen, int from)
{
    armcii_check_count(call, "buflen", buflen);
    armcii_check_local(call, "buffer", buffer, (size_t)buflen);
    MPI_Status st;
    MPI_Request r;
    int done = 0;
    unsigned idle = 0;
    MPI_Irecv(buffer, buflen, MPI_BYTE, from, tag, armcii_g.comm, &r);
    /* A message longer than buflen is an MPI truncation error, reported by MPI itself. */
    while (!done) {
        armcii_poll_waiting(call, &idle);
        MPI_Test(&r, &done, &st);
    }
    if (msglen) {
        int got;
        MPI_Get_count(&st, MPI_BYTE, &got);
        *msglen = got;
    }
    return st.MPI_SOURCE;
}

void armci_msg_rcv(int tag, void *buffer, int buflen, int *msglen, int from)
{
    MSG_ENTER("armci_msg_rcv");
    armcii_check_rank(call, from);
    receive(call, tag, buffer, buflen, msglen, from);
    armcii_unlock();
}

int armci_msg_rcvany(int tag, void *buffer, int buflen, int *msglen)
{
    MSG_ENTER("armci_msg_rcvany");
    int from = receive(call, tag, buffer, buflen, msglen, MPI_ANY_SOURCE);
    armcii_unlock();
    return from;
}

/* ---- barriers and broadcasts ---- */

void armci_msg_barrier(void)
{
    MSG_ENTER("armci_msg_barrier");
    barrier(call, armcii_g.comm, NULL);
    armcii_unlock();
}

void armci_msg_group_barrier(ARMCI_Group *group)
{
    MSG_ENTER("armci_msg_group_barrier");
    armcii_check_group(call, "the group", group, 0);
    if (group->comm != MPI_COMM_NULL)
        barrier(call, group->comm, group);
    armcii_unlock();
}

void armci_msg_bcast_scope(int scope, void *buffer, int len, int root)
{
    MSG_ENTER("armci_msg_bcast_scope");
    bcast(call, buffer, len, root, scope_comm(call, scope, armcii_g.comm), NULL);
    armcii_unlock();
}

void armci_msg_bcast(void *buffer, int len, int root)
{
    MSG_ENTER("armci_msg_bcast");
    bcast(call, buffer, len, root, armcii_g.comm, NULL);
    armcii_unlock();
}

void armci_msg_brdcst(void *buffer, int len, int root)
{
    MSG_ENTER("armci_msg_brdcst");
    bcast(call, buffer, len, root, armcii_g.comm, NULL);
    armcii_unlock();
}

void armci_msg_group_bcast_scope(int scope, void *buf, int len, int root, ARMCI_Group *group)
{
    MSG_ENTER("armci_msg_group_bcast_scope");
    armcii_check_group(call, "the group", group, 0);
    bcast(call, buf, len, root, scope_comm(call, scope, group->comm), group);
    armcii_unlock();
}

void armci_msg_clus_brdcst(void *buf, int len)
{
    MSG_ENTER("armci_msg_clus_brdcst");
    /* among the node leaders, from the leader of the first node */
    bcast(call, buf, len, 0, armcii_g.masters_comm, NULL);
    armcii_unlock();
}

void armci_grp_clus_brdcst(void *buf, int len, int grp_master, int grp_clus_nproc,
                           ARMCI_Group *mastergroup)
{
    MSG_ENTER("armci_grp_clus_brdcst");
    armcii_check_group(call, "mastergroup", mastergroup, 0);
    bcast(call, buf, len, grp_master, mastergroup->comm, mastergroup);
    armcii_unlock();
}

/* A binary tree over the processes of a scope, in absolute ids (-1: none). */
void armci_msg_bintree(int scope, int *Root, int *Up, int *Left, int *Right)
{
    MSG_ENTER("armci_msg_bintree");
    MPI_Comm comm = scope_comm(call, scope, armcii_g.comm);
    *Root = *Up = *Left = *Right = -1;
    if (comm != MPI_COMM_NULL) {
        int me, n;
        MPI_Comm_rank(comm, &me);
        MPI_Comm_size(comm, &n);
        int rel[4] = {0, me > 0 ? (me - 1) / 2 : -1, 2 * me + 1 < n ? 2 * me + 1 : -1,
                      2 * me + 2 < n ? 2 * me + 2 : -1};
        int absr[4];
        for (int i = 0; i < 4; i++) {
            absr[i] = -1;
            if (rel[i] >= 0)
                armcii_translate(comm, armcii_g.comm, 1, &rel[i], &absr[i]);
        }
        *Root = absr[0];
        *Up = absr[1];
        *Left = absr[2];
        *Right = absr[3];
    }
    armcii_unlock();
}

/* ---- reductions ---- */

void armci_msg_gop_scope(int scope, void *x, int n, char *op, int type)
{
    MSG_ENTER("armci_msg_gop_scope");
    allreduce(call, x, n, op, type, scope_comm(call, scope, armcii_g.comm), NULL);
    armcii_unlock();
}

void armci_msg_group_gop_scope(int scope, void *x, int n, char *op, int type, ARMCI_Group *group)
{
    MSG_ENTER("armci_msg_group_gop_scope");
    armcii_check_group(call, "the group", group, 0);
    allreduce(call, x, n, op, type, scope_comm(call, scope, group->comm), group);
    armcii_unlock();
}

/* Reduction with the result on every process (process 0, where ARMCI wants it, included). */
void armci_msg_reduce(void *x, int n, char *op, int type)
{
    MSG_ENTER("armci_msg_reduce");
    allreduce(call, x, n, op, type, armcii_g.comm, NULL);
    armcii_unlock();
}

void armci_msg_reduce_scope(int scope, void *x, int n, char *op, int type)
{
    MSG_ENTER("armci_msg_reduce_scope");
    allreduce(call, x, n, op, type, scope_comm(call, scope, armcii_g.comm), NULL);
    armcii_unlock();
}

/* One definition per element type and communicator choice. */
#define GOP(fname, ctype, atype, comm_expr)                                                        \
    void fname(ctype *x, int n, char *op)                                                          \
    {                                                                                              \
        MSG_ENTER(#fname);                                                                         \
        allreduce(call, x, n, op, atype, comm_expr, NULL);                                         \
        armcii_unlock();                                                                           \
    }
#define GROUP_GOP(fname, ctype, atype)                                                             \
    void fname(ctype *x, int n, char *op, ARMCI_Group *group)                                      \
    {                                                                                              \
        MSG_ENTER(#fname);                                                                         \
        armcii_check_group(call, "the group", group, 0);                                           \
        allreduce(call, x, n, op, atype, group->comm, group);                                      \
        armcii_unlock();                                                                           \
    }

GOP(armci_msg_igop, int, ARMCI_INT, armcii_g.comm)
GOP(armci_msg_lgop, long, ARMCI_LONG, armcii_g.comm)
GOP(armci_msg_llgop, long long, ARMCI_LONG_LONG, armcii_g.comm)
GOP(armci_msg_fgop, float, ARMCI_FLOAT, armcii_g.comm)
GOP(armci_msg_dgop, double, ARMCI_DOUBLE, armcii_g.comm)
GOP(armci_msg_clus_igop, int, ARMCI_INT, armcii_g.masters_comm)
GOP(armci_msg_clus_lgop, long, ARMCI_LONG, armcii_g.masters_comm)
GOP(armci_msg_clus_llgop, long long, ARMCI_LONG_LONG, armcii_g.masters_comm)
GOP(armci_msg_clus_fgop, float, ARMCI_FLOAT, armcii_g.masters_comm)
GOP(armci_msg_clus_dgop, double, ARMCI_DOUBLE, armcii_g.masters_comm)
GROUP_GOP(armci_msg_group_igop, int, ARMCI_INT)
GROUP_GOP(armci_msg_group_lgop, long, ARMCI_LONG)
GROUP_GOP(armci_msg_group_llgop, long long, ARMCI_LONG_LONG)
GROUP_GOP(armci_msg_group_fgop, float, ARMCI_FLOAT)
GROUP_GOP(armci_msg_group_dgop, double, ARMCI_DOUBLE)

/* ---- selection ---- */

typedef union {
    int i;
    long l;
    long long ll;
    float f;
    double d;
} sel_key_t;

/* Does key @p a (of ARMCI type @p type) come strictly before @p b: larger for max,
 * smaller for min? */
static int key_before(int type, int want_max, const sel_key_t *a, const sel_key_t *b)
{
    int c;
    switch (type) {
    case ARMCI_INT:
        c = (a->i > b->i) - (a->i < b->i);
        break;
    case ARMCI_LONG:
        c = (a->l > b->l) - (a->l < b->l);
        break;
    case ARMCI_LONG_LONG:
        c = (a->ll > b->ll) - (a->ll < b->ll);
        break;
    case ARMCI_FLOAT:
        c = (a->f > b->f) - (a->f < b->f);
        break;
    default:
        c = (a->d > b->d) - (a->d < b->d);
        break;
    }
    return want_max ? c > 0 : c < 0;
}

/* Every process gets the @p n bytes of @p x of the contributing process whose first element
 * (of @p type) is the smallest ("min") or largest ("max"). */
static void select_scope(const char *call, MPI_Comm comm, void *x, int n, const char *op, int type,
                         int contribute)
{
    size_t es;
    mpi_type(call, type, &es);
    char shown[40];
    /* matched by prefix, as reductions are (op_is), and as ARMCI-MPI's selection does
     * (src/message.c, strncmp(op, "min", 3)) */
    if (op == NULL || (!op_is(op, "min") && !op_is(op, "max")))
        armcii_fatal(call, "operation \"%s\" is not min or max", op_shown(op, shown));
    armcii_check_count(call, "n", n);
    if (comm == MPI_COMM_NULL)
        return;
    int want_max = op[1] == 'a';
    /* The key keeps its type: long keys that differ below a double's 53-bit precision
     * must not tie (ARMCI-MPI compares them as their own type, src/message.c). */
    struct {
        sel_key_t key;
        int contributes, want_max;
    } mine, *all;
    memset(&mine, 0, sizeof(mine));
    mine.contributes = contribute != 0;
    mine.want_max = want_max;
    if (contribute) {
        armcii_check_local(call, "x", x, (size_t)n);
        if ((size_t)n < es)
            armcii_fatal(call, "n = %d bytes do not hold one element of the key's type (%zu)", n,
                         es);
        memcpy(&mine.key, x, es);
    }
    int size;
    MPI_Comm_size(comm, &size);
    all = malloc((size_t)size * sizeof(*all));
    if (!all)
        armcii_fatal(call, "out of memory");
    MPI_Request r;
    MPI_Iallgather(&mine, sizeof(mine), MPI_BYTE, all, sizeof(mine), MPI_BYTE, comm, &r);
    armcii_mpi_wait(call, &r);
    /* Every process picks the same winner: best key among contributors, lowest rank on ties. */
    int winner = -1;
    for (int i = 0; i < size; i++) {
        if (all[i].want_max != want_max) {
            int abs = i;
            armcii_translate(comm, armcii_g.comm, 1, &i, &abs);
            armcii_fatal(call,
                         "the processes called this selection with different operations: "
                         "this process selects the %s, process %d the %s",
                         want_max ? "max" : "min", abs, want_max ? "min" : "max");
        }
        if (!all[i].contributes)
            continue;
        if (winner < 0 || key_before(type, want_max, &all[i].key, &all[winner].key))
            winner = i;
    }
    free(all);
    if (winner < 0 || n == 0)
        return;
    MPI_Ibcast(x, n, MPI_BYTE, winner, comm, &r);
    armcii_mpi_wait(call, &r);
}

void armci_msg_sel_scope(int scope, void *x, int n, char *op, int type, int contribute)
{
    MSG_ENTER("armci_msg_sel_scope");
    select_scope(call, scope_comm(call, scope, armcii_g.comm), x, n, op, type, contribute);
    armcii_unlock();
}

void armci_msg_sel(void *x, int n, char *op, int type, int contribute)
{
    MSG_ENTER("armci_msg_sel");
    select_scope(call, armcii_g.comm, x, n, op, type, contribute);
    armcii_unlock();
}

/* ---- address exchange ---- */

static void exchange(const char *call, void *ptr_arr[], int n, MPI_Comm comm)
{
    int me, size;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);
    if (n != size)
        armcii_fatal(call, "n is %d but the group has %d processes", n, size);
    armcii_check_local(call, "ptr_arr", ptr_arr, (size_t)n);
    MPI_Request r;
    MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ptr_arr, sizeof(void *), MPI_BYTE, comm, &r);
    armcii_mpi_wait(call, &r);
}

void armci_exchange_address(void *ptr_ar[], int n)
{
    MSG_ENTER("armci_exchange_address");
    exchange(call, ptr_ar, n, armcii_g.comm);
    armcii_unlock();
}

void armci_exchange_address_grp(void *ptr_arr[], int n, ARMCI_Group *group)
{
    MSG_ENTER("armci_exchange_address_grp");
    armcii_check_group(call, "the group", group, 0);
    exchange(call, ptr_arr, n, group->comm);
    armcii_unlock();
}

/* Profiling names of the barriers, as ARMCI-MPI has them. */
#pragma weak armci_msg_barrier
#pragma weak armci_msg_group_barrier
extern __typeof__(armci_msg_barrier) parmci_msg_barrier __attribute__((alias("armci_msg_barrier")));
extern __typeof__(armci_msg_group_barrier) parmci_msg_group_barrier
    __attribute__((alias("armci_msg_group_barrier")));
