/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * coll/rdmabar: an SMP-aware MPI_Barrier.
 *
 * Inside a node the ranks meet on a shared-memory segment: each rank owns
 * one cache line holding the number of the last barrier it entered; the
 * node leader (lowest communicator rank on the node) waits until every
 * local line holds the current number, then publishes that number on a
 * release line the others wait for.  Numbers only grow, so back-to-back
 * barriers need no reset and the waits are ">=" tests.
 *
 * Between nodes the leaders then exchange RDMA-written barrier numbers
 * (coll_rdmabar_rdma.c) before releasing their nodes.  A communicator whose
 * set-up fails anywhere keeps the barrier of the component below, retained
 * at enable time.
 */
#ifndef MCA_COLL_RDMABAR_H
#define MCA_COLL_RDMABAR_H

#include "ompi_config.h"

#include "ompi/mca/coll/coll.h"
#include "rwv_ompi_compat.h"
#include "opal/mca/btl/btl.h"
#include "ompi/request/request.h"

BEGIN_C_DECLS

enum {
    MCA_COLL_RDMABAR_AUTO,
    MCA_COLL_RDMABAR_RECURSIVE_DOUBLING,
    MCA_COLL_RDMABAR_DISSEMINATION,
    MCA_COLL_RDMABAR_LINEAR,
};

typedef struct mca_coll_rdmabar_component_t {
    mca_coll_base_component_t super;
    int priority;
    int algorithm;
    bool nbc_usable;        /* this libmpi's collective requests are laid out as rdmabar expects */
    char nbc_why[400];      /* if not, what rdmabar then leaves out, and why */
} mca_coll_rdmabar_component_t;

OMPI_DECLSPEC extern mca_coll_rdmabar_component_t mca_coll_rdmabar_component;

#define MCA_COLL_RDMABAR_DEFAULT_PRIORITY 50

/* one flag per cache line */
#define MCA_COLL_RDMABAR_LINE 64

/* Another node leader, as our puts reach it. */
typedef struct mca_coll_rdmabar_peer_t {
    struct mca_btl_base_endpoint_t *endpoint;
    uint64_t addr;
    mca_btl_base_registration_handle_t *handle;
} mca_coll_rdmabar_peer_t;

typedef struct mca_coll_rdmabar_module_t {
    mca_coll_base_module_t super;

    /* the barrier of the component below, for fallback */
    mca_coll_base_module_barrier_fn_t below_barrier;
    mca_coll_base_module_t *below_barrier_module;   /* retained, unless it is this module */

    bool set_up;
    bool use_below;           /* several nodes, or set-up failed */
    int local_rank;
    int local_size;
    unsigned char *segment;   /* local_size arrival lines, then the release line */
    size_t segment_size;
    uint64_t barrier_no;

    /* between nodes, on node leaders: slots[k] is written by round k's partner */
    int num_leaders;
    int leader_index;
    int rounds;
    int algorithm;
    mca_btl_base_module_t *btl;
    volatile uint64_t *slots;
    /* two sets of slots and of source words, one for odd and one for even
     * barriers, so a barrier waits only for the puts of the barrier before
     * last: a BTL whose puts complete at the target (rwv under Open MPI
     * 5.0) reports them a round trip late */
    uint64_t *src;
    size_t set_words;                     /* words in one set (of slots, and of source words) */
    mca_btl_base_registration_handle_t *slots_handle;
    mca_btl_base_registration_handle_t *src_handle;
    mca_coll_rdmabar_peer_t *peers;       /* by leader index */
    volatile int32_t puts_in_flight[2];   /* by the parity of the barrier number */
    int put_errors;
} mca_coll_rdmabar_module_t;
OBJ_CLASS_DECLARATION(mca_coll_rdmabar_module_t);

const char *mca_coll_rdmabar_algorithm_name (int algorithm);
mca_coll_base_module_t *mca_coll_rdmabar_comm_query (struct ompi_communicator_t *comm, int *priority);
int mca_coll_rdmabar_barrier (struct ompi_communicator_t *comm, mca_coll_base_module_t *module);
void mca_coll_rdmabar_wait (volatile uint64_t *flag, uint64_t value, bool remote);

