/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/* The eager receive path and what it refuses (btl_rwv_recv.c). */
#ifndef MCA_BTL_RWV_RECV_H
#define MCA_BTL_RWV_RECV_H

#include "btl_rwv_endpoint.h"

BEGIN_C_DECLS

int mca_btl_rwv_conn_poll_ring (mca_btl_rwv_conn_t *conn);

/* Has mca_btl_rwv_conn_poll_ring anything to do on CONN: a sequence word
 * in the slot the next message lands in, a ring it moves to, or something
 * of ours waiting?  Progress asks every polled connection each pass, and
 * on an empty one the call this saves was most of what the pass cost. */
static inline bool mca_btl_rwv_conn_ring_busy (mca_btl_rwv_conn_t *conn)
{
    const mca_btl_rwv_slots_t *cur = &conn->local.cur;
    const unsigned char *slot_end = cur->base + ((size_t) conn->local.next_slot + 1) * cur->slot_size;
    const volatile mca_btl_rwv_eager_hdr_t *hdr = (const volatile mca_btl_rwv_eager_hdr_t *) slot_end - 1;

    return hdr->seq == conn->local.recv_seq + 1 || NULL != conn->local.next.base || conn->peer.owe_hello ||
        !opal_list_is_empty (&conn->pending) || !opal_list_is_empty (&conn->replay.unacked);
}

/* the protocol's serve hook (mca_btl_rwv_conn_hooks_t) */
int mca_btl_rwv_conn_serve_ring (mca_btl_rwv_conn_t *conn);

/* The upcall from a progress pass: the PML (or osc/rdma) handles what
 * arrived for TAG.  One pass runs at a time and never inside another
 * (mca_btl_rwv_progress_begin), so its upcalls share one descriptor. */
static inline void mca_btl_rwv_deliver (mca_btl_rwv_endpoint_t *endpoint, mca_btl_base_tag_t tag, void *payload,
                                        size_t len)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;

    rwv_compat_btl_deliver_with (&module->upcall_des, &module->super, endpoint, tag, payload, len);
}

END_C_DECLS

#endif /* MCA_BTL_RWV_RECV_H */
