/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Collectives on intercommunicators, for when no other coll component
 * supplies them: with `--mca coll rdmabar` alone nothing else would, and
 * Open MPI 4.1 then refuses the intercommunicator (and crashes while
 * cleaning up: see docs/coll-rdmabar.md).  In the default set coll/inter, basic and
 * libnbc supply them all and rdmabar steps aside.
 *
 * Each collective is one round of the request engine
 * (coll_rdmabar_request.h) between this rank and the ranks of the remote
 * group (on an intercommunicator a peer rank names a remote rank): linear,
 * correct for any group sizes, and never blocking, so the same request
 * serves the blocking form (started and waited for), the nonblocking one
 * and the persistent one.  Who sends what follows the MPI standard's
 * definitions directly:
 *
 *   barrier      a zero-byte message to and from every remote rank: a rank
 *                leaves only after every remote rank entered
 *   rooted       MPI_ROOT talks to every remote rank, MPI_PROC_NULL to
 *                none, the others to the (remote) root only
 *   all-to-all   every rank exchanges its blocks with every remote rank
 *   reductions   the remote group's contributions, reduced here in its
 *                rank order (non-commutative operations are right);
 *                reduce_scatter sends each remote rank the whole vector,
 *                since the senders do not know how the receivers split it
 *
 * Scan and exscan do not exist on intercommunicators (MPI refuses them
 * before any component is asked), nor do neighborhood collectives.
 * Layer: collectives (docs/layout.md).
 */
#include "ompi_config.h"

#include "mpi.h"

#include "opal/util/output.h"
#include "ompi/communicator/communicator.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/coll/base/base.h"
#include "ompi/mca/coll/base/coll_base_functions.h"
#include "ompi/mca/coll/base/coll_tags.h"

#include "coll_rdmabar.h"
#include "coll_rdmabar_fill.h"
#include "coll_rdmabar_request.h"

/* ------------------------------------------------------------ building blocks */

static int inter_new (struct ompi_communicator_t *comm, int tag, int xfers_per_peer, bool persistent,
                      mca_coll_rdmabar_request_t **out)
{
    return mca_coll_rdmabar_req_new (comm, tag, xfers_per_peer * ompi_comm_remote_size (comm), persistent, out);
}

/* the root (MPI_ROOT) receives block p from remote rank p; the remote group sends */
static int inter_gather_into (const void *sbuf, rwv_compat_count_t scount, ompi_datatype_t *stype,
                              const mca_coll_rdmabar_layout_t *r, int root, struct ompi_communicator_t *comm, int tag,
                              bool persistent, mca_coll_rdmabar_request_t **out)
{
    int rc = inter_new (comm, tag, 1, persistent, out);

    for (int p = 0 ; OMPI_SUCCESS == rc && MPI_ROOT == root && p < ompi_comm_remote_size (comm) ; ++p) {
        mca_coll_rdmabar_req_recv (*out, mca_coll_rdmabar_layout_at (r, p), mca_coll_rdmabar_layout_count (r, p),
                                   mca_coll_rdmabar_layout_type (r, p), p);
    }
    if (OMPI_SUCCESS == rc && MPI_ROOT != root && MPI_PROC_NULL != root) {
        mca_coll_rdmabar_req_send (*out, sbuf, scount, stype, root);
    }
    return rc;
}

/* the root (MPI_ROOT) sends block p to remote rank p; the remote group receives */
static int inter_scatter_from (const mca_coll_rdmabar_layout_t *s, void *rbuf, rwv_compat_count_t rcount,
                               ompi_datatype_t *rtype, int root, struct ompi_communicator_t *comm, int tag,
                               bool persistent, mca_coll_rdmabar_request_t **out)
{
    int rc = inter_new (comm, tag, 1, persistent, out);

    for (int p = 0 ; OMPI_SUCCESS == rc && MPI_ROOT == root && p < ompi_comm_remote_size (comm) ; ++p) {
        mca_coll_rdmabar_req_send (*out, mca_coll_rdmabar_layout_at (s, p), mca_coll_rdmabar_layout_count (s, p),
                                   mca_coll_rdmabar_layout_type (s, p), p);
    }
    if (OMPI_SUCCESS == rc && MPI_ROOT != root && MPI_PROC_NULL != root) {
        mca_coll_rdmabar_req_recv (*out, rbuf, rcount, rtype, root);
    }
    return rc;
}

