/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Nonblocking and persistent collectives for an intracommunicator on which
 * no other coll component supplies them (`--mca coll rdmabar` alone), and
 * the three blocking ones libmpi has no base algorithm for (gatherv,
 * scatterv, alltoallw): each builds its request (coll_rdmabar_nbc_build.c)
 * and starts it, or runs it to completion.  One round of linear exchanges
 * is the right trade for a fallback: short code whose correctness is easy
 * to see, and nothing that blocks.
 * Layer: collectives (docs/layout.md).
 */
#include "ompi_config.h"

#include "mpi.h"

#include <stdlib.h>

#include "ompi/communicator/communicator.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/coll/base/coll_tags.h"

#include "coll_rdmabar.h"
#include "coll_rdmabar_fill.h"
#include "coll_rdmabar_request.h"
#include "coll_rdmabar_nbc_build.h"

static int rdmabar_ibarrier_any (struct ompi_communicator_t *comm, ompi_request_t **request, bool persistent)
{
    mca_coll_rdmabar_request_t *req = NULL;
    return mca_coll_rdmabar_req_launch (mca_coll_rdmabar_build_barrier (comm, persistent, &req), &req, request,
                                        !persistent);
}

int mca_coll_rdmabar_ibarrier (struct ompi_communicator_t *comm, ompi_request_t **request,
                               mca_coll_base_module_t *module)
{
    return rdmabar_ibarrier_any (comm, request, false);
}

int mca_coll_rdmabar_barrier_init (struct ompi_communicator_t *comm, struct ompi_info_t *info, ompi_request_t **request,
                                   mca_coll_base_module_t *module)
{
    return rdmabar_ibarrier_any (comm, request, true);
}

static int rdmabar_ibcast_any (void *buf, rwv_compat_count_t count, ompi_datatype_t *type, int root,
                               struct ompi_communicator_t *comm, ompi_request_t **request, bool persistent)
{
    mca_coll_rdmabar_request_t *req = NULL;
    return mca_coll_rdmabar_req_launch (mca_coll_rdmabar_build_bcast (buf, count, type, root, comm, persistent, &req),
                                        &req, request, !persistent);
}

int mca_coll_rdmabar_ibcast (void *buf, rwv_compat_count_t count, ompi_datatype_t *type, int root,
                             struct ompi_communicator_t *comm, ompi_request_t **request, mca_coll_base_module_t *module)
{
    return rdmabar_ibcast_any (buf, count, type, root, comm, request, false);
}

int mca_coll_rdmabar_bcast_init (void *buf, rwv_compat_count_t count, ompi_datatype_t *type, int root,
                                 struct ompi_communicator_t *comm, struct ompi_info_t *info, ompi_request_t **request,
                                 mca_coll_base_module_t *module)
{
    return rdmabar_ibcast_any (buf, count, type, root, comm, request, true);
}

static int rdmabar_igatherv_any (const void *sbuf, rwv_compat_count_t scount, ompi_datatype_t *stype, void *rbuf,
                                 rwv_compat_count_t rcount, rwv_compat_counts_t rcounts, rwv_compat_displs_t displs,
                                 ompi_datatype_t *rtype, int root, struct ompi_communicator_t *comm, int tag,
                                 ompi_request_t **request, bool persistent)
{
    mca_coll_rdmabar_layout_t r = mca_coll_rdmabar_layout_make (rbuf, rcount, rcounts, displs, rtype, NULL);
    mca_coll_rdmabar_request_t *req = NULL;
    return mca_coll_rdmabar_req_launch (
        mca_coll_rdmabar_build_gather (sbuf, scount, stype, &r, root, comm, tag, persistent, &req), &req, request,
        !persistent);
}

int mca_coll_rdmabar_igather (const void *sbuf, rwv_compat_count_t scount, ompi_datatype_t *stype, void *rbuf,
                              rwv_compat_count_t rcount, ompi_datatype_t *rtype, int root,
                              struct ompi_communicator_t *comm, ompi_request_t **request,
                              mca_coll_base_module_t *module)
{
    return rdmabar_igatherv_any (sbuf, scount, stype, rbuf, rcount, RWV_COMPAT_NO_COUNTS, RWV_COMPAT_NO_DISPLS, rtype,
                                 root, comm, MCA_COLL_BASE_TAG_GATHER, request, false);
}

