/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * The connection handshake: what the connection data carries, the active
 * side's request with its proof (btl_rwv_auth.h), the passive side's checks
 * and answer, and the active side's check of that answer.  The lower
 * rank's attempt yields when both sides start at once; the active side
 * speaks first (the iWARP rule), the passive side waits for its hello.
 * At finalize, the goodbye word a process writes before it closes tells
 * its peers a departure from a death.
 * Layer: connections (docs/layout.md).
 */
#include "opal_config.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "opal/mca/btl/base/base.h"
#include "opal/util/error.h"
#include "opal/util/output.h"
#include "opal/util/proc.h"

#include "btl_rwv.h"
#include "btl_rwv_cm_thread.h"
#include "btl_rwv_endpoint.h"
#include "btl_rwv_peer.h"
#include "btl_rwv_frag.h"
#include "btl_rwv_handshake.h"
#include "btl_rwv_poll.h"
#include "btl_rwv_test_fault.h"
#include "btl_rwv_rejoin.h"
#include "btl_rwv_ring.h"

static void mca_btl_rwv_conn_fill_cm (const mca_btl_rwv_conn_t *conn, mca_btl_rwv_cm_data_t *cm)
{
    memset (cm, 0, sizeof (*cm));
    cm->version = MCA_BTL_RWV_CM_VERSION;
    cm->rail_flags = (uint8_t) (conn->rail->index | (conn->local.own.notify_imm ? MCA_BTL_RWV_CM_NOTIFY_IMM : 0) |
                                (conn->rail->notify_by_send ? MCA_BTL_RWV_CM_BY_SEND : 0));
    cm->name = opal_proc_local_get ()->proc_name;
    cm->ring_raddr = mca_btl_rwv_rail_raddr (conn->rail, (uint64_t) (uintptr_t) conn->local.ring,
                                             (uint64_t) (uintptr_t) conn->local.ring);
    cm->ring_rkey = conn->local.ring_rkey;
    cm->slots_less_one = (uint16_t) (conn->local.own.slots - 1);
    cm->slot_size = conn->local.own.slot_size;
    cm->conn_id = (uint16_t) conn->id;
    cm->shm_slot = mca_btl_rwv_ring_shm_slot (conn->local.ring);
}

/* Do both ends tell of ring writes the same way? */
static bool mca_btl_rwv_cm_notifies_alike (const mca_btl_rwv_rail_t *rail, const mca_btl_rwv_cm_data_t *cm)
{
    return !!(cm->rail_flags & MCA_BTL_RWV_CM_BY_SEND) == rail->notify_by_send;
}

static const char mca_btl_rwv_cm_unalike[] = "its rail tells of ring writes by sends and this one by remote CQ "
    "data, or the other way round: give btl_rwv_ofi_cq_data the same value in every process";

/* A member whose rail notifies otherwise: a setting, not an attack, so
 * said by default, once. */
static void mca_btl_rwv_say_unalike (const mca_btl_rwv_rail_t *rail, const mca_btl_rwv_endpoint_t *endpoint)
{
    static bool said;

    if (!said) {
        said = true;
        rwv_show_help ("help-mpi-btl-rwv.txt", "notifications differ", true, OPAL_PROC_MY_HOSTNAME,
                       OPAL_NAME_PRINT(endpoint->proc->proc_name), mca_btl_rwv_peer_host (endpoint), rail->name,
                       rail->notify_by_send ? "sends" : "remote CQ data",
                       rail->notify_by_send ? "remote CQ data" : "sends");
    }
}

static void mca_btl_rwv_conn_take_peer_cm (mca_btl_rwv_conn_t *conn, const mca_btl_rwv_cm_data_t *cm)
{
    conn->peer.ring_raddr = cm->ring_raddr;
    conn->peer.ring_rkey = conn->peer.tail_rkey = cm->ring_rkey;
    conn->peer.slots = cm->slots_less_one + 1u;
    conn->peer.slot_size = cm->slot_size;
    conn->peer.tail_raddr = cm->ring_raddr + mca_btl_rwv_ring_tail (conn->peer.slots, cm->slot_size);
    conn->peer.conn_id = cm->conn_id;
    conn->peer.rail = cm->rail_flags & MCA_BTL_RWV_CM_RAIL_MASK;
    conn->peer.notify_imm = !!(cm->rail_flags & MCA_BTL_RWV_CM_NOTIFY_IMM);
    conn->peer.shm_slot = cm->shm_slot;
    mca_btl_rwv_shm_attach (conn);
}

