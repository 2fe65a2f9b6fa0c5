/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * The native verbs backend's completions (btl_rwv_rail_verbs.h): the
 * requests in flight each queue pair keeps (a slot per request with an op
 * to call back, so that what soft-iWARP never completes after a failure
 * can be failed here), and the completion queue read, reporting
 * operations through op->complete and ring writes through rail->events.
 *
 * Layer: transports (docs/layout.md).
 */
#include "opal_config.h"
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include "opal/mca/btl/base/base.h"
#include "opal/util/argv.h"
#include "opal/util/output.h"
#include "opal/util/show_help.h"
#include "btl_rwv.h"
#include "btl_rwv_endpoint.h"
#include "btl_rwv_frag.h"
#include "btl_rwv_rail.h"
#include "btl_rwv_rail_verbs.h"

/* ------------------------------------------------------------ requests in flight */

/* A read may go while fewer are in flight than the connection agreed on
 * (MCA_BTL_RWV_VERBS_READS says why). */
static bool verbs_read_room (mca_btl_rwv_verbs_qp_t *vqp)
{
    int out = __atomic_load_n (&vqp->reads_out, __ATOMIC_RELAXED);

    do {
        if (out >= vqp->reads_max) {
            return false;
        }
    } while (!__atomic_compare_exchange_n (&vqp->reads_out, &out, out + 1, false, __ATOMIC_ACQUIRE,
                                           __ATOMIC_RELAXED));
    return true;
}

/* A free slot for a request with OP on VQP, NULL while
 * MCA_BTL_RWV_VERBS_TRACKED are in flight (or, for a read, as many reads
 * as agreed).  Requests are posted from any thread: the free slots are an
 * atomic mask. */
mca_btl_rwv_verbs_slot_t *mca_btl_rwv_verbs_slot_take (mca_btl_rwv_verbs_qp_t *vqp, mca_btl_rwv_op_t *op, bool read)
{
    uint64_t free_slots = __atomic_load_n (&vqp->slots_free, __ATOMIC_RELAXED);
    int k;

    if (read && !verbs_read_room (vqp)) {
        return NULL;
    }
    do {
        if (0 == free_slots) {
            if (read) {
                (void) __atomic_sub_fetch (&vqp->reads_out, 1, __ATOMIC_RELAXED);
            }
            return NULL;
        }
        k = __builtin_ctzll (free_slots);
    } while (!__atomic_compare_exchange_n (&vqp->slots_free, &free_slots, free_slots & ~(1ull << k), false,
                                           __ATOMIC_ACQUIRE, __ATOMIC_RELAXED));
    vqp->slots[k].op = op;
    vqp->slots[k].read = read;
    return &vqp->slots[k];
}

/* The slot's op, once: NULL if its queue pair's retirement failed it already. */
mca_btl_rwv_op_t *mca_btl_rwv_verbs_slot_give (mca_btl_rwv_verbs_slot_t *slot)
{
    mca_btl_rwv_op_t *op = slot->op;

    slot->op = NULL;
    if (slot->read) {
        (void) __atomic_sub_fetch (&slot->vqp->reads_out, 1, __ATOMIC_RELAXED);
    }
    (void) __atomic_fetch_or (&slot->vqp->slots_free, 1ull << (slot - slot->vqp->slots), __ATOMIC_RELEASE);
    return op;
}

uint64_t mca_btl_rwv_verbs_slot_id (const mca_btl_rwv_verbs_slot_t *slot)
{
    return NULL == slot ? 0 : (uintptr_t) slot | MCA_BTL_RWV_VERBS_SLOT_TAG;
}

/* The requests of one retired queue pair still in flight, taken from
 * their slots into OPS; -1 when no queue pair has any left. */
static int verbs_abandoned (mca_btl_rwv_verbs_rail_t *rail, mca_btl_rwv_op_t **ops)
{
    mca_btl_rwv_verbs_qp_t *vqp;
    int count = -1;

    OPAL_THREAD_LOCK(&rail->owing_lock);
    OPAL_LIST_FOREACH(vqp, &rail->dead, mca_btl_rwv_verbs_qp_t) {
        if (vqp->abandon) {
            vqp->abandon = false;
            (void) __atomic_sub_fetch (&rail->abandoned, 1, __ATOMIC_RELAXED);
            count = 0;
            for (int k = 0 ; k < MCA_BTL_RWV_VERBS_TRACKED ; ++k) {
                if (NULL != vqp->slots[k].op) {
                    ops[count++] = vqp->slots[k].op;
                    vqp->slots[k].op = NULL;
                }
            }
            break;
        }
    }
    OPAL_THREAD_UNLOCK(&rail->owing_lock);
    return count;
}

