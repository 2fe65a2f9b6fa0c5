/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/* Atomics performed by the target on behalf of a peer (btl_rwv_atomic.c). */
#ifndef MCA_BTL_RWV_ATOMIC_H
#define MCA_BTL_RWV_ATOMIC_H

#include "btl_rwv_endpoint.h"

BEGIN_C_DECLS

/* NULL, or what is wrong with the message (the caller reports it) */
const char *mca_btl_rwv_atomic_receive (mca_btl_rwv_conn_t *conn, uint8_t tag, const void *payload, size_t len);
void mca_btl_rwv_atomics_fail (mca_btl_rwv_endpoint_t *endpoint);
/* From the connection thread: a request done and answered; false (nothing
 * done) for one it must leave to progress, which refuses it by name */
bool mca_btl_rwv_atomic_serve_request (mca_btl_rwv_conn_t *conn, const void *payload, size_t len);

END_C_DECLS

#endif /* MCA_BTL_RWV_ATOMIC_H */