static const mca_btl_rwv_cm_data_t *mca_btl_rwv_cm_check (const void *data, size_t len)
{
    const mca_btl_rwv_cm_data_t *cm = (const mca_btl_rwv_cm_data_t *) data;

    /* the rail names an entry of the keys a peer's registrations carry */
    if (len < sizeof (*cm) || MCA_BTL_RWV_CM_VERSION != cm->version || cm->slots_less_one < 1 ||
        (cm->rail_flags & MCA_BTL_RWV_CM_RAIL_MASK) >= MCA_BTL_RWV_MAX_RAILS ||
        cm->slot_size < sizeof (mca_btl_rwv_eager_hdr_t)) {
        return NULL;
    }
    return cm;
}

/* A fresh start on this connection: its own ring again, new contents,
 * counters from zero. */
static void mca_btl_rwv_conn_reset (mca_btl_rwv_conn_t *conn)
{
    mca_btl_rwv_conn_drop_shared (conn);
    memset (conn->local.ring, 0, conn->local.ring_bytes);
    conn->local.recv_seq = conn->local.imm_seen = conn->local.imm_used = conn->local.credits_reported = 0;
    conn->peer.send_seq = conn->peer.consumed = 0;
    conn->local.next_slot = conn->peer.next_slot = 0;
    conn->peer.generation = 0;
    conn->peer.owe_hello = false;
    conn->rdma_bytes = 0;
    conn->may_send = false;
}

/* The request as it goes on the wire, in hex, for tests that replay it. */
static void mca_btl_rwv_trace_cm (const mca_btl_rwv_conn_t *conn, const mca_btl_rwv_cm_data_t *cm)
{
    char hex[2 * sizeof (*cm) + 1];

    for (size_t i = 0 ; i < sizeof (*cm) ; ++i) {
        snprintf (hex + 2 * i, 3, "%02x", ((const unsigned char *) cm)[i]);
    }
    RWV_TRACE("btl/rwv: connection data to %s on %s: %s", OPAL_NAME_PRINT(conn->endpoint->proc->proc_name),
              conn->rail->name, hex);
}

void mca_btl_rwv_conn_start (mca_btl_rwv_conn_t *conn, bool first_large)
{
    mca_btl_rwv_endpoint_t *endpoint = conn->endpoint;
    int family, peer_rail = mca_btl_rwv_peer_rail_for (endpoint, conn->rail, &family);
    mca_btl_rwv_cm_data_t cm;

    mca_btl_rwv_conn_reset (conn);
    conn->family = family;
    conn->peer_ip = endpoint->peer_rails[peer_rail].ip[family];
    conn->peer_port = endpoint->peer_rails[peer_rail].port[family];
    conn->deadline = mca_btl_rwv_now () + mca_btl_rwv_component.connect_timeout;
    mca_btl_rwv_conn_set_state (conn, MCA_BTL_RWV_CONN_CONNECTING);
    RWV_TRACE("btl/rwv: connecting to %s on %s", OPAL_NAME_PRINT(endpoint->proc->proc_name), conn->rail->name);
    mca_btl_rwv_conn_fill_cm (conn, &cm);
    if (first_large) {
        cm.rail_flags |= MCA_BTL_RWV_CM_FIRST_LARGE;
    }
    cm.attempt = conn->attempt = ++mca_btl_rwv_component.module->next_attempt;
    mca_btl_rwv_auth_sign (&cm, endpoint->peer_secret, &(mca_btl_rwv_auth_ends_t) {
                               .to = endpoint->proc->proc_name, .from = conn->rail->addr.ip[family],
                               .to_ip = conn->peer_ip}, NULL);
    memcpy (conn->request_mac, cm.mac, sizeof (cm.mac));
    mca_btl_rwv_trace_cm (conn, &cm);
    if (OPAL_SUCCESS != conn->rail->ops->connect (conn->rail, conn, &cm, sizeof (cm))) {
        mca_btl_rwv_conn_failed (conn, "the connection could not be started");
    }
}

