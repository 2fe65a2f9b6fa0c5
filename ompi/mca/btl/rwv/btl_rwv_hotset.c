/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * The hot set: eager memory bounded as peers grow.
 *
 * Every connection over a rail starts with a small ring of its own
 * (btl_rwv_cold_slots x btl_rwv_cold_slot_size plus the tail, 3,328 bytes),
 * which the peer writes with immediate data, so an idle cold peer costs
 * the progress loop nothing: the completion says when to look.  A message
 * larger than a small slot goes as a FETCH: the receiver reads it from the
 * sender's registered buffer (btl_rwv_fetch.c).
 *
 * Each rail has at most btl_rwv_hot_peers large rings (btl_rwv_eager_slots
 * x btl_rwv_eager_slot_size), given to the peers that send to us most: a
 * cold peer from which btl_rwv_promote_after messages have come takes a
 * free one, or, when none is free, the one of the hot peer that has been
 * silent longest, if that peer has sent nothing during the last
 * hot_peers x promote_after arrivals on the rail (so a set that is all in
 * use never churns).  Memory per rail is then
 *   peers x (cold ring) + hot_peers x (large ring)
 * instead of peers x (large ring).
 *
 * The switch: the receiver clears the new ring's sequence words and sends
 * a RING message naming it; the sender writes every message after that one
 * into the new ring (a hello if it has nothing to say).  Sequence numbers
 * run on across rings and the receiver looks for the next one in both, so
 * it needs no marker: the first message found in the new ring ends the
 * old one, which goes back to the set.  Credits count messages, not slots,
 * and are returned after half the smaller ring, so a sender with more in
 * flight than the new ring holds waits for them and never overwrites.
 * Layer: protocol (docs/layout.md).
 */
#include "opal_config.h"

#include <stdlib.h>
#include <string.h>

#include "opal/util/sys_limits.h"
#include "opal/mca/btl/base/base.h"
#include "opal/util/output.h"

#include "btl_rwv.h"
#include "btl_rwv_test_fault.h"
#include "btl_rwv_endpoint.h"
#include "btl_rwv_frag.h"
#include "btl_rwv_hotset.h"
#include "btl_rwv_params.h"
#include "btl_rwv_poll.h"
#include "btl_rwv_send.h"
#include "btl_rwv_slot.h"

static struct {
    mca_btl_rwv_hot_ring_t *rings[MCA_BTL_RWV_MAX_RAILS];  /* hot_peers each, allocated on first use */
    int allocated[MCA_BTL_RWV_MAX_RAILS];
    uint64_t promotions;
    uint64_t demotions;
} rwv_hot;

uint64_t mca_btl_rwv_hot_clock[MCA_BTL_RWV_MAX_RAILS];

/* ------------------------------------------------------------ the rings */

static size_t rwv_hot_ring_bytes (void)
{
    return (size_t) mca_btl_rwv_component.eager_slots * (size_t) mca_btl_rwv_component.eager_slot_size;
}

/* Once per rail: no more hot rings there, but nothing is lost (the peers
 * keep their small rings). */
static void rwv_hot_unavailable (const mca_btl_rwv_rail_t *rail, const char *what)
{
    static bool said[MCA_BTL_RWV_MAX_RAILS];

    if (said[rail->index]) {
        return;
    }
    said[rail->index] = true;
    opal_output_verbose (MCA_BASE_VERBOSE_WARN, opal_btl_base_framework.framework_output,
                         "btl/rwv: %s: a hot ring of %zu bytes could not be %s (%d in use): its peers keep their small "
                         "rings (lower btl_rwv_hot_peers or btl_rwv_eager_slots, or raise the memory lock limit)",
                         rail->name, rwv_hot_ring_bytes (), what, rwv_hot.allocated[rail->index]);
}

/* A ring given back keeps no key its last owner knew: registered anew
 * before it goes to the next owner, the old registration dropped, so a
 * peer demoted or gone cannot write into another's messages.  Promotions
 * are rare (btl_rwv_promote_after), so the registration costs little. */
