/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Heartbeats: knowing, on every host, that a process of the job has died or gone silent,
 * even while no ARMCI call is waiting for it. live.c watches the processes of this node
 * through /proc, but only from inside a waiting loop; a process on another host, or a
 * read of a dead node peer's memory (which completes at once, through the node heap),
 * is never noticed there. Here one thread per process keeps TCP connections that the
 * kernel closes the moment a process ends, however it ends:
 *
 *   - each node's first process (its leader) is connected to every other node's leader
 *     and to every process of its node; the others only to their leader;
 *   - every connection carries a heartbeat each ARMCI_LIVENESS_MS, so a process that is
 *     stopped, or a host whose link is down, shows as ARMCI_TIMEOUT seconds of silence;
 *   - a connection that closes without a goodbye, or falls silent, is a lost process: a
 *     leader tells every other leader and its own processes, a leader's process tells
 *     itself; each process that learns of it ends at once, naming the lost rank, its
 *     process id and its host.
 *
 * A process ends here with _exit, after its message: the thread cannot know what the
 * application's threads hold, and under a launcher that does not end the job itself
 * (mpirun --enable-recovery) every survivor must end on its own. With ARMCI_LIVENESS_MS=0
 * there is no thread and no connection. ARMCI_Finalize says goodbye after its last
 * barrier, so processes that leave early are not taken for dead.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "health.h"
#include "../base/common.h"

enum { HB_HELLO = 1, HB_BEAT, HB_LOST, HB_BYE };
enum { LOST_DIED = 1, LOST_SILENT, LOST_ERROR };

typedef struct {
    uint32_t type;
    int32_t rank; /* HELLO: the sender; LOST: the lost rank */
    int32_t arg;  /* LOST: LOST_DIED, LOST_SILENT or LOST_ERROR */
    uint32_t cookie;
} hb_msg_t;

#define HB_ADDRS       4
#define ERROR_GRACE_MS 1000
/* What every process publishes at start-up (allgathered). */
typedef struct {
    int32_t pid;
    uint16_t port; /* a leader's listening port (0 for the others) */
    uint16_t naddr;
    uint32_t addr[HB_ADDRS]; /* a leader's IPv4 addresses, network order, loopback last */
    char host[64];
} hb_card_t;

typedef struct {
    int fd;
    int rank;
    double heard; /* when something last arrived */
    int bye;
    size_t got;
    hb_msg_t in;
} hb_conn_t;

static hb_card_t *cards; /* by rank */
static int my_leader;
static hb_conn_t *conns;
static int nconn;
static uint32_t cookie;
static int wake[2] = {-1, -1};
static pthread_t thread;
static int running;

static int is_leader(int r)
{
    return armcii_hh.node_rank_of(r) == 0;
}

static int leader_of(int r)
{
    for (int q = 0; q < armcii_hh.nproc; q++)
        if (armcii_hh.node_of(q) == armcii_hh.node_of(r) && is_leader(q))
            return q;
    return -1;
}

const char *armcii_hb_host(int rank)
{
    return cards && rank >= 0 && rank < armcii_hh.nproc ? cards[rank].host : "?";
}

/* Process id of @p rank (-1 before init or for a bad rank). */
static int hb_pid(int rank)
{
    return cards && rank >= 0 && rank < armcii_hh.nproc ? cards[rank].pid : -1;
}

/* Ends this process: the message first, on one line, then out without running anything
 * that could wait on a lock the application's threads hold. */
static void lost(const char *call, int rank, int why)
{
    char msg[512];
    if (why == LOST_DIED)
        snprintf(msg, sizeof msg,
                 "armci: rank %d: %s: rank %d (process %d on %s) has died; this process "
                 "cannot go on without it (see ARMCI_LIVENESS_MS)\n",
                 armcii_hh.rank, call, rank, hb_pid(rank), armcii_hb_host(rank));
    else if (why == LOST_ERROR)
        snprintf(msg, sizeof msg,
                 "armci: rank %d: %s: rank %d (process %d on %s) ended the job with an error "
                 "(its own message says which)\n",
                 armcii_hh.rank, call, rank, hb_pid(rank), armcii_hb_host(rank));
    else
        snprintf(msg, sizeof msg,
                 "armci: rank %d: %s: rank %d (process %d on %s) has not been heard from for "
                 "%ld s: it is stopped, or its host is unreachable (see ARMCI_TIMEOUT)\n",
                 armcii_hh.rank, call, rank, hb_pid(rank), armcii_hb_host(rank),
                 armcii_hh.env->TIMEOUT);
    /* Another process's ARMCI_Error is often this one's too (a collective misuse): a
     * moment for this process's own message, should it be about to give it. */
    if (why == LOST_ERROR && rank != armcii_hh.rank)
        usleep(1000 * ERROR_GRACE_MS);
    ssize_t w = write(2, msg, strlen(msg));
    (void)w;
    _exit(1);
}

