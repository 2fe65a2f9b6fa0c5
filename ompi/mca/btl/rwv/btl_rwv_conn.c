/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * A connection's life outside the handshake: creation with its receive
 * ring, the state changes, the connect timeout, and what happens when it
 * fails, is refused or closed, or is destroyed (btl_rwv_conn.h).  The
 * handshake that connects it is btl_rwv_handshake.c.
 * Layer: connections (docs/layout.md).
 */
#include "opal_config.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <unistd.h>
#include <stdio.h>
#include <string.h>

#include "opal/mca/btl/base/base.h"
#include "rwv_opal_compat.h"
#include "opal/util/output.h"
#include "opal/util/proc.h"

#include "btl_rwv.h"
#include "btl_rwv_conn.h"
#include "btl_rwv_cm_thread.h"
#include "btl_rwv_endpoint.h"
#include "btl_rwv_peer.h"
#include "btl_rwv_poll.h"
#include "btl_rwv_handshake.h"
#include "btl_rwv_probe.h"
#include "btl_rwv_rejoin.h"
#include "btl_rwv_ring.h"
#include "btl_rwv_shm.h"

/* Where a new rail's estimate starts: level with the best one so far. */
static double mca_btl_rwv_conn_first_bandwidth (const mca_btl_rwv_endpoint_t *endpoint)
{
    double best = 1.0;

    for (int i = 0 ; i < MCA_BTL_RWV_MAX_RAILS ; ++i) {
        if (NULL != endpoint->conns[i] && endpoint->conns[i]->meter.bandwidth > best) {
            best = endpoint->conns[i]->meter.bandwidth;
        }
    }
    return best;
}

/* Once per process: a ring that cannot be had is rwv's to explain, with
 * the two parameters that sized it. */
static void mca_btl_rwv_ring_unavailable (const mca_btl_rwv_conn_t *conn, const char *what)
{
    const mca_btl_rwv_slots_t *own = &conn->local.own;
    size_t bytes = conn->local.ring_bytes;
    char size[32];
    static bool said;

    if (said) {
        return;
    }
    said = true;
    if (bytes < (1 << 20)) {
        snprintf (size, sizeof (size), "%zu bytes", bytes);
    } else {
        snprintf (size, sizeof (size), "%.1f MiB", (double) bytes / (1 << 20));
    }
    rwv_show_help ("help-mpi-btl-rwv.txt", "no ring", true, OPAL_PROC_MY_HOSTNAME,
                   mca_btl_rwv_peer_host (conn->endpoint), conn->rail->name, what, size, own->slots, own->slot_size,
                   conn->local.tiered ? "btl_rwv_cold_slots" : "btl_rwv_eager_slots",
                   conn->local.tiered ? "btl_rwv_cold_slot_size" : "btl_rwv_eager_slot_size");
}

/* The size of a connection's own ring: large where it is SHARED with a
 * peer on this node or the hot set is off, else small (a cold peer's),
 * with warm slots if ROOMY and the rail has room for one more; true for a
 * small one. */
static bool mca_btl_rwv_conn_own_ring_size (const mca_btl_rwv_rail_t *rail, bool shared, bool roomy,
                                            uint32_t *slots, uint32_t *slot_size)
{
    const mca_btl_rwv_component_t *c = &mca_btl_rwv_component;
    bool tiered = !shared && c->hot_peers >= 0;

    roomy = roomy && tiered && (c->warm_peers < 0 || rail->warm_rings < c->warm_peers);
    *slots = (uint32_t) (tiered ? c->cold_slots : c->eager_slots);
    *slot_size = (uint32_t) (roomy ? c->warm_slot_size : tiered ? c->cold_slot_size : c->eager_slot_size);
    return tiered;
}

/* The connection's own ring: large and shared if the peer is on this node
 * and may store into it, else small unless the hot set is off. */
