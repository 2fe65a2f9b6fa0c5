/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * The request each nonblocking or persistent collective on an
 * intracommunicator runs (coll_rdmabar_nbc.c): one round of the request
 * engine (coll_rdmabar_request.h), linear in the number of ranks.
 *
 * Each collective uses its blocking counterpart's base tag.  MPI orders
 * collectives alike on every rank and the PML matches in order per peer and
 * tag, so a pending operation and a later one never take each other's data.
 * Layer: building blocks (docs/layout.md).
 */
#include "ompi_config.h"

#include "mpi.h"

#include <stdlib.h>

#include "ompi/communicator/communicator.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/coll/base/coll_tags.h"

#include "coll_rdmabar.h"
#include "coll_rdmabar_nbc_build.h"

int mca_coll_rdmabar_build_barrier (struct ompi_communicator_t *comm, bool persistent, mca_coll_rdmabar_request_t **out)
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

int mca_coll_rdmabar_build_bcast (void *buf, rwv_compat_count_t count, ompi_datatype_t *type, int root,
                                  struct ompi_communicator_t *comm, bool persistent, mca_coll_rdmabar_request_t **out)
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

int mca_coll_rdmabar_build_gather (const void *sbuf, rwv_compat_count_t scount, ompi_datatype_t *stype,
                                   const mca_coll_rdmabar_layout_t *r, int root, struct ompi_communicator_t *comm,
                                   int tag, bool persistent, mca_coll_rdmabar_request_t **out)
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
            mca_coll_rdmabar_req_recv (*out, mca_coll_rdmabar_layout_at (r, p), mca_coll_rdmabar_layout_count (r, p),
                                       mca_coll_rdmabar_layout_type (r, p), p);
        } else if (MPI_IN_PLACE != sbuf) {
            mca_coll_rdmabar_req_copy (*out, sbuf, scount, stype, mca_coll_rdmabar_layout_at (r, p),
                                       mca_coll_rdmabar_layout_count (r, p), mca_coll_rdmabar_layout_type (r, p));
        }
    }
    return rc;
}

int mca_coll_rdmabar_build_scatter (const mca_coll_rdmabar_layout_t *s, void *rbuf, rwv_compat_count_t rcount,
                                    ompi_datatype_t *rtype, int root, struct ompi_communicator_t *comm, int tag,
                                    bool persistent, mca_coll_rdmabar_request_t **out)
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
            mca_coll_rdmabar_req_send (*out, mca_coll_rdmabar_layout_at (s, p), mca_coll_rdmabar_layout_count (s, p),
                                       mca_coll_rdmabar_layout_type (s, p), p);
        } else if (MPI_IN_PLACE != rbuf) {
            mca_coll_rdmabar_req_copy (*out, mca_coll_rdmabar_layout_at (s, p), mca_coll_rdmabar_layout_count (s, p),
                                       mca_coll_rdmabar_layout_type (s, p), rbuf, rcount, rtype);
        }
    }
    return rc;
}

int mca_coll_rdmabar_build_allgather (const void *sbuf, rwv_compat_count_t scount, ompi_datatype_t *stype,
                                      const mca_coll_rdmabar_layout_t *r, struct ompi_communicator_t *comm, int tag,
                                      bool persistent, mca_coll_rdmabar_request_t **out)
{
    int me = ompi_comm_rank (comm), size = ompi_comm_size (comm);
    int rc = mca_coll_rdmabar_req_new (comm, tag, 2 * size, persistent, out);

    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    if (MPI_IN_PLACE == sbuf) {
        sbuf = mca_coll_rdmabar_layout_at (r, me);
        scount = mca_coll_rdmabar_layout_count (r, me);
        stype = mca_coll_rdmabar_layout_type (r, me);
    } else {
        mca_coll_rdmabar_req_copy (*out, sbuf, scount, stype, mca_coll_rdmabar_layout_at (r, me),
                                   mca_coll_rdmabar_layout_count (r, me), mca_coll_rdmabar_layout_type (r, me));
    }
    for (int p = 0 ; p < size ; ++p) {
        if (p != me) {
            mca_coll_rdmabar_req_recv (*out, mca_coll_rdmabar_layout_at (r, p), mca_coll_rdmabar_layout_count (r, p),
                                       mca_coll_rdmabar_layout_type (r, p), p);
            mca_coll_rdmabar_req_send (*out, sbuf, scount, stype, p);
        }
    }
    return rc;
}