/* A message on @p fd; with @p wait, blocking up to the socket's send timeout (the news of a
 * loss must leave before this process does), else only if there is room at once. */
static int send_msg(int fd, int type, int rank, int arg, int wait)
{
    hb_msg_t m = {(uint32_t)type, rank, arg, cookie};
    if (wait)
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    int flags = MSG_NOSIGNAL | (wait ? 0 : MSG_DONTWAIT);
    return send(fd, &m, sizeof m, flags) == (ssize_t)sizeof m ? 0 : -1;
}

/* Stops the thread (finalize, or this process's own error). */
static void stop_thread(void)
{
    if (!running)
        return;
    ssize_t w = write(wake[1], "x", 1);
    (void)w;
    pthread_join(thread, NULL);
    running = 0;
}

/* Tells whom this process must tell that @p rank is lost: a leader, every other leader when
 * it saw the loss itself (or heard it from one of its processes) and its own processes
 * always; any other process, its leader when it saw the loss itself (the lost process may
 * be itself), so that the end of this process, which follows, is not taken for the first
 * loss. A leader that heard it from another leader tells the other leaders too: one of
 * them may see this process's connection close before the news from the first, and
 * would then name this process, a messenger, instead of the lost one (4 hosts of one
 * process each, one killed, in cluster.sh). A message read first wins: the news comes
 * before the close on the same connection. */
static void tell(int rank, int why, int seen_here)
{
    if (is_leader(armcii_hh.rank) || seen_here) {
        for (int i = 0; i < nconn; i++) {
            int r = conns[i].rank;
            if (conns[i].fd < 0 || r == rank || conns[i].bye)
                continue;
            if (seen_here || !is_leader(r))
                send_msg(conns[i].fd, HB_LOST, rank, why, 1);
        }
    }
}

/* A lost process seen here: the news passed on, then this process ends. */
static void spread(const char *call, int rank, int why, int seen_here)
{
    tell(rank, why, seen_here);
    lost(call, rank, why);
}

void armcii_hb_abort(const char *msg)
{
    (void)msg;
    if (!running)
        return;
    stop_thread(); /* first, so that it does not take the others' ends for deaths */
    tell(armcii_hh.rank, LOST_ERROR, 1);
}

void armcii_hb_lost(const char *call, int rank)
{
    if (running)
        spread(call, rank, LOST_DIED, 1);
}

static void *hb_loop(void *arg)
{
    (void)arg;
    struct pollfd *pf = calloc((size_t)nconn + 1, sizeof *pf);
    if (!pf) {
        armcii_warn("heartbeat: out of memory; other processes are not watched");
        return NULL;
    }
    double period = 1e-3 * (double)armcii_hh.env->LIVENESS_MS;
    double limit = (double)armcii_hh.env->TIMEOUT;
    double next_beat = 0;
    for (;;) {
        double now = armcii_now();
        if (now >= next_beat) {
            for (int i = 0; i < nconn; i++)
                if (conns[i].fd >= 0 && !conns[i].bye)
                    send_msg(conns[i].fd, HB_BEAT, armcii_hh.rank, 0, 0);
            next_beat = now + period;
        }
        for (int i = 0; i < nconn; i++)
            if (conns[i].fd >= 0 && !conns[i].bye && now - conns[i].heard > limit)
                spread("heartbeat", conns[i].rank, LOST_SILENT, 1);
        pf[0].fd = wake[0];
        pf[0].events = POLLIN;
        for (int i = 0; i < nconn; i++) {
            pf[i + 1].fd = conns[i].bye ? -1 : conns[i].fd;
            pf[i + 1].events = POLLIN;
        }
        int ms = (int)((next_beat - now) * 1e3) + 1;
        if (poll(pf, (nfds_t)nconn + 1, ms) < 0)
            continue; /* interrupted: the revents are not this call's */
        if (pf[0].revents)
            break; /* finalize */
        now = armcii_now();
        for (int i = 0; i < nconn; i++) {
            hb_conn_t *c = &conns[i];
            if (!pf[i + 1].revents)
                continue;
            ssize_t n = recv(c->fd, (char *)&c->in + c->got, sizeof c->in - c->got, MSG_DONTWAIT);
            if (n < 0 && (errno == EAGAIN || errno == EINTR))
                continue;
            if (n <= 0) {
                close(c->fd);
                c->fd = -1;
                spread("heartbeat", c->rank, LOST_DIED, 1);
            }
            c->heard = now;
            c->got += (size_t)n;
            if (c->got < sizeof c->in)
                continue;
            c->got = 0;
            if (c->in.cookie != cookie)
                continue;
            if (c->in.type == HB_BYE)
                c->bye = 1;
            else if (c->in.type == HB_LOST && c->in.arg >= LOST_DIED && c->in.arg <= LOST_ERROR)
                spread("heartbeat", c->in.rank, c->in.arg, 1);
        }
    }
    free(pf);
    return NULL;
}

