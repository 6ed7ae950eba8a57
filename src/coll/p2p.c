/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reductions, broadcasts and barriers written with MPI's point-to-point messages and
 * completed by the runtime's own wait, which serves peers' one-sided operations aimed at
 * this process, checks that the node's processes live and runs the watchdog.
 *
 * MPI's nonblocking collectives would be waited for the same way, but over TCP they took
 * about half again as long as MPI's blocking ones, and so did the same exchange as
 * MPI_Isend/MPI_Irecv pairs completed by MPI_Testall. A blocking MPI call instead would
 * leave peers to the progress thread, which naps: a get to a process waiting in a barrier
 * would wait for its nap to end (docs/performance.md, "How the runtime waits").
 *
 * The messages travel on communicators of the runtime's own (one duplicated from the world
 * at init, one per group made with the group), so they never meet the application's
 * (armci_msg_snd/rcv use the runtime's main communicator with the application's tags);
 * each kind of step has its own tags, so that processes that call different collectives
 * by mistake wait (and the watchdog says so) instead of matching.
 */
#include <stdlib.h>
#include <string.h>

#include "collectives.h"
#include "node.h"
#include "../core/progress.h"
#include "../core/runtime.h"
#include "../core/topo.h"
#include "../base/common.h"
#include "../base/stats.h"
#include "../cache/getcache.h"

/* Longest vector reduced here; longer ones go to MPI's collective, whose algorithms for
 * long vectors send less than recursive doubling's whole vector at every step. */
#define P2P_MAX_BYTES (64 * 1024)

enum {
    TAG_BARRIER = 100,  /* + round */
    TAG_FOLD_IN = 200,  /* a process beyond the power of two hands its vector over */
    TAG_DOUBLING = 201, /* + step */
    TAG_FOLD_OUT = 299, /* and gets the result back */
    TAG_BCAST = 300,
};

static MPI_Comm p2p_comm = MPI_COMM_NULL; /* the world's */

/* Every step receives into this, room for the longest message any step sends, and copies
 * out what it expected: a longer message (processes that called a collective with
 * different counts) is then counted and named here, where a receive of the expected size
 * would be MPI's MPI_ERR_TRUNCATE, which MPICH raises on no communicator of ours and ends
 * the process with ("Fatal error in internal_Test") before the runtime can say which call.
 * Made at the first step. */
#define RX_BYTES (P2P_MAX_BYTES + ARMCII_COLL_WHAT)
static char *rx;

void armcii_coll_p2p_init(void)
{
    MPI_Comm_dup(armcii_rt.comm, &p2p_comm);
}

void armcii_coll_p2p_fini(void)
{
    if (p2p_comm != MPI_COMM_NULL)
        MPI_Comm_free(&p2p_comm);
    free(rx);
    rx = NULL;
}

MPI_Comm armcii_coll_p2p_world(void)
{
    return p2p_comm;
}

/* Whether the collective on @p comm (the runtime's own; MPI_COMM_NULL for none) of @p bytes
 * per process is ours; counts it and makes it a synchronisation point of the get cache. */
static int ours(const char *call, MPI_Comm comm, size_t bytes)
{
    if (comm == MPI_COMM_NULL || bytes > P2P_MAX_BYTES ||
        armcii_coll_algorithm(call) == ARMCII_COLL_MPI)
        return 0;
    armcii_stat_coll(ARMCII_ST_COLL_P2P);
    armcii_cache_sync(); /* a synchronisation point, also where nothing need be waited for */
    return 1;
}

/* Sends @p bytes at @p out to @p to while receiving as many from @p from into @p in, completed
 * by the runtime's wait. Either peer may be MPI_PROC_NULL (its buffer must still be valid:
 * Open MPI checks it). The last @p trailer bytes are not data (a count in an error leaves
 * them out). */
static void step(const char *call, MPI_Comm comm, const void *out, int to, void *in, int from,
                 size_t bytes, int tag, size_t trailer)
{
    MPI_Request r[2];
    MPI_Status st[2];
    int room = 0; /* a barrier's messages are empty: no room, no copy */
    if (from != MPI_PROC_NULL && bytes > 0) {
        if (!rx && !(rx = malloc(RX_BYTES)))
            armcii_fatal(call, "out of memory for the messages of collectives");
        room = RX_BYTES;
    }
    MPI_Irecv(room ? rx : in, room ? room : (int)bytes, MPI_BYTE, from, tag, comm, &r[0]);
    MPI_Isend(out, (int)bytes, MPI_BYTE, to, tag, comm, &r[1]);
    armcii_mpi_waitall_status(call, 2, r, st);
    int got = (int)bytes;
    if (from != MPI_PROC_NULL)
        MPI_Get_count(&st[0], MPI_BYTE, &got);
    if (got == (int)bytes && room)
        memcpy(in, rx, bytes);
    if (got != (int)bytes) {
        int abs = from;
        armcii_translate(comm, armcii_rt.comm, 1, &from, &abs);
        armcii_fatal(call,
                     "process %d sent %d bytes to this step where this process expected "
                     "%zu: the processes called this collective with different counts, or "
                     "called different collectives",
                     abs, got - (int)trailer, bytes - trailer);
    }
}

/* x = (the lower-ranked side's partial) op (the higher-ranked side's), with @p in the
 * peer's partial. Both sides compute the same operation on the same operands in the same
 * order, so they hold the same bits (max of +0 and -0, for one, depends on the order). */
static void combine(void *x, void *in, int n, MPI_Datatype dt, size_t es, MPI_Op op, int peer_lower)
{
    if (peer_lower) {
        MPI_Reduce_local(in, x, n, dt, op); /* x = in op x */
    } else {
        MPI_Reduce_local(x, in, n, dt, op); /* in = x op in */
        memcpy(x, in, (size_t)n * es);
    }
}