/* Refusals are counted; at most one line a second says how many and
 * why the last one was refused, naming where it came from. */
static void mca_btl_rwv_conn_refuse (mca_btl_rwv_rail_t *rail, void *request, const mca_btl_rwv_ip_t *src_ip,
                                     const char *why)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    double now = mca_btl_rwv_now ();
    char src[MCA_BTL_RWV_IP_STRLEN] = "an address the transport does not say";

    rail->ops->reject (rail, request);
    module->refused++;
    if (now < module->refusal_report_at) {
        return;
    }
    module->refusal_report_at = now + 1.0;
    if (NULL != src_ip) {
        mca_btl_rwv_ip_ntop (src_ip, src, sizeof (src));
    }
    opal_output_verbose (MCA_BASE_VERBOSE_WARN, opal_btl_base_framework.framework_output,
                         "btl/rwv: %s: refused a connection from %s: %s (%" PRIu64 " refused in all, %" PRIu64
                         " since the last report)", rail->name, src, why, module->refused,
                         module->refused - module->refused_reported);
    module->refused_reported = module->refused;
}

/* The peer's rail that published IP, -1 if none did. */
static int mca_btl_rwv_endpoint_rail_of (const mca_btl_rwv_endpoint_t *endpoint, const mca_btl_rwv_ip_t *ip)
{
    int family = mca_btl_rwv_ip_family (ip);

    for (int p = 0 ; p < endpoint->num_peer_rails ; ++p) {
        const mca_btl_rwv_rail_addr_t *addr = &endpoint->peer_rails[p];

        if (0 != addr->port[family] && mca_btl_rwv_ip_equal (&addr->ip[family], ip)) {
            return p;
        }
    }
    return -1;
}

/* The proof first, with our own secret alone: data that fails it
 * creates no state.  Then what btl/tcp checks: not our own name, a known
 * process, from one of its own addresses; then a fresh attempt. */
static const char *mca_btl_rwv_conn_request_refusal (mca_btl_rwv_rail_t *rail, const mca_btl_rwv_cm_data_t *cm,
                                                     const mca_btl_rwv_ip_t *src_ip,
                                                     mca_btl_rwv_endpoint_t **endpoint)
{
    opal_proc_t *proc;
    mca_btl_rwv_auth_ends_t ends = {.to = opal_proc_local_get ()->proc_name};

    if (NULL == cm) {
        return "malformed connection data";
    }
    if (NULL == src_ip || 0 == rail->addr.port[mca_btl_rwv_ip_family (src_ip)]) {
        return "it comes from an address the transport does not say, or of a family this rail does not listen on";
    }
    ends.from = *src_ip;
    ends.to_ip = rail->addr.ip[mca_btl_rwv_ip_family (src_ip)];
    if (!mca_btl_rwv_auth_check (cm, &ends, NULL)) {
        return "no proof of membership in this job (wrong MAC, or data replayed from another address)";
    }
    if (OPAL_EQUAL == opal_compare_proc (cm->name, ends.to)) {
        return "it claims to be this process";
    }
    if (NULL == (proc = opal_proc_for_name (cm->name)) ||
        NULL == (*endpoint = mca_btl_rwv_endpoint_lookup (proc, true))) {
        return "it names a process this one cannot reach";
    }
    if (mca_btl_rwv_endpoint_rail_of (*endpoint, src_ip) < 0) {
        return "it does not come from an address of the process it names";
    }
    if (cm->attempt <= (*endpoint)->peer_attempt[rail->index]) {
        return "connection data replayed (an old attempt)";
    }
    if ((*endpoint)->failed) {
        return "the process it names was given up";
    }
    if (!mca_btl_rwv_cm_notifies_alike (rail, cm)) {
        return mca_btl_rwv_cm_unalike;
    }
    return NULL;
}