/* A leader's IPv4 addresses, those of its interfaces that are up first, loopback last (for
 * leaders of one machine, as ARMCI_NODE_SIZE makes them, or a machine with no network). */
static void my_addresses(hb_card_t *c)
{
    struct ifaddrs *ifs = NULL, *i;
    if (getifaddrs(&ifs) == 0) {
        for (i = ifs; i && c->naddr < HB_ADDRS - 1; i = i->ifa_next) {
            if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP) ||
                (i->ifa_flags & IFF_LOOPBACK))
                continue;
            c->addr[c->naddr++] = ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr;
        }
        freeifaddrs(ifs);
    }
    c->addr[c->naddr++] = htonl(INADDR_LOOPBACK);
}

/* Connect to @p peer's leader socket, trying its addresses in turn; -1 if none answers
 * with this job's cookie within @p secs each. */
static int reach(int peer, int same_machine, double secs)
{
    const hb_card_t *c = &cards[leader_of(peer)];
    for (int a = same_machine ? c->naddr - 1 : 0; a < c->naddr; a++) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
            return -1;
        struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(c->port)};
        sa.sin_addr.s_addr = c->addr[a];
        int rc = connect(fd, (struct sockaddr *)&sa, sizeof sa);
        if (rc != 0 && errno == EINPROGRESS) {
            struct pollfd p = {fd, POLLOUT, 0};
            int err = 0;
            socklen_t len = sizeof err;
            if (poll(&p, 1, (int)(secs * 1e3)) == 1 &&
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err == 0)
                rc = 0;
        }
        if (rc == 0 && send_msg(fd, HB_HELLO, armcii_hh.rank, 0, 0) == 0)
            return fd;
        close(fd);
    }
    return -1;
}

static void set_nodelay(int fd)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

/* MPI_Finalize deletes MPI_COMM_SELF's attributes first: a program that ends MPI without
 * ARMCI_Finalize says goodbye here, and is not taken for dead as it leaves. */
static int at_mpi_finalize(MPI_Comm comm, int key, void *val, void *extra)
{
    (void)comm, (void)key, (void)val, (void)extra;
    armcii_hb_fini();
    return MPI_SUCCESS;
}

