/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * When the connection thread watches for peers' data, and how it sleeps
 * (btl_rwv_async_progress).  An application that makes progress passes serves its peers itself, and
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
 * shares the rank's one core), against an application spinning anyway.
 * Layer: connections (docs/layout.md).
 */
#include "opal_config.h"

#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "btl_rwv.h"
#include "btl_rwv_cm_watch.h"
#include "btl_rwv_lock.h"
#include "btl_rwv_rail.h"

/* Is rail I's data fd in the thread's epoll set as it should be?  Only
 * while the rail has connections: a rail nobody reached (the loopback one
 * between nodes) has no peers' data, yet its provider may leave its fd
 * readable, and looking at it costs a try of its completion queue per
 * wake. */
static void rwv_cm_data_fit (mca_btl_rwv_module_t *module, int i, bool on)
{
    mca_btl_rwv_rail_t *rail = module->rails[i];
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = rail->data_fd};
    bool in = module->cm.data_watched & (1u << i);

    on = on && rail->data_fd >= 0 && rail->num_conns > 0;
    if (on != in) {
        (void) epoll_ctl (module->cm.epoll_fd, on ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, rail->data_fd, &ev);
        module->cm.data_watched ^= 1u << i;
    }
}

/* Under the gate, armed: the rails' data fds up to date with their
 * connections, and in the thread's set while they have any
 * (btl_rwv_async_progress). */
void mca_btl_rwv_cm_data_sync (mca_btl_rwv_module_t *module)
{
    for (int i = 0 ; i < module->num_rails ; ++i) {
        mca_btl_rwv_rail_t *rail = module->rails[i];

        if (rail->data_fd >= 0 && NULL != rail->ops->data_sync) {
            rail->ops->data_sync (rail);
        }
        rwv_cm_data_fit (module, i, true);
    }
}

#define RWV_CM_PARK_FIRST_NS 1000000L
#define RWV_CM_PARK_MAX_NS 4000000L
#define RWV_CM_CONFIRM_NS 100000L
#define RWV_CM_SPIN_NS 5000L

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
static void rwv_cm_watch_data (mca_btl_rwv_module_t *module, mca_btl_rwv_cm_watch_t *watch, bool on)
{
    if (on) {
        mca_btl_rwv_gate_enter (module);
        mca_btl_rwv_cm_data_sync (module);
        mca_btl_rwv_gate_leave (module);
    }
    for (int i = 0 ; !on && i < module->num_rails ; ++i) {
        rwv_cm_data_fit (module, i, false);
    }
    watch->armed = on;
}

static void rwv_cm_park (mca_btl_rwv_module_t *module, mca_btl_rwv_cm_watch_t *watch, long park_ns)
{
    if (watch->armed) {
        rwv_cm_watch_data (module, watch, false);
    }
    watch->calls = rwv_cm_calls (module);
    watch->confirming = false;
    watch->park_ns = park_ns;
    watch->until = rwv_cm_clock () + park_ns;
}

/* Did the application thread find the thread in and ask it out since it
 * last looked (mca_btl_rwv_gate_ask)?  A pass it tried, then; taken, so
 * that a stale ask keeps no later computation unserved. */
static bool rwv_cm_take_ask (mca_btl_rwv_module_t *module)
{
    if (!__atomic_load_n (&module->gate.asked, __ATOMIC_ACQUIRE)) {
        return false;
    }
    __atomic_store_n (&module->gate.asked, 0, __ATOMIC_SEQ_CST);
    return true;
}

/* Has the application made or tried a progress pass since the thread
 * last looked, or is one running, or does it wait for the gate?  The
 * passes it tries while the thread holds the gate fail, and are not
 * counted (btl_rwv_lock.h). */
static bool rwv_cm_app_in_mpi (mca_btl_rwv_module_t *module, const mca_btl_rwv_cm_watch_t *watch)
{
    bool asked = rwv_cm_take_ask (module);

    return asked || rwv_cm_calls (module) != watch->calls || __atomic_load_n (&module->progressing, __ATOMIC_ACQUIRE) ||
        __atomic_load_n (&module->gate.waiting, __ATOMIC_ACQUIRE);
}

