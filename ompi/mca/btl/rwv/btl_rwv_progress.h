/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/* The progress function and the connections it polls (btl_rwv_progress.c). */
#ifndef MCA_BTL_RWV_PROGRESS_H
#define MCA_BTL_RWV_PROGRESS_H

#include "btl_rwv_conn.h"

BEGIN_C_DECLS

int mca_btl_rwv_progress (void);
/* a new connection joins the polled ones (under the module lock) */
int mca_btl_rwv_poll_add (mca_btl_rwv_conn_t *conn);
/* a connection that needs looking at joins them if not there (under the module lock) */
int mca_btl_rwv_poll_want (mca_btl_rwv_conn_t *conn);
/* a quiet or destroyed connection leaves them (under the module lock) */
void mca_btl_rwv_poll_remove (mca_btl_rwv_conn_t *conn);
/* at finalize, the polled list and every list it replaced */
void mca_btl_rwv_poll_fini (void);

END_C_DECLS

#endif /* MCA_BTL_RWV_PROGRESS_H */
