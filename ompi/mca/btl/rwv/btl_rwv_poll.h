/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * The polled set (btl_rwv_poll.c): the connections whose rings progress
 * looks at, a dense list a progress pass in another thread may walk
 * while it changes.  A cold connection joins it when a completion says
 * its ring was written (the rails' remote_data and notified events).
 * Connections layer.
 */
#ifndef MCA_BTL_RWV_POLL_H
#define MCA_BTL_RWV_POLL_H

#include "btl_rwv_conn.h"

BEGIN_C_DECLS

/* a new connection joins the polled ones (under the module lock) */
int mca_btl_rwv_poll_add (mca_btl_rwv_conn_t *conn);
/* a connection that needs looking at joins them if not there (under the
 * module lock): on every message sent that waits for the peer */
static inline int mca_btl_rwv_poll_want (mca_btl_rwv_conn_t *conn)
{
    return conn->poll_index < 0 ? mca_btl_rwv_poll_add (conn) : OPAL_SUCCESS;
}
/* a quiet or destroyed connection leaves them (under the module lock) */
void mca_btl_rwv_poll_remove (mca_btl_rwv_conn_t *conn);
/* at finalize, the polled list and every list it replaced */
void mca_btl_rwv_poll_fini (void);
/* the rails' data events (mca_btl_rwv_rail_events_t) */
void mca_btl_rwv_conn_remote_data (mca_btl_rwv_rail_t *rail, mca_btl_rwv_conn_t *from, uint32_t imm);
void mca_btl_rwv_conn_notified (mca_btl_rwv_conn_t *conn);

END_C_DECLS

#endif /* MCA_BTL_RWV_POLL_H */
