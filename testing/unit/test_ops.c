/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The operations (src/ops), the core's requests, waits and ordering and the aggregate
 * handles, driven through the stand-in transport (standin.c) in one process, without
 * MPI's launch or libfabric: a pretend job of two processes on two nodes, this one rank 0,
 * whose peer's memory is an array here. Each test checks what arrived against values it
 * computes itself, what went down to the transport (the stand-in's log) and that every
 * request came back to the pool.
 *
 * What the rest of the runtime gives the operations is stood in for below, as little as
 * links: the node layout, the allocations' table, the waits on MPI, the job's health and
 * the get cache (off).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "standin.h"
#include "../../src/agg/agg.h"
#include "../../src/base/env.h"
#include "../../src/base/iter.h"
#include "../../src/base/op.h"
#include "../../src/base/stats.h"
#include "../../src/core/issue.h"
#include "../../src/core/mem.h"
#include "../../src/core/order.h"
#include "../../src/core/progress.h"
#include "../../src/core/req.h"
#include "../../src/core/runtime.h"
#include "../../src/core/topo.h"
#include "../../src/core/warm.h"
#include "../../src/ops/amo.h"
#include "../../src/ops/exec.h"
#include "../../src/ops/nc.h"
#include "../../src/ops/rma.h"
#include "../../src/transport/transport.h"

/* ---- what the rest of the runtime gives the operations, stood in for ---- */

armcii_topo_t armcii_topo;
armcii_mem_t armcii_mem;

const char *armcii_topo_progress_cpus(void)
{
    return "-";
}
int armcii_topo_progress_elsewhere(void)
{
    return 0;
}
int armcii_topo_place_progress_thread(pthread_attr_t *attr)
{
    (void)attr;
    return 0;
}
void armcii_mpi_wait(const char *call, MPI_Request *r)
{
    (void)call;
    (void)r;
    abort(); /* no operation here waits on MPI */
}
void armcii_live_blame(const char *call, int rank)
{
    (void)call;
    (void)rank;
}
void armcii_live_poll(const char *call)
{
    (void)call;
}
void armcii_census_poll(const char *call)
{
    (void)call;
}
void armcii_census_leave(void) {}
void armcii_warm_register(armcii_warm_fn fn)
{
    (void)fn;
}
int armcii_cache_engine;
void armcii_cache_write(int target, const void *addr, size_t len)
{
    (void)target, (void)addr, (void)len;
}
void armcii_cache_write_blocks(int target, const struct armcii_iter *it)
{
    (void)target, (void)it;
}
int armcii_cache_peek_all(int target, const struct armcii_iter *it)
{
    (void)target, (void)it;
    return 0;
}
void armcii_cache_sync(void) {}
/* (every allocation here has the cache off: nothing below is reached) */
int armcii_cache_get(int target, const void *src, void *dst, size_t len)
{
    (void)target, (void)src, (void)dst, (void)len;
    abort();
}
int armcii_cache_get_held(int target, const void *src, void *dst, size_t len)
{
    (void)target, (void)src, (void)dst, (void)len;
    return 0; /* (aggregate handles ask whatever the mode) */
}
void armcii_cache_get_blocks(int target, struct armcii_iter *it)
{
    (void)target, (void)it;
    abort();
}
void *armcii_cache_fill_start(const armcii_cache_owner_t *owner, int target, const void *src,
                              void *dst, size_t len)
{
    (void)owner, (void)target, (void)src, (void)dst, (void)len;
    abort();
}
void *armcii_cache_fill_data(void *fill)
{
    (void)fill;
    abort();
}
void armcii_cache_fill_end(void *fill)
{
    (void)fill;
    abort();
}

/* ---- the pretend job ---- */

#define PEER 1 /* the other process, on another node: every operation to it is the fabric's */
#define MEM  65536

static _Alignas(64) unsigned char peer_mem[MEM];  /* process 1's allocation */
static _Alignas(64) unsigned char local_mem[MEM]; /* process 0's */
static armcii_alloc_t alloc;                      /* both blocks' allocation (cache off) */
static const armcii_seg_t *peer_seg;

static const char *no_env(const char *name)
{
    (void)name;
    return NULL; /* every setting at its default */
}

static int setup(void)
{
    char err[256];
    if (armcii_env_load(&armcii_rt.env, no_env, err, sizeof(err)) != 0)
        return 1;
    armcii_rt.rank = 0;
    armcii_rt.nproc = 2;
    armcii_rt.one_caller = 1;
    if (armcii_rt_open_fabric() != ARMCII_OK) /* the stand-in's capabilities, the limits */
        return 1;
    int node[2] = {0, 1}, node_rank[2] = {0, 0};
    if (armcii_peers_init(node, node_rank) != ARMCII_OK || armcii_req_init() != 0)
        return 1;
    armcii_tp_configure(&(armcii_tp_host_t){
        .rank = 0,
        .nproc = 2,
        .max_requests = (int)armcii_rt.env.MAX_REQUESTS,
        .yield_after = 1u << 30,
        .env = &armcii_rt.env,
        .regions = &armcii_mem.regions,
        .lock = armcii_progress_lock(),
        .op_done = armcii_req_op_done,
        .copied = armcii_req_copied,
        .of_cookie = armcii_req_of_cookie,
        .make_progress = armcii_poll_waiting,
    });
    armcii_ops_init();
    if (armcii_region_table_init(&armcii_mem.regions, 2) != 0)
        return 1;
    alloc.cache.mode = ARMCIX_CACHE_OFF;
    armcii_seg_t mine = {(uintptr_t)local_mem, MEM, &alloc},
                 peer = {(uintptr_t)peer_mem, MEM, &alloc};
    if (armcii_region_insert(&armcii_mem.regions, 0, &mine) != 0 ||
        armcii_region_insert(&armcii_mem.regions, PEER, &peer) != 0)
        return 1;
    peer_seg = armcii_region_find(&armcii_mem.regions, PEER, (uintptr_t)peer_mem, 1);
    return peer_seg == NULL;
}

/* Every request back in the pool, nothing in flight to the peer, nothing due. */
static void check_quiet(void)
{
    int in_use, slots;
    armcii_req_counts(&in_use, &slots);
    CU_ASSERT_EQUAL(in_use, 0);
    CU_ASSERT_EQUAL(armcii_reqs.peers[PEER].out_write, 0);
    CU_ASSERT_EQUAL(armcii_reqs.peers[PEER].out_sw, 0);
    CU_ASSERT_EQUAL(armcii_reqs.implicit_total, 0);
    CU_ASSERT_EQUAL(standin_due(), 0);
}

/* A blocking put, then a blocking get of what it wrote: the bytes the get brings back are
 * the ones put, and the get went down after the put (a small put travels as a message
 * that may wait open; the get sends it first). */
static void test_put_get(void)
{
    armcii_lock();
    standin_reset();
    unsigned char src[100], back[100];
    for (int i = 0; i < 100; i++)
        src[i] = (unsigned char)(7 * i + 3);
    memset(back, 0, sizeof(back));
    memset(peer_mem, 0, 256);
    armcii_put("test", src, peer_mem + 16, sizeof(src), PEER, peer_seg, NULL, 1);
    armcii_get("test", peer_mem + 16, back, sizeof(back), PEER, peer_seg, NULL, 1);
    CU_ASSERT_EQUAL(memcmp(peer_mem + 16, src, sizeof(src)), 0);
    CU_ASSERT_EQUAL(memcmp(back, src, sizeof(src)), 0);
    CU_ASSERT_EQUAL(peer_mem[15], 0); /* nothing outside the range */
    CU_ASSERT_EQUAL(peer_mem[116], 0);
    CU_ASSERT_EQUAL_FATAL(standin_nlog >= 2, 1);
    const standin_op_t *last = &standin_log[standin_nlog - 1];
    CU_ASSERT_EQUAL(last->kind, STANDIN_GET);
    CU_ASSERT_EQUAL(last->raddr, (uint64_t)(uintptr_t)(peer_mem + 16));
    CU_ASSERT_EQUAL(last->len, sizeof(back));
    CU_ASSERT_EQUAL(standin_count(STANDIN_PUT) + standin_count(STANDIN_MESSAGE), 1);
    armcii_fence("test", PEER);
    check_quiet();
    armcii_unlock();
}

/* A large put goes zero-copy and a blocking call returns only when it is done. */
static void test_put_large(void)
{
    armcii_lock();
    standin_reset();
    size_t n = 48 * 1024;
    for (size_t i = 0; i < n; i++)
        local_mem[i] = (unsigned char)(i * 13 + 1);
    armcii_put("test", local_mem, peer_mem, n, PEER, peer_seg, NULL, 1);
    CU_ASSERT_EQUAL(memcmp(peer_mem, local_mem, n), 0);
    CU_ASSERT_EQUAL(standin_count(STANDIN_PUT), 1);
    CU_ASSERT_EQUAL(standin_log[0].len, n);
    armcii_fence("test", PEER);
    check_quiet();
    armcii_unlock();
}

/* Accumulates of doubles, blocking: each returns at once (its bytes copied into a message
 * that waits open for the next), the fence sends and completes them. 2.0 * 0.5 added three
 * times to 1.0 is 4.0. */
static void test_acc(void)
{
    armcii_lock();
    standin_reset();
    double *dst = (double *)(void *)(peer_mem + 1024);
    double src[8], scale = 2.0;
    for (int i = 0; i < 8; i++) {
        dst[i] = 1.0;
        src[i] = 0.5;
    }
    for (int k = 0; k < 3; k++)
        armcii_acc("test", ARMCI_ACC_DBL, &scale, src, dst, sizeof(src), PEER, peer_seg, NULL, 1);
    armcii_fence("test", PEER);
    for (int i = 0; i < 8; i++)
        CU_ASSERT_DOUBLE_EQUAL(dst[i], 4.0, 0.0);
    /* the three joined one message: it went down once */
    CU_ASSERT_EQUAL(standin_count(STANDIN_MESSAGE), 1);
    CU_ASSERT_EQUAL(standin_log[0].len, 3 * sizeof(src));
    check_quiet();
    armcii_unlock();
}

/* Accumulates of ints and longs, nonblocking on no handle (implicit): 3 * 7 added to 5 is
 * 26, -2 * 9 added to 100 is 82; WaitAll's wait completes them. */
static void test_acc_int(void)
{
    armcii_lock();
    standin_reset();
    int *di = (int *)(void *)(peer_mem + 2048);
    long *dl = (long *)(void *)(peer_mem + 2304);
    int si[16], scale_i = 3;
    long sl[16], scale_l = -2;
    for (int i = 0; i < 16; i++) {
        di[i] = 5;
        si[i] = 7;
        dl[i] = 100;
        sl[i] = 9;
    }
    armcii_acc("test", ARMCI_ACC_INT, &scale_i, si, di, sizeof(si), PEER, peer_seg, NULL, 0);
    armcii_acc("test", ARMCI_ACC_LNG, &scale_l, sl, dl, sizeof(sl), PEER, peer_seg, NULL, 0);
    armcii_req_wait_implicit("test", -1);
    armcii_fence("test", PEER);
    for (int i = 0; i < 16; i++) {
        CU_ASSERT_EQUAL(di[i], 26);
        CU_ASSERT_EQUAL(dl[i], 82);
    }
    check_quiet();
    armcii_unlock();
}

/* A nonblocking get on a handle: in flight until a wait polls the transport; the wait
 * completes it and the handle reads as waited. */
static void test_nbget_handle(void)
{
    armcii_lock();
    standin_reset();
    for (int i = 0; i < 64; i++)
        peer_mem[4096 + i] = (unsigned char)(255 - i);
    unsigned char back[64] = {0};
    armci_hdl_t h;
    armcii_hdl_init(&h, 0);
    armcii_get("test", peer_mem + 4096, back, sizeof(back), PEER, peer_seg, &h, 0);
    armcii_hdl_state_t st;
    CU_ASSERT_PTR_NOT_NULL(armcii_req_of_handle("test", &h, &st));
    CU_ASSERT_EQUAL(st, ARMCII_HDL_ACTIVE);
    CU_ASSERT_EQUAL(standin_due(), 1); /* posted, its completion not delivered yet */
    armcii_route_wait("test", &h);
    CU_ASSERT_PTR_NULL(armcii_req_of_handle("test", &h, &st));
    CU_ASSERT_EQUAL(st, ARMCII_HDL_WAITED);
    for (int i = 0; i < 64; i++)
        CU_ASSERT_EQUAL(back[i], (unsigned char)(255 - i));
    check_quiet();
    armcii_unlock();
}

/* A strided put of 4 rows of 24 bytes, then a strided get of them back, each through the
 * noncontiguous path: short blocks packed into a message, the get's read as the range the
 * blocks span. */
static void test_strided(void)
{
    armcii_lock();
    standin_reset();
    unsigned char src[4][32], back[4][32];
    memset(peer_mem + 8192, 0xee, 512);
    memset(back, 0, sizeof(back));
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 32; c++)
            src[r][c] = (unsigned char)(r * 32 + c);
    int src_stride[1] = {32}, dst_stride[1] = {100}, count[2] = {24, 4};
    armcii_iter_t it;
    armcii_iter_strided(&it, src, src_stride, peer_mem + 8192, dst_stride, count, 1, 1);
    armcii_nc("test", ARMCII_OP_PUT, 0, NULL, &it, PEER, NULL, 1);
    armcii_iter_strided(&it, peer_mem + 8192, dst_stride, back, src_stride, count, 1, 0);
    armcii_nc("test", ARMCII_OP_GET, 0, NULL, &it, PEER, NULL, 1);
    for (int r = 0; r < 4; r++) {
        CU_ASSERT_EQUAL(memcmp(peer_mem + 8192 + 100 * r, src[r], 24), 0);
        CU_ASSERT_EQUAL(peer_mem[8192 + 100 * r + 24], 0xee); /* the gap left alone */
        CU_ASSERT_EQUAL(memcmp(back[r], src[r], 24), 0);
        CU_ASSERT_EQUAL(back[r][24], 0);
    }
    armcii_fence("test", PEER);
    check_quiet();
    armcii_unlock();
}