void mca_btl_rwv_conn_request (mca_btl_rwv_rail_t *rail, void *request, const void *cm_data, size_t cm_len,
                               const mca_btl_rwv_ip_t *src_ip)
{
    const mca_btl_rwv_cm_data_t *cm = mca_btl_rwv_cm_check (cm_data, cm_len);
    mca_btl_rwv_endpoint_t *endpoint = NULL;
    mca_btl_rwv_conn_t *conn;
    mca_btl_rwv_cm_data_t reply;
    const char *refusal = mca_btl_rwv_conn_request_refusal (rail, cm, src_ip, &endpoint);

    if (NULL != refusal) {
        if (mca_btl_rwv_cm_unalike == refusal) {
            mca_btl_rwv_say_unalike (rail, endpoint);
        }
        mca_btl_rwv_conn_refuse (rail, request, src_ip, refusal);
        return;
    }
    if (mca_btl_rwv_cm_defer_request (rail, request, cm, src_ip, endpoint->conns[rail->index])) {
        return; /* failover is done with it first, in progress */
    }
    endpoint->peer_attempt[rail->index] = cm->attempt;
    conn = endpoint->conns[rail->index];
    /* a connection we started ourselves keeps the ring it has: its
     * peer's first message, if large, is read and its ring made warm then */
    if (NULL == conn &&
        NULL == (conn = mca_btl_rwv_conn_create (endpoint, rail, cm->rail_flags & MCA_BTL_RWV_CM_FIRST_LARGE))) {
        rail->ops->reject (rail, request);
        return;
    }
    RWV_TRACE("btl/rwv: connection request from %s on %s (state %d)", OPAL_NAME_PRINT(cm->name),
              rail->name, conn->state);

    switch (conn->state) {
    case MCA_BTL_RWV_CONN_CONNECTING:
        /* both sides started: the higher rank's attempt wins */
        if (opal_compare_proc (opal_proc_local_get ()->proc_name, cm->name) > 0) {
            rail->ops->reject (rail, request);
            return;
        }
        rail->ops->disconnect (conn);
        break;
    case MCA_BTL_RWV_CONN_FAILED:
        /* the peer re-establishes a failed rail: not before our failover
         * is done with it (it tries again later) */
        if (!mca_btl_rwv_conn_quiescent (conn)) {
            RWV_TRACE("btl/rwv: %s: not yet ready to re-establish the rail to %s", rail->name,
                      OPAL_NAME_PRINT(cm->name));
            rail->ops->reject (rail, request);
            return;
        }
        mca_btl_rwv_conn_rejoin_prepare (conn);
        break;
    case MCA_BTL_RWV_CONN_IDLE:
    case MCA_BTL_RWV_CONN_AWAITING:
        break;
    default:
        mca_btl_rwv_conn_refuse (rail, request, src_ip, "that process is connected on this rail already");
        return;
    }

    mca_btl_rwv_conn_reset (conn);
    mca_btl_rwv_conn_take_peer_cm (conn, cm);
    conn->attempt = cm->attempt;
    /* the family the request came in; the port for messages about it */
    conn->family = mca_btl_rwv_ip_family (src_ip);
    conn->peer_ip = *src_ip;
    conn->peer_port = endpoint->peer_rails[mca_btl_rwv_endpoint_rail_of (endpoint, src_ip)].port[conn->family];
    mca_btl_rwv_conn_set_state (conn, MCA_BTL_RWV_CONN_ACCEPTING);
    conn->deadline = mca_btl_rwv_now () + mca_btl_rwv_component.connect_timeout;
    mca_btl_rwv_conn_fill_cm (conn, &reply);
    reply.attempt = cm->attempt;
    mca_btl_rwv_auth_sign (&reply, endpoint->peer_secret, &(mca_btl_rwv_auth_ends_t) {
                               .to = endpoint->proc->proc_name, .from = rail->addr.ip[conn->family],
                               .to_ip = *src_ip}, cm->mac);
    if (OPAL_SUCCESS != rail->ops->accept (rail, conn, request, &reply, sizeof (reply))) {
        mca_btl_rwv_conn_failed (conn, "the connection request could not be accepted");
    }
}

