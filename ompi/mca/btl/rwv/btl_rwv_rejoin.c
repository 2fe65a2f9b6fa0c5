/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * A failed rail rejoins (btl_rwv_rejoin.h): once its link is up and
 * nothing of the failed connection is left on our side (no queued,
 * unconsumed or in-flight message, no put/get piece, no unconfirmed
 * small put), the next traffic to the peer starts a new connection on it
 * in the background, retried with a doubling delay.  The failed
 * connection's replay record stays beside the new one for the replays
 * still on their way (btl_rwv_failover.c).
 * Layer: connections (docs/layout.md).
 */
#include "opal_config.h"

#include <stdlib.h>

#include "opal/mca/btl/base/base.h"
#include "opal/util/output.h"
#include "opal/util/proc.h"

#include "btl_rwv.h"
#include "btl_rwv_endpoint.h"
#include "btl_rwv_rejoin.h"

/* Nothing of the failed connection is left on our side (and it was not
 * closed for a malformed message, which is for good): no queued,
 * unconsumed or in-flight message, no put/get piece, no unconfirmed small
 * put (failover has handed them all to other rails, and the transport has
 * given back what it held). */
bool mca_btl_rwv_conn_quiescent (mca_btl_rwv_conn_t *conn)
{
    return !conn->replay.no_rejoin && opal_list_is_empty (&conn->pending) && opal_list_is_empty (&conn->replay.unacked) &&
           opal_list_is_empty (&conn->kept_puts) && 0 == conn->pieces_out;
}

/* Only the higher rank re-establishes a rail, the side that wins when
 * both connect at once: no attempt is made only to be refused. */
/* Asked on every send that meets a failed rail: the flags first, the
 * clock only when they allow it. */
bool mca_btl_rwv_conn_may_rejoin (mca_btl_rwv_conn_t *conn)
{
    const mca_btl_rwv_rail_t *rail = conn->rail;

    return MCA_BTL_RWV_CONN_FAILED == conn->state && !conn->replay.no_rejoin && !conn->endpoint->failed &&
           conn->endpoint->num_rails > 1 && !rail->down && 0 == rail->link_lost_at &&
           opal_compare_proc (opal_proc_local_get ()->proc_name, conn->endpoint->proc->proc_name) > 0 &&
           mca_btl_rwv_now () >= conn->replay.rejoin_at && mca_btl_rwv_conn_quiescent (conn);
}

/* The failed connection's replay record moves aside for the new one. */
void mca_btl_rwv_conn_rejoin_prepare (mca_btl_rwv_conn_t *conn)
{
    free (conn->replay.before.seen);
    conn->replay.before = (mca_btl_rwv_replay_window_t) {.attempt = conn->attempt, .recv_seq = conn->local.recv_seq,
                                                  .seen = conn->replay.seen};
    conn->replay.seen = NULL;
    conn->replay.rejoining = true;
}

void mca_btl_rwv_conn_rejoined (mca_btl_rwv_conn_t *conn)
{
    conn->replay.rejoining = false;
    conn->replay.rejoin_backoff = 0;
    conn->replay.rejoins++;
    opal_output_verbose (MCA_BASE_VERBOSE_WARN, opal_btl_base_framework.framework_output,
                         "btl/rwv: %s: the rail to %s (%s) is re-established", conn->rail->name,
                         mca_btl_rwv_peer_host (conn->endpoint), OPAL_NAME_PRINT(conn->endpoint->proc->proc_name));
}
