/*
 * Zero-copy put and get for ob1's RPUT and RGET protocols; the splitting
 * across rails is btl_rwv_stripe.c.
 *
 * Remote visibility: a put's completion callback runs when the transport
 * reports the write complete.  To a peer with one rail, on connected
 * endpoints whose provider orders writes before later sends (libfabric
 * tcp: FI_ORDER_SAW, the stream is one TCP connection), the FIN that ob1
 * sends after the callback reaches the target after the data, so the
 * target never reads early.  To a multi-rail peer the FIN may take another
 * rail, so every write there completes only once delivered.  A get
 * completes when the data is in local memory.
 *
 * A put to a one-rail peer no larger than the provider's inject size is injected: the source
 * is free again at once, so the callback runs before put returns, and the
 * same stream order keeps any later message behind the data.  That saves
 * the completion event and its CQ read on the origin (an 8-byte flag
 * write, as coll/rdmabar's, is then a single send).
 */
#include "opal_config.h"

#include "btl_rwv.h"
#include "btl_rwv_endpoint.h"
#include "btl_rwv_frag.h"

/* A put or get to ourselves is a copy. */
static int mca_btl_rwv_rdma_self (bool is_put, void *local_address, uint64_t remote_address, size_t size)
{
    void *remote = (void *) (uintptr_t) remote_address;

    memcpy (is_put ? remote : local_address, is_put ? local_address : remote, size);
    return OPAL_SUCCESS;
}

/* One rail to the peer: a small put goes out at once, without a request. */
static bool mca_btl_rwv_put_inject (mca_btl_rwv_conn_t *conn, void *local_address, uint64_t remote_address,
                                    mca_btl_base_registration_handle_t *remote_handle, size_t size)
{
    mca_btl_rwv_rail_t *rail = conn->rail;

    return !mca_btl_rwv_endpoint_multirail (conn->endpoint) && size <= rail->inject_size &&
        OPAL_SUCCESS == rail->ops->inject_write (conn, local_address, size,
                                                 mca_btl_rwv_rail_raddr (rail, remote_handle->base, remote_address),
                                                 remote_handle->rkey[conn->peer_rail], false, 0);
}

static int mca_btl_rwv_rdma (mca_btl_rwv_module_t *module, mca_btl_base_endpoint_t *endpoint, bool is_put,
                             void *local_address, uint64_t remote_address,
                             mca_btl_base_registration_handle_t *local_handle,
                             mca_btl_base_registration_handle_t *remote_handle, size_t size,
                             mca_btl_base_rdma_completion_fn_t cbfunc, void *cbcontext, void *cbdata)
{
    mca_btl_rwv_conn_t *conns[MCA_BTL_RWV_MAX_RAILS];
    mca_btl_rwv_rdma_op_t *request;
    int n, rc;

    if (endpoint->self) {
        mca_btl_rwv_rdma_self (is_put, local_address, remote_address, size);
        cbfunc (&module->super, endpoint, local_address, local_handle, cbcontext, cbdata, OPAL_SUCCESS);
        return OPAL_SUCCESS;
    }

    MCA_BTL_RWV_LOCK(module);
    n = mca_btl_rwv_endpoint_ready_conns (endpoint, conns);
    if (OPAL_UNLIKELY(0 == n)) {
        /* ob1 retries later; progress completes the connections meanwhile */
        rc = endpoint->failed || !mca_btl_rwv_endpoint_has_live_rail (endpoint, NULL) ? OPAL_ERR_UNREACH
                                                                                      : OPAL_ERR_OUT_OF_RESOURCE;
        MCA_BTL_RWV_UNLOCK(module);
        return rc;
    }
    if (is_put && mca_btl_rwv_put_inject (conns[0], local_address, remote_address, remote_handle, size)) {
        MCA_BTL_RWV_UNLOCK(module);
        cbfunc (&module->super, endpoint, local_address, local_handle, cbcontext, cbdata, OPAL_SUCCESS);
        return OPAL_SUCCESS;
    }
    request = (mca_btl_rwv_rdma_op_t *) opal_free_list_get (&module->rdma_ops);
    if (NULL == request) {
        MCA_BTL_RWV_UNLOCK(module);
        return OPAL_ERR_OUT_OF_RESOURCE;
    }
    request->endpoint = endpoint;
    request->is_put = is_put;
    request->local_address = local_address;
    request->remote_address = remote_address;
    request->local_handle = local_handle;
    request->remote_handle = *remote_handle;
    request->cbfunc = cbfunc;
    request->cbcontext = cbcontext;
    request->cbdata = cbdata;
    rc = mca_btl_rwv_stripe_start (module, request, size, conns, n);
    if (OPAL_SUCCESS != rc) {
        opal_free_list_return (&module->rdma_ops, &request->super);
    }
    MCA_BTL_RWV_UNLOCK(module);
    return rc;
}

int mca_btl_rwv_put (mca_btl_base_module_t *btl, mca_btl_base_endpoint_t *endpoint, void *local_address,
                     uint64_t remote_address, mca_btl_base_registration_handle_t *local_handle,
                     mca_btl_base_registration_handle_t *remote_handle, size_t size, int flags, int order,
                     mca_btl_base_rdma_completion_fn_t cbfunc, void *cbcontext, void *cbdata)
{
    return mca_btl_rwv_rdma ((mca_btl_rwv_module_t *) btl, endpoint, true, local_address, remote_address,
                             local_handle, remote_handle, size, cbfunc, cbcontext, cbdata);
}

int mca_btl_rwv_get (mca_btl_base_module_t *btl, mca_btl_base_endpoint_t *endpoint, void *local_address,
                     uint64_t remote_address, mca_btl_base_registration_handle_t *local_handle,
                     mca_btl_base_registration_handle_t *remote_handle, size_t size, int flags, int order,
                     mca_btl_base_rdma_completion_fn_t cbfunc, void *cbcontext, void *cbdata)
{
    return mca_btl_rwv_rdma ((mca_btl_rwv_module_t *) btl, endpoint, false, local_address, remote_address,
                             local_handle, remote_handle, size, cbfunc, cbcontext, cbdata);
}
