/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * The eager send path: RDMA writes into the peer's ring, credits, the queue
 * of messages waiting for a connection or for room (the immediate send is
 * btl_rwv_sendi.c, the receive side btl_rwv_recv.c).
 *
 * Credits: we may have at most peer_slots messages in the peer's ring that
 * it has not consumed.  The peer reports how many it consumed in every
 * header it sends us, and, when it has nothing to send, by an 8-byte RDMA
 * write into the credit word after our ring's last slot.  A message that
 * finds no credit waits on the connection's queue; nothing is dropped or
 * overwritten.
 * Layer: protocol (docs/layout.md).
 */
#include "opal_config.h"

#include <string.h>

#include "opal/runtime/opal_progress.h"
#include "opal/sys/atomic.h"

#include "btl_rwv.h"
#include "btl_rwv_test_fault.h"
#include "btl_rwv_cm_thread.h"
#include "btl_rwv_endpoint.h"
#include "btl_rwv_frag.h"
#include "btl_rwv_send.h"
#include "btl_rwv_rdma.h"
#include "btl_rwv_batch.h"
#include "btl_rwv_ring.h"
#include "btl_rwv_slot.h"
#include "btl_rwv_eager_stripe.h"
#include "btl_rwv_poll.h"
#include "btl_rwv_recv.h"

/* The credit word is read only once the credits we know of are spent:
 * reading it, behind the connection thread's fence, cost every message 19
 * instructions.  What else it releases (a multi-rail peer's kept copies)
 * progress reads it for (mca_btl_rwv_conn_poll_ring). */
bool mca_btl_rwv_conn_new_credit (mca_btl_rwv_conn_t *conn)
{
    return mca_btl_rwv_conn_read_credit_word (conn) && mca_btl_rwv_credit_known (conn);
}

/* With the lock: what the peer has consumed is no longer kept for a
 * replay, and the small puts written before the last of it have landed
 * (confirmed once, for the last: each confirms all before it). */
void mca_btl_rwv_conn_release_acked (mca_btl_rwv_conn_t *conn)
{
    uint64_t landed = 0;

    while (!opal_list_is_empty (&conn->replay.unacked)) {
        mca_btl_rwv_frag_t *frag = (mca_btl_rwv_frag_t *) opal_list_get_first (&conn->replay.unacked);

        if (frag->seq > conn->peer.consumed) {
            break;
        }
        landed = frag->puts_before + 1;
        opal_list_remove_first (&conn->replay.unacked);
        mca_btl_rwv_frag_drop_locked (frag, &frag->retained);
    }
    if (landed) {
        mca_btl_rwv_conn_confirm_puts (conn, landed);
    }
}

/* Keep FRAG until the peer has consumed it; progress reads the credits
 * that release it. */
void mca_btl_rwv_conn_retain (mca_btl_rwv_conn_t *conn, mca_btl_rwv_frag_t *frag)
{
    frag->retained = true;
    opal_list_append (&conn->replay.unacked, &frag->base.super.super);
    (void) mca_btl_rwv_poll_want (conn);
}

/* Does CONN's transport gather a message from the application's memory
 * into the peer's slot: stores into a ring we share, or a rail's write? */
static bool mca_btl_rwv_conn_gathers (const mca_btl_rwv_conn_t *conn)
{
    return NULL != conn->peer.ring || mca_btl_rwv_rail_gathers (conn->rail);
}

/* The PML's header from FRAG's buffer, its data from the application's
 * memory, then padding and our header, which wait in FRAG's buffer after
 * the PML's header until the write is done; or, where it fits, the same
 * in two pieces with the PML's header last. */
static int mca_btl_rwv_write_in_place (mca_btl_rwv_conn_t *conn, mca_btl_rwv_frag_t *frag)
{
    const mca_btl_base_segment_t *seg = frag->segments;
    size_t len = seg[0].seg_len + seg[1].seg_len, pad = MCA_BTL_RWV_PAD8(len) - len, total;
    unsigned char *trailer = frag->buf + MCA_BTL_RWV_PAD8(seg[0].seg_len);
    struct iovec iov[3];
    int count = 2, rc;

    if (mca_btl_rwv_head_last_fits (conn, frag)) {
        total = mca_btl_rwv_head_last_pieces (conn, frag, iov);
    } else {
        mca_btl_rwv_eager_hdr_t hdr = mca_btl_rwv_header (conn, len, frag->tag, frag->hdr_flags, frag);

        memset (trailer, 0, pad);
        memcpy (trailer + pad, &hdr, sizeof (hdr));
        iov[0] = (struct iovec) {.iov_base = frag->buf, .iov_len = seg[0].seg_len};
        iov[1] = (struct iovec) {.iov_base = seg[1].seg_addr.pval, .iov_len = seg[1].seg_len};
        iov[2] = (struct iovec) {.iov_base = trailer, .iov_len = pad + sizeof (hdr)};
        count = 3;
        total = mca_btl_rwv_slot_bytes (len);
    }
    rc = mca_btl_rwv_ring_write_gathered (conn, iov, count, mca_btl_rwv_slot_raddr (conn, total), &frag->op);
    if (OPAL_SUCCESS == rc) {
        mca_btl_rwv_count (MCA_BTL_RWV_COUNT_IN_PLACE);
    }
    return rc;
}

