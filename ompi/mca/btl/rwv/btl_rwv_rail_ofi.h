/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * The libfabric rail backend's own objects, shared by its two files:
 * btl_rwv_rail_ofi.c (connections, data, progress) and
 * btl_rwv_rail_ofi_discover.c (which interfaces become rails).
 */
#ifndef MCA_BTL_RWV_RAIL_OFI_H
#define MCA_BTL_RWV_RAIL_OFI_H

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>

#include "opal/class/opal_free_list.h"

#include "btl_rwv_rail.h"

BEGIN_C_DECLS

#define RWV_OFI_API FI_VERSION(1, 11)
#define RWV_OFI_CM_MAX 256
#define RWV_OFI_MAX_CQS 4

/* A completion queue and how many endpoints are bound to it. */
typedef struct mca_btl_rwv_ofi_cq_t {
    struct fid_cq *cq;         /* NULL: a free slot */
    int eps;
} mca_btl_rwv_ofi_cq_t;

typedef struct mca_btl_rwv_ofi_rail_t {
    mca_btl_rwv_rail_t super;
    struct fi_info *info[MCA_BTL_RWV_FAMILIES]; /* of each family the rail listens in, else NULL */
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_eq *eq;
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
} mca_btl_rwv_ofi_rail_t;

/* Writes posted as one message: its one completion is each write's, in order. */
typedef struct mca_btl_rwv_ofi_batch_t {
    mca_btl_rwv_op_t op;
    mca_btl_rwv_ofi_rail_t *rail;
    int count;
    mca_btl_rwv_op_t *ops[MCA_BTL_RWV_MAX_BATCH];
} mca_btl_rwv_ofi_batch_t;
OBJ_CLASS_DECLARATION(mca_btl_rwv_ofi_batch_t);

/* One endpoint's context: outlives an abandoned connection attempt until
 * the provider has said its last word about it. */
typedef struct mca_btl_rwv_ofi_ep_t {
    struct fid_ep *ep;
    mca_btl_rwv_ofi_rail_t *rail;
    int cq_slot;                /* its completion queue in rail->cqs */
    struct mca_btl_rwv_conn_t *conn;   /* NULL once abandoned */
    bool connecting;            /* an event for it is still to come */
} mca_btl_rwv_ofi_ep_t;

/* btl_rwv_rail_ofi.c */
extern const mca_btl_rwv_rail_ops_t mca_btl_rwv_ofi_ops;
int mca_btl_rwv_ofi_cq_open (mca_btl_rwv_ofi_rail_t *rail, int slot);
/* btl_rwv_rail_ofi_discover.c: close what opening the rail made */
void mca_btl_rwv_ofi_rail_close (mca_btl_rwv_rail_t *rail);

END_C_DECLS

#endif /* MCA_BTL_RWV_RAIL_OFI_H */
