/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Nonblocking and persistent collectives for an intracommunicator on which
 * no other coll component supplies them (`--mca coll rdmabar` alone), and
 * the three blocking ones libmpi has no base algorithm for (gatherv,
 * scatterv, alltoallw).
 *
 * Every collective here is one round of the request engine
 * (coll_rdmabar_request.h): linear in the number of ranks, which is the
 * right trade for a fallback: short code whose correctness is easy to see,
 * and nothing that blocks.
 *
 * Each collective uses its blocking counterpart's base tag.  MPI orders
 * collectives alike on every rank and the PML matches in order per peer and
 * tag, so a pending operation and a later one never take each other's data.
 */
#include "ompi_config.h"

#include "mpi.h"

#include <stdlib.h>

#include "ompi/communicator/communicator.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/coll/base/coll_tags.h"

#include "coll_rdmabar.h"
#include "coll_rdmabar_request.h"

/* ------------------------------------------------------------ the collectives */

typedef struct ompi_communicator_t comm_t;

static int build_barrier (comm_t *comm, bool persistent, mca_coll_rdmabar_request_t **out)
{
    int me = ompi_comm_rank (comm), size = ompi_comm_size (comm);
    int rc = mca_coll_rdmabar_req_new (comm, MCA_COLL_BASE_TAG_BARRIER, 2 * size, persistent, out);

    for (int p = 0 ; OMPI_SUCCESS == rc && p < size ; ++p) {
        if (p != me) {
            mca_coll_rdmabar_req_recv (*out, NULL, 0, MPI_BYTE, p);
            mca_coll_rdmabar_req_send (*out, NULL, 0, MPI_BYTE, p);
        }
    }
    return rc;
}

static int build_bcast (void *buf, int count, ompi_datatype_t *type, int root, comm_t *comm, bool persistent,
                        mca_coll_rdmabar_request_t **out)
{
    int me = ompi_comm_rank (comm), size = ompi_comm_size (comm);
    int rc = mca_coll_rdmabar_req_new (comm, MCA_COLL_BASE_TAG_BCAST, size, persistent, out);

    for (int p = 0 ; OMPI_SUCCESS == rc && p < size ; ++p) {
        if (me == root && p != root) {
            mca_coll_rdmabar_req_send (*out, buf, count, type, p);
        } else if (me != root && p == root) {
            mca_coll_rdmabar_req_recv (*out, buf, count, type, root);
        }
    }
    return rc;
}

static int build_gather (const void *sbuf, int scount, ompi_datatype_t *stype, const rdmabar_layout_t *r, int root,
                         comm_t *comm, int tag, bool persistent, mca_coll_rdmabar_request_t **out)
{
    int me = ompi_comm_rank (comm), size = ompi_comm_size (comm);
    int rc = mca_coll_rdmabar_req_new (comm, tag, size, persistent, out);

    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    if (me != root) {
        mca_coll_rdmabar_req_send (*out, sbuf, scount, stype, root);
        return rc;
    }
    for (int p = 0 ; p < size ; ++p) {
        if (p != me) {
            mca_coll_rdmabar_req_recv (*out, rdmabar_at (r, p), rdmabar_count (r, p), rdmabar_type (r, p), p);
        } else if (MPI_IN_PLACE != sbuf) {
            mca_coll_rdmabar_req_copy (*out, sbuf, scount, stype, rdmabar_at (r, p), rdmabar_count (r, p),
                                       rdmabar_type (r, p));
        }
    }
    return rc;
}

static int build_scatter (const rdmabar_layout_t *s, void *rbuf, int rcount, ompi_datatype_t *rtype, int root,
                          comm_t *comm, int tag, bool persistent, mca_coll_rdmabar_request_t **out)
{
    int me = ompi_comm_rank (comm), size = ompi_comm_size (comm);
    int rc = mca_coll_rdmabar_req_new (comm, tag, size, persistent, out);

    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    if (me != root) {
        mca_coll_rdmabar_req_recv (*out, rbuf, rcount, rtype, root);
        return rc;
    }
    for (int p = 0 ; p < size ; ++p) {
        if (p != me) {
            mca_coll_rdmabar_req_send (*out, rdmabar_at (s, p), rdmabar_count (s, p), rdmabar_type (s, p), p);
        } else if (MPI_IN_PLACE != rbuf) {
            mca_coll_rdmabar_req_copy (*out, rdmabar_at (s, p), rdmabar_count (s, p), rdmabar_type (s, p), rbuf,
                                       rcount, rtype);
        }
    }
    return rc;
}

static int build_allgather (const void *sbuf, int scount, ompi_datatype_t *stype, const rdmabar_layout_t *r,
                            comm_t *comm, int tag, bool persistent, mca_coll_rdmabar_request_t **out)
{
    int me = ompi_comm_rank (comm), size = ompi_comm_size (comm);
    int rc = mca_coll_rdmabar_req_new (comm, tag, 2 * size, persistent, out);

    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    if (MPI_IN_PLACE == sbuf) {
        sbuf = rdmabar_at (r, me);
        scount = rdmabar_count (r, me);
        stype = rdmabar_type (r, me);
    } else {
        mca_coll_rdmabar_req_copy (*out, sbuf, scount, stype, rdmabar_at (r, me), rdmabar_count (r, me),
                                   rdmabar_type (r, me));
    }
    for (int p = 0 ; p < size ; ++p) {
        if (p != me) {
            mca_coll_rdmabar_req_recv (*out, rdmabar_at (r, p), rdmabar_count (r, p), rdmabar_type (r, p), p);
            mca_coll_rdmabar_req_send (*out, sbuf, scount, stype, p);
        }
    }
    return rc;
}

