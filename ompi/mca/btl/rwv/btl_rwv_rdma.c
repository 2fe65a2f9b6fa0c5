/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Zero-copy put and get for ob1's RPUT and RGET protocols; the splitting
 * across rails is btl_rwv_stripe.c.
 *
 * Remote visibility: a put's completion callback runs when the transport
 * reports the write complete.  To a remote peer with one rail, on
 * connected endpoints whose provider orders writes before later sends
 * (libfabric tcp: FI_ORDER_SAW, the stream is one TCP connection), that
 * is before the data has landed, but whatever we send after the callback
 * (ob1's FIN, the atomic that releases an osc/rdma lock) reaches the
 * target after the data, so the target never reads early; btl_flush
 * (btl_rwv_flush.c) makes such puts complete at the target when asked.
 * Two kinds of peer get puts that complete only once delivered:
 *  - a multi-rail peer: the FIN may take another rail;
 *  - a peer on this node: osc/rdma keeps its locks in shared memory there
 *    and releases one from a put's callback, outside any stream.
 * With btl_rwv_put_completion delivered every put completes only once
 * delivered, and no put is injected or kept.  Under Open MPI 5.0,
 * btl_rwv_one_sided tells osc/rdma that puts complete remotely
 * (MCA_BTL_FLAGS_RDMA_REMOTE_COMPLETION, without which it uses only its
 * active-message emulation) in the ordered sense above, as btl/uct does
 * for UCX's puts: what osc/rdma needs of it is btl_flush and the order.
 * A get completes when the data is in local memory.
 *
 * A put to a remote one-rail peer no larger than the provider's inject
 * size is injected: the source is free again at once, so the callback
 * runs before put returns, and the same stream order keeps any later
 * message behind the data.  That saves the completion event and its CQ
 * read on the origin (an 8-byte flag write, as coll/rdmabar's, is then a
 * single send).  To a multi-rail peer such a put is injected too, and its
 * callback runs at once, but a copy stays until the put is known to have
 * arrived (see mca_btl_rwv_put_small).  Waiting for each delivery instead
 * would double a barrier's time; ob1's own puts (all above the eager
 * limit) never take this path.
 * Layer: protocol (docs/layout.md).
 */
#include "opal_config.h"

#include "btl_rwv.h"
#include "btl_rwv_cma.h"
#include "btl_rwv_endpoint.h"
#include "btl_rwv_peer.h"
#include "btl_rwv_frag.h"
#include "btl_rwv_rdma.h"
#include "btl_rwv_stripe.h"

/* ------------------------------------------------------------ the request engine */

/* A put or get is posted in pieces, one per rail the plan chose
 * (btl_rwv_stripe.c), and its caller is told after the last.  A piece that
 * fails (its rail failed) or finds no room in the transport waits on the
 * module's retry list and is posted again from progress, on any ready rail
 * to the peer. */

static mca_btl_rwv_reg_t *mca_btl_rwv_handle_reg (mca_btl_base_registration_handle_t *handle)
{
    return handle ? (mca_btl_rwv_reg_t *) ((char *) handle - offsetof (mca_btl_rwv_reg_t, handle)) : NULL;
}

static int mca_btl_rwv_piece_post (mca_btl_rwv_piece_t *piece)
{
    mca_btl_rwv_rdma_op_t *request = piece->request;
    mca_btl_rwv_conn_t *conn = piece->conn;
    mca_btl_rwv_rail_t *rail = conn->rail;
    mca_btl_rwv_reg_t *reg = mca_btl_rwv_handle_reg (request->local_handle);
    void *local = (char *) request->local_address + piece->offset;
    void *desc = reg ? reg->desc[rail->index] : NULL;
    uint64_t raddr = mca_btl_rwv_rail_raddr (rail, request->remote_handle.base, request->remote_address + piece->offset);
    uint64_t rkey = request->remote_handle.rkey[conn->peer.rail];

    int rc;

    if (request->is_put) {
        bool delivered = mca_btl_rwv_endpoint_puts_delivered (conn->endpoint);

        rc = rail->ops->write (conn, local, piece->len, desc, raddr, rkey, false, 0, delivered, &piece->op);
        conn->undelivered_puts += !delivered;
    } else {
        rc = rail->ops->read (conn, local, piece->len, desc, raddr, rkey, &piece->op);
    }
    if (OPAL_SUCCESS == rc) {
        conn->pieces_out++;
        if (conn->endpoint->num_rails > 1) {
            mca_btl_rwv_meter_busy (conn, piece->len);
        }
    }
    return rc;
}

static void mca_btl_rwv_request_release (mca_btl_rwv_rdma_op_t *request)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;

    MCA_BTL_RWV_LOCK(module);
    if (NULL != request->copy) {
        mca_btl_rwv_frag_return (request->copy);
    }
    request->endpoint->unconfirmed_puts -= NULL != request->copy;
    request->endpoint->ops_out--;
    mca_btl_rwv_list_return (&module->rdma_ops, &request->super);
    MCA_BTL_RWV_UNLOCK(module);
}

