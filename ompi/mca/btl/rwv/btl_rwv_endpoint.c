/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Peers and their connections: modex lookup, the choice of rail, and the
 * connection state machine described in btl_rwv_endpoint.h (the
 * handshake itself, its data and its proof are btl_rwv_handshake.c).
 */
#include "opal_config.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "opal/mca/btl/base/base.h"
#include "rwv_opal_compat.h"
#include "opal/util/sys_limits.h"
#include "opal/util/output.h"
#include "opal/util/proc.h"
#include "opal/util/show_help.h"

#include "btl_rwv.h"
#include "btl_rwv_cma.h"
#include "btl_rwv_cm_thread.h"
#include "btl_rwv_endpoint.h"
#include "btl_rwv_progress.h"
#include "btl_rwv_frag.h"
#include "btl_rwv_atomic.h"
#include "btl_rwv_failover.h"
#include "btl_rwv_handshake.h"
#include "btl_rwv_hotset.h"
#include "btl_rwv_fetch.h"
#include "btl_rwv_rdma.h"
#include "btl_rwv_send.h"

static void mca_btl_rwv_endpoint_construct (mca_btl_rwv_endpoint_t *endpoint)
{
    endpoint->proc = NULL;
    endpoint->self = false;
    endpoint->same_node = false;
    endpoint->cma_pid = 0;
    endpoint->peer_rings = NULL;
    endpoint->num_peer_rails = 0;
    endpoint->num_rails = 0;
    endpoint->next_rail = 0;
    endpoint->next_stripe_id = 0;
    endpoint->put_conn = NULL;
    endpoint->unconfirmed_puts = 0;
    endpoint->failed = false;
    endpoint->ops_out = 0;
    OBJ_CONSTRUCT(&endpoint->atomics, opal_list_t);
    memset (endpoint->conns, 0, sizeof (endpoint->conns));
    memset (endpoint->peer_attempt, 0, sizeof (endpoint->peer_attempt));
    OBJ_CONSTRUCT(&endpoint->reassembly, opal_list_t);
}

static void mca_btl_rwv_endpoint_destruct (mca_btl_rwv_endpoint_t *endpoint)
{
    opal_list_item_t *item;

    while (NULL != (item = opal_list_remove_first (&endpoint->reassembly))) {
        mca_btl_rwv_frag_return ((mca_btl_rwv_frag_t *) item);
    }
    OBJ_DESTRUCT(&endpoint->reassembly);
    OBJ_DESTRUCT(&endpoint->atomics);
}

OBJ_CLASS_INSTANCE(mca_btl_rwv_endpoint_t, opal_list_item_t, mca_btl_rwv_endpoint_construct,
                   mca_btl_rwv_endpoint_destruct);


static uint64_t mca_btl_rwv_name_key (const opal_process_name_t *name)
{
    uint64_t key;

    memcpy (&key, name, sizeof (key));
    return key;
}

const char *mca_btl_rwv_peer_host (const mca_btl_rwv_endpoint_t *endpoint)
{
    const char *host = endpoint->proc ? opal_get_proc_hostname (endpoint->proc) : NULL;

    return host ? host : "unknown host";
}

/* ------------------------------------------------------------ rail choice */

static bool mca_btl_rwv_same_network (const mca_btl_rwv_rail_addr_t *a, const mca_btl_rwv_rail_addr_t *b)
{
    uint32_t mask = mca_btl_rwv_netmask (a->prefix_len < b->prefix_len ? a->prefix_len : b->prefix_len);

    return (a->ipv4 & mask) == (b->ipv4 & mask);
}

int mca_btl_rwv_peer_rail_for (const mca_btl_rwv_endpoint_t *endpoint, const mca_btl_rwv_rail_t *rail)
{
    for (int p = 0 ; p < endpoint->num_peer_rails ; ++p) {
        if (rail->addr.loopback == endpoint->peer_rails[p].loopback &&
            mca_btl_rwv_same_network (&rail->addr, &endpoint->peer_rails[p])) {
            return p;
        }
    }
    return -1;
}

