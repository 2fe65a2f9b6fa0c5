/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * The native verbs rail: libibverbs RC queue pairs set up through
 * librdmacm, one rail per interface of an active RDMA port, listening on
 * its IPv4 and its IPv6 address (RoCE v2 through the address's GID,
 * InfiniBand through IPoIB).
 *
 *   connections  rdma_cm ids on one non-blocking event channel per rail:
 *                the active side resolves the address and the route, then
 *                connects with our connection data as private data; the
 *                passive side accepts with its own (btl_rwv_handshake.c
 *                decides who is which)
 *   writes       IBV_WR_RDMA_WRITE(_WITH_IMM), signalled; a small write
 *                goes inline, so its buffer is free when the post returns.
 *                An RC completion means the target acknowledged the data:
 *                every write is delivered when it completes.  Without
 *                immediate data (iWARP) a write that must notify the
 *                receiver is followed by a zero-length send: both
 *                transports deliver a send only after the writes before it
 *                are placed, and its receive names the queue pair
 *   receives     only notifications use them (eager mode cq): each queue
 *                pair keeps rail->recv_depth zero-length receives
 *                posted, reposted as they complete.  Per-peer receive
 *                queues rather than an SRQ: they hold no buffers, so their
 *                cost is a few work requests per peer, and a peer's
 *                receives cannot be exhausted by another's traffic
 *   completions  one CQ per rail for sends and receives, polled in progress
 *
 * Which addresses become rails: btl_rwv_rail_verbs_discover.c.
 */
#include "opal_config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "opal/mca/btl/base/base.h"
#include "opal/util/argv.h"
#include "opal/util/output.h"
#include "opal/util/show_help.h"

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
}

static void verbs_qp_destruct (mca_btl_rwv_verbs_qp_t *vqp)
{
    OBJ_DESTRUCT(&vqp->owe_item);
}

OBJ_CLASS_INSTANCE(mca_btl_rwv_verbs_qp_t, opal_list_item_t, verbs_qp_construct, verbs_qp_destruct);

static mca_btl_rwv_verbs_rail_t *verbs_rail (mca_btl_rwv_rail_t *rail)
{
    return (mca_btl_rwv_verbs_rail_t *) rail;
}

static struct ibv_qp *verbs_qp (const mca_btl_rwv_conn_t *conn)
{
    return ((mca_btl_rwv_verbs_qp_t *) conn->backend)->id->qp;
}

/* ------------------------------------------------------------ connections */

/* A receive's work request id is its queue pair's address with the low bit
 * set: a flushed receive completes with an error, and then wc.opcode is
 * undefined, so only the id tells it from a send. */
#define MCA_BTL_RWV_VERBS_RECV_TAG 1

/* Zero-length receives: one SGE of no bytes (libsiw refuses a receive
 * without one), on the rail's registered sink. */
