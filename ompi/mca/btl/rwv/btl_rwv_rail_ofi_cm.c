/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * The libfabric backend's connections (btl_rwv_rail_ofi.h): endpoints
 * opened, connected, accepted, refused and closed, and the rail's
 * connection events reported upward through rail->events.
 * Layer: transports (docs/layout.md).
 */
#include "opal_config.h"

#include <net/if.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>

#include "opal/mca/btl/base/base.h"
#include "opal/util/output.h"

#include "btl_rwv.h"
#include "btl_rwv_endpoint.h"
#include "btl_rwv_rail.h"
#include "btl_rwv_rail_ofi.h"

/* ------------------------------------------------------------ endpoints */

static void ofi_ep_close (mca_btl_rwv_ofi_ep_t *oep)
{
    if (oep->abandoned) {
        opal_list_remove_item (&oep->rail->abandoned, &oep->item);
        oep->abandoned = false;
    }
    mca_btl_rwv_ofi_ep_retire (oep);
    if (NULL != oep->ep) {
        (void) fi_close (&oep->ep->fid);
        mca_btl_rwv_ofi_cq_release (oep->rail, oep->cq_slot);
    }
    mca_btl_rwv_ofi_ep_release (oep);
}

static int ofi_ep_open (mca_btl_rwv_ofi_rail_t *rail, mca_btl_rwv_conn_t *conn, struct fi_info *info)
{
    mca_btl_rwv_ofi_ep_t *oep = calloc (1, sizeof (*oep));
    const char *step = "fi_endpoint";
    int rc;

    if (NULL == oep) {
        return OPAL_ERR_OUT_OF_RESOURCE;
    }
    mca_btl_rwv_ofi_ep_init (oep, rail);
    oep->conn = conn;
    oep->connecting = true;
    oep->cq_slot = mca_btl_rwv_ofi_cq_for_new_ep (rail);
    rc = fi_endpoint (rail->domain, info, &oep->ep, oep);
    if (0 == rc) {
        rail->cqs[oep->cq_slot].eps++;
        step = "binding the event queue";
        rc = fi_ep_bind (oep->ep, &rail->eq->fid, 0);
    }
    if (0 == rc) {
        step = "binding the completion queue";
        /* completions only where asked (FI_COMPLETION): a ring write from a
         * frag kept until the peer consumed it needs none */
        rc = fi_ep_bind (oep->ep, &rail->cqs[oep->cq_slot].cq->fid, FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION);
    }
    if (0 == rc) {
        step = "fi_enable";
        rc = fi_enable (oep->ep);
    }
    if (0 == rc && rail->super.notify_by_send) {
        step = "posting receives for notifying sends";
        rc = mca_btl_rwv_ofi_post_recvs (oep);
    }
    if (0 != rc) {
        opal_output_verbose (MCA_BASE_VERBOSE_ERROR, opal_btl_base_framework.framework_output,
                             "btl/rwv: %s: endpoint setup failed at %s: %s", rail->super.name, step,
                             fi_strerror (-rc));
        ofi_ep_close (oep);
        return OPAL_ERROR;
    }
    conn->backend = oep;
    return OPAL_SUCCESS;
}

/* A listener's info made an active endpoint's: from this rail's address,
 * any port, to PEER (the verbs provider resolves the route when the
 * endpoint is made, so it needs the peer then; tcp only at fi_connect). */
static int ofi_info_aim (struct fi_info *info, const struct sockaddr_storage *peer)
{
    size_t len = AF_INET6 == peer->ss_family ? sizeof (struct sockaddr_in6) : sizeof (struct sockaddr_in);

    if (AF_INET6 == ((struct sockaddr *) info->src_addr)->sa_family) {
        ((struct sockaddr_in6 *) info->src_addr)->sin6_port = 0;
    } else {
        ((struct sockaddr_in *) info->src_addr)->sin_port = 0;
    }
    free (info->dest_addr);
    if (NULL == (info->dest_addr = malloc (len))) {
        info->dest_addrlen = 0;
        return OPAL_ERR_OUT_OF_RESOURCE;
    }
    memcpy (info->dest_addr, peer, len);
    info->dest_addrlen = len;
    return OPAL_SUCCESS;
}