/* The local rails that share an IP network with one of the peer's rails,
 * in the module's (NUMA-near first) order.  A peer on this node gets the
 * loopback rail alone if there is one: striping over it gains nothing.
 * Other peers never get it.  Returns how many. */
static int mca_btl_rwv_choose_rails (mca_btl_rwv_endpoint_t *endpoint)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    bool local = OPAL_PROC_ON_LOCAL_NODE(endpoint->proc->proc_flags);

    endpoint->same_node = local;
    endpoint->num_rails = 0;
    for (int pass = local ? 0 : 1 ; pass < 2 && 0 == endpoint->num_rails ; ++pass) {
        for (int r = 0 ; r < module->num_rails ; ++r) {
            mca_btl_rwv_rail_t *rail = module->rails[r];

            if (rail->addr.loopback == (0 == pass) && mca_btl_rwv_peer_rail_for (endpoint, rail) >= 0) {
                endpoint->rails[endpoint->num_rails++] = r;
            }
        }
    }
    return endpoint->num_rails;
}

/* Our eager messages must fit the peer's slots: a job whose processes
 * were given different slot sizes is told so here, once, not by a
 * malformed message later. */
static bool mca_btl_rwv_peer_takes_our_eager (const mca_btl_rwv_endpoint_t *endpoint, uint32_t peer_max)
{
    size_t ours = mca_btl_rwv_component.module->super.btl_eager_limit;
    static bool said;

    if (ours <= peer_max) {
        return true;
    }
    if (!said) {
        said = true;
        rwv_show_help ("help-mpi-btl-rwv.txt", "eager sizes differ", true, OPAL_PROC_MY_HOSTNAME,
                        OPAL_NAME_PRINT(endpoint->proc->proc_name), mca_btl_rwv_peer_host (endpoint), ours,
                        peer_max);
    }
    return false;
}

/* The peer's modex (mca_btl_rwv_modex_t, then its rail addresses). */
static int mca_btl_rwv_endpoint_modex (mca_btl_rwv_endpoint_t *endpoint)
{
    const size_t addr_size = sizeof (mca_btl_rwv_rail_addr_t);
    mca_btl_rwv_modex_t head;
    uint8_t *data;
    size_t size;
    int rc;

    OPAL_MODEX_RECV(rc, &mca_btl_rwv_component.super.btl_version, &endpoint->proc->proc_name, &data, &size);
    if (OPAL_SUCCESS != rc) {
        return rc;
    }
    if (size < sizeof (head) || 0 != (size - sizeof (head)) % addr_size) {
        free (data);
        return OPAL_ERR_BAD_PARAM; /* another version of rwv */
    }
    memcpy (&head, data, sizeof (head));
    memcpy (endpoint->peer_secret, head.secret, MCA_BTL_RWV_SECRET_BYTES);
    endpoint->num_peer_rails = (int) ((size - sizeof (head)) / addr_size);
    if (endpoint->num_peer_rails > MCA_BTL_RWV_MAX_RAILS) {
        endpoint->num_peer_rails = MCA_BTL_RWV_MAX_RAILS;
    }
    memcpy (endpoint->peer_rails, data + sizeof (head), endpoint->num_peer_rails * addr_size);
    free (data);
    return mca_btl_rwv_peer_takes_our_eager (endpoint, head.max_eager) ? OPAL_SUCCESS : OPAL_ERR_BAD_PARAM;
}

