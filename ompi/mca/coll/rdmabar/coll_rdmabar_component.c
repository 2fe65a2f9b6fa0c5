/*
 * coll/rdmabar component: parameters, init query and per-communicator query.
 */
#include "ompi_config.h"

#include "opal/mca/base/mca_base_var.h"
#include "opal/util/output.h"
#include "ompi/mca/coll/base/base.h"

#include "coll_rdmabar.h"

static int rdmabar_register (void);
static int rdmabar_init_query (bool enable_progress_threads, bool enable_mpi_threads);
static mca_coll_base_module_t *rdmabar_comm_query (struct ompi_communicator_t *comm, int *priority);

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
        .collm_comm_query = rdmabar_comm_query,
    },
};

static int rdmabar_register (void)
{
    mca_coll_rdmabar_component.status = "barrier not built yet: rdmabar disqualifies itself on "
        "every communicator, so Open MPI uses its other barriers";
    (void) mca_base_component_var_register (&mca_coll_rdmabar_component.super.collm_version, "status",
        "What this build of coll/rdmabar can do (read only)",
        MCA_BASE_VAR_TYPE_STRING, NULL, 0, MCA_BASE_VAR_FLAG_DEFAULT_ONLY, OPAL_INFO_LVL_3,
        MCA_BASE_VAR_SCOPE_CONSTANT, &mca_coll_rdmabar_component.status);
    return OMPI_SUCCESS;
}

static int rdmabar_init_query (bool enable_progress_threads, bool enable_mpi_threads)
{
    return OMPI_SUCCESS;
}

static mca_coll_base_module_t *rdmabar_comm_query (struct ompi_communicator_t *comm, int *priority)
{
    opal_output_verbose (MCA_BASE_VERBOSE_INFO, ompi_coll_base_framework.framework_output,
                         "coll/rdmabar: %s", mca_coll_rdmabar_component.status);
    *priority = -1;
    return NULL;
}