int mca_coll_rdmabar_gather_init (const void *sbuf, rwv_compat_count_t scount, ompi_datatype_t *stype, void *rbuf,
                                  rwv_compat_count_t rcount, ompi_datatype_t *rtype, int root,
                                  struct ompi_communicator_t *comm, struct ompi_info_t *info, ompi_request_t **request,
                                  mca_coll_base_module_t *module)
{
    return rdmabar_igatherv_any (sbuf, scount, stype, rbuf, rcount, RWV_COMPAT_NO_COUNTS, RWV_COMPAT_NO_DISPLS, rtype,
                                 root, comm, MCA_COLL_BASE_TAG_GATHER, request, true);
}

int mca_coll_rdmabar_igatherv (const void *sbuf, rwv_compat_count_t scount, ompi_datatype_t *stype, void *rbuf,
                               rwv_compat_counts_t rcounts, rwv_compat_displs_t displs, ompi_datatype_t *rtype,
                               int root, struct ompi_communicator_t *comm, ompi_request_t **request,
                               mca_coll_base_module_t *module)
{
    return rdmabar_igatherv_any (sbuf, scount, stype, rbuf, 0, rcounts, displs, rtype, root, comm,
                                 MCA_COLL_BASE_TAG_GATHERV, request, false);
}

int mca_coll_rdmabar_gatherv_init (const void *sbuf, rwv_compat_count_t scount, ompi_datatype_t *stype, void *rbuf,
                                   rwv_compat_counts_t rcounts, rwv_compat_displs_t displs, ompi_datatype_t *rtype,
                                   int root, struct ompi_communicator_t *comm, struct ompi_info_t *info,
                                   ompi_request_t **request, mca_coll_base_module_t *module)
{
    return rdmabar_igatherv_any (sbuf, scount, stype, rbuf, 0, rcounts, displs, rtype, root, comm,
                                 MCA_COLL_BASE_TAG_GATHERV, request, true);
}

int mca_coll_rdmabar_gatherv (const void *sbuf, rwv_compat_count_t scount, ompi_datatype_t *stype, void *rbuf,
                              rwv_compat_counts_t rcounts, rwv_compat_displs_t displs, ompi_datatype_t *rtype, int root,
                              struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    mca_coll_rdmabar_request_t *req = NULL;
    mca_coll_rdmabar_layout_t r = mca_coll_rdmabar_layout_make (rbuf, 0, rcounts, displs, rtype, NULL);

    return mca_coll_rdmabar_req_run (
        mca_coll_rdmabar_build_gather (sbuf, scount, stype, &r, root, comm, MCA_COLL_BASE_TAG_GATHERV, false, &req),
        &req);
}

static int rdmabar_iscatterv_any (const void *sbuf, rwv_compat_count_t scount, rwv_compat_counts_t scounts,
                                  rwv_compat_displs_t displs, ompi_datatype_t *stype, void *rbuf,
                                  rwv_compat_count_t rcount, ompi_datatype_t *rtype, int root,
                                  struct ompi_communicator_t *comm, int tag, ompi_request_t **request, bool persistent)
{
    mca_coll_rdmabar_layout_t s = mca_coll_rdmabar_layout_make (sbuf, scount, scounts, displs, stype, NULL);
    mca_coll_rdmabar_request_t *req = NULL;
    return mca_coll_rdmabar_req_launch (
        mca_coll_rdmabar_build_scatter (&s, rbuf, rcount, rtype, root, comm, tag, persistent, &req), &req, request,
        !persistent);
}

int mca_coll_rdmabar_iscatter (const void *sbuf, rwv_compat_count_t scount, ompi_datatype_t *stype, void *rbuf,
                               rwv_compat_count_t rcount, ompi_datatype_t *rtype, int root,
                               struct ompi_communicator_t *comm, ompi_request_t **request,
                               mca_coll_base_module_t *module)
{
    return rdmabar_iscatterv_any (sbuf, scount, RWV_COMPAT_NO_COUNTS, RWV_COMPAT_NO_DISPLS, stype, rbuf, rcount, rtype,
                                  root, comm, MCA_COLL_BASE_TAG_SCATTER, request, false);
}

