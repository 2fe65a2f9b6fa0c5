/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * The native verbs rail: libibverbs RC queue pairs set up through
 * librdmacm, one rail per interface of an active RDMA port, listening on
 * its IPv4 and its IPv6 address (RoCE v2 through the address's GID,
 * InfiniBand through IPoIB).  This file moves data; connections are in
 * btl_rwv_rail_verbs_cm.c.
 *
 *   writes       IBV_WR_RDMA_WRITE(_WITH_IMM), signalled when an op waits
 *                on it; a small write goes inline, so its buffer is free
 *                when the post returns.
 *                On InfiniBand and RoCE an RC completion means the target
 *                acknowledged the data: a write is delivered when it
 *                completes.  On iWARP it means only that TCP holds the
 *                data, so a write that must be delivered is chained with a
 *                read (verbs_write_fenced).  Without immediate data
 *                (iWARP) a write that must notify the receiver is followed
 *                by a zero-length send: both transports deliver a send only
 *                after the writes before it are placed, and its receive
 *                names the queue pair
 *   receives     only notifications use them (eager mode cq): each queue
 *                pair keeps rail->recv_depth zero-length receives
 *                posted, reposted as they complete.  Per-peer receive
 *                queues rather than an SRQ: they hold no buffers, so their
 *                cost is a few work requests per peer, and a peer's
 *                receives cannot be exhausted by another's traffic
 *   in flight    a request with an op to call back names a slot of its
 *                queue pair (at most MCA_BTL_RWV_VERBS_TRACKED, and as many
 *                reads as the connection agreed on, MCA_BTL_RWV_VERBS_READS
 *                says why); one more is refused, and waits in rwv's queue.
 *                A retired queue pair fails what its slots still hold
 *   completions  one CQ per rail for sends and receives, polled in progress;
 *                its completion channel wakes the connection thread while
 *                the application computes (btl_rwv_rail_verbs_cm.c)
 *
 * Which addresses become rails: btl_rwv_rail_verbs_discover.c.
 * Layer: transports (docs/layout.md).
 */
#include "opal_config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "opal/mca/btl/base/base.h"
#include "opal/util/argv.h"
#include "opal/util/output.h"
#include "opal/util/show_help.h"

#include "btl_rwv.h"
#include "btl_rwv_endpoint.h"
#include "btl_rwv_frag.h"
#include "btl_rwv_rail.h"
#include "btl_rwv_rail_verbs.h"

static struct ibv_qp *verbs_qp (const mca_btl_rwv_conn_t *conn)
{
    return ((mca_btl_rwv_verbs_qp_t *) conn->backend)->id->qp;
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
    return IBV_WR_RDMA_WRITE_WITH_IMM == opcode && !mca_btl_rwv_verbs_rail (conn->rail)->immediate;
}

/* A full send queue took a write but not the send after it: the send is
 * owed, and progress posts it once completions have made room.  Its write
 * is in the ring; the receiver finds it when the send comes. */
static void verbs_owe_sends (mca_btl_rwv_verbs_qp_t *vqp, unsigned count)
{
    mca_btl_rwv_verbs_rail_t *rail = mca_btl_rwv_verbs_rail (vqp->conn->rail);

    OPAL_THREAD_LOCK(&rail->owing_lock);
    if (0 == vqp->sends_owed) {
        opal_list_append (&rail->owing, &vqp->owe_item);
    }
    vqp->sends_owed += count;
    OPAL_THREAD_UNLOCK(&rail->owing_lock);
}

void mca_btl_rwv_verbs_pay_sends (mca_btl_rwv_verbs_rail_t *rail)
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

/* Set the fields of WR an RC queue pair reads for an RDMA opcode, and only
 * those: zeroing the whole request cost every message 16 instructions. */
static inline void verbs_rdma_wr (struct ibv_send_wr *wr, struct ibv_sge *sge, enum ibv_wr_opcode opcode,
                                  unsigned int flags, uint64_t raddr, uint64_t rkey, uint32_t imm, uint64_t wr_id)
{
    wr->wr_id = wr_id;
    wr->next = NULL;
    wr->sg_list = sge;
    wr->num_sge = 1;
    wr->opcode = opcode;
    wr->send_flags = flags;
    wr->imm_data = htonl (imm);
    wr->wr.rdma.remote_addr = raddr;
    wr->wr.rdma.rkey = (uint32_t) rkey;
}

/* For verbs_write_plain: a write with nothing to call back where the
 * device carries immediate data, what every eager message of a send ring
 * or an inline write takes.  One request, no slot, no chain. */