/* s == NULL: in place */
static int build_alltoall (const rdmabar_layout_t *s, const rdmabar_layout_t *r, comm_t *comm, int tag,
                           bool persistent, mca_coll_rdmabar_request_t **out)
{
    int me = ompi_comm_rank (comm), size = ompi_comm_size (comm);
    int rc = mca_coll_rdmabar_req_new (comm, tag, 3 * size, persistent, out);
    rdmabar_layout_t mirror;

    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    if (NULL == s) {
        rc = mca_coll_rdmabar_req_mirror (*out, r, &mirror);
        s = &mirror;
    } else {
        mca_coll_rdmabar_req_copy (*out, rdmabar_at (s, me), rdmabar_count (s, me), rdmabar_type (s, me),
                                   rdmabar_at (r, me), rdmabar_count (r, me), rdmabar_type (r, me));
    }
    for (int p = 0 ; OMPI_SUCCESS == rc && p < size ; ++p) {
        if (p != me) {
            mca_coll_rdmabar_req_recv (*out, rdmabar_at (r, p), rdmabar_count (r, p), rdmabar_type (r, p), p);
            mca_coll_rdmabar_req_send (*out, rdmabar_at (s, p), rdmabar_count (s, p), rdmabar_type (s, p), p);
        }
    }
    return rc;
}

/* reduce (root >= 0), allreduce (root < 0) */
static int build_reduce (const void *sbuf, void *rbuf, int count, ompi_datatype_t *type, struct ompi_op_t *op, int root,
                         comm_t *comm, int tag, bool persistent, mca_coll_rdmabar_request_t **out)
{
    int me = ompi_comm_rank (comm), size = ompi_comm_size (comm);
    int rc = mca_coll_rdmabar_req_new (comm, tag, 2 * size, persistent, out);
    const void *mine = MPI_IN_PLACE == sbuf ? rbuf : sbuf;

    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    for (int p = 0 ; p < size ; ++p) {
        if (p != me && (root < 0 || p == root)) {
            mca_coll_rdmabar_req_send (*out, mine, count, type, p);
        }
    }
    if (root < 0 || me == root) {
        rc = mca_coll_rdmabar_req_reduction (*out, mine, 0, size, count, type, op, rbuf);
    }
    return rc;
}

/* scan (inclusive) or exscan */
static int build_scan (const void *sbuf, void *rbuf, int count, ompi_datatype_t *type, struct ompi_op_t *op,
                       bool inclusive, comm_t *comm, int tag, bool persistent, mca_coll_rdmabar_request_t **out)
{
    int me = ompi_comm_rank (comm), size = ompi_comm_size (comm);
    int rc = mca_coll_rdmabar_req_new (comm, tag, size, persistent, out);
    const void *mine = MPI_IN_PLACE == sbuf ? rbuf : sbuf;
    int last = inclusive ? me + 1 : me;

    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    for (int p = me + 1 ; p < size ; ++p) {
        mca_coll_rdmabar_req_send (*out, mine, count, type, p);
    }
    if (last > 0) {
        rc = mca_coll_rdmabar_req_reduction (*out, mine, 0, last, count, type, op, rbuf);
    }
    return rc;
}

/* reduce_scatter: rank p gets the reduction of everyone's block p */
static int build_reduce_scatter (const void *sbuf, void *rbuf, int rcount, const int *rcounts, ompi_datatype_t *type,
                                 struct ompi_op_t *op, comm_t *comm, int tag, bool persistent,
                                 mca_coll_rdmabar_request_t **out)
{
    int me = ompi_comm_rank (comm), size = ompi_comm_size (comm);
    int rc = mca_coll_rdmabar_req_new (comm, tag, 2 * size, persistent, out);
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
            mca_coll_rdmabar_req_send (*out, rdmabar_at (&s, p), rdmabar_count (&s, p), type, p);
        }
    }
    rc = mca_coll_rdmabar_req_reduction (*out, rdmabar_at (&s, me), 0, size, rdmabar_count (&s, me), type, op, rbuf);
    /* the per-peer sends captured their addresses; the layout is not kept */
    free (displs);
    return rc;
}


/* Each collective is written once with a `persistent' flag: the public
 * nonblocking and _init entry points differ only in it. */
#define RDMABAR_NB(build) do {                                               \
        mca_coll_rdmabar_request_t *req = NULL;                              \
        return mca_coll_rdmabar_req_launch (build, &req, request, !persistent);           \
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

    return mca_coll_rdmabar_req_run (build_gather (sbuf, scount, stype, &r, root, comm, MCA_COLL_BASE_TAG_GATHERV,
                                                   false, &req), &req);
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

    return mca_coll_rdmabar_req_run (build_scatter (&s, rbuf, rcount, rtype, root, comm, MCA_COLL_BASE_TAG_SCATTERV,
                                                    false, &req), &req);
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

    return mca_coll_rdmabar_req_run (build_alltoall (MPI_IN_PLACE == sbuf ? NULL : &s, &r, comm,
                                                     MCA_COLL_BASE_TAG_ALLTOALLW, false, &req), &req);
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