/* A small put's caller was told at the start; its delivery confirms the
 * small puts injected before it on the same stream. */
static void mca_btl_rwv_request_done (mca_btl_rwv_rdma_op_t *request, mca_btl_rwv_conn_t *conn)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;

    if (NULL == request->copy && NULL != request->cbfunc) {
        request->cbfunc (&module->super, request->endpoint, request->local_address, request->local_handle,
                         request->cbcontext, request->cbdata, request->status);
    } else if (OPAL_SUCCESS == request->status && conn == request->kept_conn) {
        MCA_BTL_RWV_LOCK(module);
        mca_btl_rwv_conn_confirm_puts (conn, request->kept_mark);
        MCA_BTL_RWV_UNLOCK(module);
    }
    mca_btl_rwv_request_release (request);
}

static void mca_btl_rwv_piece_done (mca_btl_rwv_piece_t *piece, int status)
{
    mca_btl_rwv_rdma_op_t *request = piece->request;
    mca_btl_rwv_conn_t *conn = piece->conn;

    mca_btl_rwv_list_return (&mca_btl_rwv_component.module->pieces, &piece->op.super);
    if (OPAL_SUCCESS != status) {
        request->status = status;
    }
    if (0 == --request->pieces_left) {
        mca_btl_rwv_request_done (request, conn);
    }
}

/* A delivered piece is done even if its rail has failed since. */
static void mca_btl_rwv_piece_complete (mca_btl_rwv_op_t *op, int status)
{
    mca_btl_rwv_piece_t *piece = (mca_btl_rwv_piece_t *) op;
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    mca_btl_rwv_conn_t *conn = piece->conn;
    mca_btl_rwv_endpoint_t *endpoint = conn->endpoint;

    MCA_BTL_RWV_LOCK(module); /* put() in another thread counts into the same conn */
    conn->pieces_out--;
    conn->rdma_bytes += OPAL_SUCCESS == status ? piece->len : 0;
    if (endpoint->num_rails > 1) {
        mca_btl_rwv_meter_delivered (conn, piece->len, OPAL_SUCCESS == status ? piece->len : 0);
    }
    MCA_BTL_RWV_UNLOCK(module);
    if (OPAL_SUCCESS == status) {
        mca_btl_rwv_piece_done (piece, status);
        return;
    }
    MCA_BTL_RWV_LOCK(module);
    if (MCA_BTL_RWV_CONN_FAILED != conn->state) {
        mca_btl_rwv_conn_failed (conn, "a put or get on this rail failed");
    }
    if (!endpoint->failed) {
        opal_list_append (&module->retry, &piece->op.super.super);
        MCA_BTL_RWV_UNLOCK(module);
        return;
    }
    MCA_BTL_RWV_UNLOCK(module);
    mca_btl_rwv_piece_done (piece, OPAL_ERR_UNREACH);
}

/* Post now, or wait on the retry list, which moves it to a ready rail.
 * Callers choose ready connections (mca_btl_rwv_endpoint_ready_conns)
 * under the lock they still hold, except a failover that found none for
 * the small puts it takes off a failed one (mca_btl_rwv_conn_repost_puts). */
