/*
 * Zero-copy put and get for ob1's RPUT and RGET protocols.
 *
 * Remote visibility: a put's completion callback runs when the transport
 * reports the write complete.  On connected endpoints whose provider
 * orders writes before later sends (libfabric tcp: FI_ORDER_SAW, the
 * stream is one TCP connection), the FIN that ob1 sends after the callback
 * reaches the target after the data, so the target never reads early.  A
 * get completes when the data is in local memory.
 *
 * A put no larger than the provider's inject size is injected: the source
 * is free again at once, so the callback runs before put returns, and the
 * same stream order keeps any later message behind the data.  That saves
 * the completion event and its CQ read on the origin (an 8-byte flag
 * write, as coll/rdmabar's, is then a single send).
 */
#include "opal_config.h"

#include "btl_rwv.h"
#include "btl_rwv_endpoint.h"
#include "btl_rwv_frag.h"

typedef int (*mca_btl_rwv_rdma_post_fn_t) (mca_btl_rwv_conn_t *conn, void *local, size_t size, void *desc,
                                           uint64_t raddr, uint64_t rkey, mca_btl_rwv_op_t *op);

static void mca_btl_rwv_rdma_complete (mca_btl_rwv_op_t *op, int status)
{
    mca_btl_rwv_rdma_op_t *rdma = (mca_btl_rwv_rdma_op_t *) op;
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;

    rdma->cbfunc (&module->super, rdma->endpoint, rdma->local_address, rdma->local_handle, rdma->cbcontext,
                  rdma->cbdata, status);
    opal_free_list_return (&module->rdma_ops, &op->super);
}

static int mca_btl_rwv_post_write (mca_btl_rwv_conn_t *conn, void *local, size_t size, void *desc,
                                   uint64_t raddr, uint64_t rkey, mca_btl_rwv_op_t *op)
{
    return conn->rail->ops->write (conn, local, size, desc, raddr, rkey, false, 0, op);
}

static int mca_btl_rwv_post_read (mca_btl_rwv_conn_t *conn, void *local, size_t size, void *desc,
                                  uint64_t raddr, uint64_t rkey, mca_btl_rwv_op_t *op)
{
    return conn->rail->ops->read (conn, local, size, desc, raddr, rkey, op);
}

/* A put or get to ourselves is a copy. */
static int mca_btl_rwv_rdma_self (bool is_put, void *local_address, uint64_t remote_address, size_t size)
{
    void *remote = (void *) (uintptr_t) remote_address;

    memcpy (is_put ? remote : local_address, is_put ? local_address : remote, size);
    return OPAL_SUCCESS;
}

static int mca_btl_rwv_rdma (mca_btl_rwv_module_t *module, mca_btl_base_endpoint_t *endpoint, bool is_put,
                             void *local_address, uint64_t remote_address,
                             mca_btl_base_registration_handle_t *local_handle,
                             mca_btl_base_registration_handle_t *remote_handle, size_t size,
                             mca_btl_base_rdma_completion_fn_t cbfunc, void *cbcontext, void *cbdata)
{
    mca_btl_rwv_rdma_post_fn_t post = is_put ? mca_btl_rwv_post_write : mca_btl_rwv_post_read;
    mca_btl_rwv_rdma_op_t *rdma;
    mca_btl_rwv_conn_t *conn;
    mca_btl_rwv_rail_t *rail;
    mca_btl_rwv_reg_t *reg;
    uint64_t raddr, rkey;
    int rc;

    if (endpoint->self) {
        mca_btl_rwv_rdma_self (is_put, local_address, remote_address, size);
        cbfunc (&module->super, endpoint, local_address, local_handle, cbcontext, cbdata, OPAL_SUCCESS);
        return OPAL_SUCCESS;
    }

    MCA_BTL_RWV_LOCK(module);
    conn = mca_btl_rwv_endpoint_conn (endpoint);
    if (OPAL_UNLIKELY(NULL == conn)) {
        MCA_BTL_RWV_UNLOCK(module);
        return OPAL_ERR_UNREACH;
    }
    if (!mca_btl_rwv_conn_ready (conn)) {
        /* ob1 retries later; progress completes the connection meanwhile */
        MCA_BTL_RWV_UNLOCK(module);
        return OPAL_ERR_OUT_OF_RESOURCE;
    }
    rail = conn->rail;
    raddr = mca_btl_rwv_rail_raddr (rail, remote_handle->base, remote_address);
    rkey = remote_handle->rkey[rail->index];
    if (is_put && size <= rail->inject_size &&
        OPAL_SUCCESS == rail->ops->inject_write (conn, local_address, size, raddr, rkey, false, 0)) {
        MCA_BTL_RWV_UNLOCK(module);
        cbfunc (&module->super, endpoint, local_address, local_handle, cbcontext, cbdata, OPAL_SUCCESS);
        return OPAL_SUCCESS;
    }
    rdma = (mca_btl_rwv_rdma_op_t *) opal_free_list_get (&module->rdma_ops);
    if (NULL == rdma) {
        MCA_BTL_RWV_UNLOCK(module);
        return OPAL_ERR_OUT_OF_RESOURCE;
    }
    rdma->op.complete = mca_btl_rwv_rdma_complete;
    rdma->endpoint = endpoint;
    rdma->local_address = local_address;
    rdma->local_handle = local_handle;
    rdma->cbfunc = cbfunc;
    rdma->cbcontext = cbcontext;
    rdma->cbdata = cbdata;

    reg = local_handle ? (mca_btl_rwv_reg_t *) ((char *) local_handle - offsetof (mca_btl_rwv_reg_t, handle)) : NULL;
    rc = post (conn, local_address, size, reg ? reg->desc[rail->index] : NULL, raddr, rkey, &rdma->op);
    if (OPAL_SUCCESS != rc) {
        opal_free_list_return (&module->rdma_ops, &rdma->op.super);
    }
    MCA_BTL_RWV_UNLOCK(module);
    return OPAL_SUCCESS == rc ? rc : OPAL_ERR_OUT_OF_RESOURCE;
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