static int verbs_write_unwatched (mca_btl_rwv_verbs_qp_t *vqp, enum ibv_wr_opcode opcode, const void *buf,
                                  size_t len, uint32_t lkey, unsigned int flags, uint64_t raddr, uint64_t rkey,
                                  uint32_t imm)
{
    struct ibv_sge sge = {.addr = (uintptr_t) buf, .length = (uint32_t) len, .lkey = lkey};
    bool signalled = verbs_signal (vqp, NULL);
    struct ibv_send_wr wr, *bad = NULL;
    int rc;

    verbs_rdma_wr (&wr, &sge, opcode, flags | (signalled ? IBV_SEND_SIGNALED : 0), raddr, rkey, imm, 0);
    rc = ibv_post_send (vqp->id->qp, &wr, &bad);
    if (0 == verbs_chain_posted (&wr, bad, 1, rc)) {
        verbs_signal_posted (vqp, signalled, false);
        return OPAL_ERR_OUT_OF_RESOURCE;
    }
    verbs_signal_posted (vqp, signalled, true);
    mca_btl_rwv_count (MCA_BTL_RWV_COUNT_WRITES);
    if (signalled) {
        mca_btl_rwv_count (MCA_BTL_RWV_COUNT_REQUESTED);
    }
    return OPAL_SUCCESS;
}

/* One RDMA work request: `lkey' 0 with IBV_SEND_INLINE (the data is copied
 * into the request), `op' NULL for nothing to call back (only a write
 * that notifies by a send comes here so: verbs_write_plain takes the
 * rest).  A write that notifies without immediate data is two: the
 * write, then its send. */
