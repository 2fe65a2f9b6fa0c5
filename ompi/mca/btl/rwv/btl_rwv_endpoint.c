/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Which of a peer's connections (btl_rwv_conn.c) carries the next
 * message, made and started on demand, and the peer's connections
 * destroyed when it goes.
 * Layer: connections (docs/layout.md).
 */
#include "opal_config.h"

#include <stdlib.h>
#include <string.h>

#include "opal/mca/btl/base/base.h"
#include "rwv_opal_compat.h"
#include "opal/util/output.h"
#include "opal/util/proc.h"

#include "btl_rwv.h"
#include "btl_rwv_conn.h"
#include "btl_rwv_endpoint.h"
#include "btl_rwv_shm.h"
#include "btl_rwv_rejoin.h"
#include "btl_rwv_handshake.h"

/* ------------------------------------------------- a connection for traffic */

/* The connection on local rail `r', created and started if need be (for
 * a first message of LEN bytes, 0: none yet); NULL if it failed or cannot
 * be made, or is being re-established and not TAKE_REJOINING: traffic
 * keeps to the other rails meanwhile. */
static mca_btl_rwv_conn_t *mca_btl_rwv_endpoint_rail_conn (mca_btl_rwv_endpoint_t *endpoint, int r,
                                                          bool take_rejoining, size_t len)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    mca_btl_rwv_conn_t *conn = endpoint->conns[r];

    if (module->rails[r]->down) {
        return NULL;
    }
    /* a large first message readies a ring for the peer's answer, and warns the peer */
    if (NULL == conn &&
        NULL == (conn = mca_btl_rwv_conn_create (endpoint, module->rails[r], mca_btl_rwv_conn_first_large (len)))) {
        return NULL;
    }
    if (MCA_BTL_RWV_CONN_IDLE == conn->state) {
        mca_btl_rwv_conn_start (conn, mca_btl_rwv_conn_first_large (len));
    } else if (MCA_BTL_RWV_CONN_FAILED == conn->state && mca_btl_rwv_conn_may_rejoin (conn)) {
        /* a connected rail, the common case, asks failover nothing */
        mca_btl_rwv_conn_rejoin_prepare (conn);
        mca_btl_rwv_conn_start (conn, false);
    }
    if (MCA_BTL_RWV_CONN_FAILED == conn->state || (conn->replay.rejoining && !take_rejoining)) {
        return NULL;
    }
    return conn;
}

int mca_btl_rwv_endpoint_ready_conns (mca_btl_rwv_endpoint_t *endpoint, mca_btl_rwv_conn_t **conns)
{
    int n = 0;

    for (int i = 0 ; i < endpoint->num_rails && !endpoint->failed ; ++i) {
        mca_btl_rwv_conn_t *conn = mca_btl_rwv_endpoint_rail_conn (endpoint, endpoint->rails[i], false, 0);

        if (NULL != conn && mca_btl_rwv_conn_ready (conn)) {
            conns[n++] = conn;
        }
    }
    return n;
}

/* Behind our small puts while they may not have landed; else by policy.
 * First: the first live rail.  Round robin: the next ready rail, else
 * (nothing ready yet) the first live one, where the message waits. */
mca_btl_rwv_conn_t *mca_btl_rwv_endpoint_conn_chosen (mca_btl_rwv_endpoint_t *endpoint, size_t len)
{
    mca_btl_rwv_conn_t *ready[MCA_BTL_RWV_MAX_RAILS];
    int n;

    if (endpoint->failed) {
        return NULL;
    }
    if (endpoint->unconfirmed_puts > 0 && NULL != endpoint->put_conn &&
        MCA_BTL_RWV_CONN_FAILED != endpoint->put_conn->state) {
        return endpoint->put_conn; /* behind our small puts (btl_rwv_rdma.c) */
    }
    if (MCA_BTL_RWV_EAGER_RAIL_ROUND_ROBIN == mca_btl_rwv_component.eager_rail && endpoint->num_rails > 1 &&
        (n = mca_btl_rwv_endpoint_ready_conns (endpoint, ready)) > 0) {
        return ready[endpoint->next_rail++ % (unsigned) n];
    }
    /* a rail being re-established only when no other is left: the
     * message waits there for it */
    for (int pass = 0 ; pass < 2 ; ++pass) {
        for (int i = 0 ; i < endpoint->num_rails && !endpoint->failed ; ++i) {
            mca_btl_rwv_conn_t *conn = mca_btl_rwv_endpoint_rail_conn (endpoint, endpoint->rails[i], pass > 0, len);

            if (NULL != conn) {
                return conn;
            }
        }
    }
    return NULL;
}

void mca_btl_rwv_endpoint_release (mca_btl_rwv_endpoint_t *endpoint)
{
    for (int i = 0 ; i < MCA_BTL_RWV_MAX_RAILS ; ++i) {
        if (NULL != endpoint->conns[i]) {
            mca_btl_rwv_conn_destroy (endpoint->conns[i]);
        }
    }
    mca_btl_rwv_shm_release (endpoint);
    OBJ_RELEASE(endpoint);
}
