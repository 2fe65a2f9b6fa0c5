/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * The immediate send (btl_sendi): ob1 offers a small message with its
 * header apart, and rwv packs both straight where they go (a shared ring,
 * an inline write, the connection's send ring, a send buffer), with no
 * descriptor round trip through the PML.  When the connection cannot take
 * the message yet, the PML gets a descriptor and falls back to btl_send
 * (btl_rwv_send.c), which queues.
 * Layer: protocol (docs/layout.md).
 */
#include "opal_config.h"

#include <string.h>

#include "opal/datatype/opal_convertor.h"

#include "btl_rwv.h"
#include "btl_rwv_eager_stripe.h"
#include "btl_rwv_endpoint.h"
#include "btl_rwv_frag.h"
#include "btl_rwv_send.h"
#include "btl_rwv_send_ring.h"
#include "btl_rwv_shm.h"
#include "btl_rwv_slot.h"

/* A small message to a peer whose ring we share is packed here first and
 * then stored in one burst: the peer spins on that cache line, and every
 * store into it between its reads would take the line back from it. */
#define MCA_BTL_RWV_STAGE_BYTES 256

/* To a peer whose ring we share: header stored after the payload, sequence
 * word last; a large message is packed straight into the slot. */
static void mca_btl_rwv_store_packed (mca_btl_rwv_conn_t *conn, opal_convertor_t *convertor, const void *header,
                                      size_t header_size, size_t payload_size, mca_btl_base_tag_t tag)
{
    size_t len = header_size + payload_size, total = mca_btl_rwv_slot_bytes (len);
    uint64_t raddr = mca_btl_rwv_slot_raddr (conn, total);
    mca_btl_rwv_eager_hdr_t hdr = mca_btl_rwv_header (conn, len, tag, 0, NULL);

    if (total <= MCA_BTL_RWV_STAGE_BYTES) {
        uint64_t stage[MCA_BTL_RWV_STAGE_BYTES / sizeof (uint64_t)];

        if (len % sizeof (uint64_t)) {
            stage[len / sizeof (uint64_t)] = 0; /* the padding: none of our stack goes to the peer */
        }
        mca_btl_rwv_pack_inline ((unsigned char *) stage, convertor, header, header_size, payload_size);
        memcpy ((unsigned char *) stage + MCA_BTL_RWV_PAD8(len), &hdr, sizeof (hdr));
        mca_btl_rwv_shm_store (conn, stage, total, raddr);
    } else {
        mca_btl_rwv_pack_inline (conn->peer.ring + (raddr - conn->peer.ring_raddr), convertor, header, header_size,
                                 payload_size);
        mca_btl_rwv_shm_store (conn, &hdr, sizeof (hdr), raddr + MCA_BTL_RWV_PAD8(len));
    }
    mca_btl_rwv_sent (conn);
}

/* Inject a small message to a multi-rail peer, and keep a copy until the
 * peer has consumed it, for a replay should this rail fail. */
static int mca_btl_rwv_inject_kept (mca_btl_rwv_conn_t *conn, opal_convertor_t *convertor,
                                    void *header, size_t header_size, size_t payload_size, mca_btl_base_tag_t tag)
{
    size_t len = header_size + payload_size;
    mca_btl_rwv_frag_t *frag = mca_btl_rwv_frag_alloc_sized (conn->endpoint, MCA_BTL_DES_FLAGS_BTL_OWNERSHIP, len);

    if (NULL == frag) {
        return OPAL_ERR_OUT_OF_RESOURCE;
    }
    mca_btl_rwv_pack_inline (frag->buf, convertor, header, header_size, payload_size);
    frag->segments[0].seg_len = len;
    frag->tag = tag;
    if (OPAL_SUCCESS != mca_btl_rwv_inject (conn, frag->buf, len, tag, 0)) {
        mca_btl_rwv_frag_return (frag);
        return OPAL_ERR_OUT_OF_RESOURCE;
    }
    frag->conn = conn;
    frag->seq = conn->peer.send_seq;
    frag->puts_before = conn->small_puts;
    frag->pml_done = true;
    mca_btl_rwv_conn_retain (conn, frag);
    return OPAL_SUCCESS;
}

/* Inject a small message to a one-rail peer from our stack: apart from
 * the send, so that its buffer, sized by the message, does not make
 * every immediate send set up a frame of variable size. */
static int __opal_attribute_noinline__ mca_btl_rwv_inject_packed (mca_btl_rwv_conn_t *conn,
                                                                 opal_convertor_t *convertor, void *header,
                                                                 size_t header_size, size_t payload_size,
                                                                 mca_btl_base_tag_t tag)
{
    size_t len = header_size + payload_size;
    unsigned char buf[mca_btl_rwv_slot_bytes (len)];

    mca_btl_rwv_pack_inline (buf, convertor, header, header_size, payload_size);
    return mca_btl_rwv_inject (conn, buf, len, tag, 0);
}

/* Pack into a send buffer and write it, striped or kept for a replay
 * where the peer has several rails, queued if need be. */
static int __opal_attribute_noinline__ mca_btl_rwv_send_packed_frag (mca_btl_rwv_conn_t *conn,
                                                                    opal_convertor_t *convertor, void *header,
                                                                    size_t header_size, size_t payload_size,
                                                                    mca_btl_base_tag_t tag)
{
    mca_btl_rwv_endpoint_t *endpoint = conn->endpoint;
    size_t len = header_size + payload_size;
    mca_btl_rwv_frag_t *frag = mca_btl_rwv_frag_alloc_sized (endpoint, MCA_BTL_DES_FLAGS_BTL_OWNERSHIP, len);

    if (NULL == frag) {
        return OPAL_ERR_OUT_OF_RESOURCE;
    }
    mca_btl_rwv_pack_inline (frag->buf, convertor, header, header_size, payload_size);
    frag->segments[0].seg_len = len;
    frag->tag = tag;
    if (!(mca_btl_rwv_should_stripe (endpoint, len) && mca_btl_rwv_eager_stripe (endpoint, frag)) &&
        OPAL_SUCCESS != mca_btl_rwv_conn_write_kept (conn, frag)) {
        mca_btl_rwv_conn_send_frag (conn, frag); /* packed: ours now, queued if need be */
    }
    return OPAL_SUCCESS;
}

/* With the lock, CONN writable: the message packed straight where it
 * goes.  OPAL_ERR_OUT_OF_RESOURCE: the PML falls back to btl_send. */
static int mca_btl_rwv_send_packed (mca_btl_rwv_conn_t *conn, opal_convertor_t *convertor, void *header,
                                    size_t header_size, size_t payload_size, mca_btl_base_tag_t tag)
{
    size_t len = header_size + payload_size;
    /* a peer's slot may be smaller than our eager limit (a cold ring, or
     * another eager_slot_size): what does not fit goes as a frag, read by the peer */
    bool fits = mca_btl_rwv_fits_slot (conn, len);
    bool small = fits && mca_btl_rwv_slot_bytes (len) <= conn->rail->inject_size;
    bool one_rail = conn->endpoint->num_rails <= 1;
    int rc;

    if (NULL != conn->peer.ring && fits) {
        mca_btl_rwv_store_packed (conn, convertor, header, header_size, payload_size, tag);
        return OPAL_SUCCESS;
    }
    if (small) {
        return one_rail ? mca_btl_rwv_inject_packed (conn, convertor, header, header_size, payload_size, tag)
                        : mca_btl_rwv_inject_kept (conn, convertor, header, header_size, payload_size, tag);
    }
    if (fits && one_rail) {
        rc = mca_btl_rwv_send_ring_send (conn, convertor, header, header_size, payload_size, tag);
        if (OPAL_ERR_NOT_AVAILABLE != rc) {
            return rc; /* sent, or the transport is full and the PML falls back to btl_send */
        }
    }
    return mca_btl_rwv_send_packed_frag (conn, convertor, header, header_size, payload_size, tag);
}

/* Send at once, without a descriptor round trip through the PML: injected
 * when small, else from the connection's send ring or a registered
 * buffer.  When the connection cannot take it yet, hand the PML a
 * descriptor so it falls back to send(), which queues. */
int mca_btl_rwv_sendi (mca_btl_base_module_t *btl, mca_btl_base_endpoint_t *endpoint,
                       opal_convertor_t *convertor, void *header, size_t header_size,
                       size_t payload_size, uint8_t order, uint32_t flags, mca_btl_base_tag_t tag,
                       mca_btl_base_descriptor_t **descriptor)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    size_t len = header_size + payload_size;
    mca_btl_rwv_conn_t *conn = NULL;
    int rc = OPAL_ERR_OUT_OF_RESOURCE;

    MCA_BTL_RWV_LOCK(module);
    if (!endpoint->self && len <= btl->btl_eager_limit) {
        conn = mca_btl_rwv_endpoint_conn (endpoint, len);
    }
    if (NULL != conn && mca_btl_rwv_can_write_now (conn)) {
        rc = mca_btl_rwv_send_packed (conn, convertor, header, header_size, payload_size, tag);
    }
    MCA_BTL_RWV_UNLOCK(module);

    if (OPAL_UNLIKELY(OPAL_SUCCESS != rc) && NULL != descriptor) {
        *descriptor = mca_btl_rwv_alloc_descriptor (btl, endpoint, order, len, flags);
    }
    return rc;
}

/* A small message of rwv's own (an atomic's request or reply): injected
 * when the connection has room, else it waits in a descriptor on the
 * connection's queue. */
int mca_btl_rwv_send_control (mca_btl_rwv_endpoint_t *endpoint, mca_btl_base_tag_t tag, void *data, size_t len)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    mca_btl_base_descriptor_t *des = NULL;
    int rc;

    rc = mca_btl_rwv_sendi (&module->super, endpoint, NULL, data, len, 0, MCA_BTL_NO_ORDER,
                            MCA_BTL_DES_FLAGS_BTL_OWNERSHIP, tag, &des);
    if (OPAL_SUCCESS == rc) {
        return rc;
    }
    if (NULL == des) {
        return OPAL_ERR_OUT_OF_RESOURCE;
    }
    memcpy (((mca_btl_rwv_frag_t *) des)->buf, data, len);
    rc = mca_btl_rwv_send (&module->super, endpoint, des, tag);
    if (rc < 0) {
        mca_btl_rwv_frag_give_back ((mca_btl_rwv_frag_t *) des);
        return rc;
    }
    return OPAL_SUCCESS; /* sent at once (1), or queued */
}
