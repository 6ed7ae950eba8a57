/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Serving small requests in the holder's own thread, the moment they arrive.
 *
 * NWChem and GA take their next task with a fetch-and-add on a counter of process 0, and
 * process 0 computes like everyone else; their tasks then accumulate into and read small
 * blocks of arrays spread over every process. Over a provider that needs the target's
 * help (tcp, sockets, udp) such a request waits for the holder's runtime to run: its
 * progress thread, woken by the doorbell (bell.c), costs the holder's core a scheduler wake
 * and a context switch per request, and the doorbell rings only after ARMCI_DOORBELL_US.
 *
 * Here the request is itself the doorbell: one UDP datagram to the holder's serving
 * socket, which the kernel announces with a signal (ARMCI_SERVE_SIGNAL, F_SETSIG) to the
 * thread that called ARMCI_Init (F_SETOWN_EX), which is the thread that computes. Its
 * handler applies the request and answers with a datagram: a few microseconds of the
 * holder's processor, with no thread to wake. A request is a read-modify-write, a get of
 * up to ARMCII_SERVE_DATA_MAX bytes, or neither, with the small accumulates the origin made
 * to that holder since its last request in front (the open datagram: an accumulate
 * returns at once, and joins the next request rather than paying a round trip of its
 * own). Where the holder is inside the runtime (the runtime lock is taken) the handler
 * only marks the socket due, and whoever holds the lock serves it at the next poll or as
 * it lets the lock go.
 *
 * Why the handler is safe, whatever it interrupts:
 *  - it takes no lock it could wait for: the runtime lock is only tried (glibc's trylock
 *    of an adaptive mutex is one compare-and-swap; its unlock a store and, contended, a
 *    futex wake), and where the interrupted thread holds it the try fails; so is the
 *    accumulate lock of this process's memory (nodelock.h), which a thread of this process
 *    may hold without the runtime lock (armcii_acc_unlocked): a request with accumulates
 *    that finds it held by this process is left unanswered, and its origin asks again;
 *  - under the runtime lock it reads what every holder of the lock reads (this rank's
 *    allocation table, changed only under the lock) and writes what only holders of the
 *    lock write (the table of origins' last requests, this module's counters);
 *  - it calls recvfrom, sendto (async-signal-safe by POSIX), CPU atomics and the
 *    arithmetic of accumulates, and no allocation, stdio or libfabric; it keeps errno as it
 *    found it;
 *  - the signal is blocked while its handler runs, so the handler never nests.
 * testing/mpi/t_serve.c has signals arrive inside every kind of runtime call.
 *
 * Datagrams may be lost (a full receive queue, a network that drops): an origin sends its
 * request again after a wait that doubles each time, and the holder, which remembers
 * each origin's last request and answer, applies a request once and answers a repeat
 * with the answer it gave (a get's data read again: the origin has nothing else out, so
 * nothing of its own has changed them since). An origin has one request out at a time.
 * Every datagram carries the job's key, so that a stray one from another job is dropped.
 * What the core sends by datagram, and how that stays in order with what it sends
 * through libfabric, is src/ops/dgram.c's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "host.h"
#include "ofi_internal.h"
#include "transport.h"
#include "../base/acc.h"
#include "../base/common.h"
#include "../base/op.h"
#include "../base/region.h"
#include "../base/stats.h"

/* An answer says whether the signal handler gave it (the holder was outside ARMCI) or a
 * poll of the holder's (it was inside, polling: libfabric would have been as quick). */
enum { MSG_RMW = 1, MSG_ANSWER = 2, MSG_ANSWER_POLLED = 3, MSG_GET = 4, MSG_ACC = 5 };
enum {
    ANSWER_OK = 0,
    ANSWER_OUTSIDE = 1,
    ANSWER_BAD_OP = 2,
    ANSWER_UNALIGNED = 3,
    ANSWER_BAD_ACC = 4, /* an accumulate of an unknown type, or not a whole element */
};

