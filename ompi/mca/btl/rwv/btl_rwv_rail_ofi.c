/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * The libfabric rail backend: connected FI_EP_MSG endpoints (libfabric's
 * mirror of RDMA-CM).  Every provider address that offers RMA on message
 * endpoints is a rail: with the tcp provider, each interface (its IPv4
 * and its IPv6 address); with verbs, each RDMA device port.
 *
 * Each rail has a passive endpoint listening for connection requests, one
 * event queue for connection events and one completion queue for every
 * connection's operations (a second while one is retired, see
 * mca_btl_rwv_ofi_cq_taint).  Which interfaces become rails:
 * btl_rwv_rail_ofi_discover.c.
 * Layer: transports (docs/layout.md).
 */
#include "opal_config.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include "opal/mca/btl/base/base.h"
#include "opal/util/argv.h"
#include "opal/util/if.h"
#include "opal/util/output.h"
#include "opal/util/show_help.h"

#include "btl_rwv.h"
#include "btl_rwv_endpoint.h"
#include "btl_rwv_rail.h"
#include "btl_rwv_rail_ofi.h"

static int ofi_errno_to_opal (ssize_t rc)
{
    if (-FI_EAGAIN == rc || -FI_ENOMEM == rc) {
        return OPAL_ERR_OUT_OF_RESOURCE;
    }
    return 0 == rc ? OPAL_SUCCESS : OPAL_ERROR;
}

/* ------------------------------------------------------------ data */

/* Endpoints complete only what asks to (FI_SELECTIVE_COMPLETION, see
 * btl_rwv_rail_ofi_cm.c): one write from one buffer, with FLAGS, and the
 * immediate data IMM where FLAGS carries FI_REMOTE_CQ_DATA. */
static ssize_t ofi_write_one (mca_btl_rwv_conn_t *conn, const void *buf, size_t len, void *desc, uint64_t raddr,
                              uint64_t rkey, uint32_t imm, void *context, uint64_t flags)
{
    struct iovec iov = {.iov_base = (void *) buf, .iov_len = len};
    struct fi_rma_iov rma_iov = {.addr = raddr, .len = len, .key = rkey};
    struct fi_msg_rma msg = {.msg_iov = &iov, .desc = &desc, .iov_count = 1, .rma_iov = &rma_iov,
                             .rma_iov_count = 1, .context = context, .data = imm};

    return fi_writemsg (mca_btl_rwv_ofi_ep_of (conn), &msg, flags);
}

/* A write the transport took (RC 0): counted, and told by a send where
 * the rail does not carry immediate data. */
static int ofi_write_taken (mca_btl_rwv_conn_t *conn, ssize_t rc, bool by_send)
{
    if (0 != rc) {
        return ofi_errno_to_opal (rc);
    }
    mca_btl_rwv_count (MCA_BTL_RWV_COUNT_WRITES);
    if (by_send) {
        mca_btl_rwv_ofi_notify (conn);
    }
    return OPAL_SUCCESS;
}

/* The same for a write that asked for a completion. */
static int ofi_write_posted (mca_btl_rwv_conn_t *conn, bool by_send)
{
    mca_btl_rwv_count (MCA_BTL_RWV_COUNT_REQUESTED);
    return ofi_write_taken (conn, 0, by_send);
}

static int ofi_write (mca_btl_rwv_conn_t *conn, const void *buf, size_t len, void *desc, uint64_t raddr,
                      uint64_t rkey, bool with_imm, uint32_t imm, bool delivered, mca_btl_rwv_op_t *op)
{
    bool by_send = with_imm && conn->rail->notify_by_send, data = with_imm && !by_send;
    ssize_t rc;

    mca_btl_rwv_op_posted (op, true); /* before: another thread may see it complete */
    /* the tcp provider acknowledges a FI_DELIVERY_COMPLETE write once the
     * target has placed it */
    rc = ofi_write_one (conn, buf, len, desc, raddr, rkey, imm, op, FI_COMPLETION |
                        (data ? FI_REMOTE_CQ_DATA : delivered ? FI_DELIVERY_COMPLETE : 0));
    if (0 != rc) {
        mca_btl_rwv_op_posted (op, false);
        return ofi_errno_to_opal (rc);
    }
    return ofi_write_posted (conn, by_send);
}

/* With no FI_MR_LOCAL the provider reads local memory unregistered (no
 * descriptors): the application's buffer goes to the wire as it is. */