int mca_btl_rwv_ofi_connect (mca_btl_rwv_rail_t *r, mca_btl_rwv_conn_t *conn, const void *cm, size_t cm_len)
{
    mca_btl_rwv_ofi_rail_t *rail = mca_btl_rwv_ofi_rail_of (r);
    struct sockaddr_storage peer;
    struct fi_info *info = fi_dupinfo (rail->info[conn->family]);
    int rc;

    if (NULL == info) {
        return OPAL_ERR_OUT_OF_RESOURCE;
    }
    mca_btl_rwv_ip_to_sockaddr (&conn->peer_ip, conn->peer_port, if_nametoindex (r->ifname), &peer);
    rc = ofi_info_aim (info, &peer);
    if (OPAL_SUCCESS == rc) {
        rc = ofi_ep_open (rail, conn, info);
    }
    fi_freeinfo (info);
    if (OPAL_SUCCESS != rc) {
        return rc;
    }
    rc = fi_connect (mca_btl_rwv_ofi_ep_of (conn), &peer, cm, cm_len);
    if (0 != rc) {
        opal_output_verbose (MCA_BASE_VERBOSE_ERROR, opal_btl_base_framework.framework_output,
                             "btl/rwv: %s: fi_connect failed: %s", r->name, fi_strerror (-rc));
        ofi_ep_close (conn->backend);
        conn->backend = NULL;
        return OPAL_ERROR;
    }
    return OPAL_SUCCESS;
}

int mca_btl_rwv_ofi_accept (mca_btl_rwv_rail_t *r, mca_btl_rwv_conn_t *conn, void *request, const void *cm,
                       size_t cm_len)
{
    struct fi_info *info = (struct fi_info *) request;
    int rc = ofi_ep_open (mca_btl_rwv_ofi_rail_of (r), conn, info);

    fi_freeinfo (info);
    if (OPAL_SUCCESS != rc) {
        return rc;
    }
    rc = fi_accept (mca_btl_rwv_ofi_ep_of (conn), cm, cm_len);
    if (0 != rc) {
        ofi_ep_close (conn->backend);
        conn->backend = NULL;
        return OPAL_ERROR;
    }
    return OPAL_SUCCESS;
}

/* Where a connection request came from: the provider puts the peer's
 * address in the request's dest_addr.  NULL if it does not. */
static const mca_btl_rwv_ip_t *ofi_source_ip (const struct fi_info *info, mca_btl_rwv_ip_t *ip)
{
    const struct sockaddr *sa = (const struct sockaddr *) info->dest_addr;

    if (NULL == sa || info->dest_addrlen < sizeof (struct sockaddr_in) ||
        (AF_INET6 == sa->sa_family && info->dest_addrlen < sizeof (struct sockaddr_in6))) {
        return NULL;
    }
    return mca_btl_rwv_ip_from_sockaddr (sa, ip) ? ip : NULL;
}

void mca_btl_rwv_ofi_reject (mca_btl_rwv_rail_t *r, void *request)
{
    struct fi_info *info = (struct fi_info *) request;
    mca_btl_rwv_ofi_rail_t *rail = mca_btl_rwv_ofi_rail_of (r);
    mca_btl_rwv_ip_t src;
    int family = NULL != ofi_source_ip (info, &src) ? mca_btl_rwv_ip_family (&src) : MCA_BTL_RWV_IPV4;
    struct fid_pep *pep = rail->pep[family] ? rail->pep[family] : rail->pep[!family];

    (void) fi_reject (pep, info->handle, NULL, 0);
    fi_freeinfo (info);
}

void mca_btl_rwv_ofi_disconnect (mca_btl_rwv_conn_t *conn)
{
    mca_btl_rwv_ofi_ep_t *oep = (mca_btl_rwv_ofi_ep_t *) conn->backend;

    if (NULL == oep) {
        return;
    }
    mca_btl_rwv_ofi_cq_taint (oep);
    conn->backend = NULL;
    oep->conn = NULL;
    if (oep->connecting) {
        /* closed when its last event arrives, or with the rail */
        opal_list_append (&oep->rail->abandoned, &oep->item);
        oep->abandoned = true;
        return;
    }
    (void) fi_shutdown (oep->ep, 0);
    ofi_ep_close (oep);
}

void mca_btl_rwv_ofi_close_abandoned (mca_btl_rwv_ofi_rail_t *rail)
{
    while (!opal_list_is_empty (&rail->abandoned)) {
        ofi_ep_close (mca_btl_rwv_ofi_ep_of_item (opal_list_get_first (&rail->abandoned)));
    }
}

/* ------------------------------------------------------------ progress */