typedef struct {
    uint64_t key; /* the job's */
    uint32_t seq; /* the origin's count of requests, from 1 */
    uint16_t kind;
    uint16_t op;    /* ARMCII_RMW_* */
    int32_t src;    /* the origin's rank */
    int32_t status; /* an answer's: ANSWER_* */
    uint64_t addr;  /* a request's target; a refusal's: the address refused */
    uint64_t value; /* the operand; an answer's old value */
    uint64_t extra; /* the comparand of a compare-and-swap */
    uint32_t len;   /* a get's bytes (its answer carries them); a refusal's: those refused */
    uint16_t nacc;  /* a request's accumulates, in front of it in the body */
    uint16_t body;  /* ... their bytes */
} serve_hdr_t;

/* One accumulate of a request's body, its data after it (to a multiple of 8 bytes). */
typedef struct {
    uint64_t addr;
    uint32_t len;
    int32_t type;
    uint8_t scale[16];
} serve_acc_t;

typedef struct {
    serve_hdr_t h;
    uint8_t data[ARMCII_SERVE_DATA_MAX]; /* a request's accumulates; a get's answer */
} serve_msg_t;

typedef struct {
    uint32_t seq; /* the origin's last request served (0: none yet) */
    int32_t status;
    uint64_t value;        /* and its answer */
    uint64_t bad_addr;     /* a refusal's address */
    uint32_t bad_len, pad; /* ... and bytes */
} served_t;

/* A datagram arrived that nobody has read yet (atomic; transport.h). */
int armcii_serve_due_flag;

/* The holder's side: the serving socket, which the signal announces. */
static int fd = -1;
static int signo;
static pid_t owner_tid; /* the thread the signal goes to: the one that called ARMCI_Init */
static struct sigaction old_act, old_io;
static int took_sigio;
static uint64_t key;
static served_t *served; /* by origin rank */
static uint16_t *ports;  /* every process's serving port, beside its doorbell's address */

/* The origin's side: the socket its requests go from and their answers come back to, with
 * no signal: the origin waits for them inside the runtime, polling (a signal there would
 * only cost both processes an interrupt). */
static int ask_fd = -1;

/* The origin's one request out. */
static struct {
    int waiting; /* 1 until its answer arrives (armcii_serve_waiting) */
    int target;
    serve_msg_t msg;
    size_t msg_len;
    void *get_to; /* a get's destination */
    int32_t status;
    uint64_t value;
    double sent, again; /* when it was sent, and after how long it goes again */
} out;
int armcii_serve_out_target = -1;

/* The open datagram: accumulates to armcii_serve_open_target that wait for the next
 * request (its body is copied into the request's). */
static serve_msg_t opened;
int armcii_serve_open_target = -1;
static int open_accs; /* its accumulates (armcii_serve_open_count) */

/* What a read gives, and what an answer is built in: under the runtime lock. */
static serve_msg_t inbox, reply;
static uint32_t next_seq;
/* By holder: how many answers in a row came from its polls (it was inside ARMCI). From
 * POLLED_RUN on, the next requests go through libfabric (armcii_serve_suits), until one
 * there waits longer than FABRIC_SLOW_S. A single one says little: in a ring of processes
 * that call each other between chunks of work, the holder is found waiting for its own
 * request about every other time, and computes when the next one arrives. */
static uint8_t *polled_run;
#define POLLED_RUN 4

/* A read-modify-write through libfabric on a holder that polls takes 10-20 us over tcp here
 * (docs/performance.md); one that waited longer found its holder computing, and most
 * likely waited for its doorbell (ARMCI_DOORBELL_US). */
#define FABRIC_SLOW_S 50e-6

/* A request unanswered this long goes again; the wait doubles up to RESEND_MAX_S. */
#define RESEND_FIRST_S 1e-3
#define RESEND_MAX_S   0.128

/* An accumulate's record in a body: its header and its data, to a multiple of 8. */
static size_t acc_record(size_t len)
{
    return sizeof(serve_acc_t) + ((len + 7) & ~(size_t)7);
}

