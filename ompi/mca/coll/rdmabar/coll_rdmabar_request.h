/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * The one-round request engine (coll_rdmabar_request.c) shared by the
 * intra- (coll_rdmabar_nbc.c) and intercommunicator (coll_rdmabar_inter.c)
 * collectives.  A collective builds a request from local copies, receives
 * and sends (peers are ranks of the communicator; on an intercommunicator,
 * ranks of the remote group) and at most one reduction, then hands it out
 * with mca_coll_rdmabar_req_launch (nonblocking, persistent) or runs it to
 * completion with mca_coll_rdmabar_req_run (blocking).
 */
#ifndef MCA_COLL_RDMABAR_REQUEST_H
#define MCA_COLL_RDMABAR_REQUEST_H

#include "ompi_config.h"

#include "ompi/communicator/communicator.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/request/request.h"
#include "rwv_ompi_compat.h"

BEGIN_C_DECLS

typedef struct mca_coll_rdmabar_request_t mca_coll_rdmabar_request_t;

/* room for max_xfers copies, receives and sends (those of a reduction included) */
int mca_coll_rdmabar_req_new (struct ompi_communicator_t *comm, int tag, int max_xfers, bool persistent,
                              mca_coll_rdmabar_request_t **out);
void mca_coll_rdmabar_req_send (mca_coll_rdmabar_request_t *req, const void *buf, rwv_compat_count_t count,
                                ompi_datatype_t *type, int peer);
void mca_coll_rdmabar_req_recv (mca_coll_rdmabar_request_t *req, void *buf, rwv_compat_count_t count,
                                ompi_datatype_t *type, int peer);
void mca_coll_rdmabar_req_copy (mca_coll_rdmabar_request_t *req, const void *src, rwv_compat_count_t count,
                                ompi_datatype_t *type, void *dst, int dst_count, ompi_datatype_t *dst_type);

/* result = contribution of rank first op ... op that of rank last - 1, mine
 * being this rank's and the others received */
int mca_coll_rdmabar_req_reduction (mca_coll_rdmabar_request_t *req, const void *mine, int first, int last,
                                    rwv_compat_count_t count, ompi_datatype_t *type, struct ompi_op_t *op,
                                    void *result);
/* intercommunicators: the same over every rank of the remote group, each of
 * which sends recv_count elements, of which [offset, offset + count) count */
int mca_coll_rdmabar_req_reduction_remote (mca_coll_rdmabar_request_t *req, int recv_count, int offset,
                                           rwv_compat_count_t count, ompi_datatype_t *type, struct ompi_op_t *op,
                                           void *result);

/* Give *req to the caller as *request, started unless persistent; on a
 * failed build (rc) release it instead. */
int mca_coll_rdmabar_req_launch (int rc, mca_coll_rdmabar_request_t **req, ompi_request_t **request, bool start);
/* the same, then wait for it: a blocking collective */
int mca_coll_rdmabar_req_run (int rc, mca_coll_rdmabar_request_t **req);

/* Where rank p's block sits in a gather/scatter/alltoall buffer: uniform
 * blocks, blocks at counts/displs (in extents of type), or, with types,
 * alltoallw's blocks at byte displacements. */
typedef struct mca_coll_rdmabar_layout_t {
    char *base;
    int count;
    rwv_compat_counts_t counts;
    rwv_compat_displs_t displs;
    bool varying; /* counts and displs given (the v and w collectives) */
    ompi_datatype_t *type;
    ompi_datatype_t * const *types;
    ptrdiff_t extent;
} mca_coll_rdmabar_layout_t;

static inline mca_coll_rdmabar_layout_t mca_coll_rdmabar_layout_make (const void *base, rwv_compat_count_t count,
                                                                      rwv_compat_counts_t counts,
                                                                      rwv_compat_displs_t displs, ompi_datatype_t *type,
                                                                      ompi_datatype_t *const *types)
{
    mca_coll_rdmabar_layout_t l = {
        (char *) base, count, counts, displs, counts != RWV_COMPAT_NO_COUNTS, type, types, 1
    };
    ptrdiff_t lb;

    if (NULL == types) {
        ompi_datatype_get_extent (type, &lb, &l.extent);
    }
    return l;
}

static inline char *mca_coll_rdmabar_layout_at (const mca_coll_rdmabar_layout_t *l, int p)
{
    return l->base + (l->varying ? rwv_compat_displ_at (l->displs, p) : (ptrdiff_t) p * l->count) * l->extent;
}

static inline rwv_compat_count_t mca_coll_rdmabar_layout_count (const mca_coll_rdmabar_layout_t *l, int p)
{
    return l->varying ? (rwv_compat_count_t) rwv_compat_count_at (l->counts, p) : l->count;
}

static inline ompi_datatype_t *mca_coll_rdmabar_layout_type (const mca_coll_rdmabar_layout_t *l, int p)
{
    return NULL != l->types ? l->types[p] : l->type;
}

/* intracommunicators, in place: the blocks of r to send, copied at each
 * start into scratch laid out as *mirror */
int mca_coll_rdmabar_req_mirror (mca_coll_rdmabar_request_t *req, const mca_coll_rdmabar_layout_t *r,
                                 mca_coll_rdmabar_layout_t *mirror);

END_C_DECLS

#endif /* MCA_COLL_RDMABAR_REQUEST_H */
