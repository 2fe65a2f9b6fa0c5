/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * The one-round request engine behind rdmabar's linear collectives
 * (coll_rdmabar_nbc.c for intra-, coll_rdmabar_inter.c for
 * intercommunicators).
 *
 * A request is a list of local copies, receives and sends, all posted at
 * start; a progress function notices when the last of them completed, then
 * runs the local reduction, if any, in rank order (so non-commutative
 * operations are right too).  Nothing blocks, so any mix of nonblocking
 * collectives and point-to-point traffic progresses; a blocking collective
 * is a request started and waited for.
 * Layer: helpers (docs/layout.md).
 */
#include "ompi_config.h"

#include "mpi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opal/class/opal_list.h"
#include "opal/runtime/opal_progress.h"
#include "rwv_ompi_compat.h"
#include "ompi/communicator/communicator.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/pml/pml.h"
#include "ompi/request/request.h"

#include "coll_rdmabar.h"
#include "coll_rdmabar_fill.h"
#include "coll_rdmabar_request.h"

enum { RDMABAR_COPY, RDMABAR_RECV, RDMABAR_SEND };

typedef struct rdmabar_xfer_t {
    int kind;
    int peer;
    const void *src;
    void *dst;
    rwv_compat_count_t count, dst_count;
    ompi_datatype_t *type, *dst_type;
} rdmabar_xfer_t;

/* a collective request as libmpi's wrappers see it (rwv_ompi_compat.h) */
OBJ_CLASS_DECLARATION(ompi_coll_base_nbc_request_t);

struct mca_coll_rdmabar_request_t {
    rwv_compat_nbc_request_t super;
    struct ompi_communicator_t *comm;
    int tag;
    int num_xfers;
    rdmabar_xfer_t *xfers;
    int num_reqs;
    ompi_request_t **reqs;
    bool active;            /* on the progress list */
    bool free_called;       /* freed by the user before it completed */

    /* run when everything arrived: result = contrib[0] op ... op contrib[n-1] */
    struct ompi_op_t *op;
    ompi_datatype_t *rtype;
    int rcount;
    int num_contrib;
    const void **contrib;
    void *result;
    char *acc;
    void *mem[2];           /* scratch allocations, freed with the request */
};

static void rdmabar_request_construct (mca_coll_rdmabar_request_t *req)
{
    req->xfers = NULL;
    req->reqs = NULL;
    req->contrib = NULL;
    req->op = NULL;
    req->rtype = NULL;
    req->mem[0] = req->mem[1] = NULL;
}

static void rdmabar_request_destruct (mca_coll_rdmabar_request_t *req)
{
    for (int i = 0 ; i < req->num_xfers ; ++i) {
        OBJ_RELEASE(req->xfers[i].type);
        if (RDMABAR_COPY == req->xfers[i].kind) {
            OBJ_RELEASE(req->xfers[i].dst_type);
        }
    }
    if (NULL != req->op) {
        OBJ_RELEASE(req->op);
        OBJ_RELEASE(req->rtype);
    }
    free (req->xfers);
    free (req->reqs);
    free (req->contrib);
    free (req->mem[0]);
    free (req->mem[1]);
    OMPI_REQUEST_FINI(&req->super.super);
}

static OBJ_CLASS_INSTANCE(mca_coll_rdmabar_request_t, ompi_coll_base_nbc_request_t, rdmabar_request_construct,
                          rdmabar_request_destruct);

/* ------------------------------------------------------------ progress */

static opal_list_t rdmabar_active;
static opal_mutex_t rdmabar_active_lock;
static bool rdmabar_progress_registered;

/* NULL when this libmpi's collective requests are laid out as
 * rwv_ompi_compat.h mirrors them, else why not: configure compared the
 * mirror with the headers and library it built against; a libmpi
 * upgraded since is compared here, as it is loaded, by the sizes of its
 * request classes. */