/* FRAG into the peer's slot. */
static int mca_btl_rwv_write_slot (mca_btl_rwv_conn_t *conn, mca_btl_rwv_frag_t *frag)
{
    size_t total;

    if (mca_btl_rwv_frag_in_place (frag)) {
        return mca_btl_rwv_write_in_place (conn, frag);
    }
    total = mca_btl_rwv_build (conn, frag->buf, frag->segments[0].seg_len, frag->tag, frag->hdr_flags, frag);

    return mca_btl_rwv_ring_write (conn, frag->buf, total, frag->reg->desc[conn->rail->index],
                                   mca_btl_rwv_slot_raddr (conn, total), &frag->op);
}

/* A FETCH message in the slot instead of FRAG (btl_rwv_fetch.c): the peer
 * reads FRAG from here.  FRAG holds a copy of the PML's data, so its write
 * completes at the next progress call (never under this lock), as a store
 * does. */
static int mca_btl_rwv_write_fetch (mca_btl_rwv_conn_t *conn, mca_btl_rwv_frag_t *frag)
{
    mca_btl_rwv_rail_t *rail = conn->rail;
    unsigned char buf[MCA_BTL_RWV_PAD8(sizeof (mca_btl_rwv_fetch_hdr_t)) + sizeof (mca_btl_rwv_eager_hdr_t)];
    mca_btl_rwv_fetch_hdr_t fetch = {
        .raddr = mca_btl_rwv_rail_raddr (rail, (uint64_t) (uintptr_t) frag->reg->base.base, (uint64_t) (uintptr_t) frag->buf),
        .rkey = frag->reg->handle.rkey[rail->index], .len = (uint32_t) frag->segments[0].seg_len,
    };
    size_t total;
    int rc;

    if (MCA_BTL_RWV_TEST_FAULT(MCA_BTL_RWV_TEST_FAULT_FETCH_LEN, true)) {
        fetch.len = 0xfffffff0u;
    } else if (MCA_BTL_RWV_TEST_FAULT(MCA_BTL_RWV_TEST_FAULT_FETCH_ADDR, true)) {
        fetch.raddr += 1ull << 30;
    }
    memcpy (buf, &fetch, sizeof (fetch));
    total = mca_btl_rwv_build (conn, buf, sizeof (fetch), frag->tag, frag->hdr_flags | MCA_BTL_RWV_HDR_FLAG_FETCH, frag);
    rc = mca_btl_rwv_ring_inject (conn, buf, total, mca_btl_rwv_slot_raddr (conn, total), conn->peer.notify_imm,
                                  mca_btl_rwv_imm (conn));
    if (OPAL_SUCCESS == rc) {
        mca_btl_rwv_op_stored (&frag->op);
    }
    return rc;
}

/* FRAG is about to be written as CONN's next message. */
void mca_btl_rwv_frag_begin (mca_btl_rwv_conn_t *conn, mca_btl_rwv_frag_t *frag)
{
    frag->conn = conn;
    frag->seq = conn->peer.send_seq + 1;
    frag->puts_before = conn->small_puts;
    frag->in_flight = true;
}

/* The frag stays until the peer has consumed it when the peer reads it
 * from here, and to a peer with other rails, so that a failing rail can
 * hand it on (btl_rwv_failover.c). */
void mca_btl_rwv_frag_written (mca_btl_rwv_conn_t *conn, mca_btl_rwv_frag_t *frag, bool fetched)
{
    if ((fetched || conn->endpoint->num_rails > 1) && !mca_btl_rwv_frag_stays_on_conn (frag)) {
        mca_btl_rwv_conn_retain (conn, frag);
    }
}

static int mca_btl_rwv_write_frag (mca_btl_rwv_conn_t *conn, mca_btl_rwv_frag_t *frag)
{
    bool fetched = !mca_btl_rwv_fits_slot (conn, mca_btl_rwv_frag_len (frag));
    int rc;

    if (fetched || !mca_btl_rwv_conn_gathers (conn)) {
        mca_btl_rwv_frag_flatten (frag);
    }
    mca_btl_rwv_frag_begin (conn, frag);
    rc = fetched ? mca_btl_rwv_write_fetch (conn, frag) : mca_btl_rwv_write_slot (conn, frag);
    if (OPAL_SUCCESS != rc) {
        frag->in_flight = false;
        return rc;
    }
    mca_btl_rwv_sent (conn);
    mca_btl_rwv_frag_written (conn, frag, fetched);
    return OPAL_SUCCESS;
}

