/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * All-to-all and allgather within a node through the node's shared heap. Every process
 * exposes its send and receive buffers there (in place when they already lie in the heap,
 * as ARMCI_Malloc_local memory does; staged otherwise), and the P x P block copies are
 * shared out along the Morton curve (ARMCI_COLL_ALG=morton), so that each process walks
 * blocks close together in both matrices; or each process copies its own row
 * (ARMCI_COLL_ALG=naive, for comparison). The world over several nodes combines this with
 * one exchange between nodes (hier.c). Other groups that span nodes, runs without shared
 * memory, and ARMCI_COLL_ALG=mpi use MPI's collectives.
 *
 * Small exchanges of the whole node (ARMCI_COLL_ALG=pull, and auto up to
 * ARMCI_COLL_SMALL bytes of send data) synchronise once instead of twice: see pull().
 */
#define _GNU_SOURCE /* process_vm_readv */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "collectives.h"
#include "morton.h"
#include "node.h"
#include "../core/progress.h"
#include "../core/req.h"
#include "../core/runtime.h"
#include "../core/topo.h"
#include "../base/common.h"
#include "../base/place.h"
#include "../base/stats.h"
#include "../cache/getcache.h"
#include "../health/health.h"
#include "../transport/transport.h"

#define ALG_MORTON ARMCII_COLL_MORTON
#define ALG_NAIVE  ARMCII_COLL_NAIVE
#define ALG_MPI    ARMCII_COLL_MPI
#define ALG_PULL   ARMCII_COLL_PULL
#define ALG_AUTO   ARMCII_COLL_AUTO

static stage_t stage_send, stage_recv, stage_small;
static uint64_t small_seq; /* pull() calls so far: the same count on every process */

enum { ACROSS_HIER, ACROSS_MPI };
static int across_decided = -1; /* auto's choice, made at the first collective of the world */

/* May the processes of this node read each other's memory (process_vm_readv)? The same
 * answer everywhere: each tries its neighbour, and all must succeed. */
static int cma_ok;

/* The gathered vectors of armcii_coll_node_gather, kept between calls. */
static char *gathered;
static size_t gathered_size;

void armcii_coll_init(void)
{
    cma_ok = 0;
    /* ARMCI_COLL_* are alike on every process (ARMCII_ENV_SAME), so every process takes
     * the same path through a collective. */
    armcii_coll_alg_init();
    armcii_coll_p2p_init();
    if (!armcii_rt.shm || armcii_rt.env.COLL_CMA <= 0)
        return;
    int n = armcii_topo.node_size, peer = (armcii_topo.node_rank + 1) % n;
    uint64_t v = 0;
    struct iovec here = {&v, sizeof v};
    struct iovec there = {&armcii_coll_slot(peer)->buf_private, sizeof v};
    int ok = process_vm_readv(armcii_live_pid(peer), &here, 1, &there, 1, 0) == (ssize_t)sizeof v;
    MPI_Allreduce(&ok, &cma_ok, 1, MPI_INT, MPI_MIN, armcii_topo.node_comm);
}

int armcii_coll_cma(void)
{
    return cma_ok;
}

void armcii_coll_describe(void (*line)(const char *text))
{
    if (!armcii_rt.shm)
        return;
    char text[256];
    snprintf(text, sizeof(text),
             "collectives in the node: %.40s; send blocks outside the node heap %s",
             armcii_rt.env.COLL_ALG,
             cma_ok ? "of ARMCI_COLL_CMA bytes and more read in place (process_vm_readv)"
             : armcii_rt.env.COLL_CMA > 0 ? "staged (process_vm_readv is not permitted here)"
                                          : "staged (ARMCI_COLL_CMA=0)");
    line(text);
}

/* @p len bytes at @p src in the address space of node process @p owner, which published
 * them as private memory, to @p dst. */
