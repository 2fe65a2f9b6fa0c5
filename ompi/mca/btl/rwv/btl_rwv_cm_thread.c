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
 * calls progress used, and leaves (a thread serving a computing rank's
 * peers stays in: see rwv_cm_holds).  Whether an event is there is looked
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
 * (btl_rwv_async_progress).  While the application makes progress passes
 * it serves them itself and the thread stays out, its data fds unwatched
 * and the transport waiting as without it.  Once a pause goes by with no
 * pass, the thread watches the rails' data fds (the completion queues'
 * descriptors; when and how it sleeps: btl_rwv_cm_watch.c); when peers' data comes it takes the gate, reads the
 * completions (the provider lands puts and answers gets and rendezvous
 * reads as it does) and does the atomics waiting at the head of the
 * rings.  Completions of our own operations, and every message for the
 * MPI library, wait for the application's next pass.
 * Layer: connections (docs/layout.md).
 */
#include "opal_config.h"

#include <errno.h>
#include <sched.h>
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
#include "btl_rwv_cm_watch.h"
#include "btl_rwv_poll.h"
#include "btl_rwv_rail.h"

/* ------------------------------------------------------------ the thread */

/* Every event of every rail, read under the gate; WATCHING: the data fds
 * are watched, and must follow the connections the events made. */
static int rwv_cm_drain (mca_btl_rwv_module_t *module, bool watching)
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
    if (watching && events > 0) {
        mca_btl_rwv_cm_data_sync (module);
    }
    module->cm.events += (uint64_t) events;
    mca_btl_rwv_gate_leave (module);
    return events;
}

/* Looked at without the gate, so that a wake with nothing for the thread
 * costs the application thread nothing (a serving turn holds it already:
 * the application is away).  Counted before and after, with
 * full fences: reading libfabric tcp's event queue (1.18 and later)
 * progresses every endpoint of the rail, so peers' writes land in our
 * rings and tail words here, copied by this thread, and a copy another
 * thread makes need not become visible in order (the kernel copies with
 * string instructions, whose stores may be seen out of order).  What
 * progress reads there it trusts only when no look ran meanwhile
 * (mca_btl_rwv_cm_looks); the drain runs under the gate, which orders
 * it. */
static mca_btl_rwv_cm_state_t rwv_cm_state (mca_btl_rwv_module_t *module, bool data)
{
    mca_btl_rwv_cm_state_t state = MCA_BTL_RWV_CM_IDLE;

    (void) __atomic_add_fetch (&module->cm.looks, 1, __ATOMIC_SEQ_CST);
    for (int i = 0 ; i < module->num_rails && MCA_BTL_RWV_CM_EVENT != state ; ++i) {
        bool watched = module->cm.data_watched & (1u << i); /* a rail with connections (btl_rwv_cm_watch.c) */
        mca_btl_rwv_cm_state_t rail_state = module->rails[i]->ops->cm_state (module->rails[i], data && watched);

        if (MCA_BTL_RWV_CM_IDLE != rail_state) {
            state = rail_state;
        }
    }
    (void) __atomic_add_fetch (&module->cm.looks, 1, __ATOMIC_SEQ_CST);
    return state;
}

/* Serve the peers of an application that computes (btl_rwv_async_progress).
 * With TRANSPORT, under MPI_THREAD_MULTIPLE, a whole progress pass
 * (module->deliver), as btl/tcp's progress thread delivers: ob1 locks its
 * matching.  Else, under the gate, with TRANSPORT read every rail's
 * completions, which makes the transport land the peers' writes and
 * answer their reads (completions of our own operations wait on
 * module->reaped), without it bring the data fds up to date with what the
 * look had the transport wait on, then do the atomics waiting at the head
 * of the polled rings: nothing here calls the MPI library. */
