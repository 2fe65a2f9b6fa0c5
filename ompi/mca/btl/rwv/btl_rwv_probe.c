/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * The transport-level probe of a silent peer (btl_rwv_probe.h).
 *
 * Layer: helpers (docs/layout.md).
 */
#include "opal_config.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "btl_rwv_probe.h"

/* Keepalive from the first idle second it may: TCP_KEEPIDLE, then
 * TCP_KEEPCNT probes TCP_KEEPINTVL apart, about 2 x KEEPALIVE in all. */
static void rwv_probe_keepalive (int fd, int keepalive)
{
    int on = 1, idle = keepalive > 0 ? keepalive : 1, count = 3, interval = idle / count > 0 ? idle / count : 1;

    (void) setsockopt (fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof (on));
    (void) setsockopt (fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof (idle));
    (void) setsockopt (fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof (interval));
    (void) setsockopt (fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof (count));
}

int mca_btl_rwv_probe_start (const mca_btl_rwv_ip_t *local, const mca_btl_rwv_ip_t *peer, uint16_t port,
                             int keepalive)
{
    struct sockaddr_storage from, to;
    socklen_t from_len = mca_btl_rwv_ip_to_sockaddr (local, 0, 0, &from);
    socklen_t to_len = mca_btl_rwv_ip_to_sockaddr (peer, port, 0, &to);
    int fd = socket (to.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

    if (fd < 0) {
        return -1;
    }
    rwv_probe_keepalive (fd, keepalive);
    /* from the rail's own address, so the probe takes the rail's path */
    if (0 != bind (fd, (struct sockaddr *) &from, from_len) ||
        (0 != connect (fd, (struct sockaddr *) &to, to_len) && EINPROGRESS != errno)) {
        int saved = errno;
        close (fd);
        errno = saved;
        return -1;
    }
    return fd;
}

static mca_btl_rwv_probe_state_t rwv_probe_error (int error)
{
    switch (error) {
    case 0:
        return MCA_BTL_RWV_PROBE_ANSWERED;
    case ECONNREFUSED: case ECONNRESET: case EPIPE:
        return MCA_BTL_RWV_PROBE_REFUSED;
    default:
        return MCA_BTL_RWV_PROBE_SILENT;
    }
}

mca_btl_rwv_probe_state_t mca_btl_rwv_probe_check (int fd)
{
    struct pollfd pfd = {.fd = fd, .events = POLLIN | POLLOUT};
    int error = 0;
    socklen_t len = sizeof (error);
    char byte;

    if (poll (&pfd, 1, 0) <= 0) {
        return MCA_BTL_RWV_PROBE_WAITING;
    }
    if (pfd.revents & (POLLERR | POLLHUP)) {
        (void) getsockopt (fd, SOL_SOCKET, SO_ERROR, &error, &len);
        return rwv_probe_error (0 != error ? error : ECONNRESET);
    }
    if (pfd.revents & POLLIN) {
        /* we never write, so the peer sends nothing: its end closed, or reset */
        ssize_t got = recv (fd, &byte, 1, MSG_DONTWAIT);
        if (0 == got) {
            return MCA_BTL_RWV_PROBE_ALIVE;
        }
        return got < 0 && EAGAIN != errno ? rwv_probe_error (errno) : MCA_BTL_RWV_PROBE_ANSWERED;
    }
    (void) getsockopt (fd, SOL_SOCKET, SO_ERROR, &error, &len);
    return rwv_probe_error (error);
}

mca_btl_rwv_probe_state_t mca_btl_rwv_probe_ask (const mca_btl_rwv_ip_t *local, const mca_btl_rwv_ip_t *peer,
                                                 uint16_t port, int ms)
{
    mca_btl_rwv_probe_state_t state = MCA_BTL_RWV_PROBE_SILENT;
    int fd = mca_btl_rwv_probe_start (local, peer, port, 1);

    /* an answer wakes the poll; each wait is short so a slow one is bounded */
    for (int waited = 0 ; fd >= 0 && waited < ms ; waited += 10) {
        struct pollfd pfd = {.fd = fd, .events = POLLIN | POLLOUT};

        (void) poll (&pfd, 1, 10);
        state = mca_btl_rwv_probe_check (fd);
        if (MCA_BTL_RWV_PROBE_WAITING != state) {
            break;
        }
    }
    if (fd >= 0) {
        close (fd);
    }
    return MCA_BTL_RWV_PROBE_WAITING == state ? MCA_BTL_RWV_PROBE_SILENT : state;
}