mca_btl_rwv_endpoint_t *mca_btl_rwv_endpoint_lookup (opal_proc_t *proc, bool create)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    uint64_t key = mca_btl_rwv_name_key (&proc->proc_name);
    mca_btl_rwv_endpoint_t *endpoint = NULL;

    if (OPAL_SUCCESS == opal_hash_table_get_value_uint64 (&module->endpoints, key, (void **) &endpoint) ||
        !create) {
        return endpoint;
    }

    endpoint = OBJ_NEW(mca_btl_rwv_endpoint_t);
    endpoint->proc = proc;
    if (proc == opal_proc_local_get ()) {
        endpoint->self = true;
    } else if (OPAL_SUCCESS != mca_btl_rwv_endpoint_modex (endpoint) ||
               0 == mca_btl_rwv_choose_rails (endpoint)) {
        opal_output_verbose (MCA_BASE_VERBOSE_INFO, opal_btl_base_framework.framework_output,
                             "btl/rwv: no rail reaches %s on %s", OPAL_NAME_PRINT(proc->proc_name),
                             mca_btl_rwv_peer_host (endpoint));
        OBJ_RELEASE(endpoint);
        return NULL;
    } else if (!mca_btl_rwv_cma_refused ()) {
        endpoint->cma_pid = mca_btl_rwv_shm_peer_card (proc, &endpoint->peer_card);
    }
    opal_hash_table_set_value_uint64 (&module->endpoints, key, endpoint);
    opal_list_append (&module->endpoint_list, &endpoint->super);
    return endpoint;
}

/* ------------------------------------------------------------ connections */

/* Where a new rail's estimate starts: level with the best one so far. */
static double mca_btl_rwv_endpoint_best_bandwidth (const mca_btl_rwv_endpoint_t *endpoint)
{
    double best = 1.0;

    for (int i = 0 ; i < MCA_BTL_RWV_MAX_RAILS ; ++i) {
        if (NULL != endpoint->conns[i] && endpoint->conns[i]->meter.bandwidth > best) {
            best = endpoint->conns[i]->meter.bandwidth;
        }
    }
    return best;
}

/* Once per process: a ring that cannot be had is rwv's to explain, with
 * the two parameters that sized it. */
static void mca_btl_rwv_ring_unavailable (const mca_btl_rwv_conn_t *conn, const char *what)
{
    const mca_btl_rwv_slots_t *own = &conn->local.own;
    size_t bytes = conn->local.ring_bytes;
    char size[32];
    static bool said;

    if (said) {
        return;
    }
    said = true;
    if (bytes < (1 << 20)) {
        snprintf (size, sizeof (size), "%zu bytes", bytes);
    } else {
        snprintf (size, sizeof (size), "%.1f MiB", (double) bytes / (1 << 20));
    }
    rwv_show_help ("help-mpi-btl-rwv.txt", "no ring", true, OPAL_PROC_MY_HOSTNAME,
                    mca_btl_rwv_peer_host (conn->endpoint), conn->rail->name, what, size, own->slots, own->slot_size,
                    conn->local.tiered ? "btl_rwv_cold_slots" : "btl_rwv_eager_slots",
                    conn->local.tiered ? "btl_rwv_cold_slot_size" : "btl_rwv_eager_slot_size");
}

/* The connection's own ring: large and shared if the peer is on this node
 * and may store into it, else small unless the hot set is off. */
static bool mca_btl_rwv_conn_ring_alloc (mca_btl_rwv_conn_t *conn)
{
    mca_btl_rwv_local_ring_t *local = &conn->local;
    mca_btl_rwv_slots_t *own = &local->own;

    local->ring = mca_btl_rwv_shm_ring_take (conn->endpoint);
    local->tiered = mca_btl_rwv_hotset_own_ring (NULL != local->ring, &own->slots, &own->slot_size);
    local->ring_bytes = mca_btl_rwv_ring_size (own->slots, own->slot_size);
    /* 64-byte aligned: a page each would double a cold ring's memory */
    if (NULL == local->ring && 0 != posix_memalign ((void **) &local->ring, 64, local->ring_bytes)) {
        local->ring = NULL;
        return false;
    }
    memset (local->ring, 0, local->ring_bytes);
    own->base = local->ring;
    own->notify_imm = local->tiered || mca_btl_rwv_large_ring_notifies (conn->rail);
    own->hot = NULL;
    local->cur = *own;
    local->tail = (volatile uint64_t *) (local->ring + mca_btl_rwv_ring_tail (own->slots, own->slot_size));
    return true;
}

