/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/* The connection handshake (btl_rwv_handshake.c). */
#ifndef MCA_BTL_RWV_HANDSHAKE_H
#define MCA_BTL_RWV_HANDSHAKE_H

#include "btl_rwv_conn.h"

BEGIN_C_DECLS

/* The table every rail reports through (rail->events): these two and the
 * connection's own (btl_rwv_conn.h) and the polled set's (btl_rwv_poll.h). */
extern const mca_btl_rwv_rail_events_t mca_btl_rwv_conn_events;

/* The rails' connection events that make a connection. */
void mca_btl_rwv_conn_request (mca_btl_rwv_rail_t *rail, void *request, const void *cm_data, size_t cm_len,
                               const mca_btl_rwv_ip_t *src_ip);
void mca_btl_rwv_conn_established (mca_btl_rwv_conn_t *conn, const void *cm_data, size_t cm_len);
/* The active side's request; FIRST_LARGE: it tells the peer that the
 * first message will outgrow a small slot (mca_btl_rwv_conn_first_large). */
void mca_btl_rwv_conn_start (mca_btl_rwv_conn_t *conn, bool first_large);
/* The active side, connected: its first message, then what waited */
void mca_btl_rwv_conn_speak (mca_btl_rwv_conn_t *conn);

END_C_DECLS

#endif /* MCA_BTL_RWV_HANDSHAKE_H */
