/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Batches of eager messages (btl_rwv_batch.h): what waits on a
 * connection for credits goes out several to one post (one system call
 * or doorbell), each in its own slot with its own header, beside
 * btl_rwv_send.c.
 * Layer: protocol (docs/layout.md).
 */
#include "opal_config.h"

#include "opal/runtime/opal_progress.h"

#include "btl_rwv.h"
#include "btl_rwv_batch.h"
#include "btl_rwv_send.h"
#include "btl_rwv_slot.h"

#define MCA_BTL_RWV_IN_PLACE_BATCH_MAX (124 * 1024) /* see mca_btl_rwv_batch_pieces */

static int mca_btl_rwv_batch_limit (const mca_btl_rwv_conn_t *conn)
{
    return conn->rail->max_batch < mca_btl_rwv_component.write_batch ? conn->rail->max_batch :
        mca_btl_rwv_component.write_batch;
}

/* The local pieces the next frag waiting on CONN takes in a batch that
 * holds BYTES so far: one from its buffer, or two where its data is in
 * place and its header can go last; 0 if it cannot join (read by the
 * peer from here, or in place in three pieces).
 * - Ranks that share cores write what waits in place alone: in pairs, 4
 *   pairs of ranks on 2 cores streaming 32 KiB ran at 0.55x.
 * - One in place joins only while the batch stays within 124 KiB: two 64
 *   KiB messages in one write made one pair of ranks swing from job to
 *   job between 23k and 60k messages/s, where written alone they ran at
 *   39-52k (under bbr); two of 60 KiB ran at 71-75k against 62-64k alone.
 * - The first always joins (a batch that took none would be tried again
 *   at every progress call, for ever, with slots raised past 124 KiB).
 * (docs/results-message-rate.md) */
static int mca_btl_rwv_batch_pieces (mca_btl_rwv_conn_t *conn, size_t bytes)
{
    const mca_btl_rwv_frag_t *frag = (const mca_btl_rwv_frag_t *) opal_list_get_first (&conn->pending);
    size_t len;

    if (opal_list_is_empty (&conn->pending)) {
        return 0;
    }
    len = mca_btl_rwv_frag_len (frag);
    if (!mca_btl_rwv_fits_slot (conn, len)) {
        return 0;
    }
    if (!mca_btl_rwv_frag_in_place (frag)) {
        return 1;
    }
    return !opal_progress_yield_when_idle && mca_btl_rwv_rail_gathers (conn->rail) &&
        mca_btl_rwv_head_last_fits (conn, frag) &&
        (0 == bytes || bytes + len <= MCA_BTL_RWV_IN_PLACE_BATCH_MAX) ? 2 : 0;
}

/* FRAG, begun on CONN, as an entry of a batch. */
static mca_btl_rwv_iov_t mca_btl_rwv_batch_entry (mca_btl_rwv_conn_t *conn, mca_btl_rwv_frag_t *frag)
{
    mca_btl_rwv_iov_t entry = {.desc = frag->reg->desc[conn->rail->index], .imm = mca_btl_rwv_imm (conn),
                               .op = &frag->op};
    size_t total;

    if (mca_btl_rwv_frag_in_place (frag)) {
        struct iovec piece[2];

        total = mca_btl_rwv_head_last_pieces (conn, frag, piece);
        entry.data = piece[0].iov_base;
        entry.data_len = piece[0].iov_len;
        entry.buf = piece[1].iov_base;
        entry.len = piece[1].iov_len;
    } else {
        total = mca_btl_rwv_build (conn, frag->buf, frag->segments[0].seg_len, frag->tag, frag->hdr_flags, frag);
        entry.buf = frag->buf;
        entry.len = total;
    }
    entry.raddr = mca_btl_rwv_slot_raddr (conn, total);
    return entry;
}

/* Can messages waiting on CONN go in batches: through the rail (not a
 * shared ring), and each write with its own immediate data where the
 * ring wants it? */
static bool mca_btl_rwv_conn_batches (const mca_btl_rwv_conn_t *conn)
{
    return mca_btl_rwv_batch_limit (conn) > 1 && NULL == conn->peer.ring &&
        (!conn->peer.notify_imm || conn->rail->batch_imm);
}

/* Does what waits on CONN start a batch: two frags or more, the first
 * for its slot.  The caller has seen a credit. */
bool mca_btl_rwv_batch_starts (mca_btl_rwv_conn_t *conn)
{
    return mca_btl_rwv_conn_batches (conn) && opal_list_get_size (&conn->pending) > 1 &&
        mca_btl_rwv_batch_pieces (conn, 0);
}

/* The transport took the first POSTED of the batch's COUNT FRAGS: the
 * rest wait again, first in line, and CONN stands where those posted
 * left it (BEFORE and REPORTED: where it stood before the batch, which
 * only mca_btl_rwv_advance changed). */
