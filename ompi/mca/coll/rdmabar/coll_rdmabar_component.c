/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * coll/rdmabar component: parameters and the init query.
 * Layer: glue (docs/layout.md).
 */
#include "ompi_config.h"

#include <stdio.h>

#include "opal/mca/base/mca_base_var.h"
#include "opal/util/show_help.h"
#include "rwv_ompi_compat.h"
#include "ompi/mca/coll/base/base.h"

#include "coll_rdmabar.h"
#include "coll_rdmabar_fill.h"

static int rdmabar_register (void);
static int rdmabar_open (void);
static int rdmabar_close (void);
static int rdmabar_init_query (bool enable_progress_threads, bool enable_mpi_threads);

mca_coll_rdmabar_component_t mca_coll_rdmabar_component = {
    .super = {
        .collm_version = {
            RWV_COMPAT_COLL_VERSION,
            .mca_component_name = "rdmabar",
            MCA_BASE_MAKE_VERSION(component, RWV_VERSION_MAJOR, RWV_VERSION_MINOR, RWV_VERSION_RELEASE),
            .mca_register_component_params = rdmabar_register,
            .mca_open_component = rdmabar_open,
            .mca_close_component = rdmabar_close,
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
    mca_base_var_enum_t *algorithm_enum;

    (void) mca_base_var_enum_create ("coll_rdmabar_algorithms", mca_coll_rdmabar_algorithms, &algorithm_enum);
    mca_coll_rdmabar_component.algorithm = MCA_COLL_RDMABAR_AUTO;
    (void) mca_base_component_var_register (&mca_coll_rdmabar_component.super.collm_version, "algorithm",
        "Exchange among node leaders: recursive_doubling (pairwise exchange among a power of "
        "two; extra leaders check in before and are released after), dissemination "
        "(ceil(log2 N) rounds for any N), linear (every leader checks in with the first, which "
        "releases them: two hops for any N), or auto (linear for 3 to 16 leaders, measured fastest "
        "there; recursive doubling for 2, and above 16 where nothing was measured)",
        MCA_BASE_VAR_TYPE_INT, algorithm_enum, 0, 0, OPAL_INFO_LVL_6, MCA_BASE_VAR_SCOPE_READONLY,
        &mca_coll_rdmabar_component.algorithm);
    OBJ_RELEASE(algorithm_enum);

    mca_coll_rdmabar_component.priority = MCA_COLL_RDMABAR_DEFAULT_PRIORITY;
    (void) mca_base_component_var_register (&mca_coll_rdmabar_component.super.collm_version, "priority",
        "Selection priority of the rdmabar barrier; above coll/tuned's 30 and coll/han's 35 (Open MPI 5.0) so that it replaces "
        "their barrier, 0 to switch it off (negative values are refused)",
        MCA_BASE_VAR_TYPE_INT, NULL, 0, 0, OPAL_INFO_LVL_6, MCA_BASE_VAR_SCOPE_READONLY,
        &mca_coll_rdmabar_component.priority);
    return OMPI_SUCCESS;
}

/* A negative priority is a typo more often than a wish: say so and keep
 * the default rather than silently switching the barrier off. */
static int rdmabar_open (void)
{
    rwv_show_help_open ();
    if (mca_coll_rdmabar_component.priority < 0) {
        rwv_show_help ("help-coll-rdmabar.txt", "bad-priority", true, ompi_process_info.nodename,
                       mca_coll_rdmabar_component.priority, MCA_COLL_RDMABAR_DEFAULT_PRIORITY);
        mca_coll_rdmabar_component.priority = MCA_COLL_RDMABAR_DEFAULT_PRIORITY;
    }
    mca_coll_rdmabar_nbc_open ();
    return OMPI_SUCCESS;
}

static int rdmabar_close (void)
{
    mca_coll_rdmabar_nbc_close ();
    return OMPI_SUCCESS;
}

static int rdmabar_init_query (bool enable_progress_threads, bool enable_mpi_threads)
{
    return OMPI_SUCCESS;
}