/* coll_rdmabar_fill.c: every collective no component below supplies */
int mca_coll_rdmabar_fill (mca_coll_rdmabar_module_t *module, struct ompi_communicator_t *comm);
/* rdmabar is the only coll component and cannot serve comm (why): say how to fix it */
void mca_coll_rdmabar_incomplete (struct ompi_communicator_t *comm, const char *why);

/* coll_rdmabar_inter.c: the same for an intercommunicator */
int mca_coll_rdmabar_inter_enable (mca_coll_rdmabar_module_t *module, struct ompi_communicator_t *comm);

/* Supply collective `name' as fn unless a component below did (in
 * a function counting in `filled'). */
#define RDMABAR_FILL(name, fn)                                  \
    do {                                                        \
        if (NULL == comm->c_coll->coll_##name) {                \
            RWV_COMPAT_COLL_INSTALL(comm, &module->super, name, fn); \
            ++filled;                                           \
        }                                                       \
    } while (0)

/* coll_rdmabar_nbc.c: one-round linear requests */
/* NULL, or why rdmabar cannot make nonblocking and persistent collectives */
const char *mca_coll_rdmabar_nbc_open (void);
void mca_coll_rdmabar_nbc_close (void);

int mca_coll_rdmabar_gatherv (const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype, void *rbuf,
                              rwv_compat_counts_t rcounts, rwv_compat_displs_t displs, struct ompi_datatype_t *rtype, int root,
                              struct ompi_communicator_t *comm, mca_coll_base_module_t *module);
int mca_coll_rdmabar_scatterv (const void *sbuf, rwv_compat_counts_t scounts, rwv_compat_displs_t displs, struct ompi_datatype_t *stype,
                               void *rbuf, rwv_compat_count_t rcount, struct ompi_datatype_t *rtype, int root,
                               struct ompi_communicator_t *comm, mca_coll_base_module_t *module);
int mca_coll_rdmabar_alltoallw (const void *sbuf, rwv_compat_counts_t scounts, rwv_compat_displs_t sdispls,
                                struct ompi_datatype_t *const *stypes, void *rbuf, rwv_compat_counts_t rcounts,
                                rwv_compat_displs_t rdispls, struct ompi_datatype_t *const *rtypes,
                                struct ompi_communicator_t *comm, mca_coll_base_module_t *module);

int mca_coll_rdmabar_ibarrier (struct ompi_communicator_t *comm, ompi_request_t **request,
                               mca_coll_base_module_t *module);
int mca_coll_rdmabar_ibcast (void *buf, rwv_compat_count_t count, struct ompi_datatype_t *type, int root,
                             struct ompi_communicator_t *comm, ompi_request_t **request,
                             mca_coll_base_module_t *module);
int mca_coll_rdmabar_igather (const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype, void *rbuf, rwv_compat_count_t rcount,
                              struct ompi_datatype_t *rtype, int root, struct ompi_communicator_t *comm,
                              ompi_request_t **request, mca_coll_base_module_t *module);
int mca_coll_rdmabar_igatherv (const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype, void *rbuf,
                               rwv_compat_counts_t rcounts, rwv_compat_displs_t displs, struct ompi_datatype_t *rtype, int root,
                               struct ompi_communicator_t *comm, ompi_request_t **request,
                               mca_coll_base_module_t *module);
int mca_coll_rdmabar_iscatter (const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype, void *rbuf, rwv_compat_count_t rcount,
                               struct ompi_datatype_t *rtype, int root, struct ompi_communicator_t *comm,
                               ompi_request_t **request, mca_coll_base_module_t *module);
int mca_coll_rdmabar_iscatterv (const void *sbuf, rwv_compat_counts_t scounts, rwv_compat_displs_t displs, struct ompi_datatype_t *stype,
                                void *rbuf, rwv_compat_count_t rcount, struct ompi_datatype_t *rtype, int root,
                                struct ompi_communicator_t *comm, ompi_request_t **request,
                                mca_coll_base_module_t *module);