/*
 * One step of a reduction: the @p bytes of partial at @p x (if any) go out through @p out,
 * followed by what the reduction is (already at out + bytes), and the peer's arrive at
 * @p in with theirs, which must be the same. Any two processes that disagree are joined
 * by a chain of steps, so some step sees the difference and says so.
 */
static void fold_step(const char *call, MPI_Comm comm, const void *x, char *out, int to, char *in,
                      int from, size_t bytes, int tag)
{
    if (x)
        memcpy(out, x, bytes);
    step(call, comm, out, to, in, from, bytes + ARMCII_COLL_WHAT, tag, ARMCII_COLL_WHAT);
    if (from == MPI_PROC_NULL || memcmp(in + bytes, out + bytes, ARMCII_COLL_WHAT) == 0)
        return;
    int abs = from;
    armcii_translate(comm, armcii_rt.comm, 1, &from, &abs);
    armcii_coll_what_mismatch(call, abs, out + bytes, in + bytes);
}

/*
 * Recursive doubling over the largest power of two p2 <= P: at step k each process
 * exchanges its partial with the process whose (virtual) rank differs in bit k. The first
 * 2 * (P - p2) processes pair up beforehand: the even one of each pair hands its vector to
 * the odd one, which takes part for both, and gets the result back at the end.
 */
int armcii_coll_p2p_allreduce(const char *call, MPI_Comm comm, void *x, int n, MPI_Datatype dt,
                              size_t es, MPI_Op op, const char *what)
{
    size_t bytes = (size_t)n * es;
    if (!ours(call, comm, bytes))
        return 0;
    int P, me;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &me);
    if (P == 1)
        return 1;
    size_t span = bytes + ARMCII_COLL_WHAT; /* a message: the partial, then what */
    double small[64];
    char *out = 2 * span <= sizeof(small) ? (char *)small : malloc(2 * span), *in = out + span;
    if (!out)
        armcii_fatal(call, "out of memory for a reduction of %zu bytes", bytes);
    memset(out + bytes, 0, ARMCII_COLL_WHAT); /* compared whole */
    memcpy(out + bytes, what, strnlen(what, ARMCII_COLL_WHAT));
    int p2 = 1;
    while (2 * p2 <= P)
        p2 *= 2;
    int extra = P - p2, vr = me - extra; /* virtual rank among the p2, or -1 */
    if (me < 2 * extra) {
        if (me % 2 == 0) {
            fold_step(call, comm, x, out, me + 1, in, MPI_PROC_NULL, bytes, TAG_FOLD_IN);
            vr = -1;
        } else {
            fold_step(call, comm, NULL, out, MPI_PROC_NULL, in, me - 1, bytes, TAG_FOLD_IN);
            combine(x, in, n, dt, es, op, 1);
            vr = me / 2;
        }
    }
    if (vr >= 0) {
        for (int k = 0, m = 1; m < p2; k++, m *= 2) {
            int pv = vr ^ m;
            int peer = pv < extra ? 2 * pv + 1 : pv + extra;
            fold_step(call, comm, x, out, peer, in, peer, bytes, TAG_DOUBLING + k);
            combine(x, in, n, dt, es, op, pv < vr);
        }
    }
    if (me < 2 * extra) {
        if (me % 2 == 0) {
            fold_step(call, comm, NULL, out, MPI_PROC_NULL, in, me + 1, bytes, TAG_FOLD_OUT);
            memcpy(x, in, bytes);
        } else {
            fold_step(call, comm, x, out, me - 1, in, MPI_PROC_NULL, bytes, TAG_FOLD_OUT);
        }
    }
    if (out != (char *)small)
        free(out);
    return 1;
}

/* A binomial tree rooted at @p root: each process receives the data from the process that
 * differs from it (relative to the root) in its lowest set bit, then passes it on to those
 * that differ from it in each lower bit. */
int armcii_coll_p2p_bcast(const char *call, MPI_Comm comm, void *buf, size_t bytes, int root)
{
    if (!ours(call, comm, bytes))
        return 0;
    int P, me;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &me);
    int vr = (me - root + P) % P, m = 1;
    for (; m < P; m *= 2)
        if (vr & m) {
            step(call, comm, buf, MPI_PROC_NULL, buf, (vr - m + root) % P, bytes, TAG_BCAST, 0);
            break;
        }
    MPI_Request r[32];
    int nr = 0;
    for (m /= 2; m >= 1; m /= 2)
        if (vr + m < P)
            MPI_Isend(buf, (int)bytes, MPI_BYTE, (vr + m + root) % P, TAG_BCAST, comm, &r[nr++]);
    armcii_mpi_waitall(call, nr, r);
    return 1;
}

/* Dissemination: in round k each process signals the one 2^k ahead of it and waits for the
 * one 2^k behind; after ceil(log2 P) rounds everyone has heard from everyone. */
int armcii_coll_p2p_barrier(const char *call, MPI_Comm comm)
{
    if (!ours(call, comm, 0))
        return 0;
    int P, me;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &me);
    for (int k = 0, d = 1; d < P; k++, d *= 2)
        step(call, comm, NULL, (me + d) % P, NULL, (me - d + P) % P, 0, TAG_BARRIER + k, 0);
    return 1;
}

/* The barrier of the world: the node's shared-memory barrier where the world is one node,
 * else dissemination, or MPI's barrier under ARMCI_COLL_ALG=mpi. */
void armcii_coll_barrier(const char *call)
{
    if (armcii_coll_node_sync(call) || armcii_coll_p2p_barrier(call, p2p_comm))
        return;
    MPI_Request r;
    MPI_Ibarrier(armcii_rt.comm, &r);
    armcii_mpi_wait(call, &r);
}
