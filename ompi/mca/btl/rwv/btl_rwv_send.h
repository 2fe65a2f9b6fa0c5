/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/* The eager send path over a connection, the ring and its tail (btl_rwv_send.c). */
#ifndef MCA_BTL_RWV_SEND_H
#define MCA_BTL_RWV_SEND_H

#include "btl_rwv_cm_thread.h"
#include "btl_rwv_endpoint.h"
#include "btl_rwv_frag.h"

BEGIN_C_DECLS

int mca_btl_rwv_endpoint_send_frag (mca_btl_rwv_endpoint_t *endpoint, mca_btl_rwv_frag_t *frag);
void mca_btl_rwv_conn_send_frag (mca_btl_rwv_conn_t *conn, mca_btl_rwv_frag_t *frag);
void mca_btl_rwv_conn_flush_pending (mca_btl_rwv_conn_t *conn);
int mca_btl_rwv_conn_send_hello (mca_btl_rwv_conn_t *conn);
void mca_btl_rwv_conn_fail_pending (mca_btl_rwv_conn_t *conn, int status);
/* With the lock: frees what the peer has consumed (kept for a replay) */
void mca_btl_rwv_conn_release_acked (mca_btl_rwv_conn_t *conn);
/* With the lock: take the credit the peer wrote into our tail, releasing
 * what it has consumed; false if the word is a lie (the connection closes).
 * Inline: a sender whose known credits are spent takes it per message, and
 * progress per pass while frags are kept for a replay. */
static inline bool mca_btl_rwv_conn_read_credit_word (mca_btl_rwv_conn_t *conn)
{
    uint32_t looks = mca_btl_rwv_cm_looks (mca_btl_rwv_component.module);
    uint64_t reported = conn->local.tail[MCA_BTL_RWV_TAIL_CREDITS];

    if (!mca_btl_rwv_cm_quiet (mca_btl_rwv_component.module, looks)) {
        return true; /* the connection thread may be writing it: read it next time */
    }
    if (OPAL_UNLIKELY(reported > conn->peer.send_seq)) {
        mca_btl_rwv_conn_malformed (conn, "its credit word counts messages never sent to it");
        return false;
    }
    if (reported > conn->peer.consumed) {
        conn->peer.consumed = reported;
        mca_btl_rwv_conn_release_acked (conn);
    }
    return true;
}
/* For the immediate send (btl_rwv_sendi.c), with the lock: */
/* the peer has a slot free for us by the credits we know of */
static inline bool mca_btl_rwv_credit_known (const mca_btl_rwv_conn_t *conn)
{
    return conn->peer.send_seq - conn->peer.consumed < conn->peer.slots;
}
/* those are spent: does the peer's credit word give more? */
bool mca_btl_rwv_conn_new_credit (mca_btl_rwv_conn_t *conn);
/* connected, and the peer has a slot free for us: inline, as every
 * immediate send asks, with the credit word read only when needed */
static inline bool mca_btl_rwv_conn_writable (mca_btl_rwv_conn_t *conn)
{
    return mca_btl_rwv_conn_ready (conn) && (mca_btl_rwv_credit_known (conn) || mca_btl_rwv_conn_new_credit (conn));
}
/* that, and nothing waits on CONN before the message */
static inline bool mca_btl_rwv_can_write_now (mca_btl_rwv_conn_t *conn)
{
    return opal_list_is_empty (&conn->pending) && mca_btl_rwv_conn_writable (conn);
}
/* a message small enough to inject, its header built after LEN bytes of
 * BUF (room for it there); the buffer is free when this returns */
int mca_btl_rwv_conn_write_kept (mca_btl_rwv_conn_t *conn, mca_btl_rwv_frag_t *frag);
int mca_btl_rwv_inject (mca_btl_rwv_conn_t *conn, unsigned char *buf, size_t len, mca_btl_base_tag_t tag,
                        uint8_t flags);
/* keep FRAG until the peer has consumed it, for a replay */
void mca_btl_rwv_conn_retain (mca_btl_rwv_conn_t *conn, mca_btl_rwv_frag_t *frag);
/* is a message of LEN bytes to ENDPOINT split across its rails? */
bool mca_btl_rwv_should_stripe (const mca_btl_rwv_endpoint_t *endpoint, size_t len);
/* For the batches (btl_rwv_batch.c), with the lock: */
/* FRAG is about to be written as CONN's next message */
void mca_btl_rwv_frag_begin (mca_btl_rwv_conn_t *conn, mca_btl_rwv_frag_t *frag);
/* FRAG was written (FETCHED: for the peer to read): kept for a replay where it may be needed */
void mca_btl_rwv_frag_written (mca_btl_rwv_conn_t *conn, mca_btl_rwv_frag_t *frag, bool fetched);

/* With the lock: the next message goes into the next slot (every
 * message takes this, from three files: inline). */
static inline void mca_btl_rwv_advance (mca_btl_rwv_conn_t *conn)
{
    conn->peer.send_seq++;
    conn->peer.next_slot = conn->peer.next_slot + 1 == conn->peer.slots ? 0 : conn->peer.next_slot + 1;
    conn->peer.owe_hello = false;
    conn->local.credits_reported = conn->local.recv_seq;
}

/* With the lock: a message is in CONN's next slot. */
static inline void mca_btl_rwv_sent (mca_btl_rwv_conn_t *conn)
{
    mca_btl_rwv_count (MCA_BTL_RWV_COUNT_EAGER);
    mca_btl_rwv_advance (conn);
}

END_C_DECLS

#endif /* MCA_BTL_RWV_SEND_H */
