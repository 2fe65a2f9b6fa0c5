/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * The connection thread.  A connection request waits in the listener's
 * backlog until someone reads the rail's connection events; read only by
 * progress, a peer busy computing for minutes never answered, and its
 * caller's btl_rwv_connect_timeout failed a live member.  This thread
 * sleeps in epoll_wait on every rail's event file descriptor (libfabric's
 * event-queue wait fd, rdma_cm's channel) and costs nothing while no
 * event comes.  When one does, it enters the module gate
 * (btl_rwv_lock.h), reads every rail's events through the same backend
 * calls progress used, and leaves.  Whether an event is there is looked
 * at first, without the gate, because a fd may wake for the provider's
 * data traffic too.
 *
 * Under the gate it does what answers a peer and calls nothing outside
 * rwv: the membership proof, the connection and its ring, accept or
 * reject, the answer's check.  Whatever may call up into the PML or
 * touches failover (a failure, a close, a rail re-established, the
 * active side's first message and the sends that waited for it) is
 * queued, in order per connection, for the application thread's next
 * progress pass.
 *
 * It also serves the peers of an application that computes
 * (btl_rwv_async_progress): the rails' completion queues share a wait set
 * whose fd wakes the thread when peers' data waits for the provider; if
 * no progress pass comes for a pause, the thread takes the gate, reads
 * the completions (the provider lands puts and answers gets and
 * rendezvous reads as it does) and does the atomics waiting at the head
 * of the rings.  Completions of our own operations, and every message for
 * the MPI library, wait for the application's next pass.
 * Layer: connections (docs/layout.md).
 */
#include "opal_config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "opal/mca/btl/base/base.h"
#include "opal/util/output.h"

#include "btl_rwv.h"
#include "btl_rwv_cm_thread.h"
#include "btl_rwv_poll.h"
#include "btl_rwv_rail.h"

/* ------------------------------------------------------------ the thread */

/* Every event of every rail, read under the gate. */
static int rwv_cm_drain (mca_btl_rwv_module_t *module)
{
    int events = 0;

    mca_btl_rwv_gate_enter (module);
    for (int i = 0 ; i < module->num_rails ; ++i) {
        mca_btl_rwv_rail_t *rail = module->rails[i];
        int n;

        while ((n = rail->ops->poll_connections (rail)) > 0) {
            events += n;
        }
    }
    mca_btl_rwv_gate_leave (module);
    return events;
}

/* Looked at without the gate, so that a wake with nothing for the thread
 * costs the application thread nothing.  Counted before and after, with
 * full fences: reading libfabric tcp's event queue (1.18 and later)
 * progresses every endpoint of the rail, so peers' writes land in our
 * rings and tail words here, copied by this thread, and a copy another
 * thread makes need not become visible in order (the kernel copies with
 * string instructions, whose stores may be seen out of order).  What
 * progress reads there it trusts only when no look ran meanwhile
 * (mca_btl_rwv_cm_looks); the drain runs under the gate, which orders
 * it. */
static mca_btl_rwv_cm_state_t rwv_cm_state (mca_btl_rwv_module_t *module)
{
    mca_btl_rwv_cm_state_t state = MCA_BTL_RWV_CM_IDLE;

    (void) __atomic_add_fetch (&module->cm.looks, 1, __ATOMIC_SEQ_CST);
    for (int i = 0 ; i < module->num_rails && MCA_BTL_RWV_CM_EVENT != state ; ++i) {
        mca_btl_rwv_cm_state_t rail_state = module->rails[i]->ops->cm_state (module->rails[i]);

        if (MCA_BTL_RWV_CM_IDLE != rail_state) {
            state = rail_state;
        }
    }
    (void) __atomic_add_fetch (&module->cm.looks, 1, __ATOMIC_SEQ_CST);
    return state;
}

/* Serve the peers of an application that computes (btl_rwv_async_progress):
 * under the gate, read every rail's completions, which makes the
 * transport land the peers' writes and answer their reads (completions of
 * our own operations wait on module->reaped), then do the atomics waiting
 * at the head of the polled rings.  Nothing here calls the MPI library. */
static int rwv_cm_serve (mca_btl_rwv_module_t *module)
{
    int count = 0;

    mca_btl_rwv_gate_enter (module);
    module->serving = true;
    for (int i = 0 ; i < module->num_rails ; ++i) {
        if (module->rails[i]->num_conns) {
            count += module->rails[i]->ops->poll_completions (module->rails[i]);
        }
    }
    for (int i = 0 ; i < module->num_polled ; ++i) {
        mca_btl_rwv_conn_t *conn = module->polled[i];

        if (MCA_BTL_RWV_CONN_CONNECTED == conn->state) {
            count += mca_btl_rwv_conn_hooks ()->serve (conn);
        }
    }
    module->serving = false;
    mca_btl_rwv_gate_leave (module);
    return count;
}

/* Peers' data waits for the provider (its fd woke the thread, or its
 * trywait refused: a trywait may read the socket itself, so the fd alone
 * does not keep saying so).  The application serves them at its next
 * progress pass; the thread does only if no pass comes. */
typedef struct {
    bool waiting;
    bool looked;        /* the thread has paused once since: long enough to tell */
    unsigned calls;     /* the application's progress passes when they began to wait */
} rwv_cm_peers_t;

static void rwv_cm_peers_wait (mca_btl_rwv_module_t *module, rwv_cm_peers_t *peers)
{
    if (!peers->waiting) {
        *peers = (rwv_cm_peers_t) {.waiting = true, .looked = false,
                                   .calls = __atomic_load_n (&module->progress_calls, __ATOMIC_RELAXED)};
    }
}

/* Serve the waiting peers if the application is away from MPI: no
 * progress pass since they began to wait, a pause ago, and none running.
 * True if something was served. */
static bool rwv_cm_serve_away (mca_btl_rwv_module_t *module, rwv_cm_peers_t *peers)
{
    if (__atomic_load_n (&module->progress_calls, __ATOMIC_RELAXED) != peers->calls) {
        peers->waiting = false; /* a pass came: it read them */
        return false;
    }
    if (!peers->looked || __atomic_load_n (&module->progressing, __ATOMIC_ACQUIRE)) {
        peers->looked = true;
        return false;
    }
    peers->waiting = false;
    return rwv_cm_serve (module) > 0;
}

/* A wake with no event (libfabric's tcp provider wakes its event fd for
 * the application's data too, until the application reads it) is paced:
 * 50 us doubling to 5 ms, back to none at the next event.  A connection
 * is then answered within 5 ms of its request however busy the rail.
 * True when finalize asks the thread to stop. */
static bool rwv_cm_pace (mca_btl_rwv_module_t *module, long *pause_ns)
{
    struct pollfd stop = {.fd = module->cm.stop_fd, .events = POLLIN};
    const struct timespec pause = {.tv_sec = 0, .tv_nsec = *pause_ns};

    *pause_ns = *pause_ns * 2 > 5000000 ? 5000000 : *pause_ns * 2;
    return ppoll (&stop, 1, &pause, NULL) > 0;
}

static bool rwv_cm_is_data_fd (const mca_btl_rwv_module_t *module, int fd)
{
    for (int i = 0 ; i < module->num_rails ; ++i) {
        if (module->rails[i]->data_fd == fd) {
            return true;
        }
    }
    return false;
}

/* Sleep until a rail's fd or finalize wakes the thread; true for
 * finalize.  *DATA: a rail's data fd woke it (peers' data waits, which
 * the provider's trywait does not always see before it is read). */
static bool rwv_cm_sleep (mca_btl_rwv_module_t *module, bool *data)
{
    struct epoll_event ready[2 * MCA_BTL_RWV_MAX_RAILS + 1];
    int n = epoll_wait (module->cm.epoll_fd, ready, 2 * MCA_BTL_RWV_MAX_RAILS + 1, -1);

    for (int i = 0 ; i < n ; ++i) {
        if (ready[i].data.fd == module->cm.stop_fd) {
            return true;
        }
        *data |= rwv_cm_is_data_fd (module, ready[i].data.fd);
    }
    return false;
}

static void *rwv_cm_thread_main (void *arg)
{
    mca_btl_rwv_module_t *module = (mca_btl_rwv_module_t *) arg;
    long pause_ns = 50000;
    bool just_woken = false, data = false;
    rwv_cm_peers_t peers = {.waiting = false};

    mca_btl_rwv_in_cm_thread = true;
    (void) pthread_setname_np (pthread_self (), "rwv-conn"); /* for top -H, and the tests */
    while (true) {
        mca_btl_rwv_cm_state_t state = rwv_cm_state (module);

        if ((data || MCA_BTL_RWV_CM_BUSY == state) && mca_btl_rwv_component.async_progress) {
            rwv_cm_peers_wait (module, &peers);
        }
        data = false;
        if (MCA_BTL_RWV_CM_EVENT == state && rwv_cm_drain (module) > 0) {
            pause_ns = 50000;
        } else if (peers.waiting && rwv_cm_serve_away (module, &peers)) {
            pause_ns = 50000;
        } else if (MCA_BTL_RWV_CM_IDLE == state && !just_woken && !peers.waiting) {
            if (rwv_cm_sleep (module, &data)) {
                return NULL;
            }
            just_woken = true;
            continue;
        } else if (rwv_cm_pace (module, &pause_ns)) {
            return NULL;
        }
        just_woken = false;
    }
}

static bool rwv_cm_watch (int epoll_fd, int fd)
{
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = fd};

    return 0 == epoll_ctl (epoll_fd, EPOLL_CTL_ADD, fd, &ev);
}