/* An aggregate handle: 10 nonblocking puts of 8 bytes are collected, not sent; its wait
 * sends them as one message of 80 bytes and completes it. */
static void test_aggregate(void)
{
    armcii_lock();
    standin_reset();
    armci_hdl_t h;
    armcii_hdl_init(&h, 1);
    CU_ASSERT_EQUAL_FATAL(armcii_agg_addr_add(&h), 0);
    uint64_t vals[10];
    uint64_t *dst = (uint64_t *)(void *)(peer_mem + 16384);
    for (int i = 0; i < 10; i++) {
        vals[i] = 1000 + (uint64_t)i;
        dst[2 * i] = 0;
        CU_ASSERT_EQUAL(armcii_route_contig("test", ARMCII_OP_PUT, &vals[i], &dst[2 * i], 8, PEER,
                                            peer_seg, &h, 0),
                        0);
    }
    CU_ASSERT_EQUAL(standin_nlog, 0); /* collected: nothing went down */
    CU_ASSERT_EQUAL(dst[0], 0);
    /* the wait completes them locally: their bytes are copied out (into the open message,
     * which the fence sends: one message of 80 bytes) */
    armcii_route_wait("test", &h);
    for (int i = 0; i < 10; i++)
        vals[i] = 0; /* the caller's buffer is its own again */
    armcii_agg_unset("test", &h);
    armcii_fence("test", PEER);
    for (int i = 0; i < 10; i++)
        CU_ASSERT_EQUAL(dst[2 * i], 1000 + (uint64_t)i);
    CU_ASSERT_EQUAL(standin_count(STANDIN_MESSAGE), 1);
    CU_ASSERT_EQUAL(standin_log[0].len, 80);
    check_quiet();
    armcii_unlock();
}

