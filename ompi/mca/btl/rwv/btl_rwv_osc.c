/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * What rwv tells osc/rdma, the component behind MPI one-sided: to use rwv
 * (its put, get, flush and atomics), how to step around a bug of the
 * osc/rdma this build runs under, and how big its temporary buffers are.
 *
 * All are osc/rdma parameters that are not settable through the MCA API.
 * osc/rdma reads the first two when a window is created, always after the
 * first add_procs, by when the osc framework is open.  The buffers' size
 * is read earlier, at osc/rdma's init (see mca_btl_rwv_size_osc_buffers).
 * A value the user set is never touched.
 * Layer: glue (docs/layout.md).
 */
#include "opal_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Does a line of FILE set NAME? */
static bool rwv_file_sets (const char *file, const char *name)
{
    size_t len = strlen (name);
    bool sets = false;
    char line[512];
    FILE *fp = fopen (file, "r");

    if (NULL == fp) {
        return false;
    }
    while (!sets && NULL != fgets (line, sizeof (line), fp)) {
        const char *p = line + strspn (line, " \t");

        sets = 0 == strncmp (p, name, len) && '=' == p[len + strspn (p + len, " \t")];
    }
    fclose (fp);
    return sets;
}

/* Did the user set the parameter VAR in the environment (ENV) or in one
 * of the MCA parameter files, a comma-separated list (mpirun's -mca and
 * --tune reach us as environment)? */
static bool rwv_user_set (const char *var, const char *env)
{
    int index = mca_base_var_find ("opal", "mca", "base", "param_files");
    const mca_base_var_t *files;
    char *list, *file, *save = NULL;
    bool set;

    if (NULL != getenv (env)) {
        return true;
    }
    if (index < 0 || OPAL_SUCCESS != mca_base_var_get (index, &files) || NULL == files->mbv_storage->stringval ||
        NULL == (list = strdup (files->mbv_storage->stringval))) {
        return false;
    }
    set = false;
    for (file = strtok_r (list, ",", &save) ; !set && NULL != file ; file = strtok_r (NULL, ",", &save)) {
        set = rwv_file_sets (file, var);
    }
    free (list);
    return set;
}

/* osc/rdma computes an accumulate larger than an eighth of its buffer
 * size in pieces of an eighth, each a read, the op and a write: with its
 * 32 KiB default a 1 MiB accumulate takes 256 round trips.  osc/rdma sizes
 * its free list of buffers at its init, which comes after rwv's.  Under
 * Open MPI 5.0 and later the osc framework is open by then and its
 * variable is set in place; under 4.1 it is not open yet, and the
 * environment carries the size to its registration.  Either way the
 * buffers only grow. */
#define MCA_BTL_RWV_OSC_RDMA_BUFFER_SIZE 32768 /* osc/rdma's default, 4.1 to 6.0 */

void mca_btl_rwv_size_osc_buffers (void)
{
    unsigned int size = (unsigned int) mca_btl_rwv_component.osc_buffer_size;
    const mca_base_var_t *var;
    char text[16];

    if (0 == size) {
        return;
    }
    if (0 <= mca_base_var_find ("ompi", "osc", "rdma", "buffer_size")) {
        var = rwv_osc_default_var ("buffer_size");
        if (NULL != var && var->mbv_storage->uintval < size) {
            var->mbv_storage->uintval = size;
        }
        return;
    }
    if (size > MCA_BTL_RWV_OSC_RDMA_BUFFER_SIZE &&
        !rwv_user_set ("osc_rdma_buffer_size", "OMPI_MCA_osc_rdma_buffer_size")) {
        snprintf (text, sizeof (text), "%u", size);
        setenv ("OMPI_MCA_osc_rdma_buffer_size", text, 0);
    }
}