/* The active side speaks first; what waited for the connection follows. */
void mca_btl_rwv_conn_speak (mca_btl_rwv_conn_t *conn)
{
    int rc;

    if (MCA_BTL_RWV_CONN_CONNECTED != conn->state || conn->may_send) {
        return; /* failed, or closed, since it was queued */
    }
    conn->may_send = true;
    rc = mca_btl_rwv_conn_hooks ()->ready (conn);
    if (OPAL_SUCCESS != rc) {
        char why[96];

        snprintf (why, sizeof (why), "the first message could not be sent (%s)", opal_strerror (rc));
        mca_btl_rwv_conn_failed (conn, why);
    }
}

void mca_btl_rwv_conn_established (mca_btl_rwv_conn_t *conn, const void *cm_data, size_t cm_len)
{
    if (mca_btl_rwv_cm_defer (conn, MCA_BTL_RWV_CM_ESTABLISHED, conn->replay.rejoining, cm_data, cm_len, NULL)) {
        return; /* a rail re-established: failover's */
    }
    if (opal_output_get_verbosity (opal_btl_base_framework.framework_output) >= MCA_BASE_VERBOSE_TRACE) {
        char peer[MCA_BTL_RWV_IP_STRLEN];

        RWV_TRACE("btl/rwv: connected to %s on %s (at %s) as the %s side",
                  OPAL_NAME_PRINT(conn->endpoint->proc->proc_name), conn->rail->name,
                  mca_btl_rwv_ip_ntop (&conn->peer_ip, peer, sizeof (peer)),
                  MCA_BTL_RWV_CONN_CONNECTING == conn->state ? "active" : "passive");
    }
    if (MCA_BTL_RWV_CONN_CONNECTING == conn->state) {
        const mca_btl_rwv_cm_data_t *cm = mca_btl_rwv_cm_check (cm_data, cm_len);
        mca_btl_rwv_auth_ends_t ends = {.to = opal_proc_local_get ()->proc_name,
                                        .from = conn->peer_ip, .to_ip = conn->rail->addr.ip[conn->family]};

        if (NULL == cm) {
            mca_btl_rwv_conn_failed (conn, "the peer answered with data this version does not understand");
            return;
        }
        if (!mca_btl_rwv_auth_check (cm, &ends, conn->request_mac) ||
            OPAL_EQUAL != opal_compare_proc (cm->name, conn->endpoint->proc->proc_name)) {
            mca_btl_rwv_conn_failed (conn, "the answer did not prove it came from the peer process");
            return;
        }
        if (!mca_btl_rwv_cm_notifies_alike (conn->rail, cm)) {
            mca_btl_rwv_conn_failed (conn, mca_btl_rwv_cm_unalike);
            return;
        }
        mca_btl_rwv_conn_take_peer_cm (conn, cm);
        mca_btl_rwv_conn_set_state (conn, MCA_BTL_RWV_CONN_CONNECTED);
        if (conn->replay.rejoining) {
            mca_btl_rwv_conn_rejoined (conn);
        }
        if (!mca_btl_rwv_cm_defer (conn, MCA_BTL_RWV_CM_SPEAK, true, NULL, 0, NULL)) {
            mca_btl_rwv_conn_speak (conn);
        }
    } else if (MCA_BTL_RWV_CONN_ACCEPTING == conn->state) {
        if (MCA_BTL_RWV_TEST_FAULT(MCA_BTL_RWV_TEST_FAULT_DROP_CONN, true)) {
            /* a live member that gives a connection up on its side */
            conn->rail->ops->disconnect (conn);
            mca_btl_rwv_conn_set_state (conn, MCA_BTL_RWV_CONN_IDLE);
            return;
        }
        /* wait for the active side's first message before sending */
        mca_btl_rwv_conn_set_state (conn, MCA_BTL_RWV_CONN_CONNECTED);
        if (conn->replay.rejoining) {
            mca_btl_rwv_conn_rejoined (conn);
        }
    }
}

const mca_btl_rwv_rail_events_t mca_btl_rwv_conn_events = {
    .request = mca_btl_rwv_conn_request,
    .established = mca_btl_rwv_conn_established,
    .refused = mca_btl_rwv_conn_refused,
    .failed = mca_btl_rwv_conn_failed,
    .closed = mca_btl_rwv_conn_closed,
    .remote_data = mca_btl_rwv_conn_remote_data,
    .notified = mca_btl_rwv_conn_notified,
};