mca_btl_rwv_conn_t *mca_btl_rwv_conn_create (mca_btl_rwv_endpoint_t *endpoint, mca_btl_rwv_rail_t *rail)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    mca_btl_rwv_conn_t *conn = calloc (1, sizeof (*conn));
    void *desc;
    int id;

    if (NULL == conn) {
        return NULL;
    }
    conn->endpoint = endpoint;
    conn->rail = rail;
    conn->poll_index = -1;
    if (!mca_btl_rwv_conn_ring_alloc (conn)) {
        mca_btl_rwv_ring_unavailable (conn, "allocating");
        free (conn);
        return NULL;
    }
    conn->meter.bandwidth = rail->bandwidth > 0 ? rail->bandwidth : mca_btl_rwv_endpoint_best_bandwidth (endpoint);
    if (OPAL_SUCCESS != rail->ops->mr_reg (rail, conn->local.ring, conn->local.ring_bytes, MCA_BTL_RWV_ACCESS_OWN_RING, &conn->local.ring_mr, &desc,
                                           &conn->local.ring_rkey)) {
        mca_btl_rwv_ring_unavailable (conn, "registering");
        mca_btl_rwv_ring_free (conn->local.ring);
        free (conn);
        return NULL;
    }
    id = opal_pointer_array_add (&module->conns, conn);
    if (id < 0 || OPAL_SUCCESS != mca_btl_rwv_poll_add (conn)) {
        /* the table holds 65536 connections; past that, or out of memory */
        mca_btl_rwv_ring_unavailable (conn, "keeping track of");
        if (id >= 0) {
            opal_pointer_array_set_item (&module->conns, id, NULL);
        }
        rail->ops->mr_dereg (rail, conn->local.ring_mr);
        mca_btl_rwv_ring_free (conn->local.ring);
        free (conn);
        return NULL;
    }
    conn->id = (uint32_t) id;
    OBJ_CONSTRUCT(&conn->pending, opal_list_t);
    OBJ_CONSTRUCT(&conn->replay.unacked, opal_list_t);
    OBJ_CONSTRUCT(&conn->kept_puts, opal_list_t);
    conn->unflushed = false;
    mca_btl_rwv_conn_set_state (conn, MCA_BTL_RWV_CONN_IDLE);
    endpoint->conns[rail->index] = conn;
    rail->num_conns++;
    return conn;
}

/* The connection on local rail `r', created and started if need be;
 * NULL if it failed or cannot be made, or is being re-established and
 * not TAKE_REJOINING: traffic keeps to the other rails meanwhile. */
static mca_btl_rwv_conn_t *mca_btl_rwv_endpoint_rail_conn (mca_btl_rwv_endpoint_t *endpoint, int r,
                                                          bool take_rejoining)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    mca_btl_rwv_conn_t *conn = endpoint->conns[r];

    if (module->rails[r]->down) {
        return NULL;
    }
    if (NULL == conn && NULL == (conn = mca_btl_rwv_conn_create (endpoint, module->rails[r]))) {
        return NULL;
    }
    if (MCA_BTL_RWV_CONN_IDLE == conn->state) {
        mca_btl_rwv_conn_start (conn);
    } else if (MCA_BTL_RWV_CONN_FAILED == conn->state && mca_btl_rwv_conn_may_rejoin (conn)) {
        /* a connected rail, the common case, asks failover nothing */
        mca_btl_rwv_conn_rejoin_prepare (conn);
        mca_btl_rwv_conn_start (conn);
    }
    if (MCA_BTL_RWV_CONN_FAILED == conn->state || (conn->replay.rejoining && !take_rejoining)) {
        return NULL;
    }
    return conn;
}

