/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/* Put and get: small puts kept until confirmed (btl_rwv_rdma.c). */
#ifndef MCA_BTL_RWV_RDMA_H
#define MCA_BTL_RWV_RDMA_H

#include "btl_rwv_endpoint.h"

BEGIN_C_DECLS

void mca_btl_rwv_conn_confirm_puts (mca_btl_rwv_conn_t *conn, uint64_t mark);
void mca_btl_rwv_conn_repost_puts (mca_btl_rwv_conn_t *conn);

END_C_DECLS

#endif /* MCA_BTL_RWV_RDMA_H */
