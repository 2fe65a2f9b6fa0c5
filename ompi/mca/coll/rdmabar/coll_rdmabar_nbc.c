/*
 * Nonblocking and persistent collectives for a communicator on which no
 * other coll component supplies them (`--mca coll rdmabar` alone), and the
 * three blocking ones libmpi has no base algorithm for (gatherv, scatterv,
 * alltoallw).
 *
 * Every collective here is one round: a request is a list of local copies,
 * receives and sends, all posted at start; a progress function notices
 * when the last of them completed, then runs the local reduction, if any,
 * in rank order (so non-commutative operations are right too).  Linear in
 * the number of ranks, which is the right trade for a fallback: short code
 * whose correctness is easy to see, and nothing that blocks, so any mix of
 * nonblocking collectives and point-to-point traffic progresses.
 *
 * Each collective uses its blocking counterpart's base tag.  MPI orders
 * collectives alike on every rank and the PML matches in order per peer and
 * tag, so a pending operation and a later one never take each other's data.
 */
#include "ompi_config.h"

#include "mpi.h"

#include <stdlib.h>
#include <string.h>

#include "opal/class/opal_list.h"
#include "opal/runtime/opal_progress.h"
#include "opal/threads/mutex.h"
#include "ompi/communicator/communicator.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/coll/base/coll_tags.h"
#include "ompi/mca/pml/pml.h"
#include "ompi/request/request.h"

#include "coll_rdmabar.h"

enum { RDMABAR_COPY, RDMABAR_RECV, RDMABAR_SEND };

typedef struct rdmabar_xfer_t {
    int kind;
    int peer;
    const void *src;
    void *dst;
    int count, dst_count;
    ompi_datatype_t *type, *dst_type;
} rdmabar_xfer_t;

/* Open MPI 4.1's MPI_I<coll> and MPI_<coll>_init wrappers treat every
 * collective request as an ompi_coll_base_nbc_request_t: they keep
 * user-defined ops and datatypes alive in its fields (a completion and a
 * free callback with data, two object pointers) until completion.  Its
 * header, coll_base_util.h, cannot be included (it needs op.h, which is not
 * installed), so this mirrors its layout; mca_coll_rdmabar_nbc_open checks
 * the size against libmpi's class before anything relies on it. */
typedef struct mca_coll_rdmabar_nbc_base_t {
    ompi_request_t super;
    void *cb;
    void *cb_data;
    void *objs[2];
} mca_coll_rdmabar_nbc_base_t;
OBJ_CLASS_DECLARATION(ompi_coll_base_nbc_request_t);

typedef struct mca_coll_rdmabar_request_t {
    mca_coll_rdmabar_nbc_base_t super;
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
} mca_coll_rdmabar_request_t;

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

/* false when this libmpi's collective request is not laid out as mirrored
 * above: rdmabar then supplies no nonblocking or persistent collective */
