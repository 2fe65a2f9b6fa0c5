/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * When the connection thread watches for peers' data, and how it sleeps
 * (btl_rwv_cm_watch.c).  Called by the thread alone.
 * Layer: connections (docs/layout.md).
 */
#ifndef MCA_BTL_RWV_CM_WATCH_H
#define MCA_BTL_RWV_CM_WATCH_H

#include "btl_rwv.h"

BEGIN_C_DECLS

typedef struct {
    bool armed;
    bool confirming;    /* parked: the pause saw passes; do they still come? */
    bool one_core;      /* the thread may run on one core only */
    bool holding;       /* serving: in the gate from one turn to the next (btl_rwv_cm_thread.c) */
    unsigned calls;     /* the application's progress passes when last looked */
    long park_ns;       /* parked: the pause */
    long long until;    /* parked: when to look again, CLOCK_MONOTONIC ns */
} mca_btl_rwv_cm_watch_t;

typedef struct {
    long pause_ns;
    int empty_data_wakes;   /* paces ended by a data fd, with nothing served since */
} mca_btl_rwv_cm_pace_t;

/* parked, its first pause begun */
void mca_btl_rwv_cm_watch_init (mca_btl_rwv_module_t *module, mca_btl_rwv_cm_watch_t *watch);
/* parked and the pause over: confirm, park again or arm */
void mca_btl_rwv_cm_look (mca_btl_rwv_module_t *module, mca_btl_rwv_cm_watch_t *watch);
/* armed and the application back in MPI (its passes, its asks for the
 * gate): park; true if so */
bool mca_btl_rwv_cm_parks (mca_btl_rwv_module_t *module, mca_btl_rwv_cm_watch_t *watch);
/* the application's passes counted so far are seen (not its own) */
void mca_btl_rwv_cm_seen (mca_btl_rwv_module_t *module, mca_btl_rwv_cm_watch_t *watch);
/* under the gate: the rails' data fds up to date with their connections */
void mca_btl_rwv_cm_data_sync (mca_btl_rwv_module_t *module);

void mca_btl_rwv_cm_pace_reset (mca_btl_rwv_cm_pace_t *pace);
/* a wake with nothing for the thread: pause; true for finalize */
bool mca_btl_rwv_cm_pace (mca_btl_rwv_module_t *module, const mca_btl_rwv_cm_watch_t *watch,
                          mca_btl_rwv_cm_pace_t *pace);
/* sleep until an fd wakes the thread (*WOKEN) or a parked pause ends;
 * true for finalize */
bool mca_btl_rwv_cm_sleep (mca_btl_rwv_module_t *module, const mca_btl_rwv_cm_watch_t *watch, bool *woken);

END_C_DECLS

#endif /* MCA_BTL_RWV_CM_WATCH_H */
