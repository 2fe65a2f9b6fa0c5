/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * The native verbs rail's connections: one RC queue pair per connection,
 * set up through librdmacm on the rail's non-blocking event channel.  The
 * active side resolves the address and the route, then connects with our
 * connection data as private data; the passive side accepts with its own
 * (btl_rwv_handshake.c decides who is which).  A queue pair keeps
 * rail->recv_depth zero-length receives posted for notifications
 * (btl_rwv_rail_verbs.c); one of a failed or refused connection waits on
 * the rail's dead list until close, when no completion can name it.
 * Layer: transports (docs/layout.md).
 */
#include "opal_config.h"

#include <errno.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "opal/mca/btl/base/base.h"
#include "opal/util/output.h"

#include "btl_rwv.h"
#include "btl_rwv_endpoint.h"
#include "btl_rwv_rail.h"
#include "btl_rwv_rail_verbs.h"

static void verbs_qp_construct (mca_btl_rwv_verbs_qp_t *vqp)
{
    vqp->id = NULL;
    vqp->conn = NULL;
    vqp->cm_len = 0;
    vqp->unsignaled = 0;
    vqp->sends_owed = 0;
    OBJ_CONSTRUCT(&vqp->owe_item, opal_list_item_t);
    vqp->abandon = false;
    vqp->reads_max = 1;
    vqp->reads_out = 0;
    vqp->slots_free = 0;
    for (int k = 0 ; k < MCA_BTL_RWV_VERBS_TRACKED ; ++k) {
        vqp->slots[k] = (mca_btl_rwv_verbs_slot_t) {.vqp = vqp, .op = NULL, .read = false};
    }
}

static void verbs_qp_destruct (mca_btl_rwv_verbs_qp_t *vqp)
{
    OBJ_DESTRUCT(&vqp->owe_item);
}

OBJ_CLASS_INSTANCE(mca_btl_rwv_verbs_qp_t, opal_list_item_t, verbs_qp_construct, verbs_qp_destruct);

/* Zero-length receives: one SGE of no bytes (libsiw refuses a receive
 * without one), on the rail's registered sink. */
int mca_btl_rwv_verbs_post_recvs (mca_btl_rwv_verbs_qp_t *vqp, int count)
{
    mca_btl_rwv_verbs_rail_t *rail = mca_btl_rwv_verbs_rail (vqp->conn->rail);
    struct ibv_sge sge = {.addr = (uintptr_t) &rail->recv_sink, .length = 0, .lkey = rail->recv_mr->lkey};
    struct ibv_recv_wr wr = {.wr_id = (uintptr_t) vqp | MCA_BTL_RWV_VERBS_RECV_TAG, .sg_list = &sge, .num_sge = 1};
    struct ibv_recv_wr *bad;
    int rc;

    for (int i = 0 ; i < count ; ++i) {
        if (0 != (rc = ibv_post_recv (vqp->id->qp, &wr, &bad))) {
            errno = rc < 0 ? -rc : rc; /* providers return it either way */
            return OPAL_ERR_OUT_OF_RESOURCE;
        }
    }
    return OPAL_SUCCESS;
}

/* What a side offers for reads, at most what the other offered (0: it
 * did not say). */
static int verbs_reads_agreed (int ours, int theirs)
{
    return theirs > 0 && theirs < ours ? theirs : ours;
}


static int verbs_qp_create (mca_btl_rwv_verbs_rail_t *rail, mca_btl_rwv_verbs_qp_t *vqp)
{
    struct ibv_qp_init_attr attr = {
        .send_cq = rail->cq, .recv_cq = rail->cq, .qp_type = IBV_QPT_RC, .sq_sig_all = 0,
        .cap = {.max_send_wr = (uint32_t) rail->send_depth, .max_recv_wr = (uint32_t) rail->recv_depth,
                .max_send_sge = 1, .max_recv_sge = 1, .max_inline_data = rail->inline_bytes},
    };

    if (0 != rdma_create_qp (vqp->id, rail->pd, &attr)) {
        opal_output_verbose (MCA_BASE_VERBOSE_ERROR, opal_btl_base_framework.framework_output,
                             "btl/rwv: %s: rdma_create_qp failed: %s", rail->super.name, strerror (errno));
        return OPAL_ERR_OUT_OF_RESOURCE;
    }
    __atomic_store_n (&vqp->slots_free, ~(uint64_t) 0, __ATOMIC_RELEASE);
    if (OPAL_SUCCESS != mca_btl_rwv_verbs_post_recvs (vqp, rail->recv_depth)) {
        opal_output_verbose (MCA_BASE_VERBOSE_ERROR, opal_btl_base_framework.framework_output,
                             "btl/rwv: %s: ibv_post_recv failed: %s", rail->super.name, strerror (errno));
        return OPAL_ERR_OUT_OF_RESOURCE;
    }
    return OPAL_SUCCESS;
}