int mca_coll_rdmabar_scatter_init (const void *sbuf, rwv_compat_count_t scount, ompi_datatype_t *stype, void *rbuf,
                                   rwv_compat_count_t rcount, ompi_datatype_t *rtype, int root,
                                   struct ompi_communicator_t *comm, struct ompi_info_t *info, ompi_request_t **request,
                                   mca_coll_base_module_t *module)
{
    return rdmabar_iscatterv_any (sbuf, scount, RWV_COMPAT_NO_COUNTS, RWV_COMPAT_NO_DISPLS, stype, rbuf, rcount, rtype,
                                  root, comm, MCA_COLL_BASE_TAG_SCATTER, request, true);
}

int mca_coll_rdmabar_iscatterv (const void *sbuf, rwv_compat_counts_t scounts, rwv_compat_displs_t displs,
                                ompi_datatype_t *stype, void *rbuf, rwv_compat_count_t rcount, ompi_datatype_t *rtype,
                                int root, struct ompi_communicator_t *comm, ompi_request_t **request,
                                mca_coll_base_module_t *module)
{
    return rdmabar_iscatterv_any (sbuf, 0, scounts, displs, stype, rbuf, rcount, rtype, root, comm,
                                  MCA_COLL_BASE_TAG_SCATTERV, request, false);
}

int mca_coll_rdmabar_scatterv_init (const void *sbuf, rwv_compat_counts_t scounts, rwv_compat_displs_t displs,
                                    ompi_datatype_t *stype, void *rbuf, rwv_compat_count_t rcount,
                                    ompi_datatype_t *rtype, int root, struct ompi_communicator_t *comm,
                                    struct ompi_info_t *info, ompi_request_t **request, mca_coll_base_module_t *module)
{
    return rdmabar_iscatterv_any (sbuf, 0, scounts, displs, stype, rbuf, rcount, rtype, root, comm,
                                  MCA_COLL_BASE_TAG_SCATTERV, request, true);
}

int mca_coll_rdmabar_scatterv (const void *sbuf, rwv_compat_counts_t scounts, rwv_compat_displs_t displs,
                               ompi_datatype_t *stype, void *rbuf, rwv_compat_count_t rcount, ompi_datatype_t *rtype,
                               int root, struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    mca_coll_rdmabar_request_t *req = NULL;
    mca_coll_rdmabar_layout_t s = mca_coll_rdmabar_layout_make (sbuf, 0, scounts, displs, stype, NULL);

    return mca_coll_rdmabar_req_run (
        mca_coll_rdmabar_build_scatter (&s, rbuf, rcount, rtype, root, comm, MCA_COLL_BASE_TAG_SCATTERV, false, &req),
        &req);
}

static int rdmabar_iallgatherv_any (const void *sbuf, rwv_compat_count_t scount, ompi_datatype_t *stype, void *rbuf,
                                    rwv_compat_count_t rcount, rwv_compat_counts_t rcounts, rwv_compat_displs_t displs,
                                    ompi_datatype_t *rtype, struct ompi_communicator_t *comm, int tag,
                                    ompi_request_t **request, bool persistent)
{
    mca_coll_rdmabar_layout_t r = mca_coll_rdmabar_layout_make (rbuf, rcount, rcounts, displs, rtype, NULL);
    mca_coll_rdmabar_request_t *req = NULL;
    return mca_coll_rdmabar_req_launch (
        mca_coll_rdmabar_build_allgather (sbuf, scount, stype, &r, comm, tag, persistent, &req), &req, request,
        !persistent);
}

int mca_coll_rdmabar_iallgather (const void *sbuf, rwv_compat_count_t scount, ompi_datatype_t *stype, void *rbuf,
                                 rwv_compat_count_t rcount, ompi_datatype_t *rtype, struct ompi_communicator_t *comm,
                                 ompi_request_t **request, mca_coll_base_module_t *module)
{
    return rdmabar_iallgatherv_any (sbuf, scount, stype, rbuf, rcount, RWV_COMPAT_NO_COUNTS, RWV_COMPAT_NO_DISPLS,
                                    rtype, comm, MCA_COLL_BASE_TAG_ALLGATHER, request, false);
}

