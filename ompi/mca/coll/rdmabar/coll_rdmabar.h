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
 * Between nodes the leaders are to exchange RDMA-written barrier numbers
 * (recursive doubling or dissemination); until that phase is built, a
 * communicator spanning several nodes keeps the barrier of the component
 * below (retained at enable time), as does any communicator whose set-up
 * fails.
 */
#ifndef MCA_COLL_RDMABAR_H
#define MCA_COLL_RDMABAR_H

#include "ompi_config.h"

#include "ompi/mca/coll/coll.h"

BEGIN_C_DECLS

typedef struct mca_coll_rdmabar_component_t {
    mca_coll_base_component_2_0_0_t super;
    int priority;
} mca_coll_rdmabar_component_t;

OMPI_DECLSPEC extern mca_coll_rdmabar_component_t mca_coll_rdmabar_component;

/* one flag per cache line */
#define MCA_COLL_RDMABAR_LINE 64

typedef struct mca_coll_rdmabar_module_t {
    mca_coll_base_module_t super;

    /* the barrier of the component below, for fallback */
    mca_coll_base_module_barrier_fn_t below_barrier;
    mca_coll_base_module_t *below_barrier_module;

    bool set_up;
    bool use_below;           /* several nodes, or set-up failed */
    int local_rank;
    int local_size;
    unsigned char *segment;   /* local_size arrival lines, then the release line */
    size_t segment_size;
    uint64_t barrier_no;
} mca_coll_rdmabar_module_t;
OBJ_CLASS_DECLARATION(mca_coll_rdmabar_module_t);

mca_coll_base_module_t *mca_coll_rdmabar_comm_query (struct ompi_communicator_t *comm, int *priority);
int mca_coll_rdmabar_barrier (struct ompi_communicator_t *comm, mca_coll_base_module_t *module);
int mca_coll_rdmabar_node_setup (mca_coll_rdmabar_module_t *module, struct ompi_communicator_t *comm);

END_C_DECLS

#endif /* MCA_COLL_RDMABAR_H */