int armcii_serve_on(void)
{
    return fd >= 0;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The answer to @p req; a get's carries its data, read now. */
static void answer(const serve_hdr_t *req, const served_t *s, const struct sockaddr *to,
                   socklen_t tolen, int polled)
{
    reply.h = (serve_hdr_t){.key = key,
                            .seq = req->seq,
                            .kind = polled ? MSG_ANSWER_POLLED : MSG_ANSWER,
                            .op = req->op,
                            .src = (int32_t)armcii_tp.rank,
                            .status = s->status,
                            .value = s->value};
    size_t len = sizeof reply.h;
    if (s->status != ANSWER_OK) {
        reply.h.addr = s->bad_addr;
        reply.h.len = s->bad_len;
    } else if (req->kind == MSG_GET) {
        memcpy(reply.data, (const void *)(uintptr_t)req->addr, req->len);
        reply.h.len = req->len;
        len += req->len;
    }
    /* A full send queue drops it: the origin asks again. */
    (void)sendto(fd, &reply, len, MSG_DONTWAIT, to, tolen);
}

static int refuse(served_t *s, int status, uint64_t addr, size_t len)
{
    s->status = status;
    s->bad_addr = addr;
    s->bad_len = (uint32_t)len;
    return 0;
}

static int mine(uint64_t addr, size_t len)
{
    return armcii_region_find(armcii_tp.regions, armcii_tp.rank, (uintptr_t)addr, len) != NULL;
}

/* Checks the whole request @p m, of @p n bytes, before anything of it is applied: 1 if it
 * may be, else 0 with the refusal in @p s. */
static int check(const serve_msg_t *m, size_t n, served_t *s)
{
    const serve_hdr_t *h = &m->h;
    if (n != sizeof *h + h->body)
        return refuse(s, ANSWER_BAD_ACC, 0, 0);
    size_t at = 0;
    for (unsigned i = 0; i < h->nacc; i++) {
        serve_acc_t a;
        if (h->body - at < sizeof a)
            return refuse(s, ANSWER_BAD_ACC, 0, 0);
        memcpy(&a, m->data + at, sizeof a);
        size_t es = armcii_acc_type_size(a.type);
        if (es == 0 || a.len % es != 0 || acc_record(a.len) > h->body - at)
            return refuse(s, ANSWER_BAD_ACC, a.addr, a.len);
        if (!mine(a.addr, a.len))
            return refuse(s, ANSWER_OUTSIDE, a.addr, a.len);
        at += acc_record(a.len);
    }
    if (h->kind == MSG_GET && (h->len > ARMCII_SERVE_DATA_MAX || !mine(h->addr, h->len)))
        return refuse(s, ANSWER_OUTSIDE, h->addr, h->len);
    if (h->kind != MSG_RMW)
        return 1;
    size_t size = (h->op == ARMCII_RMW_FADD32 || h->op == ARMCII_RMW_SWAP32) ? 4 : 8;
    if (h->op != ARMCII_RMW_FADD32 && h->op != ARMCII_RMW_FADD64 && h->op != ARMCII_RMW_SWAP32 &&
        h->op != ARMCII_RMW_SWAP64 && h->op != ARMCII_RMW_CAS64)
        return refuse(s, ANSWER_BAD_OP, h->addr, size);
    if (h->addr % size != 0)
        return refuse(s, ANSWER_UNALIGNED, h->addr, size);
    if (!mine(h->addr, size))
        return refuse(s, ANSWER_OUTSIDE, h->addr, size);
    return 1;
}

/* Applies the checked request @p m, its accumulates first; 0 where they must wait (the
 * accumulate lock is held by this process: the origin asks again). */
static int apply(const serve_msg_t *m, served_t *s)
{
    const serve_hdr_t *h = &m->h;
    if (h->nacc > 0) {
        int slot = armcii_tp.shm ? armcii_tp.node_rank : 0;
        if (!armcii_shm_acc_trylock(slot))
            return 0;
        size_t at = 0;
        for (unsigned i = 0; i < h->nacc; i++) {
            serve_acc_t a;
            memcpy(&a, m->data + at, sizeof a);
            armcii_acc_apply(a.type, a.scale, m->data + at + sizeof a, (void *)(uintptr_t)a.addr,
                             a.len);
            at += acc_record(a.len);
        }
        armcii_shm_acc_unlock(slot);
    }
    s->status = ANSWER_OK;
    s->value = h->kind == MSG_RMW
                   ? armcii_rmw_apply(h->op, (void *)(uintptr_t)h->addr, h->value, &h->extra)
                   : 0;
    return 1;
}

/* An answer to the request out, of @p n bytes. */
static void take_answer(const serve_msg_t *m, size_t n)
{
    const serve_hdr_t *h = &m->h;
    if (!out.waiting || h->seq != out.msg.h.seq || h->src != out.target)
        return; /* (a late answer to a request sent twice) */
    if (out.msg.h.kind == MSG_GET && h->status == ANSWER_OK) {
        if (h->len != out.msg.h.len || n != sizeof m->h + h->len)
            return; /* (not what was asked: ask again) */
        memcpy(out.get_to, m->data, h->len);
    }
    out.status = h->status;
    out.value = h->value;
    if (h->status != ANSWER_OK) { /* what the refusal names */
        out.msg.h.addr = h->addr;
        out.msg.h.len = h->len;
    }
    if (h->kind != MSG_ANSWER_POLLED)
        polled_run[h->src] = 0;
    else if (polled_run[h->src] < POLLED_RUN)
        polled_run[h->src]++;
    __atomic_store_n(&out.waiting, 0, __ATOMIC_RELEASE);
    armcii_serve_out_target = -1;
    /* Accumulates alone: nobody waits for this answer to look at it. */
    if (out.msg.h.kind == MSG_ACC && h->status != ANSWER_OK)
        armcii_serve_answer_check("ARMCI_Acc (applied by its target later)");
}

/* One datagram of @p n bytes read from the socket. */
static void take(const serve_msg_t *m, size_t n, const struct sockaddr *from, socklen_t fromlen,
                 int in_handler)
{
    const serve_hdr_t *h = &m->h;
    if (n < sizeof *h || h->key != key || h->src < 0 || h->src >= armcii_tp.nproc)
        return;
    if (h->kind == MSG_ANSWER || h->kind == MSG_ANSWER_POLLED) {
        take_answer(m, n);
        return;
    }
    if (h->kind != MSG_RMW && h->kind != MSG_GET && h->kind != MSG_ACC)
        return;
    served_t *s = &served[h->src];
    int32_t ahead = (int32_t)(h->seq - s->seq);
    if (ahead < 0)
        return; /* a copy of a request answered long ago: its origin has moved on */
    if (ahead > 0) {
        if (check(m, n, s) && !apply(m, s))
            return; /* (the accumulate lock: asked again, it is tried again) */
        s->seq = h->seq;
        armcii_stat_served(in_handler);
    } else {
        armcii_stat_served_again();
    }
    /* Served at a poll of the thread the signal goes to: it was inside ARMCI. (At the
     * progress thread's poll, it was not: it computes, and the progress thread happened to
     * hold the lock.) Only where a progress thread runs here: without one, a request sent
     * through libfabric while this process computes would wait until it next calls ARMCI. */
    answer(h, s, from, fromlen,
           !in_handler && !armcii_tp.sends_need_caller && syscall(SYS_gettid) == owner_tid);
}

/* Reads every datagram waiting on socket @p s; the runtime lock is held. @return how
 * many. */
static int drain(int s, int in_handler)
{
    for (int got = 0;; got++) {
        struct sockaddr_storage from;
        socklen_t fromlen = sizeof from;
        ssize_t n =
            recvfrom(s, &inbox, sizeof inbox, MSG_DONTWAIT, (struct sockaddr *)&from, &fromlen);
        if (n < 0 && errno == EINTR) {
            got--;
            continue;
        }
        if (n < 0)
            return got;
        take(&inbox, (size_t)n, (struct sockaddr *)&from, fromlen, in_handler);
    }
}

static void on_signal(int sig, siginfo_t *info, void *uc)
{
    (void)sig, (void)info, (void)uc;
    /* Whoever sent it (the kernel for our socket; a SIGIO where its queue of our signals
     * overflowed; kill), the socket is read: an empty one costs one recvfrom. */
    int saved = errno;
    /* Marked due first: a holder of the lock that lets it go after our try looks at it. */
    __atomic_store_n(&armcii_serve_due_flag, 1, __ATOMIC_SEQ_CST);
    int served_here = 0;
    if (fd >= 0 && pthread_mutex_trylock(armcii_tp.lock) == 0) {
        __atomic_store_n(&armcii_serve_due_flag, 0, __ATOMIC_SEQ_CST);
        served_here = drain(fd, 1);
        pthread_mutex_unlock(armcii_tp.lock);
    }
    /* Processes outnumber hardware threads: the origin may share ours, woken by the
     * answer but waiting for the processor until our slice ends. Let it run. */
    if (served_here > 0 && armcii_tp.yield_after == 1)
        sched_yield();
    errno = saved;
}

static void free_tables(void)
{
    free(served);
    free(ports);
    free(polled_run);
    served = NULL;
    ports = NULL;
    polled_run = NULL;
}

void armcii_serve_open(void)
{
    if (armcii_bell_fd() < 0)
        return; /* (no process has one: bell.c opens all or none) */
    long want = armcii_tp.env->SERVE_SIGNAL;
    int sig = want == 0 ? SIGRTMIN + 4 : (int)want;
    int on = armcii_tp.env->SERVE != 0;
    int ok = on && sig >= SIGRTMIN && sig <= SIGRTMAX;
    if (on && !ok && armcii_tp.rank == 0)
        armcii_warn("ARMCI_Init: ARMCI_SERVE_SIGNAL=%ld is no real-time signal (%d-%d); "
                    "read-modify-writes go through the fabric",
                    want, SIGRTMIN, SIGRTMAX);
    struct sigaction cur;
    if (ok && sigaction(sig, NULL, &cur) == 0 && cur.sa_handler != SIG_DFL &&
        cur.sa_handler != SIG_IGN) {
        armcii_warn("ARMCI_Init: signal %d (ARMCI_SERVE_SIGNAL) has a handler already; "
                    "read-modify-writes go through the fabric (choose another signal)",
                    sig);
        ok = 0;
    }
    int s = -1, ask = -1;
    uint16_t port = 0, ask_port;
    if (ok && (s = armcii_bell_socket_beside(&port)) >= 0 &&
        (ask = armcii_bell_socket_beside(&ask_port)) < 0) {
        close(s);
        s = -1;
    }
    served = s >= 0 ? calloc((size_t)armcii_tp.nproc, sizeof *served) : NULL;
    ports = served ? malloc((size_t)armcii_tp.nproc * sizeof *ports) : NULL;
    polled_run = ports ? calloc((size_t)armcii_tp.nproc, 1) : NULL;
    ok = polled_run != NULL;
    /* All or none: a process without the socket would never answer. */
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, armcii_tp.comm);
    if (!ok) {
        if (s >= 0)
            close(s);
        if (ask >= 0)
            close(ask);
        free_tables();
        return;
    }
    MPI_Allgather(&port, 1, MPI_UINT16_T, ports, 1, MPI_UINT16_T, armcii_tp.comm);
    if (armcii_tp.rank == 0) {
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        key = ((uint64_t)t.tv_nsec << 32) ^ (uint64_t)t.tv_sec ^ ((uint64_t)getpid() << 16);
        key |= 1;
    }
    MPI_Bcast(&key, 1, MPI_UINT64_T, 0, armcii_tp.comm);

    fd = s;
    ask_fd = ask;
    signo = sig;
    next_seq = 0; /* (every holder's table starts empty again) */
    out.waiting = 0;
    armcii_serve_out_target = -1;
    armcii_serve_open_target = -1;
    open_accs = 0;
    opened.h.nacc = opened.h.body = 0;
    struct sigaction act;
    memset(&act, 0, sizeof act);
    act.sa_sigaction = on_signal;
    act.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&act.sa_mask);
    sigaddset(&act.sa_mask, SIGIO);
    sigaddset(&act.sa_mask, sig);
    sigaction(sig, &act, &old_act);
    /* The kernel sends SIGIO instead where its queue of real-time signals is full; serve
     * then too, unless the application handles SIGIO itself. */
    struct sigaction io;
    if (sigaction(SIGIO, NULL, &io) == 0 && io.sa_handler == SIG_DFL) {
        took_sigio = 1;
        sigaction(SIGIO, &act, &old_io);
    }
    owner_tid = (pid_t)syscall(SYS_gettid);
    struct f_owner_ex owner = {.type = F_OWNER_TID, .pid = owner_tid};
    if (fcntl(fd, F_SETSIG, sig) != 0 || fcntl(fd, F_SETOWN_EX, &owner) != 0 ||
        fcntl(fd, F_SETFL, O_NONBLOCK | O_ASYNC) != 0) {
        armcii_warn("ARMCI_Init: cannot have signal %d announce the serving socket (%s); "
                    "read-modify-writes there are served at the next poll",
                    sig, strerror(errno));
    }
}