/* Every rail must be able to wake the thread: else progress keeps reading
 * connection events, as without it. */
static bool rwv_cm_watch_rails (mca_btl_rwv_module_t *module)
{
    for (int i = 0 ; i < module->num_rails ; ++i) {
        mca_btl_rwv_rail_t *rail = module->rails[i];

        if (rail->data_fd >= 0 && !rwv_cm_watch (module->cm.epoll_fd, rail->data_fd)) {
            return false;
        }
        if (rail->cm_fd < 0 || !rwv_cm_watch (module->cm.epoll_fd, rail->cm_fd)) {
            opal_output_verbose (MCA_BASE_VERBOSE_WARN, opal_btl_base_framework.framework_output,
                                 "btl/rwv: %s offers no file descriptor for its connection events: "
                                 "connections are answered only when the application calls MPI", rail->name);
            return false;
        }
    }
    return rwv_cm_watch (module->cm.epoll_fd, module->cm.stop_fd);
}

static void rwv_cm_close_fds (mca_btl_rwv_module_t *module)
{
    if (module->cm.epoll_fd >= 0) {
        close (module->cm.epoll_fd);
    }
    if (module->cm.stop_fd >= 0) {
        close (module->cm.stop_fd);
    }
    module->cm.epoll_fd = module->cm.stop_fd = -1;
}

