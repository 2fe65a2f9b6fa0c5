/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Split eager messages.  ob1 sends every message up to the eager limit as
 * one fragment, so without this a 32 KiB message uses one rail however
 * many there are.  A fragment of at least btl_rwv_stripe_eager_threshold
 * bytes to a multi-rail peer is cut into one piece per ready rail, sized by
 * bandwidth as puts are (btl_rwv_stripe.c); each piece is an ordinary
 * eager message on its rail, flagged STRIPE and led by a
 * mca_btl_rwv_stripe_hdr_t.  The receiver copies the pieces into one
 * buffer and delivers the whole fragment when its last byte has arrived,
 * whatever the order of the rails.  Pieces are eager messages, so a failed
 * rail's pieces are replayed like any other (btl_rwv_failover.c).
 * Layer: protocol (docs/layout.md).
 */
#include "opal_config.h"

#include <string.h>

#include "opal/util/output.h"

#include "btl_rwv.h"
#include "btl_rwv_endpoint.h"
#include "btl_rwv_frag.h"
#include "btl_rwv_eager_stripe.h"
#include "btl_rwv_recv.h"
#include "btl_rwv_send.h"
#include "btl_rwv_stripe.h"

#define MCA_BTL_RWV_EAGER_PIECE_MIN 2048

static mca_btl_rwv_frag_t *mca_btl_rwv_eager_piece (mca_btl_rwv_frag_t *whole,
                                                    uint32_t id, size_t offset, size_t len)
{
    mca_btl_rwv_frag_t *piece = mca_btl_rwv_frag_alloc (whole->endpoint, MCA_BTL_DES_FLAGS_BTL_OWNERSHIP);
    mca_btl_rwv_stripe_hdr_t hdr = {.id = id, .offset = (uint32_t) offset,
                                    .total = (uint32_t) whole->segments[0].seg_len};

    if (NULL == piece) {
        return NULL;
    }
    memcpy (piece->buf, &hdr, sizeof (hdr));
    memcpy (piece->buf + sizeof (hdr), whole->buf + offset, len);
    piece->segments[0].seg_len = sizeof (hdr) + len;
    piece->tag = whole->tag;
    piece->hdr_flags = MCA_BTL_RWV_HDR_FLAG_STRIPE;
    piece->parent = whole;
    return piece;
}

bool mca_btl_rwv_eager_stripe (mca_btl_rwv_endpoint_t *endpoint,
                               mca_btl_rwv_frag_t *frag)
{
    mca_btl_rwv_conn_t *conns[MCA_BTL_RWV_MAX_RAILS];
    mca_btl_rwv_frag_t *pieces[MCA_BTL_RWV_MAX_RAILS];
    size_t lens[MCA_BTL_RWV_MAX_RAILS], offset = 0;
    uint32_t id = endpoint->next_stripe_id;
    int n = mca_btl_rwv_endpoint_ready_conns (endpoint, conns);

    if (n < 2 || (n = mca_btl_rwv_stripe_plan (conns, n, frag->segments[0].seg_len, MCA_BTL_RWV_EAGER_PIECE_MIN,
                                               lens)) < 2) {
        return false;
    }
    for (int i = 0 ; i < n ; offset += lens[i++]) {
        if (NULL == (pieces[i] = mca_btl_rwv_eager_piece (frag, id, offset, lens[i]))) {
            while (i-- > 0) {
                mca_btl_rwv_frag_return (pieces[i]);
            }
            return false;
        }
    }
    endpoint->next_stripe_id++;
    frag->endpoint = endpoint;
    frag->pieces_left = n;
    frag->status = OPAL_SUCCESS;
    for (int i = 0 ; i < n ; ++i) {
        mca_btl_rwv_conn_send_frag (conns[i], pieces[i]);
    }
    return true;
}

static mca_btl_rwv_frag_t *mca_btl_rwv_reassembly_find (mca_btl_rwv_endpoint_t *endpoint,
                                                        const mca_btl_rwv_stripe_hdr_t *hdr, uint8_t tag)
{
    mca_btl_rwv_frag_t *whole;

    OPAL_LIST_FOREACH(whole, &endpoint->reassembly, mca_btl_rwv_frag_t) {
        if (whole->stripe_id == hdr->id) {
            return whole;
        }
    }
    whole = mca_btl_rwv_frag_alloc (endpoint, MCA_BTL_DES_FLAGS_BTL_OWNERSHIP);
    if (NULL != whole) {
        whole->stripe_id = hdr->id;
        whole->received = 0;
        whole->tag = tag;
        whole->segments[0].seg_len = hdr->total;
        opal_list_append (&endpoint->reassembly, &whole->base.super.super);
    }
    return whole;
}

const char *mca_btl_rwv_eager_stripe_receive (mca_btl_rwv_endpoint_t *endpoint, uint8_t tag,
                                              const unsigned char *data, size_t len)
{
    mca_btl_rwv_stripe_hdr_t hdr = {0};
    mca_btl_rwv_frag_t *whole;
    size_t piece_len = len - sizeof (hdr);

    if (len < sizeof (hdr)) {
        return "a piece of a split message shorter than its header";
    }
    memcpy (&hdr, data, sizeof (hdr));
    if (hdr.total > mca_btl_rwv_max_payload () || hdr.offset + piece_len > hdr.total) {
        return "a piece of a split message that does not fit the whole";
    }
    if (NULL == (whole = mca_btl_rwv_reassembly_find (endpoint, &hdr, tag))) {
        return "a piece of a split message that matches no other piece";
    }
    if (whole->received + piece_len > hdr.total) {
        return "more pieces of a split message than the whole holds";
    }
    memcpy (whole->buf + hdr.offset, data + sizeof (hdr), piece_len);
    whole->received += (uint32_t) piece_len;
    if (whole->received == hdr.total) {
        opal_list_remove_item (&endpoint->reassembly, &whole->base.super.super);
        mca_btl_rwv_deliver (endpoint, whole->tag, whole->buf, hdr.total);
        mca_btl_rwv_frag_return (whole);
    }
    return NULL;
}
