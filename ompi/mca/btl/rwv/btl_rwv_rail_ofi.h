/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * The libfabric rail backend's own objects, shared by its two files:
 * btl_rwv_rail_ofi.c (connections, data, progress) and
 * btl_rwv_rail_ofi_discover.c (which interfaces become rails).
 */
#ifndef MCA_BTL_RWV_RAIL_OFI_H
#define MCA_BTL_RWV_RAIL_OFI_H

#include <poll.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>

#include "opal/class/opal_free_list.h"
#include "opal/class/opal_list.h"
#include "rwv_opal_compat.h"

#include "btl_rwv_conn.h"
#include "btl_rwv_rail.h"

BEGIN_C_DECLS

#define RWV_OFI_API FI_VERSION(1, 11)
#define RWV_OFI_CM_MAX 256
#define RWV_OFI_MAX_CQS 4

/* A completion queue and how many endpoints are bound to it. */
typedef struct mca_btl_rwv_ofi_cq_t {
    struct fid_cq *cq;         /* NULL: a free slot */
    int eps;
    struct pollfd *watched;    /* its descriptors as put in data_fd's set (mca_btl_rwv_ofi_data_sync) */
    int nwatched;
} mca_btl_rwv_ofi_cq_t;

typedef struct mca_btl_rwv_ofi_rail_t {
    mca_btl_rwv_rail_t super;
    struct fi_info *info[MCA_BTL_RWV_FAMILIES]; /* of each family the rail listens in, else NULL */
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_eq *eq;
    /* btl_rwv_async_progress: the queues' descriptors (FI_WAIT_POLLFD),
     * copied here by mca_btl_rwv_ofi_data_sync, to fill super.data_fd's set */
    struct pollfd *wait_fds;
    size_t wait_fds_len;
    /* new endpoints bind to cqs[cq_now]; one retired by a closing that
     * may have damaged it (see mca_btl_rwv_ofi_cq_taint) is read until its
     * last endpoint is closed */
    mca_btl_rwv_ofi_cq_t cqs[RWV_OFI_MAX_CQS];
    int cq_now;
    bool cq_tainted;
    struct fid_pep *pep[MCA_BTL_RWV_FAMILIES];  /* one listener per family, on one event queue */
    uint64_t next_key;      /* keys we choose, where the provider lets us */
    bool prov_key;
    int ioctl_fd;           /* for link checks */
    opal_free_list_t batches; /* writes posted as one message (mca_btl_rwv_ofi_batch_t) */
    /* where the provider carries no remote CQ data (btl_rwv_rail_ofi_notify.c) */
    int recv_depth;         /* receives each endpoint keeps posted for those sends */
    struct fid_mr *sink_mr; /* where they land */
    void *sink_desc;
    uint64_t sink;
    opal_mutex_t lock;      /* owing, and an endpoint's closing against its receives' reposting */
    opal_list_t owing;      /* endpoints owing sends a full queue refused (their item) */
    opal_list_t closed;     /* endpoints closed before all their receives were reported */
    opal_list_t abandoned;  /* endpoints whose connection gave them up while they connected:
                             * closed at their last event, or when the rail closes */
} mca_btl_rwv_ofi_rail_t;

/* Writes posted as one message: its one completion is each write's, in order. */
typedef struct mca_btl_rwv_ofi_batch_t {
    mca_btl_rwv_op_t op;
    mca_btl_rwv_ofi_rail_t *rail;
    int count;
    mca_btl_rwv_op_t *ops[MCA_BTL_RWV_MAX_BATCH];
} mca_btl_rwv_ofi_batch_t;
OBJ_CLASS_DECLARATION(mca_btl_rwv_ofi_batch_t);

struct mca_btl_rwv_ofi_ep_t;

/* A receive posted for a notifying send: its completion is an op's. */
typedef struct mca_btl_rwv_ofi_recv_t {
    mca_btl_rwv_op_t op;
    struct mca_btl_rwv_ofi_ep_t *oep;
} mca_btl_rwv_ofi_recv_t;

/* One endpoint's context: outlives an abandoned connection attempt until
 * the provider has said its last word about it, and a closed endpoint
 * until its receives are reported (they point here). */
typedef struct mca_btl_rwv_ofi_ep_t {
    struct fid_ep *ep;
    mca_btl_rwv_ofi_rail_t *rail;
    int cq_slot;                /* its completion queue in rail->cqs */
    struct mca_btl_rwv_conn_t *conn;   /* NULL once abandoned */
    bool connecting;            /* an event for it is still to come */
    bool abandoned;             /* on rail->abandoned */
    /* rail->super.notify_by_send only */
    mca_btl_rwv_ofi_recv_t *recvs;     /* rail->recv_depth of them */
    int recvs_out;              /* posted and not yet reported (atomic) */
    bool closed;                /* being closed: receives reported are not posted again (rail->lock) */
    unsigned sends_owed;        /* under rail->lock */
    opal_list_item_t item;      /* on rail->abandoned, on rail->owing while sends_owed, or on
                                 * rail->closed once closed */
} mca_btl_rwv_ofi_ep_t;

static inline mca_btl_rwv_ofi_ep_t *mca_btl_rwv_ofi_ep_of_item (opal_list_item_t *item)
{
    return (mca_btl_rwv_ofi_ep_t *) ((char *) item - offsetof (mca_btl_rwv_ofi_ep_t, item));
}