void armcii_serve_close(void)
{
    if (fd < 0)
        return;
    (void)fcntl(fd, F_SETFL, O_NONBLOCK); /* no more signals */
    close(fd);
    close(ask_fd);
    fd = ask_fd = -1;
    /* Ignoring a signal discards any still queued; then the earlier handling returns. */
    struct sigaction ign;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigaction(signo, &ign, NULL);
    sigaction(signo, &old_act, NULL);
    if (took_sigio) {
        sigaction(SIGIO, &ign, NULL);
        sigaction(SIGIO, &old_io, NULL);
        took_sigio = 0;
    }
    free_tables();
}

/* Sends the request built in out.msg.h to @p target, the open datagram's accumulates to
 * it in front. */
static void post(int target)
{
    if (armcii_serve_open_target == target) {
        memcpy(out.msg.data, opened.data, opened.h.body);
        out.msg.h.nacc = opened.h.nacc;
        out.msg.h.body = opened.h.body;
        opened.h.nacc = opened.h.body = 0;
        armcii_serve_open_target = -1;
        open_accs = 0;
    }
    out.target = target;
    out.msg.h.key = key;
    out.msg.h.seq = ++next_seq; /* (compared by difference: wraps) */
    out.msg.h.src = (int32_t)armcii_tp.rank;
    out.msg_len = sizeof out.msg.h + out.msg.h.body;
    out.waiting = 1;
    armcii_serve_out_target = target;
    out.again = RESEND_FIRST_S;
    out.sent = now();
    armcii_bell_send_beside(target, ports[target], ask_fd, &out.msg, out.msg_len);
    armcii_stat_serve_sent();
}