static void cma_read(const char *call, char *dst, const char *src, size_t len, int owner)
{
    pid_t pid = armcii_live_pid(owner);
    armcii_stat_coll_cma_block();
    while (len > 0) {
        struct iovec here = {dst, len}, there = {(void *)src, len};
        ssize_t got = process_vm_readv(pid, &here, 1, &there, 1, 0);
        if (got <= 0)
            armcii_fatal(call,
                         "reading %zu bytes of the send buffer of node process %d "
                         "(process %d): %s (set ARMCI_COLL_CMA=0 to stage instead)",
                         len, owner, (int)pid, got < 0 ? strerror(errno) : "nothing read");
        dst += got;
        src += got;
        len -= (size_t)got;
    }
}

static int in_my_heap(const void *p, size_t len)
{
    const char *c = p;
    return armcii_rt.shm && c >= armcii_node.my_slice && len <= armcii_node.slice_len &&
           c + len <= armcii_node.my_slice + armcii_node.slice_len;
}

void armcii_coll_fini(void)
{
    armcii_coll_stage_free(&stage_send);
    armcii_coll_stage_free(&stage_recv);
    armcii_coll_stage_free(&stage_small);
    small_seq = 0;
    free(gathered);
    gathered = NULL;
    gathered_size = 0;
    armcii_coll_hier_stage_fini();
    armcii_coll_hier_fini();
    armcii_coll_p2p_fini();
    across_decided = -1;
}

/*
 * The copies of a small exchange of the whole node, with one synchronisation. Each
 * process copies its send data into one half of its own staging buffer (the halves
 * alternate from call to call), publishes the call's sequence number, and then copies
 * its own row out of every other process's half as soon as that process has published
 * the same number. It writes nothing but its own receive buffer, so nobody waits for the
 * copies to end; and a half is overwritten two calls later, by when each reader has
 * published the next number, that is, has left the call that read it. Morton and naive
 * meet twice instead: before the copies (the send data is in place) and after them (the
 * receive buffers are complete); for small blocks the meetings are the cost.
 */
/* What each half of pull()'s staging buffer starts with: the call that staged it, so that
 * processes that disagree (another count, another collective, another reduction) are told
 * so instead of reading the other's partial or stale data, or folding it their own way. */
typedef struct {
    uint64_t bytes; /* send data per process */
    uint32_t allgather;
    char what[ARMCII_COLL_WHAT]; /* the reduction a gather serves, "" for none */
    char call[36];
} pull_hdr_t;
_Static_assert(sizeof(pull_hdr_t) == 64, "the send data stays aligned");

static void pull_mismatch(const char *call, int other, const pull_hdr_t *mine,
                          const pull_hdr_t *theirs)
{
    armcii_fatal(call,
                 "this process %s %llu bytes, process %d %s %llu bytes (in %.36s): the "
                 "processes called this collective with different counts, or called "
                 "different collectives",
                 mine->allgather ? "contributes" : "sends all-to-all",
                 (unsigned long long)mine->bytes, other,
                 theirs->allgather ? "contributes" : "sends all-to-all",
                 (unsigned long long)theirs->bytes, theirs->call);
}

