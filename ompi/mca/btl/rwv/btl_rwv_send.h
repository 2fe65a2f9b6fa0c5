/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/* The eager send path over a connection, the ring and its tail (btl_rwv_send.c). */
#ifndef MCA_BTL_RWV_SEND_H
#define MCA_BTL_RWV_SEND_H

#include "btl_rwv_endpoint.h"
#include "btl_rwv_frag.h"

BEGIN_C_DECLS

int mca_btl_rwv_endpoint_send_frag (mca_btl_rwv_endpoint_t *endpoint, mca_btl_rwv_frag_t *frag);
void mca_btl_rwv_conn_send_frag (mca_btl_rwv_conn_t *conn, mca_btl_rwv_frag_t *frag);
void mca_btl_rwv_conn_flush_pending (mca_btl_rwv_conn_t *conn);
int mca_btl_rwv_conn_send_hello (mca_btl_rwv_conn_t *conn);
void mca_btl_rwv_conn_fail_pending (mca_btl_rwv_conn_t *conn, int status);
/* With the lock: take the credit the peer wrote into our tail, releasing
 * what it has consumed; false if the word is a lie (the connection closes). */
bool mca_btl_rwv_conn_read_credit_word (mca_btl_rwv_conn_t *conn);
int mca_btl_rwv_complete_stored (void);
/* For the immediate send (btl_rwv_sendi.c), with the lock: */
/* nothing waits on CONN and the peer has a slot free for us */
bool mca_btl_rwv_can_write_now (mca_btl_rwv_conn_t *conn);
/* a message small enough to inject, its header built after LEN bytes of
 * BUF (room for it there); the buffer is free when this returns */
int mca_btl_rwv_inject (mca_btl_rwv_conn_t *conn, unsigned char *buf, size_t len, mca_btl_base_tag_t tag,
                        uint8_t flags);
/* a message is in CONN's next slot: the next goes into the one after */
void mca_btl_rwv_sent (mca_btl_rwv_conn_t *conn);
/* keep FRAG until the peer has consumed it, for a replay */
void mca_btl_rwv_conn_retain (mca_btl_rwv_conn_t *conn, mca_btl_rwv_frag_t *frag);
/* is a message of LEN bytes to ENDPOINT split across its rails? */
bool mca_btl_rwv_should_stripe (const mca_btl_rwv_endpoint_t *endpoint, size_t len);
/* an 8-byte word of the peer's ring tail (credits, goodbye) */
int mca_btl_rwv_tail_inject (mca_btl_rwv_conn_t *conn, mca_btl_rwv_ring_tail_word_t word, const uint64_t *value);

END_C_DECLS

#endif /* MCA_BTL_RWV_SEND_H */