int mca_coll_rdmabar_allgather_init (const void *sbuf, rwv_compat_count_t scount, ompi_datatype_t *stype, void *rbuf,
                                     rwv_compat_count_t rcount, ompi_datatype_t *rtype,
                                     struct ompi_communicator_t *comm, struct ompi_info_t *info,
                                     ompi_request_t **request, mca_coll_base_module_t *module)
{
    return rdmabar_iallgatherv_any (sbuf, scount, stype, rbuf, rcount, RWV_COMPAT_NO_COUNTS, RWV_COMPAT_NO_DISPLS,
                                    rtype, comm, MCA_COLL_BASE_TAG_ALLGATHER, request, true);
}

int mca_coll_rdmabar_iallgatherv (const void *sbuf, rwv_compat_count_t scount, ompi_datatype_t *stype, void *rbuf,
                                  rwv_compat_counts_t rcounts, rwv_compat_displs_t displs, ompi_datatype_t *rtype,
                                  struct ompi_communicator_t *comm, ompi_request_t **request,
                                  mca_coll_base_module_t *module)
{
    return rdmabar_iallgatherv_any (sbuf, scount, stype, rbuf, 0, rcounts, displs, rtype, comm,
                                    MCA_COLL_BASE_TAG_ALLGATHERV, request, false);
}

int mca_coll_rdmabar_allgatherv_init (const void *sbuf, rwv_compat_count_t scount, ompi_datatype_t *stype, void *rbuf,
                                      rwv_compat_counts_t rcounts, rwv_compat_displs_t displs, ompi_datatype_t *rtype,
                                      struct ompi_communicator_t *comm, struct ompi_info_t *info,
                                      ompi_request_t **request, mca_coll_base_module_t *module)
{
    return rdmabar_iallgatherv_any (sbuf, scount, stype, rbuf, 0, rcounts, displs, rtype, comm,
                                    MCA_COLL_BASE_TAG_ALLGATHERV, request, true);
}

/* alltoall (counts NULL) and alltoallv */
static int rdmabar_ialltoallv_any (const void *sbuf, rwv_compat_count_t scount, rwv_compat_counts_t scounts,
                                   rwv_compat_displs_t sdispls, ompi_datatype_t *stype, void *rbuf,
                                   rwv_compat_count_t rcount, rwv_compat_counts_t rcounts, rwv_compat_displs_t rdispls,
                                   ompi_datatype_t *rtype, struct ompi_communicator_t *comm, int tag,
                                   ompi_request_t **request, bool persistent)
{
    mca_coll_rdmabar_layout_t s =
        mca_coll_rdmabar_layout_make (sbuf, scount, scounts, sdispls, MPI_IN_PLACE == sbuf ? rtype : stype, NULL);
    mca_coll_rdmabar_layout_t r = mca_coll_rdmabar_layout_make (rbuf, rcount, rcounts, rdispls, rtype, NULL);
    mca_coll_rdmabar_request_t *req = NULL;
    return mca_coll_rdmabar_req_launch (
        mca_coll_rdmabar_build_alltoall (MPI_IN_PLACE == sbuf ? NULL : &s, &r, comm, tag, persistent, &req), &req,
        request, !persistent);
}

int mca_coll_rdmabar_ialltoall (const void *sbuf, rwv_compat_count_t scount, ompi_datatype_t *stype, void *rbuf,
                                rwv_compat_count_t rcount, ompi_datatype_t *rtype, struct ompi_communicator_t *comm,
                                ompi_request_t **request, mca_coll_base_module_t *module)
{
    return rdmabar_ialltoallv_any (sbuf, scount, RWV_COMPAT_NO_COUNTS, RWV_COMPAT_NO_DISPLS, stype, rbuf, rcount,
                                   RWV_COMPAT_NO_COUNTS, RWV_COMPAT_NO_DISPLS, rtype, comm, MCA_COLL_BASE_TAG_ALLTOALL,
                                   request, false);
}

int mca_coll_rdmabar_alltoall_init (const void *sbuf, rwv_compat_count_t scount, ompi_datatype_t *stype, void *rbuf,
                                    rwv_compat_count_t rcount, ompi_datatype_t *rtype, struct ompi_communicator_t *comm,
                                    struct ompi_info_t *info, ompi_request_t **request, mca_coll_base_module_t *module)
{
    return rdmabar_ialltoallv_any (sbuf, scount, RWV_COMPAT_NO_COUNTS, RWV_COMPAT_NO_DISPLS, stype, rbuf, rcount,
                                   RWV_COMPAT_NO_COUNTS, RWV_COMPAT_NO_DISPLS, rtype, comm, MCA_COLL_BASE_TAG_ALLTOALL,
                                   request, true);
}