/* my one block to every remote rank; block p of r from remote rank p */
static int inter_allgather_into (const void *sbuf, rwv_compat_count_t scount, ompi_datatype_t *stype,
                                 const mca_coll_rdmabar_layout_t *r, struct ompi_communicator_t *comm, int tag,
                                 bool persistent, mca_coll_rdmabar_request_t **out)
{
    int rc = inter_new (comm, tag, 2, persistent, out);

    for (int p = 0 ; OMPI_SUCCESS == rc && p < ompi_comm_remote_size (comm) ; ++p) {
        mca_coll_rdmabar_req_recv (*out, mca_coll_rdmabar_layout_at (r, p), mca_coll_rdmabar_layout_count (r, p),
                                   mca_coll_rdmabar_layout_type (r, p), p);
        mca_coll_rdmabar_req_send (*out, sbuf, scount, stype, p);
    }
    return rc;
}

/* block p of s to remote rank p, block p of r from it */
static int inter_exchange (const mca_coll_rdmabar_layout_t *s, const mca_coll_rdmabar_layout_t *r,
                           struct ompi_communicator_t *comm, int tag, bool persistent, mca_coll_rdmabar_request_t **out)
{
    int rc = inter_new (comm, tag, 2, persistent, out);

    for (int p = 0 ; OMPI_SUCCESS == rc && p < ompi_comm_remote_size (comm) ; ++p) {
        mca_coll_rdmabar_req_recv (*out, mca_coll_rdmabar_layout_at (r, p), mca_coll_rdmabar_layout_count (r, p),
                                   mca_coll_rdmabar_layout_type (r, p), p);
        mca_coll_rdmabar_req_send (*out, mca_coll_rdmabar_layout_at (s, p), mca_coll_rdmabar_layout_count (s, p),
                                   mca_coll_rdmabar_layout_type (s, p), p);
    }
    return rc;
}

/* ------------------------------------------------------------ the collectives */

static int build_barrier (struct ompi_communicator_t *comm, bool persistent, mca_coll_rdmabar_request_t **out)
{
    int rc = inter_new (comm, MCA_COLL_BASE_TAG_BARRIER, 2, persistent, out);

    for (int p = 0 ; OMPI_SUCCESS == rc && p < ompi_comm_remote_size (comm) ; ++p) {
        mca_coll_rdmabar_req_recv (*out, NULL, 0, MPI_BYTE, p);
        mca_coll_rdmabar_req_send (*out, NULL, 0, MPI_BYTE, p);
    }
    return rc;
}

static int build_bcast (void *buf, rwv_compat_count_t count, ompi_datatype_t *type, int root,
                        struct ompi_communicator_t *comm, bool persistent, mca_coll_rdmabar_request_t **out)
{
    int rc = inter_new (comm, MCA_COLL_BASE_TAG_BCAST, 1, persistent, out);

    for (int p = 0 ; OMPI_SUCCESS == rc && MPI_ROOT == root && p < ompi_comm_remote_size (comm) ; ++p) {
        mca_coll_rdmabar_req_send (*out, buf, count, type, p);
    }
    if (OMPI_SUCCESS == rc && MPI_ROOT != root && MPI_PROC_NULL != root) {
        mca_coll_rdmabar_req_recv (*out, buf, count, type, root);
    }
    return rc;
}

