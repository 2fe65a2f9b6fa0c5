/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Failover: a rail that fails to one peer hands its traffic to the peer's
 * other rails, and no message is lost or delivered twice.
 *
 * A rail fails for a peer when its link goes down (checked every
 * 100 ms from progress), when its connection reports an error or is
 * closed, or when an operation on it completes with an error.  Closing the
 * failed connection makes the provider complete everything still queued
 * on it with an error; each of those comes back here.
 *
 *   queued messages    never left: they go out on another rail
 *   eager messages     kept (conn->replay.unacked) until the peer reports it has
 *                      consumed them; those it may not have consumed are
 *                      sent again on another rail marked REPLAY with the
 *                      rail they were first written on and their sequence
 *                      number there (a replay replayed again keeps them).
 *                      The receiver stops reading that rail's ring at the
 *                      first replay naming it, and drops a replay it
 *                      consumed from that ring or already delivered as a
 *                      replay: each message is delivered exactly once.
 *   put/get pieces     posted again on another rail (btl_rwv_stripe.c):
 *                      writing or reading the same bytes twice is harmless;
 *                      so are small puts injected and not yet confirmed
 *                      (btl_rwv_rdma.c), from their copies
 *
 * When the last rail to a peer fails, the peer is reported to the PML as
 * unreachable (btl_rwv_conn.c).
 *
 * A failed rail rejoins: once its link is up and nothing of the failed
 * connection is left on our side (no queued, unconsumed or in-flight
 * message, no put/get piece, no unconfirmed small put), the next traffic
 * to the peer starts a new connection on it in the background, retried
 * with a doubling delay.  Replays name the connection they were first
 * written on (its attempt number), so the receiver keeps the failed one's
 * record beside the new connection for the replays still on their way.
 * Layer: protocol (docs/layout.md).
 */
#include "opal_config.h"

#include <arpa/inet.h>
#include <stdlib.h>

#include "opal/util/show_help.h"

#include "opal/mca/btl/base/base.h"
#include "opal/util/output.h"

#include "btl_rwv.h"
#include "btl_rwv_endpoint.h"
#include "btl_rwv_peer.h"
#include "btl_rwv_frag.h"
#include "btl_rwv_atomic.h"
#include "btl_rwv_fetch.h"
#include "btl_rwv_send_ring.h"
#include "btl_rwv_handshake.h"
#include "btl_rwv_hotset.h"
#include "btl_rwv_failover.h"
#include "btl_rwv_rdma.h"
#include "btl_rwv_recv.h"
#include "btl_rwv_send.h"

#define MCA_BTL_RWV_REPORT_DELAY 0.5        /* seconds: see failed_why in btl_rwv_conn.h */

/* Send `frag' again on another rail, marked so the peer can drop it if it
 * had consumed it from the failed rail after all. */
static void mca_btl_rwv_replay (mca_btl_rwv_frag_t *frag)
{
    mca_btl_rwv_conn_t *failed = frag->conn;

    if (frag->retained) {
        opal_list_remove_item (&failed->replay.unacked, &frag->base.super.super);
        frag->retained = false;
    }
    if (!(frag->hdr_flags & MCA_BTL_RWV_HDR_FLAG_REPLAY)) {
        frag->hdr_flags |= MCA_BTL_RWV_HDR_FLAG_REPLAY;
        frag->replay_rail = failed->peer.rail;
        frag->replay_attempt = failed->attempt;
        frag->replay_seq = frag->seq;
    }
    if (OPAL_SUCCESS != mca_btl_rwv_endpoint_send_frag (failed->endpoint, frag)) {
        mca_btl_rwv_frag_complete (frag, OPAL_ERR_UNREACH);
    }
}

