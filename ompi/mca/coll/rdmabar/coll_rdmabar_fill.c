/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * When rdmabar is the only coll component allowed (`--mca coll rdmabar`),
 * Open MPI 4.1 still needs every blocking, nonblocking and persistent
 * collective from someone.  At enable time rdmabar fills each slot that no
 * component below it filled:
 *
 *   blocking     Open MPI's base algorithms exported by libmpi (the ones
 *                coll/tuned picks from), and rdmabar's own linear gatherv,
 *                scatterv and alltoallw, which libmpi has no base for
 *   nonblocking, persistent
 *                rdmabar's one-round linear requests (coll_rdmabar_nbc.c)
 *   neighborhood a clear error: these need coll/basic or coll/libnbc
 *
 * In the default component set everything is filled below, so rdmabar
 * supplies only its barrier.
 * Layer: collectives (docs/layout.md).
 */
#include "ompi_config.h"

#include "mpi.h"

#include "opal/util/show_help.h"
#include "ompi/communicator/communicator.h"
#include "ompi/mca/coll/base/base.h"
#include "ompi/mca/coll/base/coll_base_functions.h"
#include "rwv_ompi_compat.h"

#include "coll_rdmabar.h"
#include "coll_rdmabar_fill.h"

static int rdmabar_bcast (void *buf, rwv_compat_count_t count, struct ompi_datatype_t *type, int root,
                          struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    return ompi_coll_base_bcast_intra_binomial (buf, count, type, root, comm, module, 0);
}

/* Non-commutative operations need the reduction in rank order.  (op.h,
 * which has ompi_op_is_commute, is not among the installed headers.) */
static bool rdmabar_commutes (struct ompi_op_t *op)
{
    int commute = 0;

    (void) PMPI_Op_commutative (op, &commute);
    return commute;
}

static int rdmabar_reduce (const void *sbuf, void *rbuf, rwv_compat_count_t count, struct ompi_datatype_t *type,
                           struct ompi_op_t *op, int root, struct ompi_communicator_t *comm,
                           mca_coll_base_module_t *module)
{
    if (rdmabar_commutes (op)) {
        return ompi_coll_base_reduce_intra_binomial (sbuf, rbuf, count, type, op, root, comm, module, 0, 0);
    }
    return ompi_coll_base_reduce_intra_in_order_binary (sbuf, rbuf, count, type, op, root, comm, module, 0, 0);
}

static int rdmabar_allreduce (const void *sbuf, void *rbuf, rwv_compat_count_t count, struct ompi_datatype_t *type,
                              struct ompi_op_t *op, struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    if (rdmabar_commutes (op)) {
        return ompi_coll_base_allreduce_intra_recursivedoubling (sbuf, rbuf, count, type, op, comm, module);
    }
    return ompi_coll_base_allreduce_intra_nonoverlapping (sbuf, rbuf, count, type, op, comm, module);
}

/* ------------------------------------------------------------ one rank */

/* libmpi's base algorithms assume more than one rank (with one, some
 * reduce the wrong buffer or crash); coll/self normally serves such
 * communicators.  Alone, rdmabar runs them through its one-round requests,
 * which then are local copies. */
#define RDMABAR_LOCAL(name, params, ...)                                        \
    static int rdmabar_local_##name params                                     \
    {                                                                          \
        ompi_request_t *req;                                                   \
        int rc = mca_coll_rdmabar_i##name (__VA_ARGS__, comm, &req, module);   \
        return OMPI_SUCCESS == rc ? ompi_request_wait (&req, MPI_STATUS_IGNORE) : rc; \
    }

RDMABAR_LOCAL(allgather,
               (const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype, void *rbuf,
                rwv_compat_count_t rcount, struct ompi_datatype_t *rtype, struct ompi_communicator_t *comm,
                mca_coll_base_module_t *module),
               sbuf, scount, stype, rbuf, rcount, rtype)
RDMABAR_LOCAL(allgatherv,
               (const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype, void *rbuf,
                rwv_compat_counts_t rcounts, rwv_compat_displs_t displs, struct ompi_datatype_t *rtype,
                struct ompi_communicator_t *comm, mca_coll_base_module_t *module),
               sbuf, scount, stype, rbuf, rcounts, displs, rtype)