static bool mca_btl_rwv_conn_ring_alloc (mca_btl_rwv_conn_t *conn, bool roomy)
{
    mca_btl_rwv_local_ring_t *local = &conn->local;
    mca_btl_rwv_slots_t *own = &local->own;

    local->ring = mca_btl_rwv_shm_ring_take (conn->endpoint);
    local->tiered = mca_btl_rwv_conn_own_ring_size (conn->rail, NULL != local->ring, roomy, &own->slots,
                                                    &own->slot_size);
    local->ring_bytes = mca_btl_rwv_ring_size (own->slots, own->slot_size);
    /* 64-byte aligned: a page each would double a cold ring's memory */
    if (NULL == local->ring && 0 != posix_memalign ((void **) &local->ring, 64, local->ring_bytes)) {
        local->ring = NULL;
        return false;
    }
    memset (local->ring, 0, local->ring_bytes);
    own->base = local->ring;
    own->notify_imm = local->tiered || mca_btl_rwv_large_ring_notifies (conn->rail);
    own->hot = NULL;
    local->cur = *own;
    local->tail = (volatile uint64_t *) (local->ring + mca_btl_rwv_ring_tail (own->slots, own->slot_size));
    return true;
}

mca_btl_rwv_conn_t *mca_btl_rwv_conn_create (mca_btl_rwv_endpoint_t *endpoint, mca_btl_rwv_rail_t *rail, bool roomy)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    mca_btl_rwv_conn_t *conn = calloc (1, sizeof (*conn));
    const char *what = "allocating";
    void *desc;
    int id;

    if (NULL == conn) {
        return NULL;
    }
    conn->endpoint = endpoint;
    conn->rail = rail;
    conn->poll_index = -1;
    conn->probe_fd = -1;
    if (!mca_btl_rwv_conn_ring_alloc (conn, roomy)) {
        goto out_free;
    }
    conn->meter.bandwidth = rail->bandwidth > 0 ? rail->bandwidth : mca_btl_rwv_conn_first_bandwidth (endpoint);
    what = "registering";
    if (OPAL_SUCCESS != rail->ops->mr_reg (rail, conn->local.ring, conn->local.ring_bytes, MCA_BTL_RWV_ACCESS_OWN_RING,
                                           &conn->local.ring_mr, &desc, &conn->local.ring_rkey)) {
        goto out_ring;
    }
    /* the table holds 65536 connections; past that, or out of memory */
    what = "keeping track of";
    id = opal_pointer_array_add (&module->conns, conn);
    if (id < 0) {
        goto out_dereg;
    }
    if (OPAL_SUCCESS != mca_btl_rwv_poll_add (conn)) {
        opal_pointer_array_set_item (&module->conns, id, NULL);
        goto out_dereg;
    }
    conn->id = (uint32_t) id;
    OBJ_CONSTRUCT(&conn->pending, opal_list_t);
    OBJ_CONSTRUCT(&conn->replay.unacked, opal_list_t);
    OBJ_CONSTRUCT(&conn->kept_puts, opal_list_t);
    mca_btl_rwv_conn_set_state (conn, MCA_BTL_RWV_CONN_IDLE);
    endpoint->conns[rail->index] = conn;
    rail->num_conns++;
    rail->warm_rings += mca_btl_rwv_conn_roomy (&conn->local);
    return conn;

out_dereg:
    rail->ops->mr_dereg (rail, conn->local.ring_mr);
out_ring:
    mca_btl_rwv_ring_free (conn->local.ring);
out_free:
    mca_btl_rwv_ring_unavailable (conn, what);
    free (conn);
    return NULL;
}

static const char mca_btl_rwv_no_goodbye[] = "the peer closed the connection without saying goodbye";
#define MCA_BTL_RWV_FATE_WAIT 1000 /* ms a fatal close waits to learn the peer's fate */

/* What a close without goodbye says of the peer's process, asked of its
 * listener where the rail has a TCP one: a close alone cannot tell a
 * death from a live peer that gave the connection up on its side.  A
 * host that went away makes the probe wait its whole time: after a few
 * such, when many peers went at once, the rest are not asked. */
