/* SPDX-License-Identifier: BSD-3-Clause */
/* Misuse, one case per run (named by the first argument). Each case must end the job
 * through ARMCI_Error with a message naming the call and the bad value; errors.sh checks
 * the exit status and the message. Reaching the end of a case is a failure. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "tester.h"

/* One collective call by a short name (the pair:A:B cases, run with a short ARMCI_TIMEOUT:
 * mismatched collective calls must end the job naming both). */
static void collective(const char *name, void **base)
{
    double x = 1;
    long v[16] = {0}; /* the all-to-all: 8 blocks out, 8 in */
    void **more = malloc((size_t)t_np * sizeof(void *));
    if (strcmp(name, "free") == 0)
        ARMCI_Free(base[t_me]);
    else if (strcmp(name, "malloc") == 0)
        ARMCI_Malloc(more, 64);
    else if (strcmp(name, "barrier") == 0)
        ARMCI_Barrier();
    else if (strcmp(name, "finalize") == 0)
        ARMCI_Finalize();
    else if (strcmp(name, "dgop") == 0)
        armci_msg_dgop(&x, 1, "+");
    else if (strcmp(name, "brdcst") == 0)
        armci_msg_brdcst(v, (int)sizeof v, 0);
    else if (strcmp(name, "alltoall") == 0)
        ARMCIX_Alltoall(v, v + 8, 8, NULL);
    else if (strcmp(name, "mutexes") == 0)
        ARMCI_Create_mutexes(1);
    free(more);
}

