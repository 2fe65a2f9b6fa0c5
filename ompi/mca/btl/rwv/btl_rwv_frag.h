/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Send descriptors, and the requests of puts, gets and atomics.  The
 * sender builds an eager message (btl_rwv_wire.h) in a registered send
 * buffer and writes it with one RDMA write ending exactly at its slot's end.
 * A message sent in place keeps only the PML's header in that buffer: its
 * data stays in the application's memory, which the write gathers.
 */
#ifndef MCA_BTL_RWV_FRAG_H
#define MCA_BTL_RWV_FRAG_H

#include "btl_rwv.h"
#include "btl_rwv_rail.h"
#include "btl_rwv_wire.h"

BEGIN_C_DECLS


/* The largest eager message: a slot less the header. */
static inline size_t mca_btl_rwv_max_payload (void)
{
    return (size_t) mca_btl_rwv_component.eager_slot_size - sizeof (mca_btl_rwv_eager_hdr_t);
}

/* Send buffers of this many bytes carry the small messages: a sender
 * ahead of its receiver's credits queues each message in a buffer of its
 * own, registered (pinned), which must not be a whole eager slot. */
#define MCA_BTL_RWV_SMALL_FRAG 2048

typedef struct mca_btl_rwv_frag_t {
    mca_btl_base_descriptor_t base;
    /* the message: in buf, then (sent in place) the application's own memory */
    mca_btl_base_segment_t segments[2];
    mca_btl_rwv_op_t op;                  /* completion of the ring write */
    struct mca_btl_base_endpoint_t *endpoint;
    unsigned char *buf;                   /* registered: payload (sent in place: the PML's header), then our header */
    opal_free_list_t *list;               /* the pool it came from: eager or small buffers */
    mca_btl_rwv_reg_t *reg;
    mca_btl_base_tag_t tag;
    uint8_t hdr_flags;                    /* REPLAY, STRIPE */
    uint8_t replay_rail;
    uint32_t replay_attempt;
    uint64_t replay_seq;
    /* where it was written: failover replays what the peer may not have consumed */
    struct mca_btl_rwv_conn_t *conn;
    uint64_t seq;
    uint64_t puts_before;                 /* small puts on conn written before it */
    bool in_flight;                       /* the transport still holds it */
    bool retained;                        /* on conn->unacked */
    bool pml_done;                        /* the PML was told the outcome */
    bool pml_freed;                       /* the PML gave it back */
    /* a piece of a split message: the whole one, and its pieces still out */
    struct mca_btl_rwv_frag_t *parent;
    int pieces_left;
    int status;
    /* reassembly of a split message received */
    uint32_t stripe_id;
    uint32_t received;
} mca_btl_rwv_frag_t;
OBJ_CLASS_DECLARATION(mca_btl_rwv_frag_t);

/* A put or get: one callback once its last piece is done. */
typedef struct mca_btl_rwv_rdma_op_t {
    opal_free_list_item_t super;
    struct mca_btl_base_endpoint_t *endpoint;
    bool is_put;
    void *local_address;
    uint64_t remote_address;
    mca_btl_base_registration_handle_t *local_handle;
    mca_btl_base_registration_handle_t remote_handle; /* a copy: a piece may move to another rail */
    mca_btl_base_rdma_completion_fn_t cbfunc;
    void *cbcontext;
    void *cbdata;
    int pieces_left;
    int status;
    /* a small put to a multi-rail peer (btl_rwv_rdma.c): its data, its
     * caller told at once, and where and when it was injected */
    struct mca_btl_rwv_frag_t *copy;
    size_t size;
    struct mca_btl_rwv_conn_t *kept_conn;
    uint64_t kept_mark;
} mca_btl_rwv_rdma_op_t;
OBJ_CLASS_DECLARATION(mca_btl_rwv_rdma_op_t);

/* An atomic at the origin, waiting for the target's reply (btl_rwv_atomic.c). */
typedef struct mca_btl_rwv_atomic_t {
    opal_free_list_item_t super;              /* on its endpoint's list meanwhile */
    struct mca_btl_base_endpoint_t *endpoint;
    void *local_address;                      /* where the old value goes; NULL: not fetched */
    mca_btl_base_registration_handle_t *local_handle;
    int flags;
    mca_btl_base_rdma_completion_fn_t cbfunc;
    void *cbcontext;
    void *cbdata;
} mca_btl_rwv_atomic_t;
OBJ_CLASS_DECLARATION(mca_btl_rwv_atomic_t);

/* The part of a put or get on one rail; also a flush marker (btl_rwv_flush.c). */
typedef struct mca_btl_rwv_piece_t {
    mca_btl_rwv_op_t op;
    mca_btl_rwv_rdma_op_t *request;
    struct mca_btl_rwv_conn_t *conn;
    size_t offset;
    size_t len;
    uint64_t puts_before;     /* a flush marker: small puts on conn written before it */
} mca_btl_rwv_piece_t;
OBJ_CLASS_DECLARATION(mca_btl_rwv_piece_t);

/* The frag whose ring write OP is. */
static inline mca_btl_rwv_frag_t *mca_btl_rwv_frag_of_op (mca_btl_rwv_op_t *op)
{
    return (mca_btl_rwv_frag_t *) ((char *) op - offsetof (mca_btl_rwv_frag_t, op));
}

