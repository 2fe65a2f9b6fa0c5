/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Ring I/O (btl_rwv_ring.h): writes into a peer's ring and its tail,
 * through the rail or, to a ring shared on this node, as stores whose
 * completion waits for the next progress call.
 * Layer: connections (docs/layout.md).
 */
#include "opal_config.h"

#include "btl_rwv.h"
#include "btl_rwv_ring.h"
#include "btl_rwv_shm.h"
#include "btl_rwv_slot.h"

int mca_btl_rwv_ring_inject (mca_btl_rwv_conn_t *conn, const void *buf, size_t len, uint64_t raddr, bool with_imm,
                             uint32_t imm)
{
    if (NULL != conn->peer.ring) {
        mca_btl_rwv_shm_store (conn, buf, len, raddr);
        return OPAL_SUCCESS;
    }
    return conn->rail->ops->inject_write (conn, buf, len, raddr, conn->peer.ring_rkey, with_imm, imm);
}

/* A word of the peer's tail, which stays in its connection's own ring
 * whichever ring our messages go to, under that ring's key. */
int mca_btl_rwv_tail_inject (mca_btl_rwv_conn_t *conn, mca_btl_rwv_ring_tail_word_t word, const uint64_t *value)
{
    uint64_t raddr = conn->peer.tail_raddr + word * sizeof (uint64_t);

    if (NULL != conn->peer.ring) {
        mca_btl_rwv_shm_store (conn, value, sizeof (*value), raddr);
        return OPAL_SUCCESS;
    }
    return conn->rail->ops->inject_write (conn, value, sizeof (*value), raddr, conn->peer.tail_rkey, false, 0);
}

/* A write into the peer's ring that completes through OP: over the rail,
 * or as a store whose completion waits for the next progress call (the
 * caller holds the module lock and may be deep in the PML). */
int mca_btl_rwv_ring_write (mca_btl_rwv_conn_t *conn, const void *buf, size_t len, void *desc, uint64_t raddr,
                            mca_btl_rwv_op_t *op)
{
    if (NULL != conn->peer.ring) {
        mca_btl_rwv_shm_store (conn, buf, len, raddr);
        mca_btl_rwv_op_stored (op);
        return OPAL_SUCCESS;
    }
    return conn->rail->ops->write (conn, buf, len, desc, raddr, conn->peer.ring_rkey, conn->peer.notify_imm,
                                   mca_btl_rwv_imm (conn), false, op);
}

/* The same from COUNT pieces of local memory given as they are (no
 * registration: only where mca_btl_rwv_conn_gathers says so). */
int mca_btl_rwv_ring_write_gathered (mca_btl_rwv_conn_t *conn, const struct iovec *iov, int count, uint64_t raddr,
                                     mca_btl_rwv_op_t *op)
{
    if (NULL != conn->peer.ring) {
        mca_btl_rwv_shm_store_gathered (conn, iov, count, raddr);
        mca_btl_rwv_op_stored (op);
        return OPAL_SUCCESS;
    }
    return conn->rail->ops->write_gather (conn, iov, count, raddr, conn->peer.ring_rkey, conn->peer.notify_imm,
                                          mca_btl_rwv_imm (conn), op);
}

/* A write done as a store completes at the next progress call, never
 * under the caller's lock (it may be deep in the PML). */
void mca_btl_rwv_op_stored (mca_btl_rwv_op_t *op)
{
    op->status = OPAL_SUCCESS;
    opal_list_append (&mca_btl_rwv_component.module->stored, &op->super.super);
}

int mca_btl_rwv_complete_ops (opal_list_t *ops)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    int count = 0;

    while (true) {
        mca_btl_rwv_op_t *op;

        MCA_BTL_RWV_LOCK(module);
        op = (mca_btl_rwv_op_t *) opal_list_remove_first (ops);
        MCA_BTL_RWV_UNLOCK(module);
        if (NULL == op) {
            return count;
        }
        op->complete (op, op->status);
        ++count;
    }
}

/* Before closing at finalize: a write the peer sees before the close
 * (same stream), so it can tell our departure from our death. */
void mca_btl_rwv_conn_say_goodbye (mca_btl_rwv_conn_t *conn)
{
    static const uint64_t one = 1;

    (void) mca_btl_rwv_tail_inject (conn, MCA_BTL_RWV_TAIL_GOODBYE, &one);
}