static void mca_btl_rwv_piece_start (mca_btl_rwv_piece_t *piece)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;

    if (!mca_btl_rwv_conn_ready (piece->conn) || OPAL_SUCCESS != mca_btl_rwv_piece_post (piece)) {
        opal_list_append (&module->retry, &piece->op.super.super);
    }
}

static int mca_btl_rwv_rdma_start (mca_btl_rwv_rdma_op_t *request, size_t size,
                              mca_btl_rwv_conn_t **conns, int n)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    mca_btl_rwv_piece_t *pieces[MCA_BTL_RWV_MAX_RAILS];
    size_t lens[MCA_BTL_RWV_MAX_RAILS], offset = 0;

    if (n > 1) {
        n = mca_btl_rwv_stripe_plan (conns, n, size, (size_t) mca_btl_rwv_component.stripe_min_size, lens);
    } else {
        lens[0] = size;
    }
    for (int i = 0 ; i < n ; ++i) {
        pieces[i] = (mca_btl_rwv_piece_t *) mca_btl_rwv_list_get (&module->pieces);
        if (NULL == pieces[i]) {
            while (i-- > 0) {
                mca_btl_rwv_list_return (&module->pieces, &pieces[i]->op.super);
            }
            return OPAL_ERR_OUT_OF_RESOURCE;
        }
    }
    request->pieces_left = n;
    request->status = OPAL_SUCCESS;
    for (int i = 0 ; i < n ; ++i) {
        pieces[i]->op.complete = mca_btl_rwv_piece_complete;
        pieces[i]->request = request;
        pieces[i]->conn = conns[i];
        pieces[i]->offset = offset;
        pieces[i]->len = lens[i];
        offset += lens[i];
        mca_btl_rwv_piece_start (pieces[i]);
    }
    return OPAL_SUCCESS;
}

/* The endpoint's put connection, which the eager messages behind its
 * small puts follow (mca_btl_rwv_put_small): a ready one replaces one that
 * is not.  Not ready (or NULL) while no rail is. */
static mca_btl_rwv_conn_t *mca_btl_rwv_ready_put_conn (mca_btl_rwv_endpoint_t *endpoint)
{
    mca_btl_rwv_conn_t *ready[MCA_BTL_RWV_MAX_RAILS];

    if ((NULL == endpoint->put_conn || !mca_btl_rwv_conn_ready (endpoint->put_conn)) &&
        mca_btl_rwv_endpoint_ready_conns (endpoint, ready) > 0) {
        endpoint->put_conn = ready[0];
    }
    return endpoint->put_conn;
}

/* A waiting piece's new rail: any, in turn; a small put's copy keeps its
 * order behind the put connection. */
static mca_btl_rwv_conn_t *mca_btl_rwv_retry_conn (mca_btl_rwv_rdma_op_t *request, mca_btl_rwv_conn_t **ready, int n)
{
    mca_btl_rwv_endpoint_t *endpoint = request->endpoint;

    return NULL == request->copy ? ready[endpoint->next_rail++ % (unsigned) n] : mca_btl_rwv_ready_put_conn (endpoint);
}

/* Post the waiting pieces where there is a ready rail; give up on those whose peer is gone. */
void mca_btl_rwv_rdma_retry (void)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    mca_btl_rwv_piece_t *piece, *next;
    opal_list_t failed;

    OBJ_CONSTRUCT(&failed, opal_list_t);
    MCA_BTL_RWV_LOCK(module);
    OPAL_LIST_FOREACH_SAFE(piece, next, &module->retry, mca_btl_rwv_piece_t) {
        mca_btl_rwv_endpoint_t *endpoint = piece->request->endpoint;
        mca_btl_rwv_conn_t *ready[MCA_BTL_RWV_MAX_RAILS];
        int n;

        opal_list_remove_item (&module->retry, &piece->op.super.super);
        if (endpoint->failed || !mca_btl_rwv_endpoint_has_live_rail (endpoint, NULL)) {
            opal_list_append (&failed, &piece->op.super.super);
            continue;
        }
        if (!mca_btl_rwv_conn_ready (piece->conn) &&
            (n = mca_btl_rwv_endpoint_ready_conns (endpoint, ready)) > 0) {
            piece->conn = mca_btl_rwv_retry_conn (piece->request, ready, n);
        }
        if (!mca_btl_rwv_conn_ready (piece->conn) || OPAL_SUCCESS != mca_btl_rwv_piece_post (piece)) {
            opal_list_append (&module->retry, &piece->op.super.super);
            break; /* the transport is full or the rails are still connecting: later */
        }
    }
    MCA_BTL_RWV_UNLOCK(module);
    while (NULL != (piece = (mca_btl_rwv_piece_t *) opal_list_remove_first (&failed))) {
        mca_btl_rwv_piece_done (piece, OPAL_ERR_UNREACH);
    }
    OBJ_DESTRUCT(&failed);
}

