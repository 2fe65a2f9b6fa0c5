/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * btl_flush: return once every put, get and atomic started before the call
 * has completed at the target, as osc/rdma needs at the end of an epoch.
 *
 * Gets and atomics complete only once the target has answered.  Puts to a
 * multi-rail peer complete once delivered.  Puts to a one-rail peer
 * complete when the transport is done with the source, which is before the
 * target has the data: such a put leaves its connection "unflushed", and a
 * flush sends a marker there: an 8-byte read where the rail orders reads
 * after writes, else an 8-byte write that completes only once delivered.
 * Either completes only once every write before it on the connection has
 * landed.  The marker also confirms the small puts kept for failover
 * before it (btl_rwv_rdma.c).
 *
 * An atomic request proves the same: the target answers it only once it
 * has read it from its ring, behind every write before it on the stream.
 * osc/rdma 4.1.0-4.1.4, whose network atomics rwv turns off
 * (btl_rwv_osc.c), ends each fetch-and-op and accumulate by releasing its
 * lock on the target with one, just before the flush, which then needs no
 * marker of its own: four round trips instead of five.
 * Layer: protocol (docs/layout.md).
 */
#include "opal_config.h"

#include "opal/runtime/opal_progress.h"

#include "btl_rwv.h"
#include "btl_rwv_endpoint.h"
#include "btl_rwv_flush.h"
#include "btl_rwv_frag.h"
#include "btl_rwv_rdma.h"
#include "btl_rwv_send.h"

static void mca_btl_rwv_marker_complete (mca_btl_rwv_op_t *op, int status)
{
    mca_btl_rwv_piece_t *marker = (mca_btl_rwv_piece_t *) op;
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    mca_btl_rwv_conn_t *conn = marker->conn;

    MCA_BTL_RWV_LOCK(module);
    if (OPAL_SUCCESS == status) {
        mca_btl_rwv_conn_confirm_puts (conn, marker->puts_before + 1);
    } else if (MCA_BTL_RWV_CONN_FAILED != conn->state) {
        mca_btl_rwv_conn_failed (conn, "a flush marker on this rail failed");
    }
    conn->endpoint->ops_out--;
    mca_btl_rwv_list_return (&module->pieces, &op->super);
    MCA_BTL_RWV_UNLOCK(module);
}

/* A read where the rail orders reads after writes: an 8-byte put and
 * flush between emulated nodes took 16.8-18.5 us with it, 18.8-21.2 with
 * a delivered write, whose acknowledgement comes later than a read's
 * answer. */
static int mca_btl_rwv_marker_post (mca_btl_rwv_conn_t *conn,
                                    mca_btl_rwv_piece_t *marker)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    mca_btl_rwv_rail_t *rail = conn->rail;
    void *desc = module->marker->reg->desc[rail->index];

    if (rail->reads_after_writes) {
        return rail->ops->read (conn, module->marker->buf, sizeof (uint64_t), desc, mca_btl_rwv_conn_marker_raddr (conn),
                                conn->peer.tail_rkey, &marker->op);
    }
    return rail->ops->write (conn, module->marker->buf, sizeof (uint64_t), desc, mca_btl_rwv_conn_marker_raddr (conn),
                             conn->peer.tail_rkey, false, 0, true, &marker->op);
}

static bool mca_btl_rwv_conn_unflushed (const mca_btl_rwv_conn_t *conn)
{
    return conn->covered_puts != conn->undelivered_puts;
}

/* A failed rail needs no marker: its puts moved to another rail and are counted there. */
static void mca_btl_rwv_conn_mark (mca_btl_rwv_conn_t *conn)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    mca_btl_rwv_piece_t *marker;

    if (!mca_btl_rwv_conn_unflushed (conn) || !mca_btl_rwv_conn_ready (conn)) {
        return;
    }
    marker = (mca_btl_rwv_piece_t *) mca_btl_rwv_list_get (&module->pieces);
    if (NULL == marker) {
        return; /* tried again on the next pass of the flush loop */
    }
    marker->op.complete = mca_btl_rwv_marker_complete;
    marker->request = NULL;
    marker->conn = conn;
    marker->puts_before = conn->small_puts;
    if (OPAL_SUCCESS != mca_btl_rwv_marker_post (conn, marker)) {
        mca_btl_rwv_list_return (&module->pieces, &marker->op.super);
        return;
    }
    conn->covered_puts = conn->undelivered_puts;
    conn->endpoint->ops_out++;
}

/* Marks the peer's connections that need it, and folds the peer's state
 * into the pass's. */
static void mca_btl_rwv_endpoint_pass (mca_btl_rwv_endpoint_t *endpoint,
                                       bool *flushed, bool *failed)
{
    bool marked = true;

    for (int i = 0 ; i < MCA_BTL_RWV_MAX_RAILS ; ++i) {
        if (NULL != endpoint->conns[i]) {
            mca_btl_rwv_conn_mark (endpoint->conns[i]);
            /* a marker the transport had no room for is tried again */
            marked = marked && !(mca_btl_rwv_conn_unflushed (endpoint->conns[i]) &&
                                 mca_btl_rwv_conn_ready (endpoint->conns[i]));
        }
    }
    *flushed = *flushed && ((0 == endpoint->ops_out && marked) || endpoint->failed);
    *failed = *failed || endpoint->failed;
}

/* Only for the one connection of a one-rail peer, which every eager
 * message takes: a peer of several rails is written puts that complete
 * delivered, but for small ones, and its requests may take any rail.
 * Puts posted meanwhile by another thread may go before or after the
 * request, so none that come later count. */
mca_btl_rwv_proof_t mca_btl_rwv_flush_prove (mca_btl_rwv_endpoint_t *endpoint)
{
    mca_btl_rwv_proof_t proof = {.conn = mca_btl_rwv_endpoint_only_conn (endpoint)};

    if (NULL != proof.conn) {
        proof.before = proof.conn->covered_puts;
        proof.after = proof.conn->covered_puts = proof.conn->undelivered_puts;
    }
    return proof;
}

/* Undone only if nothing covered more since: a marker that did would
 * be sent again, which costs a round trip and never correctness. */
void mca_btl_rwv_flush_unprove (const mca_btl_rwv_proof_t *proof)
{
    if (NULL != proof->conn && proof->conn->covered_puts == proof->after) {
        proof->conn->covered_puts = proof->before;
    }
}

/* One peer, or all (NULL).  The marks are retried each pass, as a
 * connection may be out of room or not yet ready. */
static bool mca_btl_rwv_flush_pass (mca_btl_rwv_endpoint_t *endpoint, bool *failed)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    bool flushed = true;

    *failed = false;
    MCA_BTL_RWV_LOCK(module);
    if (NULL != endpoint) {
        mca_btl_rwv_endpoint_pass (endpoint, &flushed, failed);
    } else {
        OPAL_LIST_FOREACH(endpoint, &module->endpoint_list, mca_btl_rwv_endpoint_t) {
            mca_btl_rwv_endpoint_pass (endpoint, &flushed, failed);
        }
    }
    MCA_BTL_RWV_UNLOCK(module);
    return flushed;
}

int mca_btl_rwv_flush (mca_btl_base_module_t *btl, mca_btl_base_endpoint_t *endpoint)
{
    bool failed;

    while (!mca_btl_rwv_flush_pass (endpoint, &failed)) {
        opal_progress ();
    }
    return failed ? OPAL_ERR_UNREACH : OPAL_SUCCESS;
}
