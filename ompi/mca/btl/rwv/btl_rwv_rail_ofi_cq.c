/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * A libfabric rail's completion queues: which one a new endpoint binds
 * to, retiring one an endpoint's closing may have damaged, and reading
 * them all in progress (writes, reads, and with
 * btl_rwv_rail_ofi_notify.c the receives of notifying sends).
 * Layer: transports (docs/layout.md).
 */
#include "opal_config.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>

#include "opal/mca/btl/base/base.h"
#include "opal/util/output.h"

#include "btl_rwv.h"
#include "btl_rwv_conn.h"
#include "btl_rwv_rail.h"
#include "btl_rwv_rail_ofi.h"

/* Where the connection thread serves peers while the application
 * computes (btl_rwv_async_progress, super.data_fd open), a queue waits on
 * a list of descriptors (FI_WAIT_POLLFD: the provider's sockets and its
 * wake-up descriptor).  libfabric 1.x's tcp provider waits so without
 * being asked, so the application's progress pays nothing for it: a wait
 * set (FI_WAIT_SET) made every pass an epoll_wait and cost 0.8 us per
 * message.  libfabric 2.x's lists its progress engine's epoll fd. */
int mca_btl_rwv_ofi_cq_open (mca_btl_rwv_ofi_rail_t *rail, int slot)
{
    struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_DATA, .size = 4096, .wait_obj = FI_WAIT_POLLFD};
    int rc;

    if (rail->super.data_fd >= 0) {
        rc = fi_cq_open (rail->domain, &cq_attr, &rail->cqs[slot].cq, NULL);
        if (0 == rc) {
            return 0;
        }
        opal_output_verbose (MCA_BASE_VERBOSE_WARN, opal_btl_base_framework.framework_output,
                             "btl/rwv: %s: the provider's completion queues offer no descriptors to wait on (%s): "
                             "peers' data waits for the application's progress", rail->super.name, fi_strerror (-rc));
        close (rail->super.data_fd);
        rail->super.data_fd = -1;
    }
    cq_attr.wait_obj = FI_WAIT_NONE;
    return fi_cq_open (rail->domain, &cq_attr, &rail->cqs[slot].cq, NULL);
}

void mca_btl_rwv_ofi_cq_close (mca_btl_rwv_ofi_rail_t *rail, int slot)
{
    (void) fi_close (&rail->cqs[slot].cq->fid);
    rail->cqs[slot].cq = NULL;
    free (rail->cqs[slot].watched);
    rail->cqs[slot].watched = NULL;
    rail->cqs[slot].nwatched = 0;
}

/* The queue's descriptors into rail->wait_fds (grown to fit: one per
 * connection of the rail, and the provider's own); false if it has none. */
static bool ofi_wait_fds (mca_btl_rwv_ofi_rail_t *rail, struct fid_cq *cq, struct fi_wait_pollfd *wait)
{
    for (int tries = 0 ; tries < 2 ; ++tries) {
        int rc;

        *wait = (struct fi_wait_pollfd) {.nfds = rail->wait_fds_len, .fd = rail->wait_fds};
        rc = fi_control (&cq->fid, FI_GETWAIT, wait);
        if (-FI_ETOOSMALL != rc) {
            return 0 == rc;
        }
        struct pollfd *fds = realloc (rail->wait_fds, (wait->nfds + 16) * sizeof (*fds));
        if (NULL == fds) {
            return false;
        }
        rail->wait_fds = fds;
        rail->wait_fds_len = wait->nfds + 16;
    }
    return false;
}

/* How data_fd watches one of a queue's descriptors: for what the
 * provider waits on it (POLLIN, and POLLOUT while a send of its is held
 * up: the rest goes out only once the socket takes it), level-triggered.
 * The provider's wake-up descriptor (libfabric 1.x: a Unix socket pair,
 * written once when a send stays queued or a completion is written, until
 * a wait on that queue reads it) is edge-triggered: nothing the connection
 * thread calls reads it (fi_cq_read left it readable in 373 looks of 373,
 * measured), so level-triggered it kept data_fd ready for good, and the
 * thread, never able to sleep on it, paced its looks up to 5 ms apart
 * while peers waited.  Edge-triggered it wakes the thread once per signal,
 * and the look (mca_btl_rwv_ofi_data_harvest) takes the edge. */
static uint32_t ofi_data_events (const struct pollfd *fd)
{
    uint32_t events = (fd->events & POLLOUT) ? EPOLLIN | EPOLLOUT : EPOLLIN;
    int domain = AF_UNSPEC;
    socklen_t len = sizeof (domain);

    if (0 == getsockopt (fd->fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) && AF_UNIX == domain) {
        events |= EPOLLET;
    }
    return events;
}

/* Is entry I of CQ's last list entry I of WAIT too, for the same events?
 * (Not revents: libfabric polls its list in place.)  libfabric 1.17
 * removes a descriptor by moving the last one into its place, so a list
 * that changed differs at a place or two, and the rest is compared here
 * and left alone. */