static const char *mca_btl_rwv_conn_fate (mca_btl_rwv_conn_t *conn)
{
    static int silent_left = 3;

    if (!conn->rail->probe_tcp || 0 == conn->peer_port || 0 == silent_left) {
        return "whether its process ended or gave the connection up is not known here";
    }
    switch (mca_btl_rwv_probe_ask (&conn->rail->addr.ip[conn->family], &conn->peer_ip, conn->peer_port,
                                   MCA_BTL_RWV_FATE_WAIT)) {
    case MCA_BTL_RWV_PROBE_REFUSED:
        return "its host now refuses connections to its listener, so its process has ended";
    case MCA_BTL_RWV_PROBE_SILENT:
        --silent_left;
        return "its host no longer answers on this rail";
    default:
        return "its listener still answers, so its process runs and gave the connection up on its side "
               "(its own error output says why)";
    }
}

/* Why the last rail to a peer failed.  When the peer had closed a
 * connection without its goodbye, whatever fails next (a write that
 * meets the reset, say) comes from the same event: say so, with what is
 * known of the peer's process, rather than blame this rail. */
static const char *mca_btl_rwv_conn_last_why (mca_btl_rwv_conn_t *conn, const char *why,
                                              char *text, size_t size)
{
    const char *on = conn->endpoint->vanished_on;

    if (NULL == on) {
        return why;
    }
    if (conn->rail->name == on && mca_btl_rwv_no_goodbye == why) {
        snprintf (text, size, "%s: %s", why, mca_btl_rwv_conn_fate (conn));
    } else {
        snprintf (text, size, "%s, after %s on rail %s: %s", why, mca_btl_rwv_no_goodbye, on,
                  mca_btl_rwv_conn_fate (conn));
    }
    return text;
}

/* Each failure waits twice as long as the one before to rejoin (1 s to
 * 64 s), so a rail whose link is up but that cannot connect costs an
 * attempt a minute at most. */
static void mca_btl_rwv_conn_rejoin_later (mca_btl_rwv_conn_t *conn)
{
    conn->replay.rejoin_backoff = conn->replay.rejoin_backoff <= 0 ? 1.0 : conn->replay.rejoin_backoff >= 32.0 ? 64.0 : 2 * conn->replay.rejoin_backoff;
    conn->replay.rejoin_at = mca_btl_rwv_now () + conn->replay.rejoin_backoff;
}

void mca_btl_rwv_conn_failed (mca_btl_rwv_conn_t *conn, const char *why)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    mca_btl_rwv_endpoint_t *endpoint = conn->endpoint;
    char *info = NULL;

    if (MCA_BTL_RWV_CONN_FAILED == conn->state ||
        mca_btl_rwv_cm_defer (conn, MCA_BTL_RWV_CM_FAILED, true, NULL, 0, why)) {
        return;
    }
    mca_btl_rwv_conn_set_state (conn, MCA_BTL_RWV_CONN_FAILED);
    conn->rail->ops->disconnect (conn);
    mca_btl_rwv_conn_drop_shared (conn);
    if (mca_btl_rwv_endpoint_has_live_rail (endpoint, NULL)) {
        mca_btl_rwv_conn_rejoin_later (conn);
        mca_btl_rwv_conn_hooks ()->rail_lost (conn, why);
        return;
    }

    if (!endpoint->failed) {
        char peer[MCA_BTL_RWV_IP_STRLEN], last_why[400];

        endpoint->failed = true;
        why = mca_btl_rwv_conn_last_why (conn, why, last_why, sizeof (last_why));
        mca_btl_rwv_ip_ntop (&conn->peer_ip, peer, sizeof (peer));
        rwv_show_help ("help-mpi-btl-rwv.txt", "connection failed", true,
                       OPAL_PROC_MY_HOSTNAME, mca_btl_rwv_peer_host (endpoint),
                       OPAL_NAME_PRINT(endpoint->proc->proc_name), conn->rail->name, peer,
                       ntohs (conn->peer_port), why, mca_btl_rwv_component.connect_timeout);
        if (NULL != module->error_cb) {
            (void) asprintf (&info, "btl/rwv: connection to %s failed: %s", mca_btl_rwv_peer_host (endpoint), why);
            module->error_cb (&module->super, MCA_BTL_ERROR_FLAGS_FATAL, endpoint->proc, info);
            free (info);
        }
    }
    mca_btl_rwv_conn_hooks ()->peer_lost (conn);
}

