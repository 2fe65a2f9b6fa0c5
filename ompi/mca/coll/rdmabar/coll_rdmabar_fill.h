/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * What coll/rdmabar supplies when no component below does (`--mca coll
 * rdmabar` alone): every other collective, blocking, nonblocking and
 * persistent, on intra- and intercommunicators.  The barrier itself
 * (coll_rdmabar.h) does not depend on any of it; the module's enable calls
 * mca_coll_rdmabar_fill or mca_coll_rdmabar_inter_enable, and that is all.
 */
#ifndef MCA_COLL_RDMABAR_FILL_H
#define MCA_COLL_RDMABAR_FILL_H

#include "coll_rdmabar.h"

BEGIN_C_DECLS

/* coll_rdmabar_fill.c: every collective no component below supplies */
int mca_coll_rdmabar_fill (mca_coll_rdmabar_module_t *module, struct ompi_communicator_t *comm);
/* rdmabar is the only coll component and cannot serve comm (why): say how to fix it */
void mca_coll_rdmabar_incomplete (struct ompi_communicator_t *comm, const char *why);

/* coll_rdmabar_inter.c: the same for an intercommunicator */
int mca_coll_rdmabar_inter_enable (mca_coll_rdmabar_module_t *module, struct ompi_communicator_t *comm);

/* Make fn COMM's collective `name', from MODULE, unless a component below
 * supplies it; count it in FILLED. */
#define MCA_COLL_RDMABAR_FILL(comm, module, filled, name, fn)                                                          \
    do {                                                                                                               \
        if (NULL == (comm)->c_coll->coll_##name) {                                                                     \
            RWV_COMPAT_COLL_INSTALL(comm, &(module)->super, name, fn);                                                \
            ++(filled);                                                                                                \
        }                                                                                                              \
    } while (0)

/* coll_rdmabar_request.c: whether this libmpi's collective requests are
 * laid out as rdmabar mirrors them (checked once, at open); if not,
 * rdmabar makes no nonblocking or persistent collective, and
 * mca_coll_rdmabar_nbc_why says so */
void mca_coll_rdmabar_nbc_open (void);
void mca_coll_rdmabar_nbc_close (void);
bool mca_coll_rdmabar_nbc_usable (void);
const char *mca_coll_rdmabar_nbc_why (void);

/* coll_rdmabar_nbc.c: one-round linear requests */

int mca_coll_rdmabar_gatherv (const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype, void *rbuf,
                              rwv_compat_counts_t rcounts, rwv_compat_displs_t displs, struct ompi_datatype_t *rtype,
                              int root, struct ompi_communicator_t *comm, mca_coll_base_module_t *module);
int mca_coll_rdmabar_scatterv (const void *sbuf, rwv_compat_counts_t scounts, rwv_compat_displs_t displs,
                               struct ompi_datatype_t *stype, void *rbuf, rwv_compat_count_t rcount,
                               struct ompi_datatype_t *rtype, int root, struct ompi_communicator_t *comm,
                               mca_coll_base_module_t *module);
int mca_coll_rdmabar_alltoallw (const void *sbuf, rwv_compat_counts_t scounts, rwv_compat_displs_t sdispls,
                                struct ompi_datatype_t *const *stypes, void *rbuf, rwv_compat_counts_t rcounts,
                                rwv_compat_displs_t rdispls, struct ompi_datatype_t *const *rtypes,
                                struct ompi_communicator_t *comm, mca_coll_base_module_t *module);

int mca_coll_rdmabar_ibarrier (struct ompi_communicator_t *comm, ompi_request_t **request,
                               mca_coll_base_module_t *module);
int mca_coll_rdmabar_ibcast (void *buf, rwv_compat_count_t count, struct ompi_datatype_t *type, int root,
                             struct ompi_communicator_t *comm, ompi_request_t **request,
                             mca_coll_base_module_t *module);
int mca_coll_rdmabar_igather (const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype, void *rbuf,
                              rwv_compat_count_t rcount, struct ompi_datatype_t *rtype, int root,
                              struct ompi_communicator_t *comm, ompi_request_t **request,
                              mca_coll_base_module_t *module);
int mca_coll_rdmabar_igatherv (const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype, void *rbuf,
                               rwv_compat_counts_t rcounts, rwv_compat_displs_t displs, struct ompi_datatype_t *rtype,
                               int root, struct ompi_communicator_t *comm, ompi_request_t **request,
                               mca_coll_base_module_t *module);
int mca_coll_rdmabar_iscatter (const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype, void *rbuf,
                               rwv_compat_count_t rcount, struct ompi_datatype_t *rtype, int root,
                               struct ompi_communicator_t *comm, ompi_request_t **request,
                               mca_coll_base_module_t *module);
int mca_coll_rdmabar_iscatterv (const void *sbuf, rwv_compat_counts_t scounts, rwv_compat_displs_t displs,
                                struct ompi_datatype_t *stype, void *rbuf, rwv_compat_count_t rcount,
                                struct ompi_datatype_t *rtype, int root, struct ompi_communicator_t *comm,
                                ompi_request_t **request, mca_coll_base_module_t *module);
