/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/* Send rings: a busy connection's messages packed where they are written
 * from, freed by its credits (btl_rwv_send_ring.c). */
#ifndef MCA_BTL_RWV_SEND_RING_H
#define MCA_BTL_RWV_SEND_RING_H

#include "opal/datatype/opal_convertor.h"

#include "btl_rwv_conn.h"

BEGIN_C_DECLS

/* With the lock, for the immediate send to CONN, a one-rail connection
 * that can write now and whose peer's slot fits the message: ob1's header
 * and payload packed into CONN's send ring and written from there with no
 * completion.  OPAL_ERR_NOT_AVAILABLE: CONN has no ring or the message
 * does not go there (send it as a frag); another error: the transport is
 * full. */
int mca_btl_rwv_send_ring_send (mca_btl_rwv_conn_t *conn, opal_convertor_t *convertor, const void *header,
                                size_t header_size, size_t payload_size, mca_btl_base_tag_t tag);
/* CONN is closed or starts afresh (the transport reads no more of its
 * writes): its send ring goes back to the rail. */
void mca_btl_rwv_send_ring_release (mca_btl_rwv_conn_t *conn);
void mca_btl_rwv_send_ring_fini (void);

END_C_DECLS

#endif /* MCA_BTL_RWV_SEND_RING_H */
