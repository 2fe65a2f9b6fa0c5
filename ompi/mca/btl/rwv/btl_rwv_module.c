/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * btl/rwv module: the function table ob1 calls, peer management, buffers
 * and memory registration.
 * Layer: glue (docs/layout.md).
 */
#include "opal_config.h"

#include <math.h>

#include "opal/datatype/opal_convertor.h"
#include "opal/mca/rcache/base/base.h"
#include "opal/util/output.h"
#include "opal/util/show_help.h"

#include "btl_rwv.h"
#include "btl_rwv_cma.h"
#include "btl_rwv_cm_thread.h"
#include "btl_rwv_endpoint.h"
#include "btl_rwv_peer.h"
#include "btl_rwv_frag.h"
#include "btl_rwv_rail.h"
#include "btl_rwv_poll.h"
#include "btl_rwv_hotset.h"
#include "btl_rwv_fetch.h"
#include "btl_rwv_send_ring.h"
#include "btl_rwv_failover.h"
#include "btl_rwv_links.h"
#include "btl_rwv_reg.h"

/* ------------------------------------------------------------ peers */

static int mca_btl_rwv_add_procs (mca_btl_base_module_t *btl, size_t nprocs, opal_proc_t **procs,
                                  mca_btl_base_endpoint_t **endpoints, opal_bitmap_t *reachable)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;

    mca_btl_rwv_offer_one_sided ();
    MCA_BTL_RWV_LOCK(module);
    for (size_t i = 0 ; i < nprocs ; ++i) {
        endpoints[i] = mca_btl_rwv_endpoint_lookup (procs[i], true);
        if (NULL != endpoints[i]) {
            opal_bitmap_set_bit (reachable, (int) i);
        }
    }
    MCA_BTL_RWV_UNLOCK(module);
    return OPAL_SUCCESS;
}

static int mca_btl_rwv_del_procs (mca_btl_base_module_t *btl, size_t nprocs, opal_proc_t **procs,
                                  mca_btl_base_endpoint_t **endpoints)
{
    /* endpoints live until finalize: a connection may still be draining */
    return OPAL_SUCCESS;
}

static int mca_btl_rwv_register_error (mca_btl_base_module_t *btl, mca_btl_base_module_error_cb_fn_t cbfunc)
{
    mca_btl_rwv_component.module->error_cb = cbfunc;
    return OPAL_SUCCESS;
}

/* ------------------------------------------------------------ lifecycle */

/* A free list of requests with no memory of their own to register. */
static int mca_btl_rwv_bookkeeping_list_init (opal_free_list_t *list, size_t size, opal_class_t *class)
{
    return opal_free_list_init (list, size, opal_cache_line_size, class, 0, 0, 64, -1, 64, NULL, 0, NULL, NULL, NULL);
}