static bool ofi_data_kept (const mca_btl_rwv_ofi_cq_t *cq, const struct fi_wait_pollfd *wait, size_t i)
{
    return i < wait->nfds && i < (size_t) cq->nwatched && wait->fd[i].fd == cq->watched[i].fd &&
        wait->fd[i].events == cq->watched[i].events;
}

static bool ofi_data_same (const mca_btl_rwv_ofi_cq_t *cq, const struct fi_wait_pollfd *wait)
{
    size_t i = 0;

    while (ofi_data_kept (cq, wait, i)) {
        ++i;
    }
    return i == wait->nfds && i == (size_t) cq->nwatched;
}

/* The descriptors of CQ's last list that WAIT lacks leave data_fd's set
 * (a closed one has left already; a failed endpoint's stays open, and
 * readable, until the endpoint is closed). */
static void ofi_data_forget (mca_btl_rwv_rail_t *r, const mca_btl_rwv_ofi_cq_t *cq, const struct fi_wait_pollfd *wait)
{
    for (size_t i = 0 ; i < (size_t) cq->nwatched ; ++i) {
        size_t j = 0;

        if (i < wait->nfds && wait->fd[i].fd == cq->watched[i].fd) {
            continue;
        }
        while (j < wait->nfds && wait->fd[j].fd != cq->watched[i].fd) {
            ++j;
        }
        if (j == wait->nfds) {
            (void) epoll_ctl (r->data_fd, EPOLL_CTL_DEL, cq->watched[i].fd, NULL);
        }
    }
}

/* Under the module gate, from the connection thread when it arms and
 * after each look while armed (a look may have the provider wait on
 * other descriptors, or for other events): a queue whose list changed is
 * put in data_fd's set as it now is.  The list itself is compared, not
 * its change index: libfabric 1.17 counts a change when a socket is
 * queued for its list, and the socket enters the list only at a later
 * wait, so the index matched while the socket was missing, and the thread
 * slept through a peer's requests (1 job in 10 lost its whole compute
 * time). */
void mca_btl_rwv_ofi_data_sync (mca_btl_rwv_rail_t *r)
{
    mca_btl_rwv_ofi_rail_t *rail = mca_btl_rwv_ofi_rail_of (r);
    struct fi_wait_pollfd wait;

    for (int slot = 0 ; slot < RWV_OFI_MAX_CQS ; ++slot) {
        mca_btl_rwv_ofi_cq_t *cq = &rail->cqs[slot];
        struct pollfd *copy;
        size_t room;

        if (NULL == cq->cq || !ofi_wait_fds (rail, cq->cq, &wait) || ofi_data_same (cq, &wait)) {
            continue;
        }
        /* the old list stays whole until compared: room for the longer */
        room = wait.nfds > (size_t) cq->nwatched ? wait.nfds : (size_t) cq->nwatched;
        if (NULL == (copy = realloc (cq->watched, (room + 1) * sizeof (*copy)))) {
            continue;
        }
        cq->watched = copy;
        ofi_data_forget (r, cq, &wait);
        for (size_t i = 0 ; i < wait.nfds ; ++i) {
            struct epoll_event ev = {.data.fd = wait.fd[i].fd};

            if (ofi_data_kept (cq, &wait, i)) {
                continue;
            }
            ev.events = ofi_data_events (&wait.fd[i]);
            if (0 != epoll_ctl (r->data_fd, EPOLL_CTL_ADD, ev.data.fd, &ev) && EEXIST == errno) {
                (void) epoll_ctl (r->data_fd, EPOLL_CTL_MOD, ev.data.fd, &ev);
            }
        }
        memcpy (cq->watched, wait.fd, wait.nfds * sizeof (*cq->watched));
        cq->nwatched = (int) wait.nfds;
    }
}

/* From the connection thread's look: the edges data_fd holds are taken,
 * so that it is ready again only for new ones, or for descriptors still
 * readable (level-triggered: every read returns them again).  Bounded:
 * with more readable sockets than a read returns, an edge left for later
 * costs one wake more, where an unbounded loop never ended (a 128-rank
 * job's finalize waited for ever on the thread). */
#define RWV_OFI_HARVEST_READS 4

void mca_btl_rwv_ofi_data_harvest (mca_btl_rwv_rail_t *r)
{
    struct epoll_event events[64];

    for (int i = 0 ; i < RWV_OFI_HARVEST_READS && 64 == epoll_wait (r->data_fd, events, 64, 0) ; ++i) {
    }
}

/* libfabric 1.17's tcp provider, closing an endpoint that is receiving
 * the data of an RMA read, reports the read cancelled twice and frees its
 * transfer entry twice into the completion queue's pool: a later transfer
 * through that queue can then stall forever.  So an endpoint closed with
 * puts or gets outstanding retires its completion queue: the endpoints
 * made after it (a rail re-established, a new peer) get a fresh one. */
void mca_btl_rwv_ofi_cq_taint (mca_btl_rwv_ofi_ep_t *oep)
{
    if (NULL != oep->conn && oep->conn->pieces_out > 0 && oep->cq_slot == oep->rail->cq_now) {
        oep->rail->cq_tainted = true;
    }
}

/* The queue a new endpoint binds to: a fresh one after a taint, while a
 * slot is free (else the tainted one, said at btl_base_verbose). */
