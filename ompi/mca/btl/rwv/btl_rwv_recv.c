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
 * Layer: protocol (docs/layout.md).
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
#include "btl_rwv_cm_thread.h"
#include "btl_rwv_eager_stripe.h"
#include "btl_rwv_failover.h"
#include "btl_rwv_fetch.h"
#include "btl_rwv_hotset.h"
#include "btl_rwv_send.h"
#include "btl_rwv_ring.h"

#define HDR_SIZE sizeof (mca_btl_rwv_eager_hdr_t)

/* Tags rwv handles itself rather than passing up. */
static inline bool mca_btl_rwv_tag_is_ours (uint8_t tag)
{
    return MCA_BTL_RWV_TAG_ATOMIC == tag || MCA_BTL_RWV_TAG_ATOMIC_REPLY == tag || MCA_BTL_RWV_TAG_RING == tag;
}

/* What is wrong with this arrival, or NULL.  It came in a slot of cur,
 * which is never larger than a large ring's: so neither is the message. */
static inline const char *mca_btl_rwv_arrival_problem (const mca_btl_rwv_conn_t *conn,
                                                       const mca_btl_rwv_eager_hdr_t *hdr)
{
    const uint8_t known = MCA_BTL_RWV_HDR_FLAG_HELLO | MCA_BTL_RWV_HDR_FLAG_REPLAY | MCA_BTL_RWV_HDR_FLAG_STRIPE |
        MCA_BTL_RWV_HDR_FLAG_FETCH | MCA_BTL_RWV_HDR_FLAG_HEAD_LAST;
    const uint8_t head_last_excludes = MCA_BTL_RWV_HDR_FLAG_HELLO | MCA_BTL_RWV_HDR_FLAG_STRIPE |
        MCA_BTL_RWV_HDR_FLAG_FETCH;

    if (MCA_BTL_RWV_PAD8((size_t) hdr->len) + HDR_SIZE > conn->local.cur.slot_size) {
        return "a message longer than a ring slot";
    }
    if (hdr->flags & ~known) {
        return "a message with flags this version does not know";
    }
    if ((hdr->flags & MCA_BTL_RWV_HDR_FLAG_HEAD_LAST) &&
        ((hdr->flags & head_last_excludes) || 0 == hdr->head_len || hdr->head_len > hdr->len ||
         mca_btl_rwv_tag_is_ours (hdr->tag) ||
         mca_btl_rwv_head_last_span (hdr->len, hdr->head_len) + HDR_SIZE > conn->local.cur.slot_size)) {
        return "a message with its header after the data, described wrongly";
    }
    if ((hdr->flags & MCA_BTL_RWV_HDR_FLAG_FETCH) && hdr->len != sizeof (mca_btl_rwv_fetch_hdr_t)) {
        return "a message to be read, described wrongly";
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

/* Credits go back after half the slots of the smaller ring the peer may
 * be writing into: a sender moved to a smaller ring with more in flight
 * than it holds waits for them. */
static uint64_t mca_btl_rwv_credit_batch (const mca_btl_rwv_conn_t *conn)
{
    uint32_t slots = conn->local.cur.slots;

    if (NULL != conn->local.next.base && conn->local.next.slots < slots) {
        slots = conn->local.next.slots;
    }
    return slots / 2;
}

/* NOW: a message we read from the peer was consumed; its sender (and the
 * PML behind it) waits for exactly this credit. */
static void mca_btl_rwv_return_credits (mca_btl_rwv_conn_t *conn, bool now)
{
    uint64_t unreported = conn->local.recv_seq - conn->local.credits_reported;

    if (0 == unreported || (!now && unreported < mca_btl_rwv_credit_batch (conn)) || !mca_btl_rwv_conn_ready (conn)) {
        return;
    }
    if (OPAL_SUCCESS == mca_btl_rwv_tail_inject (conn, MCA_BTL_RWV_TAIL_CREDITS, &conn->local.recv_seq)) {
        conn->local.credits_reported = conn->local.recv_seq;
        if (NULL == conn->peer.ring) {
            mca_btl_rwv_count (MCA_BTL_RWV_COUNT_CREDITS);
        }
    }
}

/* The message after recv_seq, if it has landed in RING at SLOT: its
 * sequence word says so, and on a ring written with immediate data so
 * does a completion not yet used (the word may land before the payload).
 * A word the connection thread may have been copying in meanwhile is
 * looked at again next time (mca_btl_rwv_cm_quiet). */
static inline mca_btl_rwv_eager_hdr_t *mca_btl_rwv_landed (const mca_btl_rwv_conn_t *conn,
                                                           const mca_btl_rwv_slots_t *ring, uint32_t slot)
{
    mca_btl_rwv_eager_hdr_t *hdr = (mca_btl_rwv_eager_hdr_t *) (ring->base + ((size_t) slot + 1) * ring->slot_size) - 1;
    uint32_t looks = mca_btl_rwv_cm_looks (mca_btl_rwv_component.module);

    if ((ring->notify_imm && conn->local.imm_seen == conn->local.imm_used) ||
        ((volatile mca_btl_rwv_eager_hdr_t *) hdr)->seq != conn->local.recv_seq + 1 ||
        !mca_btl_rwv_cm_quiet (mca_btl_rwv_component.module, looks)) {
        return NULL;
    }
    return hdr;
}

/* The next message: in the ring the peer writes into, or, once it has
 * taken our RING message, in the one that named, which takes over
 * (btl_rwv_hotset.c).  Sequence numbers run on across rings, so the next
 * one is in exactly one of them. */
static mca_btl_rwv_eager_hdr_t *mca_btl_rwv_next_arrival (mca_btl_rwv_conn_t *conn)
{
    mca_btl_rwv_eager_hdr_t *hdr = mca_btl_rwv_landed (conn, &conn->local.cur, conn->local.next_slot);

    if (NULL != hdr || NULL == conn->local.next.base ||
        NULL == (hdr = mca_btl_rwv_landed (conn, &conn->local.next, 0))) {
        return hdr;
    }
    mca_btl_rwv_pass_lock (mca_btl_rwv_component.module);
    mca_btl_rwv_hotset_switched (conn);
    mca_btl_rwv_pass_unlock (mca_btl_rwv_component.module);
    return hdr;
}

/* Hand one arrival (PAYLOAD, LEN: in its slot, or read from the peer) to
 * the PML, unless it is a connection opener or the replay of a message
 * already consumed from the rail that failed.  Returns what was wrong
 * with it, or NULL. */
static const char *mca_btl_rwv_conn_consume (mca_btl_rwv_conn_t *conn, const mca_btl_rwv_eager_hdr_t *hdr,
                                             void *payload, size_t len)
{
    bool duplicate = false;
    const char *problem = NULL;

    if (hdr->flags & MCA_BTL_RWV_HDR_FLAG_REPLAY) {
        problem = mca_btl_rwv_replay_check (conn, hdr->replay_rail, hdr->replay_attempt, hdr->replay_seq, &duplicate);
    }
    if (NULL != problem || duplicate || (hdr->flags & MCA_BTL_RWV_HDR_FLAG_HELLO)) {
        return problem;
    }
    if (MCA_BTL_RWV_TAG_RING == hdr->tag) {
        return (hdr->flags & MCA_BTL_RWV_HDR_FLAG_REPLAY) ? "a ring change replayed from another rail" :
            mca_btl_rwv_hotset_receive (conn, payload, len);
    }
    if (mca_btl_rwv_tag_is_ours (hdr->tag)) {
        return mca_btl_rwv_atomic_receive (conn, hdr->tag, payload, len);
    }
    if (hdr->flags & MCA_BTL_RWV_HDR_FLAG_STRIPE) {
        return mca_btl_rwv_eager_stripe_receive (conn->endpoint, hdr->tag, payload, len);
    }
    mca_btl_rwv_deliver (conn->endpoint, hdr->tag, payload, len);
    return NULL;
}

/* With the lock: the peer's piggy-backed credit. */
static void mca_btl_rwv_take_credit (mca_btl_rwv_conn_t *conn, uint64_t consumed)
{
    conn->may_send = true;
    if (consumed > conn->peer.consumed && consumed <= conn->peer.send_seq) {
        conn->peer.consumed = consumed;
        if (!opal_list_is_empty (&conn->replay.unacked)) {
            mca_btl_rwv_conn_release_acked (conn);
        }
    }
}

/* Does an arrival's piggy-backed credit say anything new?  Read without
 * the lock: both only grow while the connection lasts, so a stale look
 * at worst takes the lock for nothing.  On a one-way stream the credit
 * never moves, and the lock around it cost every message. */
static bool mca_btl_rwv_credit_news (const mca_btl_rwv_conn_t *conn, uint64_t consumed)
{
    return consumed > __atomic_load_n (&conn->peer.consumed, __ATOMIC_RELAXED) ||
        !__atomic_load_n (&conn->may_send, __ATOMIC_RELAXED);
}

/* With the lock: the slot is free for the peer again. */
static void mca_btl_rwv_slot_consumed (mca_btl_rwv_conn_t *conn)
{
    mca_btl_rwv_local_ring_t *local = &conn->local;

    local->recv_seq++;
    local->imm_used += local->cur.notify_imm;
    local->next_slot = local->next_slot + 1 == local->cur.slots ? 0 : local->next_slot + 1;
    if (local->tiered) {
        /* a hot connection's only work here: out of line it cost a message 25 instructions */
        local->last_arrival = ++mca_btl_rwv_hot_clock[conn->rail->index];
        if (!mca_btl_rwv_local_hot (local)) {
            mca_btl_rwv_hotset_arrival_cold (conn);
        }
    }
}

/* Check the arrival HDR (a copy: the peer could rewrite the slot) and
 * find its payload; NULL *PAYLOAD: it is still being read. */
static const char *mca_btl_rwv_arrival_payload (mca_btl_rwv_conn_t *conn, const mca_btl_rwv_eager_hdr_t *hdr,
                                                const mca_btl_rwv_eager_hdr_t *slot_hdr, void **payload, size_t *len)
{
    const char *problem = mca_btl_rwv_arrival_problem (conn, hdr);

    *payload = (unsigned char *) slot_hdr - MCA_BTL_RWV_PAD8(hdr->len);
    *len = hdr->len;
    if (NULL == problem && (hdr->flags & MCA_BTL_RWV_HDR_FLAG_FETCH)) {
        problem = mca_btl_rwv_fetch_poll (conn, slot_hdr, payload, len);
    } else if (NULL == problem && (hdr->flags & MCA_BTL_RWV_HDR_FLAG_HEAD_LAST)) {
        /* checked above: the span lies within the slot, before our header;
         * the payload starts head_len into it and ends with the header */
        unsigned char *head = (unsigned char *) slot_hdr - mca_btl_rwv_head_last_span (hdr->len, hdr->head_len);

        memmove (head, head + hdr->len, hdr->head_len);
        *payload = head;
    }
    return problem;
}

/* May the connection thread take this arrival: a hello (nothing to
 * deliver), or a peer's atomic request, whole and correct? */
static bool mca_btl_rwv_servable (mca_btl_rwv_conn_t *conn, const mca_btl_rwv_eager_hdr_t *hdr,
                                  mca_btl_rwv_eager_hdr_t *slot_hdr, void **payload, size_t *len)
{
    if (MCA_BTL_RWV_HDR_FLAG_HELLO == hdr->flags) {
        *payload = NULL;
        return NULL == mca_btl_rwv_arrival_problem (conn, hdr);
    }
    return MCA_BTL_RWV_TAG_ATOMIC == hdr->tag && 0 == hdr->flags &&
        NULL == mca_btl_rwv_arrival_payload (conn, hdr, slot_hdr, payload, len);
}

/* From the connection thread, while the application computes: the
 * peer's hellos and atomic requests at the head of the ring, the atomics
 * done and answered, their slots credited, and the replies or messages
 * that waited for the peer's credit sent.  It stops at the first message
 * that is anything else, or that is wrong: that one, and all behind it,
 * wait for progress, in order, which delivers or refuses them as always. */
int mca_btl_rwv_conn_serve_ring (mca_btl_rwv_conn_t *conn)
{
    mca_btl_rwv_eager_hdr_t *slot_hdr;
    int count = 0;

    while (MCA_BTL_RWV_CONN_CONNECTED == conn->state && NULL != (slot_hdr = mca_btl_rwv_next_arrival (conn))) {
        mca_btl_rwv_eager_hdr_t hdr = *slot_hdr;
        void *payload;
        size_t len;

        if (!mca_btl_rwv_servable (conn, &hdr, slot_hdr, &payload, &len)) {
            break;
        }
        mca_btl_rwv_take_credit (conn, hdr.consumed);
        if (NULL != payload && !mca_btl_rwv_atomic_serve_request (conn, payload, len)) {
            break;
        }
        mca_btl_rwv_slot_consumed (conn);
        ++count;
    }
    if (count) {
        mca_btl_rwv_return_credits (conn, false);
    }
    if (!opal_list_is_empty (&conn->pending) && mca_btl_rwv_conn_read_credit_word (conn)) {
        mca_btl_rwv_conn_flush_pending (conn);
    }
    return count;
}

/* Deliver what arrived.  Only the progressing thread gets here (see
 * mca_btl_rwv_progress), so nobody else reads this ring; the state lock is
 * dropped around each upcall.  A slot counts as consumed, and is credited
 * to the peer, only once its upcall has returned. */
int mca_btl_rwv_conn_poll_ring (mca_btl_rwv_conn_t *conn)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    mca_btl_rwv_eager_hdr_t *slot_hdr;
    bool fetched = false;
    int count = 0;

    /* an upcall may fail this connection (a send of the PML's on it) */
    while (MCA_BTL_RWV_CONN_CONNECTED == conn->state && NULL != (slot_hdr = mca_btl_rwv_next_arrival (conn))) {
        mca_btl_rwv_eager_hdr_t hdr = *slot_hdr;
        const char *problem;
        void *payload;
        size_t len;

        if (mca_btl_rwv_credit_news (conn, hdr.consumed)) {
            mca_btl_rwv_pass_lock (module);
            mca_btl_rwv_take_credit (conn, hdr.consumed);
            mca_btl_rwv_pass_unlock (module);
        }
        problem = mca_btl_rwv_arrival_payload (conn, &hdr, slot_hdr, &payload, &len);
        if (NULL == problem && NULL == payload) {
            break; /* being read: the ring waits here, in order */
        }
        if (NULL == problem) {
            problem = mca_btl_rwv_conn_consume (conn, &hdr, payload, len);
        }
        mca_btl_rwv_pass_lock (module);
        if (conn->local.fetching) {
            mca_btl_rwv_fetch_done (conn);
            fetched = true;
        }
        if (NULL != problem) {
            mca_btl_rwv_conn_malformed (conn, problem);
            mca_btl_rwv_pass_unlock (module);
            return count;
        }
        mca_btl_rwv_slot_consumed (conn);
        if (hdr.flags & MCA_BTL_RWV_HDR_FLAG_FETCH) {
            mca_btl_rwv_count (MCA_BTL_RWV_COUNT_READ);
            mca_btl_rwv_hotset_fetched (conn, len);
        }
        mca_btl_rwv_pass_unlock (module);
        ++count;
    }
    /* credits may also have come as a write into our credit word: what
     * waits for a credit, and messages the peer reads, are released by it */
    if (count || !opal_list_is_empty (&conn->pending) || conn->peer.owe_hello ||
        !opal_list_is_empty (&conn->replay.unacked)) {
        mca_btl_rwv_pass_lock (module);
        if (count) {
            mca_btl_rwv_return_credits (conn, fetched);
        }
        if (!opal_list_is_empty (&conn->replay.unacked)) {
            (void) mca_btl_rwv_conn_read_credit_word (conn);
        }
        mca_btl_rwv_conn_flush_pending (conn);
        mca_btl_rwv_pass_unlock (module);
    }
    return count;
}