/* FRAG, packed and flat, as CONN's next message with no completion to
 * wait for: kept until the peer has consumed it, which proves the
 * transport done with its buffer.  A completion per message cost the
 * provider a queue entry, a wake-up of the completion queue's descriptor
 * and a read of it, and rwv the handling, about half the sender's
 * instructions at 1 KiB on the tcp provider; the credits that free the
 * frag come anyway.  Where the rail lacks such writes, the message's
 * slot is too small, or the peer's ring is shared memory (stored, not
 * written), the caller sends FRAG as any other. */
int mca_btl_rwv_conn_write_kept (mca_btl_rwv_conn_t *conn, mca_btl_rwv_frag_t *frag)
{
    size_t len = frag->segments[0].seg_len, total;
    int rc;

    if (NULL == conn->rail->ops->write_quiet || NULL != conn->peer.ring || !mca_btl_rwv_fits_slot (conn, len) ||
        !mca_btl_rwv_can_write_now (conn)) {
        return OPAL_ERR_NOT_AVAILABLE;
    }
    total = mca_btl_rwv_build (conn, frag->buf, len, frag->tag, frag->hdr_flags, frag);
    rc = conn->rail->ops->write_quiet (conn, frag->buf, total, frag->reg->desc[conn->rail->index],
                                       mca_btl_rwv_slot_raddr (conn, total), conn->peer.ring_rkey,
                                       conn->peer.notify_imm, mca_btl_rwv_imm (conn));
    if (OPAL_SUCCESS != rc) {
        return rc;
    }
    frag->conn = conn;
    frag->seq = conn->peer.send_seq + 1;
    frag->puts_before = conn->small_puts;
    frag->pml_done = true;
    mca_btl_rwv_sent (conn);
    mca_btl_rwv_conn_retain (conn, frag);
    return OPAL_SUCCESS;
}

/* A message small enough to inject: its buffer is free when this returns. */
int mca_btl_rwv_inject (mca_btl_rwv_conn_t *conn, unsigned char *buf, size_t len,
                               mca_btl_base_tag_t tag, uint8_t flags)
{
    size_t total = mca_btl_rwv_build (conn, buf, len, tag, flags, NULL);
    int rc;

    rc = mca_btl_rwv_ring_inject (conn, buf, total, mca_btl_rwv_slot_raddr (conn, total), conn->peer.notify_imm,
                                  mca_btl_rwv_imm (conn));
    if (OPAL_SUCCESS == rc) {
        mca_btl_rwv_sent (conn);
    }
    return rc;
}

/* What waits for credits or the connection; then, if the peer moved us
 * to another ring and nothing has been written there yet, a hello, so
 * that it can free the old one. */
void mca_btl_rwv_conn_flush_pending (mca_btl_rwv_conn_t *conn)
{
    while (!opal_list_is_empty (&conn->pending) && mca_btl_rwv_conn_writable (conn)) {
        mca_btl_rwv_frag_t *frag;

        if (mca_btl_rwv_batch_starts (conn)) {
            if (OPAL_SUCCESS != mca_btl_rwv_write_batch (conn)) {
                return; /* the transport is full: retry from progress */
            }
            continue;
        }
        frag = (mca_btl_rwv_frag_t *) opal_list_remove_first (&conn->pending);
        if (OPAL_SUCCESS != mca_btl_rwv_write_frag (conn, frag)) {
            opal_list_prepend (&conn->pending, &frag->base.super.super);
            return; /* the transport is full: retry from progress */
        }
    }
    if (conn->peer.owe_hello && opal_list_is_empty (&conn->pending) && mca_btl_rwv_conn_writable (conn)) {
        (void) mca_btl_rwv_conn_send_hello (conn);
    }
}

/* Write now, or wait on the connection behind what already waits. */
void mca_btl_rwv_conn_send_frag (mca_btl_rwv_conn_t *conn, mca_btl_rwv_frag_t *frag)
{
    if (!mca_btl_rwv_can_write_now (conn) || OPAL_SUCCESS != mca_btl_rwv_write_frag (conn, frag)) {
        if (mca_btl_rwv_copy_to_batch (conn, frag)) {
            mca_btl_rwv_frag_flatten (frag);
        }
        opal_list_append (&conn->pending, &frag->base.super.super);
        (void) mca_btl_rwv_poll_want (conn); /* credits come as a write into our tail: progress must look */
    }
}

