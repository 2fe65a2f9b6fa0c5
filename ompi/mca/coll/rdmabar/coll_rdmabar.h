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

/* coll_rdmabar_rdma.c: the leaders' algorithms, for coll_rdmabar_algorithm */
extern const mca_base_var_enum_value_t mca_coll_rdmabar_algorithms[];
const char *mca_coll_rdmabar_algorithm_name (int algorithm);
mca_coll_base_module_t *mca_coll_rdmabar_comm_query (struct ompi_communicator_t *comm, int *priority);
int mca_coll_rdmabar_barrier (struct ompi_communicator_t *comm, mca_coll_base_module_t *module);
/* coll_rdmabar_wait.c: until FLAG holds VALUE (REMOTE: written by RDMA) */
void mca_coll_rdmabar_wait (volatile uint64_t *flag, uint64_t value, bool remote);

/* coll_rdmabar_rdma.c */
int mca_coll_rdmabar_rdma_setup (mca_coll_rdmabar_module_t *module, struct ompi_communicator_t *comm,
                                 int my_leader);
int mca_coll_rdmabar_rdma_barrier (mca_coll_rdmabar_module_t *module, uint64_t n);
void mca_coll_rdmabar_rdma_release (mca_coll_rdmabar_module_t *module);

END_C_DECLS

#endif /* MCA_COLL_RDMABAR_H */
