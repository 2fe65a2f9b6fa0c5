/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/* The eager receive path and what it refuses (btl_rwv_recv.c). */
#ifndef MCA_BTL_RWV_RECV_H
#define MCA_BTL_RWV_RECV_H

#include "btl_rwv_endpoint.h"

BEGIN_C_DECLS

int mca_btl_rwv_conn_poll_ring (mca_btl_rwv_conn_t *conn);
/* hand a message to whoever registered TAG */
void mca_btl_rwv_deliver (mca_btl_rwv_endpoint_t *endpoint, mca_btl_base_tag_t tag, void *payload, size_t len);
/* the peer sent something malformed: say what, close the connection */
void mca_btl_rwv_conn_malformed (mca_btl_rwv_conn_t *conn, const char *what);
/* the peer asked for memory not registered for it: say so once */
void mca_btl_rwv_conn_refused_access (mca_btl_rwv_conn_t *conn, const char *what, uint64_t address, uint64_t key);

END_C_DECLS

#endif /* MCA_BTL_RWV_RECV_H */
