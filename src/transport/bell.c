/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The doorbell: a datagram that wakes a peer's napping progress thread.
 *
 * Over tcp;ofi_rxm (and sockets, udp) a get, a delivery-complete put, a fetch-and-add or an
 * accumulate aimed at a process that is computing waits until that process makes a
 * libfabric call; its progress thread naps between polls, up to a millisecond where every
 * CPU has a computing process bound to it, and the provider's completion queue does not
 * wake for incoming RMA requests (docs/performance.md, "How the runtime waits"). So an
 * origin whose wait for a fabric peer has lasted ARMCI_DOORBELL_US sends one UDP
 * datagram to that peer's doorbell, a socket its progress thread sleeps on (progress.c):
 * the kernel wakes the thread when the datagram arrives, as it would for a packet of the
 * provider's own, and the thread serves the request at once instead of at its next
 * timer.
 *
 * The socket is bound to the address the fabric endpoint has (its name is a sockaddr on
 * the providers that need this), so that the bell rings over the same network as the
 * requests. Where a provider's name is not a socket address (shm, and the hardware
 * providers, whose NICs serve RMA without the target's help) there is no doorbell.
 * A datagram that is lost costs what the doorbell saves, nothing more: the nap still ends.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "host.h"
#include "ofi_internal.h"
#include "transport.h"
#include "../base/common.h"
#include "../base/stats.h"

/* An IPv4 or IPv6 address: 28 bytes a process, not sockaddr_storage's 128, as every
 * process holds every other's. */
typedef union {
    struct sockaddr sa;
    struct sockaddr_in in;
    struct sockaddr_in6 in6;
} bell_addr_t;

static int bell_fd = -1;
static bell_addr_t *bells; /* every process's doorbell, by rank */

int armcii_bell_fd(void)
{
    return bell_fd;
}

/* A socket bound to the host part of @p name (port 0), -1 where @p name is no IP address or
 * the socket cannot be made. */
static int bell_socket(const void *name, size_t len, bell_addr_t *where)
{
    const struct sockaddr *sa = name;
    socklen_t slen;
    if (len >= sizeof(struct sockaddr_in) && sa->sa_family == AF_INET)
        slen = sizeof(struct sockaddr_in);
    else if (len >= sizeof(struct sockaddr_in6) && sa->sa_family == AF_INET6)
        slen = sizeof(struct sockaddr_in6);
    else
        return -1;
    memset(where, 0, sizeof *where);
    memcpy(where, name, slen);
    if (sa->sa_family == AF_INET)
        where->in.sin_port = 0;
    else
        where->in6.sin6_port = 0;
    int fd = socket(sa->sa_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    if (bind(fd, &where->sa, slen) != 0 || getsockname(fd, &where->sa, &slen) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static void ring(int target)
{
    const struct sockaddr *to = &bells[target].sa;
    socklen_t len =
        to->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
    char ding = 1;
    /* Not delivered (a full queue, a network that drops it): the nap ends on its own. */
    (void)sendto(bell_fd, &ding, 1, MSG_DONTWAIT, to, len);
}

/* Rings the next process and waits up to BELL_CHECK_MS for the previous one's ring. */
#define BELL_CHECK_MS 2000

static int bell_heard(void)
{
    if (armcii_tp.nproc < 2)
        return 1;
    ring((armcii_tp.rank + 1) % armcii_tp.nproc);
    struct pollfd p = {.fd = bell_fd, .events = POLLIN};
    return poll(&p, 1, BELL_CHECK_MS) == 1 && armcii_bell_drain() > 0;
}

void armcii_bell_open(const void *name, size_t len)
{
    bell_addr_t mine;
    int fd = armcii_tp.env->DOORBELL_US > 0 ? bell_socket(name, len, &mine) : -1;
    bells = fd >= 0 ? malloc((size_t)armcii_tp.nproc * sizeof *bells) : NULL;
    /* All or none: a process without a doorbell would nap through every ring. */
    int ok = bells != NULL;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, armcii_tp.comm);
    if (!ok) {
        if (fd >= 0)
            close(fd);
        free(bells);
        bells = NULL;
        return;
    }
    MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, bells, (int)sizeof mine, MPI_BYTE,
                  armcii_tp.comm);
    bell_fd = fd;
    /* A network that drops the datagrams (a firewall for UDP between the hosts) would leave
     * every wait to the longer nap a doorbell allows: each process rings the next once,
     * and the doorbell stays only where every ring arrived. */
    ok = bell_heard();
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, armcii_tp.comm);
    if (!ok) {
        if (armcii_tp.rank == 0)
            armcii_warn("ARMCI_Init: the doorbell's UDP datagrams do not reach every process "
                        "(blocked between the hosts?); progress threads nap without it "
                        "(ARMCI_DOORBELL_US=0 says so quietly)");
        armcii_bell_close();
    }
}

int armcii_bell_socket_beside(uint16_t *port)
{
    const bell_addr_t *bell = &bells[armcii_tp.rank];
    socklen_t len =
        bell->sa.sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
    bell_addr_t me;
    int fd = bell_socket(bell, len, &me);
    if (fd >= 0)
        *port = me.sa.sa_family == AF_INET6 ? me.in6.sin6_port : me.in.sin_port;
    return fd;
}

void armcii_bell_send_beside(int target, uint16_t port, int fd, const void *buf, size_t len)
{
    bell_addr_t to = bells[target];
    socklen_t tolen;
    if (to.sa.sa_family == AF_INET6) {
        to.in6.sin6_port = port;
        tolen = sizeof(struct sockaddr_in6);
    } else {
        to.in.sin_port = port;
        tolen = sizeof(struct sockaddr_in);
    }
    (void)sendto(fd, buf, len, MSG_DONTWAIT, &to.sa, tolen); /* lost: sent again */
}

void armcii_bell_close(void)
{
    if (bell_fd >= 0)
        close(bell_fd);
    bell_fd = -1;
    free(bells);
    bells = NULL;
}

void armcii_bell_ring(int target)
{
    if (bell_fd < 0 || target < 0 || target >= armcii_tp.nproc)
        return;
    ring(target);
    armcii_stat_bell_rung();
}

int armcii_bell_drain(void)
{
    char buf[64];
    int n = 0;
    while (bell_fd >= 0 && recv(bell_fd, buf, sizeof buf, MSG_DONTWAIT) > 0)
        n++;
    return n;
}
