/*
 * All-to-all and allgather within a node through the node's shared heap. Every process
 * exposes its send and receive buffers there (in place when they already lie in the heap,
 * as ARMCI_Malloc_local memory does; staged otherwise), and the P x P block copies are
 * shared out along the Morton curve (ARMCI_COLL_ALG=morton), so that each process walks
 * blocks close together in both matrices; or each process copies its own row
 * (ARMCI_COLL_ALG=naive, for comparison). Groups that span nodes, runs without shared
 * memory, and ARMCI_COLL_ALG=mpi use MPI's collectives.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/armcii.h"
#include "morton.h"

enum { ALG_MORTON, ALG_NAIVE, ALG_MPI };

typedef struct {
    char *addr;
    size_t off, rounded, size;
} stage_t;

static stage_t stage_send, stage_recv;

static int in_my_heap(const void *p, size_t len)
{
    const char *c = p;
    return armcii_g.shm && c >= armcii_g.my_slice && len <= armcii_g.slice_len &&
           c + len <= armcii_g.my_slice + armcii_g.slice_len;
}

static char *staging(const char *call, stage_t *s, size_t len)
{
    if (s->size < len) {
        if (s->addr)
            armcii_shm_free(s->off, s->rounded);
        void *a;
        if (armcii_shm_alloc(call, len, &a, &s->off, &s->rounded) != ARMCII_OK)
            armcii_fatal(call, "no room to stage %zu bytes in the node heap", len);
        s->addr = a;
        s->size = len;
    }
    return s->addr;
}

void armcii_coll_fini(void)
{
    if (stage_send.addr)
        armcii_shm_free(stage_send.off, stage_send.rounded);
    if (stage_recv.addr)
        armcii_shm_free(stage_recv.off, stage_recv.rounded);
    memset(&stage_send, 0, sizeof(stage_send));
    memset(&stage_recv, 0, sizeof(stage_recv));
}

static int algorithm(const char *call)
{
    const char *a = armcii_g.env.COLL_ALG;
    if (strcmp(a, "morton") == 0)
        return ALG_MORTON;
    if (strcmp(a, "naive") == 0)
        return ALG_NAIVE;
    if (strcmp(a, "mpi") == 0)
        return ALG_MPI;
    armcii_fatal(call, "ARMCI_COLL_ALG=\"%s\" is not morton, naive or mpi", a);
}

/* Are all processes of @p comm on my node, reachable through shared memory? */
static int one_node(MPI_Comm comm, int P)
{
    if (!armcii_g.shm)
        return 0;
    int *seq = malloc((size_t)P * sizeof(int)), *world = malloc((size_t)P * sizeof(int));
    for (int i = 0; i < P; i++)
        seq[i] = i;
    armcii_translate(comm, armcii_g.comm, P, seq, world);
    int all = 1;
    for (int i = 0; i < P; i++)
        all &= armcii_g.node_of[world[i]] == armcii_g.node_id;
    free(seq);
    free(world);
    return all;
}

/* A barrier of the node's processes in shared memory: the last to arrive opens the next
 * generation. Waiters keep serving progress and yield when the cores are oversubscribed. */
static void node_barrier(const char *call)
{
    armcii_node_slot_t *s0 = &armcii_g.slots[0];
    uint64_t gen = __atomic_load_n(&s0->bar_gen, __ATOMIC_ACQUIRE);
    if (__atomic_add_fetch(&s0->bar_count, 1, __ATOMIC_ACQ_REL) == (uint64_t)armcii_g.node_size) {
        __atomic_store_n(&s0->bar_count, 0, __ATOMIC_RELAXED);
        __atomic_add_fetch(&s0->bar_gen, 1, __ATOMIC_RELEASE);
        return;
    }
    unsigned idle = 0;
    while (__atomic_load_n(&s0->bar_gen, __ATOMIC_ACQUIRE) == gen)
        armcii_poll_waiting(call, &idle);
}

int armcii_coll(const char *call, int allgather, const void *sendbuf, void *recvbuf, size_t bb,
                MPI_Comm comm)
{
    int P, me;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &me);
    size_t ssize = allgather ? bb : bb * (size_t)P, rsize = bb * (size_t)P;
    int alg = algorithm(call);
    MPI_Request r;
    if (alg == ALG_MPI || !one_node(comm, P)) {
        if (allgather)
            MPI_Iallgather(sendbuf, (int)bb, MPI_BYTE, recvbuf, (int)bb, MPI_BYTE, comm, &r);
        else
            MPI_Ialltoall(sendbuf, (int)bb, MPI_BYTE, recvbuf, (int)bb, MPI_BYTE, comm, &r);
        armcii_mpi_wait(call, &r);
        return 0;
    }
    /* Expose both buffers in the shared heap. */
    char *sbuf = (char *)sendbuf, *rbuf = recvbuf;
    if (!in_my_heap(sendbuf, ssize)) {
        sbuf = staging(call, &stage_send, ssize);
        memcpy(sbuf, sendbuf, ssize);
    }
    int stage_out = !in_my_heap(recvbuf, rsize);
    if (stage_out)
        rbuf = staging(call, &stage_recv, rsize);
    char *mine[2] = {sbuf, rbuf}, **all = malloc((size_t)P * 2 * sizeof(char *));
    if (!all)
        armcii_fatal(call, "out of memory");
    /* Every process of the node takes part (the world on one node): publish the buffers in
     * the node's shared slots and meet at a shared-memory barrier, about 0.1 us instead of
     * an MPI exchange. Otherwise exchange them through MPI. Either doubles as "everybody's
     * send data is in place". */
    int whole_node = comm == armcii_g.comm && P == armcii_g.node_size;
    if (whole_node) {
        armcii_node_slot_t *my = &armcii_g.slots[armcii_g.node_rank];
        my->coll_buf[0] = sbuf;
        my->coll_buf[1] = rbuf;
        node_barrier(call);
        for (int i = 0; i < P; i++) {
            armcii_node_slot_t *o = &armcii_g.slots[armcii_g.node_rank_of[i]];
            all[2 * i] = o->coll_buf[0];
            all[2 * i + 1] = o->coll_buf[1];
        }
    } else {
        MPI_Iallgather(mine, 2 * sizeof(char *), MPI_BYTE, all, 2 * sizeof(char *), MPI_BYTE,
                       comm, &r);
        armcii_mpi_wait(call, &r);
    }
    /* Cell (i, j): alltoall moves block j of process i to block i of process j;
     * allgather moves process j's block to block j of process i. */
    uint32_t *rows = malloc((size_t)P * sizeof(uint32_t)), *cols = malloc((size_t)P * sizeof(uint32_t));
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
        if (allgather)
            memcpy(all[2 * i + 1] + j * bb, all[2 * j], bb);
        else
            memcpy(all[2 * j + 1] + i * bb, all[2 * i] + j * bb, bb);
    }
    free(rows);
    free(cols);
    free(all);
    /* every block is in place once everybody has copied its share */
    if (whole_node) {
        node_barrier(call);
    } else {
        MPI_Ibarrier(comm, &r);
        armcii_mpi_wait(call, &r);
    }
    if (stage_out)
        memcpy(recvbuf, rbuf, rsize);
    return 0;
}