/* Read-modify-write: a fetch-and-add returns the old value and leaves the sum; a 32-bit
 * one returns the old 32 bits. */
static void test_rmw(void)
{
    armcii_lock();
    standin_reset();
    int64_t *w = (int64_t *)(void *)(peer_mem + 32768);
    int32_t *w32 = (int32_t *)(void *)(peer_mem + 32776);
    *w = 40;
    *w32 = -5;
    CU_ASSERT_EQUAL((int64_t)armcii_rmw("test", ARMCII_RMW_FADD64, PEER, w, NULL, 2, 0), 40);
    CU_ASSERT_EQUAL((int64_t)armcii_rmw("test", ARMCII_RMW_FADD64, PEER, w, NULL, 2, 0), 42);
    CU_ASSERT_EQUAL(*w, 44);
    CU_ASSERT_EQUAL((int32_t)armcii_rmw("test", ARMCII_RMW_FADD32, PEER, w32, NULL, 7, 0), -5);
    CU_ASSERT_EQUAL(*w32, 2);
    /* swaps return the old value and leave the operand; a compare-and-swap swaps only
     * when the word holds the comparand */
    CU_ASSERT_EQUAL((int32_t)armcii_rmw("test", ARMCII_RMW_SWAP32, PEER, w32, NULL, 11, 0), 2);
    CU_ASSERT_EQUAL(*w32, 11);
    CU_ASSERT_EQUAL((int64_t)armcii_rmw("test", ARMCII_RMW_SWAP64, PEER, w, NULL, 90, 0), 44);
    CU_ASSERT_EQUAL(*w, 90);
    CU_ASSERT_EQUAL((int64_t)armcii_rmw("test", ARMCII_RMW_CAS64, PEER, w, NULL, 1, 89), 90);
    CU_ASSERT_EQUAL(*w, 90);
    CU_ASSERT_EQUAL((int64_t)armcii_rmw("test", ARMCII_RMW_CAS64, PEER, w, NULL, 1, 90), 90);
    CU_ASSERT_EQUAL(*w, 1);
    CU_ASSERT_EQUAL(standin_count(STANDIN_MESSAGE), 7); /* applied by the target's handler */
    check_quiet();
    armcii_unlock();
}