int mca_btl_rwv_ofi_cq_for_new_ep (mca_btl_rwv_ofi_rail_t *rail)
{
    for (int slot = 0 ; rail->cq_tainted && slot < RWV_OFI_MAX_CQS ; ++slot) {
        if (NULL == rail->cqs[slot].cq && 0 == mca_btl_rwv_ofi_cq_open (rail, slot)) {
            if (0 == rail->cqs[rail->cq_now].eps) {
                mca_btl_rwv_ofi_cq_close (rail, rail->cq_now);
            }
            rail->cq_now = slot;
            rail->cq_tainted = false;
        }
    }
    if (rail->cq_tainted) {
        opal_output_verbose (MCA_BASE_VERBOSE_WARN, opal_btl_base_framework.framework_output,
                             "btl/rwv: %s: no completion queue left to replace one an endpoint's closing may have "
                             "damaged", rail->super.name);
        rail->cq_tainted = false;
    }
    return rail->cq_now;
}

void mca_btl_rwv_ofi_cq_release (mca_btl_rwv_ofi_rail_t *rail, int slot)
{
    if (0 == --rail->cqs[slot].eps && slot != rail->cq_now) {
        mca_btl_rwv_ofi_cq_close (rail, slot);
    }
}

/* A reset or broken connection means the peer's end went away; the tcp
 * provider reports the socket's error when a write meets it. */
static int ofi_op_status (int err)
{
    if (FI_EACCES == err || FI_EKEYREJECTED == err) {
        return OPAL_ERR_PERM;
    }
    if (FI_ECONNRESET == err || EPIPE == err || FI_ENOTCONN == err) {
        return OPAL_ERR_CONNECTION_FAILED;
    }
    return OPAL_ERR_UNREACH;
}

/* Every error queued: a closing reports all it cancelled at once, and
 * each must be seen before what failed is posted again elsewhere. */
static int ofi_cq_errors (mca_btl_rwv_ofi_rail_t *rail, struct fid_cq *cq)
{
    struct fi_cq_err_entry err = {0};
    int count = 0;

    while (fi_cq_readerr (cq, &err, 0) > 0) {
        ++count;
        if (NULL == err.op_context) {
            mca_btl_rwv_count (MCA_BTL_RWV_COUNT_REAPED);
            continue;
        }
        if (err.flags & FI_RECV) {
            /* a receive for notifying sends, cancelled by its endpoint's closing or failed with it */
            mca_btl_rwv_op_report ((mca_btl_rwv_op_t *) err.op_context, OPAL_ERR_UNREACH);
            err = (struct fi_cq_err_entry) {0};
            continue;
        }
        mca_btl_rwv_count (MCA_BTL_RWV_COUNT_REAPED);
        opal_output_verbose (MCA_BASE_VERBOSE_ERROR, opal_btl_base_framework.framework_output,
                             "btl/rwv: %s: operation failed: %s", rail->super.name, fi_strerror (err.err));
        mca_btl_rwv_op_report ((mca_btl_rwv_op_t *) err.op_context, ofi_op_status (err.err));
        err = (struct fi_cq_err_entry) {0};
    }
    return count;
}

static int ofi_poll_cq (mca_btl_rwv_ofi_rail_t *rail, struct fid_cq *cq)
{
    struct fi_cq_data_entry entries[16];
    ssize_t n = fi_cq_read (cq, entries, 16);

    if (-FI_EAVAIL == n) {
        return ofi_cq_errors (rail, cq);
    }
    for (ssize_t i = 0 ; i < n ; ++i) {
        if (entries[i].flags & FI_REMOTE_CQ_DATA) {
            rail->super.events->remote_data (&rail->super, NULL, (uint32_t) entries[i].data);
        } else if (entries[i].flags & FI_RECV) {
            mca_btl_rwv_op_report ((mca_btl_rwv_op_t *) entries[i].op_context, OPAL_SUCCESS); /* a notifying send */
        } else {
            mca_btl_rwv_count (MCA_BTL_RWV_COUNT_REAPED);
            if (NULL != entries[i].op_context) {
                mca_btl_rwv_op_report ((mca_btl_rwv_op_t *) entries[i].op_context, OPAL_SUCCESS);
            }
        }
    }
    return n > 0 ? (int) n : 0;
}

/* A queue read can cost a system call: none without connections. */
int mca_btl_rwv_ofi_poll_completions (mca_btl_rwv_rail_t *r)
{
    mca_btl_rwv_ofi_rail_t *rail = (mca_btl_rwv_ofi_rail_t *) r;
    int count = 0;

    if (0 == r->num_conns) {
        return 0;
    }
    count += ofi_poll_cq (rail, rail->cqs[rail->cq_now].cq);
    for (int slot = 0 ; slot < RWV_OFI_MAX_CQS ; ++slot) {
        if (NULL != rail->cqs[slot].cq && slot != rail->cq_now) {
            count += ofi_poll_cq (rail, rail->cqs[slot].cq);
        }
    }
    if (!opal_list_is_empty (&rail->owing)) {
        mca_btl_rwv_ofi_pay_sends (rail);
    }
    return count;
}
