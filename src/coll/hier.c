/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * All-to-all and allgather over several nodes: the node-level exchange through the shared
 * heap (coll.c's copies, on each node's own block of the matrix) combined with one exchange
 * between nodes, made by one process per node (its leader) over MPI. Blocks that cross
 * nodes are packed by every process straight into its leader's send buffer in the shared
 * heap and unpacked by every process straight out of the leader's receive buffer, so the
 * network carries one message per pair of nodes instead of one per pair of processes,
 * and no block is copied twice on a node.
 *
 * For the world only (the node layout is known for it); other groups across nodes use
 * MPI's collectives.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "morton.h"
#include "node.h"
#include "../core/progress.h"
#include "../core/req.h"
#include "../core/runtime.h"
#include "../core/topo.h"
#include "../base/common.h"
#include "../base/place.h"

/* World ranks grouped by node, in node-rank order: node a holds members[start[a] ..
 * start[a] + count[a]). Node ids are dense in the order of their leaders' world ranks,
 * which is also the order of the leaders in masters_comm. */
static int *members, *start, *count;

static void layout(const char *call)
{
    if (members)
        return;
    int P = armcii_rt.nproc, N = armcii_topo.nnodes;
    members = malloc((size_t)P * sizeof(int));
    start = calloc((size_t)N + 1, sizeof(int));
    count = calloc((size_t)N, sizeof(int));
    if (!members || !start || !count)
        armcii_fatal(call, "out of memory");
    for (int r = 0; r < P; r++)
        count[armcii_reqs.peers[r].node]++;
    for (int a = 0; a < N; a++)
        start[a + 1] = start[a] + count[a];
    for (int r = 0; r < P; r++)
        members[start[armcii_reqs.peers[r].node] + armcii_reqs.peers[r].node_rank] = r;
}

void armcii_coll_hier_fini(void)
{
    free(members);
    free(start);
    free(count);
    members = start = count = NULL;
}

static stage_t stage_spack, stage_rpack;

void armcii_coll_hier_stage_fini(void)
{
    armcii_coll_stage_free(&stage_spack);
    armcii_coll_stage_free(&stage_rpack);
}

/* The copies within my node: cells (r, c) of the node's n x n block of the matrix, in
 * local indices, shared out as coll.c does for a node on its own. */
static void node_copies(int allgather, int alg, char **sb, char **rb, size_t bb)
{
    int me = armcii_topo.node_id, n = count[me], r0 = start[me];
    uint32_t rows[n], cols[n];
    int k;
    if (alg == ARMCII_COLL_MORTON) {
        k = armcii_morton_share(n, armcii_topo.node_rank, rows, cols);
    } else {
        for (int x = 0; x < n; x++) {
            rows[x] = allgather ? (uint32_t)armcii_topo.node_rank : (uint32_t)x;
            cols[x] = allgather ? (uint32_t)x : (uint32_t)armcii_topo.node_rank;
        }
        k = n;
    }
    for (int x = 0; x < k; x++) {
        int i = (int)rows[x], j = (int)cols[x];
        size_t wi = (size_t)members[r0 + i], wj = (size_t)members[r0 + j];
        if (allgather)
            memcpy(rb[i] + wj * bb, sb[j], bb);
        else
            memcpy(rb[j] + wi * bb, sb[i] + wj * bb, bb);
    }
}

static void node_barrier(const char *call, int n)
{
    if (n > 1)
        armcii_coll_node_barrier(call);
}

