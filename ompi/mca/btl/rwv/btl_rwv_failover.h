/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/* Failed rails, replays, link loss and rails re-established (btl_rwv_failover.c). */
#ifndef MCA_BTL_RWV_FAILOVER_H
#define MCA_BTL_RWV_FAILOVER_H

#include "btl_rwv_conn.h"
#include "btl_rwv_frag.h"

BEGIN_C_DECLS

/* A ring write failed, or its rail did since (the caller checks): true if
 * the frag was handed to another rail */
bool mca_btl_rwv_frag_failover (mca_btl_rwv_frag_t *frag, int status);
void mca_btl_rwv_rail_failed (mca_btl_rwv_conn_t *conn, const char *why);
void mca_btl_rwv_check_links (double now);
/* the failed rails due for a report at `now' (HUGE_VAL at finalize: all of them) */
void mca_btl_rwv_report_lost_rails (double now);
void mca_btl_rwv_conn_release_acked (mca_btl_rwv_conn_t *conn);
/* A replay naming the receiver's RAIL, the connection ATTEMPT and SEQ
 * there (low 32 bits) arrived on CONN: NULL (and whether it was delivered before), or
 * what is wrong with it. */
const char *mca_btl_rwv_replay_check (mca_btl_rwv_conn_t *conn, uint8_t rail, uint32_t attempt, uint32_t seq,
                                      bool *duplicate);
bool mca_btl_rwv_conn_quiescent (mca_btl_rwv_conn_t *conn);
/* May this failed connection be re-established now? */
bool mca_btl_rwv_conn_may_rejoin (mca_btl_rwv_conn_t *conn);
void mca_btl_rwv_conn_rejoin_prepare (mca_btl_rwv_conn_t *conn);
void mca_btl_rwv_conn_rejoin_later (mca_btl_rwv_conn_t *conn);
void mca_btl_rwv_conn_rejoined (mca_btl_rwv_conn_t *conn);

END_C_DECLS

#endif /* MCA_BTL_RWV_FAILOVER_H */