static void pull(const char *call, int allgather, const char *what, const void *sendbuf,
                 void *recvbuf, size_t bb, int P, int me)
{
    size_t ssize = allgather ? bb : bb * (size_t)P;
    size_t span = sizeof(pull_hdr_t) + (size_t)armcii_rt.env.COLL_SMALL; /* one half */
    char *st = armcii_coll_staging(call, &stage_small, 2 * span); /* once: the size is fixed */
    uint64_t seq = ++small_seq;
    pull_hdr_t *hdr = (pull_hdr_t *)(st + (seq & 1) * span);
    hdr->bytes = ssize;
    hdr->allgather = (uint32_t)allgather;
    memset(hdr->what, 0, sizeof hdr->what); /* compared whole */
    memcpy(hdr->what, what, strnlen(what, sizeof hdr->what));
    snprintf(hdr->call, sizeof hdr->call, "%s", call);
    memcpy(hdr + 1, sendbuf, ssize);
    armcii_coll_slot_t *my = armcii_coll_slot(armcii_topo.node_rank);
    my->small_buf = st;
    __atomic_store_n(&my->small_seq, seq, __ATOMIC_RELEASE);

    char *rbuf = recvbuf;
    size_t from = allgather ? 0 : (size_t)me * bb; /* my block in everybody's send data */
    memcpy(rbuf + (size_t)me * bb, (const char *)sendbuf + from, bb);
    /* Start with the next process, so that P processes do not all wait on the same one. */
    for (int d = 1; d < P; d++) {
        int i = (me + d) % P;
        armcii_coll_slot_t *o = armcii_coll_slot(armcii_reqs.peers[i].node_rank);
        armcii_watch_t w = {0};
        while (__atomic_load_n(&o->small_seq, __ATOMIC_ACQUIRE) < seq)
            armcii_poll_watched(call, &w, i, ARMCII_COLL_ENTER);
        armcii_poll_watched_end(&w);
        const pull_hdr_t *theirs = (const pull_hdr_t *)(o->small_buf + (seq & 1) * span);
        if (theirs->bytes != hdr->bytes || theirs->allgather != hdr->allgather)
            pull_mismatch(call, i, hdr, theirs);
        if (memcmp(theirs->what, hdr->what, sizeof hdr->what) != 0)
            armcii_coll_what_mismatch(call, i, hdr->what, theirs->what);
        memcpy(rbuf + (size_t)i * bb, (const char *)(theirs + 1) + from, bb);
    }
}

const void *armcii_coll_node_gather(const char *call, const void *x, size_t bytes, const char *what)
{
    if (bytes == 0 || bytes > (size_t)armcii_rt.env.COLL_SMALL || !armcii_coll_world_in_node(call))
        return NULL;
    size_t need = (size_t)armcii_rt.nproc * bytes;
    if (need > gathered_size) {
        char *g = realloc(gathered, need);
        if (!g)
            return NULL; /* MPI's collective then */
        gathered = g;
        gathered_size = need;
    }
    armcii_cache_sync();
    armcii_stat_coll(ARMCII_ST_COLL_PULL);
    pull(call, 1, what, x, gathered, bytes, armcii_rt.nproc, armcii_rt.rank);
    return gathered;
}

/* How the world's collectives with blocks of @p bb bytes cross nodes (ARMCI_COLL_NODES).
 * The hierarchical exchange saves messages (one per pair of nodes) at the price of four
 * node barriers and a pack and an unpack of what crosses. auto takes it only where that
 * can pay: some node has several processes (else there is nothing to combine), blocks of
 * at most 16 KiB (beyond, the pack and unpack cost more than the messages saved), and no
 * more processes than hardware threads on any machine (beyond, the node barriers spin
 * against each other and lose to MPI's exchange). */
static int across_nodes(const char *call, size_t bb)
{
    const char *a = armcii_rt.env.COLL_NODES;
    if (strcmp(a, "hier") == 0)
        return ACROSS_HIER;
    if (strcmp(a, "mpi") == 0)
        return ACROSS_MPI;
    if (strcmp(a, "auto") != 0)
        armcii_fatal(call, "ARMCI_COLL_NODES=\"%s\" is not hier, mpi or auto", a);
    /* machine_size is the same on every process of a machine; every machine must agree,
     * so the largest count over all of them decides */
    if (across_decided < 0) {
        int v[2] = {armcii_topo.hw_pus && (unsigned)armcii_topo.machine_size > armcii_topo.hw_pus,
                    armcii_topo.node_size};
        /* (the runtime's wait: a process whose peers called another collective is told
         * so, instead of blocking in MPI for ever) */
        MPI_Request r;
        MPI_Iallreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_MAX, armcii_rt.comm, &r);
        armcii_mpi_wait(call, &r);
        across_decided = v[0] || v[1] < 2 ? ACROSS_MPI : ACROSS_HIER;
    }
    return across_decided == ACROSS_HIER && bb <= 16384 ? ACROSS_HIER : ACROSS_MPI;
}