int mca_btl_rwv_module_init (void)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    int rc;

    OBJ_CONSTRUCT(&module->eager_frags, opal_free_list_t);
    OBJ_CONSTRUCT(&module->small_frags, opal_free_list_t);
    OBJ_CONSTRUCT(&module->rdma_ops, opal_free_list_t);
    OBJ_CONSTRUCT(&module->pieces, opal_free_list_t);
    OBJ_CONSTRUCT(&module->atomics, opal_free_list_t);
    OBJ_CONSTRUCT(&module->cma_handles, opal_free_list_t);
    OBJ_CONSTRUCT(&module->retry, opal_list_t);
    OBJ_CONSTRUCT(&module->stored, opal_list_t);
    OBJ_CONSTRUCT(&module->reaped, opal_list_t);
    OBJ_CONSTRUCT(&module->endpoints, opal_hash_table_t);
    OBJ_CONSTRUCT(&module->endpoint_list, opal_list_t);
    OBJ_CONSTRUCT(&module->conns, opal_pointer_array_t);
    OBJ_CONSTRUCT(&module->lock, opal_recursive_mutex_t);
    OBJ_CONSTRUCT(&module->cm.deferred, opal_list_t);
    module->conn_hooks = &mca_btl_rwv_proto_hooks;
    module->cm.epoll_fd = module->cm.stop_fd = module->cm.ask_fd = -1;
    module->cm.looks = 0;
    rwv_compat_recv_des_init (&module->upcall_des);
    OBJ_CONSTRUCT(&module->regs, opal_hash_table_t);
    OBJ_CONSTRUCT(&module->regs_lock, opal_mutex_t);
    opal_hash_table_init (&module->endpoints, 256);
    opal_hash_table_init (&module->regs, 256);
    opal_pointer_array_init (&module->conns, 64, 1 << 16, 64);

    rc = mca_btl_rwv_rcache_create ();
    if (OPAL_SUCCESS != rc) {
        return rc;
    }
    rc = opal_free_list_init (&module->eager_frags, sizeof (mca_btl_rwv_frag_t), opal_cache_line_size,
                              OBJ_CLASS(mca_btl_rwv_frag_t), mca_btl_rwv_component.eager_slot_size,
                              opal_cache_line_size, 64, -1, 64, NULL, MCA_RCACHE_FLAGS_PERSIST,
                              module->rcache, mca_btl_rwv_frag_init, &module->eager_frags);
    rc = rc ? rc : opal_free_list_init (&module->small_frags, sizeof (mca_btl_rwv_frag_t), opal_cache_line_size,
                                        OBJ_CLASS(mca_btl_rwv_frag_t), MCA_BTL_RWV_SMALL_FRAG, opal_cache_line_size,
                                        64, -1, 64, NULL, MCA_RCACHE_FLAGS_PERSIST, module->rcache,
                                        mca_btl_rwv_frag_init, &module->small_frags);
    if (OPAL_SUCCESS != rc) {
        return rc;
    }
    rc = mca_btl_rwv_bookkeeping_list_init (&module->rdma_ops, sizeof (mca_btl_rwv_rdma_op_t),
                                            OBJ_CLASS(mca_btl_rwv_rdma_op_t));
    if (OPAL_SUCCESS == rc) {
        rc = mca_btl_rwv_bookkeeping_list_init (&module->atomics, sizeof (mca_btl_rwv_atomic_t),
                                                OBJ_CLASS(mca_btl_rwv_atomic_t));
    }
    if (OPAL_SUCCESS == rc) {
        rc = mca_btl_rwv_bookkeeping_list_init (&module->pieces, sizeof (mca_btl_rwv_piece_t),
                                                OBJ_CLASS(mca_btl_rwv_piece_t));
    }
    if (OPAL_SUCCESS == rc) {
        rc = mca_btl_rwv_bookkeeping_list_init (&module->cma_handles, sizeof (mca_btl_rwv_cma_handle_t),
                                                OBJ_CLASS(mca_btl_rwv_cma_handle_t));
    }
    if (OPAL_SUCCESS != rc) {
        return rc;
    }
    /* one registered word, kept for the module's life, is the source of every flush marker */
    module->marker = mca_btl_rwv_frag_alloc (NULL, MCA_BTL_DES_FLAGS_BTL_OWNERSHIP);
    if (NULL == module->marker) {
        return OPAL_ERR_OUT_OF_RESOURCE;
    }
    memset (module->marker->buf, 0, sizeof (uint64_t));
    return mca_btl_rwv_shm_init (); /* the rings same-node peers share */
}

static int mca_btl_rwv_finalize (mca_btl_base_module_t *btl)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    mca_btl_rwv_endpoint_t *endpoint;

    mca_btl_rwv_cm_thread_stop ();
    mca_btl_rwv_report_lost_rails (HUGE_VAL);
    mca_btl_rwv_hotset_report ();
    while (NULL != (endpoint = (mca_btl_rwv_endpoint_t *) opal_list_remove_first (&module->endpoint_list))) {
        mca_btl_rwv_endpoint_release (endpoint);
    }
    if (NULL != module->marker) {
        mca_btl_rwv_frag_return (module->marker);
    }
    OBJ_DESTRUCT(&module->eager_frags);
    OBJ_DESTRUCT(&module->small_frags);
    OBJ_DESTRUCT(&module->atomics);
    OBJ_DESTRUCT(&module->cma_handles);
    OBJ_DESTRUCT(&module->retry);
    OBJ_DESTRUCT(&module->stored);
    OBJ_DESTRUCT(&module->reaped);
    OBJ_DESTRUCT(&module->rdma_ops);
    OBJ_DESTRUCT(&module->pieces);
    if (NULL != module->rcache) {
        mca_rcache_base_module_destroy (module->rcache);
    }
    mca_btl_rwv_hotset_fini ();
    mca_btl_rwv_fetch_fini ();
    mca_btl_rwv_send_ring_fini ();
    for (int i = 0 ; i < module->num_rails ; ++i) {
        module->rails[i]->ops->close (module->rails[i]);
    }
    mca_btl_rwv_shm_finalize ();
    OBJ_DESTRUCT(&module->endpoints);
    OBJ_DESTRUCT(&module->regs);
    OBJ_DESTRUCT(&module->regs_lock);
    OBJ_DESTRUCT(&module->endpoint_list);
    mca_btl_rwv_poll_fini ();
    OBJ_DESTRUCT(&module->conns);
    OBJ_DESTRUCT(&module->lock);
    mca_btl_rwv_component.module = NULL;
    free (module);
    return OPAL_SUCCESS;
}

