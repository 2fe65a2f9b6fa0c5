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
 */
#include "opal_config.h"

#include <arpa/inet.h>
#include <stdlib.h>

#include "opal/util/show_help.h"

#include "opal/mca/btl/base/base.h"
#include "opal/util/output.h"

#include "btl_rwv.h"
#include "btl_rwv_endpoint.h"
#include "btl_rwv_frag.h"
#include "btl_rwv_handshake.h"
#include "btl_rwv_failover.h"
#include "btl_rwv_rdma.h"
#include "btl_rwv_send.h"

#define MCA_BTL_RWV_LINK_CHECK_INTERVAL 0.1 /* seconds */
#define MCA_BTL_RWV_REPORT_DELAY 0.5        /* seconds: see failed_why in btl_rwv_conn.h */

void mca_btl_rwv_conn_release_acked (mca_btl_rwv_conn_t *conn)
{
    while (!opal_list_is_empty (&conn->replay.unacked)) {
        mca_btl_rwv_frag_t *frag = (mca_btl_rwv_frag_t *) opal_list_get_first (&conn->replay.unacked);

        if (frag->seq > conn->peer.consumed) {
            return;
        }
        /* consumed, so what went before it on this stream has landed */
        mca_btl_rwv_conn_confirm_puts (conn, frag->puts_before + 1);
        opal_list_remove_first (&conn->replay.unacked);
        mca_btl_rwv_frag_drop (frag, &frag->retained);
    }
}

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

/* Fail the connections on RAIL, all of them or only those whose peer
 * has another live rail to carry on. */
static void mca_btl_rwv_rail_fail_conns (mca_btl_rwv_rail_t *rail, bool all,
                                         const char *why)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    int size = opal_pointer_array_get_size (&module->conns);

    for (int i = 0 ; i < size ; ++i) {
        mca_btl_rwv_conn_t *conn = opal_pointer_array_get_item (&module->conns, i);

        if (NULL != conn && conn->rail == rail && MCA_BTL_RWV_CONN_FAILED != conn->state &&
            (all || mca_btl_rwv_endpoint_has_live_rail (conn->endpoint, conn))) {
            mca_btl_rwv_conn_failed (conn, why);
        }
    }
}

/* The link went down.  Peers with another rail move to it at once (the
 * failover replays what was in flight).  A peer with no other rail keeps
 * its connection: the kernel's TCP (or the HCA's retries) holds what was
 * sent, and a link back within btl_rwv_rail_down_timeout loses nothing,
 * as over btl/tcp.  Past that the rail is given up. */
static void mca_btl_rwv_rail_link_lost (mca_btl_rwv_rail_t *rail, double now)
{
    char why[96];

    snprintf (why, sizeof (why), "the link of interface %s went down", rail->ifname);
    rail->link_lost_at = now;
    opal_output_verbose (MCA_BASE_VERBOSE_WARN, opal_btl_base_framework.framework_output,
                         "btl/rwv: %s: the link went down; peers with no other rail wait up to %d s "
                         "(btl_rwv_rail_down_timeout) for it to come back", rail->name,
                         mca_btl_rwv_component.rail_down_timeout);
    mca_btl_rwv_rail_fail_conns (rail, mca_btl_rwv_component.rail_down_timeout <= 0, why);
    rail->down = mca_btl_rwv_component.rail_down_timeout <= 0;
}

static void mca_btl_rwv_rail_given_up (mca_btl_rwv_rail_t *rail)
{
    char why[128];

    snprintf (why, sizeof (why), "the link of interface %s went down and did not come back within %d s",
              rail->ifname, mca_btl_rwv_component.rail_down_timeout);
    rail->down = true;
    mca_btl_rwv_rail_fail_conns (rail, true, why);
}

void mca_btl_rwv_report_lost_rails (double now)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    int size = opal_pointer_array_get_size (&module->conns);

    for (int i = 0 ; i < size && module->reports_pending > 0 ; ++i) {
        mca_btl_rwv_conn_t *conn = opal_pointer_array_get_item (&module->conns, i);
        mca_btl_rwv_endpoint_t *endpoint;

        if (NULL == conn || 0 == conn->replay.warn_at || now < conn->replay.warn_at) {
            continue;
        }
        conn->replay.warn_at = 0;
        module->reports_pending--;
        endpoint = conn->endpoint;
        if (!endpoint->failed) {
            rwv_show_help ("help-mpi-btl-rwv.txt", "rail failed", true, OPAL_PROC_MY_HOSTNAME,
                           conn->replay.failed_peer, conn->replay.failed_name, conn->rail->name, conn->replay.failed_why, mca_btl_rwv_endpoint_live_rails (endpoint, NULL));
        }
    }
}