RDMABAR_LOCAL(allreduce,
               (const void *sbuf, void *rbuf, rwv_compat_count_t count, struct ompi_datatype_t *type,
                struct ompi_op_t *op, struct ompi_communicator_t *comm, mca_coll_base_module_t *module),
               sbuf, rbuf, count, type, op)
RDMABAR_LOCAL(alltoall,
               (const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype, void *rbuf,
                rwv_compat_count_t rcount, struct ompi_datatype_t *rtype, struct ompi_communicator_t *comm,
                mca_coll_base_module_t *module),
               sbuf, scount, stype, rbuf, rcount, rtype)
RDMABAR_LOCAL(alltoallv,
               (const void *sbuf, rwv_compat_counts_t scounts, rwv_compat_displs_t sdispls,
                struct ompi_datatype_t *stype, void *rbuf, rwv_compat_counts_t rcounts, rwv_compat_displs_t rdispls,
                struct ompi_datatype_t *rtype, struct ompi_communicator_t *comm, mca_coll_base_module_t *module),
               sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype)
RDMABAR_LOCAL(bcast,
               (void *buf, rwv_compat_count_t count, struct ompi_datatype_t *type, int root,
                struct ompi_communicator_t *comm, mca_coll_base_module_t *module),
               buf, count, type, root)
RDMABAR_LOCAL(exscan,
               (const void *sbuf, void *rbuf, rwv_compat_count_t count, struct ompi_datatype_t *type,
                struct ompi_op_t *op, struct ompi_communicator_t *comm, mca_coll_base_module_t *module),
               sbuf, rbuf, count, type, op)
RDMABAR_LOCAL(gather,
               (const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype, void *rbuf,
                rwv_compat_count_t rcount, struct ompi_datatype_t *rtype, int root, struct ompi_communicator_t *comm,
                mca_coll_base_module_t *module),
               sbuf, scount, stype, rbuf, rcount, rtype, root)
RDMABAR_LOCAL(reduce,
               (const void *sbuf, void *rbuf, rwv_compat_count_t count, struct ompi_datatype_t *type,
                struct ompi_op_t *op, int root, struct ompi_communicator_t *comm, mca_coll_base_module_t *module),
               sbuf, rbuf, count, type, op, root)
RDMABAR_LOCAL(reduce_scatter,
               (const void *sbuf, void *rbuf, rwv_compat_counts_t rcounts, struct ompi_datatype_t *type,
                struct ompi_op_t *op, struct ompi_communicator_t *comm, mca_coll_base_module_t *module),
               sbuf, rbuf, rcounts, type, op)
RDMABAR_LOCAL(reduce_scatter_block,
               (const void *sbuf, void *rbuf, rwv_compat_count_t rcount, struct ompi_datatype_t *type,
                struct ompi_op_t *op, struct ompi_communicator_t *comm, mca_coll_base_module_t *module),
               sbuf, rbuf, rcount, type, op)
RDMABAR_LOCAL(scan,
               (const void *sbuf, void *rbuf, rwv_compat_count_t count, struct ompi_datatype_t *type,
                struct ompi_op_t *op, struct ompi_communicator_t *comm, mca_coll_base_module_t *module),
               sbuf, rbuf, count, type, op)
RDMABAR_LOCAL(scatter,
               (const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype, void *rbuf,
                rwv_compat_count_t rcount, struct ompi_datatype_t *rtype, int root, struct ompi_communicator_t *comm,
                mca_coll_base_module_t *module),
               sbuf, scount, stype, rbuf, rcount, rtype, root)

/* ------------------------------------------------------------ neighborhood */

static int rdmabar_no_neighbor (struct ompi_communicator_t *comm)
{
    static bool said;

    if (!said) {
        said = true;
        rwv_show_help ("help-coll-rdmabar.txt", "no-neighborhood", true, ompi_process_info.nodename, comm->c_name);
    }
    return MPI_ERR_UNSUPPORTED_OPERATION;
}

/* one clear error per form: blocking, nonblocking, persistent */
#define RDMABAR_NO_NEIGHBOR(name, ...)                                          \
    static int rdmabar_no_##name (__VA_ARGS__)                                  \
    {                                                                           \
        return rdmabar_no_neighbor (comm);                                      \
    }