static bool rwv_hot_rekey (mca_btl_rwv_rail_t *rail, mca_btl_rwv_hot_ring_t *ring)
{
    void *mr, *desc;
    uint64_t rkey;

    if (OPAL_SUCCESS != rail->ops->mr_reg (rail, ring->base, rwv_hot_ring_bytes (), MCA_BTL_RWV_ACCESS_PEER_WRITES, &mr, &desc, &rkey)) {
        rwv_hot_unavailable (rail, "registered again");
        return false;
    }
    rail->ops->mr_dereg (rail, ring->mr);
    ring->mr = mr;
    ring->rkey = rkey;
    return true;
}

/* A free hot ring of RAIL: one given back, else a new one while the set
 * has room; NULL if neither. */
static mca_btl_rwv_hot_ring_t *rwv_hot_take (mca_btl_rwv_rail_t *rail)
{
    int r = rail->index, cap = mca_btl_rwv_component.hot_peers;
    mca_btl_rwv_hot_ring_t *ring;
    void *desc;

    for (int i = 0 ; i < rwv_hot.allocated[r] ; ++i) {
        if (NULL == rwv_hot.rings[r][i].owner) {
            return rwv_hot_rekey (rail, &rwv_hot.rings[r][i]) ? &rwv_hot.rings[r][i] : NULL;
        }
    }
    if (rwv_hot.allocated[r] == cap ||
        (NULL == rwv_hot.rings[r] && NULL == (rwv_hot.rings[r] = calloc ((size_t) cap, sizeof (*ring))))) {
        return NULL;
    }
    ring = &rwv_hot.rings[r][rwv_hot.allocated[r]];
    if (0 != posix_memalign ((void **) &ring->base, opal_getpagesize (), rwv_hot_ring_bytes ())) {
        ring->base = NULL;
        rwv_hot_unavailable (rail, "allocated");
        return NULL;
    }
    if (OPAL_SUCCESS != rail->ops->mr_reg (rail, ring->base, rwv_hot_ring_bytes (), MCA_BTL_RWV_ACCESS_PEER_WRITES, &ring->mr, &desc, &ring->rkey)) {
        free (ring->base);
        ring->base = NULL;
        rwv_hot_unavailable (rail, "registered");
        return NULL;
    }
    rwv_hot.allocated[r]++;
    return ring;
}

/* The hot peer silent longest, if it has been silent long enough to give
 * its ring up; NULL otherwise, or while a ring is on its way back already
 * (one demotion makes room for one promotion). */
static mca_btl_rwv_conn_t *rwv_hot_victim (const mca_btl_rwv_rail_t *rail)
{
    const mca_btl_rwv_component_t *c = &mca_btl_rwv_component;
    uint64_t quiet = (uint64_t) c->hot_peers * (uint64_t) c->promote_after;
    int r = rail->index;
    mca_btl_rwv_conn_t *oldest = NULL;

    for (int i = 0 ; i < rwv_hot.allocated[r] ; ++i) {
        mca_btl_rwv_conn_t *owner = rwv_hot.rings[r][i].owner;

        if (NULL == owner || owner->local.cur.hot != &rwv_hot.rings[r][i]) {
            continue; /* being given to its owner */
        }
        if (NULL != owner->local.next.base) {
            return NULL; /* being given up */
        }
        if (NULL == oldest || owner->local.last_arrival < oldest->local.last_arrival) {
            oldest = owner;
        }
    }
    return NULL != oldest && mca_btl_rwv_hot_clock[r] - oldest->local.last_arrival > quiet ? oldest : NULL;
}