static int verbs_post_recvs (mca_btl_rwv_verbs_qp_t *vqp, int count)
{
    mca_btl_rwv_verbs_rail_t *rail = verbs_rail (vqp->conn->rail);
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
    if (OPAL_SUCCESS != verbs_post_recvs (vqp, rail->recv_depth)) {
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
    OPAL_THREAD_UNLOCK(&rail->owing_lock);
    vqp->conn = NULL;
    opal_list_append (&rail->dead, &vqp->super);
}

static int verbs_connect (mca_btl_rwv_rail_t *r, mca_btl_rwv_conn_t *conn, const void *cm, size_t cm_len)
{
    mca_btl_rwv_verbs_rail_t *rail = verbs_rail (r);
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
static void verbs_reject (mca_btl_rwv_rail_t *r, void *request)
{
    struct rdma_cm_id *id = (struct rdma_cm_id *) request;
    mca_btl_rwv_verbs_qp_t *vqp = (mca_btl_rwv_verbs_qp_t *) id->context;

    (void) rdma_reject (id, NULL, 0);
    if (NULL == vqp && NULL == (vqp = verbs_qp_new (id, NULL))) {
        return; /* out of memory: the id leaks rather than hang */
    }
    verbs_qp_retire (verbs_rail (r), vqp);
}

static int verbs_accept (mca_btl_rwv_rail_t *r, mca_btl_rwv_conn_t *conn, void *request, const void *cm,
                         size_t cm_len)
{
    struct rdma_cm_id *id = (struct rdma_cm_id *) request;
    struct rdma_conn_param param = {.private_data = cm, .private_data_len = (uint8_t) cm_len,
                                    .responder_resources = 1, .initiator_depth = 1, .rnr_retry_count = 7};
    mca_btl_rwv_verbs_qp_t *vqp = verbs_qp_new (id, conn);

    if (NULL == vqp || OPAL_SUCCESS != verbs_qp_create (verbs_rail (r), vqp) || 0 != rdma_accept (id, &param)) {
        verbs_reject (r, request);
        return OPAL_ERROR;
    }
    conn->backend = vqp;
    return OPAL_SUCCESS;
}

/* Moving the queue pair to the error state flushes what it still holds,
 * with errors, through the CQ: failover hands those operations on. */
static void verbs_disconnect (mca_btl_rwv_conn_t *conn)
{
    mca_btl_rwv_verbs_qp_t *vqp = (mca_btl_rwv_verbs_qp_t *) conn->backend;

    if (NULL == vqp) {
        return;
    }
    conn->backend = NULL;
    if (vqp->id->qp) {
        (void) rdma_disconnect (vqp->id);
    }
    verbs_qp_retire (verbs_rail (conn->rail), vqp);
}

/* ------------------------------------------------------------ data */

/* Does the next request on VQP ask for a completion: it has an op to
 * call back, or it is the inline write that retires those before it. */
static bool verbs_signal (const mca_btl_rwv_verbs_qp_t *vqp, const mca_btl_rwv_op_t *op)
{
    return NULL != op || __atomic_load_n (&vqp->unsignaled, __ATOMIC_RELAXED) + 1 >= MCA_BTL_RWV_VERBS_SIGNAL_EVERY;
}

/* After a post: a signalled one retired those before it; one that failed
 * (a full queue) makes the next ask, so that the queue never fills with
 * requests none of which will report.  Reads from the progressing thread
 * post outside the module lock: the count is atomic. */
static void verbs_signal_posted (mca_btl_rwv_verbs_qp_t *vqp, bool signalled, bool posted)
{
    if (!posted) {
        __atomic_store_n (&vqp->unsignaled, MCA_BTL_RWV_VERBS_SIGNAL_EVERY, __ATOMIC_RELAXED);
    } else if (signalled) {
        __atomic_store_n (&vqp->unsignaled, 0, __ATOMIC_RELAXED);
    } else {
        (void) __atomic_add_fetch (&vqp->unsignaled, 1, __ATOMIC_RELAXED);
    }
}

/* ------------------------------------------------------------ notifying sends */

/* The zero-length send that follows a write the receiver must notice,
 * where the device has no immediate data: unsignalled, so it retires with
 * the next signalled request. */
static const struct ibv_send_wr verbs_notify_wr = {.wr_id = 0, .opcode = IBV_WR_SEND, .num_sge = 0,
                                                   .send_flags = IBV_SEND_INLINE};

static bool verbs_notifies_by_send (const mca_btl_rwv_conn_t *conn, enum ibv_wr_opcode opcode)
{
    return IBV_WR_RDMA_WRITE_WITH_IMM == opcode && !verbs_rail (conn->rail)->immediate;
}

/* A full send queue took a write but not the send after it: the send is
 * owed, and progress posts it once completions have made room.  Its write
 * is in the ring; the receiver finds it when the send comes. */
static void verbs_owe_sends (mca_btl_rwv_verbs_qp_t *vqp, unsigned count)
{
    mca_btl_rwv_verbs_rail_t *rail = verbs_rail (vqp->conn->rail);

    OPAL_THREAD_LOCK(&rail->owing_lock);
    if (0 == vqp->sends_owed) {
        opal_list_append (&rail->owing, &vqp->owe_item);
    }
    vqp->sends_owed += count;
    OPAL_THREAD_UNLOCK(&rail->owing_lock);
}

static void verbs_pay_sends (mca_btl_rwv_verbs_rail_t *rail)
{
    opal_list_item_t *item, *next;

    OPAL_THREAD_LOCK(&rail->owing_lock);
    OPAL_LIST_FOREACH_SAFE(item, next, &rail->owing, opal_list_item_t) {
        mca_btl_rwv_verbs_qp_t *vqp = (mca_btl_rwv_verbs_qp_t *) ((char *) item - offsetof (mca_btl_rwv_verbs_qp_t, owe_item));
        struct ibv_send_wr wr = verbs_notify_wr, *bad;

        while (vqp->sends_owed > 0 && 0 == ibv_post_send (vqp->id->qp, &wr, &bad)) {
            verbs_signal_posted (vqp, false, true);
            --vqp->sends_owed;
        }
        if (0 == vqp->sends_owed) {
            opal_list_remove_item (&rail->owing, item);
        }
    }
    OPAL_THREAD_UNLOCK(&rail->owing_lock);
}

/* ------------------------------------------------------------ posting */

/* How many of the chain's first COUNT requests were posted, from the one
 * ibv_post_send named bad.  libsiw names none when every request went
 * into its send queue and only the kernel's doorbell failed: they are
 * posted (the queue holds them), and posting them again would send each
 * message twice. */
static int verbs_chain_posted (const struct ibv_send_wr *chain, const struct ibv_send_wr *bad, int count, int rc)
{
    if (0 == rc || NULL == bad) {
        return count;
    }
    return (int) (bad - chain);
}

/* One RDMA work request: `lkey' 0 with IBV_SEND_INLINE (the data is copied
 * into the request), `op' NULL for nothing to call back.  A write that
 * notifies without immediate data is two: the write, then its send. */
static int verbs_post (mca_btl_rwv_conn_t *conn, enum ibv_wr_opcode opcode, const void *buf, size_t len,
                       uint32_t lkey, unsigned int flags, uint64_t raddr, uint64_t rkey, uint32_t imm,
                       mca_btl_rwv_op_t *op)
{
    mca_btl_rwv_verbs_qp_t *vqp = (mca_btl_rwv_verbs_qp_t *) conn->backend;
    struct ibv_sge sge = {.addr = (uintptr_t) buf, .length = (uint32_t) len, .lkey = lkey};
    bool signalled = verbs_signal (vqp, op), by_send = verbs_notifies_by_send (conn, opcode);
    struct ibv_send_wr wr[2] = {{
        .wr_id = (uintptr_t) op, .sg_list = &sge, .num_sge = 1, .opcode = by_send ? IBV_WR_RDMA_WRITE : opcode,
        .send_flags = flags | (signalled ? IBV_SEND_SIGNALED : 0), .next = by_send ? &wr[1] : NULL,
        .imm_data = htonl (imm), .wr.rdma = {.remote_addr = raddr, .rkey = (uint32_t) rkey},
    }, verbs_notify_wr}, *bad = NULL;
    int posted, rc;

    if (NULL != op) {
        mca_btl_rwv_op_posted (op, true); /* before: another thread may see it complete */
    }
    rc = ibv_post_send (vqp->id->qp, wr, &bad);
    posted = verbs_chain_posted (wr, bad, by_send ? 2 : 1, rc);
    if (0 == posted) {
        verbs_signal_posted (vqp, signalled, false);
        if (NULL != op) {
            mca_btl_rwv_op_posted (op, false);
        }
        return OPAL_ERR_OUT_OF_RESOURCE;
    }
    verbs_signal_posted (vqp, signalled, true);
    if (by_send && 1 == posted) {
        verbs_owe_sends (vqp, 1);
    } else if (by_send) {
        verbs_signal_posted (vqp, false, true);
    }
    if (IBV_WR_RDMA_READ != opcode) {
        mca_btl_rwv_count (MCA_BTL_RWV_COUNT_WRITES);
    }
    if (signalled) {
        mca_btl_rwv_count (MCA_BTL_RWV_COUNT_REQUESTED);
    }
    return OPAL_SUCCESS;
}

static enum ibv_wr_opcode verbs_write_opcode (bool with_imm)
{
    return with_imm ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE;
}

static int verbs_write (mca_btl_rwv_conn_t *conn, const void *buf, size_t len, void *desc, uint64_t raddr,
                        uint64_t rkey, bool with_imm, uint32_t imm, bool delivered, mca_btl_rwv_op_t *op)
{
    return verbs_post (conn, verbs_write_opcode (with_imm), buf, len, ((struct ibv_mr *) desc)->lkey, 0, raddr,
                       rkey, imm, op);
}

/* A chain of work requests, one doorbell: each write signalled with its
 * own op, and its own immediate data.  A full send
 * queue takes the chain up to the request it names as bad. */
static int verbs_writev (mca_btl_rwv_conn_t *conn, const mca_btl_rwv_iov_t *iov, int count, uint64_t rkey,
                         bool with_imm)
{
    bool by_send = verbs_notifies_by_send (conn, verbs_write_opcode (with_imm));
    int per = by_send ? 2 : 1, n = count * per, posted, requests, rc;
    struct ibv_sge sge[MCA_BTL_RWV_MAX_BATCH];
    struct ibv_send_wr wr[2 * MCA_BTL_RWV_MAX_BATCH], *bad = NULL;

    for (int i = 0 ; i < count ; ++i) {
        sge[i] = (struct ibv_sge) {.addr = (uintptr_t) iov[i].buf, .length = (uint32_t) iov[i].len,
                                   .lkey = ((struct ibv_mr *) iov[i].desc)->lkey};
        wr[i * per] = (struct ibv_send_wr) {.wr_id = (uintptr_t) iov[i].op, .sg_list = &sge[i], .num_sge = 1,
            .opcode = by_send ? IBV_WR_RDMA_WRITE : verbs_write_opcode (with_imm), .send_flags = IBV_SEND_SIGNALED,
            .imm_data = htonl (iov[i].imm),
            .wr.rdma = {.remote_addr = iov[i].raddr, .rkey = (uint32_t) rkey}};
        if (by_send) {
            wr[i * per + 1] = verbs_notify_wr;
        }
        mca_btl_rwv_op_posted (iov[i].op, true); /* before: another thread may see it complete */
    }
    for (int k = 0 ; k + 1 < n ; ++k) {
        wr[k].next = &wr[k + 1];
    }
    rc = ibv_post_send (verbs_qp (conn), wr, &bad);
    requests = verbs_chain_posted (wr, bad, n, rc);
    /* a write whose send did not go still went: its send is owed */
    posted = (requests + per - 1) / per;
    if (by_send && requests % 2) {
        verbs_owe_sends ((mca_btl_rwv_verbs_qp_t *) conn->backend, 1);
    }
    for (int i = 0 ; i < count ; ++i) {
        if (i >= posted) {
            mca_btl_rwv_op_posted (iov[i].op, false);
        } else {
            mca_btl_rwv_count (MCA_BTL_RWV_COUNT_REQUESTED);
        }
    }
    verbs_signal_posted ((mca_btl_rwv_verbs_qp_t *) conn->backend, true, posted == count);
    if (posted > 0) {
        mca_btl_rwv_count (MCA_BTL_RWV_COUNT_WRITES); /* one doorbell */
    }
    return posted;
}

/* Inline: the buffer is free on return, nothing to call back; one in
 * MCA_BTL_RWV_VERBS_SIGNAL_EVERY asks for a completion (verbs_signal). */
static int verbs_inject_write (mca_btl_rwv_conn_t *conn, const void *buf, size_t len, uint64_t raddr,
                               uint64_t rkey, bool with_imm, uint32_t imm)
{
    if (len > conn->rail->inject_size) {
        return OPAL_ERR_OUT_OF_RESOURCE;
    }
    return verbs_post (conn, verbs_write_opcode (with_imm), buf, len, 0, IBV_SEND_INLINE, raddr, rkey, imm, NULL);
}

static int verbs_read (mca_btl_rwv_conn_t *conn, void *buf, size_t len, void *desc, uint64_t raddr, uint64_t rkey,
                       mca_btl_rwv_op_t *op)
{
    return verbs_post (conn, IBV_WR_RDMA_READ, buf, len, ((struct ibv_mr *) desc)->lkey, 0, raddr, rkey, 0, op);
}

static int verbs_mr_reg (mca_btl_rwv_rail_t *r, void *base, size_t len, mca_btl_rwv_access_t what, void **mr,
                         void **desc, uint64_t *rkey)
{
    /* rwv's atomics run on the target's CPU: no registration needs remote
     * atomics.  iWARP places a read's response under the sink's key, as a
     * write: there the sink takes remote writes (docs/security.md) */
    static const int access[] = {
        [MCA_BTL_RWV_ACCESS_READ_INTO] = IBV_ACCESS_LOCAL_WRITE,
        [MCA_BTL_RWV_ACCESS_PEER_WRITES] = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
        [MCA_BTL_RWV_ACCESS_OWN_RING] = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
        [MCA_BTL_RWV_ACCESS_RDMA] = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
    };
    int flags = access[what] | (MCA_BTL_RWV_ACCESS_READ_INTO == what && verbs_rail (r)->iwarp ? IBV_ACCESS_REMOTE_WRITE : 0);
    struct ibv_mr *ibmr = ibv_reg_mr (verbs_rail (r)->pd, base, len, flags);

    if (NULL == ibmr) {
        opal_output_verbose (MCA_BASE_VERBOSE_ERROR, opal_btl_base_framework.framework_output,
                             "btl/rwv: %s: ibv_reg_mr of %zu bytes failed: %s", r->name, len, strerror (errno));
        return OPAL_ERR_OUT_OF_RESOURCE;
    }
    *mr = *desc = ibmr;
    *rkey = ibmr->rkey;
    return OPAL_SUCCESS;
}

static void verbs_mr_dereg (mca_btl_rwv_rail_t *r, void *mr)
{
    (void) ibv_dereg_mr ((struct ibv_mr *) mr);
}

/* ------------------------------------------------------------ progress */

static void verbs_conn_error (mca_btl_rwv_verbs_rail_t *rail, mca_btl_rwv_verbs_qp_t *vqp,
                              const struct rdma_cm_event *event)
{
    char why[160];

    snprintf (why, sizeof (why), "%s on %s port %u (status %d)", rdma_event_str (event->event), rail->device,
              rail->port, event->status);
    if (RDMA_CM_EVENT_REJECTED == event->event) {
        mca_btl_rwv_conn_refused (vqp->conn, why);
    } else {
        mca_btl_rwv_conn_failed (vqp->conn, why);
    }
}

static void verbs_route_resolved (mca_btl_rwv_verbs_rail_t *rail, mca_btl_rwv_verbs_qp_t *vqp)
{
    struct rdma_conn_param param = {.private_data = vqp->cm, .private_data_len = (uint8_t) vqp->cm_len,
                                    .responder_resources = 1, .initiator_depth = 1, .retry_count = 7,
                                    .rnr_retry_count = 7};
    struct rdma_cm_event fake = {.event = RDMA_CM_EVENT_CONNECT_ERROR};

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

        mca_btl_rwv_conn_request (&rail->super, event->id, event->param.conn.private_data,
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
        mca_btl_rwv_conn_established (vqp->conn, event->param.conn.private_data,
                                      event->param.conn.private_data_len);
        break;
    case RDMA_CM_EVENT_DISCONNECTED:
        mca_btl_rwv_conn_closed (vqp->conn);
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
 * an event waits. */
static mca_btl_rwv_cm_state_t verbs_cm_state (mca_btl_rwv_rail_t *r)
{
    struct pollfd ready = {.fd = verbs_rail (r)->channel->fd, .events = POLLIN};

    return poll (&ready, 1, 0) > 0 ? MCA_BTL_RWV_CM_EVENT : MCA_BTL_RWV_CM_IDLE;
}

/* A connect request's private data lives in its event: the core copies
 * what it needs before the event is acknowledged. */
static int verbs_poll_connections (mca_btl_rwv_rail_t *r)
{
    mca_btl_rwv_verbs_rail_t *rail = verbs_rail (r);
    struct rdma_cm_event *event;
    int count = 0;

    while (0 == rdma_get_cm_event (rail->channel, &event)) {
        verbs_cm_event (rail, event);
        rdma_ack_cm_event (event);
        ++count;
    }
    return count;
}

static int verbs_op_status (enum ibv_wc_status status)
{
    if (IBV_WC_SUCCESS == status) {
        return OPAL_SUCCESS;
    }
    return IBV_WC_REM_ACCESS_ERR == status || IBV_WC_REM_INV_REQ_ERR == status ? OPAL_ERR_PERM : OPAL_ERR_UNREACH;
}

static void verbs_completion (mca_btl_rwv_verbs_rail_t *rail, const struct ibv_wc *wc)
{
    if (wc->wr_id & MCA_BTL_RWV_VERBS_RECV_TAG) {
        mca_btl_rwv_verbs_qp_t *vqp = (mca_btl_rwv_verbs_qp_t *) (uintptr_t) (wc->wr_id & ~(uint64_t) MCA_BTL_RWV_VERBS_RECV_TAG);

        if (IBV_WC_SUCCESS != wc->status || NULL == vqp->conn) {
            return;
        }
        (void) verbs_post_recvs (vqp, 1);
        if (IBV_WC_RECV == wc->opcode) {
            mca_btl_rwv_conn_notified (vqp->conn); /* a notifying send: its queue pair names the connection */
        } else {
            mca_btl_rwv_conn_remote_data (&rail->super, vqp->conn, ntohl (wc->imm_data));
        }
        return;
    }
    mca_btl_rwv_count (MCA_BTL_RWV_COUNT_REAPED);
    if (0 == wc->wr_id) {
        return; /* an inline write */
    }
    if (IBV_WC_SUCCESS != wc->status && IBV_WC_WR_FLUSH_ERR != wc->status) {
        opal_output_verbose (MCA_BASE_VERBOSE_ERROR, opal_btl_base_framework.framework_output,
                             "btl/rwv: %s: operation failed: %s", rail->super.name, ibv_wc_status_str (wc->status));
    }
    mca_btl_rwv_op_report ((mca_btl_rwv_op_t *) (uintptr_t) wc->wr_id, verbs_op_status (wc->status));
}

static int verbs_poll_completions (mca_btl_rwv_rail_t *r)
{
    mca_btl_rwv_verbs_rail_t *rail = verbs_rail (r);
    struct ibv_wc wc[16];
    int n = ibv_poll_cq (rail->cq, 16, wc);

    for (int i = 0 ; i < n ; ++i) {
        verbs_completion (rail, wc + i);
    }
    if (!opal_list_is_empty (&rail->owing)) {
        verbs_pay_sends (rail);
    }
    return n > 0 ? n : 0;
}

static bool verbs_link_up (mca_btl_rwv_rail_t *r)
{
    mca_btl_rwv_verbs_rail_t *rail = verbs_rail (r);
    struct ibv_port_attr attr;

    return 0 == ibv_query_port (rail->context, rail->port, &attr) && IBV_PORT_ACTIVE == attr.state;
}

void mca_btl_rwv_verbs_rail_close (mca_btl_rwv_rail_t *r)
{
    mca_btl_rwv_verbs_rail_t *rail = verbs_rail (r);
    mca_btl_rwv_verbs_qp_t *vqp;

    while (NULL != (vqp = (mca_btl_rwv_verbs_qp_t *) opal_list_remove_first (&rail->dead))) {
        if (vqp->id->qp) {
            rdma_destroy_qp (vqp->id);
        }
        rdma_destroy_id (vqp->id);
        OBJ_RELEASE(vqp);
    }
    OBJ_DESTRUCT(&rail->dead);
    OBJ_DESTRUCT(&rail->owing);
    OBJ_DESTRUCT(&rail->owing_lock);
    for (int f = 0 ; f < MCA_BTL_RWV_FAMILIES ; ++f) {
        if (rail->listen_id[f]) {
            rdma_destroy_id (rail->listen_id[f]);
        }
    }
    if (rail->recv_mr) {
        (void) ibv_dereg_mr (rail->recv_mr);
    }
    if (rail->cq) {
        ibv_destroy_cq (rail->cq);
    }
    if (rail->pd) {
        ibv_dealloc_pd (rail->pd);
    }
    if (rail->channel) {
        rdma_destroy_event_channel (rail->channel);
    }
    free (rail);
}

const mca_btl_rwv_rail_ops_t mca_btl_rwv_verbs_ops = {
    .connect = verbs_connect,
    .accept = verbs_accept,
    .reject = verbs_reject,
    .disconnect = verbs_disconnect,
    .write = verbs_write,
    .writev = verbs_writev,
    .inject_write = verbs_inject_write,
    .read = verbs_read,
    .mr_reg = verbs_mr_reg,
    .mr_dereg = verbs_mr_dereg,
    .poll_completions = verbs_poll_completions,
    .poll_connections = verbs_poll_connections,
    .cm_state = verbs_cm_state,
    .link_up = verbs_link_up,
    .close = mca_btl_rwv_verbs_rail_close,
};
