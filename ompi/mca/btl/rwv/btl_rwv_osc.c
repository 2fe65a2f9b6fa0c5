/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * What rwv tells osc/rdma, the component behind MPI one-sided: to use rwv
 * (its put, get, flush and atomics), and how to step around a bug of the
 * osc/rdma this build runs under.
 *
 * Both are osc/rdma parameters that are not settable through the MCA API.
 * osc/rdma reads them when a window is created, always after the first
 * add_procs, by when the osc framework is open; a value the user set is
 * never touched.
 */
#include "opal_config.h"

#include <stdio.h>
#include <stdlib.h>

#include "opal/mca/base/mca_base_var.h"

#include "btl_rwv.h"

static const mca_base_var_t *rwv_osc_default_var (const char *name)
{
    int index = mca_base_var_find ("ompi", "osc", "rdma", name);
    mca_base_var_source_t source;
    const mca_base_var_t *var;

    if (index < 0 || OPAL_SUCCESS != mca_base_var_get_value (index, NULL, &source, NULL) ||
        MCA_BASE_VAR_SOURCE_DEFAULT != source || OPAL_SUCCESS != mca_base_var_get (index, &var)) {
        return NULL;
    }
    return var;
}

/* rwv first in osc_rdma_btls; the MCA system frees the list at
 * finalize as its own. */
static void rwv_osc_offer (void)
{
    const mca_base_var_t *var = rwv_osc_default_var ("btls");
    char *old, *list;

    if (NULL == var) {
        return;
    }
    old = var->mbv_storage->stringval;
    if (0 > asprintf (&list, "rwv%s%s", old && *old ? "," : "", old ? old : "")) {
        return;
    }
    free (old);
    var->mbv_storage->stringval = list;
}

static void rwv_osc_avoid_acc_bug (void)
{
    const mca_base_var_t *var = rwv_osc_default_var ("network_max_amo");

    if (RWV_COMPAT_OSC_ACC_AMO_BROKEN && NULL != var) {
        var->mbv_storage->ulval = 0;
    }
}

void mca_btl_rwv_offer_one_sided (void)
{
    static bool offered;

    if (offered) {
        return;
    }
    offered = true;
    if (mca_btl_rwv_component.one_sided) {
        rwv_osc_offer ();
    }
    rwv_osc_avoid_acc_bug ();
}
