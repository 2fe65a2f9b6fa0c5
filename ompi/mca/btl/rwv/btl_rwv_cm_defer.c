/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * What the connection thread leaves to progress (btl_rwv_cm_defer.h):
 * events that may call up into the PML or touch failover (a failure, a
 * close, a rail re-established, the active side's first message), queued
 * in order per connection and run by the application thread's next
 * progress pass, or thrown away at finalize.
 * Layer: connections (docs/layout.md).
 */
#include "opal_config.h"

#include <stdio.h>
#include <string.h>

#include "btl_rwv.h"
#include "btl_rwv_cm_defer.h"
#include "btl_rwv_handshake.h"


OBJ_CLASS_INSTANCE(mca_btl_rwv_cm_deferred_t, opal_list_item_t, NULL, NULL);

__thread bool mca_btl_rwv_in_cm_thread;

static mca_btl_rwv_cm_deferred_t *rwv_cm_queue (mca_btl_rwv_conn_t *conn, mca_btl_rwv_cm_kind_t kind,
                                                const void *data, size_t len, const char *why)
{
    mca_btl_rwv_cm_deferred_t *event = OBJ_NEW(mca_btl_rwv_cm_deferred_t);

    if (NULL == event) {
        return NULL;
    }
    event->kind = kind;
    event->conn = conn;
    event->len = len < sizeof (event->data) ? len : sizeof (event->data);
    if (event->len) {
        memcpy (event->data, data, event->len);
    }
    snprintf (event->why, sizeof (event->why), "%s", NULL != why ? why : "");
    conn->cm_deferred++;
    opal_list_append (&mca_btl_rwv_component.module->cm.deferred, &event->super);
    return event;
}

bool mca_btl_rwv_cm_defer (mca_btl_rwv_conn_t *conn, mca_btl_rwv_cm_kind_t kind, bool must, const void *data,
                           size_t len, const char *why)
{
    if (!mca_btl_rwv_in_cm_thread || !(must || conn->cm_deferred > 0)) {
        return false;
    }
    /* out of memory: handled here after all, as progress would have */
    return NULL != rwv_cm_queue (conn, kind, data, len, why);
}

bool mca_btl_rwv_cm_defer_request (mca_btl_rwv_rail_t *rail, void *request, const mca_btl_rwv_cm_data_t *cm,
                                   const mca_btl_rwv_ip_t *src_ip, mca_btl_rwv_conn_t *conn)
{
    mca_btl_rwv_cm_deferred_t *event;

    if (!mca_btl_rwv_in_cm_thread || NULL == conn ||
        !(MCA_BTL_RWV_CONN_FAILED == conn->state || conn->cm_deferred > 0)) {
        return false;
    }
    event = rwv_cm_queue (conn, MCA_BTL_RWV_CM_REQUEST, cm, sizeof (*cm), NULL);
    if (NULL == event) {
        return false;
    }
    event->rail = rail;
    event->request = request;
    event->src_ip = *src_ip;
    return true;
}

static void rwv_cm_run_one (mca_btl_rwv_cm_deferred_t *event)
{
    mca_btl_rwv_conn_t *conn = event->conn;

    conn->cm_deferred--;
    switch (event->kind) {
    case MCA_BTL_RWV_CM_REQUEST:
        mca_btl_rwv_conn_request (event->rail, event->request, event->data, event->len, &event->src_ip);
        break;
    case MCA_BTL_RWV_CM_ESTABLISHED:
        mca_btl_rwv_conn_established (conn, event->data, event->len);
        break;
    case MCA_BTL_RWV_CM_REFUSED:
        mca_btl_rwv_conn_refused (conn, event->why);
        break;
    case MCA_BTL_RWV_CM_FAILED:
        mca_btl_rwv_conn_failed (conn, event->why);
        break;
    case MCA_BTL_RWV_CM_CLOSED:
        mca_btl_rwv_conn_closed (conn);
        break;
    case MCA_BTL_RWV_CM_SPEAK:
        mca_btl_rwv_conn_speak (conn);
        break;
    }
}

int mca_btl_rwv_cm_run_deferred (void)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    mca_btl_rwv_cm_deferred_t *event;
    int count = 0;

    if (mca_btl_rwv_in_cm_thread) {
        return 0; /* its own pass (module->deliver) would only defer them again: they wait for the application's */
    }
    MCA_BTL_RWV_LOCK(module);
    while (NULL != (event = (mca_btl_rwv_cm_deferred_t *) opal_list_remove_first (&module->cm.deferred))) {
        rwv_cm_run_one (event);
        OBJ_RELEASE(event);
        ++count;
    }
    MCA_BTL_RWV_UNLOCK(module);
    return count;
}
