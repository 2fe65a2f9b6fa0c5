/*
 * coll/rdmabar: SMP-aware MPI_Barrier from shared-memory flags inside a
 * node and RDMA-written flags between node leaders.
 *
 * This component is loaded and lists its parameters, but its barrier is not
 * built yet: it disqualifies itself on every communicator.
 */
#ifndef MCA_COLL_RDMABAR_H
#define MCA_COLL_RDMABAR_H

#include "ompi_config.h"

#include "ompi/mca/coll/coll.h"

BEGIN_C_DECLS

typedef struct mca_coll_rdmabar_component_t {
    mca_coll_base_component_2_0_0_t super;
    /* what this build can do, shown by ompi_info */
    char *status;
} mca_coll_rdmabar_component_t;

OMPI_DECLSPEC extern mca_coll_rdmabar_component_t mca_coll_rdmabar_component;

END_C_DECLS

#endif /* MCA_COLL_RDMABAR_H */