armcii_status_t armcii_hb_init(void)
{
    static const char call[] = "ARMCI_Init";
    int P = armcii_hh.nproc, me = armcii_hh.rank;
    armcii_error_on_abort(armcii_hb_abort);
    cards = calloc((size_t)P, sizeof *cards);
    if (!cards)
        return ARMCII_ENOMEM;
    hb_card_t mine = {.pid = (int32_t)getpid()};
    gethostname(mine.host, sizeof mine.host - 1);
    int lfd = -1;
    int on = armcii_hh.env->LIVENESS_MS > 0 && P > 1;
    if (on && is_leader(me)) {
        lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY)};
        socklen_t len = sizeof sa;
        if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
            listen(lfd, SOMAXCONN) != 0 || getsockname(lfd, (struct sockaddr *)&sa, &len) != 0)
            armcii_fatal(call,
                         "heartbeat: cannot listen on a TCP port: %s (ARMCI_LIVENESS_MS=0 "
                         "runs without heartbeats)",
                         strerror(errno));
        mine.port = ntohs(sa.sin_port);
        my_addresses(&mine);
    }
    uint32_t c0 = (uint32_t)getpid() ^ (uint32_t)(armcii_now() * 1e6);
    MPI_Bcast(&c0, 1, MPI_UINT32_T, 0, armcii_hh.comm);
    cookie = c0;
    MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, cards, (int)sizeof mine, MPI_BYTE,
                  armcii_hh.comm);
    if (!on)
        return ARMCII_OK;
    my_leader = leader_of(me);

    /* Connections out: a leader to the leaders of lower rank, the others to their leader.
     * They complete in the peer's listening queue, so nobody waits for an accept here. */
    int out = 0, in = 0;
    if (is_leader(me)) {
        for (int r = 0; r < P; r++) {
            if (r == me || !(is_leader(r) || armcii_hh.node_of(r) == armcii_hh.node_id))
                continue;
            if (is_leader(r) && r < me)
                out++;
            else
                in++;
        }
    } else {
        out = 1;
    }
    nconn = out + in;
    conns = calloc((size_t)nconn, sizeof *conns);
    if (!conns)
        return ARMCII_ENOMEM;
    int k = 0;
    for (int r = 0; r < P && k < out; r++) {
        if (r == me || !is_leader(r) || (is_leader(me) ? r > me : r != my_leader))
            continue;
        int same = !strcmp(cards[r].host, mine.host);
        int fd = reach(r, same && !is_leader(me), (double)armcii_hh.env->TIMEOUT);
        if (fd < 0)
            armcii_fatal(call,
                         "heartbeat: cannot reach rank %d on %s at any of its %d addresses "
                         "(port %d); is TCP between the hosts blocked? (ARMCI_LIVENESS_MS=0 "
                         "runs without heartbeats)",
                         r, cards[r].host, cards[r].naddr, cards[r].port);
        conns[k++] = (hb_conn_t){.fd = fd, .rank = r};
    }
    /* Connections in, each introduced by a hello carrying its rank and the job's cookie
     * (a stray connection to the port is dropped). */
    double t0 = armcii_now();
    while (k < nconn) {
        struct pollfd p = {lfd, POLLIN, 0};
        double left = (double)armcii_hh.env->TIMEOUT - (armcii_now() - t0);
        if (left <= 0 || poll(&p, 1, (int)(left * 1e3) + 1) <= 0)
            armcii_fatal(call,
                         "heartbeat: %d of this node's and other leaders' connections "
                         "did not arrive within ARMCI_TIMEOUT (%ld s)",
                         nconn - k, armcii_hh.env->TIMEOUT);
        int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0)
            continue;
        hb_msg_t m;
        struct timeval tv = {5, 0};
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        if (recv(fd, &m, sizeof m, MSG_WAITALL) != (ssize_t)sizeof m || m.cookie != cookie ||
            m.type != HB_HELLO || m.rank < 0 || m.rank >= P) {
            close(fd);
            continue;
        }
        conns[k++] = (hb_conn_t){.fd = fd, .rank = m.rank};
    }
    if (lfd >= 0)
        close(lfd);
    double now = armcii_now();
    struct timeval snd = {1, 0}; /* for the news of a loss, sent blocking as we leave */
    for (int i = 0; i < nconn; i++) {
        set_nodelay(conns[i].fd);
        setsockopt(conns[i].fd, SOL_SOCKET, SO_SNDTIMEO, &snd, sizeof snd);
        fcntl(conns[i].fd, F_SETFL, fcntl(conns[i].fd, F_GETFL) | O_NONBLOCK);
        conns[i].heard = now;
    }
    if (pipe2(wake, O_CLOEXEC) != 0 || pthread_create(&thread, NULL, hb_loop, NULL) != 0)
        armcii_fatal(call, "heartbeat: cannot start its thread: %s", strerror(errno));
    pthread_setname_np(thread, "armci-heartbeat");
    running = 1;
    /* Once per process (ARMCI may be started again). The key is freed at once: MPI keeps
     * it for the attribute until MPI_Finalize deletes it, and frees it then. */
    static int hooked;
    int key = MPI_KEYVAL_INVALID;
    if (!hooked &&
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, at_mpi_finalize, &key, NULL) == MPI_SUCCESS) {
        hooked = MPI_Comm_set_attr(MPI_COMM_SELF, key, NULL) == MPI_SUCCESS;
        MPI_Comm_free_keyval(&key);
    }
    return ARMCII_OK;
}

void armcii_hb_fini(void)
{
    stop_thread();
    for (int i = 0; i < nconn; i++) {
        if (conns[i].fd < 0)
            continue;
        send_msg(conns[i].fd, HB_BYE, armcii_hh.rank, 0, 0);
        close(conns[i].fd);
    }
    for (int i = 0; i < 2; i++)
        if (wake[i] >= 0)
            close(wake[i]);
    wake[0] = wake[1] = -1;
    free(conns);
    conns = NULL;
    nconn = 0;
    free(cards);
    cards = NULL;
}

int armcii_hb_running(void)
{
    return running;
}
