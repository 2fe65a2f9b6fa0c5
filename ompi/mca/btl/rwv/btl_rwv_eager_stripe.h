/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/* Eager messages split across rails and put together again (btl_rwv_eager_stripe.c). */
#ifndef MCA_BTL_RWV_EAGER_STRIPE_H
#define MCA_BTL_RWV_EAGER_STRIPE_H

#include "btl_rwv_endpoint.h"
#include "btl_rwv_frag.h"

BEGIN_C_DECLS

bool mca_btl_rwv_eager_stripe (mca_btl_rwv_endpoint_t *endpoint,
                               mca_btl_rwv_frag_t *frag);
/* NULL, or what is wrong with the piece (the caller reports it) */
const char *mca_btl_rwv_eager_stripe_receive (mca_btl_rwv_endpoint_t *endpoint, uint8_t tag,
                                              const unsigned char *data, size_t len);

END_C_DECLS

#endif /* MCA_BTL_RWV_EAGER_STRIPE_H */