/* The thread takes no signal: they stay the application's. */
static int rwv_cm_spawn (mca_btl_rwv_module_t *module)
{
    sigset_t all, old;
    int rc;

    sigfillset (&all);
    pthread_sigmask (SIG_SETMASK, &all, &old);
    rc = pthread_create (&module->cm.thread, NULL, rwv_cm_thread_main, module);
    pthread_sigmask (SIG_SETMASK, &old, NULL);
    return rc;
}

void mca_btl_rwv_cm_thread_start (void)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    int rc;

    if (!mca_btl_rwv_component.connection_thread) {
        return;
    }
    module->cm.epoll_fd = epoll_create1 (EPOLL_CLOEXEC);
    module->cm.stop_fd = eventfd (0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (module->cm.epoll_fd < 0 || module->cm.stop_fd < 0 || !rwv_cm_watch_rails (module)) {
        rwv_cm_close_fds (module);
        return;
    }
    mca_btl_rwv_gate_prepare (module);
    module->cm.running = true;
    rc = rwv_cm_spawn (module);
    if (0 != rc) {
        module->cm.running = false;
        module->gate.fenced = false;
        rwv_cm_close_fds (module);
        opal_output_verbose (MCA_BASE_VERBOSE_WARN, opal_btl_base_framework.framework_output,
                             "btl/rwv: no connection thread (%s): connections are answered only when the "
                             "application calls MPI", strerror (rc));
        return;
    }
    opal_output_verbose (MCA_BASE_VERBOSE_INFO, opal_btl_base_framework.framework_output,
                         "btl/rwv: a connection thread answers connection requests on %d rails%s",
                         module->num_rails, module->gate.fenced ? " (its lock a mutex: no membarrier)" : "");
}

/* At finalize what the thread left undone is dropped, as events nobody
 * read were before it: only a queued request still owns a transport
 * handle, and is refused. */
/* At finalize, once the thread has stopped: what it left, requests
 * refused, the rest dropped. */
static void rwv_cm_discard (mca_btl_rwv_module_t *module)
{
    mca_btl_rwv_cm_deferred_t *event;

    while (NULL != (event = (mca_btl_rwv_cm_deferred_t *) opal_list_remove_first (&module->cm.deferred))) {
        if (MCA_BTL_RWV_CM_REQUEST == event->kind) {
            event->rail->ops->reject (event->rail, event->request);
        }
        event->conn->cm_deferred--;
        OBJ_RELEASE(event);
    }
}

void mca_btl_rwv_cm_thread_stop (void)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    uint64_t one = 1;

    if (module->cm.running) {
        (void) !write (module->cm.stop_fd, &one, sizeof (one));
        pthread_join (module->cm.thread, NULL);
        module->cm.running = false;
        module->gate.fenced = false;
        rwv_cm_close_fds (module);
    }
    rwv_cm_discard (module);
    OBJ_DESTRUCT(&module->cm.deferred);
}
