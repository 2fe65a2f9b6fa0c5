/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/* Puts and gets in pieces across rails: the plan, the bandwidth meter, posting and retrying (btl_rwv_stripe.c). */
#ifndef MCA_BTL_RWV_STRIPE_H
#define MCA_BTL_RWV_STRIPE_H

#include "btl_rwv_endpoint.h"
#include "btl_rwv_frag.h"

BEGIN_C_DECLS

int mca_btl_rwv_stripe_plan (mca_btl_rwv_conn_t **conns, int n, size_t size, size_t min_piece, size_t *lens);
int mca_btl_rwv_stripe_start (mca_btl_rwv_module_t *module, mca_btl_rwv_rdma_op_t *request, size_t size,
                              mca_btl_rwv_conn_t **conns, int n);
void mca_btl_rwv_stripe_retry (mca_btl_rwv_module_t *module);
void mca_btl_rwv_request_release (mca_btl_rwv_rdma_op_t *request);

END_C_DECLS

#endif /* MCA_BTL_RWV_STRIPE_H */
