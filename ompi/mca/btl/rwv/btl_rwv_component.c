/*
 * btl/rwv component: parameters, open/close and init.
 */
#include "opal_config.h"

#include "opal/mca/base/mca_base_var.h"
#include "opal/mca/btl/base/base.h"
#include "opal/util/output.h"
#include "opal/util/show_help.h"

#include "btl_rwv.h"

static int rwv_register (void);
static int rwv_open (void);
static mca_btl_base_module_t **rwv_init (int *num_btls, bool enable_progress_threads,
                                         bool enable_mpi_threads);

mca_btl_rwv_component_t mca_btl_rwv_component = {
    .super = {
        .btl_version = {
            MCA_BTL_BASE_VERSION_3_1_0,
            .mca_component_name = "rwv",
            MCA_BASE_MAKE_VERSION(component, RWV_VERSION_MAJOR, RWV_VERSION_MINOR, RWV_VERSION_RELEASE),
            .mca_open_component = rwv_open,
            .mca_register_component_params = rwv_register,
        },
        .btl_data = {
            .param_field = MCA_BASE_METADATA_PARAM_CHECKPOINT
        },
        .btl_init = rwv_init,
    },
};

static int rwv_register (void)
{
    const mca_base_component_t *version = &mca_btl_rwv_component.super.btl_version;

    mca_btl_rwv_component.status = "data path not built yet: rwv offers no BTL module, "
        "so Open MPI moves data with its other BTLs";
    (void) mca_base_component_var_register (version, "status",
        "What this build of btl/rwv can do (read only)",
        MCA_BASE_VAR_TYPE_STRING, NULL, 0, MCA_BASE_VAR_FLAG_DEFAULT_ONLY, OPAL_INFO_LVL_3,
        MCA_BASE_VAR_SCOPE_CONSTANT, &mca_btl_rwv_component.status);

    mca_btl_rwv_component.backends = RWV_BACKENDS;
    (void) mca_base_component_var_register (version, "backends_built",
        "Rail backends compiled into this build: ofi (libfabric) and, when libibverbs and "
        "librdmacm were found at configure time, verbs (read only)",
        MCA_BASE_VAR_TYPE_STRING, NULL, 0, MCA_BASE_VAR_FLAG_DEFAULT_ONLY, OPAL_INFO_LVL_3,
        MCA_BASE_VAR_SCOPE_CONSTANT, &mca_btl_rwv_component.backends);
    return OPAL_SUCCESS;
}

static int rwv_open (void)
{
    opal_show_help_add_dir (RWV_HELPDIR);
    return OPAL_SUCCESS;
}

static mca_btl_base_module_t **rwv_init (int *num_btls, bool enable_progress_threads,
                                         bool enable_mpi_threads)
{
    opal_output_verbose (MCA_BASE_VERBOSE_INFO, opal_btl_base_framework.framework_output,
                         "btl/rwv: %s", mca_btl_rwv_component.status);
    *num_btls = 0;
    return NULL;
}