/* A rail whose link comes back within btl_rwv_rail_down_timeout carries
 * on with the connections it kept and serves new peers; peers that moved
 * to other rails come back to it (mca_btl_rwv_conn_may_rejoin). */
void mca_btl_rwv_check_links (double now)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;

    /* progress calls this only while a rail has a connection: a job that
     * never used rwv pays no ioctl for it */
    if (now < module->next_link_check) {
        return;
    }
    module->next_link_check = now + MCA_BTL_RWV_LINK_CHECK_INTERVAL;
    for (int r = 0 ; r < module->num_rails ; ++r) {
        mca_btl_rwv_rail_t *rail = module->rails[r];
        bool up = rail->ops->link_up (rail);

        if (!up && 0 == rail->link_lost_at) {
            mca_btl_rwv_rail_link_lost (rail, now);
        } else if (!up && !rail->down && now - rail->link_lost_at >= mca_btl_rwv_component.rail_down_timeout) {
            mca_btl_rwv_rail_given_up (rail);
        } else if (up && 0 != rail->link_lost_at) {
            opal_output_verbose (MCA_BASE_VERBOSE_WARN, opal_btl_base_framework.framework_output,
                                 "btl/rwv: %s: the link is back after %.1f s", rail->name, now - rail->link_lost_at);
            rail->link_lost_at = 0;
            rail->down = false;
        }
    }
}

/* Nothing of the failed connection is left on our side (and it was not
 * closed for a malformed message, which is for good): no queued,
 * unconsumed or in-flight message, no put/get piece, no unconfirmed small
 * put (failover has handed them all to other rails, and the transport has
 * given back what it held). */
bool mca_btl_rwv_conn_quiescent (mca_btl_rwv_conn_t *conn)
{
    return !conn->replay.no_rejoin && opal_list_is_empty (&conn->pending) && opal_list_is_empty (&conn->replay.unacked) &&
           opal_list_is_empty (&conn->kept_puts) && 0 == conn->pieces_out;
}

/* Only the higher rank re-establishes a rail, the side that wins when
 * both connect at once: no attempt is made only to be refused. */
/* Asked on every send that meets a failed rail: the flags first, the
 * clock only when they allow it. */
bool mca_btl_rwv_conn_may_rejoin (mca_btl_rwv_conn_t *conn)
{
    const mca_btl_rwv_rail_t *rail = conn->rail;

    return MCA_BTL_RWV_CONN_FAILED == conn->state && !conn->replay.no_rejoin && !conn->endpoint->failed &&
           conn->endpoint->num_rails > 1 && !rail->down && 0 == rail->link_lost_at &&
           opal_compare_proc (opal_proc_local_get ()->proc_name, conn->endpoint->proc->proc_name) > 0 &&
           mca_btl_rwv_now () >= conn->replay.rejoin_at && mca_btl_rwv_conn_quiescent (conn);
}

/* The failed connection's replay record moves aside for the new one. */
void mca_btl_rwv_conn_rejoin_prepare (mca_btl_rwv_conn_t *conn)
{
    free (conn->replay.before.seen);
    conn->replay.before = (mca_btl_rwv_replay_window_t) {.attempt = conn->attempt, .recv_seq = conn->local.recv_seq,
                                                  .seen = conn->replay.seen};
    conn->replay.seen = NULL;
    conn->replay.rejoining = true;
}

/* Each failure waits twice as long as the one before to rejoin (1 s to
 * 64 s), so a rail whose link is up but that cannot connect costs an
 * attempt a minute at most. */
void mca_btl_rwv_conn_rejoin_later (mca_btl_rwv_conn_t *conn)
{
    conn->replay.rejoin_backoff = conn->replay.rejoin_backoff <= 0 ? 1.0 : conn->replay.rejoin_backoff >= 32.0 ? 64.0 : 2 * conn->replay.rejoin_backoff;
    conn->replay.rejoin_at = mca_btl_rwv_now () + conn->replay.rejoin_backoff;
}

void mca_btl_rwv_conn_rejoined (mca_btl_rwv_conn_t *conn)
{
    conn->replay.rejoining = false;
    conn->replay.rejoin_backoff = 0;
    conn->replay.rejoins++;
    opal_output_verbose (MCA_BASE_VERBOSE_WARN, opal_btl_base_framework.framework_output,
                         "btl/rwv: %s: the rail to %s (%s) is re-established", conn->rail->name,
                         mca_btl_rwv_peer_host (conn->endpoint), OPAL_NAME_PRINT(conn->endpoint->proc->proc_name));
}
