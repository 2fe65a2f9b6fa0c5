/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Send descriptors: registered buffers from a free list whose chunks the
 * free list registers through the module's rcache, on every rail at once.
 * Layer: protocol (docs/layout.md).
 */
#include "opal_config.h"

#include <string.h>

#include "opal/datatype/opal_convertor.h"

#include "btl_rwv_frag.h"
#include "btl_rwv_endpoint.h"
#include "btl_rwv_failover.h" /* the write completion frags start with */

static void mca_btl_rwv_frag_construct (mca_btl_rwv_frag_t *frag)
{
    frag->base.des_segments = frag->segments;
}

OBJ_CLASS_INSTANCE(mca_btl_rwv_frag_t, mca_btl_base_descriptor_t, mca_btl_rwv_frag_construct, NULL);
OBJ_CLASS_INSTANCE(mca_btl_rwv_rdma_op_t, opal_free_list_item_t, NULL, NULL);
OBJ_CLASS_INSTANCE(mca_btl_rwv_piece_t, opal_free_list_item_t, NULL, NULL);

int mca_btl_rwv_frag_init (opal_free_list_item_t *item, void *ctx)
{
    mca_btl_rwv_frag_t *frag = (mca_btl_rwv_frag_t *) item;

    frag->buf = item->ptr;
    frag->list = (opal_free_list_t *) ctx;
    frag->reg = (mca_btl_rwv_reg_t *) item->registration;
    frag->op.complete = mca_btl_rwv_frag_write_complete;
    return OPAL_SUCCESS;
}

static bool mca_btl_rwv_frag_unheld (const mca_btl_rwv_frag_t *frag)
{
    return !frag->in_flight && !frag->retained &&
        ((frag->base.des_flags & MCA_BTL_DES_FLAGS_BTL_OWNERSHIP) || frag->pml_freed);
}

/* The transport, the replay window and the PML each let go of a frag in
 * their own thread: each sets its flag and looks under the lock, so
 * exactly one of them sees the frag free and returns it, inside the gate
 * (mca_btl_rwv_list_return). */
static void mca_btl_rwv_frag_set_hold (mca_btl_rwv_frag_t *frag, bool *flag, bool value)
{
    *flag = value;
    if (mca_btl_rwv_frag_unheld (frag)) {
        mca_btl_rwv_frag_return (frag);
    }
}

static void mca_btl_rwv_frag_let_go (mca_btl_rwv_frag_t *frag, bool *flag, bool value)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;

    MCA_BTL_RWV_LOCK(module);
    mca_btl_rwv_frag_set_hold (frag, flag, value);
    MCA_BTL_RWV_UNLOCK(module);
}

void mca_btl_rwv_frag_drop (mca_btl_rwv_frag_t *frag, bool *hold)
{
    mca_btl_rwv_frag_let_go (frag, hold, false);
}

/* The same for a caller that holds the lock already (the replay window
 * releasing what the peer consumed, once per message sent): taking it
 * again cost each message about 30 instructions. */
void mca_btl_rwv_frag_drop_locked (mca_btl_rwv_frag_t *frag, bool *hold)
{
    mca_btl_rwv_frag_set_hold (frag, hold, false);
}

static void mca_btl_rwv_frag_pml_free (mca_btl_rwv_frag_t *frag)
{
    mca_btl_rwv_frag_let_go (frag, &frag->pml_freed, true);
}