/* Once per connection: what was wrong, naming the peer, then the close. */
void mca_btl_rwv_conn_malformed (mca_btl_rwv_conn_t *conn, const char *what)
{
    mca_btl_rwv_endpoint_t *endpoint = conn->endpoint;

    if (MCA_BTL_RWV_CONN_FAILED == conn->state) {
        return;
    }
    rwv_show_help ("help-mpi-btl-rwv.txt", "malformed message", true, OPAL_PROC_MY_HOSTNAME,
                   mca_btl_rwv_peer_host (endpoint), OPAL_NAME_PRINT(endpoint->proc->proc_name),
                   conn->rail->name, what);
    mca_btl_rwv_conn_failed (conn, "it sent a malformed message");
    conn->replay.no_rejoin = true;
}

/* A request for memory this process did not register for it: refused,
 * answered with an error, and said once per connection. */
void mca_btl_rwv_conn_refused_access (mca_btl_rwv_conn_t *conn, const char *what, uint64_t address, uint64_t key)
{
    mca_btl_rwv_endpoint_t *endpoint = conn->endpoint;
    char detail[128];

    if (conn->access_refused++) {
        return;
    }
    snprintf (detail, sizeof (detail), "%s at 0x%" PRIx64 " with key 0x%" PRIx64, what, address, key);
    rwv_show_help ("help-mpi-btl-rwv.txt", "refused access", true, OPAL_PROC_MY_HOSTNAME,
                   mca_btl_rwv_peer_host (endpoint), OPAL_NAME_PRINT(endpoint->proc->proc_name),
                   conn->rail->name, detail);
}

/* Our attempt was refused.  From a higher rank that is the crossing rule
 * at work: its own request follows. */
void mca_btl_rwv_conn_refused (mca_btl_rwv_conn_t *conn, const char *why)
{
    if (mca_btl_rwv_cm_defer (conn, MCA_BTL_RWV_CM_REFUSED, false, NULL, 0, why)) {
        return;
    }
    if (MCA_BTL_RWV_CONN_CONNECTING == conn->state &&
        opal_compare_proc (opal_proc_local_get ()->proc_name, conn->endpoint->proc->proc_name) < 0) {
        conn->rail->ops->disconnect (conn);
        mca_btl_rwv_conn_set_state (conn, MCA_BTL_RWV_CONN_AWAITING);
        RWV_TRACE("btl/rwv: %s refused our attempt; awaiting its own", OPAL_NAME_PRINT(conn->endpoint->proc->proc_name));
        return;
    }
    mca_btl_rwv_conn_failed (conn, why);
}

/* The peer's end of the connection went away without its goodbye: it
 * closed it, or a write met the reset. */
void mca_btl_rwv_conn_vanished (mca_btl_rwv_conn_t *conn)
{
    conn->endpoint->vanished_on = conn->rail->name;
    mca_btl_rwv_conn_failed (conn, mca_btl_rwv_endpoint_has_live_rail (conn->endpoint, conn) ?
                             "the peer closed the connection on this rail" : mca_btl_rwv_no_goodbye);
}

/* The peer closed the connection.  After its goodbye (it is finalizing)
 * nothing is lost unless messages were still queued, and a later message
 * reconnects.  Without one, its process died: a receive posted for it
 * would wait forever, so say so. */
