/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Peers (btl_rwv_peer.h): found by name, made from their modex (checked:
 * another version or another configuration of rwv is told, not trusted),
 * the rails that reach each one, and whether any is left: below the
 * connections themselves.
 * Layer: connections (docs/layout.md).
 */
#include "opal_config.h"

#include <stdlib.h>
#include <string.h>

#include "opal/mca/btl/base/base.h"
#include "rwv_opal_compat.h"
#include "opal/util/output.h"
#include "opal/util/proc.h"

#include "btl_rwv.h"
#include "btl_rwv_cma.h"
#include "btl_rwv_conn.h"
#include "btl_rwv_frag.h"
#include "btl_rwv_params.h"
#include "btl_rwv_peer.h"
#include "btl_rwv_shm.h"

static void mca_btl_rwv_endpoint_construct (mca_btl_rwv_endpoint_t *endpoint)
{
    endpoint->proc = NULL;
    endpoint->self = false;
    endpoint->same_node = false;
    endpoint->cma_pid = 0;
    endpoint->peer_rings = NULL;
    endpoint->modex_read = false;
    endpoint->num_peer_rails = 0;
    endpoint->num_rails = 0;
    endpoint->next_rail = 0;
    endpoint->next_stripe_id = 0;
    endpoint->put_conn = NULL;
    endpoint->unconfirmed_puts = 0;
    endpoint->failed = false;
    endpoint->vanished_on = NULL;
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

/* ------------------------------------------------------------ rail choice */

/* Do both have an address of FAMILY, in one network (under the shorter
 * of their two prefixes)? */
static bool mca_btl_rwv_same_network (const mca_btl_rwv_rail_addr_t *a, const mca_btl_rwv_rail_addr_t *b,
                                      int family)
{
    int bits = a->prefix_len[family] < b->prefix_len[family] ? a->prefix_len[family] : b->prefix_len[family];

    return 0 != a->port[family] && 0 != b->port[family] &&
           mca_btl_rwv_ip_same_net (&a->ip[family], &b->ip[family], bits);
}

int mca_btl_rwv_peer_rail_for (const mca_btl_rwv_endpoint_t *endpoint, const mca_btl_rwv_rail_t *rail,
                               int *family)
{
    int order[MCA_BTL_RWV_FAMILIES], families = mca_btl_rwv_family_order (order);

    for (int f = 0 ; f < families ; ++f) {
        for (int p = 0 ; p < endpoint->num_peer_rails ; ++p) {
            if (rail->addr.loopback == endpoint->peer_rails[p].loopback &&
                mca_btl_rwv_same_network (&rail->addr, &endpoint->peer_rails[p], order[f])) {
                if (NULL != family) {
                    *family = order[f];
                }
                return p;
            }
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

            if (rail->addr.loopback == (0 == pass) && mca_btl_rwv_peer_rail_for (endpoint, rail, NULL) >= 0) {
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

/* A peer on another node whose modex was read but whose rails none of
 * ours shares a network with: said once, with both sides' addresses.  A
 * peer on this node without a loopback rail is btl/self's and vader's. */
static void mca_btl_rwv_say_unreachable (const mca_btl_rwv_endpoint_t *endpoint)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    char mine[512] = "", theirs[512] = "";
    static bool said;

    if (said || endpoint->same_node || 0 == endpoint->num_peer_rails) {
        return;
    }
    said = true;
    for (int r = 0 ; r < module->num_rails ; ++r) {
        if (!module->rails[r]->addr.loopback) {
            mca_btl_rwv_rail_addr_nets (&module->rails[r]->addr, mine, sizeof (mine));
        }
    }
    for (int p = 0 ; p < endpoint->num_peer_rails ; ++p) {
        if (!endpoint->peer_rails[p].loopback) {
            mca_btl_rwv_rail_addr_nets (&endpoint->peer_rails[p], theirs, sizeof (theirs));
        }
    }
    rwv_show_help ("help-mpi-btl-rwv.txt", "no common network", true, OPAL_PROC_MY_HOSTNAME,
                   OPAL_NAME_PRINT(endpoint->proc->proc_name), mca_btl_rwv_peer_host (endpoint),
                   *mine ? mine : "none", *theirs ? theirs : "none", mca_btl_rwv_ip_family_text ());
}

/* Each published address is of the family of its place, with a prefix
 * that family has. */
static bool mca_btl_rwv_peer_rails_sane (const mca_btl_rwv_endpoint_t *endpoint)
{
    static const int max_bits[MCA_BTL_RWV_FAMILIES] = {32, 128};

    for (int p = 0 ; p < endpoint->num_peer_rails ; ++p) {
        const mca_btl_rwv_rail_addr_t *addr = &endpoint->peer_rails[p];

        for (int f = 0 ; f < MCA_BTL_RWV_FAMILIES ; ++f) {
            if (0 != addr->port[f] &&
                (f != mca_btl_rwv_ip_family (&addr->ip[f]) || addr->prefix_len[f] > max_bits[f])) {
                return false;
            }
        }
    }
    return true;
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
    if (addr_size != head.addr_size || !mca_btl_rwv_peer_rails_sane (endpoint)) {
        return OPAL_ERR_BAD_PARAM; /* another version of rwv */
    }
    if (!mca_btl_rwv_peer_takes_our_eager (endpoint, head.max_eager)) {
        return OPAL_ERR_BAD_PARAM;
    }
    endpoint->modex_read = true;
    return OPAL_SUCCESS;
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
        if (endpoint->modex_read) {
            mca_btl_rwv_say_unreachable (endpoint);
        }
        OBJ_RELEASE(endpoint);
        return NULL;
    } else if (!mca_btl_rwv_cma_refused ()) {
        endpoint->cma_pid = mca_btl_rwv_shm_peer_card (proc, &endpoint->peer_card);
    }
    opal_hash_table_set_value_uint64 (&module->endpoints, key, endpoint);
    opal_list_append (&module->endpoint_list, &endpoint->super);
    return endpoint;
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