/* A RING message names a ring of the connection it goes on
 * (btl_rwv_hotset.c): it is never kept for replay nor moved to another
 * rail; a failing connection drops it with the hot ring it offered. */
static inline bool mca_btl_rwv_frag_stays_on_conn (const mca_btl_rwv_frag_t *frag)
{
    return MCA_BTL_RWV_TAG_RING == frag->tag;
}

/* Is part of FRAG's message still in the application's memory? */
static inline bool mca_btl_rwv_frag_in_place (const mca_btl_rwv_frag_t *frag)
{
    return 2 == frag->base.des_segment_count;
}

/* The bytes of FRAG's message, wherever they are. */
static inline size_t mca_btl_rwv_frag_len (const mca_btl_rwv_frag_t *frag)
{
    return frag->segments[0].seg_len + (mca_btl_rwv_frag_in_place (frag) ? frag->segments[1].seg_len : 0);
}

/* CTX: the free list the item belongs to */
int mca_btl_rwv_frag_init (opal_free_list_item_t *item, void *ctx);
/* Descriptors are taken on every message's path: inline, as btl/vader's.
 * Inside the gate, as every take and return (mca_btl_rwv_list_get). */
static inline mca_btl_rwv_frag_t *mca_btl_rwv_frag_get (opal_free_list_t *list, struct mca_btl_base_endpoint_t *endpoint,
                                                         uint32_t flags)
{
    mca_btl_rwv_frag_t *frag = (mca_btl_rwv_frag_t *) mca_btl_rwv_list_get (list);

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
    frag->segments[0].seg_addr.pval = frag->buf;
    frag->segments[0].seg_len = 0;
    frag->base.des_segment_count = 1;
    return frag;
}

static inline mca_btl_rwv_frag_t *mca_btl_rwv_frag_alloc (struct mca_btl_base_endpoint_t *endpoint, uint32_t flags)
{
    return mca_btl_rwv_frag_get (&mca_btl_rwv_component.module->eager_frags, endpoint, flags);
}

/* One that holds BYTES of payload (at most mca_btl_rwv_max_payload ()):
 * from the small buffers where they are enough.  The header goes right
 * after the payload, in the same buffer (room for all of it even when the
 * data is sent in place: it may be copied later). */
static inline mca_btl_rwv_frag_t *mca_btl_rwv_frag_alloc_sized (struct mca_btl_base_endpoint_t *endpoint, uint32_t flags,
                                                                size_t bytes)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    bool small = MCA_BTL_RWV_PAD8(bytes) + sizeof (mca_btl_rwv_eager_hdr_t) <= MCA_BTL_RWV_SMALL_FRAG &&
                 mca_btl_rwv_component.eager_slot_size > MCA_BTL_RWV_SMALL_FRAG;

    return mca_btl_rwv_frag_get (small ? &module->small_frags : &module->eager_frags, endpoint, flags);
}
static inline void mca_btl_rwv_frag_return (mca_btl_rwv_frag_t *frag)
{
    mca_btl_rwv_list_return (frag->list, &frag->base.super);
}
/* Give FRAG back from outside rwv's lock (it takes the lock) */
void mca_btl_rwv_frag_give_back (mca_btl_rwv_frag_t *frag);
/* The BTL's descriptor calls (ob1 allocates, fills, frees send descriptors) */
mca_btl_base_descriptor_t *mca_btl_rwv_alloc_descriptor (mca_btl_base_module_t *btl,
                                                         struct mca_btl_base_endpoint_t *endpoint,
                                                         uint8_t order, size_t size, uint32_t flags);
int mca_btl_rwv_free (mca_btl_base_module_t *btl, mca_btl_base_descriptor_t *des);
/* Copy the part sent in place into the buffer, after the rest: a peer
 * that reads the message, or a shared ring, needs it whole there. */
void mca_btl_rwv_frag_flatten (mca_btl_rwv_frag_t *frag);
mca_btl_base_descriptor_t *mca_btl_rwv_prepare_src (mca_btl_base_module_t *btl,
                                                    struct mca_btl_base_endpoint_t *endpoint,
                                                    opal_convertor_t *convertor, uint8_t order,
                                                    size_t reserve, size_t *size, uint32_t flags);
/* The send finished (status) or failed: tell the PML (once) if it asked,
 * recycle when nobody holds it any more. */
void mca_btl_rwv_frag_complete (mca_btl_rwv_frag_t *frag, int status);
/* One of them lets go (*hold is its flag in the frag): recycle if it was the last. */
void mca_btl_rwv_frag_drop (mca_btl_rwv_frag_t *frag, bool *hold);
/* The same with the module lock held. */
void mca_btl_rwv_frag_drop_locked (mca_btl_rwv_frag_t *frag, bool *hold);
/* Tell the PML FRAG is done (once); true if the frag is the PML's own to free. */
bool mca_btl_rwv_frag_notify (mca_btl_rwv_frag_t *frag, int status);

END_C_DECLS

#endif /* MCA_BTL_RWV_FRAG_H */