RDMABAR_NO_NEIGHBOR(gather, const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype, void *rbuf,
                     rwv_compat_count_t rcount, struct ompi_datatype_t *rtype, struct ompi_communicator_t *comm,
                     mca_coll_base_module_t *module)
RDMABAR_NO_NEIGHBOR(gatherv, const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype, void *rbuf,
                     rwv_compat_counts_t rcounts, rwv_compat_displs_t displs, struct ompi_datatype_t *rtype,
                     struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
RDMABAR_NO_NEIGHBOR(alltoallv, const void *sbuf, rwv_compat_counts_t scounts, rwv_compat_displs_t sdispls,
                     struct ompi_datatype_t *stype, void *rbuf, rwv_compat_counts_t rcounts,
                     rwv_compat_displs_t rdispls, struct ompi_datatype_t *rtype, struct ompi_communicator_t *comm,
                     mca_coll_base_module_t *module)
RDMABAR_NO_NEIGHBOR(alltoallw, const void *sbuf, rwv_compat_counts_t scounts, rwv_compat_byte_displs_t sdispls,
                     struct ompi_datatype_t *const *stypes, void *rbuf, rwv_compat_counts_t rcounts,
                     rwv_compat_byte_displs_t rdispls, struct ompi_datatype_t *const *rtypes,
                     struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
RDMABAR_NO_NEIGHBOR(igather, const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype, void *rbuf,
                     rwv_compat_count_t rcount, struct ompi_datatype_t *rtype, struct ompi_communicator_t *comm,
                     ompi_request_t **request, mca_coll_base_module_t *module)
RDMABAR_NO_NEIGHBOR(igatherv, const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype, void *rbuf,
                     rwv_compat_counts_t rcounts, rwv_compat_displs_t displs, struct ompi_datatype_t *rtype,
                     struct ompi_communicator_t *comm, ompi_request_t **request, mca_coll_base_module_t *module)
RDMABAR_NO_NEIGHBOR(ialltoallv, const void *sbuf, rwv_compat_counts_t scounts, rwv_compat_displs_t sdispls,
                     struct ompi_datatype_t *stype, void *rbuf, rwv_compat_counts_t rcounts,
                     rwv_compat_displs_t rdispls, struct ompi_datatype_t *rtype, struct ompi_communicator_t *comm,
                     ompi_request_t **request, mca_coll_base_module_t *module)
RDMABAR_NO_NEIGHBOR(ialltoallw, const void *sbuf, rwv_compat_counts_t scounts, rwv_compat_byte_displs_t sdispls,
                     struct ompi_datatype_t *const *stypes, void *rbuf, rwv_compat_counts_t rcounts,
                     rwv_compat_byte_displs_t rdispls, struct ompi_datatype_t *const *rtypes,
                     struct ompi_communicator_t *comm, ompi_request_t **request, mca_coll_base_module_t *module)
RDMABAR_NO_NEIGHBOR(gather_init, const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype,
                     void *rbuf, rwv_compat_count_t rcount, struct ompi_datatype_t *rtype,
                     struct ompi_communicator_t *comm, struct ompi_info_t *info, ompi_request_t **request,
                     mca_coll_base_module_t *module)
RDMABAR_NO_NEIGHBOR(gatherv_init, const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype,
                     void *rbuf, rwv_compat_counts_t rcounts, rwv_compat_displs_t displs, struct ompi_datatype_t *rtype,
                     struct ompi_communicator_t *comm, struct ompi_info_t *info, ompi_request_t **request,
                     mca_coll_base_module_t *module)
RDMABAR_NO_NEIGHBOR(alltoallv_init, const void *sbuf, rwv_compat_counts_t scounts, rwv_compat_displs_t sdispls,
                     struct ompi_datatype_t *stype, void *rbuf, rwv_compat_counts_t rcounts,
                     rwv_compat_displs_t rdispls, struct ompi_datatype_t *rtype, struct ompi_communicator_t *comm,
                     struct ompi_info_t *info, ompi_request_t **request, mca_coll_base_module_t *module)
RDMABAR_NO_NEIGHBOR(alltoallw_init, const void *sbuf, rwv_compat_counts_t scounts, rwv_compat_byte_displs_t sdispls,
                     struct ompi_datatype_t *const *stypes, void *rbuf, rwv_compat_counts_t rcounts,
                     rwv_compat_byte_displs_t rdispls, struct ompi_datatype_t *const *rtypes,
                     struct ompi_communicator_t *comm, struct ompi_info_t *info, ompi_request_t **request,
                     mca_coll_base_module_t *module)

/* ------------------------------------------------------------ when alone is not enough */

/* Open MPI refuses a communicator one of whose collectives nobody
 * supplies (and 4.1 can crash while cleaning up after that).  When rdmabar
 * is the only coll component allowed, that gap is rdmabar's: say which,
 * and how to fill it, once per process. */
void mca_coll_rdmabar_incomplete (struct ompi_communicator_t *comm, const char *why)
{
    static bool said;

    if (said || 1 != opal_list_get_size (&ompi_coll_base_framework.framework_components)) {
        return;
    }
    said = true;
    rwv_show_help ("help-coll-rdmabar.txt", "alone-incomplete", true, ompi_process_info.nodename, comm->c_name,
                   rwv_compat_comm_id (comm), why);
}

/* ------------------------------------------------------------ filling */

static int rdmabar_fill_blocking (mca_coll_rdmabar_module_t *module, struct ompi_communicator_t *comm)
{
    const bool one = 1 == ompi_comm_size (comm);
    int filled = 0;

    MCA_COLL_RDMABAR_FILL(comm, module, filled, allgather,
                           one ? rdmabar_local_allgather : ompi_coll_base_allgather_intra_ring);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, allgatherv,
                           one ? rdmabar_local_allgatherv : ompi_coll_base_allgatherv_intra_ring);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, allreduce, one ? rdmabar_local_allreduce : rdmabar_allreduce);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, alltoall,
                           one ? rdmabar_local_alltoall : ompi_coll_base_alltoall_intra_basic_linear);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, alltoallv,
                           one ? rdmabar_local_alltoallv : ompi_coll_base_alltoallv_intra_basic_linear);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, alltoallw, mca_coll_rdmabar_alltoallw);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, bcast, one ? rdmabar_local_bcast : rdmabar_bcast);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, exscan,
                           one ? rdmabar_local_exscan : ompi_coll_base_exscan_intra_linear);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, gather,
                           one ? rdmabar_local_gather : ompi_coll_base_gather_intra_binomial);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, gatherv, mca_coll_rdmabar_gatherv);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, reduce, one ? rdmabar_local_reduce : rdmabar_reduce);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, reduce_scatter,
                           one ? rdmabar_local_reduce_scatter : ompi_coll_base_reduce_scatter_intra_nonoverlapping);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, reduce_scatter_block,
                           one ? rdmabar_local_reduce_scatter_block : ompi_coll_base_reduce_scatter_block_basic_linear);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, scan, one ? rdmabar_local_scan : ompi_coll_base_scan_intra_linear);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, scatter,
                           one ? rdmabar_local_scatter : ompi_coll_base_scatter_intra_binomial);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, scatterv, mca_coll_rdmabar_scatterv);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, reduce_local, mca_coll_base_reduce_local);
    RWV_COMPAT_COLL_FILL_AGREE(comm, &module->super, filled);
    return filled;
}