static void mca_btl_rwv_frag_release (mca_btl_rwv_frag_t *frag)
{
    MCA_BTL_RWV_LOCK(mca_btl_rwv_component.module);
    if (mca_btl_rwv_frag_unheld (frag)) {
        mca_btl_rwv_frag_return (frag);
    }
    MCA_BTL_RWV_UNLOCK(mca_btl_rwv_component.module);
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

/* Tell the PML (once); true if the frag is the PML's own to free. */
bool mca_btl_rwv_frag_notify (mca_btl_rwv_frag_t *frag, int status)
{
    /* a PML-owned descriptor may be freed inside the callback: read the flags first */
    bool pml_owned = !(frag->base.des_flags & MCA_BTL_DES_FLAGS_BTL_OWNERSHIP);

    if (frag->pml_done) {
        return false;
    }
    frag->pml_done = true;
    if (NULL != frag->parent) {
        mca_btl_rwv_frag_piece_done (frag->parent, status);
    } else if ((frag->base.des_flags & MCA_BTL_DES_SEND_ALWAYS_CALLBACK) && NULL != frag->base.des_cbfunc) {
        frag->base.des_cbfunc (&mca_btl_rwv_component.module->super, frag->endpoint, &frag->base, status);
    }
    return pml_owned;
}

void mca_btl_rwv_frag_complete (mca_btl_rwv_frag_t *frag, int status)
{
    if (!mca_btl_rwv_frag_notify (frag, status)) {
        mca_btl_rwv_frag_release (frag);
    }
}

/* ------------------------------------------------------------ the BTL descriptor calls */

/* ob1 calls these outside any of rwv's calls: the buffer is taken and
 * given back inside the gate all the same (mca_btl_rwv_list_get). */
static mca_btl_rwv_frag_t *mca_btl_rwv_frag_take (mca_btl_base_endpoint_t *endpoint, uint32_t flags, size_t bytes)
{
    mca_btl_rwv_frag_t *frag;

    MCA_BTL_RWV_LOCK(mca_btl_rwv_component.module);
    frag = mca_btl_rwv_frag_alloc_sized (endpoint, flags, bytes);
    MCA_BTL_RWV_UNLOCK(mca_btl_rwv_component.module);
    return frag;
}

void mca_btl_rwv_frag_give_back (mca_btl_rwv_frag_t *frag)
{
    MCA_BTL_RWV_LOCK(mca_btl_rwv_component.module);
    mca_btl_rwv_frag_return (frag);
    MCA_BTL_RWV_UNLOCK(mca_btl_rwv_component.module);
}

mca_btl_base_descriptor_t *mca_btl_rwv_alloc_descriptor (mca_btl_base_module_t *btl,
                                                         mca_btl_base_endpoint_t *endpoint, uint8_t order,
                                                         size_t size, uint32_t flags)
{
    mca_btl_rwv_frag_t *frag;

    if (OPAL_UNLIKELY(size > mca_btl_rwv_max_payload ())) {
        return NULL;
    }
    frag = mca_btl_rwv_frag_take (endpoint, flags, size);
    if (OPAL_UNLIKELY(NULL == frag)) {
        return NULL;
    }
    frag->segments[0].seg_len = size;
    return &frag->base;
}

/* The PML gives a descriptor back; a copy kept for replay stays until the peer has it. */
int mca_btl_rwv_free (mca_btl_base_module_t *btl, mca_btl_base_descriptor_t *des)
{
    mca_btl_rwv_frag_pml_free ((mca_btl_rwv_frag_t *) des);
    return OPAL_SUCCESS;
}

void mca_btl_rwv_frag_flatten (mca_btl_rwv_frag_t *frag)
{
    if (mca_btl_rwv_frag_in_place (frag)) {
        memcpy (frag->buf + frag->segments[0].seg_len, frag->segments[1].seg_addr.pval, frag->segments[1].seg_len);
        frag->segments[0].seg_len += frag->segments[1].seg_len;
        frag->base.des_segment_count = 1;
    }
}

/* Can SIZE bytes of the convertor's data stay in the application's memory
 * until the write gathers them?  Only contiguous data (leaving our header
 * room in the buffer), to a peer with one rail (a multi-rail peer's
 * messages are kept for replay): on this node at any size, since the
 * store into the ring we share copies from anywhere alike (else the data
 * would be copied into the buffer and again into the ring); on another
 * node big enough that the copy costs more than the gather, and only if
 * the transport reads memory it was not given a registration for. */
static bool mca_btl_rwv_in_place_ok (const mca_btl_rwv_endpoint_t *endpoint, opal_convertor_t *convertor,
                                     size_t size)
{
    int min = mca_btl_rwv_component.in_place_min;

    return min > 0 && size >= sizeof (mca_btl_rwv_eager_hdr_t) && !endpoint->self && 1 == endpoint->num_rails &&
        !opal_convertor_need_buffers (convertor) &&
        (endpoint->same_node || (size >= (size_t) min &&
                                 mca_btl_rwv_rail_gathers (mca_btl_rwv_component.module->rails[endpoint->rails[0]])));
}

/* The PML's data after its header in the buffer, or, IN_PLACE, left where
 * it is: given no buffer, the convertor hands out a pointer to
 * contiguous data instead of copying it. */
static int mca_btl_rwv_frag_pack (mca_btl_rwv_frag_t *frag, opal_convertor_t *convertor, size_t reserve,
                                  size_t *size, bool in_place)
{
    struct iovec iov = {.iov_base = in_place ? NULL : frag->buf + reserve, .iov_len = *size};
    uint32_t iov_count = 1;
    size_t max_data = *size;

    if (OPAL_UNLIKELY(opal_convertor_pack (convertor, &iov, &iov_count, &max_data) < 0)) {
        return OPAL_ERROR;
    }
    *size = max_data;
    frag->segments[0].seg_len = reserve + (in_place ? 0 : max_data);
    if (in_place) {
        frag->segments[1].seg_addr.pval = iov.iov_base;
        frag->segments[1].seg_len = max_data;
        frag->base.des_segment_count = 2;
    }
    return OPAL_SUCCESS;
}

/* A registered send buffer with room for the whole message, which holds
 * it all, or only the PML's header when the data is sent in place (the
 * room is for a path that turns out to need a copy after all). */
mca_btl_base_descriptor_t *mca_btl_rwv_prepare_src (mca_btl_base_module_t *btl,
                                                           mca_btl_base_endpoint_t *endpoint,
                                                           opal_convertor_t *convertor, uint8_t order,
                                                           size_t reserve, size_t *size, uint32_t flags)
{
    mca_btl_rwv_frag_t *frag;
    int rc;

    if (reserve + *size > mca_btl_rwv_max_payload ()) {
        *size = mca_btl_rwv_max_payload () - reserve;
    }
    frag = mca_btl_rwv_frag_take (endpoint, flags, reserve + *size);
    if (OPAL_UNLIKELY(NULL == frag)) {
        return NULL;
    }
    rc = mca_btl_rwv_frag_pack (frag, convertor, reserve, size, mca_btl_rwv_in_place_ok (endpoint, convertor, *size));
    if (OPAL_UNLIKELY(OPAL_SUCCESS != rc)) {
        mca_btl_rwv_frag_give_back (frag);
        return NULL;
    }
    return &frag->base;
}