int mca_btl_rwv_endpoint_send_frag (mca_btl_rwv_endpoint_t *endpoint, mca_btl_rwv_frag_t *frag)
{
    mca_btl_rwv_conn_t *conn = mca_btl_rwv_endpoint_conn (endpoint, mca_btl_rwv_frag_len (frag));

    if (OPAL_UNLIKELY(NULL == conn)) {
        return OPAL_ERR_UNREACH;
    }
    mca_btl_rwv_conn_send_frag (conn, frag);
    return OPAL_SUCCESS;
}

bool mca_btl_rwv_should_stripe (const mca_btl_rwv_endpoint_t *endpoint, size_t len)
{
    return endpoint->num_rails > 1 && len >= (size_t) mca_btl_rwv_component.stripe_eager_threshold;
}

void mca_btl_rwv_conn_fail_pending (mca_btl_rwv_conn_t *conn, int status)
{
    mca_btl_rwv_frag_t *frag;

    while (NULL != (frag = (mca_btl_rwv_frag_t *) opal_list_remove_first (&conn->pending))) {
        mca_btl_rwv_frag_complete (frag, status);
    }
}

int mca_btl_rwv_conn_send_hello (mca_btl_rwv_conn_t *conn)
{
    unsigned char buf[sizeof (mca_btl_rwv_eager_hdr_t)];

    return mca_btl_rwv_inject (conn, buf, 0, 0, MCA_BTL_RWV_HDR_FLAG_HELLO);
}

/* ------------------------------------------------------------ send */

/* FRAG written at once, kept and without a completion, where it can be. */
static bool mca_btl_rwv_endpoint_write_kept (mca_btl_rwv_endpoint_t *endpoint, mca_btl_rwv_frag_t *frag)
{
    mca_btl_rwv_conn_t *conn = mca_btl_rwv_endpoint_conn (endpoint, mca_btl_rwv_frag_len (frag));

    return NULL != conn && OPAL_SUCCESS == mca_btl_rwv_conn_write_kept (conn, frag);
}

/* May the PML be told at once that FRAG is sent, as btl/tcp tells it of a
 * message its socket took, once it is written?  Only for a copy we own and
 * free ourselves, when the PML did not ask for the callback regardless. */
static bool mca_btl_rwv_frag_ours_to_finish (const mca_btl_rwv_frag_t *frag)
{
    return (frag->base.des_flags & MCA_BTL_DES_FLAGS_BTL_OWNERSHIP) &&
        !(frag->base.des_flags & MCA_BTL_DES_SEND_ALWAYS_CALLBACK) && !mca_btl_rwv_frag_in_place (frag);
}

/* Returns 1 when the message left at once, whole on one connection, from
 * a buffer of ours: the PML completes its request now and rwv recycles the
 * buffer once the write is done (the peer consumed it, to a peer with
 * other rails).  A message that waits for credits is reported by the
 * callback when written, so what the PML may hand over is bounded by the
 * rings' credits. */
int mca_btl_rwv_send (mca_btl_base_module_t *btl, mca_btl_base_endpoint_t *endpoint,
                      mca_btl_base_descriptor_t *descriptor, mca_btl_base_tag_t tag)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    mca_btl_rwv_frag_t *frag = (mca_btl_rwv_frag_t *) descriptor;
    bool ours = mca_btl_rwv_frag_ours_to_finish (frag), stripe, at_once; /* before the flag below */
    int rc = OPAL_SUCCESS;

    /* ob1 relies on the callback for what the return value does not tell it (as btl/vader notes) */
    frag->base.des_flags |= MCA_BTL_DES_SEND_ALWAYS_CALLBACK;
    frag->tag = tag;
    frag->endpoint = endpoint;

    if (endpoint->self) {
        /* any thread may send to itself, outside a progress pass */
        rwv_compat_btl_deliver (btl, endpoint, tag, frag->buf, frag->segments[0].seg_len);
        mca_btl_rwv_frag_complete (frag, OPAL_SUCCESS);
        return OPAL_SUCCESS;
    }

    MCA_BTL_RWV_LOCK(module);
    stripe = mca_btl_rwv_should_stripe (endpoint, frag->segments[0].seg_len);
    at_once = ours && !stripe;
    /* told before the write, so that its completion, wherever it is reaped, does not call back too */
    frag->pml_done = at_once;
    if (at_once && mca_btl_rwv_endpoint_write_kept (endpoint, frag)) {
        MCA_BTL_RWV_UNLOCK(module);
        return 1;
    }
    if (!(stripe && mca_btl_rwv_eager_stripe (endpoint, frag))) {
        rc = mca_btl_rwv_endpoint_send_frag (endpoint, frag);
    }
    if (at_once && OPAL_SUCCESS == rc && frag->in_flight) {
        rc = 1;
    } else if (at_once) {
        frag->pml_done = false; /* waiting for credits (or not sent): the callback will say */
    }
    MCA_BTL_RWV_UNLOCK(module);
    return rc;
}