int mca_coll_rdmabar_iallgather (const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype, void *rbuf,
                                 rwv_compat_count_t rcount, struct ompi_datatype_t *rtype,
                                 struct ompi_communicator_t *comm, ompi_request_t **request,
                                 mca_coll_base_module_t *module);
int mca_coll_rdmabar_iallgatherv (const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype,
                                  void *rbuf, rwv_compat_counts_t rcounts, rwv_compat_displs_t displs,
                                  struct ompi_datatype_t *rtype, struct ompi_communicator_t *comm,
                                  ompi_request_t **request, mca_coll_base_module_t *module);
int mca_coll_rdmabar_ialltoall (const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype, void *rbuf,
                                rwv_compat_count_t rcount, struct ompi_datatype_t *rtype,
                                struct ompi_communicator_t *comm, ompi_request_t **request,
                                mca_coll_base_module_t *module);
int mca_coll_rdmabar_ialltoallv (const void *sbuf, rwv_compat_counts_t scounts, rwv_compat_displs_t sdispls,
                                 struct ompi_datatype_t *stype, void *rbuf, rwv_compat_counts_t rcounts,
                                 rwv_compat_displs_t rdispls, struct ompi_datatype_t *rtype,
                                 struct ompi_communicator_t *comm, ompi_request_t **request,
                                 mca_coll_base_module_t *module);
int mca_coll_rdmabar_ialltoallw (const void *sbuf, rwv_compat_counts_t scounts, rwv_compat_displs_t sdispls,
                                 struct ompi_datatype_t *const *stypes, void *rbuf, rwv_compat_counts_t rcounts,
                                 rwv_compat_displs_t rdispls, struct ompi_datatype_t *const *rtypes,
                                 struct ompi_communicator_t *comm, ompi_request_t **request,
                                 mca_coll_base_module_t *module);
int mca_coll_rdmabar_ireduce (const void *sbuf, void *rbuf, rwv_compat_count_t count, struct ompi_datatype_t *type,
                              struct ompi_op_t *op, int root, struct ompi_communicator_t *comm,
                              ompi_request_t **request, mca_coll_base_module_t *module);
int mca_coll_rdmabar_iallreduce (const void *sbuf, void *rbuf, rwv_compat_count_t count, struct ompi_datatype_t *type,
                                 struct ompi_op_t *op, struct ompi_communicator_t *comm, ompi_request_t **request,
                                 mca_coll_base_module_t *module);
int mca_coll_rdmabar_iscan (const void *sbuf, void *rbuf, rwv_compat_count_t count, struct ompi_datatype_t *type,
                            struct ompi_op_t *op, struct ompi_communicator_t *comm, ompi_request_t **request,
                            mca_coll_base_module_t *module);
int mca_coll_rdmabar_iexscan (const void *sbuf, void *rbuf, rwv_compat_count_t count, struct ompi_datatype_t *type,
                              struct ompi_op_t *op, struct ompi_communicator_t *comm, ompi_request_t **request,
                              mca_coll_base_module_t *module);
int mca_coll_rdmabar_ireduce_scatter (const void *sbuf, void *rbuf, rwv_compat_counts_t rcounts,
                                      struct ompi_datatype_t *type, struct ompi_op_t *op,
                                      struct ompi_communicator_t *comm, ompi_request_t **request,
                                      mca_coll_base_module_t *module);
int mca_coll_rdmabar_ireduce_scatter_block (const void *sbuf, void *rbuf, rwv_compat_count_t rcount,
                                            struct ompi_datatype_t *type, struct ompi_op_t *op,
                                            struct ompi_communicator_t *comm, ompi_request_t **request,
                                            mca_coll_base_module_t *module);

int mca_coll_rdmabar_barrier_init (struct ompi_communicator_t *comm, struct ompi_info_t *info, ompi_request_t **request,
                                   mca_coll_base_module_t *module);
int mca_coll_rdmabar_bcast_init (void *buf, rwv_compat_count_t count, struct ompi_datatype_t *type, int root,
                                 struct ompi_communicator_t *comm, struct ompi_info_t *info, ompi_request_t **request,
                                 mca_coll_base_module_t *module);
int mca_coll_rdmabar_gather_init (const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype,
                                  void *rbuf, rwv_compat_count_t rcount, struct ompi_datatype_t *rtype, int root,
                                  struct ompi_communicator_t *comm, struct ompi_info_t *info, ompi_request_t **request,
                                  mca_coll_base_module_t *module);
int mca_coll_rdmabar_gatherv_init (const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype,
                                   void *rbuf, rwv_compat_counts_t rcounts, rwv_compat_displs_t displs,
                                   struct ompi_datatype_t *rtype, int root, struct ompi_communicator_t *comm,
                                   struct ompi_info_t *info, ompi_request_t **request, mca_coll_base_module_t *module);
