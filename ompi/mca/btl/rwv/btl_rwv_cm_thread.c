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
 * (btl_rwv_async_progress).  While the application makes progress passes
 * it serves them itself and the thread stays out, its data fds unwatched
 * and the transport waiting as without it.  Once a pause goes by with no
 * pass, the thread watches the rails' data fds (the completion queues'
 * descriptors); when peers' data comes it takes the gate, reads the
 * completions (the provider lands puts and answers gets and rendezvous
 * reads as it does) and does the atomics waiting at the head of the
 * rings.  Completions of our own operations, and every message for the
 * MPI library, wait for the application's next pass.
 * Layer: connections (docs/layout.md).
 */
#include "opal_config.h"

#include <errno.h>
#include <poll.h>
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
#include "btl_rwv_poll.h"
#include "btl_rwv_rail.h"

/* ------------------------------------------------------------ the thread */

/* Under the gate: the rails' data fds up to date with their connections
 * (btl_rwv_async_progress). */
static void rwv_cm_data_sync (mca_btl_rwv_module_t *module)
{
    for (int i = 0 ; i < module->num_rails ; ++i) {
        mca_btl_rwv_rail_t *rail = module->rails[i];

        if (rail->data_fd >= 0 && NULL != rail->ops->data_sync) {
            rail->ops->data_sync (rail);
        }
    }
}

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
        rwv_cm_data_sync (module);
    }
    module->cm.events += (uint64_t) events;
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
static mca_btl_rwv_cm_state_t rwv_cm_state (mca_btl_rwv_module_t *module, bool data)
{
    mca_btl_rwv_cm_state_t state = MCA_BTL_RWV_CM_IDLE;

    (void) __atomic_add_fetch (&module->cm.looks, 1, __ATOMIC_SEQ_CST);
    for (int i = 0 ; i < module->num_rails && MCA_BTL_RWV_CM_EVENT != state ; ++i) {
        mca_btl_rwv_cm_state_t rail_state = module->rails[i]->ops->cm_state (module->rails[i], data);

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
        rwv_cm_data_sync (module); /* what the look just had the transport wait on */
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

/* Whether the thread watches for peers' data (btl_rwv_async_progress).
 * An application that makes progress passes serves its peers itself, and
 * a wake of the thread per message would only take its CPU: the rails'
 * data fds are then out of the thread's epoll set (parked), and the
 * thread looks again after a pause, 1 ms doubling to 4 ms while passes
 * keep coming.  Once a whole pause went by with none, they are watched
 * again (armed), and the next data wakes the thread, which serves it at
 * once: the application is away.
 * Passes seen at a look may be the last ones before the application went
 * off to compute.  A spinning application makes one every microsecond or
 * so: the thread watches 5 us for one, and failing that looks again
 * 100 us later.  Only if passes still come does it park again; else it
 * arms.  A peer's first request to a rank that just stopped calling MPI
 * so waits at most one pause (4 ms) and the confirmation, not a pause and
 * a doubled one after it.  The cost, while the application stays in MPI:
 * one short wake per 4 ms of a thread that takes no lock (two where it
 * shares the rank's one core), against an application spinning anyway. */
#define RWV_CM_PARK_FIRST_NS 1000000L
#define RWV_CM_PARK_MAX_NS 4000000L
#define RWV_CM_CONFIRM_NS 100000L
#define RWV_CM_SPIN_NS 5000L

typedef struct {
    bool armed;
    bool confirming;    /* parked: the pause saw passes; do they still come? */
    bool one_core;      /* the thread may run on one core only */
    unsigned calls;     /* the application's progress passes when last looked */
    long park_ns;       /* parked: the pause */
    long long until;    /* parked: when to look again, CLOCK_MONOTONIC ns */
} rwv_cm_watch_t;

static long long rwv_cm_clock (void)
{
    struct timespec now;

    clock_gettime (CLOCK_MONOTONIC, &now);
    return now.tv_sec * 1000000000LL + now.tv_nsec;
}

static unsigned rwv_cm_calls (mca_btl_rwv_module_t *module)
{
    return __atomic_load_n (&module->progress_calls, __ATOMIC_RELAXED);
}

/* Out of the epoll set altogether while parked, not just masked: a
 * watched epoll fd (a rail's data_fd is one) passes every readiness of
 * the sockets inside it on to its watchers, which the application's
 * progress would pay for. */
static void rwv_cm_watch_data (mca_btl_rwv_module_t *module, rwv_cm_watch_t *watch, bool on)
{
    if (on) {
        mca_btl_rwv_gate_enter (module);
        rwv_cm_data_sync (module);
        mca_btl_rwv_gate_leave (module);
    }
    for (int i = 0 ; i < module->num_rails ; ++i) {
        struct epoll_event ev = {.events = EPOLLIN, .data.fd = module->rails[i]->data_fd};

        if (ev.data.fd >= 0) {
            (void) epoll_ctl (module->cm.epoll_fd, on ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, ev.data.fd, &ev);
        }
    }
    watch->armed = on;
}

static void rwv_cm_park (mca_btl_rwv_module_t *module, rwv_cm_watch_t *watch, long park_ns)
{
    if (watch->armed) {
        rwv_cm_watch_data (module, watch, false);
    }
    watch->calls = rwv_cm_calls (module);
    watch->confirming = false;
    watch->park_ns = park_ns;
    watch->until = rwv_cm_clock () + park_ns;
}

/* Has the application made a progress pass since the thread last
 * looked, or is one running? */
static bool rwv_cm_app_in_mpi (mca_btl_rwv_module_t *module, const rwv_cm_watch_t *watch)
{
    return rwv_cm_calls (module) != watch->calls || __atomic_load_n (&module->progressing, __ATOMIC_ACQUIRE);
}

/* Does a pass come within RWV_CM_SPIN_NS?  A rank spinning in MPI makes
 * one every microsecond or so: seen, the confirmation's wake is saved.
 * Not where the thread shares the rank's one core (bound by mpirun): the
 * rank cannot run while the thread spins. */
static bool rwv_cm_passes_now (mca_btl_rwv_module_t *module, const rwv_cm_watch_t *watch)
{
    unsigned calls = rwv_cm_calls (module);
    long long until = rwv_cm_clock () + RWV_CM_SPIN_NS;

    if (watch->one_core) {
        return false;
    }
    do {
        if (rwv_cm_calls (module) != calls || __atomic_load_n (&module->progressing, __ATOMIC_ACQUIRE)) {
            return true;
        }
    } while (rwv_cm_clock () < until);
    return false;
}

/* Parked and the pause over: confirm, then park again if passes still
 * come, else arm. */
static void rwv_cm_look (mca_btl_rwv_module_t *module, rwv_cm_watch_t *watch)
{
    long long now;

    if (watch->armed || (now = rwv_cm_clock ()) < watch->until) {
        return;
    }
    if (!rwv_cm_app_in_mpi (module, watch)) {
        rwv_cm_watch_data (module, watch, true);
    } else if (!watch->confirming && !rwv_cm_passes_now (module, watch)) {
        watch->calls = rwv_cm_calls (module);
        watch->until = now + RWV_CM_CONFIRM_NS;
        watch->confirming = true;
    } else {
        rwv_cm_park (module, watch, watch->park_ns * 2 > RWV_CM_PARK_MAX_NS ? RWV_CM_PARK_MAX_NS : watch->park_ns * 2);
    }
}

/* Armed and the application back in MPI: park; true if so. */
static bool rwv_cm_parks (mca_btl_rwv_module_t *module, rwv_cm_watch_t *watch)
{
    if (rwv_cm_app_in_mpi (module, watch)) {
        rwv_cm_park (module, watch, RWV_CM_PARK_FIRST_NS);
        return true;
    }
    return false;
}

/* A wake with no event (libfabric's tcp provider wakes its event fd for
 * the application's data too, until the application reads it) is paced:
 * 50 us doubling to 5 ms, back to none at the next event.  A connection
 * is then answered within 5 ms of its request however busy the rail.
 * Armed, peers' data still ends the pause at once: about one wake in two
 * for data finds nothing to serve yet (counted under a stream of
 * fetch-and-ops), and the peer's request that follows must not wait out
 * the pause.  Should a data fd stay readable with nothing to serve, it is
 * left out after RWV_CM_EMPTY_DATA_WAKES such wakes in a row, until the
 * thread next finds work.  True when finalize asks the thread to stop. */
#define RWV_CM_EMPTY_DATA_WAKES 4

typedef struct {
    long pause_ns;
    int empty_data_wakes;   /* paces ended by a data fd, with nothing served since */
} rwv_cm_pace_t;

static void rwv_cm_pace_reset (rwv_cm_pace_t *pace)
{
    pace->pause_ns = 50000;
    pace->empty_data_wakes = 0;
}

static bool rwv_cm_pace (mca_btl_rwv_module_t *module, const rwv_cm_watch_t *watch, rwv_cm_pace_t *pace)
{
    struct pollfd fds[MCA_BTL_RWV_MAX_RAILS + 1] = {{.fd = module->cm.stop_fd, .events = POLLIN}};
    const struct timespec pause = {.tv_sec = 0, .tv_nsec = pace->pause_ns};
    int count = 1;

    for (int i = 0 ; watch->armed && pace->empty_data_wakes < RWV_CM_EMPTY_DATA_WAKES && i < module->num_rails ; ++i) {
        if (module->rails[i]->data_fd >= 0) {
            fds[count++] = (struct pollfd) {.fd = module->rails[i]->data_fd, .events = POLLIN};
        }
    }
    pace->pause_ns = pace->pause_ns * 2 > 5000000 ? 5000000 : pace->pause_ns * 2;
    if (ppoll (fds, count, &pause, NULL) <= 0) {
        return false;
    }
    if (fds[0].revents & POLLIN) {
        return true;
    }
    pace->empty_data_wakes++;
    return false;
}

/* Parked: wait on the epoll fd itself, which polls readable when an
 * event waits inside, to the nanosecond (epoll_wait's own timeout is in
 * whole milliseconds, and would stretch a 100 us confirmation to 1 ms);
 * true if an event came. */
static bool rwv_cm_wait_until (mca_btl_rwv_module_t *module, long long until)
{
    struct pollfd fd = {.fd = module->cm.epoll_fd, .events = POLLIN};
    long long left_ns = until - rwv_cm_clock ();
    struct timespec left = {.tv_sec = left_ns > 0 ? left_ns / 1000000000LL : 0,
                            .tv_nsec = left_ns > 0 ? left_ns % 1000000000LL : 0};

    return ppoll (&fd, 1, &left, NULL) > 0;
}

/* Sleep until a rail's fd or finalize wakes the thread (*WOKEN), or a
 * parked pause ends; true for finalize. */
static bool rwv_cm_sleep (mca_btl_rwv_module_t *module, const rwv_cm_watch_t *watch, bool *woken)
{
    struct epoll_event ready[2 * MCA_BTL_RWV_MAX_RAILS + 1];
    int n;

    if (!watch->armed && !rwv_cm_wait_until (module, watch->until)) {
        *woken = false;
        return false;
    }
    n = epoll_wait (module->cm.epoll_fd, ready, 2 * MCA_BTL_RWV_MAX_RAILS + 1, watch->armed ? -1 : 0);
    *woken = n > 0;
    for (int i = 0 ; i < n ; ++i) {
        if (ready[i].data.fd == module->cm.stop_fd) {
            return true;
        }
    }
    return false;
}

typedef enum {
    RWV_CM_DONE,    /* something was done: look again */
    RWV_CM_IDLE,    /* nothing waits: sleep, unless the thread was just woken for nothing */
    RWV_CM_PARKED,  /* the data fds were just taken out: sleep */
    RWV_CM_BUSY,    /* a fd stays ready with nothing for the thread: pace */
} rwv_cm_turn_t;

/* One turn.  Armed, the peers' data is served first and looked at after
 * (libfabric's trywait), as libfabric asks of a thread that will wait: a
 * read of the completions may leave bytes in the provider's own buffer
 * that no descriptor announces, and only the look sees them.  The look
 * progresses the transport in turn, and may land a peer's write in a
 * ring with no completion: the rings alone (no transport) are served once
 * more after it, before the thread may sleep.  Connection events come
 * with the look. */
static rwv_cm_turn_t rwv_cm_turn (mca_btl_rwv_module_t *module, rwv_cm_watch_t *watch)
{
    bool serving = watch->armed && mca_btl_rwv_component.async_progress;
    mca_btl_rwv_cm_state_t state;
    int served = 0;

    if (serving && rwv_cm_parks (module, watch)) {
        return RWV_CM_PARKED;
    }
    if (serving) {
        served = rwv_cm_serve (module, true);
    }
    state = rwv_cm_state (module, serving);
    if (MCA_BTL_RWV_CM_EVENT == state && rwv_cm_drain (module, serving) > 0) {
        served++;
    }
    if (serving && 0 == served) {
        served = rwv_cm_serve (module, false);
    }
    if (serving) {
        watch->calls = rwv_cm_calls (module); /* a pass of its own (module->deliver) is not the application's */
    }
    if (served > 0) {
        return RWV_CM_DONE;
    }
    return MCA_BTL_RWV_CM_IDLE == state ? RWV_CM_IDLE : RWV_CM_BUSY;
}

static bool rwv_cm_one_core (void)
{
    cpu_set_t cpus;

    return 0 == sched_getaffinity (0, sizeof (cpus), &cpus) && CPU_COUNT (&cpus) <= 1;
}

static void rwv_cm_thread_run (mca_btl_rwv_module_t *module)
{
    rwv_cm_pace_t pace;
    bool just_woken = false;
    int done_run = 0;
    rwv_cm_watch_t watch = {.armed = false, .one_core = rwv_cm_one_core ()};

    mca_btl_rwv_in_cm_thread = true;
    (void) pthread_setname_np (pthread_self (), "rwv-conn"); /* for top -H, and the tests */
    rwv_cm_pace_reset (&pace);
    rwv_cm_park (module, &watch, RWV_CM_PARK_FIRST_NS); /* the data fds are filled when first armed */
    while (!__atomic_load_n (&module->cm.stopping, __ATOMIC_ACQUIRE)) {
        rwv_cm_turn_t turn;

        rwv_cm_look (module, &watch);
        turn = rwv_cm_turn (module, &watch);
        if (RWV_CM_DONE == turn) {
            /* a run of turns that keep finding work (a peer streaming at
             * a computing rank) yields the core now and then all the same */
            rwv_cm_pace_reset (&pace);
            if (0 == ++done_run % 64 && rwv_cm_pace (module, &watch, &pace)) {
                return;
            }
            rwv_cm_pace_reset (&pace);
        } else if (RWV_CM_PARKED == turn || (RWV_CM_IDLE == turn && !just_woken)) {
            if (rwv_cm_sleep (module, &watch, &just_woken)) {
                return;
            }
            continue;
        } else if (rwv_cm_pace (module, &watch, &pace)) {
            return;
        }
        just_woken = false;
    }
}

static void *rwv_cm_thread_main (void *arg)
{
    mca_btl_rwv_module_t *module = (mca_btl_rwv_module_t *) arg;
    struct timespec cpu;

    rwv_cm_thread_run (module);
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