/* A failed connection's requests fail with it, whether or not the device
 * flushes them: soft-iWARP never completes a request that went into a user
 * send queue after the queue pair failed, and it would wait for ever.  A
 * flush that does come later finds the slot empty.  Outside the rail's
 * lock: failover posts them again. */
static void verbs_fail_abandoned (mca_btl_rwv_verbs_rail_t *rail)
{
    mca_btl_rwv_op_t *ops[MCA_BTL_RWV_VERBS_TRACKED];
    int count;

    while (__atomic_load_n (&rail->abandoned, __ATOMIC_ACQUIRE) > 0 && (count = verbs_abandoned (rail, ops)) >= 0) {
        for (int i = 0 ; i < count ; ++i) {
            mca_btl_rwv_op_report (ops[i], OPAL_ERR_UNREACH);
        }
    }
}

/* ------------------------------------------------------------ completions */

static int verbs_op_status (enum ibv_wc_status status)
{
    if (IBV_WC_SUCCESS == status) {
        return OPAL_SUCCESS;
    }
    return IBV_WC_REM_ACCESS_ERR == status || IBV_WC_REM_INV_REQ_ERR == status ? OPAL_ERR_PERM : OPAL_ERR_UNREACH;
}

static void verbs_completion (mca_btl_rwv_verbs_rail_t *rail, const struct ibv_wc *wc)
{
    mca_btl_rwv_op_t *op;

    if (wc->wr_id & MCA_BTL_RWV_VERBS_RECV_TAG) {
        mca_btl_rwv_verbs_qp_t *vqp = (mca_btl_rwv_verbs_qp_t *) (uintptr_t) (wc->wr_id & ~(uint64_t) MCA_BTL_RWV_VERBS_RECV_TAG);

        if (IBV_WC_SUCCESS != wc->status || NULL == vqp->conn) {
            return;
        }
        (void) mca_btl_rwv_verbs_post_recvs (vqp, 1);
        if (IBV_WC_RECV == wc->opcode) {
            rail->super.events->notified (vqp->conn); /* a notifying send: its queue pair names the connection */
        } else {
            rail->super.events->remote_data (&rail->super, vqp->conn, ntohl (wc->imm_data));
        }
        return;
    }
    mca_btl_rwv_count (MCA_BTL_RWV_COUNT_REAPED);
    /* said here for requests without an op too: the write of a fenced
     * pair fails, and its read is only flushed after it */
    if (IBV_WC_SUCCESS != wc->status && IBV_WC_WR_FLUSH_ERR != wc->status) {
        opal_output_verbose (MCA_BASE_VERBOSE_ERROR, opal_btl_base_framework.framework_output,
                             "btl/rwv: %s: operation failed: %s", rail->super.name, ibv_wc_status_str (wc->status));
    }
    if (0 == wc->wr_id) {
        return; /* an inline or fenced write, or a notifying send */
    }
    op = mca_btl_rwv_verbs_slot_give ((mca_btl_rwv_verbs_slot_t *) (uintptr_t) (wc->wr_id & ~(uint64_t) MCA_BTL_RWV_VERBS_SLOT_TAG));
    if (NULL != op) {
        mca_btl_rwv_op_report (op, verbs_op_status (wc->status));
    }
}

int mca_btl_rwv_verbs_poll_completions (mca_btl_rwv_rail_t *r)
{
    mca_btl_rwv_verbs_rail_t *rail = mca_btl_rwv_verbs_rail (r);
    struct ibv_wc wc[16];
    int n = ibv_poll_cq (rail->cq, 16, wc);

    for (int i = 0 ; i < n ; ++i) {
        verbs_completion (rail, wc + i);
    }
    if (!opal_list_is_empty (&rail->owing)) {
        mca_btl_rwv_verbs_pay_sends (rail);
    }
    if (n < 16) {
        verbs_fail_abandoned (rail); /* once the completions already queued are in */
    }
    return n > 0 ? n : 0;
}
