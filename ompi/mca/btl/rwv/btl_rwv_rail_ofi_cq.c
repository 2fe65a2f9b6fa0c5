/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * A libfabric rail's completion queues: which one a new endpoint binds
 * to, retiring one an endpoint's closing may have damaged, and reading
 * them all in progress (writes, reads, and with
 * btl_rwv_rail_ofi_notify.c the receives of notifying sends).
 * Layer: transports (docs/layout.md).
 */
#include "opal_config.h"

#include <errno.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>

#include "opal/mca/btl/base/base.h"
#include "opal/util/output.h"

#include "btl_rwv.h"
#include "btl_rwv_conn.h"
#include "btl_rwv_rail.h"
#include "btl_rwv_rail_ofi.h"

int mca_btl_rwv_ofi_cq_open (mca_btl_rwv_ofi_rail_t *rail, int slot)
{
    struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_DATA, .size = 4096, .wait_obj = FI_WAIT_NONE};
    int rc;

    if (NULL != rail->wait) {
        cq_attr.wait_obj = FI_WAIT_SET;
        cq_attr.wait_set = rail->wait;
    }
    rc = fi_cq_open (rail->domain, &cq_attr, &rail->cqs[slot].cq, NULL);
    if (0 != rc && NULL != rail->wait) {
        cq_attr.wait_obj = FI_WAIT_NONE;
        cq_attr.wait_set = NULL;
        rc = fi_cq_open (rail->domain, &cq_attr, &rail->cqs[slot].cq, NULL);
    }
    return rc;
}

/* libfabric 1.17's tcp provider, closing an endpoint that is receiving
 * the data of an RMA read, reports the read cancelled twice and frees its
 * transfer entry twice into the completion queue's pool: a later transfer
 * through that queue can then stall forever.  So an endpoint closed with
 * puts or gets outstanding retires its completion queue: the endpoints
 * made after it (a rail re-established, a new peer) get a fresh one. */
void mca_btl_rwv_ofi_cq_taint (mca_btl_rwv_ofi_ep_t *oep)
{
    if (NULL != oep->conn && oep->conn->pieces_out > 0 && oep->cq_slot == oep->rail->cq_now) {
        oep->rail->cq_tainted = true;
    }
}

/* The queue a new endpoint binds to: a fresh one after a taint, while a
 * slot is free (else the tainted one, said at btl_base_verbose). */
int mca_btl_rwv_ofi_cq_for_new_ep (mca_btl_rwv_ofi_rail_t *rail)
{
    for (int slot = 0 ; rail->cq_tainted && slot < RWV_OFI_MAX_CQS ; ++slot) {
        if (NULL == rail->cqs[slot].cq && 0 == mca_btl_rwv_ofi_cq_open (rail, slot)) {
            if (0 == rail->cqs[rail->cq_now].eps) {
                (void) fi_close (&rail->cqs[rail->cq_now].cq->fid);
                rail->cqs[rail->cq_now].cq = NULL;
            }
            rail->cq_now = slot;
            rail->cq_tainted = false;
        }
    }
    if (rail->cq_tainted) {
        opal_output_verbose (MCA_BASE_VERBOSE_WARN, opal_btl_base_framework.framework_output,
                             "btl/rwv: %s: no completion queue left to replace one an endpoint's closing may have "
                             "damaged", rail->super.name);
        rail->cq_tainted = false;
    }
    return rail->cq_now;
}

void mca_btl_rwv_ofi_cq_release (mca_btl_rwv_ofi_rail_t *rail, int slot)
{
    if (0 == --rail->cqs[slot].eps && slot != rail->cq_now) {
        (void) fi_close (&rail->cqs[slot].cq->fid);
        rail->cqs[slot].cq = NULL;
    }
}

/* A reset or broken connection means the peer's end went away; the tcp
 * provider reports the socket's error when a write meets it. */
static int ofi_op_status (int err)
{
    if (FI_EACCES == err || FI_EKEYREJECTED == err) {
        return OPAL_ERR_PERM;
    }
    if (FI_ECONNRESET == err || EPIPE == err || FI_ENOTCONN == err) {
        return OPAL_ERR_CONNECTION_FAILED;
    }
    return OPAL_ERR_UNREACH;
}

/* Every error queued: a closing reports all it cancelled at once, and
 * each must be seen before what failed is posted again elsewhere. */
static int ofi_cq_errors (mca_btl_rwv_ofi_rail_t *rail, struct fid_cq *cq)
{
    struct fi_cq_err_entry err = {0};
    int count = 0;

    while (fi_cq_readerr (cq, &err, 0) > 0) {
        ++count;
        if (NULL == err.op_context) {
            mca_btl_rwv_count (MCA_BTL_RWV_COUNT_REAPED);
            continue;
        }
        if (err.flags & FI_RECV) {
            /* a receive for notifying sends, cancelled by its endpoint's closing or failed with it */
            mca_btl_rwv_op_report ((mca_btl_rwv_op_t *) err.op_context, OPAL_ERR_UNREACH);
            err = (struct fi_cq_err_entry) {0};
            continue;
        }
        mca_btl_rwv_count (MCA_BTL_RWV_COUNT_REAPED);
        opal_output_verbose (MCA_BASE_VERBOSE_ERROR, opal_btl_base_framework.framework_output,
                             "btl/rwv: %s: operation failed: %s", rail->super.name, fi_strerror (err.err));
        mca_btl_rwv_op_report ((mca_btl_rwv_op_t *) err.op_context, ofi_op_status (err.err));
        err = (struct fi_cq_err_entry) {0};
    }
    return count;
}

static int ofi_poll_cq (mca_btl_rwv_ofi_rail_t *rail, struct fid_cq *cq)
{
    struct fi_cq_data_entry entries[16];
    ssize_t n = fi_cq_read (cq, entries, 16);

    if (-FI_EAVAIL == n) {
        return ofi_cq_errors (rail, cq);
    }
    for (ssize_t i = 0 ; i < n ; ++i) {
        if (entries[i].flags & FI_REMOTE_CQ_DATA) {
            rail->super.events->remote_data (&rail->super, NULL, (uint32_t) entries[i].data);
        } else if (entries[i].flags & FI_RECV) {
            mca_btl_rwv_op_report ((mca_btl_rwv_op_t *) entries[i].op_context, OPAL_SUCCESS); /* a notifying send */
        } else {
            mca_btl_rwv_count (MCA_BTL_RWV_COUNT_REAPED);
            if (NULL != entries[i].op_context) {
                mca_btl_rwv_op_report ((mca_btl_rwv_op_t *) entries[i].op_context, OPAL_SUCCESS);
            }
        }
    }
    return n > 0 ? (int) n : 0;
}

/* A queue read can cost a system call: none without connections. */
int mca_btl_rwv_ofi_poll_completions (mca_btl_rwv_rail_t *r)
{
    mca_btl_rwv_ofi_rail_t *rail = (mca_btl_rwv_ofi_rail_t *) r;
    int count = 0;

    if (0 == r->num_conns) {
        return 0;
    }
    count += ofi_poll_cq (rail, rail->cqs[rail->cq_now].cq);
    for (int slot = 0 ; slot < RWV_OFI_MAX_CQS ; ++slot) {
        if (NULL != rail->cqs[slot].cq && slot != rail->cq_now) {
            count += ofi_poll_cq (rail, rail->cqs[slot].cq);
        }
    }
    if (!opal_list_is_empty (&rail->owing)) {
        mca_btl_rwv_ofi_pay_sends (rail);
    }
    return count;
}