/* ------------------------------------------------------------ put and get */

/* A put or get to ourselves, or to memory mapped here (osc/rdma passes no
 * remote handle for a shared-memory window on one node), is a copy. */
static int mca_btl_rwv_rdma_self (bool is_put, void *local_address, uint64_t remote_address, size_t size)
{
    void *remote = (void *) (uintptr_t) remote_address;

    memcpy (is_put ? remote : local_address, is_put ? local_address : remote, size);
    return OPAL_SUCCESS;
}

/* Done at once: osc/rdma passes no callback when it relies on btl_flush. */
static void mca_btl_rwv_rdma_told (mca_btl_base_endpoint_t *endpoint,
                                   void *local_address, mca_btl_base_registration_handle_t *local_handle,
                                   mca_btl_base_rdma_completion_fn_t cbfunc, void *cbcontext, void *cbdata)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;

    if (NULL != cbfunc) {
        cbfunc (&module->super, endpoint, local_address, local_handle, cbcontext, cbdata, OPAL_SUCCESS);
    }
}

/* One rail to the peer: a small put goes out at once, without a request. */
static bool mca_btl_rwv_put_inject (mca_btl_rwv_conn_t *conn, void *local_address, uint64_t remote_address,
                                    mca_btl_base_registration_handle_t *remote_handle, size_t size)
{
    mca_btl_rwv_rail_t *rail = conn->rail;

    if (mca_btl_rwv_endpoint_puts_delivered (conn->endpoint) || size > rail->inject_size ||
        OPAL_SUCCESS != rail->ops->inject_write (conn, local_address, size,
                                                 mca_btl_rwv_rail_raddr (rail, remote_handle->base, remote_address),
                                                 remote_handle->rkey[conn->peer.rail], false, 0)) {
        return false;
    }
    conn->undelivered_puts++;
    return true;
}

/* A small put to a multi-rail peer is copied into a registered buffer and
 * injected, and its caller is told at once.  Two things keep that safe:
 *  - ordering: until the put is known to have landed, every eager message
 *    to the peer (ob1's FIN after the 1-byte tail of a large message, say)
 *    takes the same rail, behind it in the stream
 *    (mca_btl_rwv_endpoint_conn);
 *  - failover: the copy stays until then, and is written again elsewhere
 *    should the rail fail (btl_rwv_failover.c), the eager messages behind
 *    it following it to that rail.
 * It is known to have landed when the peer has consumed an eager message
 * written after it (mca_btl_rwv_conn_release_acked), or when a later small
 * put completes delivered: every MCA_BTL_RWV_CONFIRM_EVERY-th is written
 * from its copy delivery-complete, for peers that get no eager messages
 * (coll/rdmabar's flags). */
#define MCA_BTL_RWV_CONFIRM_EVERY 16