/* Tell the peer to write into TARGET from its next message on. */
static bool rwv_hot_send_ring (mca_btl_rwv_conn_t *conn, const mca_btl_rwv_slots_t *target)
{
    mca_btl_rwv_frag_t *frag = mca_btl_rwv_frag_alloc (conn->endpoint, MCA_BTL_DES_FLAGS_BTL_OWNERSHIP);
    uint64_t base = (uint64_t) (uintptr_t) target->base; /* where its registration starts, hot or own */
    mca_btl_rwv_ring_msg_t msg = {
        .raddr = mca_btl_rwv_rail_raddr (conn->rail, base, base),
        .rkey = NULL != target->hot ? target->hot->rkey : conn->local.ring_rkey,
        .slots = target->slots, .slot_size = target->slot_size,
        .generation = conn->local.generation + 1, .notify_imm = target->notify_imm,
    };

    if (NULL == frag) {
        return false;
    }
    if (MCA_BTL_RWV_TEST_FAULT(MCA_BTL_RWV_TEST_FAULT_RING_SIZE, true)) {
        msg.slot_size = 1u << 30;
    }
    /* the peer's last messages there are long consumed, but another
     * connection's may be in a hot ring: none may pass for the next one */
    for (uint32_t s = 0 ; s < target->slots ; ++s) {
        ((mca_btl_rwv_eager_hdr_t *) (target->base + (size_t) (s + 1) * target->slot_size))[-1].seq = 0;
    }
    memcpy (frag->buf, &msg, sizeof (msg));
    frag->segments[0].seg_len = sizeof (msg);
    frag->tag = MCA_BTL_RWV_TAG_RING;
    conn->local.next = *target;
    conn->local.generation++;
    mca_btl_rwv_conn_send_frag (conn, frag);
    return true;
}

/* ------------------------------------------------------------ warm rings */

static size_t rwv_warm_ring_bytes (void)
{
    return (size_t) mca_btl_rwv_component.cold_slots * (size_t) mca_btl_rwv_component.warm_slot_size;
}

/* Where a connection writes when not hot: its warm ring once it has one,
 * else its own small ring. */
static mca_btl_rwv_slots_t rwv_home (mca_btl_rwv_conn_t *conn)
{
    mca_btl_rwv_local_ring_t *local = &conn->local;

    if (NULL == local->warm.base) {
        return local->own;
    }
    return (mca_btl_rwv_slots_t) {
        .base = local->warm.base, .slots = (uint32_t) mca_btl_rwv_component.cold_slots,
        .slot_size = (uint32_t) mca_btl_rwv_component.warm_slot_size, .notify_imm = local->own.notify_imm,
        .hot = &local->warm,
    };
}

static bool rwv_warm_alloc (mca_btl_rwv_conn_t *conn)
{
    mca_btl_rwv_rail_t *rail = conn->rail;
    mca_btl_rwv_hot_ring_t *warm = &conn->local.warm;
    void *desc;

    if (0 != posix_memalign ((void **) &warm->base, opal_getpagesize (), rwv_warm_ring_bytes ())) {
        warm->base = NULL;
        return false;
    }
    if (OPAL_SUCCESS != rail->ops->mr_reg (rail, warm->base, rwv_warm_ring_bytes (), MCA_BTL_RWV_ACCESS_PEER_WRITES,
                                           &warm->mr, &desc, &warm->rkey)) {
        free (warm->base);
        warm->base = NULL;
        return false;
    }
    rail->warm_rings++;
    return true;
}

static void rwv_warm_free (mca_btl_rwv_conn_t *conn)
{
    mca_btl_rwv_hot_ring_t *warm = &conn->local.warm;

    if (NULL != warm->base) {
        conn->rail->ops->mr_dereg (conn->rail, warm->mr);
        free (warm->base);
        warm->base = NULL;
        conn->rail->warm_rings--;
    }
}

/* With the lock: a message of LEN bytes was read from the peer because it
 * did not fit its small slots.  If it would fit a warm slot, the peer
 * writes into a warm ring from now on (while the rail has room for one):
 * a read waits for the sender's transport to answer it, which on a
 * transport without RDMA hardware (libfabric's tcp provider) means for the
 * sender to be scheduled, where 64 ranks share 2 cores, seconds. */