static void ofi_cm_event (mca_btl_rwv_ofi_rail_t *rail, uint32_t event, struct fi_eq_cm_entry *entry, size_t len)
{
    size_t cm_len = len > sizeof (*entry) ? len - sizeof (*entry) : 0;
    mca_btl_rwv_ofi_ep_t *oep;

    if (FI_CONNREQ == event) {
        mca_btl_rwv_ip_t src;

        rail->super.events->request (&rail->super, entry->info, entry->data, cm_len, ofi_source_ip (entry->info, &src));
        return;
    }
    oep = (mca_btl_rwv_ofi_ep_t *) entry->fid->context;
    if (FI_CONNECTED == event) {
        oep->connecting = false;
        if (NULL == oep->conn) {
            ofi_ep_close (oep);
        } else {
            rail->super.events->established (oep->conn, entry->data, cm_len);
        }
    } else if (FI_SHUTDOWN == event && NULL != oep->conn) {
        rail->super.events->closed (oep->conn);
    }
}

static void ofi_cm_error (mca_btl_rwv_ofi_rail_t *rail)
{
    struct fi_eq_err_entry err = {0};
    mca_btl_rwv_ofi_ep_t *oep;
    char why[128];

    if (fi_eq_readerr (rail->eq, &err, 0) < 0 || NULL == err.fid) {
        return;
    }
    for (int f = 0 ; f < MCA_BTL_RWV_FAMILIES ; ++f) {
        if (rail->pep[f] && &rail->pep[f]->fid == err.fid) {
            return;
        }
    }
    oep = (mca_btl_rwv_ofi_ep_t *) err.fid->context;
    oep->connecting = false;
    if (NULL == oep->conn) {
        ofi_ep_close (oep);     /* an abandoned attempt, refused as expected */
        return;
    }
    /* fi_strerror's buffer may be reused before we are done with it */
    snprintf (why, sizeof (why), "%s", fi_strerror (err.err));
    if (FI_ECONNREFUSED == err.err) {
        rail->super.events->refused (oep->conn, why);
    } else {
        rail->super.events->failed (oep->conn, why);
    }
}

/* a connection event with the largest private data rwv sends */
typedef union {
    struct fi_eq_cm_entry entry;
    unsigned char bytes[sizeof (struct fi_eq_cm_entry) + RWV_OFI_CM_MAX];
} ofi_cm_buf_t;

int mca_btl_rwv_ofi_poll_connections (mca_btl_rwv_rail_t *r)
{
    mca_btl_rwv_ofi_rail_t *rail = mca_btl_rwv_ofi_rail_of (r);
    ofi_cm_buf_t buf;
    uint32_t event;
    ssize_t len = fi_eq_read (rail->eq, &event, &buf, sizeof (buf), 0);

    if (!opal_list_is_empty (&rail->closed)) {
        mca_btl_rwv_ofi_sweep_closed (rail);
    }
    if (-FI_EAVAIL == len) {
        ofi_cm_error (rail);
        return 1;
    }
    if (len < 0) {
        return 0;
    }
    ofi_cm_event (rail, event, &buf.entry, (size_t) len);
    return 1;
}


/* The tcp provider makes its event queue's fd the wait fd of all its
 * sockets: data arriving for the application wakes it too, so a peek
 * tells an event from the provider's own traffic.  The completion queues
 * are tried only when DATA is asked for (a try progresses them); the
 * edges data_fd holds are taken first. */
mca_btl_rwv_cm_state_t mca_btl_rwv_ofi_cm_state (mca_btl_rwv_rail_t *r, bool data)
{
    mca_btl_rwv_ofi_rail_t *rail = mca_btl_rwv_ofi_rail_of (r);
    struct fid *fids[1 + RWV_OFI_MAX_CQS] = {&rail->eq->fid};
    ofi_cm_buf_t buf;
    uint32_t event;
    int count = 1;

    if (-FI_EAGAIN != fi_eq_read (rail->eq, &event, &buf, sizeof (buf), FI_PEEK)) {
        return MCA_BTL_RWV_CM_EVENT;
    }
    data = data && r->data_fd >= 0;
    for (int slot = 0 ; data && slot < RWV_OFI_MAX_CQS ; ++slot) {
        if (NULL != rail->cqs[slot].cq) {
            fids[count++] = &rail->cqs[slot].cq->fid;
        }
    }
    if (data) {
        mca_btl_rwv_ofi_data_harvest (r);
    }
    return FI_SUCCESS == fi_trywait (rail->fabric, fids, count) ? MCA_BTL_RWV_CM_IDLE : MCA_BTL_RWV_CM_BUSY;
}