static int rwv_cm_serve (mca_btl_rwv_module_t *module, bool transport)
{
    int count = 0;

    if (transport && NULL != module->deliver) {
        return module->deliver ();
    }

    mca_btl_rwv_gate_enter (module);
    if (!transport) {
        mca_btl_rwv_cm_data_sync (module); /* what the look just had the transport wait on */
    }
    module->serving = true;
    for (int i = 0 ; transport && i < module->num_rails ; ++i) {
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

typedef enum {
    RWV_CM_DONE,    /* something was done that may leave more: turn again */
    RWV_CM_SERVED,  /* peers served, and the look after found nothing waiting: sleep */
    RWV_CM_IDLE,    /* nothing waits: sleep, unless the thread was just woken for nothing */
    RWV_CM_PARKED,  /* the data fds were just taken out: sleep */
    RWV_CM_BUSY,    /* a fd stays ready with nothing for the thread: pace */
} rwv_cm_turn_t;

/* Does a serving turn hold the gate?  The application is away: the
 * thread enters once, with one membarrier (whose signal interrupts the
 * computation), and once a turn has found work stays in from one turn
 * to the next and through its sleeps, until the application asks for the
 * gate or comes back to MPI (btl_rwv_lock.h).  Under a stream of
 * fetch-and-ops a membarrier per turn was a third of the thread's CPU.
 * Until a turn finds work each lets go: a rank that no peer needs holds
 * nothing the application would have to ask for; one that was served
 * pays an ask, a wake of the thread, at its first MPI call.  Not where
 * the thread's own pass (module->deliver) takes the lock itself. */
static bool rwv_cm_holds (mca_btl_rwv_module_t *module, bool serving)
{
    return serving && !mca_btl_rwv_locks_real (module);
}

static void rwv_cm_let_go (mca_btl_rwv_module_t *module, mca_btl_rwv_cm_watch_t *watch)
{
    if (watch->holding) {
        watch->holding = false;
        mca_btl_rwv_gate_leave (module);
    }
}

/* A turn's end: the application's passes so far seen (a pass of the
 * thread's own, module->deliver, is not the application's), the gate
 * kept once work was found. */
static rwv_cm_turn_t rwv_cm_turn_end (mca_btl_rwv_module_t *module, mca_btl_rwv_cm_watch_t *watch, bool serving,
                                      rwv_cm_turn_t turn)
{
    if (serving) {
        mca_btl_rwv_cm_seen (module, watch);
    }
    if (rwv_cm_holds (module, serving) && !watch->holding) {
        if (RWV_CM_DONE == turn || RWV_CM_SERVED == turn) {
            watch->holding = true;
        } else {
            mca_btl_rwv_gate_leave (module);
        }
    }
    return turn;
}

/* One turn.  Armed, the peers' data is served first and looked at after
 * (libfabric's trywait), as libfabric asks of a thread that will wait: a
 * read of the completions may leave bytes in the provider's own buffer
 * that no descriptor announces, and only the look sees them.  The look
 * progresses the transport in turn, and may land a peer's write in a
 * ring with no completion: the rings alone (no transport) are served
 * after it.  If they held nothing and the look found the transport idle,
 * the thread may sleep at once: a second turn would only read the
 * completion queues and try the wait again, a dozen system calls (and a
 * membarrier) per wake for nothing.  Not after a pass of its own
 * (module->deliver): the PML may have left work in rwv's queues that
 * only the next pass posts (a rendezvous's reads), which no descriptor
 * announces.  Connection events come with the look. */
static rwv_cm_turn_t rwv_cm_turn (mca_btl_rwv_module_t *module, mca_btl_rwv_cm_watch_t *watch)
{
    bool serving = watch->armed && mca_btl_rwv_component.async_progress;
    mca_btl_rwv_cm_state_t state;
    int served = 0, rings = 0;

    if (serving && mca_btl_rwv_cm_parks (module, watch)) {
        rwv_cm_let_go (module, watch);
        return RWV_CM_PARKED;
    }
    if (rwv_cm_holds (module, serving) && !watch->holding) {
        mca_btl_rwv_gate_enter (module);
    }
    if (serving) {
        served = rwv_cm_serve (module, true);
    }
    state = rwv_cm_state (module, serving);
    if (MCA_BTL_RWV_CM_EVENT == state && rwv_cm_drain (module, serving) > 0) {
        return rwv_cm_turn_end (module, watch, serving, RWV_CM_DONE);
    }
    if (serving) {
        rings = rwv_cm_serve (module, false);
    }
    if (rings > 0) {
        return rwv_cm_turn_end (module, watch, serving, RWV_CM_DONE);
    }
    if (served > 0) {
        return rwv_cm_turn_end (module, watch, serving,
                                MCA_BTL_RWV_CM_IDLE == state && NULL == module->deliver ? RWV_CM_SERVED : RWV_CM_DONE);
    }
    return rwv_cm_turn_end (module, watch, serving, MCA_BTL_RWV_CM_IDLE == state ? RWV_CM_IDLE : RWV_CM_BUSY);
}

/* Until finalize stops it. */
static void rwv_cm_thread_run (mca_btl_rwv_module_t *module, mca_btl_rwv_cm_watch_t *watch)
{
    mca_btl_rwv_cm_pace_t pace;
    bool just_woken = false;
    int done_run = 0;

    mca_btl_rwv_cm_pace_reset (&pace);
    while (!__atomic_load_n (&module->cm.stopping, __ATOMIC_ACQUIRE)) {
        rwv_cm_turn_t turn;

        mca_btl_rwv_cm_look (module, watch);
        turn = rwv_cm_turn (module, watch);
        if (RWV_CM_DONE == turn || RWV_CM_SERVED == turn) {
            mca_btl_rwv_cm_pace_reset (&pace);
        }
        if (RWV_CM_DONE == turn) {
            /* a run of turns that keep finding work (a peer streaming at
             * a computing rank) yields the core now and then all the same */
            if (0 == ++done_run % 64 && mca_btl_rwv_cm_pace (module, watch, &pace)) {
                return;
            }
            mca_btl_rwv_cm_pace_reset (&pace);
        } else if (RWV_CM_PARKED == turn || RWV_CM_SERVED == turn || (RWV_CM_IDLE == turn && !just_woken)) {
            if (mca_btl_rwv_cm_sleep (module, watch, &just_woken)) {
                return;
            }
            continue;
        } else if (mca_btl_rwv_cm_pace (module, watch, &pace)) {
            return;
        }
        just_woken = false;
    }
}

static void *rwv_cm_thread_main (void *arg)
{
    mca_btl_rwv_module_t *module = (mca_btl_rwv_module_t *) arg;
    mca_btl_rwv_cm_watch_t watch;
    struct timespec cpu;

    mca_btl_rwv_in_cm_thread = true;
    (void) pthread_setname_np (pthread_self (), "rwv-conn"); /* for top -H, and the tests */
    mca_btl_rwv_cm_watch_init (module, &watch);
    rwv_cm_thread_run (module, &watch);
    rwv_cm_let_go (module, &watch);
    clock_gettime (CLOCK_THREAD_CPUTIME_ID, &cpu);
    module->cm.cpu_ns = (uint64_t) cpu.tv_sec * 1000000000u + (uint64_t) cpu.tv_nsec;
    return NULL;
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

        if (rail->cm_fd < 0 || !rwv_cm_watch (module->cm.epoll_fd, rail->cm_fd)) {
            opal_output_verbose (MCA_BASE_VERBOSE_WARN, opal_btl_base_framework.framework_output,
                                 "btl/rwv: %s offers no file descriptor for its connection events: "
                                 "connections are answered only when the application calls MPI", rail->name);
            return false;
        }
    }
    return rwv_cm_watch (module->cm.epoll_fd, module->cm.stop_fd) &&
        rwv_cm_watch (module->cm.epoll_fd, module->cm.ask_fd);
}

static void rwv_cm_close_fds (mca_btl_rwv_module_t *module)
{
    if (module->cm.epoll_fd >= 0) {
        close (module->cm.epoll_fd);
    }
    if (module->cm.stop_fd >= 0) {
        close (module->cm.stop_fd);
    }
    if (module->cm.ask_fd >= 0) {
        close (module->cm.ask_fd);
    }
    module->cm.epoll_fd = module->cm.stop_fd = module->cm.ask_fd = -1;
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
    module->cm.ask_fd = eventfd (0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (module->cm.epoll_fd < 0 || module->cm.stop_fd < 0 || module->cm.ask_fd < 0 || !rwv_cm_watch_rails (module)) {
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

/* What connections cost the thread, for a storm's breakdown. */
static void rwv_cm_report (const mca_btl_rwv_module_t *module)
{
    int conns = 0;

    for (int i = 0 ; i < module->num_rails ; ++i) {
        conns += module->rails[i]->num_conns;
    }
    opal_output_verbose (MCA_BASE_VERBOSE_INFO, opal_btl_base_framework.framework_output,
                         "btl/rwv: connection thread: %d connections, %" PRIu64 " connection events, %.1f ms of CPU "
                         "(%.0f us per connection), %.1f ms waiting for the application thread to leave rwv",
                         conns, module->cm.events, module->cm.cpu_ns / 1e6,
                         conns ? module->cm.cpu_ns / 1e3 / conns : 0.0, module->cm.gate_wait_ns / 1e6);
}

void mca_btl_rwv_cm_thread_stop (void)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    uint64_t one = 1;

    if (module->cm.running) {
        __atomic_store_n (&module->cm.stopping, true, __ATOMIC_RELEASE);
        (void) !write (module->cm.stop_fd, &one, sizeof (one));
        pthread_join (module->cm.thread, NULL);
        rwv_cm_report (module);
        module->cm.running = false;
        module->gate.fenced = false;
        rwv_cm_close_fds (module);
    }
    rwv_cm_discard (module);
    OBJ_DESTRUCT(&module->cm.deferred);
}
