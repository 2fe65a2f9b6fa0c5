/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/* Put and get: the request engine (pieces posted, completed, retried) and small puts kept until confirmed (btl_rwv_rdma.c). */
#ifndef MCA_BTL_RWV_RDMA_H
#define MCA_BTL_RWV_RDMA_H

#include "btl_rwv_endpoint.h"
#include "btl_rwv_frag.h"

BEGIN_C_DECLS

/* Is the target of a put, get or atomic memory this process addresses
 * itself?  Its own (the endpoint is itself), or memory the caller has
 * mapped and names with no registration: osc/rdma does so for a window in
 * shared memory on this node, whose address is then valid here, not in
 * the peer.  Anything else is the peer's, named by its registration. */
static inline bool mca_btl_rwv_target_is_local (const mca_btl_rwv_endpoint_t *endpoint,
                                                const mca_btl_base_registration_handle_t *remote_handle)
{
    return endpoint->self || NULL == remote_handle;
}
/* post the waiting pieces where a rail is ready (progress) */
void mca_btl_rwv_rdma_retry (void);
void mca_btl_rwv_conn_confirm_puts (mca_btl_rwv_conn_t *conn, uint64_t mark);
void mca_btl_rwv_conn_repost_puts (mca_btl_rwv_conn_t *conn);

END_C_DECLS

#endif /* MCA_BTL_RWV_RDMA_H */
