/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Memory registration (btl_rwv_reg.h): the PML's and osc's memory
 * registered on every rail at once through the module's rcache, a
 * same-node peer's single-copy handles that register nothing, and the
 * registrations looked up by key, so that a peer's atomic touches only
 * memory registered for it.
 * Layer: protocol (docs/layout.md).
 */
#include "opal_config.h"

#include <stddef.h>

#include "opal/mca/rcache/base/base.h"

#include "btl_rwv.h"
#include "btl_rwv_cma.h"
#include "btl_rwv_endpoint.h"
#include "btl_rwv_rail.h"
#include "btl_rwv_reg.h"

static int rwv_reg_mem (void *reg_data, void *base, size_t size, mca_rcache_base_registration_t *rcreg)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    mca_btl_rwv_reg_t *reg = (mca_btl_rwv_reg_t *) rcreg;
    int rc, i;

    reg->handle.base = (uint64_t) (uintptr_t) base;
    reg->handle.flags = 0;
    for (i = 0 ; i < module->num_rails ; ++i) {
        mca_btl_rwv_rail_t *rail = module->rails[i];

        rc = rail->ops->mr_reg (rail, base, size, MCA_BTL_RWV_ACCESS_RDMA, &reg->mr[i], &reg->desc[i], &reg->handle.rkey[i]);
        if (OPAL_SUCCESS != rc) {
            while (i-- > 0) {
                module->rails[i]->ops->mr_dereg (module->rails[i], reg->mr[i]);
            }
            return rc;
        }
    }
    mca_btl_rwv_regs_lock (module);
    (void) opal_hash_table_set_value_uint64 (&module->regs, reg->handle.rkey[0], reg);
    mca_btl_rwv_regs_unlock (module);
    return OPAL_SUCCESS;
}

static int rwv_dereg_mem (void *reg_data, mca_rcache_base_registration_t *rcreg)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    mca_btl_rwv_reg_t *reg = (mca_btl_rwv_reg_t *) rcreg;

    mca_btl_rwv_regs_lock (module);
    (void) opal_hash_table_remove_value_uint64 (&module->regs, reg->handle.rkey[0]);
    mca_btl_rwv_regs_unlock (module);

    for (int i = 0 ; i < module->num_rails ; ++i) {
        module->rails[i]->ops->mr_dereg (module->rails[i], reg->mr[i]);
    }
    return OPAL_SUCCESS;
}

bool mca_btl_rwv_registered_for (uint64_t key, uint64_t address, size_t width, int32_t access)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    mca_btl_rwv_reg_t *reg;

    if (OPAL_SUCCESS != opal_hash_table_get_value_uint64 (&module->regs, key, (void **) &reg)) {
        return false;
    }
    return address >= (uint64_t) (uintptr_t) reg->base.base && address + width > address &&
           address + width - 1 <= (uint64_t) (uintptr_t) reg->base.bound &&
           access == (reg->base.access_flags & access);
}

mca_btl_base_registration_handle_t *mca_btl_rwv_register_mem (mca_btl_base_module_t *btl, struct mca_btl_base_endpoint_t *endpoint,
                                                              void *base, size_t size, uint32_t flags)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    mca_rcache_base_registration_t *reg;
    int access = flags & MCA_BTL_REG_FLAG_ACCESS_ANY;

    if (NULL != endpoint && MCA_BTL_ENDPOINT_ANY != endpoint && endpoint->cma_pid) {
        return mca_btl_rwv_cma_handle (base); /* a single copy needs no registration */
    }
    if (OPAL_SUCCESS != module->rcache->rcache_register (module->rcache, base, size, 0, access, &reg)) {
        return NULL;
    }
    return &((mca_btl_rwv_reg_t *) reg)->handle;
}

int mca_btl_rwv_deregister_mem (mca_btl_base_module_t *btl, mca_btl_base_registration_handle_t *handle)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    mca_btl_rwv_reg_t *reg = (mca_btl_rwv_reg_t *) ((char *) handle - offsetof (mca_btl_rwv_reg_t, handle));

    if (handle->flags & MCA_BTL_RWV_HANDLE_SINGLE_COPY) {
        mca_btl_rwv_cma_handle_release (handle);
        return OPAL_SUCCESS;
    }
    return module->rcache->rcache_deregister (module->rcache, &reg->base);
}

int mca_btl_rwv_rcache_create (void)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;

    mca_rcache_base_resources_t resources = {
        .cache_name = "btl/rwv", .reg_data = NULL, .sizeof_reg = sizeof (mca_btl_rwv_reg_t),
        .register_mem = rwv_reg_mem, .deregister_mem = rwv_dereg_mem,
    };

    module->rcache = mca_rcache_base_module_create (mca_btl_rwv_component.rcache_name, module, &resources);
    if (NULL == module->rcache) {
        rwv_show_help ("help-mpi-btl-rwv.txt", "no rcache", true, mca_btl_rwv_component.rcache_name);
        return OPAL_ERR_NOT_AVAILABLE;
    }
    return OPAL_SUCCESS;
}
