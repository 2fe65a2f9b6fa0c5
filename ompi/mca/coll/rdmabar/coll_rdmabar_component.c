/*
 * coll/rdmabar component: parameters and the init query.
 */
#include "ompi_config.h"

#include "opal/mca/base/mca_base_var.h"
#include "ompi/mca/coll/base/base.h"

#include "coll_rdmabar.h"

static int rdmabar_register (void);
static int rdmabar_init_query (bool enable_progress_threads, bool enable_mpi_threads);

mca_coll_rdmabar_component_t mca_coll_rdmabar_component = {
    .super = {
        .collm_version = {
            MCA_COLL_BASE_VERSION_2_0_0,
            .mca_component_name = "rdmabar",
            MCA_BASE_MAKE_VERSION(component, RWV_VERSION_MAJOR, RWV_VERSION_MINOR, RWV_VERSION_RELEASE),
            .mca_register_component_params = rdmabar_register,
        },
        .collm_data = {
            .param_field = MCA_BASE_METADATA_PARAM_CHECKPOINT
        },
        .collm_init_query = rdmabar_init_query,
        .collm_comm_query = mca_coll_rdmabar_comm_query,
    },
};

static int rdmabar_register (void)
{
    mca_coll_rdmabar_component.priority = 50;
    (void) mca_base_component_var_register (&mca_coll_rdmabar_component.super.collm_version, "priority",
        "Selection priority of the rdmabar barrier; above coll/tuned's 30 so that it replaces "
        "tuned's barrier, 0 or less to switch it off. Communicators spanning several nodes "
        "keep the barrier of the component below until the RDMA phase between nodes is built",
        MCA_BASE_VAR_TYPE_INT, NULL, 0, 0, OPAL_INFO_LVL_6, MCA_BASE_VAR_SCOPE_READONLY,
        &mca_coll_rdmabar_component.priority);
    return OMPI_SUCCESS;
}

static int rdmabar_init_query (bool enable_progress_threads, bool enable_mpi_threads)
{
    return OMPI_SUCCESS;
}