static int rdmabar_fill_nonblocking (mca_coll_rdmabar_module_t *module, struct ompi_communicator_t *comm)
{
    int filled = 0;

    MCA_COLL_RDMABAR_FILL(comm, module, filled, iallgather, mca_coll_rdmabar_iallgather);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, iallgatherv, mca_coll_rdmabar_iallgatherv);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, iallreduce, mca_coll_rdmabar_iallreduce);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, ialltoall, mca_coll_rdmabar_ialltoall);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, ialltoallv, mca_coll_rdmabar_ialltoallv);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, ialltoallw, mca_coll_rdmabar_ialltoallw);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, ibarrier, mca_coll_rdmabar_ibarrier);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, ibcast, mca_coll_rdmabar_ibcast);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, iexscan, mca_coll_rdmabar_iexscan);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, igather, mca_coll_rdmabar_igather);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, igatherv, mca_coll_rdmabar_igatherv);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, ireduce, mca_coll_rdmabar_ireduce);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, ireduce_scatter, mca_coll_rdmabar_ireduce_scatter);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, ireduce_scatter_block, mca_coll_rdmabar_ireduce_scatter_block);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, iscan, mca_coll_rdmabar_iscan);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, iscatter, mca_coll_rdmabar_iscatter);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, iscatterv, mca_coll_rdmabar_iscatterv);
    return filled;
}