int mca_btl_rwv_endpoint_live_rails (const mca_btl_rwv_endpoint_t *endpoint, const mca_btl_rwv_conn_t *except)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    int live = 0;

    for (int i = 0 ; i < endpoint->num_rails ; ++i) {
        int r = endpoint->rails[i];
        const mca_btl_rwv_conn_t *conn = endpoint->conns[r];

        live += !module->rails[r]->down && conn != except && (NULL == conn || MCA_BTL_RWV_CONN_FAILED != conn->state);
    }
    return live;
}

int mca_btl_rwv_endpoint_ready_conns (mca_btl_rwv_endpoint_t *endpoint, mca_btl_rwv_conn_t **conns)
{
    int n = 0;

    for (int i = 0 ; i < endpoint->num_rails && !endpoint->failed ; ++i) {
        mca_btl_rwv_conn_t *conn = mca_btl_rwv_endpoint_rail_conn (endpoint, endpoint->rails[i], false);

        if (NULL != conn && mca_btl_rwv_conn_ready (conn)) {
            conns[n++] = conn;
        }
    }
    return n;
}

/* Behind our small puts while they may not have landed; else by policy.
 * First: the first live rail.  Round robin: the next ready rail, else
 * (nothing ready yet) the first live one, where the message waits. */
mca_btl_rwv_conn_t *mca_btl_rwv_endpoint_conn (mca_btl_rwv_endpoint_t *endpoint)
{
    mca_btl_rwv_conn_t *ready[MCA_BTL_RWV_MAX_RAILS];
    int n;

    if (endpoint->failed) {
        return NULL;
    }
    if (endpoint->unconfirmed_puts > 0 && NULL != endpoint->put_conn &&
        MCA_BTL_RWV_CONN_FAILED != endpoint->put_conn->state) {
        return endpoint->put_conn; /* behind our small puts (btl_rwv_rdma.c) */
    }
    if (MCA_BTL_RWV_EAGER_RAIL_ROUND_ROBIN == mca_btl_rwv_component.eager_rail && endpoint->num_rails > 1 &&
        (n = mca_btl_rwv_endpoint_ready_conns (endpoint, ready)) > 0) {
        return ready[endpoint->next_rail++ % (unsigned) n];
    }
    /* a rail being re-established only when no other is left: the
     * message waits there for it */
    for (int pass = 0 ; pass < 2 ; ++pass) {
        for (int i = 0 ; i < endpoint->num_rails && !endpoint->failed ; ++i) {
            mca_btl_rwv_conn_t *conn = mca_btl_rwv_endpoint_rail_conn (endpoint, endpoint->rails[i], pass > 0);

            if (NULL != conn) {
                return conn;
            }
        }
    }
    return NULL;
}

void mca_btl_rwv_conn_drop_shared (mca_btl_rwv_conn_t *conn)
{
    mca_btl_rwv_hotset_release (conn);
    mca_btl_rwv_fetch_done (conn);
}