void mca_btl_rwv_hotset_fetched (mca_btl_rwv_conn_t *conn, size_t len)
{
    const mca_btl_rwv_component_t *c = &mca_btl_rwv_component;
    mca_btl_rwv_local_ring_t *local = &conn->local;
    mca_btl_rwv_slots_t home;

    if (!local->tiered || NULL != local->warm.base || mca_btl_rwv_local_hot (local) || NULL != local->next.base ||
        MCA_BTL_RWV_CONN_CONNECTED != conn->state || mca_btl_rwv_slot_bytes (len) > (size_t) c->warm_slot_size ||
        (c->warm_peers >= 0 && conn->rail->warm_rings >= c->warm_peers) || !rwv_warm_alloc (conn)) {
        return;
    }
    home = rwv_home (conn);
    if (!rwv_hot_send_ring (conn, &home)) {
        rwv_warm_free (conn);
    }
}

static void rwv_hot_promote (mca_btl_rwv_conn_t *conn)
{
    mca_btl_rwv_hot_ring_t *ring = rwv_hot_take (conn->rail);
    mca_btl_rwv_conn_t *victim;

    if (NULL == ring) {
        /* make room: the ring comes back once the victim's peer has switched */
        if (NULL != (victim = rwv_hot_victim (conn->rail))) {
            mca_btl_rwv_slots_t home = rwv_home (victim);

            if (rwv_hot_send_ring (victim, &home)) {
                victim->local.arrivals = 0;
                rwv_hot.demotions++;
            }
        }
        return;
    }
    ring->owner = conn;
    if (!rwv_hot_send_ring (conn, &(mca_btl_rwv_slots_t) {
                .base = ring->base, .slots = (uint32_t) mca_btl_rwv_component.eager_slots,
                .slot_size = (uint32_t) mca_btl_rwv_component.eager_slot_size,
                .notify_imm = mca_btl_rwv_large_ring_notifies (conn->rail), .hot = ring})) {
        ring->owner = NULL;
        return;
    }
    rwv_hot.promotions++;
    (void) mca_btl_rwv_poll_want (conn); /* a ring written without completions is polled */
}

void mca_btl_rwv_hotset_arrival_cold (mca_btl_rwv_conn_t *conn)
{
    mca_btl_rwv_local_ring_t *local = &conn->local;

    if (NULL != local->next.base || MCA_BTL_RWV_CONN_CONNECTED != conn->state ||
        ++local->arrivals < (uint64_t) mca_btl_rwv_component.promote_after || 0 == mca_btl_rwv_component.hot_peers) {
        return;
    }
    rwv_hot_promote (conn);
}

void mca_btl_rwv_hotset_switched (mca_btl_rwv_conn_t *conn)
{
    mca_btl_rwv_local_ring_t *local = &conn->local;

    if (NULL != local->cur.hot) {
        local->cur.hot->owner = NULL;
    }
    local->cur = local->next;
    local->next = (mca_btl_rwv_slots_t) {.base = NULL};
    local->next_slot = 0;
    RWV_TRACE("btl/rwv: %s on %s writes into its %s ring now", OPAL_NAME_PRINT(conn->endpoint->proc->proc_name),
              conn->rail->name, mca_btl_rwv_local_hot (local) ? "hot" : NULL != local->cur.hot ? "warm" : "own");
}

void mca_btl_rwv_hotset_release (mca_btl_rwv_conn_t *conn)
{
    mca_btl_rwv_local_ring_t *local = &conn->local;

    if (NULL != local->next.hot) {
        local->next.hot->owner = NULL;
    }
    if (NULL != local->cur.hot) {
        local->cur.hot->owner = NULL;
    }
    local->cur = local->own;
    local->next = (mca_btl_rwv_slots_t) {.base = NULL};
    local->generation = 0;
    local->arrivals = 0;
    rwv_warm_free (conn); /* the peer that wrote into it is gone, or starts again in the small ring */
}

/* ------------------------------------------------------------ the sender's side */

/* Never trust the numbers: the new ring must be one a ring of ours could be. */
static const char *rwv_ring_msg_problem (const mca_btl_rwv_conn_t *conn, const mca_btl_rwv_ring_msg_t *msg)
{
    if (NULL != conn->peer.ring) {
        return "a ring change for a ring it shares with us on this node";
    }
    if (msg->generation != conn->peer.generation + 1) {
        return "a ring change out of order";
    }
    if (msg->slots < 2 || msg->slots > 65536 || msg->slot_size < 128 || msg->slot_size > (1u << 20) ||
        msg->slot_size % 8 || (uint64_t) msg->slots * msg->slot_size > (64ull << 20)) {
        return "a ring of a size no rwv process makes";
    }
    return NULL;
}