/* Are all processes of @p comm on my node, reachable through shared memory? */
static int one_node(MPI_Comm comm, int P)
{
    if (!armcii_rt.shm)
        return 0;
    int *seq = malloc((size_t)P * sizeof(int)), *world = malloc((size_t)P * sizeof(int));
    for (int i = 0; i < P; i++)
        seq[i] = i;
    armcii_translate(comm, armcii_rt.comm, P, seq, world);
    int all = 1;
    for (int i = 0; i < P; i++)
        all &= armcii_reqs.peers[world[i]].node == armcii_topo.node_id;
    free(seq);
    free(world);
    return all;
}

int armcii_coll(const char *call, int allgather, const void *sendbuf, void *recvbuf, size_t bb,
                MPI_Comm comm)
{
    int P, me;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &me);
    size_t ssize = allgather ? bb : bb * (size_t)P, rsize = bb * (size_t)P;
    int alg = armcii_coll_algorithm(call), chosen = alg != ALG_AUTO;
    int small = armcii_rt.env.COLL_SMALL > 0 && ssize <= (size_t)armcii_rt.env.COLL_SMALL;
    if (alg == ALG_AUTO)
        alg = small ? ALG_PULL : ALG_MORTON;
    MPI_Request r;
    /* The world over several nodes, each with its shared heap: node-level copies plus one
     * exchange between the nodes' leaders (decided alike everywhere: a node of one process
     * has no shared heap, but ARMCI_SHM is the same for all). */
    int hier = alg != ALG_MPI && armcii_rt.env.SHM && armcii_topo.nnodes > 1 &&
               comm == armcii_rt.comm && across_nodes(call, bb) == ACROSS_HIER;
    if (alg == ALG_PULL && (hier || !small))
        alg = ALG_NAIVE; /* pull's sibling with two meetings, for any size and across nodes */
    if (alg == ALG_MPI || (!hier && !one_node(comm, P))) {
        armcii_stat_coll(ARMCII_ST_COLL_MPI);
        if (allgather)
            MPI_Iallgather(sendbuf, (int)bb, MPI_BYTE, recvbuf, (int)bb, MPI_BYTE, comm, &r);
        else
            MPI_Ialltoall(sendbuf, (int)bb, MPI_BYTE, recvbuf, (int)bb, MPI_BYTE, comm, &r);
        armcii_mpi_wait(call, &r);
        return 0;
    }
    /* The whole node at once (the world on one node): the sequence numbers of pull() are
     * counted by every process alike. */
    int whole_node = comm == armcii_rt.comm && P == armcii_topo.node_size;
    if (alg == ALG_PULL && whole_node) {
        armcii_stat_coll(ARMCII_ST_COLL_PULL);
        pull(call, allgather, "", sendbuf, recvbuf, bb, P, me);
        return 0;
    }
    if (alg == ALG_PULL)
        alg = ALG_NAIVE;
    /* Expose the send buffer in the shared heap, and the receive buffer where others write
     * into it: Morton's copies land in every receive buffer, naive's only in the copier's
     * own, and the exchange between nodes packs from and unpacks into the heap. Under auto,
     * Morton is taken only where every receive buffer already lies in the heap, naive
     * otherwise (the copy out of a staged receive buffer cost more than Morton saves). */
    char *sbuf = (char *)sendbuf, *rbuf = recvbuf;
    /* ... except that large blocks of private send data are read where they are, one copy
     * instead of two, where the processes may read each other */
    int s_private = cma_ok && whole_node && !hier && armcii_rt.env.COLL_CMA > 0 &&
                    bb >= (size_t)armcii_rt.env.COLL_CMA && !in_my_heap(sendbuf, ssize);
    if (!s_private && !in_my_heap(sendbuf, ssize)) {
        sbuf = armcii_coll_staging(call, &stage_send, ssize);
        memcpy(sbuf, sendbuf, ssize);
    }
    int r_in_heap = in_my_heap(recvbuf, rsize);
    int stage_out = !r_in_heap && (hier || (alg == ALG_MORTON && chosen));
    if (stage_out)
        rbuf = armcii_coll_staging(call, &stage_recv, rsize);
    if (hier) {
        armcii_stat_coll(ARMCII_ST_COLL_HIER);
        armcii_coll_hier(call, allgather, sbuf, rbuf, bb, alg);
        if (stage_out) /* the caller's receive buffer: placed by size */
            armcii_place_copy(recvbuf, rbuf, rsize, 0);
        return 0;
    }
    /* NULL: a receive buffer outside the heap, which only its owner writes */
    char *mine[2] = {sbuf, r_in_heap || stage_out ? rbuf : NULL};
    char **all = malloc((size_t)P * 2 * sizeof(char *));
    int *owner = malloc((size_t)P * sizeof(int)); /* node rank, or -1: the heap, memcpy */
    if (!all || !owner)
        armcii_fatal(call, "out of memory");
    /* Every process of the node takes part (the world on one node): publish the buffers in
     * the node's shared slots and meet at a shared-memory barrier (a few cache-line
     * transfers) instead of an MPI exchange. Otherwise exchange them through MPI. Either doubles as
     * "everybody's send data is in place". */
    if (whole_node) {
        armcii_coll_slot_t *my = armcii_coll_slot(armcii_topo.node_rank);
        my->buf[0] = mine[0];
        my->buf[1] = mine[1];
        my->buf_private = (uint64_t)s_private;
        armcii_coll_node_barrier(call);
        for (int i = 0; i < P; i++) {
            armcii_coll_slot_t *o = armcii_coll_slot(armcii_reqs.peers[i].node_rank);
            all[2 * i] = o->buf[0];
            all[2 * i + 1] = o->buf[1];
            owner[i] = o->buf_private && i != me ? armcii_reqs.peers[i].node_rank : -1;
        }
    } else {
        MPI_Iallgather(mine, 2 * sizeof(char *), MPI_BYTE, all, 2 * sizeof(char *), MPI_BYTE, comm,
                       &r);
        armcii_mpi_wait(call, &r);
        for (int i = 0; i < P; i++)
            owner[i] = -1;
    }
    for (int i = 0; i < P && alg == ALG_MORTON; i++)
        if (!all[2 * i + 1])
            alg = ALG_NAIVE; /* the same decision everywhere: all saw the same pointers */
    all[2 * me + 1] = rbuf;
    armcii_stat_coll(alg == ALG_MORTON ? ARMCII_ST_COLL_MORTON : ARMCII_ST_COLL_NAIVE);
    /* Cell (i, j): alltoall moves block j of process i to block i of process j;
     * allgather moves process j's block to block j of process i. */
    uint32_t *rows = malloc((size_t)P * sizeof(uint32_t)),
             *cols = malloc((size_t)P * sizeof(uint32_t));
    int n;
    if (alg == ALG_MORTON) {
        n = armcii_morton_share(P, me, rows, cols);
    } else { /* naive: the row of cells that ends in my own receive buffer */
        for (int k = 0; k < P; k++) {
            rows[k] = allgather ? (uint32_t)me : (uint32_t)k;
            cols[k] = allgather ? (uint32_t)k : (uint32_t)me;
        }
        n = P;
    }
    for (int k = 0; k < n; k++) {
        size_t i = rows[k], j = cols[k];
        size_t from = allgather ? j : i; /* whose send data */
        char *dst = allgather ? all[2 * i + 1] + j * bb : all[2 * j + 1] + i * bb;
        const char *src = allgather ? all[2 * j] : all[2 * i] + j * bb;
        if (owner[from] >= 0)
            cma_read(call, dst, src, bb, owner[from]);
        else
            armcii_place_copy(dst, src, bb, 0);
    }
    free(rows);
    free(cols);
    free(all);
    free(owner);
    /* every block is in place once everybody has copied its share */
    if (whole_node) {
        armcii_coll_node_barrier(call);
    } else {
        MPI_Ibarrier(comm, &r);
        armcii_mpi_wait(call, &r);
    }
    if (stage_out)
        armcii_place_copy(recvbuf, rbuf, rsize, 0);
    return 0;
}