/* The request pool full: a new request completes the oldest first, transparently. */
static void test_pool_full(void)
{
    armcii_lock();
    standin_reset();
    int in_use, slots;
    armcii_req_counts(&in_use, &slots);
    unsigned char back[4];
    int n = slots + 3;
    for (int i = 0; i < n; i++)
        armcii_get("test", peer_mem + 4 * (size_t)i, back, 4, PEER, peer_seg, NULL, 0);
    armcii_req_counts(&in_use, &slots);
    CU_ASSERT(in_use <= slots);
    CU_ASSERT_EQUAL(standin_count(STANDIN_GET), n);
    armcii_req_wait_implicit("test", -1);
    check_quiet();
    armcii_unlock();
}

int main(void)
{
    unit_watch_crashes();
    alarm(60);
    if (setup() != 0) {
        fprintf(stderr, "test_ops: the pretend job did not come up\n");
        return 1;
    }
    static const unit_test_t tests[] = {
        {"put_get", test_put_get},
        {"put_large", test_put_large},
        {"acc", test_acc},
        {"acc_int", test_acc_int},
        {"nbget_handle", test_nbget_handle},
        {"strided", test_strided},
        {"aggregate", test_aggregate},
        {"rmw", test_rmw},
        {"pool_full", test_pool_full},
    };
    return unit_run("ops", tests, sizeof(tests) / sizeof(tests[0]));
}
