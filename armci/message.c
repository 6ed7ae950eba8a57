/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * armci_msg_*: message passing and collectives over MPI. Every wait drives ARMCI progress,
 * so a process sitting in a collective still serves one-sided operations aimed at it.
 * Process arguments (roots, senders) are absolute ids, as in ARMCI-MPI. Here the
 * arguments are checked (element types, operations, counts, roots) and scopes and groups
 * turned into communicators; the collectives themselves are src/coll/reduce.c's, which
 * takes the node's shared memory, MPI point-to-point messages (src/coll/p2p.c) or MPI's
 * collectives.
 */
#include <stdio.h>

#include "check.h"
#include "../src/core/order.h"
#include "../src/coll/collectives.h"

/* The communicator of a scope; MPI_COMM_NULL when this process is not in it. */
static MPI_Comm scope_comm(const char *call, int scope, MPI_Comm all)
{
    switch (scope) {
    case SCOPE_ALL:
        return all;
    case SCOPE_NODE:
        return armcii_topo.node_comm;
    case SCOPE_MASTERS:
        return armcii_topo.masters_comm;
    default:
        armcii_fatal(call, "scope %d is not SCOPE_ALL, SCOPE_NODE or SCOPE_MASTERS", scope);
    }
}

/* Rank in @p comm of absolute process @p abs, or an error naming it. */
static int rank_in(const char *call, MPI_Comm comm, int abs)
{
    armcii_check_rank(call, abs);
    int r;
    armcii_translate(armcii_rt.comm, comm, 1, &abs, &r);
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
 * (whose floating-point operands are reduced as ints, see armcii_coll_allreduce). Names
 * that begin another name come after it ("&&" before "&", "||" before "|"), as in both
 * peers.
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

/* The runtime's own communicator over the processes of @p comm, for point-to-point
 * collectives: the world's, or that of group @p g (made with it); MPI_COMM_NULL where there
 * is none (the scopes of the node and of node leaders), and MPI's collectives serve. */
static MPI_Comm own_comm(MPI_Comm comm, const ARMCI_Group *g)
{
    if (comm == armcii_rt.comm)
        return armcii_coll_p2p_world();
    if (g && comm == g->comm)
        return g->noncoll_pgroup_comm;
    return MPI_COMM_NULL;
}

/* x = op over the processes of comm (of group @p g, if not NULL); in place, everyone gets
 * the result. */
static void allreduce(const char *call, void *x, int n, const char *op, int type, MPI_Comm comm,
                      const ARMCI_Group *g)
{
    armcii_reduction_t red;
    red.type = type;
    red.dt = mpi_type(call, type, &red.es);
    red.op = mpi_op(call, op, type, &red.absolute, &red.logical, &red.name);
    if (n < 0)
        armcii_fatal(call, "element count is negative (%d)", n);
    if (comm == MPI_COMM_NULL || n == 0)
        return;
    armcii_check_local(call, "x", x, (size_t)n);
    armcii_coll_allreduce(call, x, n, &red, comm, own_comm(comm, g));
}

static void bcast(const char *call, void *buf, int len, int root_abs, MPI_Comm comm,
                  const ARMCI_Group *g)
{
    armcii_check_count(call, "len", len);
    if (comm == MPI_COMM_NULL || len == 0)
        return;
    armcii_check_local(call, "buffer", buf, (size_t)len);
    int root = rank_in(call, comm, root_abs);
    armcii_coll_bcast(call, comm, own_comm(comm, g), buf, len, root);
}

#define MSG_ENTER(name)                                                                            \
    static const char call[] = name;                                                               \
    armcii_enter(call)

/* ---- identity and odds and ends ---- */

int armci_msg_me(void)
{
    int r = 0;
    if (armcii_rt.initialized)
        return armcii_rt.rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &r); /* usable before ARMCI_Init, as tcgmsg codes expect */
    return r;
}

int armci_msg_nproc(void)
{
    int n = 1;
    if (armcii_rt.initialized)
        return armcii_rt.nproc;
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
    MPI_Isend(buffer, len, MPI_BYTE, to, tag, armcii_rt.comm, &r);
    armcii_mpi_wait(call, &r);
    armcii_unlock();
}