static mca_btl_rwv_verbs_qp_t *verbs_qp_new (struct rdma_cm_id *id, mca_btl_rwv_conn_t *conn)
{
    mca_btl_rwv_verbs_qp_t *vqp = OBJ_NEW(mca_btl_rwv_verbs_qp_t);

    if (NULL != vqp) {
        vqp->id = id;
        vqp->conn = conn;
        id->context = vqp;
    }
    return vqp;
}

/* Its queue pair may still hold work requests that complete with an error:
 * destroyed at close, when no completion can refer to it any more. */
static void verbs_qp_retire (mca_btl_rwv_verbs_rail_t *rail, mca_btl_rwv_verbs_qp_t *vqp)
{
    OPAL_THREAD_LOCK(&rail->owing_lock);
    if (vqp->sends_owed > 0) {
        opal_list_remove_item (&rail->owing, &vqp->owe_item);
        vqp->sends_owed = 0;
    }
    vqp->conn = NULL;
    vqp->abandon = true;
    (void) __atomic_add_fetch (&rail->abandoned, 1, __ATOMIC_RELEASE);
    opal_list_append (&rail->dead, &vqp->super);
    OPAL_THREAD_UNLOCK(&rail->owing_lock);
}

int mca_btl_rwv_verbs_connect (mca_btl_rwv_rail_t *r, mca_btl_rwv_conn_t *conn, const void *cm, size_t cm_len)
{
    mca_btl_rwv_verbs_rail_t *rail = mca_btl_rwv_verbs_rail (r);
    uint32_t scope = if_nametoindex (r->ifname);
    struct sockaddr_storage src, dst;
    mca_btl_rwv_verbs_qp_t *vqp;
    struct rdma_cm_id *id;

    if (cm_len > sizeof (vqp->cm) || 0 != rdma_create_id (rail->channel, &id, NULL, RDMA_PS_TCP)) {
        return OPAL_ERROR;
    }
    vqp = verbs_qp_new (id, conn);
    if (NULL == vqp) {
        rdma_destroy_id (id);
        return OPAL_ERR_OUT_OF_RESOURCE;
    }
    memcpy (vqp->cm, cm, cm_len);
    vqp->cm_len = cm_len;
    mca_btl_rwv_ip_to_sockaddr (&r->addr.ip[conn->family], 0, scope, &src);
    mca_btl_rwv_ip_to_sockaddr (&conn->peer_ip, conn->peer_port, scope, &dst);
    if (0 != rdma_resolve_addr (id, (struct sockaddr *) &src, (struct sockaddr *) &dst,
                                MCA_BTL_RWV_VERBS_RESOLVE_MS)) {
        rdma_destroy_id (id);
        OBJ_RELEASE(vqp);
        return OPAL_ERROR;
    }
    conn->backend = vqp;
    return OPAL_SUCCESS;
}

/* A request's id cannot be destroyed before its event is acknowledged
 * (rdma_destroy_id waits for that): a refused one joins the retired queue
 * pairs, destroyed at close. */
void mca_btl_rwv_verbs_reject (mca_btl_rwv_rail_t *r, void *request)
{
    struct rdma_cm_id *id = (struct rdma_cm_id *) request;
    mca_btl_rwv_verbs_qp_t *vqp = (mca_btl_rwv_verbs_qp_t *) id->context;

    (void) rdma_reject (id, NULL, 0);
    if (NULL == vqp && NULL == (vqp = verbs_qp_new (id, NULL))) {
        return; /* out of memory: the id leaks rather than hang */
    }
    verbs_qp_retire (mca_btl_rwv_verbs_rail (r), vqp);
}

