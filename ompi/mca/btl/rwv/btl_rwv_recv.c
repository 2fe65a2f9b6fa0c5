/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * The eager receive path: polling our ring for the peer's messages,
 * checking each before anything uses it, handing it to its handler, and
 * returning credits.
 *
 * Never trust the ring: the peer wrote it.  A length that does not fit
 * the slot, unknown flags, a tag nobody handles, a credit for messages we
 * never sent, a malformed split, replay or atomic header: the message is
 * not used, the user is told what came from which host, and the
 * connection is closed (the peer's other rails, if any, carry on, as for
 * a failed rail).
 */
#include "opal_config.h"

#include <arpa/inet.h>
#include <string.h>

#include "opal/sys/atomic.h"
#include "opal/util/show_help.h"

#include "btl_rwv.h"
#include "btl_rwv_endpoint.h"
#include "btl_rwv_frag.h"
#include "btl_rwv_recv.h"
#include "btl_rwv_atomic.h"
#include "btl_rwv_eager_stripe.h"
#include "btl_rwv_failover.h"
#include "btl_rwv_send.h"

#define HDR_SIZE sizeof (mca_btl_rwv_eager_hdr_t)

/* Once per connection: what was wrong, naming the peer, then the close. */
void mca_btl_rwv_conn_malformed (mca_btl_rwv_conn_t *conn, const char *what)
{
    mca_btl_rwv_endpoint_t *endpoint = conn->endpoint;

    if (MCA_BTL_RWV_CONN_FAILED == conn->state) {
        return;
    }
    opal_show_help ("help-mpi-btl-rwv.txt", "malformed message", true, OPAL_PROC_MY_HOSTNAME,
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
    opal_show_help ("help-mpi-btl-rwv.txt", "refused access", true, OPAL_PROC_MY_HOSTNAME,
                    mca_btl_rwv_peer_host (endpoint), OPAL_NAME_PRINT(endpoint->proc->proc_name),
                    conn->rail->name, detail);
}

/* The upcall: the PML (or osc/rdma) handles what arrived for TAG. */
void mca_btl_rwv_deliver (mca_btl_rwv_endpoint_t *endpoint, mca_btl_base_tag_t tag, void *payload, size_t len)
{
    rwv_compat_btl_deliver (&mca_btl_rwv_component.module->super, endpoint, tag, payload, len);
}

/* Tags rwv handles itself rather than passing up. */
static inline bool mca_btl_rwv_tag_is_ours (uint8_t tag)
{
    return MCA_BTL_RWV_TAG_ATOMIC == tag || MCA_BTL_RWV_TAG_ATOMIC_REPLY == tag;
}

/* What is wrong with this arrival, or NULL. */
static const char *mca_btl_rwv_arrival_problem (const mca_btl_rwv_conn_t *conn, const mca_btl_rwv_eager_hdr_t *hdr)
{
    const uint8_t known = MCA_BTL_RWV_HDR_FLAG_HELLO | MCA_BTL_RWV_HDR_FLAG_REPLAY | MCA_BTL_RWV_HDR_FLAG_STRIPE;

    if (hdr->len > mca_btl_rwv_max_payload ()) {
        return "a message longer than a ring slot";
    }
    if (hdr->flags & ~known) {
        return "a message with flags this version does not know";
    }
    if (hdr->consumed > conn->peer.send_seq) {
        return "a credit for messages never sent to it";
    }
    if ((hdr->flags & MCA_BTL_RWV_HDR_FLAG_REPLAY) && hdr->replay_rail >= MCA_BTL_RWV_MAX_RAILS) {
        return "the replay of a message from a rail that does not exist";
    }
    if (!(hdr->flags & MCA_BTL_RWV_HDR_FLAG_HELLO) && !mca_btl_rwv_tag_is_ours (hdr->tag) &&
        NULL == mca_btl_base_active_message_trigger[hdr->tag].cbfunc) {
        return "a message for a tag nobody here handles";
    }
    return NULL;
}

static void mca_btl_rwv_return_credits (mca_btl_rwv_conn_t *conn)
{
    uint64_t raddr = conn->peer.tail_raddr + MCA_BTL_RWV_TAIL_CREDITS * sizeof (uint64_t);

    if (conn->local.recv_seq - conn->local.credits_reported < (uint64_t) mca_btl_rwv_component.eager_slots / 2 ||
        !mca_btl_rwv_conn_ready (conn)) {
        return;
    }
    if (OPAL_SUCCESS == mca_btl_rwv_ring_inject (conn, &conn->local.recv_seq, sizeof (conn->local.recv_seq), raddr, false, 0)) {
        conn->local.credits_reported = conn->local.recv_seq;
    }
}

static mca_btl_rwv_eager_hdr_t *mca_btl_rwv_next_arrival (mca_btl_rwv_conn_t *conn)
{
    size_t slot_size = (size_t) mca_btl_rwv_component.eager_slot_size;
    mca_btl_rwv_eager_hdr_t *hdr = (mca_btl_rwv_eager_hdr_t *) (conn->local.ring + ((size_t) conn->local.next_slot + 1) *
                                                                                     slot_size - HDR_SIZE);

    if (conn->local.notify_imm ? conn->local.imm_seen <= conn->local.recv_seq
                         : ((volatile mca_btl_rwv_eager_hdr_t *) hdr)->seq != conn->local.recv_seq + 1) {
        return NULL;
    }
    opal_atomic_rmb ();
    return hdr;
}

/* Hand one arrival to the PML, unless it is a connection opener or the
 * replay of a message already consumed from the rail that failed.
 * Returns what was wrong with it, or NULL. */
static const char *mca_btl_rwv_conn_consume (mca_btl_rwv_conn_t *conn, const mca_btl_rwv_eager_hdr_t *hdr)
{
    unsigned char *payload = (unsigned char *) hdr - MCA_BTL_RWV_PAD8(hdr->len);
    const char *problem = mca_btl_rwv_arrival_problem (conn, hdr);
    bool duplicate = false;

    if (NULL == problem && (hdr->flags & MCA_BTL_RWV_HDR_FLAG_REPLAY)) {
        problem = mca_btl_rwv_replay_check (conn, hdr->replay_rail, hdr->replay_attempt, hdr->replay_seq, &duplicate);
    }
    if (NULL != problem || duplicate || (hdr->flags & MCA_BTL_RWV_HDR_FLAG_HELLO)) {
        return problem;
    }
    if (mca_btl_rwv_tag_is_ours (hdr->tag)) {
        return mca_btl_rwv_atomic_receive (conn, hdr->tag, payload, hdr->len);
    }
    if (hdr->flags & MCA_BTL_RWV_HDR_FLAG_STRIPE) {
        return mca_btl_rwv_eager_stripe_receive (conn->endpoint, hdr->tag, payload, hdr->len);
    }
    mca_btl_rwv_deliver (conn->endpoint, hdr->tag, payload, hdr->len);
    return NULL;
}

/* Deliver what arrived.  Only the progressing thread gets here (see
 * mca_btl_rwv_progress), so nobody else reads this ring; the state lock is
 * dropped around each upcall.  A slot counts as consumed, and is credited
 * to the peer, only once its upcall has returned. */
int mca_btl_rwv_conn_poll_ring (mca_btl_rwv_conn_t *conn)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    mca_btl_rwv_eager_hdr_t *hdr;
    int count = 0;

    while (NULL != (hdr = mca_btl_rwv_next_arrival (conn))) {
        const char *problem;

        MCA_BTL_RWV_LOCK(module);
        conn->may_send = true;
        if (hdr->consumed > conn->peer.consumed && hdr->consumed <= conn->peer.send_seq) {
            conn->peer.consumed = hdr->consumed;
            if (!opal_list_is_empty (&conn->replay.unacked)) {
                mca_btl_rwv_conn_release_acked (conn);
            }
        }
        MCA_BTL_RWV_UNLOCK(module);
        problem = mca_btl_rwv_conn_consume (conn, hdr);
        MCA_BTL_RWV_LOCK(module);
        if (NULL != problem) {
            mca_btl_rwv_conn_malformed (conn, problem);
            MCA_BTL_RWV_UNLOCK(module);
            return count;
        }
        conn->local.recv_seq++;
        conn->local.next_slot = conn->local.next_slot + 1 == (uint32_t) mca_btl_rwv_component.eager_slots ? 0
                                                                                                   : conn->local.next_slot + 1;
        MCA_BTL_RWV_UNLOCK(module);
        ++count;
    }
    /* credits may also have come as a write into our credit word */
    if (count || !opal_list_is_empty (&conn->pending)) {
        MCA_BTL_RWV_LOCK(module);
        if (count) {
            mca_btl_rwv_return_credits (conn);
        }
        mca_btl_rwv_conn_flush_pending (conn);
        MCA_BTL_RWV_UNLOCK(module);
    }
    return count;
}
