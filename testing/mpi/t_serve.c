/* SPDX-License-Identifier: BSD-3-Clause */
/* Read-modify-writes served in the holder's own thread (src/transport/serve.c), the
 * pattern of NWChem's and GA's task counter (ga/global/src/nxtval.c: ARMCI_Rmw with
 * ARMCI_FETCH_AND_ADD_LONG on one word of process 0, whose process computes too).
 *
 * Three parts, all over a provider that needs the target's help (the matrix runs it over
 * tcp and sockets with shared memory off):
 *  1. Process 0 computes, making no ARMCI or MPI call, and the runtime has no progress
 *     thread (ARMCI_PROGRESS_THREAD=0 in the matrix): nothing but the signal handler can
 *     serve. The others make ROUNDS fetch-and-adds (64 and 32 bits), swaps, reads and
 *     writes under its mutex (compare-and-swaps and swaps) on its words, gets of 8 and
 *     1024 bytes (the largest that goes by datagram), and accumulates of doubles (scale 1
 *     and 2) and ints into its memory, each read back by the get that follows (which
 *     must see it: the accumulates travel in front of it), checked; process 0 gives
 *     up computing after T_SERVE_WINDOW_S (default 20) seconds. With ARMCI_SERVE=0 the
 *     requests wait for the window's end and the test fails (tried by hand). The old
 *     values the others got, gathered and sorted, must be 0, 1, ... exactly: each
 *     fetch-and-add applied once.
 *  2. Signals inside every runtime call: process 0 makes calls of every kind (puts, gets,
 *     accumulates, fetch-and-adds to itself and to a peer, a mutex, a fence) while the
 *     others hammer its counter, and a thread of its own sends the serving signal to the
 *     calling thread every few microseconds, so that the handler runs at any point of
 *     those calls, with the runtime lock held or not. The others also accumulate into a
 *     word of process 0's, overwrite it with a put and read it back: the put, through
 *     libfabric, must not overtake the accumulate, by datagram. Every value is checked.
 *  3. Requests sent again: process 0 holds the signal back while it computes, so that
 *     every origin sends its request, an accumulate with it, again; each must be applied
 *     once.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "tester.h"

#define ROUNDS 200
#define GOT    1024 /* the largest get by datagram (ARMCII_SERVE_DATA_MAX) */
#define AGAIN  5    /* part 3's fetch-and-adds per process */
#define HELD_S 0.05 /* ... and how long process 0 holds the signal back */
#define SUMS   8    /* doubles every process accumulates into */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* Every old value the fetch-and-adds returned, over all processes but 0, sorted, must be
 * 0 .. n-1. */
static void check_sequence(const char *what, long *mine, int n_mine)
{
    int total = n_mine * (t_np - 1);
    long *all = malloc((size_t)(total + n_mine) * sizeof(long));
    long *zero = calloc((size_t)n_mine, sizeof(long));
    MPI_Gather(t_me == 0 ? zero : mine, n_mine, MPI_LONG, all, n_mine, MPI_LONG, 0, MPI_COMM_WORLD);
    if (t_me == 0) {
        qsort(all + n_mine, (size_t)total, sizeof(long), cmp_long);
        int bad = -1;
        for (int i = 0; i < total && bad < 0; i++)
            if (all[n_mine + i] != i)
                bad = i;
        CHECK(bad < 0, "%s: the old values sorted hold %ld at %d, not %d", what,
              bad < 0 ? 0 : all[n_mine + bad], bad, bad);
    }
    free(all);
    free(zero);
}

/* Part 2's signaller: the serving signal to the calling thread until told to stop. */
static int stop_signals; /* (atomic) */
static pthread_t caller;
static long signals_sent;

