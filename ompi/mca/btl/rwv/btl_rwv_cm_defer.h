/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/* Connection events the connection thread leaves to progress (btl_rwv_cm_defer.c). */
#ifndef MCA_BTL_RWV_CM_DEFER_H
#define MCA_BTL_RWV_CM_DEFER_H

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
/* An event queued for progress, with what it carries. */
typedef struct mca_btl_rwv_cm_deferred_t {
    opal_list_item_t super;
    mca_btl_rwv_cm_kind_t kind;
    mca_btl_rwv_conn_t *conn;
    mca_btl_rwv_rail_t *rail;
    void *request;
    mca_btl_rwv_ip_t src_ip;
    size_t len;
    unsigned char data[sizeof (mca_btl_rwv_cm_data_t)];
    char why[192];
} mca_btl_rwv_cm_deferred_t;
OBJ_CLASS_DECLARATION(mca_btl_rwv_cm_deferred_t);

/* set in the connection thread only */
extern __thread bool mca_btl_rwv_in_cm_thread;

/* In the connection thread: queue KIND for CONN when MUST, or when the
 * connection has events queued already (they keep their order); true if
 * queued.  Elsewhere false. */
bool mca_btl_rwv_cm_defer (mca_btl_rwv_conn_t *conn, mca_btl_rwv_cm_kind_t kind, bool must, const void *data,
                           size_t len, const char *why);
/* Likewise for a request: queued if CONN (NULL if none yet) is failed or
 * has events queued. */
bool mca_btl_rwv_cm_defer_request (mca_btl_rwv_rail_t *rail, void *request, const mca_btl_rwv_cm_data_t *cm,
                                   const mca_btl_rwv_ip_t *src_ip, mca_btl_rwv_conn_t *conn);
/* From progress, in the application's thread: handle what was queued, in
 * order; returns how many. */
int mca_btl_rwv_cm_run_deferred (void);

static inline bool mca_btl_rwv_cm_has_deferred (mca_btl_rwv_module_t *module)
{
    return !opal_list_is_empty (&module->cm.deferred);
}

END_C_DECLS

#endif /* MCA_BTL_RWV_CM_DEFER_H */