int mca_coll_rdmabar_iallgather (const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype, void *rbuf, rwv_compat_count_t rcount,
                                 struct ompi_datatype_t *rtype, struct ompi_communicator_t *comm,
                                 ompi_request_t **request, mca_coll_base_module_t *module);
int mca_coll_rdmabar_iallgatherv (const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype, void *rbuf,
                                  rwv_compat_counts_t rcounts, rwv_compat_displs_t displs, struct ompi_datatype_t *rtype,
                                  struct ompi_communicator_t *comm, ompi_request_t **request,
                                  mca_coll_base_module_t *module);
int mca_coll_rdmabar_ialltoall (const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype, void *rbuf, rwv_compat_count_t rcount,
                                struct ompi_datatype_t *rtype, struct ompi_communicator_t *comm,
                                ompi_request_t **request, mca_coll_base_module_t *module);
int mca_coll_rdmabar_ialltoallv (const void *sbuf, rwv_compat_counts_t scounts, rwv_compat_displs_t sdispls,
                                 struct ompi_datatype_t *stype, void *rbuf, rwv_compat_counts_t rcounts, rwv_compat_displs_t rdispls,
                                 struct ompi_datatype_t *rtype, struct ompi_communicator_t *comm,
                                 ompi_request_t **request, mca_coll_base_module_t *module);
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
int mca_coll_rdmabar_iscan (const void *sbuf, void *rbuf, rwv_compat_count_t count, struct ompi_datatype_t *type, struct ompi_op_t *op,
                            struct ompi_communicator_t *comm, ompi_request_t **request, mca_coll_base_module_t *module);
int mca_coll_rdmabar_iexscan (const void *sbuf, void *rbuf, rwv_compat_count_t count, struct ompi_datatype_t *type,
                              struct ompi_op_t *op, struct ompi_communicator_t *comm, ompi_request_t **request,
                              mca_coll_base_module_t *module);
int mca_coll_rdmabar_ireduce_scatter (const void *sbuf, void *rbuf, rwv_compat_counts_t rcounts, struct ompi_datatype_t *type,
                                      struct ompi_op_t *op, struct ompi_communicator_t *comm, ompi_request_t **request,
                                      mca_coll_base_module_t *module);
int mca_coll_rdmabar_ireduce_scatter_block (const void *sbuf, void *rbuf, rwv_compat_count_t rcount, struct ompi_datatype_t *type,
                                            struct ompi_op_t *op, struct ompi_communicator_t *comm,
                                            ompi_request_t **request, mca_coll_base_module_t *module);

int mca_coll_rdmabar_barrier_init (struct ompi_communicator_t *comm, struct ompi_info_t *info, ompi_request_t **request,
                                   mca_coll_base_module_t *module);
int mca_coll_rdmabar_bcast_init (void *buf, rwv_compat_count_t count, struct ompi_datatype_t *type, int root,
                                 struct ompi_communicator_t *comm, struct ompi_info_t *info, ompi_request_t **request,
                                 mca_coll_base_module_t *module);
int mca_coll_rdmabar_gather_init (const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype, void *rbuf, rwv_compat_count_t rcount,
                                  struct ompi_datatype_t *rtype, int root, struct ompi_communicator_t *comm,
                                  struct ompi_info_t *info, ompi_request_t **request, mca_coll_base_module_t *module);
int mca_coll_rdmabar_gatherv_init (const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype, void *rbuf,
                                   rwv_compat_counts_t rcounts, rwv_compat_displs_t displs, struct ompi_datatype_t *rtype, int root,
                                   struct ompi_communicator_t *comm, struct ompi_info_t *info, ompi_request_t **request,
                                   mca_coll_base_module_t *module);
int mca_coll_rdmabar_scatter_init (const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype, void *rbuf, rwv_compat_count_t rcount,
                                   struct ompi_datatype_t *rtype, int root, struct ompi_communicator_t *comm,
                                   struct ompi_info_t *info, ompi_request_t **request, mca_coll_base_module_t *module);