static int ofi_write_gather (mca_btl_rwv_conn_t *conn, const struct iovec *iov, int count, uint64_t raddr,
                             uint64_t rkey, bool with_imm, uint32_t imm, mca_btl_rwv_op_t *op)
{
    bool by_send = with_imm && conn->rail->notify_by_send, data = with_imm && !by_send;
    struct fi_rma_iov rma_iov = {.addr = raddr, .len = 0, .key = rkey};
    struct fi_msg_rma msg = {.msg_iov = iov, .iov_count = (size_t) count, .rma_iov = &rma_iov, .rma_iov_count = 1,
                             .context = op, .data = imm};
    ssize_t rc;

    for (int i = 0 ; i < count ; ++i) {
        rma_iov.len += iov[i].iov_len;
    }
    mca_btl_rwv_op_posted (op, true); /* before: another thread may see it complete */
    rc = fi_writemsg (mca_btl_rwv_ofi_ep_of (conn), &msg, FI_COMPLETION | (data ? FI_REMOTE_CQ_DATA : 0));
    if (0 != rc) {
        mca_btl_rwv_op_posted (op, false);
        return ofi_errno_to_opal (rc);
    }
    return ofi_write_posted (conn, by_send);
}

OBJ_CLASS_INSTANCE(mca_btl_rwv_ofi_batch_t, opal_free_list_item_t, NULL, NULL);

static void ofi_batch_complete (mca_btl_rwv_op_t *op, int status)
{
    mca_btl_rwv_ofi_batch_t *batch = (mca_btl_rwv_ofi_batch_t *) op;

    for (int i = 0 ; i < batch->count ; ++i) {
        mca_btl_rwv_op_report (batch->ops[i], status);
    }
    mca_btl_rwv_list_return (&batch->rail->batches, &batch->op.super);
}

/* One message with COUNT remote places, each filled from its own local
 * pieces (one, or the application's data and one): the tcp provider sends
 * it with one system call, and reports it with one completion. */
static int ofi_writev (mca_btl_rwv_conn_t *conn, const mca_btl_rwv_iov_t *iov, int count, uint64_t rkey,
                       bool with_imm)
{
    mca_btl_rwv_ofi_rail_t *rail = mca_btl_rwv_ofi_rail_of (conn->rail);
    mca_btl_rwv_ofi_batch_t *batch;
    struct iovec local[2 * MCA_BTL_RWV_MAX_BATCH];
    struct fi_rma_iov remote[MCA_BTL_RWV_MAX_BATCH];
    void *desc[2 * MCA_BTL_RWV_MAX_BATCH];
    struct fi_msg_rma msg = {.msg_iov = local, .desc = desc, .rma_iov = remote, .rma_iov_count = (size_t) count};
    size_t pieces = 0;
    ssize_t rc;

    if (with_imm || NULL == (batch = (mca_btl_rwv_ofi_batch_t *) mca_btl_rwv_list_get (&rail->batches))) {
        return 0; /* with immediate data one write would be one arrival for them all */
    }
    batch->rail = rail;
    batch->count = count;
    batch->op.complete = ofi_batch_complete;
    for (int i = 0 ; i < count ; ++i) {
        if (iov[i].data_len) {
            desc[pieces] = NULL;
            local[pieces++] = (struct iovec) {.iov_base = (void *) iov[i].data, .iov_len = iov[i].data_len};
        }
        desc[pieces] = iov[i].desc;
        local[pieces++] = (struct iovec) {.iov_base = (void *) iov[i].buf, .iov_len = iov[i].len};
        remote[i] = (struct fi_rma_iov) {.addr = iov[i].raddr, .len = iov[i].data_len + iov[i].len, .key = rkey};
        batch->ops[i] = iov[i].op;
        mca_btl_rwv_op_posted (iov[i].op, true);
    }
    msg.iov_count = pieces;
    msg.context = &batch->op;
    mca_btl_rwv_op_posted (&batch->op, true);
    rc = fi_writemsg (mca_btl_rwv_ofi_ep_of (conn), &msg, FI_COMPLETION);
    if (0 != rc) {
        for (int i = 0 ; i < count ; ++i) {
            mca_btl_rwv_op_posted (iov[i].op, false);
        }
        mca_btl_rwv_op_posted (&batch->op, false);
        mca_btl_rwv_list_return (&rail->batches, &batch->op.super);
        return 0;
    }
    mca_btl_rwv_count (MCA_BTL_RWV_COUNT_WRITES);
    mca_btl_rwv_count (MCA_BTL_RWV_COUNT_REQUESTED);
    return count;
}

static int ofi_inject_write (mca_btl_rwv_conn_t *conn, const void *buf, size_t len, uint64_t raddr,
                             uint64_t rkey, bool with_imm, uint32_t imm)
{
    bool by_send = with_imm && conn->rail->notify_by_send;
    ssize_t rc = with_imm && !by_send ? fi_inject_writedata (mca_btl_rwv_ofi_ep_of (conn), buf, len, imm, 0, raddr, rkey)
                                      : fi_inject_write (mca_btl_rwv_ofi_ep_of (conn), buf, len, 0, raddr, rkey);

    return ofi_write_taken (conn, rc, by_send);
}

/* Written from registered memory with no completion: the caller keeps
 * BUF untouched until the peer has consumed what it carries, which it
 * cannot before the transport has sent it all. */
static int ofi_write_quiet (mca_btl_rwv_conn_t *conn, const void *buf, size_t len, void *desc, uint64_t raddr,
                            uint64_t rkey, bool with_imm, uint32_t imm)
{
    bool by_send = with_imm && conn->rail->notify_by_send, data = with_imm && !by_send;

    return ofi_write_taken (conn, ofi_write_one (conn, buf, len, desc, raddr, rkey, imm, NULL,
                                                  data ? FI_REMOTE_CQ_DATA : 0), by_send);
}

