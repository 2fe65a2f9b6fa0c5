/*
 * Send descriptors: registered buffers from a free list whose chunks the
 * free list registers through the module's rcache, on every rail at once.
 */
#include "opal_config.h"

#include "btl_rwv_frag.h"
#include "btl_rwv_endpoint.h"

static void mca_btl_rwv_frag_construct (mca_btl_rwv_frag_t *frag)
{
    frag->base.des_segments = &frag->segment;
    frag->base.des_segment_count = 1;
}

OBJ_CLASS_INSTANCE(mca_btl_rwv_frag_t, mca_btl_base_descriptor_t, mca_btl_rwv_frag_construct, NULL);
OBJ_CLASS_INSTANCE(mca_btl_rwv_rdma_op_t, opal_free_list_item_t, NULL, NULL);
OBJ_CLASS_INSTANCE(mca_btl_rwv_piece_t, opal_free_list_item_t, NULL, NULL);

static void mca_btl_rwv_frag_write_complete (mca_btl_rwv_op_t *op, int status)
{
    mca_btl_rwv_frag_t *frag = (mca_btl_rwv_frag_t *) ((char *) op - offsetof (mca_btl_rwv_frag_t, op));

    if (mca_btl_rwv_frag_failover (frag, status)) {
        return; /* replayed on another rail */
    }
    frag->in_flight = false;
    mca_btl_rwv_frag_complete (frag, status);
}

int mca_btl_rwv_frag_init (opal_free_list_item_t *item, void *ctx)
{
    mca_btl_rwv_frag_t *frag = (mca_btl_rwv_frag_t *) item;

    frag->buf = item->ptr;
    frag->reg = (mca_btl_rwv_reg_t *) item->registration;
    frag->op.complete = mca_btl_rwv_frag_write_complete;
    return OPAL_SUCCESS;
}

mca_btl_rwv_frag_t *mca_btl_rwv_frag_alloc (mca_btl_rwv_module_t *module,
                                            struct mca_btl_base_endpoint_t *endpoint, uint32_t flags)
{
    mca_btl_rwv_frag_t *frag = (mca_btl_rwv_frag_t *) opal_free_list_get (&module->eager_frags);

    if (OPAL_UNLIKELY(NULL == frag)) {
        return NULL;
    }
    frag->endpoint = endpoint;
    frag->hdr_flags = 0;
    frag->conn = NULL;
    frag->in_flight = frag->retained = frag->pml_done = frag->pml_freed = false;
    frag->parent = NULL;
    frag->base.des_flags = flags;
    frag->base.des_cbfunc = NULL;
    frag->base.order = MCA_BTL_NO_ORDER;
    frag->segment.seg_addr.pval = frag->buf;
    frag->segment.seg_len = 0;
    return frag;
}

void mca_btl_rwv_frag_return (mca_btl_rwv_frag_t *frag)
{
    opal_free_list_return (&mca_btl_rwv_component.module->eager_frags, &frag->base.super);
}

void mca_btl_rwv_frag_release (mca_btl_rwv_frag_t *frag)
{
    bool ours = (frag->base.des_flags & MCA_BTL_DES_FLAGS_BTL_OWNERSHIP) || frag->pml_freed;

    if (!frag->in_flight && !frag->retained && ours) {
        mca_btl_rwv_frag_return (frag);
    }
}

static void mca_btl_rwv_frag_piece_done (mca_btl_rwv_frag_t *whole, int status)
{
    if (OPAL_SUCCESS != status) {
        whole->status = status;
    }
    if (0 == --whole->pieces_left) {
        mca_btl_rwv_frag_complete (whole, whole->status);
    }
}

void mca_btl_rwv_frag_complete (mca_btl_rwv_frag_t *frag, int status)
{
    if (!frag->pml_done) {
        /* a PML-owned descriptor may be freed inside the callback: read the flags first */
        bool pml_owned = !(frag->base.des_flags & MCA_BTL_DES_FLAGS_BTL_OWNERSHIP);

        frag->pml_done = true;
        if (NULL != frag->parent) {
            mca_btl_rwv_frag_piece_done (frag->parent, status);
        } else if ((frag->base.des_flags & MCA_BTL_DES_SEND_ALWAYS_CALLBACK) && NULL != frag->base.des_cbfunc) {
            frag->base.des_cbfunc (&mca_btl_rwv_component.module->super, frag->endpoint, &frag->base, status);
        }
        if (pml_owned) {
            return; /* the PML frees it through btl_free */
        }
    }
    mca_btl_rwv_frag_release (frag);
}