static const char *rdmabar_nbc_layout_problem (void)
{
    static char why[256];

    if (1 != RDMABAR_NBC_LAYOUT) {
        return "configure found this Open MPI's collective requests laid out otherwise than rdmabar mirrors them";
    }
    if (ompi_request_t_class.cls_sizeof != sizeof (ompi_request_t) ||
        ompi_coll_base_nbc_request_t_class.cls_sizeof != sizeof (rwv_compat_nbc_request_t)) {
        snprintf (why, sizeof (why),
                  "the libmpi loaded has %zu- and %zu-byte requests where rdmabar was built for %zu and %zu "
                  "(Open MPI changed under it: rebuild ompi-rwv)",
                  ompi_request_t_class.cls_sizeof, ompi_coll_base_nbc_request_t_class.cls_sizeof,
                  sizeof (ompi_request_t), sizeof (rwv_compat_nbc_request_t));
        return why;
    }
    return NULL;
}

static char rdmabar_nbc_why[400]; /* empty while the layout matches */

void mca_coll_rdmabar_nbc_open (void)
{
    const char *problem = rdmabar_nbc_layout_problem ();

    OBJ_CONSTRUCT(&rdmabar_active, opal_list_t);
    OBJ_CONSTRUCT(&rdmabar_active_lock, opal_mutex_t);
    rdmabar_progress_registered = false;
    rdmabar_nbc_why[0] = '\0';
    if (NULL != problem) {
        snprintf (rdmabar_nbc_why, sizeof (rdmabar_nbc_why),
                  "rdmabar supplies no nonblocking or persistent collective: %s", problem);
    }
}

bool mca_coll_rdmabar_nbc_usable (void)
{
    return '\0' == rdmabar_nbc_why[0];
}

const char *mca_coll_rdmabar_nbc_why (void)
{
    return rdmabar_nbc_why;
}

static int rdmabar_progress (void);

void mca_coll_rdmabar_nbc_close (void)
{
    if (rdmabar_progress_registered) {
        opal_progress_unregister (rdmabar_progress);
    }
    OBJ_DESTRUCT(&rdmabar_active);
    OBJ_DESTRUCT(&rdmabar_active_lock);
}

static void rdmabar_reduce (mca_coll_rdmabar_request_t *req)
{
    int n = req->num_contrib;

    if (NULL == req->result || 0 == n || 0 == req->rcount) {
        return;
    }
    ompi_datatype_copy_content_same_ddt (req->rtype, req->rcount, req->acc, (char *) req->contrib[n - 1]);
    for (int i = n - 2 ; i >= 0 ; --i) {
        /* acc = contrib[i] op acc keeps rank order (op.h is not installed) */
        (void) PMPI_Reduce_local (req->contrib[i], req->acc, req->rcount, req->rtype, req->op);
    }
    ompi_datatype_copy_content_same_ddt (req->rtype, req->rcount, req->result, req->acc);
}

static void rdmabar_finish (mca_coll_rdmabar_request_t *req)
{
    if (NULL != req->op && MPI_SUCCESS == req->super.super.req_status.MPI_ERROR) {
        rdmabar_reduce (req);
    }
    if (req->free_called) {
        OBJ_RELEASE(req);
        return;
    }
    ompi_request_complete (&req->super.super, true);
}

/* Reap what completed; true once nothing is outstanding. */
static bool rdmabar_arrived (mca_coll_rdmabar_request_t *req)
{
    for (int i = 0 ; i < req->num_reqs ; ++i) {
        ompi_request_t *sub = req->reqs[i];

        if (NULL == sub) {
            continue;
        }
        if (!REQUEST_COMPLETE(sub)) {
            return false;
        }
        if (MPI_SUCCESS != sub->req_status.MPI_ERROR) {
            req->super.super.req_status.MPI_ERROR = sub->req_status.MPI_ERROR;
        }
        ompi_request_free (&req->reqs[i]);
        req->reqs[i] = NULL;
    }
    return true;
}

static int rdmabar_progress (void)
{
    mca_coll_rdmabar_request_t *req, *next;
    int completed = 0;

    if (opal_list_is_empty (&rdmabar_active) || 0 != OPAL_THREAD_TRYLOCK(&rdmabar_active_lock)) {
        return 0;
    }
    OPAL_LIST_FOREACH_SAFE(req, next, &rdmabar_active, mca_coll_rdmabar_request_t) {
        if (rdmabar_arrived (req)) {
            opal_list_remove_item (&rdmabar_active, &req->super.super.super.super);
            req->active = false;
            rdmabar_finish (req);
            ++completed;
        }
    }
    OPAL_THREAD_UNLOCK(&rdmabar_active_lock);
    return completed;
}

