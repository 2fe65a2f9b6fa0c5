/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/* Batches of eager messages waiting on a connection (btl_rwv_batch.c). */
#ifndef MCA_BTL_RWV_BATCH_H
#define MCA_BTL_RWV_BATCH_H

#include "btl_rwv_conn.h"
#include "btl_rwv_frag.h"

BEGIN_C_DECLS

/* Does what waits on CONN start a batch?  The caller has seen a credit. */
bool mca_btl_rwv_batch_starts (mca_btl_rwv_conn_t *conn);
/* What waits on CONN, as many as the rail and credits allow, in one post;
 * OPAL_SUCCESS if the transport took one or more. */
int mca_btl_rwv_write_batch (mca_btl_rwv_conn_t *conn);
/* Is FRAG, about to wait on CONN, copied so that it can join a batch? */
bool mca_btl_rwv_copy_to_batch (const mca_btl_rwv_conn_t *conn, const mca_btl_rwv_frag_t *frag);

END_C_DECLS

#endif /* MCA_BTL_RWV_BATCH_H */
