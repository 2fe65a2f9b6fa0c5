/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Links (btl_rwv_links.h): each rail's link checked every 100 ms from
 * progress while it has connections; a link that goes down fails the
 * connections on it (what they carried moves through the protocol's
 * rail_lost hook), one that stays down past btl_rwv_rail_down_timeout is
 * given up; a rail lost to a peer is reported once, a little later, so
 * one report says what the failure cost.
 * Layer: connections (docs/layout.md).
 */
#include "opal_config.h"

#include "opal/mca/btl/base/base.h"
#include "opal/util/output.h"

#include "btl_rwv.h"
#include "btl_rwv_endpoint.h"
#include "btl_rwv_peer.h"
#include "btl_rwv_links.h"

#define MCA_BTL_RWV_LINK_CHECK_INTERVAL 0.1 /* seconds */

/* Fail the connections on RAIL, all of them or only those whose peer
 * has another live rail to carry on. */
static void mca_btl_rwv_rail_fail_conns (mca_btl_rwv_rail_t *rail, bool all,
                                         const char *why)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    int size = opal_pointer_array_get_size (&module->conns);

    for (int i = 0 ; i < size ; ++i) {
        mca_btl_rwv_conn_t *conn = opal_pointer_array_get_item (&module->conns, i);

        if (NULL != conn && conn->rail == rail && MCA_BTL_RWV_CONN_FAILED != conn->state &&
            (all || mca_btl_rwv_endpoint_has_live_rail (conn->endpoint, conn))) {
            mca_btl_rwv_conn_failed (conn, why);
        }
    }
}

/* The link went down.  Peers with another rail move to it at once (the
 * failover replays what was in flight).  A peer with no other rail keeps
 * its connection: the kernel's TCP (or the HCA's retries) holds what was
 * sent, and a link back within btl_rwv_rail_down_timeout loses nothing,
 * as over btl/tcp.  Past that the rail is given up. */
static void mca_btl_rwv_rail_link_lost (mca_btl_rwv_rail_t *rail, double now)
{
    char why[96];

    snprintf (why, sizeof (why), "the link of interface %s went down", rail->ifname);
    rail->link_lost_at = now;
    opal_output_verbose (MCA_BASE_VERBOSE_WARN, opal_btl_base_framework.framework_output,
                         "btl/rwv: %s: the link went down; peers with no other rail wait up to %d s "
                         "(btl_rwv_rail_down_timeout) for it to come back", rail->name,
                         mca_btl_rwv_component.rail_down_timeout);
    mca_btl_rwv_rail_fail_conns (rail, mca_btl_rwv_component.rail_down_timeout <= 0, why);
    rail->down = mca_btl_rwv_component.rail_down_timeout <= 0;
}

static void mca_btl_rwv_rail_given_up (mca_btl_rwv_rail_t *rail)
{
    char why[128];

    snprintf (why, sizeof (why), "the link of interface %s went down and did not come back within %d s",
              rail->ifname, mca_btl_rwv_component.rail_down_timeout);
    rail->down = true;
    mca_btl_rwv_rail_fail_conns (rail, true, why);
}

void mca_btl_rwv_report_lost_rails (double now)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    int size = opal_pointer_array_get_size (&module->conns);

    for (int i = 0 ; i < size && module->reports_pending > 0 ; ++i) {
        mca_btl_rwv_conn_t *conn = opal_pointer_array_get_item (&module->conns, i);
        mca_btl_rwv_endpoint_t *endpoint;

        if (NULL == conn || 0 == conn->replay.warn_at || now < conn->replay.warn_at) {
            continue;
        }
        conn->replay.warn_at = 0;
        module->reports_pending--;
        endpoint = conn->endpoint;
        if (!endpoint->failed) {
            rwv_show_help ("help-mpi-btl-rwv.txt", "rail failed", true, OPAL_PROC_MY_HOSTNAME,
                           conn->replay.failed_peer, conn->replay.failed_name, conn->rail->name, conn->replay.failed_why, mca_btl_rwv_endpoint_live_rails (endpoint, NULL));
        }
    }
}

/* A rail whose link comes back within btl_rwv_rail_down_timeout carries
 * on with the connections it kept and serves new peers; peers that moved
 * to other rails come back to it (mca_btl_rwv_conn_may_rejoin). */
void mca_btl_rwv_check_links (double now)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;

    /* progress calls this only while a rail has a connection: a job that
     * never used rwv pays no ioctl for it */
    if (now < module->next_link_check) {
        return;
    }
    module->next_link_check = now + MCA_BTL_RWV_LINK_CHECK_INTERVAL;
    for (int r = 0 ; r < module->num_rails ; ++r) {
        mca_btl_rwv_rail_t *rail = module->rails[r];
        bool up = rail->ops->link_up (rail);

        if (!up && 0 == rail->link_lost_at) {
            mca_btl_rwv_rail_link_lost (rail, now);
        } else if (!up && !rail->down && now - rail->link_lost_at >= mca_btl_rwv_component.rail_down_timeout) {
            mca_btl_rwv_rail_given_up (rail);
        } else if (up && 0 != rail->link_lost_at) {
            opal_output_verbose (MCA_BASE_VERBOSE_WARN, opal_btl_base_framework.framework_output,
                                 "btl/rwv: %s: the link is back after %.1f s", rail->name, now - rail->link_lost_at);
            rail->link_lost_at = 0;
            rail->down = false;
        }
    }
}

void mca_btl_rwv_check_connections (double now)
{
    mca_btl_rwv_conn_check_timeouts (now);
    mca_btl_rwv_check_links (now);
    mca_btl_rwv_report_lost_rails (now);
}