static int receive(const char *call, int tag, void *buffer, int buflen, int *msglen, int from)
{
    armcii_check_count(call, "buflen", buflen);
    armcii_check_local(call, "buffer", buffer, (size_t)buflen);
    MPI_Status st;
    MPI_Request r;
    MPI_Irecv(buffer, buflen, MPI_BYTE, from, tag, armcii_rt.comm, &r);
    /* The runtime's wait: it serves peers meanwhile, and its watchdog and census see a
     * sender that is late or dead. A message longer than buflen is an MPI truncation
     * error, reported by MPI itself. */
    armcii_mpi_waitall_status(call, 1, &r, &st);
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

/* The message layer's barriers complete the caller's puts, accumulates and the like to every
 * process first, as GA's own ARMCI does (comex_barrier: comex_fence_all on the world, whatever
 * the group). GA relies on it: its group sync fences only the group's members
 * (global/src/onesided.c:121, pnga_pgroup_sync), and GA's copy_patch from a small group puts
 * into processes outside it, which other members read right after the group's barrier
 * (global/src/global.npatch.c:921, global/testing/pg2test.F:702). On ARMCI-MPI those puts
 * have landed by then too (testing/mpi/t_groups.c, outside_puts). */
void armci_msg_barrier(void)
{
    MSG_ENTER("armci_msg_barrier");
    armcii_fence_all(call);
    armcii_coll_barrier(call);
    armcii_unlock();
}

void armci_msg_group_barrier(ARMCI_Group *group)
{
    MSG_ENTER("armci_msg_group_barrier");
    armcii_check_group(call, "the group", group, 0);
    if (group->comm != MPI_COMM_NULL) {
        armcii_fence_all(call);
        armcii_coll_comm_barrier(call, group->comm, own_comm(group->comm, group));
    }
    armcii_unlock();
}

void armci_msg_bcast_scope(int scope, void *buffer, int len, int root)
{
    MSG_ENTER("armci_msg_bcast_scope");
    bcast(call, buffer, len, root, scope_comm(call, scope, armcii_rt.comm), NULL);
    armcii_unlock();
}

void armci_msg_bcast(void *buffer, int len, int root)
{
    MSG_ENTER("armci_msg_bcast");
    bcast(call, buffer, len, root, armcii_rt.comm, NULL);
    armcii_unlock();
}

void armci_msg_brdcst(void *buffer, int len, int root)
{
    MSG_ENTER("armci_msg_brdcst");
    bcast(call, buffer, len, root, armcii_rt.comm, NULL);
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
    bcast(call, buf, len, 0, armcii_topo.masters_comm, NULL);
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
    MPI_Comm comm = scope_comm(call, scope, armcii_rt.comm);
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
                armcii_translate(comm, armcii_rt.comm, 1, &rel[i], &absr[i]);
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
    allreduce(call, x, n, op, type, scope_comm(call, scope, armcii_rt.comm), NULL);
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
    allreduce(call, x, n, op, type, armcii_rt.comm, NULL);
    armcii_unlock();
}

void armci_msg_reduce_scope(int scope, void *x, int n, char *op, int type)
{
    MSG_ENTER("armci_msg_reduce_scope");
    allreduce(call, x, n, op, type, scope_comm(call, scope, armcii_rt.comm), NULL);
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

GOP(armci_msg_igop, int, ARMCI_INT, armcii_rt.comm)
GOP(armci_msg_lgop, long, ARMCI_LONG, armcii_rt.comm)
GOP(armci_msg_llgop, long long, ARMCI_LONG_LONG, armcii_rt.comm)
GOP(armci_msg_fgop, float, ARMCI_FLOAT, armcii_rt.comm)
GOP(armci_msg_dgop, double, ARMCI_DOUBLE, armcii_rt.comm)
GOP(armci_msg_clus_igop, int, ARMCI_INT, armcii_topo.masters_comm)
GOP(armci_msg_clus_lgop, long, ARMCI_LONG, armcii_topo.masters_comm)
GOP(armci_msg_clus_llgop, long long, ARMCI_LONG_LONG, armcii_topo.masters_comm)
GOP(armci_msg_clus_fgop, float, ARMCI_FLOAT, armcii_topo.masters_comm)
GOP(armci_msg_clus_dgop, double, ARMCI_DOUBLE, armcii_topo.masters_comm)
GROUP_GOP(armci_msg_group_igop, int, ARMCI_INT)
GROUP_GOP(armci_msg_group_lgop, long, ARMCI_LONG)
GROUP_GOP(armci_msg_group_llgop, long long, ARMCI_LONG_LONG)
GROUP_GOP(armci_msg_group_fgop, float, ARMCI_FLOAT)
GROUP_GOP(armci_msg_group_dgop, double, ARMCI_DOUBLE)

/* ---- selection ---- */

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
    if (contribute) {
        armcii_check_local(call, "x", x, (size_t)n);
        if ((size_t)n < es)
            armcii_fatal(call, "n = %d bytes do not hold one element of the key's type (%zu)", n,
                         es);
    }
    armcii_coll_select(call, comm, x, n, type, es, want_max, contribute);
}

void armci_msg_sel_scope(int scope, void *x, int n, char *op, int type, int contribute)
{
    MSG_ENTER("armci_msg_sel_scope");
    select_scope(call, scope_comm(call, scope, armcii_rt.comm), x, n, op, type, contribute);
    armcii_unlock();
}

void armci_msg_sel(void *x, int n, char *op, int type, int contribute)
{
    MSG_ENTER("armci_msg_sel");
    select_scope(call, armcii_rt.comm, x, n, op, type, contribute);
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
    exchange(call, ptr_ar, n, armcii_rt.comm);
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