static int build_gather (const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype, void *rbuf,
                         rwv_compat_count_t rcount, struct ompi_datatype_t *rtype, int root,
                         struct ompi_communicator_t *comm, bool persistent, mca_coll_rdmabar_request_t **out)
{
    mca_coll_rdmabar_layout_t r =
        mca_coll_rdmabar_layout_make (rbuf, rcount, RWV_COMPAT_NO_COUNTS, RWV_COMPAT_NO_DISPLS, rtype, NULL);
    return inter_gather_into (sbuf, scount, stype, &r, root, comm, MCA_COLL_BASE_TAG_GATHER, persistent, out);
}

static int build_gatherv (const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype, void *rbuf,
                          rwv_compat_counts_t rcounts, rwv_compat_displs_t displs, struct ompi_datatype_t *rtype,
                          int root, struct ompi_communicator_t *comm, bool persistent, mca_coll_rdmabar_request_t **out)
{
    mca_coll_rdmabar_layout_t r = mca_coll_rdmabar_layout_make (rbuf, 0, rcounts, displs, rtype, NULL);
    return inter_gather_into (sbuf, scount, stype, &r, root, comm, MCA_COLL_BASE_TAG_GATHERV, persistent, out);
}

static int build_scatter (const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype, void *rbuf,
                          rwv_compat_count_t rcount, struct ompi_datatype_t *rtype, int root,
                          struct ompi_communicator_t *comm, bool persistent, mca_coll_rdmabar_request_t **out)
{
    mca_coll_rdmabar_layout_t s =
        mca_coll_rdmabar_layout_make (sbuf, scount, RWV_COMPAT_NO_COUNTS, RWV_COMPAT_NO_DISPLS, stype, NULL);
    return inter_scatter_from (&s, rbuf, rcount, rtype, root, comm, MCA_COLL_BASE_TAG_SCATTER, persistent, out);
}

static int build_scatterv (const void *sbuf, rwv_compat_counts_t scounts, rwv_compat_displs_t displs,
                           struct ompi_datatype_t *stype, void *rbuf, rwv_compat_count_t rcount,
                           struct ompi_datatype_t *rtype, int root, struct ompi_communicator_t *comm, bool persistent,
                           mca_coll_rdmabar_request_t **out)
{
    mca_coll_rdmabar_layout_t s = mca_coll_rdmabar_layout_make (sbuf, 0, scounts, displs, stype, NULL);
    return inter_scatter_from (&s, rbuf, rcount, rtype, root, comm, MCA_COLL_BASE_TAG_SCATTERV, persistent, out);
}

static int build_allgather (const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype, void *rbuf,
                            rwv_compat_count_t rcount, struct ompi_datatype_t *rtype, struct ompi_communicator_t *comm,
                            bool persistent, mca_coll_rdmabar_request_t **out)
{
    mca_coll_rdmabar_layout_t r =
        mca_coll_rdmabar_layout_make (rbuf, rcount, RWV_COMPAT_NO_COUNTS, RWV_COMPAT_NO_DISPLS, rtype, NULL);
    return inter_allgather_into (sbuf, scount, stype, &r, comm, MCA_COLL_BASE_TAG_ALLGATHER, persistent, out);
}

static int build_allgatherv (const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype, void *rbuf,
                             rwv_compat_counts_t rcounts, rwv_compat_displs_t displs, struct ompi_datatype_t *rtype,
                             struct ompi_communicator_t *comm, bool persistent, mca_coll_rdmabar_request_t **out)
{
    mca_coll_rdmabar_layout_t r = mca_coll_rdmabar_layout_make (rbuf, 0, rcounts, displs, rtype, NULL);
    return inter_allgather_into (sbuf, scount, stype, &r, comm, MCA_COLL_BASE_TAG_ALLGATHERV, persistent, out);
}

