/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * The native verbs backend's own objects, shared by its files:
 * btl_rwv_rail_verbs.c (data, memory), _cq.c (requests in flight and
 * completions), _cm.c (connections), _discover.c (which addresses
 * become rails) and _caps.c (what a device can do).
 */
#ifndef MCA_BTL_RWV_RAIL_VERBS_H
#define MCA_BTL_RWV_RAIL_VERBS_H

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "opal/class/opal_list.h"

#include "btl_rwv_rail.h"

BEGIN_C_DECLS

#define MCA_BTL_RWV_VERBS_SEND_DEPTH 512
#define MCA_BTL_RWV_VERBS_CQ_DEPTH 8192
#define MCA_BTL_RWV_VERBS_INLINE 128
/* Inline writes have nothing to call back: one in this many asks for a
 * completion, which retires it and every one before it from the send
 * queue (a queue pair's requests complete in order) */
#define MCA_BTL_RWV_VERBS_SIGNAL_EVERY 64
#define MCA_BTL_RWV_VERBS_RESOLVE_MS 5000
/* RDMA reads a queue pair keeps in flight at most (where the device
 * allows fewer, its limit): the initiator depth and responder resources
 * each side offers.  A read past what the peer answers at once would wait
 * in the send queue and hold up every request behind it; on soft-iWARP
 * it holds up the answers to the peer's own reads too, and two ranks
 * reading from each other wait on each other for ever.  So such a read
 * is refused, and waits in rwv's queue instead. */
#define MCA_BTL_RWV_VERBS_READS 16
/* Requests with an op to call back that a queue pair keeps in flight at
 * most: each names a slot of its queue pair, so that a failed queue pair
 * can fail them itself (mca_btl_rwv_verbs_disconnect says why).  One
 * more is refused, and waits in rwv's queue. */
#define MCA_BTL_RWV_VERBS_TRACKED 64

typedef struct mca_btl_rwv_verbs_rail_t {
    mca_btl_rwv_rail_t super;
    struct rdma_event_channel *channel;
    struct rdma_cm_id *listen_id[MCA_BTL_RWV_FAMILIES]; /* one per family, on one channel */
    struct ibv_context *context;
    struct ibv_pd *pd;
    struct ibv_cq *cq;
    /* where the CQ tells the connection thread of completions while the
     * application computes (btl_rwv_async_progress); NULL: it does not */
    struct ibv_comp_channel *comp;
    bool comp_armed;            /* the CQ will tell: read and written by the connection thread only */
    char device[64];
    uint8_t port;
    bool iwarp;                 /* RDMAP: no immediate data; read sinks take remote writes */
    bool immediate;             /* ring writes notify with immediate data, else a zero-length send */
    int send_depth, recv_depth, cq_depth; /* fitted to the device (btl_rwv_rail_verbs_caps.c) */
    uint32_t inline_bytes;      /* most bytes a work request carries inline */
    int reads;                  /* RDMA reads in flight per queue pair (MCA_BTL_RWV_VERBS_READS) */
    uint64_t recv_sink;         /* what receives name: they take no bytes, but siw wants an SGE */
    struct ibv_mr *recv_mr;
    opal_list_t owing;          /* queue pairs owing notifying sends (their owe_item) */
    opal_mutex_t owing_lock;    /* posts come from any thread */
    opal_list_t dead;           /* queue pairs of failed connections, destroyed at close (under owing_lock) */
    int abandoned;              /* of those, how many have requests still to fail (atomic) */
} mca_btl_rwv_verbs_rail_t;

struct mca_btl_rwv_verbs_qp_t;

/* A request in flight with an op: its work request id names this, and
 * this its queue pair, whose slot the completion gives back. */
typedef struct mca_btl_rwv_verbs_slot_t {
    struct mca_btl_rwv_verbs_qp_t *vqp;
    mca_btl_rwv_op_t *op;       /* NULL: free, or failed with its queue pair */
    bool read;
} mca_btl_rwv_verbs_slot_t;