static inline mca_btl_rwv_ofi_rail_t *mca_btl_rwv_ofi_rail_of (mca_btl_rwv_rail_t *rail)
{
    return (mca_btl_rwv_ofi_rail_t *) rail;
}

static inline struct fid_ep *mca_btl_rwv_ofi_ep_of (const struct mca_btl_rwv_conn_t *conn)
{
    return ((mca_btl_rwv_ofi_ep_t *) conn->backend)->ep;
}

/* btl_rwv_rail_ofi.c: data, memory, links */
extern const mca_btl_rwv_rail_ops_t mca_btl_rwv_ofi_ops;

/* btl_rwv_rail_ofi_cm.c: connections, the rail ops of that name */
int mca_btl_rwv_ofi_connect (mca_btl_rwv_rail_t *r, struct mca_btl_rwv_conn_t *conn, const void *cm, size_t cm_len);
int mca_btl_rwv_ofi_accept (mca_btl_rwv_rail_t *r, struct mca_btl_rwv_conn_t *conn, void *request, const void *cm,
                            size_t cm_len);
void mca_btl_rwv_ofi_reject (mca_btl_rwv_rail_t *r, void *request);
void mca_btl_rwv_ofi_disconnect (struct mca_btl_rwv_conn_t *conn);
int mca_btl_rwv_ofi_poll_connections (mca_btl_rwv_rail_t *r);
mca_btl_rwv_cm_state_t mca_btl_rwv_ofi_cm_state (mca_btl_rwv_rail_t *r, bool data);
/* before the rail's queues close: the endpoints still connecting */
void mca_btl_rwv_ofi_close_abandoned (mca_btl_rwv_ofi_rail_t *rail);

/* btl_rwv_rail_ofi_cq.c: the rail's completion queues */
int mca_btl_rwv_ofi_cq_open (mca_btl_rwv_ofi_rail_t *rail, int slot);
void mca_btl_rwv_ofi_cq_close (mca_btl_rwv_ofi_rail_t *rail, int slot);
/* the rail op data_sync: every queue's descriptors in data_fd's set */
void mca_btl_rwv_ofi_data_sync (mca_btl_rwv_rail_t *r);
/* the edges data_fd holds taken, by the connection thread's look */
void mca_btl_rwv_ofi_data_harvest (mca_btl_rwv_rail_t *r);
/* the queue a new endpoint binds to; released when it closes */
int mca_btl_rwv_ofi_cq_for_new_ep (mca_btl_rwv_ofi_rail_t *rail);
void mca_btl_rwv_ofi_cq_release (mca_btl_rwv_ofi_rail_t *rail, int slot);
/* an endpoint closing with puts or gets outstanding retires its queue */
void mca_btl_rwv_ofi_cq_taint (mca_btl_rwv_ofi_ep_t *oep);
int mca_btl_rwv_ofi_poll_completions (mca_btl_rwv_rail_t *rail);
/* btl_rwv_rail_ofi_discover.c: close what opening the rail made */
void mca_btl_rwv_ofi_rail_close (mca_btl_rwv_rail_t *rail);

/* btl_rwv_rail_ofi_notify.c: notifying sends where the provider carries
 * no remote CQ data.  Before anything can fail, and at close: */
void mca_btl_rwv_ofi_notify_construct (mca_btl_rwv_ofi_rail_t *rail);
void mca_btl_rwv_ofi_notify_destruct (mca_btl_rwv_ofi_rail_t *rail);
/* Does the rail notify by sends, and can it (false: no rail, said why)? */
bool mca_btl_rwv_ofi_notify_setup (mca_btl_rwv_ofi_rail_t *rail, const struct fi_info *info);
/* A new endpoint's context, before anything can fail. */
void mca_btl_rwv_ofi_ep_init (mca_btl_rwv_ofi_ep_t *oep, mca_btl_rwv_ofi_rail_t *rail);
/* A new endpoint's receives, posted before it connects: 0 or the
 * provider's negative error. */
int mca_btl_rwv_ofi_post_recvs (mca_btl_rwv_ofi_ep_t *oep);
/* The send after a write CONN's peer must notice (owed if refused). */
void mca_btl_rwv_ofi_notify (struct mca_btl_rwv_conn_t *conn);
/* Post the sends owed, where completions made room. */
void mca_btl_rwv_ofi_pay_sends (mca_btl_rwv_ofi_rail_t *rail);
/* Before an endpoint is closed: no receive of it is posted again, no
 * send owed to it is paid. */
void mca_btl_rwv_ofi_ep_retire (mca_btl_rwv_ofi_ep_t *oep);
/* After: its context is freed now, or once its receives are reported
 * (mca_btl_rwv_ofi_sweep_closed) or the rail closes. */
void mca_btl_rwv_ofi_ep_release (mca_btl_rwv_ofi_ep_t *oep);
/* Free the closed endpoints whose receives have all been reported;
 * under the module lock. */
void mca_btl_rwv_ofi_sweep_closed (mca_btl_rwv_ofi_rail_t *rail);

END_C_DECLS

#endif /* MCA_BTL_RWV_RAIL_OFI_H */