void mca_btl_rwv_conn_failed (mca_btl_rwv_conn_t *conn, const char *why)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    mca_btl_rwv_endpoint_t *endpoint = conn->endpoint;
    char *info = NULL;

    if (MCA_BTL_RWV_CONN_FAILED == conn->state ||
        mca_btl_rwv_cm_defer (conn, MCA_BTL_RWV_CM_FAILED, true, NULL, 0, why)) {
        return;
    }
    mca_btl_rwv_conn_set_state (conn, MCA_BTL_RWV_CONN_FAILED);
    conn->rail->ops->disconnect (conn);
    mca_btl_rwv_conn_drop_shared (conn);
    if (mca_btl_rwv_endpoint_has_live_rail (endpoint, NULL)) {
        mca_btl_rwv_conn_rejoin_later (conn);
        mca_btl_rwv_rail_failed (conn, why);
        return;
    }

    if (!endpoint->failed) {
        char peer[INET_ADDRSTRLEN];

        endpoint->failed = true;
        inet_ntop (AF_INET, &conn->peer_addr.ipv4, peer, sizeof (peer));
        rwv_show_help ("help-mpi-btl-rwv.txt", "connection failed", true,
                        OPAL_PROC_MY_HOSTNAME, mca_btl_rwv_peer_host (endpoint),
                        OPAL_NAME_PRINT(endpoint->proc->proc_name), conn->rail->name, peer,
                        ntohs (conn->peer_addr.port), why, mca_btl_rwv_component.connect_timeout);
        if (NULL != module->error_cb) {
            (void) asprintf (&info, "btl/rwv: connection to %s failed: %s", mca_btl_rwv_peer_host (endpoint), why);
            module->error_cb (&module->super, MCA_BTL_ERROR_FLAGS_FATAL, endpoint->proc, info);
            free (info);
        }
    }
    mca_btl_rwv_conn_fail_pending (conn, OPAL_ERR_UNREACH);
    mca_btl_rwv_atomics_fail (endpoint);
}

/* Our attempt was refused.  From a higher rank that is the crossing rule
 * at work: its own request follows. */
void mca_btl_rwv_conn_refused (mca_btl_rwv_conn_t *conn, const char *why)
{
    if (mca_btl_rwv_cm_defer (conn, MCA_BTL_RWV_CM_REFUSED, false, NULL, 0, why)) {
        return;
    }
    if (MCA_BTL_RWV_CONN_CONNECTING == conn->state &&
        opal_compare_proc (opal_proc_local_get ()->proc_name, conn->endpoint->proc->proc_name) < 0) {
        conn->rail->ops->disconnect (conn);
        mca_btl_rwv_conn_set_state (conn, MCA_BTL_RWV_CONN_AWAITING);
        RWV_TRACE("btl/rwv: %s refused our attempt; awaiting its own", OPAL_NAME_PRINT(conn->endpoint->proc->proc_name));
        return;
    }
    mca_btl_rwv_conn_failed (conn, why);
}

/* The peer closed the connection.  After its goodbye (it is finalizing)
 * nothing is lost unless messages were still queued, and a later message
 * reconnects.  Without one, its process died: a receive posted for it
 * would wait forever, so say so. */
void mca_btl_rwv_conn_closed (mca_btl_rwv_conn_t *conn)
{
    if (mca_btl_rwv_cm_defer (conn, MCA_BTL_RWV_CM_CLOSED, true, NULL, 0, NULL)) {
        return;
    }
    if (!mca_btl_rwv_conn_peer_said_goodbye (conn)) {
        mca_btl_rwv_conn_failed (conn, mca_btl_rwv_endpoint_has_live_rail (conn->endpoint, conn) ?
                                 "the peer closed the connection on this rail" :
                                 "the peer closed the connection without saying goodbye: "
                                 "its process has probably died");
        return;
    }
    if (!opal_list_is_empty (&conn->pending)) {
        mca_btl_rwv_conn_failed (conn, "the peer closed the connection while messages were queued for it");
        return;
    }
    conn->rail->ops->disconnect (conn);
    mca_btl_rwv_conn_drop_shared (conn);
    mca_btl_rwv_conn_set_state (conn, MCA_BTL_RWV_CONN_IDLE);
}

static bool mca_btl_rwv_state_waits (mca_btl_rwv_conn_state_t state)
{
    return MCA_BTL_RWV_CONN_CONNECTING == state || MCA_BTL_RWV_CONN_ACCEPTING == state ||
        MCA_BTL_RWV_CONN_AWAITING == state;
}

/* Every change of state comes here, so the connections waiting for an
 * answer are counted: the timeout check walks the table only while some
 * wait, and only until it has seen them all. */