int mca_coll_rdmabar_scatterv_init (const void *sbuf, rwv_compat_counts_t scounts, rwv_compat_displs_t displs,
                                    struct ompi_datatype_t *stype, void *rbuf, rwv_compat_count_t rcount,
                                    struct ompi_datatype_t *rtype, int root, struct ompi_communicator_t *comm,
                                    struct ompi_info_t *info, ompi_request_t **request, mca_coll_base_module_t *module);
int mca_coll_rdmabar_allgather_init (const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype, void *rbuf,
                                     rwv_compat_count_t rcount, struct ompi_datatype_t *rtype, struct ompi_communicator_t *comm,
                                     struct ompi_info_t *info, ompi_request_t **request,
                                     mca_coll_base_module_t *module);
int mca_coll_rdmabar_allgatherv_init (const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype, void *rbuf,
                                      rwv_compat_counts_t rcounts, rwv_compat_displs_t displs, struct ompi_datatype_t *rtype,
                                      struct ompi_communicator_t *comm, struct ompi_info_t *info,
                                      ompi_request_t **request, mca_coll_base_module_t *module);
int mca_coll_rdmabar_alltoall_init (const void *sbuf, rwv_compat_count_t scount, struct ompi_datatype_t *stype, void *rbuf, rwv_compat_count_t rcount,
                                    struct ompi_datatype_t *rtype, struct ompi_communicator_t *comm,
                                    struct ompi_info_t *info, ompi_request_t **request, mca_coll_base_module_t *module);
int mca_coll_rdmabar_alltoallv_init (const void *sbuf, rwv_compat_counts_t scounts, rwv_compat_displs_t sdispls,
                                     struct ompi_datatype_t *stype, void *rbuf, rwv_compat_counts_t rcounts, rwv_compat_displs_t rdispls,
                                     struct ompi_datatype_t *rtype, struct ompi_communicator_t *comm,
                                     struct ompi_info_t *info, ompi_request_t **request,
                                     mca_coll_base_module_t *module);
int mca_coll_rdmabar_alltoallw_init (const void *sbuf, rwv_compat_counts_t scounts, rwv_compat_displs_t sdispls,
                                     struct ompi_datatype_t *const *stypes, void *rbuf, rwv_compat_counts_t rcounts,
                                     rwv_compat_displs_t rdispls, struct ompi_datatype_t *const *rtypes,
                                     struct ompi_communicator_t *comm, struct ompi_info_t *info,
                                     ompi_request_t **request, mca_coll_base_module_t *module);
int mca_coll_rdmabar_reduce_init (const void *sbuf, void *rbuf, rwv_compat_count_t count, struct ompi_datatype_t *type,
                                  struct ompi_op_t *op, int root, struct ompi_communicator_t *comm,
                                  struct ompi_info_t *info, ompi_request_t **request, mca_coll_base_module_t *module);
int mca_coll_rdmabar_allreduce_init (const void *sbuf, void *rbuf, rwv_compat_count_t count, struct ompi_datatype_t *type,
                                     struct ompi_op_t *op, struct ompi_communicator_t *comm, struct ompi_info_t *info,
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
int mca_coll_rdmabar_reduce_scatter_block_init (const void *sbuf, void *rbuf, rwv_compat_count_t rcount, struct ompi_datatype_t *type,
                                                struct ompi_op_t *op, struct ompi_communicator_t *comm,
                                                struct ompi_info_t *info, ompi_request_t **request,
                                                mca_coll_base_module_t *module);

/* coll_rdmabar_rdma.c */
int mca_coll_rdmabar_rdma_setup (mca_coll_rdmabar_module_t *module, struct ompi_communicator_t *comm,
                                 int my_leader);
int mca_coll_rdmabar_rdma_barrier (mca_coll_rdmabar_module_t *module, uint64_t n);
void mca_coll_rdmabar_rdma_release (mca_coll_rdmabar_module_t *module);

END_C_DECLS

#endif /* MCA_COLL_RDMABAR_H */
