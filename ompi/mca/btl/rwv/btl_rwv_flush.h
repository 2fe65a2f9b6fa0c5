/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/* What a flush must still prove of a connection's puts (btl_rwv_flush.c). */
#ifndef MCA_BTL_RWV_FLUSH_H
#define MCA_BTL_RWV_FLUSH_H

#include "btl_rwv_endpoint.h"

BEGIN_C_DECLS

/* Where an answered request proves puts landed, and what it changed. */
typedef struct mca_btl_rwv_proof_t {
    mca_btl_rwv_conn_t *conn;  /* NULL: it proves nothing */
    uint64_t before;           /* the connection's covered_puts before */
    uint64_t after;            /* and after: undone only if nothing covered more since */
} mca_btl_rwv_proof_t;

/* With the lock, before a request that the peer answers is sent to
 * ENDPOINT, with the endpoint's ops_out already counting it: the puts it
 * will be written behind count as proved for the flushes that wait for it. */
mca_btl_rwv_proof_t mca_btl_rwv_flush_prove (mca_btl_rwv_endpoint_t *endpoint);
/* With the lock: the request was not sent after all. */
void mca_btl_rwv_flush_unprove (const mca_btl_rwv_proof_t *proof);

END_C_DECLS

#endif /* MCA_BTL_RWV_FLUSH_H */