void mca_btl_rwv_conn_set_state (mca_btl_rwv_conn_t *conn, mca_btl_rwv_conn_state_t state)
{
    mca_btl_rwv_component.module->conns_waiting += (int) mca_btl_rwv_state_waits (state) -
        (int) mca_btl_rwv_state_waits (conn->state);
    conn->state = state;
}

void mca_btl_rwv_conn_check_timeouts (double now)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    int size = opal_pointer_array_get_size (&module->conns);
    int waiting = module->conns_waiting;  /* a connection that fails below leaves the count */

    for (int i = 0 ; i < size && waiting > 0 ; ++i) {
        mca_btl_rwv_conn_t *conn = opal_pointer_array_get_item (&module->conns, i);

        if (NULL == conn || !mca_btl_rwv_state_waits (conn->state)) {
            continue;
        }
        --waiting;
        if (now > conn->deadline) {
            mca_btl_rwv_conn_failed (conn, "no answer before btl_rwv_connect_timeout");
        }
    }
}

/* Only a peer reached over several rails has its rails measured: one rail
 * carries everything whatever its rate. */
static const char *mca_btl_rwv_conn_bandwidth_source (const mca_btl_rwv_conn_t *conn)
{
    if (conn->rail->bandwidth > 0) {
        return "configured";
    }
    return conn->endpoint->num_rails > 1 ? "measured" : "unmeasured (its only rail to this peer)";
}

static void mca_btl_rwv_conn_destroy (mca_btl_rwv_conn_t *conn)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    char peer[INET_ADDRSTRLEN];

    if (MCA_BTL_RWV_CONN_CONNECTED == conn->state) {
        mca_btl_rwv_conn_say_goodbye (conn);
    }
    inet_ntop (AF_INET, &conn->peer_addr.ipv4, peer, sizeof (peer));
    opal_output_verbose (MCA_BASE_VERBOSE_INFO, opal_btl_base_framework.framework_output,
                         "btl/rwv: rail %s to %s: %s bandwidth %.1f MB/s, %" PRIu64 " eager messages sent, "
                         "%" PRIu64 " bytes put or got since connected, re-established %u times", conn->rail->name,
                         peer, mca_btl_rwv_conn_bandwidth_source (conn), conn->meter.bandwidth, conn->peer.send_seq,
                         conn->rdma_bytes, conn->replay.rejoins);
    conn->rail->ops->disconnect (conn);
    mca_btl_rwv_conn_set_state (conn, MCA_BTL_RWV_CONN_IDLE);
    mca_btl_rwv_conn_fail_pending (conn, OPAL_ERR_UNREACH);
    OBJ_DESTRUCT(&conn->pending);
    conn->peer.consumed = conn->peer.send_seq; /* nothing is replayed any more */
    mca_btl_rwv_conn_release_acked (conn);
    OBJ_DESTRUCT(&conn->replay.unacked);
    mca_btl_rwv_conn_confirm_puts (conn, UINT64_MAX);
    OBJ_DESTRUCT(&conn->kept_puts);
    mca_btl_rwv_conn_drop_shared (conn);
    conn->rail->ops->mr_dereg (conn->rail, conn->local.ring_mr);
    opal_pointer_array_set_item (&module->conns, conn->id, NULL);
    if (conn->poll_index >= 0) {
        mca_btl_rwv_poll_remove (conn);
    }
    conn->rail->num_conns--;
    free (conn->replay.seen);
    free (conn->replay.before.seen);
    mca_btl_rwv_ring_free (conn->local.ring);
    free (conn);
}

void mca_btl_rwv_endpoint_release (mca_btl_rwv_endpoint_t *endpoint)
{
    for (int i = 0 ; i < MCA_BTL_RWV_MAX_RAILS ; ++i) {
        if (NULL != endpoint->conns[i]) {
            mca_btl_rwv_conn_destroy (endpoint->conns[i]);
        }
    }
    mca_btl_rwv_shm_release (endpoint);
    OBJ_RELEASE(endpoint);
}