void mca_btl_rwv_conn_closed (mca_btl_rwv_conn_t *conn)
{
    if (mca_btl_rwv_cm_defer (conn, MCA_BTL_RWV_CM_CLOSED, true, NULL, 0, NULL)) {
        return;
    }
    if (!mca_btl_rwv_conn_peer_said_goodbye (conn)) {
        mca_btl_rwv_conn_vanished (conn);
        return;
    }
    if (!opal_list_is_empty (&conn->pending)) {
        mca_btl_rwv_conn_failed (conn, "the peer closed the connection while messages were queued for it");
        return;
    }
    conn->rail->ops->disconnect (conn);
    mca_btl_rwv_conn_drop_shared (conn);
    mca_btl_rwv_conn_set_state (conn, MCA_BTL_RWV_CONN_IDLE);
}

static bool mca_btl_rwv_state_waits (mca_btl_rwv_conn_state_t state)
{
    return MCA_BTL_RWV_CONN_CONNECTING == state || MCA_BTL_RWV_CONN_ACCEPTING == state ||
        MCA_BTL_RWV_CONN_AWAITING == state;
}

/* Every change of state comes here, so the connections waiting for an
 * answer are counted: the timeout check walks the table only while some
 * wait, and only until it has seen them all.  A peer that connects is
 * alive, whatever it closed before. */
void mca_btl_rwv_conn_set_state (mca_btl_rwv_conn_t *conn, mca_btl_rwv_conn_state_t state)
{
    mca_btl_rwv_component.module->conns_waiting += (int) mca_btl_rwv_state_waits (state) -
        (int) mca_btl_rwv_state_waits (conn->state);
    conn->state = state;
    if (MCA_BTL_RWV_CONN_CONNECTED == state) {
        conn->endpoint->vanished_on = NULL;
    }
    if (conn->probe_fd >= 0 && !mca_btl_rwv_state_waits (state)) {
        close (conn->probe_fd);
        conn->probe_fd = -1;
    }
}

#define MCA_BTL_RWV_NO_ANSWER "no answer before btl_rwv_connect_timeout"
#define MCA_BTL_RWV_PROBE_ANSWER 3 /* seconds a probe's TCP handshake may take */

/* A silent peer past its deadline: probed where its rail listens on TCP.
 * Its kernel still completing TCP handshakes means the host and the
 * process's listener are there: a process stopped by a debugger or
 * SIGSTOP, which btl/tcp waits for too.  Only our own unanswered
 * request waits so: a peer that refused us, or whose request we
 * accepted, has answered, and its silence since is judged as before.
 * Returns why the connection fails, or NULL while it waits on, until the
 * next deadline. */
static const char *mca_btl_rwv_conn_silence (mca_btl_rwv_conn_t *conn, double now)
{
    int timeout = mca_btl_rwv_component.connect_timeout;
    mca_btl_rwv_probe_state_t state;

    if (MCA_BTL_RWV_CONN_CONNECTING != conn->state || !conn->rail->probe_tcp || 0 == conn->peer_port) {
        return MCA_BTL_RWV_NO_ANSWER;
    }
    if (conn->probe_fd < 0) {
        opal_output_verbose (MCA_BASE_VERBOSE_INFO, opal_btl_base_framework.framework_output,
                             "btl/rwv: no answer from %s on host %s within btl_rwv_connect_timeout (%d s) on rail %s: "
                             "probing its host", OPAL_NAME_PRINT(conn->endpoint->proc->proc_name),
                             mca_btl_rwv_peer_host (conn->endpoint), timeout, conn->rail->name);
        conn->probe_fd = mca_btl_rwv_probe_start (&conn->rail->addr.ip[conn->family], &conn->peer_ip,
                                                  conn->peer_port, timeout);
        /* a kernel that is there answers within a round trip (or a lost SYN's 1 s resend) */
        conn->deadline = now + (timeout < MCA_BTL_RWV_PROBE_ANSWER ? timeout : MCA_BTL_RWV_PROBE_ANSWER);
        return conn->probe_fd < 0 ? MCA_BTL_RWV_NO_ANSWER : NULL;
    }
    state = mca_btl_rwv_probe_check (conn->probe_fd);
    if (MCA_BTL_RWV_PROBE_ANSWERED == state || MCA_BTL_RWV_PROBE_ALIVE == state) {
        opal_output_verbose (MCA_BASE_VERBOSE_INFO, opal_btl_base_framework.framework_output,
                             "btl/rwv: %s's host %s answers on rail %s but its process does not: stopped "
                             "(a debugger?) or not yet listening; waiting on",
                             OPAL_NAME_PRINT(conn->endpoint->proc->proc_name), mca_btl_rwv_peer_host (conn->endpoint),
                             conn->rail->name);
        if (MCA_BTL_RWV_PROBE_ALIVE == state) {
            /* its process answered the probe itself: the next deadline asks afresh */
            close (conn->probe_fd);
            conn->probe_fd = -1;
        }
        conn->deadline = now + timeout;
        return NULL;
    }
    if (MCA_BTL_RWV_PROBE_REFUSED == state) {
        return "the peer's host refused a connection to the peer's listener: its process has ended";
    }
    return MCA_BTL_RWV_NO_ANSWER;
}

