/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Send rings: a busy connection's messages packed where they are written
 * from, freed by its credits.
 *
 * A message the immediate send cannot inject went through one of rwv's
 * frags: taken from the free list, packed, written with no completion,
 * kept on the connection until the peer's credit said it consumed it, then
 * given back; on the verbs rail, where ob1 offers every eager message to
 * btl_sendi, the frag's share was about 130 of 650 instructions per
 * message (docs/results-message-rate.md).  A connection that sends many
 * takes a send ring instead: MCA_BTL_RWV_SEND_RING_ENTRIES entries,
 * registered once.  Its message number N is packed into entry N mod
 * entries and written from there, and nothing is allocated, kept or given
 * back per message.  What frees an entry is the credits: a message goes
 * into the ring only while fewer than `entries' messages are unconsumed,
 * so the one that used the entry before has been consumed, which proves
 * the transport has read it (the same proof that frees a kept frag).
 *
 * Only a connection to a peer reached over one rail takes one (a
 * multi-rail peer's messages are kept as frags for a replay), over a rail
 * whose writes can go without a completion; a peer on this node is
 * written by stores into the ring we share.  Each rail has at most
 * btl_rwv_send_rings: a connection asks after MCA_BTL_RWV_SEND_RING_AFTER
 * messages and again every as many, and gets a free ring while there is
 * one.  A ring goes back when its connection closes or starts afresh.
 * When every ring is taken, an ask revokes the ring of a holder that sent
 * fewer than a quarter as many messages since the last ask: it writes no
 * more there (until it has sent as many as between asks), and a later ask
 * takes the ring once the peer has consumed what it wrote there, which
 * proves the transport done with those entries.  The old holder asks again
 * after as many messages as a new connection.  A holder that falls silent
 * keeps its ring: the peer reports credits after half its ring, or with a
 * message of its own, so its last messages are never proven consumed.
 * Layer: protocol (docs/layout.md).
 */
#include "opal_config.h"

#include <stdlib.h>
#include <string.h>

#include "opal/mca/btl/base/base.h"
#include "opal/util/output.h"
#include "opal/util/sys_limits.h"

#include "btl_rwv.h"
#include "btl_rwv_send.h"
#include "btl_rwv_send_ring.h"
#include "btl_rwv_slot.h"

/* Entries of a send ring: a power of two, so that a message's entry is its
 * number masked; as many as btl_rwv_eager_slots by default. */
#define MCA_BTL_RWV_SEND_RING_ENTRIES 16
/* Messages between a connection's asks for a ring: a pair that streams
 * has one after its first 64, an all-to-all's one message per pair never
 * asks. */
#define MCA_BTL_RWV_SEND_RING_AFTER 64
/* Bytes of an entry: an 8 KiB message with ob1's header and ours.  Past
 * that the copy costs more than the frag the ring saves. */
#define MCA_BTL_RWV_SEND_RING_ENTRY (8192 + 256)

typedef struct mca_btl_rwv_send_ring_t {
    unsigned char *base;
    void *mr;
    void *desc;
    mca_btl_rwv_conn_t *owner;  /* NULL: free */
    uint64_t owner_seq;         /* the owner's send_seq when an ask last found the ring taken */
    bool revoked;               /* the owner sends too little: it writes no more into the ring */
    uint64_t last_seq;          /* revoked: the owner's last message that may be in the ring */
} mca_btl_rwv_send_ring_t;

static struct {
    mca_btl_rwv_send_ring_t *rings[MCA_BTL_RWV_MAX_RAILS];  /* btl_rwv_send_rings each, allocated on first use */
    int allocated[MCA_BTL_RWV_MAX_RAILS];
} rwv_send;

static size_t rwv_send_ring_size (void)
{
    return (size_t) MCA_BTL_RWV_SEND_RING_ENTRIES * MCA_BTL_RWV_SEND_RING_ENTRY;
}

/* Once per rail: its connections go on sending through frags. */
static void rwv_send_ring_unavailable (const mca_btl_rwv_rail_t *rail, const char *what)
{
    static bool said[MCA_BTL_RWV_MAX_RAILS];

    if (said[rail->index]) {
        return;
    }
    said[rail->index] = true;
    opal_output_verbose (MCA_BASE_VERBOSE_WARN, opal_btl_base_framework.framework_output,
                         "btl/rwv: %s: a send ring of %zu bytes could not be %s (%d in use): messages go through "
                         "send buffers, which costs more per message (lower btl_rwv_send_rings, or raise the "
                         "memory lock limit)", rail->name, rwv_send_ring_size (), what, rwv_send.allocated[rail->index]);
}

static mca_btl_rwv_send_ring_t *rwv_send_ring_new (mca_btl_rwv_rail_t *rail)
{
    int r = rail->index;
    mca_btl_rwv_send_ring_t *ring;
    uint64_t rkey;

    if (NULL == rwv_send.rings[r] &&
        NULL == (rwv_send.rings[r] = calloc ((size_t) mca_btl_rwv_component.send_rings, sizeof (*ring)))) {
        return NULL;
    }
    ring = &rwv_send.rings[r][rwv_send.allocated[r]];
    if (0 != posix_memalign ((void **) &ring->base, opal_getpagesize (), rwv_send_ring_size ())) {
        ring->base = NULL;
        rwv_send_ring_unavailable (rail, "allocated");
        return NULL;
    }
    if (OPAL_SUCCESS != rail->ops->mr_reg (rail, ring->base, rwv_send_ring_size (), MCA_BTL_RWV_ACCESS_WRITE_FROM,
                                           &ring->mr, &ring->desc, &rkey)) {
        free (ring->base);
        ring->base = NULL;
        rwv_send_ring_unavailable (rail, "registered");
        return NULL;
    }
    rwv_send.allocated[r]++;
    mca_btl_rwv_component.module->send_ring_bytes += rwv_send_ring_size ();
    return ring;
}

/* A holder that sent fewer messages than this since the last ask found
 * its ring taken sends too few to keep it from a connection that asks. */
#define MCA_BTL_RWV_SEND_RING_SLOW (MCA_BTL_RWV_SEND_RING_AFTER / 4)

/* Is every message RING's holder wrote from it consumed?  Its credit word
 * is read nowhere else while it sends little (only once the credits known
 * are spent); a bad one closes the connection, which frees the ring. */
static bool rwv_send_ring_drained (mca_btl_rwv_send_ring_t *ring)
{
    mca_btl_rwv_conn_t *owner = ring->owner;

    if (owner->peer.consumed < ring->last_seq) {
        (void) mca_btl_rwv_conn_read_credit_word (owner);
    }
    return NULL == ring->owner || owner->peer.consumed >= ring->last_seq;
}

/* At an ask that found every ring taken: may RING pass to the asker?  A
 * holder that sends little stops writing into it (revoked), and the ring
 * passes once the peer has consumed what it wrote there. */
static bool rwv_send_ring_yields (mca_btl_rwv_send_ring_t *ring)
{
    uint64_t seq = ring->owner->peer.send_seq, sent = seq - ring->owner_seq;

    ring->owner_seq = seq;
    if (!ring->revoked && sent < MCA_BTL_RWV_SEND_RING_SLOW) {
        ring->revoked = true;
        ring->last_seq = seq;
    }
    return ring->revoked && rwv_send_ring_drained (ring);
}

/* The ring a slow holder gives up: it asks again after as many messages
 * as a new connection. */
static mca_btl_rwv_send_ring_t *rwv_send_ring_take (mca_btl_rwv_send_ring_t *ring)
{
    if (NULL != ring->owner) {
        ring->owner->send_ring = NULL;
        ring->owner->send_ring_asked = ring->owner->peer.send_seq;
        ring->owner = NULL;
    }
    ring->revoked = false;
    mca_btl_rwv_count (MCA_BTL_RWV_COUNT_SEND_RING_HANDOVER);
    return ring;
}

/* A ring of RAIL for a connection that asks: a free one, a new one while
 * the rail has fewer than btl_rwv_send_rings, or a slow holder's; NULL if
 * none.  An ask comes every MCA_BTL_RWV_SEND_RING_AFTER messages of a
 * connection without a ring, so the walks stay off the message path. */
static mca_btl_rwv_send_ring_t *rwv_send_ring_find (mca_btl_rwv_rail_t *rail)
{
    int r = rail->index;
    mca_btl_rwv_send_ring_t *yielded = NULL;

    for (int i = 0 ; i < rwv_send.allocated[r] ; ++i) {
        if (NULL == rwv_send.rings[r][i].owner) {
            return &rwv_send.rings[r][i];
        }
    }
    if (rwv_send.allocated[r] < mca_btl_rwv_component.send_rings) {
        return rwv_send_ring_new (rail);
    }
    for (int i = 0 ; i < rwv_send.allocated[r] && NULL == yielded ; ++i) {
        if (rwv_send_ring_yields (&rwv_send.rings[r][i])) {
            yielded = &rwv_send.rings[r][i];
        }
    }
    return NULL != yielded ? rwv_send_ring_take (yielded) : NULL;
}

/* CONN's ring was revoked: it is CONN's again once CONN has sent as many
 * messages as a connection between asks, meanwhile through frags.  Out of
 * line, as the ask: every message of a ring's holder passes by. */
static bool __opal_attribute_noinline__ rwv_send_ring_restored (const mca_btl_rwv_conn_t *conn,
                                                                mca_btl_rwv_send_ring_t *ring)
{
    if (conn->peer.send_seq - ring->last_seq < MCA_BTL_RWV_SEND_RING_AFTER) {
        return false;
    }
    ring->revoked = false;
    return true;
}

/* CONN has no ring: one, if it has sent enough since it last asked. */
static mca_btl_rwv_send_ring_t * __opal_attribute_noinline__ rwv_send_ring_ask (mca_btl_rwv_conn_t *conn)
{
    mca_btl_rwv_send_ring_t *ring;

    if (conn->peer.send_seq - conn->send_ring_asked < MCA_BTL_RWV_SEND_RING_AFTER ||
        0 == mca_btl_rwv_component.send_rings || NULL == conn->rail->ops->write_quiet) {
        return NULL;
    }
    conn->send_ring_asked = conn->peer.send_seq;
    if (NULL != (ring = rwv_send_ring_find (conn->rail))) {
        ring->owner = conn;
        ring->owner_seq = conn->peer.send_seq;
        conn->send_ring = ring;
    }
    return ring;
}

/* The entry of CONN's next message, or NULL when it has no ring, the
 * message does not fit an entry, or as many of its messages as the ring
 * has entries are unconsumed (the peer's ring may have more slots). */
static unsigned char *rwv_send_ring_entry (mca_btl_rwv_conn_t *conn, size_t len)
{
    mca_btl_rwv_send_ring_t *ring = conn->send_ring;

    if (OPAL_UNLIKELY(NULL == ring) && NULL == (ring = rwv_send_ring_ask (conn))) {
        return NULL;
    }
    if (OPAL_UNLIKELY(ring->revoked) && !rwv_send_ring_restored (conn, ring)) {
        return NULL;
    }
    if (mca_btl_rwv_slot_bytes (len) > MCA_BTL_RWV_SEND_RING_ENTRY ||
        conn->peer.send_seq - conn->peer.consumed >= MCA_BTL_RWV_SEND_RING_ENTRIES) {
        return NULL;
    }
    return ring->base + ((conn->peer.send_seq + 1) & (MCA_BTL_RWV_SEND_RING_ENTRIES - 1)) * MCA_BTL_RWV_SEND_RING_ENTRY;
}

int mca_btl_rwv_send_ring_send (mca_btl_rwv_conn_t *conn, opal_convertor_t *convertor, const void *header,
                                size_t header_size, size_t payload_size, mca_btl_base_tag_t tag)
{
    size_t len = header_size + payload_size, total;
    unsigned char *entry = rwv_send_ring_entry (conn, len);
    int rc;

    if (NULL == entry) {
        return OPAL_ERR_NOT_AVAILABLE;
    }
    mca_btl_rwv_pack_inline (entry, convertor, header, header_size, payload_size);
    total = mca_btl_rwv_build (conn, entry, len, tag, 0, NULL);
    rc = conn->rail->ops->write_quiet (conn, entry, total, conn->send_ring->desc, mca_btl_rwv_slot_raddr (conn, total),
                                       conn->peer.ring_rkey, conn->peer.notify_imm, mca_btl_rwv_imm (conn));
    if (OPAL_SUCCESS != rc) {
        return rc;
    }
    mca_btl_rwv_count (MCA_BTL_RWV_COUNT_SEND_RING);
    mca_btl_rwv_sent (conn);
    return OPAL_SUCCESS;
}

void mca_btl_rwv_send_ring_release (mca_btl_rwv_conn_t *conn)
{
    if (NULL != conn->send_ring) {
        conn->send_ring->owner = NULL;
        conn->send_ring->revoked = false;
        conn->send_ring = NULL;
    }
    conn->send_ring_asked = 0; /* its messages count from zero again */
}

void mca_btl_rwv_send_ring_fini (void)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;

    for (int r = 0 ; r < MCA_BTL_RWV_MAX_RAILS ; ++r) {
        for (int i = 0 ; i < rwv_send.allocated[r] ; ++i) {
            module->rails[r]->ops->mr_dereg (module->rails[r], rwv_send.rings[r][i].mr);
            free (rwv_send.rings[r][i].base);
        }
        free (rwv_send.rings[r]);
    }
    memset (&rwv_send, 0, sizeof (rwv_send));
    module->send_ring_bytes = 0;
}