static int build_alltoall (const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype, void *rbuf,
                           rwv_compat_count_t rcount, struct ompi_datatype_t *rtype, struct ompi_communicator_t *comm,
                           bool persistent, mca_coll_rdmabar_request_t **out)
{
    mca_coll_rdmabar_layout_t s =
        mca_coll_rdmabar_layout_make (sbuf, scount, RWV_COMPAT_NO_COUNTS, RWV_COMPAT_NO_DISPLS, stype, NULL);
    mca_coll_rdmabar_layout_t r =
        mca_coll_rdmabar_layout_make (rbuf, rcount, RWV_COMPAT_NO_COUNTS, RWV_COMPAT_NO_DISPLS, rtype, NULL);
    return inter_exchange (&s, &r, comm, MCA_COLL_BASE_TAG_ALLTOALL, persistent, out);
}

static int build_alltoallv (const void *sbuf, rwv_compat_counts_t scounts, rwv_compat_displs_t sdispls,
                            struct ompi_datatype_t *stype, void *rbuf, rwv_compat_counts_t rcounts,
                            rwv_compat_displs_t rdispls, struct ompi_datatype_t *rtype,
                            struct ompi_communicator_t *comm, bool persistent, mca_coll_rdmabar_request_t **out)
{
    mca_coll_rdmabar_layout_t s = mca_coll_rdmabar_layout_make (sbuf, 0, scounts, sdispls, stype, NULL);
    mca_coll_rdmabar_layout_t r = mca_coll_rdmabar_layout_make (rbuf, 0, rcounts, rdispls, rtype, NULL);
    return inter_exchange (&s, &r, comm, MCA_COLL_BASE_TAG_ALLTOALLV, persistent, out);
}

static int build_alltoallw (const void *sbuf, rwv_compat_counts_t scounts, rwv_compat_displs_t sdispls,
                            struct ompi_datatype_t *const *stypes, void *rbuf, rwv_compat_counts_t rcounts,
                            rwv_compat_displs_t rdispls, struct ompi_datatype_t *const *rtypes,
                            struct ompi_communicator_t *comm, bool persistent, mca_coll_rdmabar_request_t **out)
{
    mca_coll_rdmabar_layout_t s = mca_coll_rdmabar_layout_make (sbuf, 0, scounts, sdispls, NULL, stypes);
    mca_coll_rdmabar_layout_t r = mca_coll_rdmabar_layout_make (rbuf, 0, rcounts, rdispls, NULL, rtypes);
    return inter_exchange (&s, &r, comm, MCA_COLL_BASE_TAG_ALLTOALLW, persistent, out);
}

/* The root (MPI_ROOT) reduces the remote group's contributions. */
static int build_reduce (const void *sbuf, void *rbuf, rwv_compat_count_t count, struct ompi_datatype_t *type,
                         struct ompi_op_t *op, int root, struct ompi_communicator_t *comm, bool persistent,
                         mca_coll_rdmabar_request_t **out)
{
    int rc = inter_new (comm, MCA_COLL_BASE_TAG_REDUCE, 1, persistent, out);

    if (OMPI_SUCCESS != rc || MPI_PROC_NULL == root) {
        return rc;
    }
    if (MPI_ROOT == root) {
        return mca_coll_rdmabar_req_reduction_remote (*out, count, 0, count, type, op, rbuf);
    }
    mca_coll_rdmabar_req_send (*out, sbuf, count, type, root);
    return rc;
}

/* Every rank sends its vector to every remote rank and reduces theirs. */
static int build_allreduce (const void *sbuf, void *rbuf, rwv_compat_count_t count, struct ompi_datatype_t *type,
                            struct ompi_op_t *op, struct ompi_communicator_t *comm, bool persistent,
                            mca_coll_rdmabar_request_t **out)
{
    int rc = inter_new (comm, MCA_COLL_BASE_TAG_ALLREDUCE, 2, persistent, out);

    for (int p = 0 ; OMPI_SUCCESS == rc && p < ompi_comm_remote_size (comm) ; ++p) {
        mca_coll_rdmabar_req_send (*out, sbuf, count, type, p);
    }
    return OMPI_SUCCESS == rc ? mca_coll_rdmabar_req_reduction_remote (*out, count, 0, count, type, op, rbuf) : rc;
}

/* Both groups' vectors have the same length, here size * rcount, split
 * evenly over the remote group: remote rank p gets the p-th block. */