bool mca_btl_rwv_frag_failover (mca_btl_rwv_frag_t *frag, int status)
{
    mca_btl_rwv_conn_t *conn = frag->conn;
    bool replayed = false;

    MCA_BTL_RWV_LOCK(mca_btl_rwv_component.module);
    if (MCA_BTL_RWV_CONN_FAILED != conn->state) {
        /* still in flight for this call, so that the rail's own replay skips it */
        if (OPAL_ERR_CONNECTION_FAILED == status && !mca_btl_rwv_conn_peer_said_goodbye (conn)) {
            mca_btl_rwv_conn_vanished (conn);
        } else {
            mca_btl_rwv_conn_failed (conn, "a write on this rail failed");
        }
    }
    /* only a kept frag can be replayed, and only to a peer still reachable;
     * otherwise the frag stays in flight until its completion is handled */
    if (frag->retained && !conn->endpoint->failed && frag->seq > conn->peer.consumed) {
        frag->in_flight = false;
        mca_btl_rwv_replay (frag);
        replayed = true;
    }
    MCA_BTL_RWV_UNLOCK(mca_btl_rwv_component.module);
    return replayed;
}

/* A frag's ring write completed (op->complete, set by mca_btl_rwv_frag_init). */
void mca_btl_rwv_frag_write_complete (mca_btl_rwv_op_t *op, int status)
{
    mca_btl_rwv_frag_t *frag = mca_btl_rwv_frag_of_op (op);

    /* a write that failed, or completed on a rail that failed since, may be replayed elsewhere */
    if (NULL != frag->conn && (OPAL_SUCCESS != status || MCA_BTL_RWV_CONN_FAILED == frag->conn->state) &&
        mca_btl_rwv_frag_failover (frag, status)) {
        return; /* replayed on another rail */
    }
    mca_btl_rwv_frag_notify (frag, status);
    mca_btl_rwv_frag_drop (frag, &frag->in_flight);
}

/* Called by mca_btl_rwv_conn_failed once `conn' is closed, when the peer
 * has another live rail. */
void mca_btl_rwv_rail_failed (mca_btl_rwv_conn_t *conn, const char *why)
{
    mca_btl_rwv_endpoint_t *endpoint = conn->endpoint;
    mca_btl_rwv_frag_t *frag, *next;
    opal_list_t queued;

    snprintf (conn->replay.failed_why, sizeof (conn->replay.failed_why), "%s", why);
    snprintf (conn->replay.failed_peer, sizeof (conn->replay.failed_peer), "%s", mca_btl_rwv_peer_host (endpoint));
    snprintf (conn->replay.failed_name, sizeof (conn->replay.failed_name), "%s",
              OPAL_NAME_PRINT(endpoint->proc->proc_name));
    conn->replay.warn_at = mca_btl_rwv_now () + MCA_BTL_RWV_REPORT_DELAY;
    mca_btl_rwv_component.module->reports_pending++;

    /* what never left: off this connection first, so none comes back to it */
    OBJ_CONSTRUCT(&queued, opal_list_t);
    opal_list_join (&queued, opal_list_get_end (&queued), &conn->pending);
    while (NULL != (frag = (mca_btl_rwv_frag_t *) opal_list_remove_first (&queued))) {
        if (mca_btl_rwv_frag_stays_on_conn (frag) || OPAL_SUCCESS != mca_btl_rwv_endpoint_send_frag (endpoint, frag)) {
            mca_btl_rwv_frag_complete (frag, OPAL_ERR_UNREACH);
        }
    }
    OBJ_DESTRUCT(&queued);

    mca_btl_rwv_conn_repost_puts (conn);

    /* what the peer may not have consumed; frags still in the transport
     * come back with an error and are replayed from mca_btl_rwv_frag_failover */
    mca_btl_rwv_conn_release_acked (conn);
    OPAL_LIST_FOREACH_SAFE(frag, next, &conn->replay.unacked, mca_btl_rwv_frag_t) {
        if (!frag->in_flight) {
            mca_btl_rwv_replay (frag);
        }
    }
}

/* Consumed from the ring (up to RECV_SEQ), or delivered as a replay
 * before (and noted now in *SEEN).  A replay names its sequence number by
 * its low 32 bits: the whole one lies within a ring's worth of recv_seq. */
