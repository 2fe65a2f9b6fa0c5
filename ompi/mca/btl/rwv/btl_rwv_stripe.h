/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/* How a put or get is shared across rails, and the bandwidth meter that decides it (btl_rwv_stripe.c). */
#ifndef MCA_BTL_RWV_STRIPE_H
#define MCA_BTL_RWV_STRIPE_H

#include "btl_rwv_conn.h"
#include "btl_rwv_frag.h"

BEGIN_C_DECLS

int mca_btl_rwv_stripe_plan (mca_btl_rwv_conn_t **conns, int n, size_t size, size_t min_piece, size_t *lens);
/* the meter: a piece of BYTES posted on CONN; one of POSTED bytes done, BYTES of them delivered */
void mca_btl_rwv_meter_busy (mca_btl_rwv_conn_t *conn, size_t bytes);
void mca_btl_rwv_meter_delivered (mca_btl_rwv_conn_t *conn, size_t posted, size_t bytes);

END_C_DECLS

#endif /* MCA_BTL_RWV_STRIPE_H */
