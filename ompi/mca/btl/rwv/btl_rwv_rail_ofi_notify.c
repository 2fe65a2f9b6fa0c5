/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Notifying sends on libfabric rails whose provider carries no remote CQ
 * data (libfabric's verbs provider on iWARP devices reports
 * cq_data_size 0), or where btl_rwv_ofi_cq_data is off.
 *
 *   sends     a ring write the receiver must notice is followed by a
 *             zero-length fi_inject on the same endpoint.  The provider
 *             must order a send after the writes before it (FI_ORDER_SAW):
 *             RC queue pairs and tcp's byte stream also place the writes
 *             before the send's receive completes.  A send the queue
 *             refuses after its write went is owed, and posted from
 *             progress
 *   receives  each endpoint keeps rail->recv_depth receives posted into one
 *             small sink of the rail; a completion names its endpoint and
 *             so the connection, which counts it as it counts CQ data
 *   closing   marked under rail->lock before fi_close, so that neither a
 *             receive's completion nor an owed send posts to it (progress
 *             runs outside the module lock).  The receives' contexts live
 *             in the endpoint: a provider may report them cancelled after
 *             fi_close (tcp does), so a closed endpoint with receives
 *             unreported stays on rail->closed and is freed once they are,
 *             or when the rail closes (verbs destroys the queue pair
 *             without a word)
 * Layer: transports (docs/layout.md).
 */
#include "opal_config.h"

#include <stdlib.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>

#include "opal/mca/btl/base/base.h"
#include "opal/util/output.h"

#include "btl_rwv.h"
#include "btl_rwv_conn.h"
#include "btl_rwv_rail.h"
#include "btl_rwv_rail_ofi.h"

void mca_btl_rwv_ofi_notify_construct (mca_btl_rwv_ofi_rail_t *rail)
{
    OBJ_CONSTRUCT(&rail->lock, opal_mutex_t);
    OBJ_CONSTRUCT(&rail->owing, opal_list_t);
    OBJ_CONSTRUCT(&rail->closed, opal_list_t);
    OBJ_CONSTRUCT(&rail->abandoned, opal_list_t);
}

void mca_btl_rwv_ofi_ep_init (mca_btl_rwv_ofi_ep_t *oep, mca_btl_rwv_ofi_rail_t *rail)
{
    OBJ_CONSTRUCT(&oep->item, opal_list_item_t);
    oep->rail = rail;
}

static void ofi_ep_free (mca_btl_rwv_ofi_ep_t *oep)
{
    OBJ_DESTRUCT(&oep->item);
    free (oep->recvs);
    free (oep);
}

/* After the rail's endpoints and completion queues are closed: nothing
 * reports any more. */
void mca_btl_rwv_ofi_notify_destruct (mca_btl_rwv_ofi_rail_t *rail)
{
    opal_list_item_t *item;

    while (NULL != (item = opal_list_remove_first (&rail->closed))) {
        ofi_ep_free (mca_btl_rwv_ofi_ep_of_item (item));
    }
    if (NULL != rail->sink_mr) {
        (void) fi_close (&rail->sink_mr->fid);
    }
    OBJ_DESTRUCT(&rail->abandoned);
    OBJ_DESTRUCT(&rail->closed);
    OBJ_DESTRUCT(&rail->owing);
    OBJ_DESTRUCT(&rail->lock);
}