int mca_btl_rwv_verbs_accept (mca_btl_rwv_rail_t *r, mca_btl_rwv_conn_t *conn, void *request, const void *cm,
                         size_t cm_len)
{
    struct rdma_cm_id *id = (struct rdma_cm_id *) request;
    mca_btl_rwv_verbs_qp_t *vqp = (mca_btl_rwv_verbs_qp_t *) id->context;
    struct rdma_conn_param param = {.private_data = cm, .private_data_len = (uint8_t) cm_len, .rnr_retry_count = 7};

    if (NULL != vqp) {
        vqp->conn = conn;
        param.responder_resources = param.initiator_depth = (uint8_t) vqp->reads_max;
    }
    if (NULL == vqp || OPAL_SUCCESS != verbs_qp_create (mca_btl_rwv_verbs_rail (r), vqp) || 0 != rdma_accept (id, &param)) {
        mca_btl_rwv_verbs_reject (r, request);
        return OPAL_ERROR;
    }
    conn->backend = vqp;
    return OPAL_SUCCESS;
}

/* A failed connection's queue pair goes to the error state, which flushes
 * what it still holds, with errors, through the CQ: failover hands those
 * operations on.  rdma_disconnect does so on InfiniBand, but on iWARP it
 * only starts a graceful close, which waits for the peer (over a dead
 * link, for ever): the error state comes first on every transport.  A
 * closing that is not a failure stays graceful, so that the goodbye
 * written before it arrives.  What soft-iWARP never flushes, progress
 * fails from the retired queue pair's slots (btl_rwv_rail_verbs.c). */
void mca_btl_rwv_verbs_disconnect (mca_btl_rwv_conn_t *conn)
{
    mca_btl_rwv_verbs_qp_t *vqp = (mca_btl_rwv_verbs_qp_t *) conn->backend;
    struct ibv_qp_attr error = {.qp_state = IBV_QPS_ERR};

    if (NULL == vqp) {
        return;
    }
    conn->backend = NULL;
    if (vqp->id->qp && MCA_BTL_RWV_CONN_FAILED == conn->state) {
        (void) ibv_modify_qp (vqp->id->qp, &error, IBV_QP_STATE);
    }
    if (vqp->id->qp) {
        (void) rdma_disconnect (vqp->id);
    }
    verbs_qp_retire (mca_btl_rwv_verbs_rail (conn->rail), vqp);
}

/* ------------------------------------------------------------ events */

static void verbs_conn_error (mca_btl_rwv_verbs_rail_t *rail, mca_btl_rwv_verbs_qp_t *vqp,
                              const struct rdma_cm_event *event)
{
    char why[160];

    snprintf (why, sizeof (why), "%s on %s port %u (status %d)", rdma_event_str (event->event), rail->device,
              rail->port, event->status);
    if (RDMA_CM_EVENT_REJECTED == event->event) {
        rail->super.events->refused (vqp->conn, why);
    } else {
        rail->super.events->failed (vqp->conn, why);
    }
}

static void verbs_route_resolved (mca_btl_rwv_verbs_rail_t *rail, mca_btl_rwv_verbs_qp_t *vqp)
{
    struct rdma_conn_param param = {.private_data = vqp->cm, .private_data_len = (uint8_t) vqp->cm_len,
                                    .responder_resources = (uint8_t) rail->reads,
                                    .initiator_depth = (uint8_t) rail->reads, .retry_count = 7,
                                    .rnr_retry_count = 7};
    struct rdma_cm_event fake = {.event = RDMA_CM_EVENT_CONNECT_ERROR};

    vqp->reads_max = rail->reads;
    if (OPAL_SUCCESS != verbs_qp_create (rail, vqp)) {
        fake.status = errno;
        verbs_conn_error (rail, vqp, &fake);
    } else if (0 != rdma_connect (vqp->id, &param)) {
        fake.status = errno;
        opal_output_verbose (MCA_BASE_VERBOSE_ERROR, opal_btl_base_framework.framework_output,
                             "btl/rwv: %s: rdma_connect failed: %s", rail->super.name, strerror (errno));
        verbs_conn_error (rail, vqp, &fake);
    }
}