void mca_btl_rwv_conn_check_timeouts (double now)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    int size = opal_pointer_array_get_size (&module->conns);
    int waiting = module->conns_waiting;  /* a connection that fails below leaves the count */

    for (int i = 0 ; i < size && waiting > 0 ; ++i) {
        mca_btl_rwv_conn_t *conn = opal_pointer_array_get_item (&module->conns, i);

        if (NULL == conn || !mca_btl_rwv_state_waits (conn->state)) {
            continue;
        }
        --waiting;
        if (now > conn->deadline) {
            const char *why = mca_btl_rwv_conn_silence (conn, now);

            if (NULL != why) {
                mca_btl_rwv_conn_failed (conn, why);
            }
        }
    }
}

/* Only a peer reached over several rails has its rails measured: one rail
 * carries everything whatever its rate. */
static const char *mca_btl_rwv_conn_bandwidth_source (const mca_btl_rwv_conn_t *conn)
{
    if (conn->rail->bandwidth > 0) {
        return "configured";
    }
    return conn->endpoint->num_rails > 1 ? "measured" : "unmeasured (its only rail to this peer)";
}

void mca_btl_rwv_conn_destroy (mca_btl_rwv_conn_t *conn)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    char peer[MCA_BTL_RWV_IP_STRLEN];

    if (MCA_BTL_RWV_CONN_CONNECTED == conn->state) {
        mca_btl_rwv_conn_say_goodbye (conn);
    }
    mca_btl_rwv_ip_ntop (&conn->peer_ip, peer, sizeof (peer));
    opal_output_verbose (MCA_BASE_VERBOSE_INFO, opal_btl_base_framework.framework_output,
                         "btl/rwv: rail %s to %s: %s bandwidth %.1f MB/s, %" PRIu64 " eager messages sent, "
                         "%" PRIu64 " bytes put or got since connected, re-established %u times", conn->rail->name,
                         peer, mca_btl_rwv_conn_bandwidth_source (conn), conn->meter.bandwidth, conn->peer.send_seq,
                         conn->rdma_bytes, conn->replay.rejoins);
    conn->rail->ops->disconnect (conn);
    mca_btl_rwv_conn_set_state (conn, MCA_BTL_RWV_CONN_IDLE);
    mca_btl_rwv_conn_hooks ()->release (conn);
    OBJ_DESTRUCT(&conn->pending);
    OBJ_DESTRUCT(&conn->replay.unacked);
    OBJ_DESTRUCT(&conn->kept_puts);
    mca_btl_rwv_conn_drop_shared (conn);
    conn->rail->ops->mr_dereg (conn->rail, conn->local.ring_mr);
    opal_pointer_array_set_item (&module->conns, conn->id, NULL);
    if (conn->poll_index >= 0) {
        mca_btl_rwv_poll_remove (conn);
    }
    conn->rail->num_conns--;
    conn->rail->warm_rings -= mca_btl_rwv_conn_roomy (&conn->local);
    free (conn->replay.seen);
    free (conn->replay.before.seen);
    mca_btl_rwv_ring_free (conn->local.ring);
    free (conn);
}