bool mca_btl_rwv_ofi_notify_setup (mca_btl_rwv_ofi_rail_t *rail, const struct fi_info *info)
{
    int slots = mca_btl_rwv_component.eager_slots;
    int rc;

    rail->super.notify_by_send = !mca_btl_rwv_component.ofi_cq_data || info->domain_attr->cq_data_size < sizeof (uint32_t);
    if (!rail->super.notify_by_send) {
        return true;
    }
    if (!(info->tx_attr->msg_order & FI_ORDER_SAW)) {
        opal_output_verbose (MCA_BASE_VERBOSE_WARN, opal_btl_base_framework.framework_output,
                             "btl/rwv: libfabric %s domain %s carries no remote CQ data (cq_data_size %zu) and "
                             "does not order a send after a write (FI_ORDER_SAW): no libfabric rail there",
                             info->fabric_attr->prov_name, info->domain_attr->name, info->domain_attr->cq_data_size);
        return false;
    }
    rail->recv_depth = slots > MCA_BTL_RWV_NOTIFY_RECVS ? slots : MCA_BTL_RWV_NOTIFY_RECVS;
    if (info->rx_attr->size < (size_t) slots) {
        opal_output_verbose (MCA_BASE_VERBOSE_WARN, opal_btl_base_framework.framework_output,
                             "btl/rwv: libfabric %s domain %s: receive queues of %zu cannot hold a receive for "
                             "each of the btl_rwv_eager_slots (%d): no libfabric rail there",
                             info->fabric_attr->prov_name, info->domain_attr->name, info->rx_attr->size, slots);
        return false;
    }
    rail->recv_depth = info->rx_attr->size < (size_t) rail->recv_depth ? (int) info->rx_attr->size : rail->recv_depth;
    rc = fi_mr_reg (rail->domain, &rail->sink, sizeof (rail->sink), FI_RECV, 0, rail->prov_key ? 0 : rail->next_key++,
                    0, &rail->sink_mr, NULL);
    if (0 != rc) {
        opal_output_verbose (MCA_BASE_VERBOSE_WARN, opal_btl_base_framework.framework_output,
                             "btl/rwv: libfabric %s domain %s: registering the receive sink failed: %s",
                             info->fabric_attr->prov_name, info->domain_attr->name, fi_strerror (-rc));
        return false;
    }
    rail->sink_desc = fi_mr_desc (rail->sink_mr);
    opal_output_verbose (MCA_BASE_VERBOSE_INFO, opal_btl_base_framework.framework_output,
                         "btl/rwv: libfabric %s domain %s: %s: a zero-length send follows each ring write the "
                         "receiver must notice; %d receives posted per endpoint", info->fabric_attr->prov_name,
                         info->domain_attr->name,
                         mca_btl_rwv_component.ofi_cq_data ? "no remote CQ data" : "remote CQ data off (btl_rwv_ofi_cq_data)",
                         rail->recv_depth);
    return true;
}

/* ------------------------------------------------------------ receives */

/* 0 or the provider's negative error */
static ssize_t ofi_post_recv (mca_btl_rwv_ofi_ep_t *oep, mca_btl_rwv_ofi_recv_t *recv)
{
    mca_btl_rwv_ofi_rail_t *rail = oep->rail;
    struct iovec iov = {.iov_base = &rail->sink, .iov_len = sizeof (rail->sink)};
    void *desc = rail->sink_desc;
    struct fi_msg msg = {.msg_iov = &iov, .desc = &desc, .iov_count = 1, .context = &recv->op};
    ssize_t rc;

    mca_btl_rwv_op_posted (&recv->op, true);
    rc = fi_recvmsg (oep->ep, &msg, FI_COMPLETION); /* the endpoint completes only what asks to */
    if (0 != rc) {
        mca_btl_rwv_op_posted (&recv->op, false);
    }
    return rc;
}

/* A notifying send arrived (or its receive was cancelled): tell the
 * connection, and post the receive again while the endpoint lives. */
static void ofi_recv_done (mca_btl_rwv_op_t *op, int status)
{
    mca_btl_rwv_ofi_recv_t *recv = (mca_btl_rwv_ofi_recv_t *) op;
    mca_btl_rwv_ofi_ep_t *oep = recv->oep;
    mca_btl_rwv_ofi_rail_t *rail = oep->rail;
    mca_btl_rwv_conn_t *conn = NULL;
    ssize_t rc = -FI_ECANCELED;

    /* an error on a live endpoint is its connection failing: its events say so */
    if (OPAL_SUCCESS == status) {
        OPAL_THREAD_LOCK(&rail->lock);
        if (!oep->closed) {
            conn = oep->conn;
            rc = ofi_post_recv (oep, recv);
        }
        OPAL_THREAD_UNLOCK(&rail->lock);
    }
    if (NULL != conn) {
        conn->rail->events->notified (conn);
    }
    if (0 == rc) {
        return;
    }
    if (-FI_ECANCELED != rc) {
        opal_output_verbose (MCA_BASE_VERBOSE_WARN, opal_btl_base_framework.framework_output,
                             "btl/rwv: %s: a receive for notifying sends could not be posted again: %s",
                             rail->super.name, fi_strerror ((int) -rc));
    }
    /* the last touch: a closed endpoint may be freed once this is 0 */
    (void) __atomic_sub_fetch (&oep->recvs_out, 1, __ATOMIC_RELEASE);
}