void armcii_serve_rmw_post(int op, int target, uint64_t addr, uint64_t operand, uint64_t comparand)
{
    out.msg.h = (serve_hdr_t){
        .kind = MSG_RMW, .op = (uint16_t)op, .addr = addr, .value = operand, .extra = comparand};
    post(target);
}

void armcii_serve_get_post(uint64_t src, void *dst, size_t len, int target)
{
    out.msg.h = (serve_hdr_t){.kind = MSG_GET, .addr = src, .len = (uint32_t)len};
    out.get_to = dst;
    post(target);
}

void armcii_serve_ship(void)
{
    out.msg.h = (serve_hdr_t){.kind = MSG_ACC};
    post(armcii_serve_open_target);
}

int armcii_serve_acc_fits(int target, size_t len)
{
    int t = armcii_serve_open_target;
    return len <= ARMCII_SERVE_ACC_MAX && (t < 0 || t == target) &&
           acc_record(len) <= ARMCII_SERVE_DATA_MAX - (size_t)opened.h.body;
}

void armcii_serve_acc_add(int target, int type, const void *scale, const void *src, uint64_t dst,
                          size_t len)
{
    serve_acc_t a = {.addr = dst, .len = (uint32_t)len, .type = type};
    memcpy(a.scale, scale, armcii_acc_type_size(type));
    uint8_t *p = opened.data + opened.h.body;
    memcpy(p, &a, sizeof a);
    memcpy(p + sizeof a, src, len);
    opened.h.body = (uint16_t)(opened.h.body + acc_record(len));
    opened.h.nacc++;
    armcii_serve_open_target = target;
    open_accs = opened.h.nacc;
}