static int rdmabar_fill_persistent (mca_coll_rdmabar_module_t *module, struct ompi_communicator_t *comm)
{
    int filled = 0;

    MCA_COLL_RDMABAR_FILL(comm, module, filled, allgather_init, mca_coll_rdmabar_allgather_init);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, allgatherv_init, mca_coll_rdmabar_allgatherv_init);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, allreduce_init, mca_coll_rdmabar_allreduce_init);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, alltoall_init, mca_coll_rdmabar_alltoall_init);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, alltoallv_init, mca_coll_rdmabar_alltoallv_init);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, alltoallw_init, mca_coll_rdmabar_alltoallw_init);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, barrier_init, mca_coll_rdmabar_barrier_init);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, bcast_init, mca_coll_rdmabar_bcast_init);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, exscan_init, mca_coll_rdmabar_exscan_init);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, gather_init, mca_coll_rdmabar_gather_init);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, gatherv_init, mca_coll_rdmabar_gatherv_init);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, reduce_init, mca_coll_rdmabar_reduce_init);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, reduce_scatter_init, mca_coll_rdmabar_reduce_scatter_init);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, reduce_scatter_block_init, mca_coll_rdmabar_reduce_scatter_block_init);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, scan_init, mca_coll_rdmabar_scan_init);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, scatter_init, mca_coll_rdmabar_scatter_init);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, scatterv_init, mca_coll_rdmabar_scatterv_init);
    return filled;
}

static void rdmabar_fill_neighborhood (mca_coll_rdmabar_module_t *module, struct ompi_communicator_t *comm)
{
    int filled = 0;

    MCA_COLL_RDMABAR_FILL(comm, module, filled, neighbor_allgather, rdmabar_no_gather);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, neighbor_allgatherv, rdmabar_no_gatherv);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, neighbor_alltoall, rdmabar_no_gather);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, neighbor_alltoallv, rdmabar_no_alltoallv);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, neighbor_alltoallw, rdmabar_no_alltoallw);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, ineighbor_allgather, rdmabar_no_igather);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, ineighbor_allgatherv, rdmabar_no_igatherv);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, ineighbor_alltoall, rdmabar_no_igather);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, ineighbor_alltoallv, rdmabar_no_ialltoallv);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, ineighbor_alltoallw, rdmabar_no_ialltoallw);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, neighbor_allgather_init, rdmabar_no_gather_init);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, neighbor_allgatherv_init, rdmabar_no_gatherv_init);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, neighbor_alltoall_init, rdmabar_no_gather_init);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, neighbor_alltoallv_init, rdmabar_no_alltoallv_init);
    MCA_COLL_RDMABAR_FILL(comm, module, filled, neighbor_alltoallw_init, rdmabar_no_alltoallw_init);
    (void) filled;
}

/* Returns how many collectives rdmabar took over, or an error.  The base
 * algorithms keep their per-communicator state in the module's base_data. */
int mca_coll_rdmabar_fill (mca_coll_rdmabar_module_t *module, struct ompi_communicator_t *comm)
{
    int filled = rdmabar_fill_blocking (module, comm);

    if (mca_coll_rdmabar_nbc_usable ()) {
        filled += rdmabar_fill_nonblocking (module, comm) + rdmabar_fill_persistent (module, comm);
    } else {
        opal_output_verbose (MCA_BASE_VERBOSE_WARN, ompi_coll_base_framework.framework_output, "coll/rdmabar: %s: %s",
                             comm->c_name, mca_coll_rdmabar_nbc_why ());
        mca_coll_rdmabar_incomplete (comm, mca_coll_rdmabar_nbc_why ());
    }

    if (0 == filled) {
        return 0;
    }
    rdmabar_fill_neighborhood (module, comm);
    module->super.base_data = OBJ_NEW(mca_coll_base_comm_t);
    if (NULL == module->super.base_data) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    opal_output_verbose (MCA_BASE_VERBOSE_COMPONENT, ompi_coll_base_framework.framework_output,
                         "coll/rdmabar: %s: no component below supplies %d collectives; rdmabar supplies "
                         "them (base algorithms, linear nonblocking and persistent ones)", comm->c_name, filled);
    return filled;
}