static void *signaller(void *arg)
{
    (void)arg;
    struct timespec gap = {0, 20000};
    while (!__atomic_load_n(&stop_signals, __ATOMIC_ACQUIRE)) {
        pthread_kill(caller, SIGRTMIN + 4);
        signals_sent++;
        nanosleep(&gap, NULL);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    const char *w = getenv("T_SERVE_WINDOW_S");
    double window = w ? atof(w) : 20.0;
    void **base = malloc((size_t)t_np * sizeof(void *));
    /* (the accumulated area: SUMS doubles for all, then per process a double and an int) */
    size_t acc_at = 128 + GOT, own_at = acc_at + SUMS * 8, own32_at = own_at + 8 * (size_t)t_np;
    ARMCI_Malloc(base, own32_at + 4 * (size_t)t_np);
    char *mine = base[t_me];
    memset(mine, 0, 128);
    memset(mine + acc_at, 0, own32_at + 4 * (size_t)t_np - acc_at);
    double *sums = (double *)(mine + acc_at);
    double *own = (double *)(mine + own_at);
    int *own32 = (int *)(mine + own32_at);
    double *pattern = (double *)(mine + 128); /* what the gets read: known to every process */
    for (int i = 0; i < GOT / 8; i++)
        pattern[i] = 1000.0 * t_me + i;
    long *counter = (long *)mine;        /* fetch-and-add, 64 bits */
    int *counter32 = (int *)(mine + 8);  /* fetch-and-add, 32 bits */
    long *done = (long *)(mine + 16);    /* how many have finished part 1 */
    long *swapped = (long *)(mine + 24); /* swaps */
    long *casword = (long *)(mine + 32); /* read and written under a mutex */
    int mutexes = ARMCI_Create_mutexes(1);
    CHECK(mutexes == 0, "ARMCI_Create_mutexes returned %d", mutexes);
    ARMCI_Barrier();
    if (t_me != 0) { /* connections first: their set-up is not what is tested */
        double x;
        ARMCI_Get(base[0], &x, sizeof x, 0);
    }
    ARMCI_Barrier();

    /* ---- part 1: a holder that computes, no progress thread ---- */
    long *olds = malloc(ROUNDS * sizeof(long));
    long *olds32 = malloc(ROUNDS * sizeof(long));
    if (t_me == 0) {
        for (int p = 1; p < t_np; p++) {
            int go;
            MPI_Recv(&go, 1, MPI_INT, p, 92, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        volatile double x = 0;
        double t0 = now();
        while (__atomic_load_n(done, __ATOMIC_ACQUIRE) < t_np - 1 && now() - t0 < window)
            for (int i = 0; i < 10000; i++)
                x += 1e-9 * i;
        long seen = __atomic_load_n(done, __ATOMIC_ACQUIRE);
        CHECK(seen == t_np - 1,
              "after %.1f s of computing, %ld of %d processes were served: nothing served "
              "the requests while this process computed",
              now() - t0, seen, t_np - 1);
        printf("t_serve: %d rounds of read-modify-writes of %d processes served in %.1f ms of "
               "computing\n",
               ROUNDS, t_np - 1, (now() - t0) * 1e3);
    } else {
        int go = 1;
        MPI_Send(&go, 1, MPI_INT, 0, 92, MPI_COMM_WORLD);
        long prev_swap_old = -2;
        for (int k = 0; k < ROUNDS; k++) {
            ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &olds[k], base[0], 1, 0);
            int o32 = -1;
            ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &o32, (char *)base[0] + 8, 1, 0);
            olds32[k] = o32;
            /* a swap leaves our tag; the old value is a tag of someone's (or the 0 it
             * started with) */
            long tag = (long)t_me * 100000 + k + 1, old = tag; /* (a swap's value is *ploc) */
            ARMCI_Rmw(ARMCI_SWAP_LONG, &old, (char *)base[0] + 24, 0, 0);
            CHECK(old == 0 || (old / 100000 >= 1 && old / 100000 < t_np && old % 100000 >= 1 &&
                               old % 100000 <= ROUNDS),
                  "swap %d returned %ld, no value any process stored", k, old);
            CHECK(old != prev_swap_old || old == 0, "swap %d returned %ld twice", k, old);
            prev_swap_old = old;
            /* a read and a write made one by process 0's mutex, whose queue lock takes
             * compare-and-swaps and swaps on process 0's words (src/ops/mcs.c) */
            ARMCI_Lock(0, 0);
            long v = -1;
            ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &v, (char *)base[0] + 32, 0, 0);
            long next = v + 1;
            ARMCI_Rmw(ARMCI_SWAP_LONG, &next, (char *)base[0] + 32, 0, 0);
            ARMCI_Unlock(0, 0);
            /* gets, of one word and of the largest size that goes by datagram */
            double w = -1, big[GOT / 8];
            ARMCI_Get((char *)base[0] + 128 + 8 * (k % (GOT / 8)), &w, 8, 0);
            CHECK(w == (double)(k % (GOT / 8)), "get %d read %g, not %d", k, w, k % (GOT / 8));
            if (k % 16 == 0) {
                ARMCI_Get((char *)base[0] + 128, big, GOT, 0);
                int bad = -1;
                for (int i = 0; i < GOT / 8 && bad < 0; i++)
                    if (big[i] != (double)i)
                        bad = i;
                CHECK(bad < 0, "get %d of %d bytes read %g at %d", k, GOT, bad < 0 ? 0 : big[bad],
                      bad);
            }
            /* accumulates: into the sums all share, and into our own double (scale 2) and
             * int, which the get that follows must see */
            double ones[SUMS], one = 1, two = 2, back = -1;
            for (int i = 0; i < SUMS; i++)
                ones[i] = 1;
            int three = 3, int_one = 1, back32 = -1;
            ARMCI_Acc(ARMCI_ACC_DBL, &one, ones, (char *)base[0] + acc_at, sizeof ones, 0);
            ARMCI_Acc(ARMCI_ACC_DBL, &two, &one, (char *)base[0] + own_at + 8 * t_me, 8, 0);
            ARMCI_Acc(ARMCI_ACC_INT, &int_one, &three, (char *)base[0] + own32_at + 4 * t_me, 4, 0);
            ARMCI_Get((char *)base[0] + own_at + 8 * t_me, &back, 8, 0);
            CHECK(back == 2.0 * (k + 1), "round %d: our accumulated double reads %g, not %d", k,
                  back, 2 * (k + 1));
            ARMCI_Get((char *)base[0] + own32_at + 4 * t_me, &back32, 4, 0);
            CHECK(back32 == 3 * (k + 1), "round %d: our accumulated int reads %d, not %d", k,
                  back32, 3 * (k + 1));
        }
        long one;
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &one, (char *)base[0] + 16, 1, 0);
    }
    ARMCI_Barrier();
    check_sequence("64-bit fetch-and-add", olds, ROUNDS);
    check_sequence("32-bit fetch-and-add", olds32, ROUNDS);
    if (t_me == 0) {
        CHECK(*counter == (long)ROUNDS * (t_np - 1), "the counter holds %ld, not %ld", *counter,
              (long)ROUNDS * (t_np - 1));
        CHECK(*counter32 == ROUNDS * (t_np - 1), "the 32-bit counter holds %d, not %d", *counter32,
              ROUNDS * (t_np - 1));
        CHECK(*casword == (long)ROUNDS * (t_np - 1),
              "the compare-and-swap counter holds %ld, not %ld", *casword,
              (long)ROUNDS * (t_np - 1));
        long s = *swapped;
        CHECK(s / 100000 >= 1 && s / 100000 < t_np && s % 100000 == ROUNDS,
              "the swapped word holds %ld, not a process's last tag", s);
        for (int i = 0; i < SUMS; i++)
            CHECK(sums[i] == (double)ROUNDS * (t_np - 1), "sum %d holds %g, not %d", i, sums[i],
                  ROUNDS * (t_np - 1));
        for (int p = 1; p < t_np; p++) {
            CHECK(own[p] == 2.0 * ROUNDS, "process %d's double holds %g, not %d", p, own[p],
                  2 * ROUNDS);
            CHECK(own32[p] == 3 * ROUNDS, "process %d's int holds %d, not %d", p, own32[p],
                  3 * ROUNDS);
            own[p] = 0;
        }
        *counter = 0;
    }
    ARMCI_Barrier();

    /* ---- part 2: signals inside every runtime call ---- */
    int peer = 1;
    long rounds0 = 0; /* process 0's rounds */
    if (t_me == 0) {
        caller = pthread_self();
        /* (the runtime takes the signal only where it serves: not with ARMCI_SERVE=0) */
        struct sigaction cur;
        int taken = sigaction(SIGRTMIN + 4, NULL, &cur) == 0 && cur.sa_handler != SIG_DFL &&
                    cur.sa_handler != SIG_IGN;
        __atomic_store_n(&stop_signals, !taken, __ATOMIC_RELEASE);
        pthread_t th;
        pthread_create(&th, NULL, signaller, NULL);
        double t0 = now();
        int k = 0;
        for (; now() - t0 < 0.5; k++) {
            double v[4] = {k, k + 1, k + 2, k + 3}, back[4] = {0}, one[4] = {1, 1, 1, 1};
            ARMCI_Put(v, (char *)base[peer] + 64, sizeof v, peer);
            ARMCI_Get((char *)base[peer] + 64, back, sizeof back, peer);
            CHECK(back[0] == k && back[3] == k + 3, "round %d: got %g..%g back, not %d..%d", k,
                  back[0], back[3], k, k + 3);
            ARMCI_Acc(ARMCI_ACC_DBL, &one[0], one, (char *)base[peer] + 96, sizeof one, peer);
            long o = -1;
            ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &o, (char *)base[peer] + 8, 1, peer);
            CHECK(o == k, "round %d: the peer's counter was %ld", k, o);
            ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &o, base[0], 1, 0);
            ARMCI_Lock(0, peer);
            ARMCI_Unlock(0, peer);
            ARMCI_Fence(peer);
        }
        __atomic_store_n(&stop_signals, 1, __ATOMIC_RELEASE);
        pthread_join(th, NULL);
        printf("t_serve: %d rounds of calls, %ld signals sent into them\n", k, signals_sent);
        long rounds = k;
        rounds0 = k;
        MPI_Request r; /* (a nonblocking broadcast matches only its kind) */
        MPI_Ibcast(&rounds, 1, MPI_LONG, 0, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        double acc[4];
        ARMCI_Get((char *)base[peer] + 96, acc, sizeof acc, peer);
        CHECK(acc[0] == (double)k && acc[3] == (double)k, "the accumulated sums are %g, %g, not %d",
              acc[0], acc[3], k);
    } else {
        long rounds = 0;
        MPI_Request r;
        MPI_Ibcast(&rounds, 1, MPI_LONG, 0, MPI_COMM_WORLD, &r);
        int finished = 0, n = 0;
        long prev = -1;
        while (!finished) {
            long o = -1;
            ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &o, base[0], 1, 0);
            CHECK(o > prev, "fetch-and-add %d on the busy holder returned %ld after %ld", n, o,
                  prev);
            prev = o;
            /* an accumulate, then a put to the same word: the put must land after it */
            double one = 1, put = 10.0 * n, back = -1;
            char *word = (char *)base[0] + own_at + 8 * t_me;
            ARMCI_Acc(ARMCI_ACC_DBL, &one, &one, word, 8, 0);
            ARMCI_Put(&put, word, 8, 0);
            ARMCI_Get(word, &back, 8, 0);
            CHECK(back == put, "round %d: an accumulate then a put of %g left %g", n, put, back);
            n++;
            MPI_Test(&r, &finished, MPI_STATUS_IGNORE);
        }
        olds[0] = n;
    }
    ARMCI_Barrier();
    /* process 0's counter: its own fetch-and-adds (one a round) and the others' */
    long n_mine = t_me == 0 ? 0 : olds[0], n_all = 0;
    MPI_Reduce(&n_mine, &n_all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (t_me == 0) {
        CHECK(*counter == rounds0 + n_all, "the holder's counter holds %ld, not %ld + %ld",
              *counter, rounds0, n_all);
        *counter = 0;
    }
    if (t_me == 0)
        for (int p = 0; p < t_np; p++)
            own[p] = 0;
    ARMCI_Barrier();

    /* ---- part 3: requests sent again ---- */
    /* Process 0 blocks the signal and computes for HELD_S: its peers' requests wait
     * unread (there is no progress thread in the matrix's tcp lines, and where there is
     * one it may serve them), so each origin sends its request again after 1, 2, 4, ...
     * ms; once the signal is let through, the handler reads the request and its copies
     * together. Each fetch-and-add must still be applied once. */
    if (t_me == 0) {
        sigset_t sig;
        sigemptyset(&sig);
        sigaddset(&sig, SIGRTMIN + 4);
        pthread_sigmask(SIG_BLOCK, &sig, NULL);
        for (int p = 1; p < t_np; p++) {
            int go = 1;
            MPI_Send(&go, 1, MPI_INT, p, 93, MPI_COMM_WORLD);
        }
        volatile double x = 0;
        double t0 = now();
        while (now() - t0 < HELD_S)
            for (int i = 0; i < 1000; i++)
                x += 1e-9 * i;
        pthread_sigmask(SIG_UNBLOCK, &sig, NULL);
        t0 = now();
        while (__atomic_load_n(counter, __ATOMIC_ACQUIRE) < (long)AGAIN * (t_np - 1) &&
               now() - t0 < window)
            for (int i = 0; i < 1000; i++)
                x += 1e-9 * i;
    } else {
        int go;
        MPI_Recv(&go, 1, MPI_INT, 0, 93, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int k = 0; k < AGAIN; k++) {
            double one = 1; /* (it travels with the fetch-and-add) */
            ARMCI_Acc(ARMCI_ACC_DBL, &one, &one, (char *)base[0] + own_at + 8 * t_me, 8, 0);
            ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &olds[k], base[0], 1, 0);
        }
    }
    ARMCI_Barrier();
    check_sequence("fetch-and-adds sent again", olds, AGAIN);
    if (t_me == 0) {
        CHECK(*counter == (long)AGAIN * (t_np - 1),
              "after the copies the counter holds %ld, not %ld", *counter,
              (long)AGAIN * (t_np - 1));
        for (int p = 1; p < t_np; p++)
            CHECK(own[p] == (double)AGAIN, "after the copies process %d's double holds %g, not %d",
                  p, own[p], AGAIN);
    }
    ARMCI_Barrier();
    ARMCI_Destroy_mutexes();
    ARMCI_Free(base[t_me]);
    free(base);
    free(olds);
    free(olds32);
    return t_finish("t_serve");
}