static int verbs_post (mca_btl_rwv_conn_t *conn, enum ibv_wr_opcode opcode, const void *buf, size_t len,
                       uint32_t lkey, unsigned int flags, uint64_t raddr, uint64_t rkey, uint32_t imm,
                       mca_btl_rwv_op_t *op)
{
    mca_btl_rwv_verbs_qp_t *vqp = (mca_btl_rwv_verbs_qp_t *) conn->backend;
    struct ibv_sge sge = {.addr = (uintptr_t) buf, .length = (uint32_t) len, .lkey = lkey};
    bool signalled, by_send = verbs_notifies_by_send (conn, opcode);
    mca_btl_rwv_verbs_slot_t *slot;
    /* the notifying send is built only where it goes (two requests zeroed
     * cost 40 instructions) */
    struct ibv_send_wr wr[2], *bad = NULL;
    int posted, rc;

    signalled = verbs_signal (vqp, op);
    slot = NULL != op ? mca_btl_rwv_verbs_slot_take (vqp, op, IBV_WR_RDMA_READ == opcode) : NULL;
    if (NULL != op && NULL == slot) {
        return OPAL_ERR_OUT_OF_RESOURCE;
    }
    verbs_rdma_wr (&wr[0], &sge, by_send ? IBV_WR_RDMA_WRITE : opcode, flags | (signalled ? IBV_SEND_SIGNALED : 0),
                   raddr, rkey, imm, NULL != slot ? mca_btl_rwv_verbs_slot_id (slot) : 0);
    if (by_send) {
        wr[0].next = &wr[1];
        wr[1] = verbs_notify_wr;
    }
    if (NULL != op) {
        mca_btl_rwv_op_posted (op, true); /* before: another thread may see it complete */
    }
    rc = ibv_post_send (vqp->id->qp, wr, &bad);
    posted = verbs_chain_posted (wr, bad, by_send ? 2 : 1, rc);
    if (0 == posted) {
        if (NULL != slot) {
            (void) mca_btl_rwv_verbs_slot_give (slot);
        }
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

/* iWARP completes a write once TCP holds its data, not once the peer has
 * placed it (RFC 5040), and a message sent on another rail may overtake
 * it.  A write that must be delivered goes in one chain with an 8-byte
 * read of the peer's flush marker, which RDMAP answers only after the
 * writes before it on the stream are placed; OP completes with the read.
 * Nothing goes without room for the read.  Should the queue take the
 * write and not the read, the caller posts both again later: the same
 * bytes written twice. */
static int verbs_write_fenced (mca_btl_rwv_conn_t *conn, const void *buf, size_t len, uint32_t lkey,
                               uint64_t raddr, uint64_t rkey, mca_btl_rwv_op_t *op)
{
    mca_btl_rwv_verbs_qp_t *vqp = (mca_btl_rwv_verbs_qp_t *) conn->backend;
    const mca_btl_rwv_frag_t *marker = mca_btl_rwv_component.module->marker;
    mca_btl_rwv_verbs_slot_t *slot = mca_btl_rwv_verbs_slot_take (vqp, op, true);
    struct ibv_sge sge[2] = {
        {.addr = (uintptr_t) buf, .length = (uint32_t) len, .lkey = lkey},
        {.addr = (uintptr_t) marker->buf, .length = sizeof (uint64_t),
         .lkey = ((struct ibv_mr *) marker->reg->desc[conn->rail->index])->lkey},
    };
    struct ibv_send_wr wr[2] = {{
        .sg_list = &sge[0], .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE, .next = &wr[1],
        .wr.rdma = {.remote_addr = raddr, .rkey = (uint32_t) rkey},
    }, {
        .wr_id = mca_btl_rwv_verbs_slot_id (slot), .sg_list = &sge[1], .num_sge = 1, .opcode = IBV_WR_RDMA_READ,
        .send_flags = IBV_SEND_SIGNALED,
        .wr.rdma = {.remote_addr = mca_btl_rwv_conn_marker_raddr (conn), .rkey = (uint32_t) conn->peer.tail_rkey},
    }}, *bad = NULL;
    int rc;

    if (NULL == slot) {
        return OPAL_ERR_OUT_OF_RESOURCE;
    }
    mca_btl_rwv_op_posted (op, true); /* before: another thread may see it complete */
    rc = ibv_post_send (vqp->id->qp, wr, &bad);
    if (2 != verbs_chain_posted (wr, bad, 2, rc)) {
        (void) mca_btl_rwv_verbs_slot_give (slot);
        mca_btl_rwv_op_posted (op, false);
        verbs_signal_posted (vqp, false, false);
        return OPAL_ERR_OUT_OF_RESOURCE;
    }
    verbs_signal_posted (vqp, true, true);
    mca_btl_rwv_count (MCA_BTL_RWV_COUNT_WRITES);
    mca_btl_rwv_count (MCA_BTL_RWV_COUNT_REQUESTED);
    return OPAL_SUCCESS;
}

/* Only puts ask for delivery, never a ring write with immediate data. */
static int verbs_write (mca_btl_rwv_conn_t *conn, const void *buf, size_t len, void *desc, uint64_t raddr,
                        uint64_t rkey, bool with_imm, uint32_t imm, bool delivered, mca_btl_rwv_op_t *op)
{
    if (delivered && !with_imm && mca_btl_rwv_verbs_rail (conn->rail)->iwarp) {
        return verbs_write_fenced (conn, buf, len, ((struct ibv_mr *) desc)->lkey, raddr, rkey, op);
    }
    return verbs_post (conn, verbs_write_opcode (with_imm), buf, len, ((struct ibv_mr *) desc)->lkey, 0, raddr,
                       rkey, imm, op);
}

/* A chain of work requests, one doorbell: each write signalled with its
 * own op, and its own immediate data.  A full send
 * queue takes the chain up to the request it names as bad. */
static int verbs_writev (mca_btl_rwv_conn_t *conn, const mca_btl_rwv_iov_t *iov, int count, uint64_t rkey,
                         bool with_imm)
{
    mca_btl_rwv_verbs_qp_t *vqp = (mca_btl_rwv_verbs_qp_t *) conn->backend;
    bool by_send = verbs_notifies_by_send (conn, verbs_write_opcode (with_imm));
    int per = by_send ? 2 : 1, n, posted, requests, rc;
    mca_btl_rwv_verbs_slot_t *slot[MCA_BTL_RWV_MAX_BATCH];
    struct ibv_sge sge[MCA_BTL_RWV_MAX_BATCH];
    struct ibv_send_wr wr[2 * MCA_BTL_RWV_MAX_BATCH], *bad = NULL;

    for (int i = 0 ; i < count ; ++i) {
        if (NULL == (slot[i] = mca_btl_rwv_verbs_slot_take (vqp, iov[i].op, false))) {
            count = i; /* the rest wait for slots */
            break;
        }
    }
    if (0 == count) {
        return 0;
    }
    n = count * per;
    for (int i = 0 ; i < count ; ++i) {
        sge[i] = (struct ibv_sge) {.addr = (uintptr_t) iov[i].buf, .length = (uint32_t) iov[i].len,
                                   .lkey = ((struct ibv_mr *) iov[i].desc)->lkey};
        wr[i * per] = (struct ibv_send_wr) {.wr_id = mca_btl_rwv_verbs_slot_id (slot[i]), .sg_list = &sge[i], .num_sge = 1,
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
        verbs_owe_sends (vqp, 1);
    }
    for (int i = 0 ; i < count ; ++i) {
        if (i >= posted) {
            (void) mca_btl_rwv_verbs_slot_give (slot[i]);
            mca_btl_rwv_op_posted (iov[i].op, false);
        } else {
            mca_btl_rwv_count (MCA_BTL_RWV_COUNT_REQUESTED);
        }
    }
    verbs_signal_posted (vqp, true, posted == count);
    if (posted > 0) {
        mca_btl_rwv_count (MCA_BTL_RWV_COUNT_WRITES); /* one doorbell */
    }
    return posted;
}

/* A write with nothing to call back: its one request, without
 * verbs_post's frame for chains and slots, where the device carries
 * immediate data (every eager message on RoCE and InfiniBand). */
static inline int verbs_write_plain (mca_btl_rwv_conn_t *conn, const void *buf, size_t len, uint32_t lkey,
                                     unsigned int flags, uint64_t raddr, uint64_t rkey, bool with_imm, uint32_t imm)
{
    enum ibv_wr_opcode opcode = verbs_write_opcode (with_imm);

    if (OPAL_UNLIKELY(verbs_notifies_by_send (conn, opcode))) {
        return verbs_post (conn, opcode, buf, len, lkey, flags, raddr, rkey, imm, NULL);
    }
    return verbs_write_unwatched ((mca_btl_rwv_verbs_qp_t *) conn->backend, opcode, buf, len, lkey, flags, raddr,
                                  rkey, imm);
}

/* Inline: the buffer is free on return, nothing to call back; one in
 * MCA_BTL_RWV_VERBS_SIGNAL_EVERY asks for a completion (verbs_signal). */
static int verbs_inject_write (mca_btl_rwv_conn_t *conn, const void *buf, size_t len, uint64_t raddr,
                               uint64_t rkey, bool with_imm, uint32_t imm)
{
    if (len > conn->rail->inject_size) {
        return OPAL_ERR_OUT_OF_RESOURCE;
    }
    return verbs_write_plain (conn, buf, len, 0, IBV_SEND_INLINE, raddr, rkey, with_imm, imm);
}

/* Unsignalled but for one in MCA_BTL_RWV_VERBS_SIGNAL_EVERY, as inline
 * writes: the caller keeps BUF until the peer consumed it. */
static int verbs_write_quiet (mca_btl_rwv_conn_t *conn, const void *buf, size_t len, void *desc, uint64_t raddr,
                              uint64_t rkey, bool with_imm, uint32_t imm)
{
    return verbs_write_plain (conn, buf, len, ((struct ibv_mr *) desc)->lkey, 0, raddr, rkey, with_imm, imm);
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
        [MCA_BTL_RWV_ACCESS_WRITE_FROM] = 0, /* the device reads local memory with any registration */
        [MCA_BTL_RWV_ACCESS_PEER_WRITES] = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
        [MCA_BTL_RWV_ACCESS_OWN_RING] = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
        [MCA_BTL_RWV_ACCESS_RDMA] = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
    };
    int flags = access[what] | (MCA_BTL_RWV_ACCESS_READ_INTO == what && mca_btl_rwv_verbs_rail (r)->iwarp ? IBV_ACCESS_REMOTE_WRITE : 0);
    struct ibv_mr *ibmr = ibv_reg_mr (mca_btl_rwv_verbs_rail (r)->pd, base, len, flags);

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

static bool verbs_link_up (mca_btl_rwv_rail_t *r)
{
    mca_btl_rwv_verbs_rail_t *rail = mca_btl_rwv_verbs_rail (r);
    struct ibv_port_attr attr;

    return 0 == ibv_query_port (rail->context, rail->port, &attr) && IBV_PORT_ACTIVE == attr.state;
}

void mca_btl_rwv_verbs_rail_close (mca_btl_rwv_rail_t *r)
{
    mca_btl_rwv_verbs_rail_t *rail = mca_btl_rwv_verbs_rail (r);
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
    if (rail->comp) {
        (void) ibv_destroy_comp_channel (rail->comp); /* its events were acknowledged as read */
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
    .connect = mca_btl_rwv_verbs_connect,
    .accept = mca_btl_rwv_verbs_accept,
    .reject = mca_btl_rwv_verbs_reject,
    .disconnect = mca_btl_rwv_verbs_disconnect,
    .write = verbs_write,
    .writev = verbs_writev,
    .inject_write = verbs_inject_write,
    .write_quiet = verbs_write_quiet,
    .read = verbs_read,
    .mr_reg = verbs_mr_reg,
    .mr_dereg = verbs_mr_dereg,
    .poll_completions = mca_btl_rwv_verbs_poll_completions,
    .poll_connections = mca_btl_rwv_verbs_poll_connections,
    .cm_state = mca_btl_rwv_verbs_cm_state,
    .link_up = verbs_link_up,
    .close = mca_btl_rwv_verbs_rail_close,
};
