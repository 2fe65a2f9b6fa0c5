/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/* Failed connections re-established (btl_rwv_rejoin.c). */
#ifndef MCA_BTL_RWV_REJOIN_H
#define MCA_BTL_RWV_REJOIN_H

#include "btl_rwv_conn.h"

BEGIN_C_DECLS

/* nothing of the failed connection is left on our side */
bool mca_btl_rwv_conn_quiescent (mca_btl_rwv_conn_t *conn);
/* may this failed connection be re-established now? */
bool mca_btl_rwv_conn_may_rejoin (mca_btl_rwv_conn_t *conn);
/* its replay record moves aside for the new connection */
void mca_btl_rwv_conn_rejoin_prepare (mca_btl_rwv_conn_t *conn);
void mca_btl_rwv_conn_rejoined (mca_btl_rwv_conn_t *conn);

END_C_DECLS

#endif /* MCA_BTL_RWV_REJOIN_H */
