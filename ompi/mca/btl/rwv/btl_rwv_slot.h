/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Where an eager message lands in the peer's ring, the header that ends
 * it, and the two pieces of a message sent in place with the PML's header
 * last (btl_rwv_wire.h), and the packing of what ob1 hands btl_sendi:
 * shared by the send path (btl_rwv_send.c), the immediate send
 * (btl_rwv_sendi.c) and the send rings (btl_rwv_send_ring.c), inline
 * because every message takes them.
 */
#ifndef MCA_BTL_RWV_SLOT_H
#define MCA_BTL_RWV_SLOT_H

#include <string.h>
#include <sys/uio.h>

#include "opal/datatype/opal_convertor.h"

#include "btl_rwv_conn.h"
#include "btl_rwv_frag.h"
#include "btl_rwv_test_fault.h"
#include "btl_rwv_wire.h"

BEGIN_C_DECLS

/* Does a message of LEN bytes fit in a slot of the peer's current ring? */
static inline bool mca_btl_rwv_fits_slot (const mca_btl_rwv_conn_t *conn, size_t len)
{
    return mca_btl_rwv_slot_bytes (len) <= conn->peer.slot_size;
}

/* Where a message of `total' bytes must land to end at its slot's end. */
static inline uint64_t mca_btl_rwv_slot_raddr (const mca_btl_rwv_conn_t *conn, size_t total)
{
    return conn->peer.ring_raddr + ((uint64_t) conn->peer.next_slot + 1) * conn->peer.slot_size - total;
}

static inline uint32_t mca_btl_rwv_imm (const mca_btl_rwv_conn_t *conn)
{
    return (conn->peer.conn_id << 16) | conn->peer.next_slot;
}

/* The header of our next message on CONN; REPLAY: the frag it carries
 * again, whose first connection it names. */
static inline mca_btl_rwv_eager_hdr_t mca_btl_rwv_header (const mca_btl_rwv_conn_t *conn, size_t len,
                                                          mca_btl_base_tag_t tag, uint8_t flags,
                                                          const mca_btl_rwv_frag_t *replay)
{
    mca_btl_rwv_eager_hdr_t hdr = {
        .len = (uint32_t) len, .tag = tag, .flags = flags, .consumed = conn->local.recv_seq, .seq = conn->peer.send_seq + 1,
    };

    if (NULL != replay && (flags & MCA_BTL_RWV_HDR_FLAG_REPLAY)) {
        hdr.replay_rail = replay->replay_rail;
        hdr.replay_attempt = replay->replay_attempt;
        hdr.replay_seq = (uint32_t) replay->replay_seq;
    }
    if (MCA_BTL_RWV_TEST_FAULT(MCA_BTL_RWV_TEST_FAULT_RING_LEN, conn->peer.send_seq >= 10)) {
        hdr.len = 0xfffffff0u;
    } else if (MCA_BTL_RWV_TEST_FAULT(MCA_BTL_RWV_TEST_FAULT_REPLAY, conn->peer.send_seq >= 10)) {
        hdr.flags |= MCA_BTL_RWV_HDR_FLAG_REPLAY;
        hdr.replay_attempt = 0xdeadbeefu;
    }
    return hdr;
}

/* Put the header after the payload in `buf'; returns the bytes to write. */
static inline size_t mca_btl_rwv_build (mca_btl_rwv_conn_t *conn, unsigned char *buf, size_t len,
                                        mca_btl_base_tag_t tag, uint8_t flags, const mca_btl_rwv_frag_t *replay)
{
    mca_btl_rwv_eager_hdr_t hdr = mca_btl_rwv_header (conn, len, tag, flags, replay);

    memcpy (buf + MCA_BTL_RWV_PAD8(len), &hdr, sizeof (hdr));
    return mca_btl_rwv_slot_bytes (len);
}

/* Pack the PML header and payload handed to btl_sendi into `buf'. */
static inline void mca_btl_rwv_pack_inline (unsigned char *buf, opal_convertor_t *convertor, const void *header,
                                            size_t header_size, size_t payload_size)
{
    struct iovec iov = {.iov_base = buf + header_size, .iov_len = payload_size};
    uint32_t iov_count = 1;
    size_t max_data = payload_size;

    memcpy (buf, header, header_size);
    if (0 == payload_size) {
        return;
    }
    if (!opal_convertor_need_buffers (convertor)) {
        void *data;

        opal_convertor_get_current_pointer (convertor, &data); /* contiguous: one copy, no pack call */
        memcpy (buf + header_size, data, payload_size);
        return;
    }
    (void) opal_convertor_pack (convertor, &iov, &iov_count, &max_data);
}

/* Can FRAG, in place, go to CONN's rail with the PML's header after its
 * data (MCA_BTL_RWV_HDR_FLAG_HEAD_LAST): a rail's write, not a store,
 * and room in the slot for the receiver to move the header in front? */
static inline bool mca_btl_rwv_head_last_fits (const mca_btl_rwv_conn_t *conn, const mca_btl_rwv_frag_t *frag)
{
    size_t head = frag->segments[0].seg_len;

    return NULL == conn->peer.ring && head > 0 && head <= UINT8_MAX &&
        mca_btl_rwv_head_last_span (mca_btl_rwv_frag_len (frag), head) + sizeof (mca_btl_rwv_eager_hdr_t) <=
        conn->peer.slot_size;
}

/* FRAG's message in place as two pieces: the data from the application's
 * memory, then from FRAG's buffer the PML's header, padding (so that the
 * header, once the receiver moved it, starts aligned) and our header,
 * which wait there until the write is done; returns the bytes written,
 * which end at the slot's end. */
static inline size_t mca_btl_rwv_head_last_pieces (mca_btl_rwv_conn_t *conn, mca_btl_rwv_frag_t *frag, struct iovec *iov)
{
    const mca_btl_base_segment_t *seg = frag->segments;
    size_t head = seg[0].seg_len, len = head + seg[1].seg_len;
    size_t pad = mca_btl_rwv_head_last_span (len, head) - head - len;
    mca_btl_rwv_eager_hdr_t hdr = mca_btl_rwv_header (conn, len, frag->tag,
                                                      frag->hdr_flags | MCA_BTL_RWV_HDR_FLAG_HEAD_LAST, frag);

    hdr.head_len = MCA_BTL_RWV_TEST_FAULT(MCA_BTL_RWV_TEST_FAULT_HEAD_LEN, true) ? 0 : (uint8_t) head;
    memset (frag->buf + head, 0, pad);
    memcpy (frag->buf + head + pad, &hdr, sizeof (hdr));
    iov[0] = (struct iovec) {.iov_base = seg[1].seg_addr.pval, .iov_len = seg[1].seg_len};
    iov[1] = (struct iovec) {.iov_base = frag->buf, .iov_len = head + pad + sizeof (hdr)};
    return len + pad + sizeof (hdr);
}

END_C_DECLS

#endif /* MCA_BTL_RWV_SLOT_H */