static int ofi_read (mca_btl_rwv_conn_t *conn, void *buf, size_t len, void *desc, uint64_t raddr,
                     uint64_t rkey, mca_btl_rwv_op_t *op)
{
    struct iovec iov = {.iov_base = buf, .iov_len = len};
    struct fi_rma_iov rma_iov = {.addr = raddr, .len = len, .key = rkey};
    struct fi_msg_rma msg = {.msg_iov = &iov, .desc = &desc, .iov_count = 1, .rma_iov = &rma_iov,
                             .rma_iov_count = 1, .context = op};
    ssize_t rc;

    mca_btl_rwv_op_posted (op, true);
    rc = fi_readmsg (mca_btl_rwv_ofi_ep_of (conn), &msg, FI_COMPLETION);
    if (0 != rc) {
        mca_btl_rwv_op_posted (op, false);
    } else {
        mca_btl_rwv_count (MCA_BTL_RWV_COUNT_REQUESTED);
    }
    return ofi_errno_to_opal (rc);
}

/* ------------------------------------------------------------ memory */

static int ofi_mr_reg (mca_btl_rwv_rail_t *r, void *base, size_t len, mca_btl_rwv_access_t what, void **mr,
                       void **desc, uint64_t *rkey)
{
    static const uint64_t access[] = {
        [MCA_BTL_RWV_ACCESS_READ_INTO] = FI_READ,
        [MCA_BTL_RWV_ACCESS_WRITE_FROM] = FI_WRITE,
        [MCA_BTL_RWV_ACCESS_PEER_WRITES] = FI_REMOTE_WRITE,
        [MCA_BTL_RWV_ACCESS_OWN_RING] = FI_REMOTE_WRITE | FI_REMOTE_READ,
        [MCA_BTL_RWV_ACCESS_RDMA] = FI_SEND | FI_RECV | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE,
    };
    mca_btl_rwv_ofi_rail_t *rail = mca_btl_rwv_ofi_rail_of (r);
    struct fid_mr *fmr;
    int rc;

    rc = fi_mr_reg (rail->domain, base, len, access[what], 0, rail->prov_key ? 0 : rail->next_key++, 0, &fmr, NULL);
    if (0 != rc) {
        opal_output_verbose (MCA_BASE_VERBOSE_WARN, opal_btl_base_framework.framework_output,
                             "btl/rwv: %s: registering %zu bytes failed: %s", r->name, len, fi_strerror (-rc));
        return -FI_ENOMEM == rc || -FI_EAGAIN == rc ? OPAL_ERR_OUT_OF_RESOURCE : OPAL_ERROR;
    }
    *mr = fmr;
    *desc = fi_mr_desc (fmr);
    *rkey = fi_mr_key (fmr);
    return OPAL_SUCCESS;
}

static void ofi_mr_dereg (mca_btl_rwv_rail_t *r, void *mr)
{
    (void) fi_close (&((struct fid_mr *) mr)->fid);
}

static bool ofi_link_up (mca_btl_rwv_rail_t *r)
{
    mca_btl_rwv_ofi_rail_t *rail = mca_btl_rwv_ofi_rail_of (r);
    struct ifreq ifr;

    if (r->addr.loopback || rail->ioctl_fd < 0) {
        return true;
    }
    memset (&ifr, 0, sizeof (ifr));
    snprintf (ifr.ifr_name, sizeof (ifr.ifr_name), "%.*s", (int) sizeof (ifr.ifr_name) - 1, r->ifname);
    if (ioctl (rail->ioctl_fd, SIOCGIFFLAGS, &ifr) < 0) {
        return false; /* the interface is gone */
    }
    return (ifr.ifr_flags & IFF_UP) && (ifr.ifr_flags & IFF_RUNNING);
}

const mca_btl_rwv_rail_ops_t mca_btl_rwv_ofi_ops = {
    .connect = mca_btl_rwv_ofi_connect,
    .accept = mca_btl_rwv_ofi_accept,
    .reject = mca_btl_rwv_ofi_reject,
    .disconnect = mca_btl_rwv_ofi_disconnect,
    .write = ofi_write,
    .writev = ofi_writev,
    .write_gather = ofi_write_gather,
    .inject_write = ofi_inject_write,
    .write_quiet = ofi_write_quiet,
    .read = ofi_read,
    .mr_reg = ofi_mr_reg,
    .mr_dereg = ofi_mr_dereg,
    .poll_completions = mca_btl_rwv_ofi_poll_completions,
    .poll_connections = mca_btl_rwv_ofi_poll_connections,
    .cm_state = mca_btl_rwv_ofi_cm_state,
    .data_sync = mca_btl_rwv_ofi_data_sync,
    .link_up = ofi_link_up,
    .close = mca_btl_rwv_ofi_rail_close,
};
