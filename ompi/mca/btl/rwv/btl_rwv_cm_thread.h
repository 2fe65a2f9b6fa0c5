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

BEGIN_C_DECLS

/* What the connection thread leaves to the application's thread. */
typedef enum {
    MCA_BTL_RWV_CM_REQUEST,      /* a request for a connection failover is done with */
    MCA_BTL_RWV_CM_ESTABLISHED,  /* a connection that re-establishes a rail */
    MCA_BTL_RWV_CM_REFUSED,
    MCA_BTL_RWV_CM_FAILED,
    MCA_BTL_RWV_CM_CLOSED,
    MCA_BTL_RWV_CM_SPEAK,        /* the active side's first message, then what waited for it */
} mca_btl_rwv_cm_kind_t;

/* Start the thread once the rails listen (if btl_rwv_connection_thread
 * and every rail can wake it); stop it at finalize before anything goes. */
void mca_btl_rwv_cm_thread_start (void);
void mca_btl_rwv_cm_thread_stop (void);

/* In the connection thread: queue KIND for CONN when MUST, or when the
 * connection has events queued already (they keep their order); true if
 * queued.  Elsewhere false. */
bool mca_btl_rwv_cm_defer (mca_btl_rwv_conn_t *conn, mca_btl_rwv_cm_kind_t kind, bool must, const void *data,
                           size_t len, const char *why);
/* Likewise for a request: queued if CONN (NULL if none yet) is failed or
 * has events queued. */
bool mca_btl_rwv_cm_defer_request (mca_btl_rwv_rail_t *rail, void *request, const mca_btl_rwv_cm_data_t *cm,
                                   const mca_btl_rwv_ip_t *src_ip, mca_btl_rwv_conn_t *conn);
/* From progress, in the application's thread: handle what was queued. */
int mca_btl_rwv_cm_run_deferred (void);

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

static inline bool mca_btl_rwv_cm_has_deferred (mca_btl_rwv_module_t *module)
{
    return !opal_list_is_empty (&module->cm.deferred);
}

END_C_DECLS

#endif /* MCA_BTL_RWV_CM_THREAD_H */