bool mca_coll_rdmabar_nbc_open (void)
{
    OBJ_CONSTRUCT(&rdmabar_active, opal_list_t);
    OBJ_CONSTRUCT(&rdmabar_active_lock, opal_mutex_t);
    rdmabar_progress_registered = false;
    return sizeof (mca_coll_rdmabar_nbc_base_t) == ompi_coll_base_nbc_request_t_class.cls_sizeof;
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

static int rdmabar_new (struct ompi_communicator_t *comm, int tag, int max_xfers, bool persistent,
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

static void rdmabar_add (mca_coll_rdmabar_request_t *req, int kind, int peer, const void *src, int count,
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

static void rdmabar_send (mca_coll_rdmabar_request_t *req, const void *buf, int count, ompi_datatype_t *type, int peer)
{
    rdmabar_add (req, RDMABAR_SEND, peer, buf, count, type, NULL, 0, NULL);
}

static void rdmabar_recv (mca_coll_rdmabar_request_t *req, void *buf, int count, ompi_datatype_t *type, int peer)
{
    rdmabar_add (req, RDMABAR_RECV, peer, NULL, count, type, buf, count, NULL);
}

static void rdmabar_copy (mca_coll_rdmabar_request_t *req, const void *src, int count, ompi_datatype_t *type,
                          void *dst, int dst_count, ompi_datatype_t *dst_type)
{
    rdmabar_add (req, RDMABAR_COPY, -1, src, count, type, dst, dst_count, dst_type);
}

/* n buffers of count elements of type, kept with the request; buffer k
 * starts at the returned pointer + k * *stride. */
static char *rdmabar_buffers (mca_coll_rdmabar_request_t *req, int n, ompi_datatype_t *type, int count,
                              ptrdiff_t *stride)
{
    ptrdiff_t gap, span = opal_datatype_span (&type->super, count, &gap);
    int slot = NULL == req->mem[0] ? 0 : 1;

    req->mem[slot] = malloc ((size_t) (span * (n > 0 ? n : 1)) + 1);
    *stride = span;
    return NULL == req->mem[slot] ? NULL : (char *) req->mem[slot] - gap;
}

/* Receive the contributions of the ranks in [first, last) other than this
 * one, and make the request reduce them with mine, in rank order, into
 * result when they are all in. */
static int rdmabar_reduction (mca_coll_rdmabar_request_t *req, const void *mine, int first, int last,
                              int count, ompi_datatype_t *type, struct ompi_op_t *op, void *result)
{
    int me = ompi_comm_rank (req->comm);
    ptrdiff_t stride;
    char *slots = rdmabar_buffers (req, last - first, type, count, &stride);

    req->acc = rdmabar_buffers (req, 1, type, count, &stride);
    req->contrib = calloc ((size_t) (last - first + 1), sizeof (*req->contrib));
    if (NULL == slots || NULL == req->acc || NULL == req->contrib) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    for (int p = first ; p < last ; ++p) {
        void *slot = slots + (ptrdiff_t) (p - first) * stride;

        if (p == me) {
            req->contrib[p - first] = mine;
        } else {
            req->contrib[p - first] = slot;
            rdmabar_recv (req, slot, count, type, p);
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

/* ------------------------------------------------------------ layouts */

/* Where rank p's block sits in a gather/scatter/alltoall buffer: uniform
 * blocks, blocks at counts/displs (in extents of type), or, with types,
 * alltoallw's blocks at byte displacements. */
typedef struct rdmabar_layout_t {
    char *base;
    int count;
    const int *counts, *displs;
    ompi_datatype_t *type;
    ompi_datatype_t * const *types;
    ptrdiff_t extent;
} rdmabar_layout_t;

static rdmabar_layout_t rdmabar_layout (const void *base, int count, const int *counts, const int *displs,
                                        ompi_datatype_t *type, ompi_datatype_t * const *types)
{
    rdmabar_layout_t l = {(char *) base, count, counts, displs, type, types, 1};
    ptrdiff_t lb;

    if (NULL == types) {
        ompi_datatype_get_extent (type, &lb, &l.extent);
    }
    return l;
}

static char *rdmabar_at (const rdmabar_layout_t *l, int p)
{
    return l->base + (NULL != l->displs ? (ptrdiff_t) l->displs[p] : (ptrdiff_t) p * l->count) * l->extent;
}

static int rdmabar_count (const rdmabar_layout_t *l, int p)
{
    return NULL != l->counts ? l->counts[p] : l->count;
}

static ompi_datatype_t *rdmabar_type (const rdmabar_layout_t *l, int p)
{
    return NULL != l->types ? l->types[p] : l->type;
}

/* An in-place exchange sends the blocks it is about to overwrite: the
 * request copies them at each start into a scratch buffer laid out alike. */
static int rdmabar_mirror (mca_coll_rdmabar_request_t *req, const rdmabar_layout_t *r, rdmabar_layout_t *mirror)
{
    int me = ompi_comm_rank (req->comm), size = ompi_comm_size (req->comm);
    ptrdiff_t lo = PTRDIFF_MAX, hi = PTRDIFF_MIN;
    char *mem;

    for (int p = 0 ; p < size ; ++p) {
        ptrdiff_t gap, span = opal_datatype_span (&rdmabar_type (r, p)->super, rdmabar_count (r, p), &gap);
        ptrdiff_t start = rdmabar_at (r, p) - r->base + gap;

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
            rdmabar_copy (req, rdmabar_at (r, p), rdmabar_count (r, p), rdmabar_type (r, p),
                          rdmabar_at (mirror, p), rdmabar_count (r, p), rdmabar_type (r, p));
        }
    }
    return OMPI_SUCCESS;
}

/* ------------------------------------------------------------ the collectives */

typedef struct ompi_communicator_t comm_t;

static int build_barrier (comm_t *comm, bool persistent, mca_coll_rdmabar_request_t **out)
{
    int me = ompi_comm_rank (comm), size = ompi_comm_size (comm);
    int rc = rdmabar_new (comm, MCA_COLL_BASE_TAG_BARRIER, 2 * size, persistent, out);

    for (int p = 0 ; OMPI_SUCCESS == rc && p < size ; ++p) {
        if (p != me) {
            rdmabar_recv (*out, NULL, 0, MPI_BYTE, p);
            rdmabar_send (*out, NULL, 0, MPI_BYTE, p);
        }
    }
    return rc;
}

static int build_bcast (void *buf, int count, ompi_datatype_t *type, int root, comm_t *comm, bool persistent,
                        mca_coll_rdmabar_request_t **out)
{
    int me = ompi_comm_rank (comm), size = ompi_comm_size (comm);
    int rc = rdmabar_new (comm, MCA_COLL_BASE_TAG_BCAST, size, persistent, out);

    for (int p = 0 ; OMPI_SUCCESS == rc && p < size ; ++p) {
        if (me == root && p != root) {
            rdmabar_send (*out, buf, count, type, p);
        } else if (me != root && p == root) {
            rdmabar_recv (*out, buf, count, type, root);
        }
    }
    return rc;
}

static int build_gather (const void *sbuf, int scount, ompi_datatype_t *stype, const rdmabar_layout_t *r, int root,
                         comm_t *comm, int tag, bool persistent, mca_coll_rdmabar_request_t **out)
{
    int me = ompi_comm_rank (comm), size = ompi_comm_size (comm);
    int rc = rdmabar_new (comm, tag, size, persistent, out);

    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    if (me != root) {
        rdmabar_send (*out, sbuf, scount, stype, root);
        return rc;
    }
    for (int p = 0 ; p < size ; ++p) {
        if (p != me) {
            rdmabar_recv (*out, rdmabar_at (r, p), rdmabar_count (r, p), rdmabar_type (r, p), p);
        } else if (MPI_IN_PLACE != sbuf) {
            rdmabar_copy (*out, sbuf, scount, stype, rdmabar_at (r, p), rdmabar_count (r, p), rdmabar_type (r, p));
        }
    }
    return rc;
}

static int build_scatter (const rdmabar_layout_t *s, void *rbuf, int rcount, ompi_datatype_t *rtype, int root,
                          comm_t *comm, int tag, bool persistent, mca_coll_rdmabar_request_t **out)
{
    int me = ompi_comm_rank (comm), size = ompi_comm_size (comm);
    int rc = rdmabar_new (comm, tag, size, persistent, out);

    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    if (me != root) {
        rdmabar_recv (*out, rbuf, rcount, rtype, root);
        return rc;
    }
    for (int p = 0 ; p < size ; ++p) {
        if (p != me) {
            rdmabar_send (*out, rdmabar_at (s, p), rdmabar_count (s, p), rdmabar_type (s, p), p);
        } else if (MPI_IN_PLACE != rbuf) {
            rdmabar_copy (*out, rdmabar_at (s, p), rdmabar_count (s, p), rdmabar_type (s, p), rbuf, rcount, rtype);
        }
    }
    return rc;
}

static int build_allgather (const void *sbuf, int scount, ompi_datatype_t *stype, const rdmabar_layout_t *r,
                            comm_t *comm, int tag, bool persistent, mca_coll_rdmabar_request_t **out)
{
    int me = ompi_comm_rank (comm), size = ompi_comm_size (comm);
    int rc = rdmabar_new (comm, tag, 2 * size, persistent, out);

    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    if (MPI_IN_PLACE == sbuf) {
        sbuf = rdmabar_at (r, me);
        scount = rdmabar_count (r, me);
        stype = rdmabar_type (r, me);
    } else {
        rdmabar_copy (*out, sbuf, scount, stype, rdmabar_at (r, me), rdmabar_count (r, me), rdmabar_type (r, me));
    }
    for (int p = 0 ; p < size ; ++p) {
        if (p != me) {
            rdmabar_recv (*out, rdmabar_at (r, p), rdmabar_count (r, p), rdmabar_type (r, p), p);
            rdmabar_send (*out, sbuf, scount, stype, p);
        }
    }
    return rc;
}

/* s == NULL: in place */
static int build_alltoall (const rdmabar_layout_t *s, const rdmabar_layout_t *r, comm_t *comm, int tag,
                           bool persistent, mca_coll_rdmabar_request_t **out)
{
    int me = ompi_comm_rank (comm), size = ompi_comm_size (comm);
    int rc = rdmabar_new (comm, tag, 3 * size, persistent, out);
    rdmabar_layout_t mirror;

    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    if (NULL == s) {
        rc = rdmabar_mirror (*out, r, &mirror);
        s = &mirror;
    } else {
        rdmabar_copy (*out, rdmabar_at (s, me), rdmabar_count (s, me), rdmabar_type (s, me), rdmabar_at (r, me),
                      rdmabar_count (r, me), rdmabar_type (r, me));
    }
    for (int p = 0 ; OMPI_SUCCESS == rc && p < size ; ++p) {
        if (p != me) {
            rdmabar_recv (*out, rdmabar_at (r, p), rdmabar_count (r, p), rdmabar_type (r, p), p);
            rdmabar_send (*out, rdmabar_at (s, p), rdmabar_count (s, p), rdmabar_type (s, p), p);
        }
    }
    return rc;
}

/* reduce (root >= 0), allreduce (root < 0) */
static int build_reduce (const void *sbuf, void *rbuf, int count, ompi_datatype_t *type, struct ompi_op_t *op, int root,
                         comm_t *comm, int tag, bool persistent, mca_coll_rdmabar_request_t **out)
{
    int me = ompi_comm_rank (comm), size = ompi_comm_size (comm);
    int rc = rdmabar_new (comm, tag, 2 * size, persistent, out);
    const void *mine = MPI_IN_PLACE == sbuf ? rbuf : sbuf;

    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    for (int p = 0 ; p < size ; ++p) {
        if (p != me && (root < 0 || p == root)) {
            rdmabar_send (*out, mine, count, type, p);
        }
    }
    if (root < 0 || me == root) {
        rc = rdmabar_reduction (*out, mine, 0, size, count, type, op, rbuf);
    }
    return rc;
}

/* scan (inclusive) or exscan */
static int build_scan (const void *sbuf, void *rbuf, int count, ompi_datatype_t *type, struct ompi_op_t *op,
                       bool inclusive, comm_t *comm, int tag, bool persistent, mca_coll_rdmabar_request_t **out)
{
    int me = ompi_comm_rank (comm), size = ompi_comm_size (comm);
    int rc = rdmabar_new (comm, tag, size, persistent, out);
    const void *mine = MPI_IN_PLACE == sbuf ? rbuf : sbuf;
    int last = inclusive ? me + 1 : me;

    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    for (int p = me + 1 ; p < size ; ++p) {
        rdmabar_send (*out, mine, count, type, p);
    }
    if (last > 0) {
        rc = rdmabar_reduction (*out, mine, 0, last, count, type, op, rbuf);
    }
    return rc;
}

/* reduce_scatter: rank p gets the reduction of everyone's block p */
static int build_reduce_scatter (const void *sbuf, void *rbuf, int rcount, const int *rcounts, ompi_datatype_t *type,
                                 struct ompi_op_t *op, comm_t *comm, int tag, bool persistent,
                                 mca_coll_rdmabar_request_t **out)
{
    int me = ompi_comm_rank (comm), size = ompi_comm_size (comm);
    int rc = rdmabar_new (comm, tag, 2 * size, persistent, out);
    rdmabar_layout_t s;
    int *displs = NULL;

    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    if (NULL != rcounts) {
        displs = malloc ((size_t) size * sizeof (int));
        if (NULL == displs) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        for (int p = 0, d = 0 ; p < size ; d += rcounts[p++]) {
            displs[p] = d;
        }
    }
    s = rdmabar_layout (MPI_IN_PLACE == sbuf ? rbuf : sbuf, rcount, rcounts, displs, type, NULL);
    for (int p = 0 ; p < size ; ++p) {
        if (p != me) {
            rdmabar_send (*out, rdmabar_at (&s, p), rdmabar_count (&s, p), type, p);
        }
    }
    rc = rdmabar_reduction (*out, rdmabar_at (&s, me), 0, size, rdmabar_count (&s, me), type, op, rbuf);
    /* the per-peer sends captured their addresses; the layout is not kept */
    free (displs);
    return rc;
}

/* ------------------------------------------------------------ entry points */

/* Hand a built request to the caller, started unless persistent. */
static int rdmabar_launch (int rc, mca_coll_rdmabar_request_t **req, ompi_request_t **request, bool start)
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

static int rdmabar_run (int rc, mca_coll_rdmabar_request_t **req)
{
    ompi_request_t *request;

    rc = rdmabar_launch (rc, req, &request, true);
    return OMPI_SUCCESS == rc ? ompi_request_wait (&request, MPI_STATUS_IGNORE) : rc;
}

/* Each collective is written once with a `persistent' flag: the public
 * nonblocking and _init entry points differ only in it. */
#define RDMABAR_NB(build) do {                                               \
        mca_coll_rdmabar_request_t *req = NULL;                              \
        return rdmabar_launch (build, &req, request, !persistent);           \
    } while (0)

static int rdmabar_ibarrier_any (comm_t *comm, ompi_request_t **request, bool persistent)
{
    RDMABAR_NB(build_barrier (comm, persistent, &req));
}

int mca_coll_rdmabar_ibarrier (comm_t *comm, ompi_request_t **request, mca_coll_base_module_t *module)
{
    return rdmabar_ibarrier_any (comm, request, false);
}

int mca_coll_rdmabar_barrier_init (comm_t *comm, struct ompi_info_t *info, ompi_request_t **request,
                                   mca_coll_base_module_t *module)
{
    return rdmabar_ibarrier_any (comm, request, true);
}

static int rdmabar_ibcast_any (void *buf, int count, ompi_datatype_t *type, int root, comm_t *comm,
                               ompi_request_t **request, bool persistent)
{
    RDMABAR_NB(build_bcast (buf, count, type, root, comm, persistent, &req));
}

int mca_coll_rdmabar_ibcast (void *buf, int count, ompi_datatype_t *type, int root, comm_t *comm,
                             ompi_request_t **request, mca_coll_base_module_t *module)
{
    return rdmabar_ibcast_any (buf, count, type, root, comm, request, false);
}

int mca_coll_rdmabar_bcast_init (void *buf, int count, ompi_datatype_t *type, int root, comm_t *comm,
                                 struct ompi_info_t *info, ompi_request_t **request, mca_coll_base_module_t *module)
{
    return rdmabar_ibcast_any (buf, count, type, root, comm, request, true);
}

static int rdmabar_igatherv_any (const void *sbuf, int scount, ompi_datatype_t *stype, void *rbuf, int rcount,
                                 const int *rcounts, const int *displs, ompi_datatype_t *rtype, int root,
                                 comm_t *comm, int tag, ompi_request_t **request, bool persistent)
{
    rdmabar_layout_t r = rdmabar_layout (rbuf, rcount, rcounts, displs, rtype, NULL);
    RDMABAR_NB(build_gather (sbuf, scount, stype, &r, root, comm, tag, persistent, &req));
}

int mca_coll_rdmabar_igather (const void *sbuf, int scount, ompi_datatype_t *stype, void *rbuf, int rcount,
                              ompi_datatype_t *rtype, int root, comm_t *comm, ompi_request_t **request,
                              mca_coll_base_module_t *module)
{
    return rdmabar_igatherv_any (sbuf, scount, stype, rbuf, rcount, NULL, NULL, rtype, root, comm,
                                 MCA_COLL_BASE_TAG_GATHER, request, false);
}

int mca_coll_rdmabar_gather_init (const void *sbuf, int scount, ompi_datatype_t *stype, void *rbuf, int rcount,
                                  ompi_datatype_t *rtype, int root, comm_t *comm, struct ompi_info_t *info,
                                  ompi_request_t **request, mca_coll_base_module_t *module)
{
    return rdmabar_igatherv_any (sbuf, scount, stype, rbuf, rcount, NULL, NULL, rtype, root, comm,
                                 MCA_COLL_BASE_TAG_GATHER, request, true);
}

int mca_coll_rdmabar_igatherv (const void *sbuf, int scount, ompi_datatype_t *stype, void *rbuf, const int *rcounts,
                               const int *displs, ompi_datatype_t *rtype, int root, comm_t *comm,
                               ompi_request_t **request, mca_coll_base_module_t *module)
{
    return rdmabar_igatherv_any (sbuf, scount, stype, rbuf, 0, rcounts, displs, rtype, root, comm,
                                 MCA_COLL_BASE_TAG_GATHERV, request, false);
}

int mca_coll_rdmabar_gatherv_init (const void *sbuf, int scount, ompi_datatype_t *stype, void *rbuf,
                                   const int *rcounts, const int *displs, ompi_datatype_t *rtype, int root,
                                   comm_t *comm, struct ompi_info_t *info, ompi_request_t **request,
                                   mca_coll_base_module_t *module)
{
    return rdmabar_igatherv_any (sbuf, scount, stype, rbuf, 0, rcounts, displs, rtype, root, comm,
                                 MCA_COLL_BASE_TAG_GATHERV, request, true);
}

int mca_coll_rdmabar_gatherv (const void *sbuf, int scount, ompi_datatype_t *stype, void *rbuf, const int *rcounts,
                              const int *displs, ompi_datatype_t *rtype, int root, comm_t *comm,
                              mca_coll_base_module_t *module)
{
    mca_coll_rdmabar_request_t *req = NULL;
    rdmabar_layout_t r = rdmabar_layout (rbuf, 0, rcounts, displs, rtype, NULL);

    return rdmabar_run (build_gather (sbuf, scount, stype, &r, root, comm, MCA_COLL_BASE_TAG_GATHERV, false, &req),
                        &req);
}

static int rdmabar_iscatterv_any (const void *sbuf, int scount, const int *scounts, const int *displs,
                                  ompi_datatype_t *stype, void *rbuf, int rcount, ompi_datatype_t *rtype, int root,
                                  comm_t *comm, int tag, ompi_request_t **request, bool persistent)
{
    rdmabar_layout_t s = rdmabar_layout (sbuf, scount, scounts, displs, stype, NULL);
    RDMABAR_NB(build_scatter (&s, rbuf, rcount, rtype, root, comm, tag, persistent, &req));
}

int mca_coll_rdmabar_iscatter (const void *sbuf, int scount, ompi_datatype_t *stype, void *rbuf, int rcount,
                               ompi_datatype_t *rtype, int root, comm_t *comm, ompi_request_t **request,
                               mca_coll_base_module_t *module)
{
    return rdmabar_iscatterv_any (sbuf, scount, NULL, NULL, stype, rbuf, rcount, rtype, root, comm,
                                  MCA_COLL_BASE_TAG_SCATTER, request, false);
}

int mca_coll_rdmabar_scatter_init (const void *sbuf, int scount, ompi_datatype_t *stype, void *rbuf, int rcount,
                                   ompi_datatype_t *rtype, int root, comm_t *comm, struct ompi_info_t *info,
                                   ompi_request_t **request, mca_coll_base_module_t *module)
{
    return rdmabar_iscatterv_any (sbuf, scount, NULL, NULL, stype, rbuf, rcount, rtype, root, comm,
                                  MCA_COLL_BASE_TAG_SCATTER, request, true);
}

int mca_coll_rdmabar_iscatterv (const void *sbuf, const int *scounts, const int *displs, ompi_datatype_t *stype,
                                void *rbuf, int rcount, ompi_datatype_t *rtype, int root, comm_t *comm,
                                ompi_request_t **request, mca_coll_base_module_t *module)
{
    return rdmabar_iscatterv_any (sbuf, 0, scounts, displs, stype, rbuf, rcount, rtype, root, comm,
                                  MCA_COLL_BASE_TAG_SCATTERV, request, false);
}

int mca_coll_rdmabar_scatterv_init (const void *sbuf, const int *scounts, const int *displs, ompi_datatype_t *stype,
                                    void *rbuf, int rcount, ompi_datatype_t *rtype, int root, comm_t *comm,
                                    struct ompi_info_t *info, ompi_request_t **request, mca_coll_base_module_t *module)
{
    return rdmabar_iscatterv_any (sbuf, 0, scounts, displs, stype, rbuf, rcount, rtype, root, comm,
                                  MCA_COLL_BASE_TAG_SCATTERV, request, true);
}

int mca_coll_rdmabar_scatterv (const void *sbuf, const int *scounts, const int *displs, ompi_datatype_t *stype,
                               void *rbuf, int rcount, ompi_datatype_t *rtype, int root, comm_t *comm,
                               mca_coll_base_module_t *module)
{
    mca_coll_rdmabar_request_t *req = NULL;
    rdmabar_layout_t s = rdmabar_layout (sbuf, 0, scounts, displs, stype, NULL);

    return rdmabar_run (build_scatter (&s, rbuf, rcount, rtype, root, comm, MCA_COLL_BASE_TAG_SCATTERV, false, &req),
                        &req);
}

static int rdmabar_iallgatherv_any (const void *sbuf, int scount, ompi_datatype_t *stype, void *rbuf, int rcount,
                                    const int *rcounts, const int *displs, ompi_datatype_t *rtype, comm_t *comm,
                                    int tag, ompi_request_t **request, bool persistent)
{
    rdmabar_layout_t r = rdmabar_layout (rbuf, rcount, rcounts, displs, rtype, NULL);
    RDMABAR_NB(build_allgather (sbuf, scount, stype, &r, comm, tag, persistent, &req));
}

int mca_coll_rdmabar_iallgather (const void *sbuf, int scount, ompi_datatype_t *stype, void *rbuf, int rcount,
                                 ompi_datatype_t *rtype, comm_t *comm, ompi_request_t **request,
                                 mca_coll_base_module_t *module)
{
    return rdmabar_iallgatherv_any (sbuf, scount, stype, rbuf, rcount, NULL, NULL, rtype, comm,
                                    MCA_COLL_BASE_TAG_ALLGATHER, request, false);
}

int mca_coll_rdmabar_allgather_init (const void *sbuf, int scount, ompi_datatype_t *stype, void *rbuf, int rcount,
                                     ompi_datatype_t *rtype, comm_t *comm, struct ompi_info_t *info,
                                     ompi_request_t **request, mca_coll_base_module_t *module)
{
    return rdmabar_iallgatherv_any (sbuf, scount, stype, rbuf, rcount, NULL, NULL, rtype, comm,
                                    MCA_COLL_BASE_TAG_ALLGATHER, request, true);
}

int mca_coll_rdmabar_iallgatherv (const void *sbuf, int scount, ompi_datatype_t *stype, void *rbuf,
                                  const int *rcounts, const int *displs, ompi_datatype_t *rtype, comm_t *comm,
                                  ompi_request_t **request, mca_coll_base_module_t *module)
{
    return rdmabar_iallgatherv_any (sbuf, scount, stype, rbuf, 0, rcounts, displs, rtype, comm,
                                    MCA_COLL_BASE_TAG_ALLGATHERV, request, false);
}

int mca_coll_rdmabar_allgatherv_init (const void *sbuf, int scount, ompi_datatype_t *stype, void *rbuf,
                                      const int *rcounts, const int *displs, ompi_datatype_t *rtype, comm_t *comm,
                                      struct ompi_info_t *info, ompi_request_t **request,
                                      mca_coll_base_module_t *module)
{
    return rdmabar_iallgatherv_any (sbuf, scount, stype, rbuf, 0, rcounts, displs, rtype, comm,
                                    MCA_COLL_BASE_TAG_ALLGATHERV, request, true);
}

/* alltoall (counts NULL) and alltoallv */
static int rdmabar_ialltoallv_any (const void *sbuf, int scount, const int *scounts, const int *sdispls,
                                   ompi_datatype_t *stype, void *rbuf, int rcount, const int *rcounts,
                                   const int *rdispls, ompi_datatype_t *rtype, comm_t *comm, int tag,
                                   ompi_request_t **request, bool persistent)
{
    rdmabar_layout_t s = rdmabar_layout (sbuf, scount, scounts, sdispls, MPI_IN_PLACE == sbuf ? rtype : stype, NULL);
    rdmabar_layout_t r = rdmabar_layout (rbuf, rcount, rcounts, rdispls, rtype, NULL);
    RDMABAR_NB(build_alltoall (MPI_IN_PLACE == sbuf ? NULL : &s, &r, comm, tag, persistent, &req));
}

int mca_coll_rdmabar_ialltoall (const void *sbuf, int scount, ompi_datatype_t *stype, void *rbuf, int rcount,
                                ompi_datatype_t *rtype, comm_t *comm, ompi_request_t **request,
                                mca_coll_base_module_t *module)
{
    return rdmabar_ialltoallv_any (sbuf, scount, NULL, NULL, stype, rbuf, rcount, NULL, NULL, rtype, comm,
                                   MCA_COLL_BASE_TAG_ALLTOALL, request, false);
}

int mca_coll_rdmabar_alltoall_init (const void *sbuf, int scount, ompi_datatype_t *stype, void *rbuf, int rcount,
                                    ompi_datatype_t *rtype, comm_t *comm, struct ompi_info_t *info,
                                    ompi_request_t **request, mca_coll_base_module_t *module)
{
    return rdmabar_ialltoallv_any (sbuf, scount, NULL, NULL, stype, rbuf, rcount, NULL, NULL, rtype, comm,
                                   MCA_COLL_BASE_TAG_ALLTOALL, request, true);
}

int mca_coll_rdmabar_ialltoallv (const void *sbuf, const int *scounts, const int *sdispls, ompi_datatype_t *stype,
                                 void *rbuf, const int *rcounts, const int *rdispls, ompi_datatype_t *rtype,
                                 comm_t *comm, ompi_request_t **request, mca_coll_base_module_t *module)
{
    return rdmabar_ialltoallv_any (sbuf, 0, scounts, sdispls, stype, rbuf, 0, rcounts, rdispls, rtype, comm,
                                   MCA_COLL_BASE_TAG_ALLTOALLV, request, false);
}

int mca_coll_rdmabar_alltoallv_init (const void *sbuf, const int *scounts, const int *sdispls,
                                     ompi_datatype_t *stype, void *rbuf, const int *rcounts, const int *rdispls,
                                     ompi_datatype_t *rtype, comm_t *comm, struct ompi_info_t *info,
                                     ompi_request_t **request, mca_coll_base_module_t *module)
{
    return rdmabar_ialltoallv_any (sbuf, 0, scounts, sdispls, stype, rbuf, 0, rcounts, rdispls, rtype, comm,
                                   MCA_COLL_BASE_TAG_ALLTOALLV, request, true);
}

static int rdmabar_ialltoallw_any (const void *sbuf, const int *scounts, const int *sdispls,
                                   ompi_datatype_t * const *stypes, void *rbuf, const int *rcounts,
                                   const int *rdispls, ompi_datatype_t * const *rtypes, comm_t *comm,
                                   ompi_request_t **request, bool persistent)
{
    rdmabar_layout_t s = rdmabar_layout (sbuf, 0, scounts, sdispls, NULL, stypes);
    rdmabar_layout_t r = rdmabar_layout (rbuf, 0, rcounts, rdispls, NULL, rtypes);
    RDMABAR_NB(build_alltoall (MPI_IN_PLACE == sbuf ? NULL : &s, &r, comm, MCA_COLL_BASE_TAG_ALLTOALLW, persistent,
                               &req));
}

int mca_coll_rdmabar_ialltoallw (const void *sbuf, const int *scounts, const int *sdispls,
                                 ompi_datatype_t * const *stypes, void *rbuf, const int *rcounts,
                                 const int *rdispls, ompi_datatype_t * const *rtypes, comm_t *comm,
                                 ompi_request_t **request, mca_coll_base_module_t *module)
{
    return rdmabar_ialltoallw_any (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm, request,
                                   false);
}

int mca_coll_rdmabar_alltoallw_init (const void *sbuf, const int *scounts, const int *sdispls,
                                     ompi_datatype_t * const *stypes, void *rbuf, const int *rcounts,
                                     const int *rdispls, ompi_datatype_t * const *rtypes, comm_t *comm,
                                     struct ompi_info_t *info, ompi_request_t **request,
                                     mca_coll_base_module_t *module)
{
    return rdmabar_ialltoallw_any (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm, request,
                                   true);
}

int mca_coll_rdmabar_alltoallw (const void *sbuf, const int *scounts, const int *sdispls,
                                ompi_datatype_t * const *stypes, void *rbuf, const int *rcounts, const int *rdispls,
                                ompi_datatype_t * const *rtypes, comm_t *comm, mca_coll_base_module_t *module)
{
    mca_coll_rdmabar_request_t *req = NULL;
    rdmabar_layout_t s = rdmabar_layout (sbuf, 0, scounts, sdispls, NULL, stypes);
    rdmabar_layout_t r = rdmabar_layout (rbuf, 0, rcounts, rdispls, NULL, rtypes);

    return rdmabar_run (build_alltoall (MPI_IN_PLACE == sbuf ? NULL : &s, &r, comm, MCA_COLL_BASE_TAG_ALLTOALLW,
                                        false, &req), &req);
}

static int rdmabar_ireduce_any (const void *sbuf, void *rbuf, int count, ompi_datatype_t *type, struct ompi_op_t *op,
                                int root, comm_t *comm, int tag, ompi_request_t **request, bool persistent)
{
    RDMABAR_NB(build_reduce (sbuf, rbuf, count, type, op, root, comm, tag, persistent, &req));
}

int mca_coll_rdmabar_ireduce (const void *sbuf, void *rbuf, int count, ompi_datatype_t *type, struct ompi_op_t *op,
                              int root, comm_t *comm, ompi_request_t **request, mca_coll_base_module_t *module)
{
    return rdmabar_ireduce_any (sbuf, rbuf, count, type, op, root, comm, MCA_COLL_BASE_TAG_REDUCE, request, false);
}

int mca_coll_rdmabar_reduce_init (const void *sbuf, void *rbuf, int count, ompi_datatype_t *type, struct ompi_op_t *op,
                                  int root, comm_t *comm, struct ompi_info_t *info, ompi_request_t **request,
                                  mca_coll_base_module_t *module)
{
    return rdmabar_ireduce_any (sbuf, rbuf, count, type, op, root, comm, MCA_COLL_BASE_TAG_REDUCE, request, true);
}

int mca_coll_rdmabar_iallreduce (const void *sbuf, void *rbuf, int count, ompi_datatype_t *type, struct ompi_op_t *op,
                                 comm_t *comm, ompi_request_t **request, mca_coll_base_module_t *module)
{
    return rdmabar_ireduce_any (sbuf, rbuf, count, type, op, -1, comm, MCA_COLL_BASE_TAG_ALLREDUCE, request, false);
}

int mca_coll_rdmabar_allreduce_init (const void *sbuf, void *rbuf, int count, ompi_datatype_t *type, struct ompi_op_t *op,
                                     comm_t *comm, struct ompi_info_t *info, ompi_request_t **request,
                                     mca_coll_base_module_t *module)
{
    return rdmabar_ireduce_any (sbuf, rbuf, count, type, op, -1, comm, MCA_COLL_BASE_TAG_ALLREDUCE, request, true);
}

static int rdmabar_iscan_any (const void *sbuf, void *rbuf, int count, ompi_datatype_t *type, struct ompi_op_t *op,
                              bool inclusive, comm_t *comm, ompi_request_t **request, bool persistent)
{
    int tag = inclusive ? MCA_COLL_BASE_TAG_SCAN : MCA_COLL_BASE_TAG_EXSCAN;
    RDMABAR_NB(build_scan (sbuf, rbuf, count, type, op, inclusive, comm, tag, persistent, &req));
}

int mca_coll_rdmabar_iscan (const void *sbuf, void *rbuf, int count, ompi_datatype_t *type, struct ompi_op_t *op,
                            comm_t *comm, ompi_request_t **request, mca_coll_base_module_t *module)
{
    return rdmabar_iscan_any (sbuf, rbuf, count, type, op, true, comm, request, false);
}

int mca_coll_rdmabar_scan_init (const void *sbuf, void *rbuf, int count, ompi_datatype_t *type, struct ompi_op_t *op,
                                comm_t *comm, struct ompi_info_t *info, ompi_request_t **request,
                                mca_coll_base_module_t *module)
{
    return rdmabar_iscan_any (sbuf, rbuf, count, type, op, true, comm, request, true);
}

int mca_coll_rdmabar_iexscan (const void *sbuf, void *rbuf, int count, ompi_datatype_t *type, struct ompi_op_t *op,
                              comm_t *comm, ompi_request_t **request, mca_coll_base_module_t *module)
{
    return rdmabar_iscan_any (sbuf, rbuf, count, type, op, false, comm, request, false);
}

int mca_coll_rdmabar_exscan_init (const void *sbuf, void *rbuf, int count, ompi_datatype_t *type, struct ompi_op_t *op,
                                  comm_t *comm, struct ompi_info_t *info, ompi_request_t **request,
                                  mca_coll_base_module_t *module)
{
    return rdmabar_iscan_any (sbuf, rbuf, count, type, op, false, comm, request, true);
}

static int rdmabar_ireduce_scatter_any (const void *sbuf, void *rbuf, int rcount, const int *rcounts,
                                        ompi_datatype_t *type, struct ompi_op_t *op, comm_t *comm, int tag,
                                        ompi_request_t **request, bool persistent)
{
    RDMABAR_NB(build_reduce_scatter (sbuf, rbuf, rcount, rcounts, type, op, comm, tag, persistent, &req));
}

int mca_coll_rdmabar_ireduce_scatter_block (const void *sbuf, void *rbuf, int rcount, ompi_datatype_t *type,
                                            struct ompi_op_t *op, comm_t *comm, ompi_request_t **request,
                                            mca_coll_base_module_t *module)
{
    return rdmabar_ireduce_scatter_any (sbuf, rbuf, rcount, NULL, type, op, comm,
                                        MCA_COLL_BASE_TAG_REDUCE_SCATTER_BLOCK, request, false);
}

int mca_coll_rdmabar_reduce_scatter_block_init (const void *sbuf, void *rbuf, int rcount, ompi_datatype_t *type,
                                                struct ompi_op_t *op, comm_t *comm, struct ompi_info_t *info,
                                                ompi_request_t **request, mca_coll_base_module_t *module)
{
    return rdmabar_ireduce_scatter_any (sbuf, rbuf, rcount, NULL, type, op, comm,
                                        MCA_COLL_BASE_TAG_REDUCE_SCATTER_BLOCK, request, true);
}

int mca_coll_rdmabar_ireduce_scatter (const void *sbuf, void *rbuf, const int *rcounts, ompi_datatype_t *type,
                                      struct ompi_op_t *op, comm_t *comm, ompi_request_t **request,
                                      mca_coll_base_module_t *module)
{
    return rdmabar_ireduce_scatter_any (sbuf, rbuf, 0, rcounts, type, op, comm, MCA_COLL_BASE_TAG_REDUCE_SCATTER,
                                        request, false);
}

int mca_coll_rdmabar_reduce_scatter_init (const void *sbuf, void *rbuf, const int *rcounts, ompi_datatype_t *type,
                                          struct ompi_op_t *op, comm_t *comm, struct ompi_info_t *info,
                                          ompi_request_t **request, mca_coll_base_module_t *module)
{
    return rdmabar_ireduce_scatter_any (sbuf, rbuf, 0, rcounts, type, op, comm, MCA_COLL_BASE_TAG_REDUCE_SCATTER,
                                        request, true);
}