static int mca_btl_rwv_put_small (mca_btl_rwv_rdma_op_t *request,
                                  mca_btl_rwv_conn_t *conn, void *local_address)
{
    mca_btl_rwv_endpoint_t *endpoint = request->endpoint;
    mca_btl_rwv_frag_t *copy = mca_btl_rwv_frag_alloc (endpoint, MCA_BTL_DES_FLAGS_BTL_OWNERSHIP);
    mca_btl_rwv_rail_t *rail;

    if (NULL == copy) {
        return OPAL_ERR_OUT_OF_RESOURCE;
    }
    if (NULL != endpoint->put_conn && mca_btl_rwv_conn_ready (endpoint->put_conn)) {
        conn = endpoint->put_conn; /* one stream for them all: one order */
    }
    rail = conn->rail;
    endpoint->put_conn = conn;
    endpoint->unconfirmed_puts++;
    memcpy (copy->buf, local_address, request->size);
    request->copy = copy;
    request->local_address = copy->buf;
    request->local_handle = &copy->reg->handle;
    request->kept_conn = conn;
    request->kept_mark = ++conn->small_puts;
    conn->undelivered_puts++; /* a flush confirms it */
    if (0 != request->kept_mark % MCA_BTL_RWV_CONFIRM_EVERY &&
        OPAL_SUCCESS == rail->ops->inject_write (conn, copy->buf, request->size,
                                                 mca_btl_rwv_rail_raddr (rail, request->remote_handle.base,
                                                                         request->remote_address),
                                                 request->remote_handle.rkey[conn->peer.rail], false, 0)) {
        opal_list_append (&conn->kept_puts, &request->super.super);
        return OPAL_SUCCESS;
    }
    return mca_btl_rwv_rdma_start (request, request->size, &conn, 1);
}

void mca_btl_rwv_conn_confirm_puts (mca_btl_rwv_conn_t *conn, uint64_t mark)
{
    while (!opal_list_is_empty (&conn->kept_puts)) {
        mca_btl_rwv_rdma_op_t *request = (mca_btl_rwv_rdma_op_t *) opal_list_get_first (&conn->kept_puts);

        if (request->kept_mark >= mark) {
            return;
        }
        opal_list_remove_first (&conn->kept_puts);
        mca_btl_rwv_request_release (request);
    }
}

/* `conn' failed: its unconfirmed small puts go to a ready rail, which
 * the eager messages to the peer then follow (see above).  Should no rail
 * be ready yet, they wait on the retry list. */
void mca_btl_rwv_conn_repost_puts (mca_btl_rwv_conn_t *conn)
{
    mca_btl_rwv_endpoint_t *endpoint = conn->endpoint;
    mca_btl_rwv_conn_t *to;
    mca_btl_rwv_rdma_op_t *request;

    if (endpoint->put_conn == conn) {
        endpoint->put_conn = NULL;
    }
    /* none ready yet: posted on a connection not ready, they go to the retry list */
    to = mca_btl_rwv_ready_put_conn (endpoint);
    to = NULL != to ? to : conn;
    while (NULL != (request = (mca_btl_rwv_rdma_op_t *) opal_list_remove_first (&conn->kept_puts))) {
        request->kept_conn = NULL;
        if (OPAL_SUCCESS != mca_btl_rwv_rdma_start (request, request->size, &to, 1)) {
            mca_btl_rwv_request_release (request);
        }
    }
}

/* Memory handed over for a same-node peer is not registered
 * (btl_rwv_cma.c); a handle from the network may say so too. */
static bool mca_btl_rwv_single_copy_only (const mca_btl_base_registration_handle_t *handle)
{
    return NULL != handle && (handle->flags & MCA_BTL_RWV_HANDLE_SINGLE_COPY);
}