static int build_reduce_scatter_block (const void *sbuf, void *rbuf, rwv_compat_count_t rcount,
                                       struct ompi_datatype_t *type, struct ompi_op_t *op,
                                       struct ompi_communicator_t *comm, bool persistent,
                                       mca_coll_rdmabar_request_t **out)
{
    int rsize = ompi_comm_remote_size (comm);
    int block = (int) ((long) ompi_comm_size (comm) * rcount / rsize);
    int rc = inter_new (comm, MCA_COLL_BASE_TAG_REDUCE_SCATTER_BLOCK, 2, persistent, out);
    ptrdiff_t lb, extent;

    ompi_datatype_get_extent (type, &lb, &extent);
    for (int p = 0 ; OMPI_SUCCESS == rc && p < rsize ; ++p) {
        mca_coll_rdmabar_req_send (*out, (const char *) sbuf + (ptrdiff_t) p * block * extent, block, type, p);
    }
    return OMPI_SUCCESS == rc ? mca_coll_rdmabar_req_reduction_remote (*out, rcount, 0, rcount, type, op, rbuf) : rc;
}

/* rcounts split the vector over this group only: every remote rank gets
 * the whole vector and I reduce my part of theirs. */
static int build_reduce_scatter (const void *sbuf, void *rbuf, rwv_compat_counts_t rcounts,
                                 struct ompi_datatype_t *type, struct ompi_op_t *op, struct ompi_communicator_t *comm,
                                 bool persistent, mca_coll_rdmabar_request_t **out)
{
    int me = ompi_comm_rank (comm), total = 0, offset = 0;
    int rc = inter_new (comm, MCA_COLL_BASE_TAG_REDUCE_SCATTER, 2, persistent, out);

    for (int r = 0 ; r < ompi_comm_size (comm) ; ++r) {
        offset += r < me ? rwv_compat_count_at (rcounts, r) : 0;
        total += rwv_compat_count_at (rcounts, r);
    }
    for (int p = 0 ; OMPI_SUCCESS == rc && p < ompi_comm_remote_size (comm) ; ++p) {
        mca_coll_rdmabar_req_send (*out, sbuf, total, type, p);
    }
    return OMPI_SUCCESS == rc ? mca_coll_rdmabar_req_reduction_remote (
                                    *out, total, offset, rwv_compat_count_at (rcounts, me), type, op, rbuf)
                              : rc;
}

/* ------------------------------------------------------------ entry points */

/* The blocking, nonblocking and persistent forms of one collective differ
 * only in what happens to the request built. */