int mca_coll_rdmabar_ialltoallv (const void *sbuf, rwv_compat_counts_t scounts, rwv_compat_displs_t sdispls,
                                 ompi_datatype_t *stype, void *rbuf, rwv_compat_counts_t rcounts,
                                 rwv_compat_displs_t rdispls, ompi_datatype_t *rtype, struct ompi_communicator_t *comm,
                                 ompi_request_t **request, mca_coll_base_module_t *module)
{
    return rdmabar_ialltoallv_any (sbuf, 0, scounts, sdispls, stype, rbuf, 0, rcounts, rdispls, rtype, comm,
                                   MCA_COLL_BASE_TAG_ALLTOALLV, request, false);
}

int mca_coll_rdmabar_alltoallv_init (const void *sbuf, rwv_compat_counts_t scounts, rwv_compat_displs_t sdispls,
                                     ompi_datatype_t *stype, void *rbuf, rwv_compat_counts_t rcounts,
                                     rwv_compat_displs_t rdispls, ompi_datatype_t *rtype,
                                     struct ompi_communicator_t *comm, struct ompi_info_t *info,
                                     ompi_request_t **request, mca_coll_base_module_t *module)
{
    return rdmabar_ialltoallv_any (sbuf, 0, scounts, sdispls, stype, rbuf, 0, rcounts, rdispls, rtype, comm,
                                   MCA_COLL_BASE_TAG_ALLTOALLV, request, true);
}

static int rdmabar_ialltoallw_any (const void *sbuf, rwv_compat_counts_t scounts, rwv_compat_displs_t sdispls,
                                   ompi_datatype_t *const *stypes, void *rbuf, rwv_compat_counts_t rcounts,
                                   rwv_compat_displs_t rdispls, ompi_datatype_t *const *rtypes,
                                   struct ompi_communicator_t *comm, ompi_request_t **request, bool persistent)
{
    mca_coll_rdmabar_layout_t s = mca_coll_rdmabar_layout_make (sbuf, 0, scounts, sdispls, NULL, stypes);
    mca_coll_rdmabar_layout_t r = mca_coll_rdmabar_layout_make (rbuf, 0, rcounts, rdispls, NULL, rtypes);
    mca_coll_rdmabar_request_t *req = NULL;
    return mca_coll_rdmabar_req_launch (mca_coll_rdmabar_build_alltoall (MPI_IN_PLACE == sbuf ? NULL : &s, &r, comm,
                                                                         MCA_COLL_BASE_TAG_ALLTOALLW, persistent, &req),
                                        &req, request, !persistent);
}

int mca_coll_rdmabar_ialltoallw (const void *sbuf, rwv_compat_counts_t scounts, rwv_compat_displs_t sdispls,
                                 ompi_datatype_t *const *stypes, void *rbuf, rwv_compat_counts_t rcounts,
                                 rwv_compat_displs_t rdispls, ompi_datatype_t *const *rtypes,
                                 struct ompi_communicator_t *comm, ompi_request_t **request,
                                 mca_coll_base_module_t *module)
{
    return rdmabar_ialltoallw_any (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm, request,
                                   false);
}

int mca_coll_rdmabar_alltoallw_init (const void *sbuf, rwv_compat_counts_t scounts, rwv_compat_displs_t sdispls,
                                     ompi_datatype_t *const *stypes, void *rbuf, rwv_compat_counts_t rcounts,
                                     rwv_compat_displs_t rdispls, ompi_datatype_t *const *rtypes,
                                     struct ompi_communicator_t *comm, struct ompi_info_t *info,
                                     ompi_request_t **request, mca_coll_base_module_t *module)
{
    return rdmabar_ialltoallw_any (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm, request,
                                   true);
}

