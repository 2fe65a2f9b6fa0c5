/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/* The requests of the nonblocking and persistent collectives (coll_rdmabar_nbc_build.c). */
#ifndef MCA_COLL_RDMABAR_NBC_BUILD_H
#define MCA_COLL_RDMABAR_NBC_BUILD_H

#include "coll_rdmabar_request.h"

BEGIN_C_DECLS

int mca_coll_rdmabar_build_barrier (struct ompi_communicator_t *comm, bool persistent,
                                    mca_coll_rdmabar_request_t **out);
int mca_coll_rdmabar_build_bcast (void *buf, rwv_compat_count_t count, ompi_datatype_t *type, int root,
                                  struct ompi_communicator_t *comm, bool persistent, mca_coll_rdmabar_request_t **out);
int mca_coll_rdmabar_build_gather (const void *sbuf, rwv_compat_count_t scount, ompi_datatype_t *stype,
                                   const mca_coll_rdmabar_layout_t *r, int root, struct ompi_communicator_t *comm,
                                   int tag, bool persistent, mca_coll_rdmabar_request_t **out);
int mca_coll_rdmabar_build_scatter (const mca_coll_rdmabar_layout_t *s, void *rbuf, rwv_compat_count_t rcount,
                                    ompi_datatype_t *rtype, int root, struct ompi_communicator_t *comm, int tag,
                                    bool persistent, mca_coll_rdmabar_request_t **out);
int mca_coll_rdmabar_build_allgather (const void *sbuf, rwv_compat_count_t scount, ompi_datatype_t *stype,
                                      const mca_coll_rdmabar_layout_t *r, struct ompi_communicator_t *comm, int tag,
                                      bool persistent, mca_coll_rdmabar_request_t **out);
int mca_coll_rdmabar_build_alltoall (const mca_coll_rdmabar_layout_t *s, const mca_coll_rdmabar_layout_t *r,
                                     struct ompi_communicator_t *comm, int tag, bool persistent,
                                     mca_coll_rdmabar_request_t **out);
int mca_coll_rdmabar_build_reduce (const void *sbuf, void *rbuf, rwv_compat_count_t count, ompi_datatype_t *type,
                                   struct ompi_op_t *op, int root, struct ompi_communicator_t *comm, int tag,
                                   bool persistent, mca_coll_rdmabar_request_t **out);
int mca_coll_rdmabar_build_scan (const void *sbuf, void *rbuf, rwv_compat_count_t count, ompi_datatype_t *type,
                                 struct ompi_op_t *op, bool inclusive, struct ompi_communicator_t *comm, int tag,
                                 bool persistent, mca_coll_rdmabar_request_t **out);
int mca_coll_rdmabar_build_reduce_scatter (const void *sbuf, void *rbuf, rwv_compat_count_t rcount,
                                           rwv_compat_counts_t rcounts, ompi_datatype_t *type, struct ompi_op_t *op,
                                           struct ompi_communicator_t *comm, int tag, bool persistent,
                                           mca_coll_rdmabar_request_t **out);

END_C_DECLS

#endif /* MCA_COLL_RDMABAR_NBC_BUILD_H */