int mca_btl_rwv_ofi_post_recvs (mca_btl_rwv_ofi_ep_t *oep)
{
    int depth = oep->rail->recv_depth;
    ssize_t rc;

    oep->recvs = calloc ((size_t) depth, sizeof (*oep->recvs));
    if (NULL == oep->recvs) {
        return -FI_ENOMEM;
    }
    for (int i = 0 ; i < depth ; ++i) {
        oep->recvs[i].oep = oep;
        oep->recvs[i].op.complete = ofi_recv_done;
        __atomic_add_fetch (&oep->recvs_out, 1, __ATOMIC_RELAXED);
        if (0 != (rc = ofi_post_recv (oep, &oep->recvs[i]))) {
            __atomic_sub_fetch (&oep->recvs_out, 1, __ATOMIC_RELAXED);
            return (int) rc;
        }
    }
    return 0;
}

/* ------------------------------------------------------------ sends */

static ssize_t ofi_send_notice (mca_btl_rwv_ofi_ep_t *oep)
{
    return fi_inject (oep->ep, NULL, 0, 0);
}

/* Any notice tells of every write before it (FI_ORDER_SAW), so one sent
 * past those owed tells nothing early.  Only a full queue owes one: any
 * other error is the endpoint failing, which its connection's events
 * report, and the messages are replayed with their notices. */
void mca_btl_rwv_ofi_notify (mca_btl_rwv_conn_t *conn)
{
    mca_btl_rwv_ofi_ep_t *oep = (mca_btl_rwv_ofi_ep_t *) conn->backend;
    mca_btl_rwv_ofi_rail_t *rail = oep->rail;
    ssize_t rc = ofi_send_notice (oep);

    if (-FI_EAGAIN != rc) {
        if (0 != rc) {
            opal_output_verbose (MCA_BASE_VERBOSE_ERROR, opal_btl_base_framework.framework_output,
                                 "btl/rwv: %s: a notifying send failed: %s", rail->super.name,
                                 fi_strerror ((int) -rc));
        }
        return;
    }
    OPAL_THREAD_LOCK(&rail->lock);
    if (0 == oep->sends_owed++) {
        opal_list_append (&rail->owing, &oep->item);
    }
    OPAL_THREAD_UNLOCK(&rail->lock);
}

void mca_btl_rwv_ofi_pay_sends (mca_btl_rwv_ofi_rail_t *rail)
{
    opal_list_item_t *item, *next;

    OPAL_THREAD_LOCK(&rail->lock);
    OPAL_LIST_FOREACH_SAFE(item, next, &rail->owing, opal_list_item_t) {
        mca_btl_rwv_ofi_ep_t *oep = mca_btl_rwv_ofi_ep_of_item (item);

        ssize_t rc = 0;

        while (oep->sends_owed > 0 && 0 == (rc = ofi_send_notice (oep))) {
            --oep->sends_owed;
        }
        if (-FI_EAGAIN != rc) {
            oep->sends_owed = 0; /* the endpoint failed: see mca_btl_rwv_ofi_notify */
        }
        if (0 == oep->sends_owed) {
            opal_list_remove_item (&rail->owing, item);
        }
    }
    OPAL_THREAD_UNLOCK(&rail->lock);
}

/* ------------------------------------------------------------ closing */

void mca_btl_rwv_ofi_ep_retire (mca_btl_rwv_ofi_ep_t *oep)
{
    mca_btl_rwv_ofi_rail_t *rail = oep->rail;

    OPAL_THREAD_LOCK(&rail->lock);
    if (oep->sends_owed > 0) {
        opal_list_remove_item (&rail->owing, &oep->item);
        oep->sends_owed = 0;
    }
    oep->closed = true;
    oep->conn = NULL;
    OPAL_THREAD_UNLOCK(&rail->lock);
}

void mca_btl_rwv_ofi_ep_release (mca_btl_rwv_ofi_ep_t *oep)
{
    mca_btl_rwv_ofi_rail_t *rail = oep->rail;

    if (0 == __atomic_load_n (&oep->recvs_out, __ATOMIC_ACQUIRE)) {
        ofi_ep_free (oep);
    } else {
        opal_list_append (&rail->closed, &oep->item);
    }
}

void mca_btl_rwv_ofi_sweep_closed (mca_btl_rwv_ofi_rail_t *rail)
{
    opal_list_item_t *item, *next;

    OPAL_LIST_FOREACH_SAFE(item, next, &rail->closed, opal_list_item_t) {
        mca_btl_rwv_ofi_ep_t *oep = mca_btl_rwv_ofi_ep_of_item (item);

        if (0 == __atomic_load_n (&oep->recvs_out, __ATOMIC_ACQUIRE)) {
            opal_list_remove_item (&rail->closed, item);
            ofi_ep_free (oep);
        }
    }
}