/* One connection event: what the core is told of it. */
static void verbs_cm_event (mca_btl_rwv_verbs_rail_t *rail, struct rdma_cm_event *event)
{
    mca_btl_rwv_verbs_qp_t *vqp = (mca_btl_rwv_verbs_qp_t *) event->id->context;

    if (RDMA_CM_EVENT_CONNECT_REQUEST == event->event) {
        const struct sockaddr *sa = rdma_get_peer_addr (event->id);
        mca_btl_rwv_ip_t src;

        /* what the requester offered is only in this event: kept for the answer */
        if (NULL != (vqp = verbs_qp_new (event->id, NULL))) {
            vqp->reads_max = verbs_reads_agreed (verbs_reads_agreed (rail->reads, event->param.conn.initiator_depth),
                                                 event->param.conn.responder_resources);
        }
        rail->super.events->request (&rail->super, event->id, event->param.conn.private_data,
                                  event->param.conn.private_data_len,
                                  NULL != sa && mca_btl_rwv_ip_from_sockaddr (sa, &src) ? &src : NULL);
        return;
    }
    if (NULL == vqp || NULL == vqp->conn) {
        return; /* abandoned: its queue pair waits for close */
    }
    switch (event->event) {
    case RDMA_CM_EVENT_ADDR_RESOLVED:
        if (0 != rdma_resolve_route (event->id, MCA_BTL_RWV_VERBS_RESOLVE_MS)) {
            verbs_conn_error (rail, vqp, event);
        }
        break;
    case RDMA_CM_EVENT_ROUTE_RESOLVED:
        verbs_route_resolved (rail, vqp);
        break;
    case RDMA_CM_EVENT_ESTABLISHED:
        /* the answer's offer, where the transport reports it */
        vqp->reads_max = verbs_reads_agreed (verbs_reads_agreed (vqp->reads_max, event->param.conn.initiator_depth),
                                             event->param.conn.responder_resources);
        rail->super.events->established (vqp->conn, event->param.conn.private_data,
                                      event->param.conn.private_data_len);
        break;
    case RDMA_CM_EVENT_DISCONNECTED:
        rail->super.events->closed (vqp->conn);
        break;
    case RDMA_CM_EVENT_ADDR_ERROR:
    case RDMA_CM_EVENT_ROUTE_ERROR:
    case RDMA_CM_EVENT_CONNECT_ERROR:
    case RDMA_CM_EVENT_UNREACHABLE:
    case RDMA_CM_EVENT_REJECTED:
        verbs_conn_error (rail, vqp, event);
        break;
    default:
        break;
    }
}

/* rdma_cm's channel is a kernel file descriptor, readable exactly while
 * an event waits.
 * With DATA (the connection thread watches data_fd): may completions
 * wait that the completion channel will not announce?  The CQ tells once
 * per request (ibv_req_notify_cq), so after each time it told, and
 * before the first, it is asked again, and what completed before the
 * asking is reported as work: the thread polls the CQ once more before
 * it sleeps.  The channel is the connection thread's alone. */
static bool verbs_data_waits (mca_btl_rwv_verbs_rail_t *rail)
{
    struct ibv_cq *cq;
    void *context;
    bool waits = false;

    if (0 == ibv_get_cq_event (rail->comp, &cq, &context)) {
        ibv_ack_cq_events (cq, 1);
        rail->comp_armed = false;
        waits = true;
    }
    if (!rail->comp_armed && 0 == ibv_req_notify_cq (rail->cq, 0)) {
        rail->comp_armed = true;
        waits = true;
    }
    return waits;
}

mca_btl_rwv_cm_state_t mca_btl_rwv_verbs_cm_state (mca_btl_rwv_rail_t *r, bool data)
{
    mca_btl_rwv_verbs_rail_t *rail = mca_btl_rwv_verbs_rail (r);
    struct pollfd ready = {.fd = rail->channel->fd, .events = POLLIN};

    if (poll (&ready, 1, 0) > 0) {
        return MCA_BTL_RWV_CM_EVENT;
    }
    return data && NULL != rail->comp && verbs_data_waits (rail) ? MCA_BTL_RWV_CM_BUSY : MCA_BTL_RWV_CM_IDLE;
}

/* A connect request's private data lives in its event: the core copies
 * what it needs before the event is acknowledged. */
int mca_btl_rwv_verbs_poll_connections (mca_btl_rwv_rail_t *r)
{
    mca_btl_rwv_verbs_rail_t *rail = mca_btl_rwv_verbs_rail (r);
    struct rdma_cm_event *event;
    int count = 0;

    while (0 == rdma_get_cm_event (rail->channel, &event)) {
        verbs_cm_event (rail, event);
        rdma_ack_cm_event (event);
        ++count;
    }
    return count;
}