#define RDMABAR_UNPAREN(...) __VA_ARGS__
#define RDMABAR_INTER_FORMS(name, params, ...)                                                                         \
    static int inter_##name (RDMABAR_UNPAREN params, struct ompi_communicator_t *comm, mca_coll_base_module_t *module) \
    {                                                                                                                  \
        mca_coll_rdmabar_request_t *req = NULL;                                                                        \
        return mca_coll_rdmabar_req_run (build_##name (__VA_ARGS__, comm, false, &req), &req);                         \
    }                                                                                                                  \
    static int inter_i##name (RDMABAR_UNPAREN params, struct ompi_communicator_t *comm, ompi_request_t **request,      \
                              mca_coll_base_module_t *module)                                                          \
    {                                                                                                                  \
        mca_coll_rdmabar_request_t *req = NULL;                                                                        \
        return mca_coll_rdmabar_req_launch (build_##name (__VA_ARGS__, comm, false, &req), &req, request, true);       \
    }                                                                                                                  \
    static int inter_##name##_init (RDMABAR_UNPAREN params, struct ompi_communicator_t *comm,                          \
                                    struct ompi_info_t *info, ompi_request_t **request,                                \
                                    mca_coll_base_module_t *module)                                                    \
    {                                                                                                                  \
        mca_coll_rdmabar_request_t *req = NULL;                                                                        \
        return mca_coll_rdmabar_req_launch (build_##name (__VA_ARGS__, comm, true, &req), &req, request, false);       \
    }

RDMABAR_INTER_FORMS(bcast, (void *buf, rwv_compat_count_t count, struct ompi_datatype_t *type, int root), buf, count,
                     type, root)
RDMABAR_INTER_FORMS(gather,
                     (const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype, void *rbuf,
                      rwv_compat_count_t rcount, struct ompi_datatype_t *rtype, int root),
                     sbuf, scount, stype, rbuf, rcount, rtype, root)
RDMABAR_INTER_FORMS(gatherv,
                     (const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype, void *rbuf,
                      rwv_compat_counts_t rcounts, rwv_compat_displs_t displs, struct ompi_datatype_t *rtype, int root),
                     sbuf, scount, stype, rbuf, rcounts, displs, rtype, root)
RDMABAR_INTER_FORMS(scatter,
                     (const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype, void *rbuf,
                      rwv_compat_count_t rcount, struct ompi_datatype_t *rtype, int root),
                     sbuf, scount, stype, rbuf, rcount, rtype, root)
RDMABAR_INTER_FORMS(scatterv,
                     (const void *sbuf, rwv_compat_counts_t scounts, rwv_compat_displs_t displs,
                      struct ompi_datatype_t *stype, void *rbuf, rwv_compat_count_t rcount,
                      struct ompi_datatype_t *rtype, int root),
                     sbuf, scounts, displs, stype, rbuf, rcount, rtype, root)
RDMABAR_INTER_FORMS(allgather,
                     (const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype, void *rbuf,
                      rwv_compat_count_t rcount, struct ompi_datatype_t *rtype),
                     sbuf, scount, stype, rbuf, rcount, rtype)
RDMABAR_INTER_FORMS(allgatherv,
                     (const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype, void *rbuf,
                      rwv_compat_counts_t rcounts, rwv_compat_displs_t displs, struct ompi_datatype_t *rtype),
                     sbuf, scount, stype, rbuf, rcounts, displs, rtype)
RDMABAR_INTER_FORMS(alltoall,
                     (const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype, void *rbuf,
                      rwv_compat_count_t rcount, struct ompi_datatype_t *rtype),
                     sbuf, scount, stype, rbuf, rcount, rtype)
RDMABAR_INTER_FORMS(alltoallv,
                     (const void *sbuf, rwv_compat_counts_t scounts, rwv_compat_displs_t sdispls,
                      struct ompi_datatype_t *stype, void *rbuf, rwv_compat_counts_t rcounts,
                      rwv_compat_displs_t rdispls, struct ompi_datatype_t *rtype),
                     sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype)
RDMABAR_INTER_FORMS(alltoallw,
                     (const void *sbuf, rwv_compat_counts_t scounts, rwv_compat_displs_t sdispls,
                      struct ompi_datatype_t *const *stypes, void *rbuf, rwv_compat_counts_t rcounts,
                      rwv_compat_displs_t rdispls, struct ompi_datatype_t *const *rtypes),
                     sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes)
RDMABAR_INTER_FORMS(reduce,
                     (const void *sbuf, void *rbuf, rwv_compat_count_t count, struct ompi_datatype_t *type,
                      struct ompi_op_t *op, int root),
                     sbuf, rbuf, count, type, op, root)
RDMABAR_INTER_FORMS(allreduce,
                     (const void *sbuf, void *rbuf, rwv_compat_count_t count, struct ompi_datatype_t *type,
                      struct ompi_op_t *op),
                     sbuf, rbuf, count, type, op)
RDMABAR_INTER_FORMS(reduce_scatter_block,
                     (const void *sbuf, void *rbuf, rwv_compat_count_t rcount, struct ompi_datatype_t *type,
                      struct ompi_op_t *op),
                     sbuf, rbuf, rcount, type, op)
RDMABAR_INTER_FORMS(reduce_scatter,
                     (const void *sbuf, void *rbuf, rwv_compat_counts_t rcounts, struct ompi_datatype_t *type,
                      struct ompi_op_t *op),
                     sbuf, rbuf, rcounts, type, op)

/* the barrier has no arguments to pass on */
static int inter_barrier (struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    mca_coll_rdmabar_request_t *req = NULL;
    return mca_coll_rdmabar_req_run (build_barrier (comm, false, &req), &req);
}

static int inter_ibarrier (struct ompi_communicator_t *comm, ompi_request_t **request, mca_coll_base_module_t *module)
{
    mca_coll_rdmabar_request_t *req = NULL;
    return mca_coll_rdmabar_req_launch (build_barrier (comm, false, &req), &req, request, true);
}

static int inter_barrier_init (struct ompi_communicator_t *comm, struct ompi_info_t *info, ompi_request_t **request,
                               mca_coll_base_module_t *module)
{
    mca_coll_rdmabar_request_t *req = NULL;
    return mca_coll_rdmabar_req_launch (build_barrier (comm, true, &req), &req, request, false);
}

/* ------------------------------------------------------------ filling */

/* A collective's three forms; the nonblocking and persistent ones only
 * where this libmpi's collective requests are laid out as rdmabar's. */
#define RDMABAR_FILL_INTER(comm, module, filled, name)                                                                 \
    do {                                                                                                               \
        MCA_COLL_RDMABAR_FILL(comm, module, filled, name, inter_##name);                                              \
        if (mca_coll_rdmabar_nbc_usable ()) {                                                                          \
            MCA_COLL_RDMABAR_FILL(comm, module, filled, i##name, inter_i##name);                                      \
            MCA_COLL_RDMABAR_FILL(comm, module, filled, name##_init, inter_##name##_init);                            \
        }                                                                                                              \
    } while (0)

/* Fill each slot no component below filled.  With nothing to fill, refuse:
 * Open MPI then drops this module from the intercommunicator. */
int mca_coll_rdmabar_inter_enable (mca_coll_rdmabar_module_t *module, struct ompi_communicator_t *comm)
{
    int filled = 0;

    RDMABAR_FILL_INTER(comm, module, filled, barrier);
    RDMABAR_FILL_INTER(comm, module, filled, bcast);
    RDMABAR_FILL_INTER(comm, module, filled, gather);
    RDMABAR_FILL_INTER(comm, module, filled, gatherv);
    RDMABAR_FILL_INTER(comm, module, filled, scatter);
    RDMABAR_FILL_INTER(comm, module, filled, scatterv);
    RDMABAR_FILL_INTER(comm, module, filled, allgather);
    RDMABAR_FILL_INTER(comm, module, filled, allgatherv);
    RDMABAR_FILL_INTER(comm, module, filled, alltoall);
    RDMABAR_FILL_INTER(comm, module, filled, alltoallv);
    RDMABAR_FILL_INTER(comm, module, filled, alltoallw);
    RDMABAR_FILL_INTER(comm, module, filled, reduce);
    RDMABAR_FILL_INTER(comm, module, filled, allreduce);
    RDMABAR_FILL_INTER(comm, module, filled, reduce_scatter_block);
    RDMABAR_FILL_INTER(comm, module, filled, reduce_scatter);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, reduce_local, mca_coll_base_reduce_local);
    RWV_COMPAT_COLL_FILL_AGREE(comm, &module->super, filled);
    if (0 == filled) {
        return OMPI_ERR_NOT_SUPPORTED;
    }
    if (!mca_coll_rdmabar_nbc_usable ()) {
        mca_coll_rdmabar_incomplete (comm, mca_coll_rdmabar_nbc_why ());
    }
    opal_output_verbose (MCA_BASE_VERBOSE_COMPONENT, ompi_coll_base_framework.framework_output,
                         "coll/rdmabar: %s: intercommunicator; no component below supplies %d collectives; "
                         "rdmabar supplies them (linear, one round)", comm->c_name, filled);
    return OMPI_SUCCESS;
}
