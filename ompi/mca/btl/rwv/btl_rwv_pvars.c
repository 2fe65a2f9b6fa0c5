/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * What a job uses, as MPI_T performance variables (and ompi_info):
 * btl_rwv_eager_ring_bytes, the receive rings this process holds;
 * btl_rwv_send_ring_bytes, its send rings (counted by btl_rwv_send_ring.c);
 * btl_rwv_peers_connected, the peers it has a live connection to;
 * btl_rwv_hot_peers, btl_rwv_promotions and btl_rwv_demotions, the hot
 * set's state (btl_rwv_hotset.c).  Read when asked, from the connection
 * table and the hot set's own counters.
 * And what the data path costs (mca_btl_rwv_counter_t): eager messages,
 * rail writes, completions asked for and reaped, credit writes.  Divided
 * by each other they say what one message costs a NIC, without a clock.
 * Layer: glue (docs/layout.md).
 */
#include "opal_config.h"

#include "opal/mca/base/mca_base_pvar.h"

#include "btl_rwv.h"
#include "btl_rwv_endpoint.h"
#include "btl_rwv_pvars.h"
#include "btl_rwv_hotset.h"

static int rwv_pvar_send_ring_bytes (const struct mca_base_pvar_t *pvar, void *value, void *obj)
{
    const mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;

    *(unsigned long *) value = NULL == module ? 0 : (unsigned long) module->send_ring_bytes;
    return OPAL_SUCCESS;
}

static int rwv_pvar_ring_bytes (const struct mca_base_pvar_t *pvar, void *value, void *obj)
{
    mca_btl_rwv_hotset_stats_t stats;

    mca_btl_rwv_hotset_stats (&stats);
    *(unsigned long *) value = (unsigned long) (stats.own_ring_bytes + stats.ring_bytes + stats.warm_ring_bytes);
    return OPAL_SUCCESS;
}

static int rwv_pvar_peers_connected (const struct mca_base_pvar_t *pvar, void *value, void *obj)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    mca_btl_rwv_endpoint_t *endpoint;
    unsigned peers = 0;

    if (NULL != module) {
        OPAL_LIST_FOREACH(endpoint, &module->endpoint_list, mca_btl_rwv_endpoint_t) {
            bool connected = false;

            for (int r = 0 ; r < MCA_BTL_RWV_MAX_RAILS ; ++r) {
                connected |= NULL != endpoint->conns[r] && MCA_BTL_RWV_CONN_CONNECTED == endpoint->conns[r]->state;
            }
            peers += connected;
        }
    }
    *(unsigned *) value = peers;
    return OPAL_SUCCESS;
}

/* The hot set's counters; the pvar's context names the one (hot_peers, promotions, demotions). */
static int rwv_pvar_hotset (const struct mca_base_pvar_t *pvar, void *value, void *obj)
{
    mca_btl_rwv_hotset_stats_t stats;

    mca_btl_rwv_hotset_stats (&stats);
    switch ((intptr_t) pvar->ctx) {
    case 0:
        *(unsigned *) value = stats.hot_peers;
        break;
    case 1:
        *(unsigned long *) value = (unsigned long) stats.promotions;
        break;
    default:
        *(unsigned long *) value = (unsigned long) stats.demotions;
    }
    return OPAL_SUCCESS;
}

static int rwv_pvar_counter (const struct mca_base_pvar_t *pvar, void *value, void *obj)
{
    const mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;

    *(unsigned long *) value = NULL == module ? 0 : (unsigned long) module->counters[(intptr_t) pvar->ctx];
    return OPAL_SUCCESS;
}

static void rwv_pvar_register_counters (const mca_base_component_t *component, int flags)
{
    static const struct {
        const char *name, *description;
    } counters[MCA_BTL_RWV_COUNT_MAX] = {
        [MCA_BTL_RWV_COUNT_EAGER] = {"eager_messages",
            "Eager messages written into a peer's ring (over a rail, or stored into a ring shared on this node), "
            "rwv's own (hellos, ring changes, atomics) included"},
        [MCA_BTL_RWV_COUNT_WRITES] = {"writes_posted",
            "Posts of RDMA writes to a rail, each a system call (tcp) or a doorbell (verbs): eager messages, "
            "credits, puts and their pieces, flush markers; a batch of eager messages is one post"},
        [MCA_BTL_RWV_COUNT_REQUESTED] = {"completions_requested",
            "Rail operations (writes and reads) posted with a completion to report: each costs the NIC a "
            "completion entry and progress a read of it"},
        [MCA_BTL_RWV_COUNT_REAPED] = {"completions_reaped",
            "Completions of this process's own operations read from a rail's completion queue (arrivals of "
            "the peers' writes are not counted)"},
        [MCA_BTL_RWV_COUNT_CREDITS] = {"credit_writes",
            "Writes of a credit word into a peer's ring over a rail: the receiver said what it consumed "
            "because it had no message of its own to carry it"},
        [MCA_BTL_RWV_COUNT_IN_PLACE] = {"eager_in_place",
            "Eager messages whose data went from the application's buffer into the peer's ring with no copy "
            "into a send buffer (btl_rwv_in_place_min)"},
        [MCA_BTL_RWV_COUNT_SEND_RING] = {"eager_from_send_ring",
            "Eager messages packed into their connection's send ring and written from there, with no send "
            "buffer taken or given back (btl_rwv_send_rings)"},
        [MCA_BTL_RWV_COUNT_SEND_RING_HANDOVER] = {"send_ring_handovers",
            "Send rings passed from a connection that sent too few messages to keep one to a connection that "
            "asked for a ring when every ring of its rail was taken (btl_rwv_send_rings)"},
        [MCA_BTL_RWV_COUNT_READ] = {"eager_messages_read",
            "Eager messages that came too large for the slots of their sender's ring here, and were read from "
            "the sender instead: each waits for the sender's transport to answer (btl_rwv_cold_slot_size, "
            "btl_rwv_warm_slot_size)"},
    };

    for (int i = 0 ; i < MCA_BTL_RWV_COUNT_MAX ; ++i) {
        (void) mca_base_component_pvar_register (component, counters[i].name, counters[i].description,
            OPAL_INFO_LVL_4, MCA_BASE_PVAR_CLASS_COUNTER, MCA_BASE_VAR_TYPE_UNSIGNED_LONG, NULL,
            MCA_BASE_VAR_BIND_NO_OBJECT, flags, rwv_pvar_counter, NULL, NULL, (void *) (intptr_t) i);
    }
}