int main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";
    long buf[4] = {0};
    MPI_Init(&argc, &argv);
    if (strcmp(c, "before_init") == 0)
        ARMCI_Put(buf, buf, 8, 0);
    if (strncmp(c, "differ:", 7) == 0) { /* differ:NAME:AT_RANK_0:ELSEWHERE */
        char name[64], v0[32], v1[32];
        if (sscanf(c, "differ:%63[^:]:%31[^:]:%31s", name, v0, v1) != 3)
            return 2;
        MPI_Comm_rank(MPI_COMM_WORLD, &t_me);
        setenv(name, t_me == 0 ? v0 : v1, 1); /* ARMCI_Init must notice */
    }
    ARMCI_Init();
    MPI_Comm_rank(MPI_COMM_WORLD, &t_me);
    MPI_Comm_size(MPI_COMM_WORLD, &t_np);
    void **base = malloc((size_t)t_np * sizeof(void *));
    ARMCI_Malloc(base, 64);
    int peer = (t_me + 1) % t_np;
    if (strncmp(c, "mutex", 5) == 0 || strncmp(c, "unlock", 6) == 0)
        ARMCI_Create_mutexes(2);
    ARMCI_Barrier();
    if (strcmp(c, "after_finalize") == 0 || strcmp(c, "finalize_extra") == 0)
        ARMCI_Finalize(); /* collective: everybody, then rank 0 misuses it */
    /* ARMCI_Malloc is collective: every process asks for too much */
    if (strcmp(c, "malloc_huge") == 0)
        ARMCI_Malloc(base, (armci_size_t)1 << 50); /* 1 PiB: more than any node can map */
    if (strcmp(c, "mr_limit") == 0) /* run with ARMCI_MR_MAX: more blocks than registrations */
        for (int i = 0; i < 100; i++)
            ARMCI_Malloc(base, 4096);
    if (strcmp(c, "free_mismatch") == 0) { /* collective, but each frees another allocation */
        void **other = malloc((size_t)t_np * sizeof(void *));
        ARMCI_Malloc(other, 64);
        ARMCI_Free(t_me == 0 ? base[t_me] : other[t_me]);
    }
    if (strcmp(c, "malloc_unbacked") == 0) /* fits the heap of ARMCI_SHM_HEAP_SIZE=16384G */
        ARMCI_Malloc(base, (armci_size_t)15 << 40); /* but not any node's memory */
    if (strncmp(c, "group_", 6) == 0) {             /* collective: every process makes and frees */
        int all[64];
        for (int i = 0; i < t_np && i < 64; i++)
            all[i] = i;
        ARMCI_Group g, copy;
        ARMCI_Group_create(t_np, all, &g);
        copy = g;
        ARMCI_Group_free(&g);
        ARMCI_Group_free(&g); /* again: nothing to do, as in ARMCI-MPI */
        if (strcmp(c, "group_freed") == 0)
            armci_msg_group_barrier(&g);
        else if (strcmp(c, "group_freed_copy") == 0)
            ARMCI_Malloc_group(base, 64, &copy);
        else if (strcmp(c, "group_garbage") == 0) {
            int r;
            memset(&g, 0x5a, sizeof g);
            ARMCI_Group_rank(&g, &r);
        }
    }
    if (strcmp(c, "coll_mismatch") == 0) { /* run with a short ARMCI_TIMEOUT */
        if (t_me == 0)
            ARMCI_Free(base[t_me]);
        else
            ARMCI_Barrier();
    }
    if (strncmp(c, "pair:", 5) == 0) { /* pair:CALL0:CALL: rank 0 calls CALL0, the others CALL */
        char a[32], b[32];
        if (sscanf(c, "pair:%31[^:]:%31s", a, b) != 2)
            return 2;
        collective(t_me == 0 ? a : b, base);
    }
    if (strcmp(c, "group_lists") == 0) { /* process 0 lists itself alone, the others all */
        int all[2] = {0, 1};
        ARMCI_Group g;
        ARMCI_Group_create(t_me == 0 ? 1 : 2, all, &g);
    }
    if (strcmp(c, "bad_local") == 0) { /* a buffer that is not memory at all */
        /* 32 KiB: longer than a put the runtime copies into a message over tcp
         * (ARMCI_PUT_MESSAGE_MAX), so that the provider reads the buffer in place */
        void **big = malloc((size_t)t_np * sizeof(void *));
        ARMCI_Malloc(big, 32768);
        if (t_me == 0) {
            char *bad = mmap(NULL, 1 << 16, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            ARMCI_Put(bad, big[peer], 32768, peer);
        }
    }
    if (strcmp(c, "finalize_after_mpi") == 0) {
        MPI_Finalize();
        ARMCI_Finalize();
    }
    if (strcmp(c, "gop_counts") == 0) { /* collective: process 0 with 1 element, others 2 */
        double x[2] = {1, 2};
        armci_msg_dgop(x, t_me == 0 ? 1 : 2, "+");
    }
    if (strcmp(c, "agg_freed") == 0) {
        /* an aggregate handle keeps the segment of its last block (armci/onesided.c, agg.h):
         * once that allocation is freed, an operation into it is refused, not let through
         * by the segment kept (collective: every process frees, then puts) */
        void **gone = malloc((size_t)t_np * sizeof(void *));
        armci_hdl_t ha;
        ARMCI_Malloc(gone, 64);
        ARMCI_INIT_HANDLE(&ha);
        ARMCI_SET_AGGREGATE_HANDLE(&ha);
        ARMCI_NbPut(buf, gone[peer], 8, peer, &ha);
        ARMCI_NbPut(buf, (char *)gone[peer] + 8, 8, peer, &ha); /* (its segment kept now) */
        ARMCI_Free(gone[t_me]);
        ARMCI_NbPut(buf, (char *)gone[peer] + 16, 8, peer, &ha);
    }
    if (strcmp(c, "malloc_vs_free") == 0) { /* collective: process 0 allocates, 1 frees */
        void **more = malloc((size_t)t_np * sizeof(void *));
        if (t_me == 0)
            ARMCI_Malloc(more, 64);
        else
            ARMCI_Free(base[t_me]);
    }
    if (strcmp(c, "handle_reused") == 0 || strcmp(c, "handle_reused_node") == 0) {
        /* A second operation on a handle whose first is still in flight. GA waits first
         * (global/src/nbutil.c, get_armci_nbhandle). Over tcp with no progress thread and
         * process 1 making no ARMCI call (it waits in MPI), nothing serves process 0's
         * first get until the job ends, so it is in flight by construction (the connection
         * is made first, while process 1 is in the barrier: by a nonblocking get, as a
         * small blocking one may go by datagram, src/ops/dgram.c, and make none). In
         * _node, the second one is a put to process 0 itself, complete within its call. */
        if (t_me == 0) {
            armci_hdl_t first;
            ARMCI_INIT_HANDLE(&first);
            ARMCI_NbGet(base[peer], buf, 8, peer, &first);
            ARMCI_Wait(&first);
        }
        ARMCI_Barrier();
        if (t_me == 0) {
            armci_hdl_t h;
            ARMCI_INIT_HANDLE(&h);
            ARMCI_NbGet(base[peer], buf, 8, peer, &h);
            if (strcmp(c, "handle_reused") == 0)
                ARMCI_NbGet(base[peer], buf + 1, 8, peer, &h);
            else
                ARMCI_NbPut(buf, base[0], 8, 0, &h);
        } else {
            int x;
            MPI_Recv(&x, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }
    /* Collective, with an operation or element type that differs on process 0: ARMCI-MPI
     * (src/message_gop.c) and ComEx (comex/src-armci/message.c) hand each process's own
     * operation to MPI_Allreduce, and each process gets a different answer. */
    if (strcmp(c, "gop_ops") == 0) {
        double x[2] = {1, 2};
        armci_msg_dgop(x, 2, t_me == 0 ? "+" : "max");
    }
    if (strcmp(c, "gop_types") == 0) { /* the same 4 bytes each: int against float */
        int i = 1;
        float f = 1;
        if (t_me == 0)
            armci_msg_igop(&i, 1, "+");
        else
            armci_msg_fgop(&f, 1, "+");
    }
    if (strcmp(c, "gop_ops_long") == 0) { /* longer than the runtime's own steps take */
        static double x[20000];
        armci_msg_dgop(x, 20000, t_me == 0 ? "min" : "max");
    }
    if (strcmp(c, "gop_ops_scope") == 0) { /* the node's scope: MPI's collective */
        long x = 1;
        armci_msg_gop_scope(SCOPE_NODE, &x, 1, t_me == 0 ? "+" : "absmax", ARMCI_LONG);
    }
    void **big = malloc((size_t)t_np * sizeof(void *)); /* silent_target's, collective */
    if (strcmp(c, "silent_target") == 0)
        ARMCI_Malloc(big, 32768 * sizeof(double));
    if (strcmp(c, "sel_ops") == 0) {
        double x = t_me;
        armci_msg_sel(&x, sizeof x, t_me == 0 ? "min" : "max", ARMCI_DOUBLE, 1);
    }
    if (t_me == 0) {
        armci_hdl_t h;
        if (strcmp(c, "null_buffer") == 0)
            ARMCI_Put(NULL, base[peer], 8, peer);
        else if (strcmp(c, "low_buffer") == 0) /* an integer taken for a pointer */
            ARMCI_Put((void *)(uintptr_t)0x10, base[peer], 8, peer);
        else if (strcmp(c, "low_buffer_get") == 0)
            ARMCI_Get(base[peer], (void *)(uintptr_t)0x10, 8, peer);
        else if (strcmp(c, "rank_negative") == 0)
            ARMCI_Get(base[peer], buf, 8, -1);
        else if (strcmp(c, "rank_too_big") == 0)
            ARMCI_Get(base[peer], buf, 8, t_np);
        else if (strcmp(c, "outside") == 0)
            ARMCI_Get(buf, buf + 1, 8, peer);
        else if (strcmp(c, "past_end") == 0)
            ARMCI_Get((char *)base[peer] + 60, buf, 8, peer);
        else if (strcmp(c, "negative_size") == 0)
            ARMCI_Put(buf, base[peer], -5, peer);
        else if (strcmp(c, "acc_bad_type") == 0)
            ARMCI_Acc(17, buf, buf, base[peer], 8, peer);
        else if (strcmp(c, "acc_null_scale") == 0)
            ARMCI_Acc(ARMCI_ACC_DBL, NULL, buf, base[peer], 8, peer);
        else if (strcmp(c, "acc_partial") == 0) /* a double and a half */
            ARMCI_Acc(ARMCI_ACC_DBL, buf, buf, base[peer], 12, peer);
        else if (strcmp(c, "msg_abort") == 0)
            armci_msg_abort(3);
        else if (strcmp(c, "wait_uninit") == 0) {
            memset(&h, 0, sizeof(h));
            ARMCI_Wait(&h);
        } else if (strcmp(c, "stride_levels") == 0) {
            int st[9] = {8, 8, 8, 8, 8, 8, 8, 8, 8}, cnt[10] = {8, 1, 1, 1, 1, 1, 1, 1, 1, 1};
            ARMCI_PutS(buf, st, base[peer], st, cnt, 9, peer);
        } else if (strcmp(c, "negative_count") == 0) {
            int st[1] = {8}, cnt[2] = {8, -2};
            ARMCI_GetS(base[peer], st, buf, st, cnt, 1, peer);
        } else if (strcmp(c, "small_stride") == 0) {
            int st[1] = {4}, cnt[2] = {8, 2};
            ARMCI_PutS(buf, st, base[peer], st, cnt, 1, peer);
        } else if (strcmp(c, "silent_target") == 0) {
            /* process 1 waits in MPI alone (below), with no progress thread to answer for
             * it: these accumulates and the fence cannot complete, and the wait that gives
             * up after ARMCI_TIMEOUT says what to look at */
            static double src[32768];
            double one = 1.0;
            for (int i = 0; i < 64; i++)
                ARMCI_Acc(ARMCI_ACC_DBL, &one, src, big[1], (int)sizeof(src), 1);
            ARMCI_Fence(1);
        } else if (strcmp(c, "null_iov") == 0) {
            ARMCI_PutV(NULL, 2, peer);
        } else if (strncmp(c, "vector_", 7) == 0) {
            /* three blocks, the middle one bad: outside every allocation of the peer (its
             * neighbours are inside one, so their span alone would not show it), or a
             * NULL local address */
            char *r = base[peer];
            void *src[3] = {buf, buf + 1, buf + 2}, *dst[3] = {r, buf + 3, r + 16};
            if (strcmp(c, "vector_null_local") == 0) {
                src[1] = NULL;
                dst[1] = r + 8;
            }
            armci_giov_t v = {src, dst, 8, 3};
            if (strncmp(c, "vector_long_", 12) == 0) {
                /* 40 blocks, which the check reads eight at a time, one bad at place 21 */
                static void *ls[40], *rd[40];
                for (int k = 0; k < 40; k++) {
                    ls[k] = buf + k % 4;
                    rd[k] = r + 8 * (k % 8);
                }
                if (strcmp(c, "vector_long_null_local") == 0)
                    ls[21] = NULL;
                else
                    rd[21] = buf + 1;
                armci_giov_t g = {ls, rd, 8, 40};
                ARMCI_PutV(&g, 1, peer);
            }
            if (strcmp(c, "vector_len") == 0) {
                /* a ptr_array_len longer than the arrays hold: what follows their filled
                 * part (zeros here) is named with its place and the length given */
                void *rs[4] = {r, r + 8, NULL, NULL}, *ld[4] = {buf, buf + 1, buf + 2, buf + 3};
                armci_giov_t g = {rs, ld, 8, 4};
                ARMCI_GetV(&g, 1, peer);
            }
            if (strcmp(c, "vector_huge_len") == 0) {
                /* a ptr_array_len of 2^30 for arrays of 2 entries */
                void *rs[2] = {r, r + 8}, *ld[2] = {buf, buf + 1};
                armci_giov_t g = {rs, ld, 8, 1 << 30};
                ARMCI_GetV(&g, 1, peer);
            }
            ARMCI_PutV(&v, 1, peer);
        } else if (strcmp(c, "mutex_range") == 0) {
            ARMCI_Lock(5, peer); /* mutexes were created: 2 per process */
        } else if (strcmp(c, "unlock_not_held") == 0) {
            ARMCI_Unlock(0, peer);
        } else if (strcmp(c, "group_duplicate") == 0) {
            int ids[2] = {0, 0};
            ARMCI_Group g;
            ARMCI_Group_create(2, ids, &g);
        } else if (strcmp(c, "group_range") == 0) {
            int ids[2] = {0, 99};
            ARMCI_Group g;
            ARMCI_Group_create(2, ids, &g);
        } else if (strcmp(c, "domain_id") == 0) {
            /* -1 means "my domain" (t_groups); an id past the last domain is refused */
            armci_domain_nprocs(ARMCI_DOMAIN_SMP, armci_domain_count(ARMCI_DOMAIN_SMP));
        } else if (strcmp(c, "rmw_op") == 0) {
            int v;
            ARMCI_Rmw(7, &v, base[peer], 1, peer);
        } else if (strcmp(c, "msg_op") == 0) {
            int v = 1;
            armci_msg_igop(&v, 1, "xor");
        } else if (strcmp(c, "msg_op_fortran") == 0) {
            /* an unknown operator as Fortran passes it, no NUL for 40 bytes: the message
             * shows its first 8 bytes, unprintable ones escaped, and reads no further */
            char op[48];
            memset(op, 'G', sizeof(op));
            memcpy(op, "xor\x01", 4);
            op[47] = 0;
            long v = 1;
            armci_msg_lgop(&v, 1, op);
        } else if (strcmp(c, "msg_sel_op") == 0) {
            char op[16] = "mid        Z";
            double v = 1.0;
            armci_msg_sel(&v, sizeof(v), op, ARMCI_DOUBLE, 1);
        } else if (strcmp(c, "msg_op_fp") == 0) {
            double v = 1.0;
            armci_msg_dgop(&v, 1, "&");
        } else if (strcmp(c, "agg_two_targets") == 0) {
            ARMCI_INIT_HANDLE(&h);
            ARMCI_SET_AGGREGATE_HANDLE(&h);
            int other = (peer + 1) % t_np;
            ARMCI_NbPut(buf, base[peer], 8, peer, &h);
            ARMCI_NbPut(buf, base[other], 8, other, &h);
        } else if (strcmp(c, "agg_acc") == 0) {
            double one = 1;
            ARMCI_INIT_HANDLE(&h);
            ARMCI_SET_AGGREGATE_HANDLE(&h);
            ARMCI_NbAcc(ARMCI_ACC_DBL, &one, buf, base[peer], 8, peer, &h);
        } else if (strcmp(c, "agg_flag") == 0) {
            ARMCI_INIT_HANDLE(&h);
            ARMCI_SET_AGGREGATE_HANDLE(&h);
            ARMCIX_NbPut_flag(buf, base[peer], 8, (int *)base[peer] + 4, 1, peer, &h);
        } else if (strcmp(c, "flag_outside") == 0) {
            int local_flag;
            ARMCIX_NbPut_flag(buf, base[peer], 8, &local_flag, 1, peer, NULL);
        } else if (strcmp(c, "coll_null") == 0) {
            ARMCIX_Alltoall(NULL, buf, 8, NULL);
        } else if (strcmp(c, "coll_overlap") == 0) {
            ARMCIX_Allgather(buf, (char *)buf + 4, 8, NULL); /* [0,8) and [4,20) */
        } else if (strcmp(c, "coll_not_member") == 0) {
            ARMCI_Group g = {.comm = MPI_COMM_NULL, .rank = -1};
            ARMCIX_Alltoall(buf, buf + 2, 8, &g);
        } else if (strcmp(c, "coll_nodes") == 0) { /* run as several nodes */
            ARMCIX_Alltoall(buf, buf + 2, 8, NULL);
        } else if (strcmp(c, "cache_mode") == 0) {
            ARMCIX_Cache_set_mode(base[t_me], 7);
        } else if (strcmp(c, "cache_base") == 0) {
            ARMCIX_Cache_set_mode((char *)base[t_me] + 8, ARMCIX_CACHE_ALWAYS);
        } else if (strcmp(c, "cache_invalidate_base") == 0) {
            ARMCIX_Cache_invalidate(buf);
        } else if (strcmp(c, "cache_stats_null") == 0) {
            ARMCIX_Cache_get_stats(NULL);
        } else if (strcmp(c, "after_finalize") == 0) {
            ARMCI_Get(buf, buf, 8, 0);
        } else if (strcmp(c, "finalize_extra") == 0) {
            ARMCI_Finalize(); /* one more than there were ARMCI_Init calls */
        }
        fprintf(stderr, "t_errors: case '%s' was not rejected\n", c);
        MPI_Abort(MPI_COMM_WORLD, 99);
    }
    /* The others wait to be taken down by rank 0's abort. */
    MPI_Barrier(MPI_COMM_WORLD);
    return 1;
}