int mca_coll_rdmabar_alltoallw (const void *sbuf, rwv_compat_counts_t scounts, rwv_compat_displs_t sdispls,
                                ompi_datatype_t *const *stypes, void *rbuf, rwv_compat_counts_t rcounts,
                                rwv_compat_displs_t rdispls, ompi_datatype_t *const *rtypes,
                                struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    mca_coll_rdmabar_request_t *req = NULL;
    mca_coll_rdmabar_layout_t s = mca_coll_rdmabar_layout_make (sbuf, 0, scounts, sdispls, NULL, stypes);
    mca_coll_rdmabar_layout_t r = mca_coll_rdmabar_layout_make (rbuf, 0, rcounts, rdispls, NULL, rtypes);

    return mca_coll_rdmabar_req_run (mca_coll_rdmabar_build_alltoall (MPI_IN_PLACE == sbuf ? NULL : &s, &r, comm,
                                                                      MCA_COLL_BASE_TAG_ALLTOALLW, false, &req),
                                     &req);
}

static int rdmabar_ireduce_any (const void *sbuf, void *rbuf, rwv_compat_count_t count, ompi_datatype_t *type,
                                struct ompi_op_t *op, int root, struct ompi_communicator_t *comm, int tag,
                                ompi_request_t **request, bool persistent)
{
    mca_coll_rdmabar_request_t *req = NULL;
    return mca_coll_rdmabar_req_launch (
        mca_coll_rdmabar_build_reduce (sbuf, rbuf, count, type, op, root, comm, tag, persistent, &req), &req, request,
        !persistent);
}

int mca_coll_rdmabar_ireduce (const void *sbuf, void *rbuf, rwv_compat_count_t count, ompi_datatype_t *type,
                              struct ompi_op_t *op, int root, struct ompi_communicator_t *comm,
                              ompi_request_t **request, mca_coll_base_module_t *module)
{
    return rdmabar_ireduce_any (sbuf, rbuf, count, type, op, root, comm, MCA_COLL_BASE_TAG_REDUCE, request, false);
}

int mca_coll_rdmabar_reduce_init (const void *sbuf, void *rbuf, rwv_compat_count_t count, ompi_datatype_t *type,
                                  struct ompi_op_t *op, int root, struct ompi_communicator_t *comm,
                                  struct ompi_info_t *info, ompi_request_t **request, mca_coll_base_module_t *module)
{
    return rdmabar_ireduce_any (sbuf, rbuf, count, type, op, root, comm, MCA_COLL_BASE_TAG_REDUCE, request, true);
}

int mca_coll_rdmabar_iallreduce (const void *sbuf, void *rbuf, rwv_compat_count_t count, ompi_datatype_t *type,
                                 struct ompi_op_t *op, struct ompi_communicator_t *comm, ompi_request_t **request,
                                 mca_coll_base_module_t *module)
{
    return rdmabar_ireduce_any (sbuf, rbuf, count, type, op, -1, comm, MCA_COLL_BASE_TAG_ALLREDUCE, request, false);
}

int mca_coll_rdmabar_allreduce_init (const void *sbuf, void *rbuf, rwv_compat_count_t count, ompi_datatype_t *type,
                                     struct ompi_op_t *op, struct ompi_communicator_t *comm, struct ompi_info_t *info,
                                     ompi_request_t **request, mca_coll_base_module_t *module)
{
    return rdmabar_ireduce_any (sbuf, rbuf, count, type, op, -1, comm, MCA_COLL_BASE_TAG_ALLREDUCE, request, true);
}

static int rdmabar_iscan_any (const void *sbuf, void *rbuf, rwv_compat_count_t count, ompi_datatype_t *type,
                              struct ompi_op_t *op, bool inclusive, struct ompi_communicator_t *comm,
                              ompi_request_t **request, bool persistent)
{
    int tag = inclusive ? MCA_COLL_BASE_TAG_SCAN : MCA_COLL_BASE_TAG_EXSCAN;
    mca_coll_rdmabar_request_t *req = NULL;
    return mca_coll_rdmabar_req_launch (
        mca_coll_rdmabar_build_scan (sbuf, rbuf, count, type, op, inclusive, comm, tag, persistent, &req), &req,
        request, !persistent);
}

int mca_coll_rdmabar_iscan (const void *sbuf, void *rbuf, rwv_compat_count_t count, ompi_datatype_t *type,
                            struct ompi_op_t *op, struct ompi_communicator_t *comm, ompi_request_t **request,
                            mca_coll_base_module_t *module)
{
    return rdmabar_iscan_any (sbuf, rbuf, count, type, op, true, comm, request, false);
}