static void mca_btl_rwv_batch_undo (mca_btl_rwv_conn_t *conn, mca_btl_rwv_frag_t **frags, int posted, int count,
                                    const mca_btl_rwv_peer_ring_t *before, uint64_t reported)
{
    for (int i = count - 1 ; i >= posted ; --i) {
        frags[i]->in_flight = false;
        opal_list_prepend (&conn->pending, &frags[i]->base.super.super);
    }
    conn->peer = *before;
    conn->local.credits_reported = reported;
    for (int i = 0 ; i < posted ; ++i) {
        mca_btl_rwv_advance (conn);
    }
}

/* What waits on CONN, up to the rail's batch and the credits the peer
 * gave (read once, before: a credit word read in between could fail the
 * connection under the batch), each in its own slot with its own header,
 * in one post (one system call or doorbell); returns OPAL_SUCCESS if the
 * transport took one or more. */
int mca_btl_rwv_write_batch (mca_btl_rwv_conn_t *conn)
{
    mca_btl_rwv_iov_t iov[MCA_BTL_RWV_MAX_BATCH];
    mca_btl_rwv_frag_t *frags[MCA_BTL_RWV_MAX_BATCH];
    const mca_btl_rwv_peer_ring_t before = conn->peer;
    uint64_t reported = conn->local.credits_reported, credits = before.slots - (before.send_seq - before.consumed);
    int count = 0, posted, limit = mca_btl_rwv_batch_limit (conn), pieces = 0, next;
    size_t bytes = 0;

    /* the limit (at most the rail's iov_limit) counts local pieces too */
    while (count < limit && (uint64_t) count < credits && 0 != (next = mca_btl_rwv_batch_pieces (conn, bytes)) &&
           pieces + next <= limit) {
        mca_btl_rwv_frag_t *frag = (mca_btl_rwv_frag_t *) opal_list_remove_first (&conn->pending);

        mca_btl_rwv_frag_begin (conn, frag);
        iov[count] = mca_btl_rwv_batch_entry (conn, frag);
        frags[count++] = frag;
        pieces += next;
        bytes += mca_btl_rwv_frag_len (frag);
        mca_btl_rwv_advance (conn);
    }
    posted = conn->rail->ops->writev (conn, iov, count, conn->peer.ring_rkey, conn->peer.notify_imm);
    if (posted < count) {
        mca_btl_rwv_batch_undo (conn, frags, posted, count, &before, reported);
    }
    for (int i = 0 ; i < posted ; ++i) {
        mca_btl_rwv_count (MCA_BTL_RWV_COUNT_EAGER);
        if (mca_btl_rwv_frag_in_place (frags[i])) {
            mca_btl_rwv_count (MCA_BTL_RWV_COUNT_IN_PLACE);
        }
        mca_btl_rwv_frag_written (conn, frags[i], false);
    }
    return posted > 0 ? OPAL_SUCCESS : OPAL_ERR_OUT_OF_RESOURCE;
}

/* The largest waiting message CONN copies for a batch; -1: any.  The
 * copy lets four go in one write where, in place, two do (the tcp
 * provider takes four pieces a write, and one in place is two).  One pair
 * of ranks streaming 44 to 60 KiB between two emulated nodes under cubic
 * ran at 0.97-1.25x btl/tcp copied against 0.74-1.04x in place (6
 * interleaved rounds).  Where the kernel paces TCP (bbr), writes of four
 * 48 KiB copies drew thousands of retransmissions a second and half the
 * rate: there only up to 44 KiB is copied (docs/results-message-rate.md). */
static int mca_btl_rwv_batch_copy_limit (const mca_btl_rwv_conn_t *conn)
{
    int max = mca_btl_rwv_component.batch_copy_max;

    if (MCA_BTL_RWV_BATCH_COPY_AUTO == max) {
        max = conn->rail->tcp_paced ? MCA_BTL_RWV_BATCH_COPY_PACED : -1;
    }
    return max;
}

/* Is FRAG, about to wait on CONN, copied so that it can join a batch?  A
 * message sent in place costs no copy when written at once; waiting, it
 * takes two pieces of the tcp provider's four with its header last, so
 * at most two go in a write, where copied ones go four to a write.
 * Ranks that share cores pay for a copy out of each other's time, and
 * lose from about 16 KiB: 4 pairs on 2 cores at 32 KiB ran at 0.6x the
 * rate of sending what waits in place (docs/results-message-rate.md). */
bool mca_btl_rwv_copy_to_batch (const mca_btl_rwv_conn_t *conn, const mca_btl_rwv_frag_t *frag)
{
    int max = opal_progress_yield_when_idle ? mca_btl_rwv_component.batch_copy_max_shared :
        mca_btl_rwv_batch_copy_limit (conn);

    return mca_btl_rwv_conn_batches (conn) && (max < 0 || mca_btl_rwv_frag_len (frag) <= (size_t) max);
}