static int mca_btl_rwv_rdma (mca_btl_base_endpoint_t *endpoint, bool is_put,
                             void *local_address, uint64_t remote_address,
                             mca_btl_base_registration_handle_t *local_handle,
                             mca_btl_base_registration_handle_t *remote_handle, size_t size,
                             mca_btl_base_rdma_completion_fn_t cbfunc, void *cbcontext, void *cbdata)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    mca_btl_rwv_conn_t *conns[MCA_BTL_RWV_MAX_RAILS];
    mca_btl_rwv_rdma_op_t *request;
    bool told_now = false;
    int n, rc;

    if (mca_btl_rwv_target_is_local (endpoint, remote_handle)) {
        mca_btl_rwv_rdma_self (is_put, local_address, remote_address, size);
        mca_btl_rwv_rdma_told (endpoint, local_address, local_handle, cbfunc, cbcontext, cbdata);
        return OPAL_SUCCESS;
    }
    if (endpoint->cma_pid) {
        rc = mca_btl_rwv_cma_copy (endpoint, is_put, local_address, remote_address, size);
        if (OPAL_SUCCESS == rc) {
            mca_btl_rwv_rdma_told (endpoint, local_address, local_handle, cbfunc, cbcontext, cbdata);
        }
        if (OPAL_ERR_NOT_AVAILABLE != rc) {
            return rc;
        }
    }

    if (mca_btl_rwv_single_copy_only (local_handle) || mca_btl_rwv_single_copy_only (remote_handle)) {
        /* registered for no rail, and no single copy to this peer: ob1
         * turns a get into a put and a put into eager copies */
        return OPAL_ERR_NOT_AVAILABLE;
    }
    MCA_BTL_RWV_LOCK(module);
    n = mca_btl_rwv_endpoint_ready_conns (endpoint, conns);
    if (OPAL_UNLIKELY(0 == n)) {
        /* ob1 retries later; progress completes the connections meanwhile */
        rc = endpoint->failed || !mca_btl_rwv_endpoint_has_live_rail (endpoint, NULL) ? OPAL_ERR_UNREACH
                                                                                      : OPAL_ERR_OUT_OF_RESOURCE;
        goto out;
    }
    if (is_put && mca_btl_rwv_put_inject (conns[0], local_address, remote_address, remote_handle, size)) {
        told_now = true;
        rc = OPAL_SUCCESS;
        goto out;
    }
    request = (mca_btl_rwv_rdma_op_t *) mca_btl_rwv_list_get (&module->rdma_ops);
    if (NULL == request) {
        rc = OPAL_ERR_OUT_OF_RESOURCE;
        goto out;
    }
    endpoint->ops_out++; /* until mca_btl_rwv_request_release */
    request->endpoint = endpoint;
    request->is_put = is_put;
    request->local_address = local_address;
    request->remote_address = remote_address;
    request->local_handle = local_handle;
    request->remote_handle = *remote_handle;
    request->cbfunc = cbfunc;
    request->cbcontext = cbcontext;
    request->cbdata = cbdata;
    request->copy = NULL;
    request->size = size;
    request->kept_conn = NULL;
    if (is_put && size <= conns[0]->rail->inject_size && endpoint->num_rails > 1 &&
        !mca_btl_rwv_puts_complete_remotely ()) {
        rc = mca_btl_rwv_put_small (request, conns[0], local_address);
    } else {
        rc = mca_btl_rwv_rdma_start (request, size, conns, n);
    }
    /* read before unlocking: another thread's progress may release it */
    told_now = OPAL_SUCCESS == rc && NULL != request->copy;
    if (OPAL_SUCCESS != rc) {
        mca_btl_rwv_request_release (request);
    }
out:
    MCA_BTL_RWV_UNLOCK(module);
    if (told_now) {
        mca_btl_rwv_rdma_told (endpoint, local_address, local_handle, cbfunc, cbcontext, cbdata);
    }
    return rc;
}

int mca_btl_rwv_put (mca_btl_base_module_t *btl, mca_btl_base_endpoint_t *endpoint, void *local_address,
                     uint64_t remote_address, mca_btl_base_registration_handle_t *local_handle,
                     mca_btl_base_registration_handle_t *remote_handle, size_t size, int flags, int order,
                     mca_btl_base_rdma_completion_fn_t cbfunc, void *cbcontext, void *cbdata)
{
    return mca_btl_rwv_rdma (endpoint, true, local_address, remote_address,
                             local_handle, remote_handle, size, cbfunc, cbcontext, cbdata);
}

int mca_btl_rwv_get (mca_btl_base_module_t *btl, mca_btl_base_endpoint_t *endpoint, void *local_address,
                     uint64_t remote_address, mca_btl_base_registration_handle_t *local_handle,
                     mca_btl_base_registration_handle_t *remote_handle, size_t size, int flags, int order,
                     mca_btl_base_rdma_completion_fn_t cbfunc, void *cbcontext, void *cbdata)
{
    return mca_btl_rwv_rdma (endpoint, false, local_address, remote_address,
                             local_handle, remote_handle, size, cbfunc, cbcontext, cbdata);
}
