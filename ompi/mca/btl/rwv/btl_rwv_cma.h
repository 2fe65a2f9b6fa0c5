/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Single-copy put and get to processes on this node (btl_rwv_cma.c).
 */
#ifndef MCA_BTL_RWV_CMA_H
#define MCA_BTL_RWV_CMA_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "btl_rwv.h"

struct mca_btl_base_endpoint_t;

/* A handle for memory handed over for a same-node peer that takes single
 * copies: nothing is registered (MCA_BTL_RWV_HANDLE_SINGLE_COPY). */
typedef struct mca_btl_rwv_cma_handle_t {
    opal_free_list_item_t super;
    mca_btl_base_registration_handle_t handle;
} mca_btl_rwv_cma_handle_t;
OBJ_CLASS_DECLARATION(mca_btl_rwv_cma_handle_t);

/* Has the kernel refused a single copy (then no peer gets one)? */
bool mca_btl_rwv_cma_refused (void);
/* Can we copy from process PID?  Reads the word at ADDRESS there, which
 * must hold EXPECT; a refusal by the kernel is said once (verbose). */
bool mca_btl_rwv_cma_probe (pid_t pid, uint64_t address, uint64_t expect);
/* a handle for BASE that registers nothing, and its release (deregister_mem) */
mca_btl_base_registration_handle_t *mca_btl_rwv_cma_handle (void *base);
void mca_btl_rwv_cma_handle_release (mca_btl_base_registration_handle_t *handle);

/* Copy to (put) or from (get) the peer's memory.  OPAL_ERR_NOT_AVAILABLE:
 * the kernel refused, use the rail; OPAL_ERROR: the peer's memory is not
 * there. */
int mca_btl_rwv_cma_copy (struct mca_btl_base_endpoint_t *endpoint, bool is_put, void *local_address,
                          uint64_t remote_address, size_t size);

#endif /* MCA_BTL_RWV_CMA_H */