const char *mca_btl_rwv_hotset_receive (mca_btl_rwv_conn_t *conn, const void *payload, size_t len)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    mca_btl_rwv_ring_msg_t msg;
    const char *problem;

    if (len != sizeof (msg)) {
        return "a ring change of the wrong size";
    }
    memcpy (&msg, payload, sizeof (msg));
    MCA_BTL_RWV_LOCK(module);
    if (NULL == (problem = rwv_ring_msg_problem (conn, &msg))) {
        conn->peer.ring_raddr = msg.raddr;
        conn->peer.ring_rkey = msg.rkey;
        conn->peer.slots = msg.slots;
        conn->peer.slot_size = msg.slot_size;
        conn->peer.notify_imm = 0 != msg.notify_imm;
        conn->peer.next_slot = 0;
        conn->peer.generation = msg.generation;
        conn->peer.owe_hello = true;  /* the peer frees the old ring once we write into this one */
    }
    MCA_BTL_RWV_UNLOCK(module);
    return problem;
}

/* ------------------------------------------------------------ accounting */

void mca_btl_rwv_hotset_stats (mca_btl_rwv_hotset_stats_t *stats)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;

    memset (stats, 0, sizeof (*stats));
    for (int r = 0 ; r < MCA_BTL_RWV_MAX_RAILS ; ++r) {
        for (int i = 0 ; i < rwv_hot.allocated[r] ; ++i) {
            stats->hot_peers += NULL != rwv_hot.rings[r][i].owner;
        }
        stats->ring_bytes += (uint64_t) rwv_hot.allocated[r] * rwv_hot_ring_bytes ();
    }
    stats->promotions = rwv_hot.promotions;
    stats->demotions = rwv_hot.demotions;
    for (int i = 0 ; NULL != module && i < opal_pointer_array_get_size (&module->conns) ; ++i) {
        mca_btl_rwv_conn_t *conn = opal_pointer_array_get_item (&module->conns, i);

        if (NULL != conn) {
            stats->own_ring_bytes += conn->local.ring_bytes;
            stats->connections++;
            stats->warm_peers += NULL != conn->local.warm.base;
            stats->roomy_peers += mca_btl_rwv_conn_roomy (&conn->local);
        }
    }
    stats->warm_ring_bytes = (uint64_t) stats->warm_peers * rwv_warm_ring_bytes ();
}

void mca_btl_rwv_hotset_report (void)
{
    mca_btl_rwv_hotset_stats_t stats;

    mca_btl_rwv_hotset_stats (&stats);
    opal_output_verbose (MCA_BASE_VERBOSE_INFO, opal_btl_base_framework.framework_output,
                         "btl/rwv: eager rings: %u connections, %.2f MiB of their own rings, %.2f MiB of hot rings "
                         "(%u in use, at most %d per rail), %" PRIu64 " promotions, %" PRIu64 " demotions, "
                         "%.2f MiB of warm rings (%u), %u own rings started with warm slots",
                         stats.connections, stats.own_ring_bytes / 1048576.0, stats.ring_bytes / 1048576.0,
                         stats.hot_peers, mca_btl_rwv_component.hot_peers, stats.promotions, stats.demotions,
                         stats.warm_ring_bytes / 1048576.0, stats.warm_peers, stats.roomy_peers);
}

void mca_btl_rwv_hotset_fini (void)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;

    for (int r = 0 ; r < MCA_BTL_RWV_MAX_RAILS ; ++r) {
        for (int i = 0 ; i < rwv_hot.allocated[r] ; ++i) {
            module->rails[r]->ops->mr_dereg (module->rails[r], rwv_hot.rings[r][i].mr);
            free (rwv_hot.rings[r][i].base);
        }
        free (rwv_hot.rings[r]);
    }
    memset (&rwv_hot, 0, sizeof (rwv_hot));
}