int armcii_coll_hier(const char *call, int allgather, char *sbuf, char *rbuf, size_t bb, int alg)
{
    layout(call);
    int N = armcii_topo.nnodes, me = armcii_topo.node_id, n = count[me], li = armcii_topo.node_rank;
    int leader = li == 0;
    /* Byte offsets of each node's part in the leader's buffers. Alltoall: to node b go
     * n x count[b] blocks (source local i, destination index jb on b); from node a come
     * count[a] x n blocks (source index ia on a, destination local j). Allgather: one
     * buffer of all P blocks in members order, my node's packed in place (MPI_IN_PLACE). */
    size_t *soff = malloc(((size_t)N + 1) * sizeof(size_t));
    size_t *roff = malloc(((size_t)N + 1) * sizeof(size_t));
    if (!soff || !roff)
        armcii_fatal(call, "out of memory");
    soff[0] = roff[0] = 0;
    for (int a = 0; a < N; a++) {
        size_t out = a == me || allgather ? 0 : (size_t)n * (size_t)count[a] * bb;
        size_t in = allgather ? (size_t)count[a] * bb
                    : a == me ? 0
                              : (size_t)count[a] * (size_t)n * bb;
        soff[a + 1] = soff[a] + out;
        roff[a + 1] = roff[a] + in;
    }
    size_t ssize = soff[N], rsize = roff[N];

    /* Publish: my buffers, and the leader's pack buffers. A node of one process has no
     * shared slots (nor needs them). */
    armcii_coll_slot_t alone = {0};
    armcii_coll_slot_t *mine = n > 1 ? armcii_coll_slot(li) : &alone;
    armcii_coll_slot_t *lead = n > 1 ? armcii_coll_slot(0) : &alone;
    mine->buf[0] = sbuf;
    mine->buf[1] = rbuf;
    if (leader) {
        lead->buf[2] = armcii_coll_staging(call, &stage_spack, ssize ? ssize : 1);
        lead->buf[3] = armcii_coll_staging(call, &stage_rpack, rsize ? rsize : 1);
    }
    node_barrier(call, n);
    char *sb[n], *rb[n];
    for (int x = 0; x < n; x++) {
        const armcii_coll_slot_t *s = n > 1 ? armcii_coll_slot(x) : &alone;
        sb[x] = s->buf[0];
        rb[x] = s->buf[1];
    }
    char *spack = lead->buf[2], *rpack = lead->buf[3];

    /* Pack what leaves the node. */
    if (allgather) {
        memcpy(rpack + roff[me] + (size_t)li * bb, sbuf, bb);
    } else {
        for (int b = 0; b < N; b++) {
            if (b == me)
                continue;
            for (int jb = 0; jb < count[b]; jb++)
                memcpy(spack + soff[b] + ((size_t)li * (size_t)count[b] + (size_t)jb) * bb,
                       sbuf + (size_t)members[start[b] + jb] * bb, bb);
        }
    }
    node_barrier(call, n);

    /* The leaders exchange; meanwhile everybody makes the node's own copies. */
    MPI_Request req = MPI_REQUEST_NULL;
    if (leader) {
        int *sc = malloc((size_t)N * sizeof(int)), *sd = malloc((size_t)N * sizeof(int));
        int *rc = malloc((size_t)N * sizeof(int)), *rd = malloc((size_t)N * sizeof(int));
        if (!sc || !sd || !rc || !rd)
            armcii_fatal(call, "out of memory");
        if (ssize > INT_MAX || rsize > INT_MAX)
            armcii_fatal(call, "%zu bytes to exchange between nodes exceed MPI's int counts",
                         ssize > rsize ? ssize : rsize);
        for (int a = 0; a < N; a++) {
            sc[a] = (int)(soff[a + 1] - soff[a]);
            sd[a] = (int)soff[a];
            rc[a] = (int)(roff[a + 1] - roff[a]);
            rd[a] = (int)roff[a];
        }
        if (allgather)
            MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_BYTE, rpack, rc, rd, MPI_BYTE,
                            armcii_topo.masters_comm, &req);
        else
            MPI_Ialltoallv(spack, sc, sd, MPI_BYTE, rpack, rc, rd, MPI_BYTE,
                           armcii_topo.masters_comm, &req);
        node_copies(allgather, alg, sb, rb, bb);
        armcii_mpi_wait(call, &req);
        free(sc);
        free(sd);
        free(rc);
        free(rd);
    } else {
        node_copies(allgather, alg, sb, rb, bb);
    }
    node_barrier(call, n);

    /* Unpack what arrived for me. */
    for (int a = 0; a < N; a++) {
        if (a == me)
            continue;
        for (int ia = 0; ia < count[a]; ia++) {
            size_t from = allgather ? roff[a] + (size_t)ia * bb
                                    : roff[a] + ((size_t)ia * (size_t)n + (size_t)li) * bb;
            armcii_place_copy(rbuf + (size_t)members[start[a] + ia] * bb, rpack + from, bb, 0);
        }
    }
    free(soff);
    free(roff);
    node_barrier(call, n); /* the leader's buffers are free for the next call */
    return 0;
}