int mca_coll_rdmabar_scatter_init (const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype,
                                   void *rbuf, rwv_compat_count_t rcount, struct ompi_datatype_t *rtype, int root,
                                   struct ompi_communicator_t *comm, struct ompi_info_t *info, ompi_request_t **request,
                                   mca_coll_base_module_t *module);
int mca_coll_rdmabar_scatterv_init (const void *sbuf, rwv_compat_counts_t scounts, rwv_compat_displs_t displs,
                                    struct ompi_datatype_t *stype, void *rbuf, rwv_compat_count_t rcount,
                                    struct ompi_datatype_t *rtype, int root, struct ompi_communicator_t *comm,
                                    struct ompi_info_t *info, ompi_request_t **request, mca_coll_base_module_t *module);
int mca_coll_rdmabar_allgather_init (const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype,
                                     void *rbuf, rwv_compat_count_t rcount, struct ompi_datatype_t *rtype,
                                     struct ompi_communicator_t *comm, struct ompi_info_t *info,
                                     ompi_request_t **request, mca_coll_base_module_t *module);
int mca_coll_rdmabar_allgatherv_init (const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype,
                                      void *rbuf, rwv_compat_counts_t rcounts, rwv_compat_displs_t displs,
                                      struct ompi_datatype_t *rtype, struct ompi_communicator_t *comm,
                                      struct ompi_info_t *info, ompi_request_t **request,
                                      mca_coll_base_module_t *module);
int mca_coll_rdmabar_alltoall_init (const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype,
                                    void *rbuf, rwv_compat_count_t rcount, struct ompi_datatype_t *rtype,
                                    struct ompi_communicator_t *comm, struct ompi_info_t *info,
                                    ompi_request_t **request, mca_coll_base_module_t *module);
int mca_coll_rdmabar_alltoallv_init (const void *sbuf, rwv_compat_counts_t scounts, rwv_compat_displs_t sdispls,
                                     struct ompi_datatype_t *stype, void *rbuf, rwv_compat_counts_t rcounts,
                                     rwv_compat_displs_t rdispls, struct ompi_datatype_t *rtype,
                                     struct ompi_communicator_t *comm, struct ompi_info_t *info,
                                     ompi_request_t **request, mca_coll_base_module_t *module);
int mca_coll_rdmabar_alltoallw_init (const void *sbuf, rwv_compat_counts_t scounts, rwv_compat_displs_t sdispls,
                                     struct ompi_datatype_t *const *stypes, void *rbuf, rwv_compat_counts_t rcounts,
                                     rwv_compat_displs_t rdispls, struct ompi_datatype_t *const *rtypes,
                                     struct ompi_communicator_t *comm, struct ompi_info_t *info,
                                     ompi_request_t **request, mca_coll_base_module_t *module);
int mca_coll_rdmabar_reduce_init (const void *sbuf, void *rbuf, rwv_compat_count_t count, struct ompi_datatype_t *type,
                                  struct ompi_op_t *op, int root, struct ompi_communicator_t *comm,
                                  struct ompi_info_t *info, ompi_request_t **request, mca_coll_base_module_t *module);
int mca_coll_rdmabar_allreduce_init (const void *sbuf, void *rbuf, rwv_compat_count_t count,
                                     struct ompi_datatype_t *type, struct ompi_op_t *op,
                                     struct ompi_communicator_t *comm, struct ompi_info_t *info,
                                     ompi_request_t **request, mca_coll_base_module_t *module);
int mca_coll_rdmabar_scan_init (const void *sbuf, void *rbuf, rwv_compat_count_t count, struct ompi_datatype_t *type,
                                struct ompi_op_t *op, struct ompi_communicator_t *comm, struct ompi_info_t *info,
                                ompi_request_t **request, mca_coll_base_module_t *module);
int mca_coll_rdmabar_exscan_init (const void *sbuf, void *rbuf, rwv_compat_count_t count, struct ompi_datatype_t *type,
                                  struct ompi_op_t *op, struct ompi_communicator_t *comm, struct ompi_info_t *info,
                                  ompi_request_t **request, mca_coll_base_module_t *module);
int mca_coll_rdmabar_reduce_scatter_init (const void *sbuf, void *rbuf, rwv_compat_counts_t rcounts,
                                          struct ompi_datatype_t *type, struct ompi_op_t *op,
                                          struct ompi_communicator_t *comm, struct ompi_info_t *info,
                                          ompi_request_t **request, mca_coll_base_module_t *module);
int mca_coll_rdmabar_reduce_scatter_block_init (const void *sbuf, void *rbuf, rwv_compat_count_t rcount,
                                                struct ompi_datatype_t *type, struct ompi_op_t *op,
                                                struct ompi_communicator_t *comm, struct ompi_info_t *info,
                                                ompi_request_t **request, mca_coll_base_module_t *module);

END_C_DECLS

#endif /* MCA_COLL_RDMABAR_FILL_H */