/* The application thread's ask woke the thread: read, so that it wakes
 * it no more; the thread takes the ask itself at its next look. */
static void rwv_cm_ask_read (mca_btl_rwv_module_t *module)
{
    uint64_t count;

    (void) !read (module->cm.ask_fd, &count, sizeof (count));
}

/* Does a pass come within RWV_CM_SPIN_NS?  A rank spinning in MPI makes
 * one every microsecond or so: seen, the confirmation's wake is saved.
 * Not where the thread shares the rank's one core (bound by mpirun): the
 * rank cannot run while the thread spins. */
static bool rwv_cm_passes_now (mca_btl_rwv_module_t *module, const mca_btl_rwv_cm_watch_t *watch)
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
void mca_btl_rwv_cm_look (mca_btl_rwv_module_t *module, mca_btl_rwv_cm_watch_t *watch)
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
bool mca_btl_rwv_cm_parks (mca_btl_rwv_module_t *module, mca_btl_rwv_cm_watch_t *watch)
{
    if (rwv_cm_app_in_mpi (module, watch)) {
        rwv_cm_park (module, watch, RWV_CM_PARK_FIRST_NS);
        return true;
    }
    return false;
}

static bool rwv_cm_one_core (void)
{
    cpu_set_t cpus;

    return 0 == sched_getaffinity (0, sizeof (cpus), &cpus) && CPU_COUNT (&cpus) <= 1;
}

void mca_btl_rwv_cm_watch_init (mca_btl_rwv_module_t *module, mca_btl_rwv_cm_watch_t *watch)
{
    *watch = (mca_btl_rwv_cm_watch_t) {.armed = false, .one_core = rwv_cm_one_core ()};
    rwv_cm_park (module, watch, RWV_CM_PARK_FIRST_NS); /* the data fds are filled when first armed */
}

void mca_btl_rwv_cm_seen (mca_btl_rwv_module_t *module, mca_btl_rwv_cm_watch_t *watch)
{
    watch->calls = rwv_cm_calls (module);
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
 * thread next finds work.  The application thread's ask for the gate
 * ends it too.  True when finalize asks the thread to stop. */
#define RWV_CM_EMPTY_DATA_WAKES 4

void mca_btl_rwv_cm_pace_reset (mca_btl_rwv_cm_pace_t *pace)
{
    pace->pause_ns = 50000;
    pace->empty_data_wakes = 0;
}

bool mca_btl_rwv_cm_pace (mca_btl_rwv_module_t *module, const mca_btl_rwv_cm_watch_t *watch, mca_btl_rwv_cm_pace_t *pace)
{
    struct pollfd fds[MCA_BTL_RWV_MAX_RAILS + 2] = {{.fd = module->cm.stop_fd, .events = POLLIN},
                                                    {.fd = module->cm.ask_fd, .events = POLLIN}};
    const struct timespec pause = {.tv_sec = 0, .tv_nsec = pace->pause_ns};
    int count = 2;

    for (int i = 0 ; watch->armed && pace->empty_data_wakes < RWV_CM_EMPTY_DATA_WAKES && i < module->num_rails ; ++i) {
        if (module->cm.data_watched & (1u << i)) {
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
    if (fds[1].revents & POLLIN) {
        rwv_cm_ask_read (module);
    } else {
        pace->empty_data_wakes++;
    }
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
bool mca_btl_rwv_cm_sleep (mca_btl_rwv_module_t *module, const mca_btl_rwv_cm_watch_t *watch, bool *woken)
{
    struct epoll_event ready[2 * MCA_BTL_RWV_MAX_RAILS + 2];
    int n;

    if (!watch->armed && !rwv_cm_wait_until (module, watch->until)) {
        *woken = false;
        return false;
    }
    n = epoll_wait (module->cm.epoll_fd, ready, 2 * MCA_BTL_RWV_MAX_RAILS + 2, watch->armed ? -1 : 0);
    *woken = n > 0;
    for (int i = 0 ; i < n ; ++i) {
        if (ready[i].data.fd == module->cm.stop_fd) {
            return true;
        }
        if (ready[i].data.fd == module->cm.ask_fd) {
            rwv_cm_ask_read (module);
        }
    }
    return false;
}