static bool mca_btl_rwv_replay_seen (uint64_t recv_seq, uint8_t **seen, uint32_t seq_low)
{
    uint64_t seq = recv_seq + (uint64_t) (int64_t) (int32_t) (seq_low - (uint32_t) recv_seq);
    uint64_t bit = seq - recv_seq - 1;
    size_t slots = (size_t) mca_btl_rwv_component.eager_slots;

    if (seq <= recv_seq) {
        return true;
    }
    if (NULL == *seen && NULL == (*seen = calloc ((slots + 7) / 8, 1))) {
        return false;
    }
    if (bit >= slots || ((*seen)[bit / 8] & (1u << (bit % 8)))) {
        return bit < slots;
    }
    (*seen)[bit / 8] |= (uint8_t) (1u << (bit % 8));
    return false;
}

const char *mca_btl_rwv_replay_check (mca_btl_rwv_conn_t *conn, uint8_t rail, uint32_t attempt, uint32_t seq,
                                      bool *duplicate)
{
    mca_btl_rwv_conn_t *failed = rail < MCA_BTL_RWV_MAX_RAILS ? conn->endpoint->conns[rail] : NULL;
    const char *problem = NULL;

    MCA_BTL_RWV_LOCK(mca_btl_rwv_component.module);
    if (NULL != failed && 0 != attempt && attempt == failed->attempt) {
        /* stop reading its ring first: from here on each of its messages is
         * delivered from the ring (up to recv_seq) or from a replay, never both */
        if (MCA_BTL_RWV_CONN_FAILED != failed->state) {
            mca_btl_rwv_conn_failed (failed, "the peer reported that this rail failed");
        }
        *duplicate = mca_btl_rwv_replay_seen (failed->local.recv_seq, &failed->replay.seen, seq);
    } else if (NULL != failed && 0 != attempt && attempt == failed->replay.before.attempt) {
        *duplicate = mca_btl_rwv_replay_seen (failed->replay.before.recv_seq, &failed->replay.before.seen, seq);
    } else {
        /* a member's replays name one of the two; a third could only be a
         * replay held back across two failures of the rail, never seen */
        problem = "the replay of a message from a connection this process does not know";
    }
    MCA_BTL_RWV_UNLOCK(mca_btl_rwv_component.module);
    return problem;
}

/* ------------------------------------------------------------ hooks */

/* The active side's first message, then what waited for the connection. */
static int rwv_proto_ready (mca_btl_rwv_conn_t *conn)
{
    int rc = mca_btl_rwv_conn_send_hello (conn);

    if (OPAL_SUCCESS == rc) {
        mca_btl_rwv_conn_flush_pending (conn);
    }
    return rc;
}

static void rwv_proto_drop_shared (mca_btl_rwv_conn_t *conn)
{
    mca_btl_rwv_hotset_release (conn);
    mca_btl_rwv_fetch_done (conn);
    mca_btl_rwv_send_ring_release (conn);
}

static void rwv_proto_peer_lost (mca_btl_rwv_conn_t *conn)
{
    mca_btl_rwv_conn_fail_pending (conn, OPAL_ERR_UNREACH);
    mca_btl_rwv_atomics_fail (conn->endpoint);
}

static void rwv_proto_release (mca_btl_rwv_conn_t *conn)
{
    mca_btl_rwv_conn_fail_pending (conn, OPAL_ERR_UNREACH);
    conn->peer.consumed = conn->peer.send_seq; /* nothing is replayed any more */
    mca_btl_rwv_conn_release_acked (conn);
    mca_btl_rwv_conn_confirm_puts (conn, UINT64_MAX);
}

const mca_btl_rwv_conn_hooks_t mca_btl_rwv_proto_hooks = {
    .ready = rwv_proto_ready,
    .drop_shared = rwv_proto_drop_shared,
    .rail_lost = mca_btl_rwv_rail_failed,
    .peer_lost = rwv_proto_peer_lost,
    .release = rwv_proto_release,
    .serve = mca_btl_rwv_conn_serve_ring,
};