mca_btl_rwv_module_t mca_btl_rwv_module_template = {
    .super = {
        .btl_component = &mca_btl_rwv_component.super,
        .btl_add_procs = mca_btl_rwv_add_procs,
        .btl_del_procs = mca_btl_rwv_del_procs,
        .btl_finalize = mca_btl_rwv_finalize,
        .btl_alloc = mca_btl_rwv_alloc_descriptor,
        .btl_free = mca_btl_rwv_free,
        .btl_prepare_src = mca_btl_rwv_prepare_src,
        .btl_send = mca_btl_rwv_send,
        .btl_sendi = mca_btl_rwv_sendi,
        .btl_put = mca_btl_rwv_put,
        .btl_get = mca_btl_rwv_get,
        .btl_atomic_op = mca_btl_rwv_atomic_op,
        .btl_atomic_fop = mca_btl_rwv_atomic_fop,
        .btl_atomic_cswap = mca_btl_rwv_atomic_cswap,
        .btl_flush = mca_btl_rwv_flush,
        .btl_register_mem = mca_btl_rwv_register_mem,
        .btl_deregister_mem = mca_btl_rwv_deregister_mem,
        .btl_register_error = mca_btl_rwv_register_error,
        /* above tcp (100) for remote peers, below self and vader for local ones */
        .btl_exclusivity = MCA_BTL_EXCLUSIVITY_DEFAULT,
        .btl_latency = 50,
        .btl_bandwidth = 10000,
        /* osc/rdma needs put, get and fetching atomics (btl_rwv_atomic.c) */
        .btl_flags = MCA_BTL_FLAGS_SEND | MCA_BTL_FLAGS_RDMA | MCA_BTL_FLAGS_ATOMIC_OPS |
                     MCA_BTL_FLAGS_ATOMIC_FOPS | MCA_BTL_FLAGS_RDMA_FLUSH,
        /* integer min and max are left to osc/rdma's get-op-put (see btl_rwv_atomic.c) */
        .btl_atomic_flags = MCA_BTL_ATOMIC_SUPPORTS_ADD | MCA_BTL_ATOMIC_SUPPORTS_AND | MCA_BTL_ATOMIC_SUPPORTS_OR |
                            MCA_BTL_ATOMIC_SUPPORTS_XOR | MCA_BTL_ATOMIC_SUPPORTS_LAND |
                            MCA_BTL_ATOMIC_SUPPORTS_LOR | MCA_BTL_ATOMIC_SUPPORTS_LXOR |
                            MCA_BTL_ATOMIC_SUPPORTS_SWAP | MCA_BTL_ATOMIC_SUPPORTS_CSWAP |
                            MCA_BTL_ATOMIC_SUPPORTS_32BIT | MCA_BTL_ATOMIC_SUPPORTS_FLOAT |
                            MCA_BTL_ATOMIC_SUPPORTS_GLOB,
        .btl_registration_handle_size = sizeof (mca_btl_base_registration_handle_t),
        .btl_rdma_pipeline_send_length = 2 * 1024 * 1024,
        /* 1 MiB pieces stay in cache and overlap: about 1.4x the bandwidth of 4 MiB ones here */
        .btl_rdma_pipeline_frag_size = 1024 * 1024,
        .btl_min_rdma_pipeline_size = 256 * 1024,
        .btl_get_limit = 1ul << 30,
        .btl_put_limit = 1ul << 30,
    },
};
