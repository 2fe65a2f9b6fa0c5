/*
 * Send descriptors and the eager wire format.
 *
 * An eager message occupies the END of a ring slot, so the receiver always
 * knows where to look: [payload, padded to 8][mca_btl_rwv_eager_hdr_t], the
 * header's last word being the sequence number the receiver polls.  The
 * sender builds the same bytes in a registered send buffer and writes them
 * with one RDMA write ending exactly at the slot's end.
 */
#ifndef MCA_BTL_RWV_FRAG_H
#define MCA_BTL_RWV_FRAG_H

#include "btl_rwv.h"
#include "btl_rwv_rail.h"

BEGIN_C_DECLS

#define MCA_BTL_RWV_HDR_FLAG_HELLO 0x01   /* connection opener: no payload, no upcall */

typedef struct mca_btl_rwv_eager_hdr_t {
    uint32_t len;             /* payload bytes */
    uint8_t tag;
    uint8_t flags;
    uint16_t reserved;
    uint64_t consumed;        /* piggy-backed credit: messages of ours the sender has consumed */
    uint64_t seq;             /* 1, 2, 3...: written last, polled by the receiver */
} mca_btl_rwv_eager_hdr_t;

/* The largest eager message: a slot less the header. */
static inline size_t mca_btl_rwv_max_payload (void)
{
    return (size_t) mca_btl_rwv_component.eager_slot_size - sizeof (mca_btl_rwv_eager_hdr_t);
}

#define MCA_BTL_RWV_PAD8(n) (((n) + 7) & ~(size_t) 7)

typedef struct mca_btl_rwv_frag_t {
    mca_btl_base_descriptor_t base;
    mca_btl_base_segment_t segment;
    mca_btl_rwv_op_t op;                  /* completion of the ring write */
    struct mca_btl_base_endpoint_t *endpoint;
    unsigned char *buf;                   /* registered: payload, then room for the header */
    mca_btl_rwv_reg_t *reg;
    mca_btl_base_tag_t tag;
} mca_btl_rwv_frag_t;
OBJ_CLASS_DECLARATION(mca_btl_rwv_frag_t);

/* A put or get in flight. */
typedef struct mca_btl_rwv_rdma_op_t {
    mca_btl_rwv_op_t op;
    struct mca_btl_base_endpoint_t *endpoint;
    void *local_address;
    mca_btl_base_registration_handle_t *local_handle;
    mca_btl_base_rdma_completion_fn_t cbfunc;
    void *cbcontext;
    void *cbdata;
} mca_btl_rwv_rdma_op_t;
OBJ_CLASS_DECLARATION(mca_btl_rwv_rdma_op_t);

int mca_btl_rwv_frag_init (opal_free_list_item_t *item, void *ctx);
mca_btl_rwv_frag_t *mca_btl_rwv_frag_alloc (mca_btl_rwv_module_t *module,
                                            struct mca_btl_base_endpoint_t *endpoint, uint32_t flags);
void mca_btl_rwv_frag_return (mca_btl_rwv_frag_t *frag);
/* The send finished (status) or failed: tell the PML if it asked, recycle if ours. */
void mca_btl_rwv_frag_complete (mca_btl_rwv_frag_t *frag, int status);

END_C_DECLS

#endif /* MCA_BTL_RWV_FRAG_H */