void mca_btl_rwv_pvars_register (void)
{
    const mca_base_component_t *component = &mca_btl_rwv_component.super.btl_version;
    const int flags = MCA_BASE_PVAR_FLAG_READONLY | MCA_BASE_PVAR_FLAG_CONTINUOUS;

    (void) mca_base_component_pvar_register (component, "eager_ring_bytes",
        "Bytes of eager receive ring this process holds: every connection's own ring (slots x slot size "
        "+ 64: btl_rwv_cold_slots x btl_rwv_cold_slot_size, or x btl_rwv_warm_slot_size where the first message "
        "either way outgrew a small slot, or btl_rwv_eager_slots x btl_rwv_eager_slot_size for a peer on this "
        "node or with btl_rwv_hot_peers -1), the hot rings allocated on every rail "
        "(btl_rwv_eager_slots x btl_rwv_eager_slot_size each, at most btl_rwv_hot_peers per rail) and the "
        "warm rings (btl_rwv_cold_slots x btl_rwv_warm_slot_size each, at most btl_rwv_warm_peers per rail)",
        OPAL_INFO_LVL_4,
        MCA_BASE_PVAR_CLASS_SIZE, MCA_BASE_VAR_TYPE_UNSIGNED_LONG, NULL, MCA_BASE_VAR_BIND_NO_OBJECT, flags,
        rwv_pvar_ring_bytes, NULL, NULL, NULL);
    (void) mca_base_component_pvar_register (component, "send_ring_bytes",
        "Bytes of send ring this process holds: 135,168 per ring, at most btl_rwv_send_rings per rail, "
        "allocated as busy connections ask for one",
        OPAL_INFO_LVL_4,
        MCA_BASE_PVAR_CLASS_SIZE, MCA_BASE_VAR_TYPE_UNSIGNED_LONG, NULL, MCA_BASE_VAR_BIND_NO_OBJECT, flags,
        rwv_pvar_send_ring_bytes, NULL, NULL, NULL);
    (void) mca_base_component_pvar_register (component, "peers_connected",
        "Peers this process has at least one connected rail to (connections are made on first use)",
        OPAL_INFO_LVL_4, MCA_BASE_PVAR_CLASS_LEVEL, MCA_BASE_VAR_TYPE_UNSIGNED_INT, NULL,
        MCA_BASE_VAR_BIND_NO_OBJECT, flags, rwv_pvar_peers_connected, NULL, NULL, NULL);
    (void) mca_base_component_pvar_register (component, "hot_peers",
        "Hot (large) rings given to a peer, every rail, a peer still moving in or out included (at most btl_rwv_hot_peers per rail)",
        OPAL_INFO_LVL_4, MCA_BASE_PVAR_CLASS_LEVEL, MCA_BASE_VAR_TYPE_UNSIGNED_INT, NULL,
        MCA_BASE_VAR_BIND_NO_OBJECT, flags, rwv_pvar_hotset, NULL, NULL, (void *) 0);
    (void) mca_base_component_pvar_register (component, "promotions",
        "Times a cold peer was given a hot ring (after btl_rwv_promote_after messages)",
        OPAL_INFO_LVL_4, MCA_BASE_PVAR_CLASS_COUNTER, MCA_BASE_VAR_TYPE_UNSIGNED_LONG, NULL,
        MCA_BASE_VAR_BIND_NO_OBJECT, flags, rwv_pvar_hotset, NULL, NULL, (void *) 1);
    (void) mca_base_component_pvar_register (component, "demotions",
        "Times a hot peer silent longest gave its ring up to a busier cold one",
        OPAL_INFO_LVL_4, MCA_BASE_PVAR_CLASS_COUNTER, MCA_BASE_VAR_TYPE_UNSIGNED_LONG, NULL,
        MCA_BASE_VAR_BIND_NO_OBJECT, flags, rwv_pvar_hotset, NULL, NULL, (void *) 2);
    rwv_pvar_register_counters (component, flags);
}
