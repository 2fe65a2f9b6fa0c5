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
size_t mca_btl_rwv_ring_bytes (void);
/* a small write into the peer's ring (a store for a same-node peer) */
int mca_btl_rwv_ring_inject (mca_btl_rwv_conn_t *conn, const void *buf, size_t len, uint64_t raddr, bool with_imm,
                             uint32_t imm);
int mca_btl_rwv_complete_stored (void);

END_C_DECLS

#endif /* MCA_BTL_RWV_SEND_H */
