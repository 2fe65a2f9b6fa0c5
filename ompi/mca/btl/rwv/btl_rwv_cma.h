/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Single-copy put and get to processes on this node (btl_rwv_cma.c).
 */
#ifndef MCA_BTL_RWV_CMA_H
#define MCA_BTL_RWV_CMA_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct mca_btl_base_endpoint_t;

/* Has the kernel refused a single copy (then no peer gets one)? */
bool mca_btl_rwv_cma_refused (void);

/* Copy to (put) or from (get) the peer's memory.  OPAL_ERR_NOT_AVAILABLE:
 * the kernel refused, use the rail; OPAL_ERROR: the peer's memory is not
 * there. */
int mca_btl_rwv_cma_copy (struct mca_btl_base_endpoint_t *endpoint, bool is_put, void *local_address,
                          uint64_t remote_address, size_t size);

#endif /* MCA_BTL_RWV_CMA_H */