/* s == NULL: in place */
int mca_coll_rdmabar_build_alltoall (const mca_coll_rdmabar_layout_t *s, const mca_coll_rdmabar_layout_t *r,
                                     struct ompi_communicator_t *comm, int tag, bool persistent,
                                     mca_coll_rdmabar_request_t **out)
{
    int me = ompi_comm_rank (comm), size = ompi_comm_size (comm);
    int rc = mca_coll_rdmabar_req_new (comm, tag, 3 * size, persistent, out);
    mca_coll_rdmabar_layout_t mirror;

    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    if (NULL == s) {
        rc = mca_coll_rdmabar_req_mirror (*out, r, &mirror);
        s = &mirror;
    } else {
        mca_coll_rdmabar_req_copy (*out, mca_coll_rdmabar_layout_at (s, me), mca_coll_rdmabar_layout_count (s, me),
                                   mca_coll_rdmabar_layout_type (s, me), mca_coll_rdmabar_layout_at (r, me),
                                   mca_coll_rdmabar_layout_count (r, me), mca_coll_rdmabar_layout_type (r, me));
    }
    for (int p = 0 ; OMPI_SUCCESS == rc && p < size ; ++p) {
        if (p != me) {
            mca_coll_rdmabar_req_recv (*out, mca_coll_rdmabar_layout_at (r, p), mca_coll_rdmabar_layout_count (r, p),
                                       mca_coll_rdmabar_layout_type (r, p), p);
            mca_coll_rdmabar_req_send (*out, mca_coll_rdmabar_layout_at (s, p), mca_coll_rdmabar_layout_count (s, p),
                                       mca_coll_rdmabar_layout_type (s, p), p);
        }
    }
    return rc;
}

/* reduce (root >= 0), allreduce (root < 0) */
int mca_coll_rdmabar_build_reduce (const void *sbuf, void *rbuf, rwv_compat_count_t count, ompi_datatype_t *type,
                                   struct ompi_op_t *op, int root, struct ompi_communicator_t *comm, int tag,
                                   bool persistent, mca_coll_rdmabar_request_t **out)
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
int mca_coll_rdmabar_build_scan (const void *sbuf, void *rbuf, rwv_compat_count_t count, ompi_datatype_t *type,
                                 struct ompi_op_t *op, bool inclusive, struct ompi_communicator_t *comm, int tag,
                                 bool persistent, mca_coll_rdmabar_request_t **out)
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
int mca_coll_rdmabar_build_reduce_scatter (const void *sbuf, void *rbuf, rwv_compat_count_t rcount,
                                           rwv_compat_counts_t rcounts, ompi_datatype_t *type, struct ompi_op_t *op,
                                           struct ompi_communicator_t *comm, int tag, bool persistent,
                                           mca_coll_rdmabar_request_t **out)
{
    int me = ompi_comm_rank (comm), size = ompi_comm_size (comm);
    int rc = mca_coll_rdmabar_req_new (comm, tag, 2 * size, persistent, out);
    mca_coll_rdmabar_layout_t s;
    int *displs = NULL;

    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    if (RWV_COMPAT_NO_COUNTS != rcounts) {
        displs = malloc ((size_t) size * sizeof (int));
        if (NULL == displs) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        for (int p = 0, d = 0; p < size; d += (int) rwv_compat_count_at (rcounts, p++)) {
            displs[p] = d;
        }
    }
    s = mca_coll_rdmabar_layout_make (MPI_IN_PLACE == sbuf ? rbuf : sbuf, rcount, rcounts,
                                      rwv_compat_displs_of (displs), type, NULL);
    for (int p = 0 ; p < size ; ++p) {
        if (p != me) {
            mca_coll_rdmabar_req_send (*out, mca_coll_rdmabar_layout_at (&s, p), mca_coll_rdmabar_layout_count (&s, p),
                                       type, p);
        }
    }
    rc = mca_coll_rdmabar_req_reduction (*out, mca_coll_rdmabar_layout_at (&s, me), 0, size,
                                         mca_coll_rdmabar_layout_count (&s, me), type, op, rbuf);
    /* the per-peer sends captured their addresses; the layout is not kept */
    free (displs);
    return rc;
}

/* Each collective is written once with a `persistent' flag: the public
 * nonblocking and _init entry points differ only in it. */