/* One connection's queue pair and cm id. */
typedef struct mca_btl_rwv_verbs_qp_t {
    opal_list_item_t super;
    struct rdma_cm_id *id;
    struct mca_btl_rwv_conn_t *conn;   /* NULL once abandoned */
    unsigned char cm[64];       /* our connection data, sent once the route is known */
    size_t cm_len;
    unsigned unsignaled;        /* inline writes posted since the last signalled request (atomic) */
    unsigned sends_owed;        /* notifying sends a full send queue refused after their write */
    opal_list_item_t owe_item;  /* on the rail's owing list while sends_owed > 0 */
    bool abandon;               /* retired: fail its requests still in flight */
    int reads_max;              /* reads in flight the connection agreed on */
    int reads_out;              /* reads in flight (atomic) */
    uint64_t slots_free;        /* bit k set: slots[k] is free (atomic) */
    mca_btl_rwv_verbs_slot_t slots[MCA_BTL_RWV_VERBS_TRACKED];
} mca_btl_rwv_verbs_qp_t;
OBJ_CLASS_DECLARATION(mca_btl_rwv_verbs_qp_t);


/* A receive's work request id is its queue pair's address with the low bit
 * set: a flushed receive completes with an error, and then wc.opcode is
 * undefined, so only the id tells it from a send. */
#define MCA_BTL_RWV_VERBS_RECV_TAG 1
/* A request with an op: its slot's address with the second bit set. */
#define MCA_BTL_RWV_VERBS_SLOT_TAG 2

static inline mca_btl_rwv_verbs_rail_t *mca_btl_rwv_verbs_rail (mca_btl_rwv_rail_t *rail)
{
    return (mca_btl_rwv_verbs_rail_t *) rail;
}

/* btl_rwv_rail_verbs.c */
extern const mca_btl_rwv_rail_ops_t mca_btl_rwv_verbs_ops;
void mca_btl_rwv_verbs_rail_close (mca_btl_rwv_rail_t *rail);
/* the notifying sends owed, where completions made room */
void mca_btl_rwv_verbs_pay_sends (mca_btl_rwv_verbs_rail_t *rail);

/* btl_rwv_rail_verbs_cq.c: a slot for a request with an op to call back
 * (NULL: none free, or no room for another read), given back when it
 * completes (its op, or NULL if failed already), and its work request id */
mca_btl_rwv_verbs_slot_t *mca_btl_rwv_verbs_slot_take (mca_btl_rwv_verbs_qp_t *vqp, mca_btl_rwv_op_t *op, bool read);
mca_btl_rwv_op_t *mca_btl_rwv_verbs_slot_give (mca_btl_rwv_verbs_slot_t *slot);
uint64_t mca_btl_rwv_verbs_slot_id (const mca_btl_rwv_verbs_slot_t *slot);
int mca_btl_rwv_verbs_poll_completions (mca_btl_rwv_rail_t *rail);

/* btl_rwv_rail_verbs_cm.c: the rail ops for connections, and the
 * receives a queue pair keeps posted */
int mca_btl_rwv_verbs_connect (mca_btl_rwv_rail_t *rail, struct mca_btl_rwv_conn_t *conn, const void *cm,
                               size_t cm_len);
int mca_btl_rwv_verbs_accept (mca_btl_rwv_rail_t *rail, struct mca_btl_rwv_conn_t *conn, void *request,
                              const void *cm, size_t cm_len);
void mca_btl_rwv_verbs_reject (mca_btl_rwv_rail_t *rail, void *request);
void mca_btl_rwv_verbs_disconnect (struct mca_btl_rwv_conn_t *conn);
int mca_btl_rwv_verbs_poll_connections (mca_btl_rwv_rail_t *rail);
mca_btl_rwv_cm_state_t mca_btl_rwv_verbs_cm_state (mca_btl_rwv_rail_t *rail, bool data);
int mca_btl_rwv_verbs_post_recvs (mca_btl_rwv_verbs_qp_t *vqp, int count);

/* btl_rwv_rail_verbs_caps.c: asks the device what it can do, fits the
 * rail's queues to it (creating its CQ) and says so at btl_base_verbose
 * 20; OPAL_ERR_NOT_SUPPORTED once the user is told what is missing */
int mca_btl_rwv_verbs_caps (mca_btl_rwv_verbs_rail_t *rail);

END_C_DECLS

#endif /* MCA_BTL_RWV_RAIL_VERBS_H */
