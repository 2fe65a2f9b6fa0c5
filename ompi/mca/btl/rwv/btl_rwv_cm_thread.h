/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * The connection thread (btl_rwv_cm_thread.c): it sleeps on every rail's
 * connection events and answers them at once, whatever the application
 * is doing, so that a peer busy computing still answers a connection
 * request within milliseconds.  What may call up into the PML (a failure,
 * failover, a first message) is left to the application's thread.
 */
#ifndef MCA_BTL_RWV_CM_THREAD_H
#define MCA_BTL_RWV_CM_THREAD_H

#include "opal/sys/atomic.h"

#include "btl_rwv.h"
#include "btl_rwv_conn.h"
#include "btl_rwv_wire.h"
#include "btl_rwv_cm_defer.h"

BEGIN_C_DECLS

void mca_btl_rwv_cm_thread_start (void);
/* at finalize: the thread stopped, what it left to progress thrown away */
void mca_btl_rwv_cm_thread_stop (void);

/* How many times the connection thread began or ended a look at the
 * rails outside the gate: odd while one runs.  A look may copy peers'
 * writes into our memory (btl_rwv_cm_thread.c), so a word the application
 * thread reads there is whole only if read between two equal, even
 * counts (mca_btl_rwv_cm_quiet). */
static inline uint32_t mca_btl_rwv_cm_looks (const mca_btl_rwv_module_t *module)
{
    return __atomic_load_n (&module->cm.looks, __ATOMIC_ACQUIRE);
}

/* Did no look run since LOOKS was read (and none then)?  Call it after
 * reading the word it vouches for. */
static inline bool mca_btl_rwv_cm_quiet (const mca_btl_rwv_module_t *module, uint32_t looks)
{
    opal_atomic_rmb ();
    return 0 == (looks & 1) && mca_btl_rwv_cm_looks (module) == looks;
}

END_C_DECLS

#endif /* MCA_BTL_RWV_CM_THREAD_H */
