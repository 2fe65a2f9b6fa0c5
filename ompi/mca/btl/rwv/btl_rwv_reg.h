/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/* Memory registration on every rail, and its lookup by key (btl_rwv_reg.c). */
#ifndef MCA_BTL_RWV_REG_H
#define MCA_BTL_RWV_REG_H

#include "btl_rwv.h"

BEGIN_C_DECLS

/* the module's rcache, registering on every rail; an error (said) if the
 * rcache named by btl_rwv_rcache cannot be had */
int mca_btl_rwv_rcache_create (void);
/* the BTL's register_mem and deregister_mem */
mca_btl_base_registration_handle_t *mca_btl_rwv_register_mem (mca_btl_base_module_t *btl, struct mca_btl_base_endpoint_t *endpoint,
                                                              void *base, size_t size, uint32_t flags);
int mca_btl_rwv_deregister_mem (mca_btl_base_module_t *btl, mca_btl_base_registration_handle_t *handle);
/* The registration table's lock: real where another thread reads the
 * table (MPI threads, or the connection thread serving atomics while the
 * application computes, btl_rwv_async_progress), else free, as before. */
static inline bool mca_btl_rwv_regs_locked (void)
{
    return opal_using_threads () || mca_btl_rwv_component.async_progress;
}

static inline void mca_btl_rwv_regs_lock (mca_btl_rwv_module_t *module)
{
    if (mca_btl_rwv_regs_locked ()) {
        opal_mutex_lock (&module->regs_lock);
    }
}

static inline void mca_btl_rwv_regs_unlock (mca_btl_rwv_module_t *module)
{
    if (mca_btl_rwv_regs_locked ()) {
        opal_mutex_unlock (&module->regs_lock);
    }
}

/* With regs_lock held: does [address, address + width) lie in memory we
 * registered under KEY with every right in ACCESS? */
bool mca_btl_rwv_registered_for (uint64_t key, uint64_t address, size_t width, int32_t access);

END_C_DECLS

#endif /* MCA_BTL_RWV_REG_H */
