/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * coll/rdmabar module: per-communicator query, enable and teardown.
 * Layer: glue (docs/layout.md).
 */
#include "ompi_config.h"

#include <sys/mman.h>

#include "ompi/communicator/communicator.h"
#include "ompi/mca/coll/base/base.h"
#include "ompi/mca/coll/base/coll_base_functions.h"

#include "rwv_ompi_compat.h"

#include "coll_rdmabar.h"
#include "coll_rdmabar_fill.h"

static void mca_coll_rdmabar_module_construct (mca_coll_rdmabar_module_t *module)
{
    module->below_barrier = NULL;
    module->below_barrier_module = NULL;
    module->set_up = false;
    module->use_below = false;
    module->segment = NULL;
    module->segment_size = 0;
    module->barrier_no = 0;
    module->num_leaders = 1;
    module->leader_index = 0;
    module->rounds = 0;
    module->algorithm = mca_coll_rdmabar_component.algorithm;
    module->btl = NULL;
    module->slots = NULL;
    module->src = NULL;
    module->slots_handle = module->src_handle = NULL;
    module->peers = NULL;
    module->puts_in_flight[0] = module->puts_in_flight[1] = 0;
    module->put_errors = 0;
}

/* Freeing the communicator frees all of it: segment and retained module. */
static void mca_coll_rdmabar_module_destruct (mca_coll_rdmabar_module_t *module)
{
    if (NULL != module->segment) {
        munmap (module->segment, module->segment_size);
    }
    mca_coll_rdmabar_rdma_release (module);
    if (NULL != module->below_barrier_module && &module->super != module->below_barrier_module) {
        OBJ_RELEASE(module->below_barrier_module);
    }
}

OBJ_CLASS_INSTANCE(mca_coll_rdmabar_module_t, mca_coll_base_module_t, mca_coll_rdmabar_module_construct,
                   mca_coll_rdmabar_module_destruct);

/* Keep the barrier of the component below for set-up and fallback; with
 * no component below, take over every collective it would have supplied,
 * with libmpi's recursive-doubling barrier in the fallback role.  An
 * intercommunicator gets only what no component below supplies. */
static int mca_coll_rdmabar_module_enable (mca_coll_base_module_t *base, struct ompi_communicator_t *comm)
{
    mca_coll_rdmabar_module_t *module = (mca_coll_rdmabar_module_t *) base;

    if (OMPI_COMM_IS_INTER(comm)) {
        return mca_coll_rdmabar_inter_enable (module, comm);
    }
    if (mca_coll_rdmabar_fill (module, comm) < 0) {
        return OMPI_ERROR;
    }
    if (NULL == comm->c_coll->coll_barrier_module) {
        module->below_barrier = ompi_coll_base_barrier_intra_recursivedoubling;
        module->below_barrier_module = base;
    } else {
        module->below_barrier = comm->c_coll->coll_barrier;
        module->below_barrier_module = comm->c_coll->coll_barrier_module;
        OBJ_RETAIN(module->below_barrier_module);
    }
    RWV_COMPAT_COLL_INSTALL(comm, base, barrier, mca_coll_rdmabar_barrier);
    return OMPI_SUCCESS;
}

mca_coll_base_module_t *mca_coll_rdmabar_comm_query (struct ompi_communicator_t *comm, int *priority)
{
    mca_coll_rdmabar_module_t *module;

    if (mca_coll_rdmabar_component.priority <= 0) {
        mca_coll_rdmabar_incomplete (comm, "coll_rdmabar_priority is 0: rdmabar is switched off");
        return NULL;
    }
    module = OBJ_NEW(mca_coll_rdmabar_module_t);
    if (NULL == module) {
        return NULL;
    }
    *priority = mca_coll_rdmabar_component.priority;
    module->super.coll_module_enable = mca_coll_rdmabar_module_enable;
    return &module->super;
}