void armcii_serve_answer_check(const char *call)
{
    const serve_hdr_t *h = &out.msg.h;
    void *at = (void *)(uintptr_t)h->addr;
    switch (out.status) {
    case ANSWER_OK:
        return;
    case ANSWER_OUTSIDE:
        armcii_fatal(call,
                     "rank %d: %p (%u bytes) lies outside every ARMCI allocation there (a %s "
                     "by datagram)",
                     out.target, at, h->len,
                     h->kind == MSG_GET   ? "get"
                     : h->kind == MSG_RMW ? "read-modify-write, or an accumulate before it"
                                          : "accumulate");
    case ANSWER_UNALIGNED:
        armcii_fatal(call, "rank %d: the word at %p is not aligned to its size", out.target, at);
    case ANSWER_BAD_ACC:
        armcii_fatal(call,
                     "rank %d refused an accumulate by datagram at %p (%u bytes): unknown type, "
                     "or not a whole number of elements",
                     out.target, at, h->len);
    default:
        armcii_fatal(call, "rank %d did not know read-modify-write operation %d", out.target,
                     (int)h->op);
    }
}

int armcii_serve_suits(int target)
{
    return fd >= 0 && polled_run[target] < POLLED_RUN;
}

void armcii_serve_fabric_took(int target, double seconds)
{
    if (fd >= 0 && seconds > FABRIC_SLOW_S)
        polled_run[target] = 0;
}

