/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/* Failed rails and replays (btl_rwv_failover.c). */
#ifndef MCA_BTL_RWV_FAILOVER_H
#define MCA_BTL_RWV_FAILOVER_H

#include "btl_rwv_conn.h"
#include "btl_rwv_frag.h"

BEGIN_C_DECLS

/* What the protocol does when a connection's life changes, for the
 * module to install (module->conn_hooks). */
extern const mca_btl_rwv_conn_hooks_t mca_btl_rwv_proto_hooks;

/* A frag's ring write completed: delivered, or failed over to another rail. */
void mca_btl_rwv_frag_write_complete (mca_btl_rwv_op_t *op, int status);
/* A ring write failed, or its rail did since (the caller checks): true if
 * the frag was handed to another rail */
bool mca_btl_rwv_frag_failover (mca_btl_rwv_frag_t *frag, int status);
void mca_btl_rwv_rail_failed (mca_btl_rwv_conn_t *conn, const char *why);
/* A replay naming the receiver's RAIL, the connection ATTEMPT and SEQ
 * there (low 32 bits) arrived on CONN: NULL (and whether it was delivered before), or
 * what is wrong with it. */
const char *mca_btl_rwv_replay_check (mca_btl_rwv_conn_t *conn, uint8_t rail, uint32_t attempt, uint32_t seq,
                                      bool *duplicate);

END_C_DECLS

#endif /* MCA_BTL_RWV_FAILOVER_H */