int mca_coll_rdmabar_scan_init (const void *sbuf, void *rbuf, rwv_compat_count_t count, ompi_datatype_t *type,
                                struct ompi_op_t *op, struct ompi_communicator_t *comm, struct ompi_info_t *info,
                                ompi_request_t **request, mca_coll_base_module_t *module)
{
    return rdmabar_iscan_any (sbuf, rbuf, count, type, op, true, comm, request, true);
}

int mca_coll_rdmabar_iexscan (const void *sbuf, void *rbuf, rwv_compat_count_t count, ompi_datatype_t *type,
                              struct ompi_op_t *op, struct ompi_communicator_t *comm, ompi_request_t **request,
                              mca_coll_base_module_t *module)
{
    return rdmabar_iscan_any (sbuf, rbuf, count, type, op, false, comm, request, false);
}

int mca_coll_rdmabar_exscan_init (const void *sbuf, void *rbuf, rwv_compat_count_t count, ompi_datatype_t *type,
                                  struct ompi_op_t *op, struct ompi_communicator_t *comm, struct ompi_info_t *info,
                                  ompi_request_t **request, mca_coll_base_module_t *module)
{
    return rdmabar_iscan_any (sbuf, rbuf, count, type, op, false, comm, request, true);
}

static int rdmabar_ireduce_scatter_any (const void *sbuf, void *rbuf, rwv_compat_count_t rcount,
                                        rwv_compat_counts_t rcounts, ompi_datatype_t *type, struct ompi_op_t *op,
                                        struct ompi_communicator_t *comm, int tag, ompi_request_t **request,
                                        bool persistent)
{
    mca_coll_rdmabar_request_t *req = NULL;
    return mca_coll_rdmabar_req_launch (
        mca_coll_rdmabar_build_reduce_scatter (sbuf, rbuf, rcount, rcounts, type, op, comm, tag, persistent, &req),
        &req, request, !persistent);
}

int mca_coll_rdmabar_ireduce_scatter_block (const void *sbuf, void *rbuf, rwv_compat_count_t rcount,
                                            ompi_datatype_t *type, struct ompi_op_t *op,
                                            struct ompi_communicator_t *comm, ompi_request_t **request,
                                            mca_coll_base_module_t *module)
{
    return rdmabar_ireduce_scatter_any (sbuf, rbuf, rcount, RWV_COMPAT_NO_COUNTS, type, op, comm,
                                        MCA_COLL_BASE_TAG_REDUCE_SCATTER_BLOCK, request, false);
}

int mca_coll_rdmabar_reduce_scatter_block_init (const void *sbuf, void *rbuf, rwv_compat_count_t rcount,
                                                ompi_datatype_t *type, struct ompi_op_t *op,
                                                struct ompi_communicator_t *comm, struct ompi_info_t *info,
                                                ompi_request_t **request, mca_coll_base_module_t *module)
{
    return rdmabar_ireduce_scatter_any (sbuf, rbuf, rcount, RWV_COMPAT_NO_COUNTS, type, op, comm,
                                        MCA_COLL_BASE_TAG_REDUCE_SCATTER_BLOCK, request, true);
}

int mca_coll_rdmabar_ireduce_scatter (const void *sbuf, void *rbuf, rwv_compat_counts_t rcounts, ompi_datatype_t *type,
                                      struct ompi_op_t *op, struct ompi_communicator_t *comm, ompi_request_t **request,
                                      mca_coll_base_module_t *module)
{
    return rdmabar_ireduce_scatter_any (sbuf, rbuf, 0, rcounts, type, op, comm, MCA_COLL_BASE_TAG_REDUCE_SCATTER,
                                        request, false);
}

int mca_coll_rdmabar_reduce_scatter_init (const void *sbuf, void *rbuf, rwv_compat_counts_t rcounts,
                                          ompi_datatype_t *type, struct ompi_op_t *op, struct ompi_communicator_t *comm,
                                          struct ompi_info_t *info, ompi_request_t **request,
                                          mca_coll_base_module_t *module)
{
    return rdmabar_ireduce_scatter_any (sbuf, rbuf, 0, rcounts, type, op, comm, MCA_COLL_BASE_TAG_REDUCE_SCATTER,
                                        request, true);
}