const int *armcii_serve_waiting(void)
{
    return &out.waiting;
}

const int *armcii_serve_open_count(void)
{
    return &open_accs;
}

uint64_t armcii_serve_rmw_answer(const char *call)
{
    armcii_serve_answer_check(call);
    return out.value;
}

int armcii_serve_poll(void)
{
    if (fd < 0)
        return 0;
    int got = 0;
    if (__atomic_load_n(&armcii_serve_due_flag, __ATOMIC_SEQ_CST)) {
        __atomic_store_n(&armcii_serve_due_flag, 0, __ATOMIC_SEQ_CST);
        got = drain(fd, 0);
    }
    if (out.waiting) {
        got += drain(ask_fd, 0);
        double t = now();
        if (t - out.sent >= out.again) { /* lost, or the holder is slow: ask again */
            armcii_bell_send_beside(out.target, ports[out.target], ask_fd, &out.msg, out.msg_len);
            armcii_stat_serve_resent();
            out.sent = t;
            out.again = out.again * 2 < RESEND_MAX_S ? out.again * 2 : RESEND_MAX_S;
        }
    }
    return got;
}

void armcii_serve_sleep(void)
{
    if (!out.waiting)
        return;
    double left = out.sent + out.again - now();
    if (left <= 0)
        return; /* (it goes again at the next poll) */
    struct pollfd p[2] = {{.fd = ask_fd, .events = POLLIN}, {.fd = fd, .events = POLLIN}};
    struct timespec t = {.tv_sec = 0, .tv_nsec = (long)(left * 1e9)};
    /* A request for us that arrives meanwhile: its signal's handler finds the lock taken
     * (it interrupts this wait and marks the socket due), or poll sees it. */
    if (ppoll(p, 2, &t, NULL) > 0 && (p[1].revents & POLLIN))
        __atomic_store_n(&armcii_serve_due_flag, 1, __ATOMIC_SEQ_CST);
}

void armcii_serve_nudge(void)
{
    if (fd >= 0)
        __atomic_store_n(&armcii_serve_due_flag, 1, __ATOMIC_SEQ_CST);
}