/* ------------------------------------------------------------ requests */

static int rdmabar_post (mca_coll_rdmabar_request_t *req, const rdmabar_xfer_t *x, ompi_request_t **sub)
{
    if (RDMABAR_RECV == x->kind) {
        return MCA_PML_CALL(irecv (x->dst, x->count, x->type, x->peer, req->tag, req->comm, sub));
    }
    return MCA_PML_CALL(isend (x->src, x->count, x->type, x->peer, req->tag, MCA_PML_BASE_SEND_STANDARD,
                               req->comm, sub));
}

/* Copies first (an in-place exchange saves its blocks before receives
 * land on them), then receives, then sends. */
static int rdmabar_start (mca_coll_rdmabar_request_t *req)
{
    int rc = OMPI_SUCCESS;

    req->super.super.req_state = OMPI_REQUEST_ACTIVE;
    req->super.super.req_complete = REQUEST_PENDING;
    req->super.super.req_status.MPI_ERROR = MPI_SUCCESS;
    req->super.super.req_status._cancelled = 0;
    req->num_reqs = 0;
    for (int i = 0 ; i < req->num_xfers && OMPI_SUCCESS == rc ; ++i) {
        const rdmabar_xfer_t *x = &req->xfers[i];
        if (RDMABAR_COPY == x->kind) {
            rc = ompi_datatype_sndrcv (x->src, x->count, x->type, x->dst, x->dst_count, x->dst_type);
        }
    }
    for (int kind = RDMABAR_RECV ; kind <= RDMABAR_SEND ; ++kind) {
        for (int i = 0 ; i < req->num_xfers && OMPI_SUCCESS == rc ; ++i) {
            if (kind == req->xfers[i].kind) {
                rc = rdmabar_post (req, &req->xfers[i], &req->reqs[req->num_reqs]);
                req->num_reqs += OMPI_SUCCESS == rc;
            }
        }
    }
    if (OMPI_SUCCESS != rc) {
        /* what was posted still completes; the error surfaces at the wait */
        req->super.super.req_status.MPI_ERROR = rc;
    }
    if (0 == req->num_reqs) {
        rdmabar_finish (req);
        return OMPI_SUCCESS;
    }
    OPAL_THREAD_LOCK(&rdmabar_active_lock);
    if (!rdmabar_progress_registered) {
        rdmabar_progress_registered = true;
        opal_progress_register (rdmabar_progress);
    }
    req->active = true;
    opal_list_append (&rdmabar_active, &req->super.super.super.super);
    OPAL_THREAD_UNLOCK(&rdmabar_active_lock);
    return OMPI_SUCCESS;
}

static int rdmabar_start_persistent (size_t count, ompi_request_t **requests)
{
    for (size_t i = 0 ; i < count ; ++i) {
        int rc = rdmabar_start ((mca_coll_rdmabar_request_t *) requests[i]);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
    }
    return OMPI_SUCCESS;
}

/* A request freed while its transfers are in flight is released by the
 * progress function when they end. */
static int rdmabar_request_free (ompi_request_t **request)
{
    mca_coll_rdmabar_request_t *req = (mca_coll_rdmabar_request_t *) *request;
    bool in_flight;

    OPAL_THREAD_LOCK(&rdmabar_active_lock);
    in_flight = req->active;
    req->free_called = in_flight;
    OPAL_THREAD_UNLOCK(&rdmabar_active_lock);
    if (!in_flight) {
        OBJ_RELEASE(req);
    }
    *request = MPI_REQUEST_NULL;
    return OMPI_SUCCESS;
}

int mca_coll_rdmabar_req_new (struct ompi_communicator_t *comm, int tag, int max_xfers, bool persistent,
                              mca_coll_rdmabar_request_t **out)
{
    mca_coll_rdmabar_request_t *req = OBJ_NEW(mca_coll_rdmabar_request_t);

    *out = req;
    if (NULL == req) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    OMPI_REQUEST_INIT(&req->super.super, persistent);
    req->super.super.req_type = OMPI_REQUEST_COLL;
    req->super.super.req_mpi_object.comm = comm;
    req->super.super.req_free = rdmabar_request_free;
    req->super.super.req_start = persistent ? rdmabar_start_persistent : NULL;
    req->comm = comm;
    req->tag = tag;
    req->num_xfers = req->num_reqs = 0;
    req->active = req->free_called = false;
    req->num_contrib = 0;
    req->result = NULL;
    req->xfers = malloc ((size_t) (max_xfers + 1) * sizeof (*req->xfers));
    req->reqs = malloc ((size_t) (max_xfers + 1) * sizeof (*req->reqs));
    return NULL == req->xfers || NULL == req->reqs ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
}

static void rdmabar_add (mca_coll_rdmabar_request_t *req, int kind, int peer, const void *src, rwv_compat_count_t count,
                         ompi_datatype_t *type, void *dst, int dst_count, ompi_datatype_t *dst_type)
{
    rdmabar_xfer_t *x = &req->xfers[req->num_xfers++];

    x->kind = kind;
    x->peer = peer;
    x->src = src;
    x->count = count;
    x->type = type;
    x->dst = dst;
    x->dst_count = dst_count;
    x->dst_type = dst_type;
    OBJ_RETAIN(type);
    if (RDMABAR_COPY == kind) {
        OBJ_RETAIN(dst_type);
    }
}

void mca_coll_rdmabar_req_send (mca_coll_rdmabar_request_t *req, const void *buf, rwv_compat_count_t count,
                                ompi_datatype_t *type, int peer)
{
    rdmabar_add (req, RDMABAR_SEND, peer, buf, count, type, NULL, 0, NULL);
}

void mca_coll_rdmabar_req_recv (mca_coll_rdmabar_request_t *req, void *buf, rwv_compat_count_t count,
                                ompi_datatype_t *type, int peer)
{
    rdmabar_add (req, RDMABAR_RECV, peer, NULL, count, type, buf, count, NULL);
}

void mca_coll_rdmabar_req_copy (mca_coll_rdmabar_request_t *req, const void *src, rwv_compat_count_t count,
                                ompi_datatype_t *type, void *dst, int dst_count, ompi_datatype_t *dst_type)
{
    rdmabar_add (req, RDMABAR_COPY, -1, src, count, type, dst, dst_count, dst_type);
}

/* n buffers of count elements of type, kept with the request; buffer k
 * starts at the returned pointer + k * *stride. */
static char *rdmabar_buffers (mca_coll_rdmabar_request_t *req, int n, ompi_datatype_t *type, rwv_compat_count_t count,
                              ptrdiff_t *stride)
{
    ptrdiff_t gap, span = opal_datatype_span (&type->super, count, &gap);
    int slot = NULL == req->mem[0] ? 0 : 1;

    req->mem[slot] = malloc ((size_t) (span * (n > 0 ? n : 1)) + 1);
    *stride = span;
    return NULL == req->mem[slot] ? NULL : (char *) req->mem[slot] - gap;
}

/* Receive vectors of recv_count elements from the ranks in [first, last)
 * other than me (me < 0: from all of them), take mine as me's, and make the
 * request reduce elements [offset, offset + count) of them, in rank order,
 * into result when they are all in. */
static int rdmabar_reduction (mca_coll_rdmabar_request_t *req, const void *mine, int me, int first, int last,
                              int recv_count, int offset, rwv_compat_count_t count, ompi_datatype_t *type,
                              struct ompi_op_t *op, void *result)
{
    ptrdiff_t stride, acc_stride, lb, extent;
    char *slots = rdmabar_buffers (req, last - first, type, recv_count, &stride);

    req->acc = rdmabar_buffers (req, 1, type, count, &acc_stride);
    req->contrib = calloc ((size_t) (last - first + 1), sizeof (*req->contrib));
    if (NULL == slots || NULL == req->acc || NULL == req->contrib) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    ompi_datatype_get_extent (type, &lb, &extent);
    for (int p = first ; p < last ; ++p) {
        char *slot = slots + (ptrdiff_t) (p - first) * stride;

        if (p == me) {
            req->contrib[p - first] = (const char *) mine + (ptrdiff_t) offset * extent;
        } else {
            req->contrib[p - first] = slot + (ptrdiff_t) offset * extent;
            mca_coll_rdmabar_req_recv (req, slot, recv_count, type, p);
        }
    }
    req->num_contrib = last - first;
    req->op = op;
    req->rtype = type;
    req->rcount = count;
    req->result = result;
    OBJ_RETAIN(op);
    OBJ_RETAIN(type);
    return OMPI_SUCCESS;
}

int mca_coll_rdmabar_req_reduction (mca_coll_rdmabar_request_t *req, const void *mine, int first, int last,
                                    rwv_compat_count_t count, ompi_datatype_t *type, struct ompi_op_t *op, void *result)
{
    return rdmabar_reduction (req, mine, ompi_comm_rank (req->comm), first, last, count, 0, count, type, op,
                              result);
}

int mca_coll_rdmabar_req_reduction_remote (mca_coll_rdmabar_request_t *req, int recv_count, int offset,
                                           rwv_compat_count_t count, ompi_datatype_t *type, struct ompi_op_t *op,
                                           void *result)
{
    return rdmabar_reduction (req, NULL, -1, 0, ompi_comm_remote_size (req->comm), recv_count, offset, count,
                              type, op, result);
}

/* ------------------------------------------------------------ in-place exchanges */

/* An in-place exchange sends the blocks it is about to overwrite: the
 * request copies them at each start into a scratch buffer laid out alike. */
int mca_coll_rdmabar_req_mirror (mca_coll_rdmabar_request_t *req, const mca_coll_rdmabar_layout_t *r,
                                 mca_coll_rdmabar_layout_t *mirror)
{
    int me = ompi_comm_rank (req->comm), size = ompi_comm_size (req->comm);
    ptrdiff_t lo = PTRDIFF_MAX, hi = PTRDIFF_MIN;
    char *mem;

    for (int p = 0 ; p < size ; ++p) {
        ptrdiff_t gap, span = opal_datatype_span (&mca_coll_rdmabar_layout_type (r, p)->super,
                                                  mca_coll_rdmabar_layout_count (r, p), &gap);
        ptrdiff_t start = mca_coll_rdmabar_layout_at (r, p) - r->base + gap;

        if (p != me && span > 0) {
            lo = start < lo ? start : lo;
            hi = start + span > hi ? start + span : hi;
        }
    }
    *mirror = *r;
    if (lo >= hi) {
        return OMPI_SUCCESS;   /* nothing to send */
    }
    mem = malloc ((size_t) (hi - lo));
    if (NULL == mem) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    req->mem[0] = mem;
    mirror->base = mem - lo;
    for (int p = 0 ; p < size ; ++p) {
        if (p != me) {
            mca_coll_rdmabar_req_copy (req, mca_coll_rdmabar_layout_at (r, p), mca_coll_rdmabar_layout_count (r, p),
                                       mca_coll_rdmabar_layout_type (r, p), mca_coll_rdmabar_layout_at (mirror, p),
                                       mca_coll_rdmabar_layout_count (r, p), mca_coll_rdmabar_layout_type (r, p));
        }
    }
    return OMPI_SUCCESS;
}

/* ------------------------------------------------------------ handing out */

/* Hand a built request to the caller, started unless persistent. */
int mca_coll_rdmabar_req_launch (int rc, mca_coll_rdmabar_request_t **req, ompi_request_t **request, bool start)
{
    if (OMPI_SUCCESS != rc) {
        if (NULL != *req) {
            OBJ_RELEASE(*req);
        }
        return rc;
    }
    *request = &(*req)->super.super;
    return start ? rdmabar_start (*req) : OMPI_SUCCESS;
}

int mca_coll_rdmabar_req_run (int rc, mca_coll_rdmabar_request_t **req)
{
    ompi_request_t *request;

    rc = mca_coll_rdmabar_req_launch (rc, req, &request, true);
    return OMPI_SUCCESS == rc ? ompi_request_wait (&request, MPI_STATUS_IGNORE) : rc;
}
