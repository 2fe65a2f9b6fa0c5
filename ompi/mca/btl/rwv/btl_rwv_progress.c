/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * The progress function: every connected ring, the rails' completion
 * queues and connection events, retries, and the periodic checks
 * (timeouts, links, lost-rail reports).
 */
#include "opal_config.h"

#include "opal/sys/atomic.h"

#include "btl_rwv.h"
#include "btl_rwv_endpoint.h"
#include "btl_rwv_rail.h"
#include "btl_rwv_failover.h"
#include "btl_rwv_recv.h"
#include "btl_rwv_send.h"
#include "btl_rwv_rdma.h"

/* Looking for connection events costs a system call per rail (an
 * epoll_wait in libfabric's tcp provider, a read of the rdmacm channel):
 * every eighth call while connections exist, every 1024th while none does.
 * A job whose peers all use other BTLs (vader on one node) then pays next
 * to nothing for rwv being in the default set, and a first connection
 * request waits at most 1024 progress calls (microseconds in a spin loop). */
#define MCA_BTL_RWV_CM_POLL_MASK 7
#define MCA_BTL_RWV_CM_POLL_MASK_IDLE 1023
/* A rail whose every connection stores into a shared ring (btl_rwv_shm.c)
 * has nothing in its completion queue but what a fallback might put
 * there: it is read every 64th call, which spares a same-node ping-pong
 * a system call per progress call; connection events (a new peer, one
 * that died) then every 64th call too. */
#define MCA_BTL_RWV_CQ_POLL_MASK_SHARED 63

/* Has any rail a connection (in any state)?  Without one there is no
 * completion to poll and no link worth checking. */
static bool mca_btl_rwv_module_has_conns (void)
{
    const mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;

    for (int i = 0 ; i < module->num_rails ; ++i) {
        if (module->rails[i]->num_conns) {
            return true;
        }
    }
    return false;
}

static int rwv_poll_connections (void)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    int count = 0;

    MCA_BTL_RWV_LOCK(module);
    for (int i = 0 ; i < module->num_rails ; ++i) {
        count += module->rails[i]->ops->poll_connections (module->rails[i]);
    }
    MCA_BTL_RWV_UNLOCK(module);
    return count;
}

/* Without connections there is nothing to progress but connection
 * requests: every call but the 1024th returns before any shared write. */
static int rwv_progress_idle (void)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    int32_t idle = 0;
    int count;

    if (0 != (module->progress_calls++ & MCA_BTL_RWV_CM_POLL_MASK_IDLE) ||
        !opal_atomic_compare_exchange_strong_32 (&module->progressing, &idle, 1)) {
        return 0;
    }
    count = rwv_poll_connections ();
    opal_atomic_wmb ();
    module->progressing = 0;
    return count;
}

/* Every connected ring; CQ_WANTED[r]: rail r has a connection that
 * writes (or is written) through the rail rather than a shared ring. */
static int rwv_poll_rings (bool *cq_wanted)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    int size = opal_pointer_array_get_size (&module->conns), count = 0;

    for (int i = 0 ; i < size ; ++i) {
        mca_btl_rwv_conn_t *conn = opal_pointer_array_get_item (&module->conns, i);

        if (NULL == conn) {
            continue;
        }
        cq_wanted[conn->rail->index] |= NULL == conn->peer.ring;
        if (MCA_BTL_RWV_CONN_CONNECTED == conn->state) {
            count += mca_btl_rwv_conn_poll_ring (conn);
        }
    }
    return count;
}

int mca_btl_rwv_progress (void)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    bool cq_wanted[MCA_BTL_RWV_MAX_RAILS] = {false}, any_cq_wanted = false;
    int32_t idle = 0;
    int count;

    if (NULL == module) {
        return 0;
    }
    if (!mca_btl_rwv_module_has_conns ()) {
        return rwv_progress_idle ();
    }
    if (!opal_atomic_compare_exchange_strong_32 (&module->progressing, &idle, 1)) {
        return 0;
    }
    count = rwv_poll_rings (cq_wanted);
    for (int i = 0 ; i < module->num_rails ; ++i) {
        if (cq_wanted[i] || 0 == (module->progress_calls & MCA_BTL_RWV_CQ_POLL_MASK_SHARED)) {
            count += module->rails[i]->ops->poll_completions (module->rails[i]);
            any_cq_wanted |= cq_wanted[i];
        }
    }
    if (!opal_list_is_empty (&module->stored)) {
        count += mca_btl_rwv_complete_stored ();
    }
    if (0 == (module->progress_calls & (any_cq_wanted ? MCA_BTL_RWV_CM_POLL_MASK : MCA_BTL_RWV_CQ_POLL_MASK_SHARED))) {
        count += rwv_poll_connections ();
    }
    if (!opal_list_is_empty (&module->retry)) {
        mca_btl_rwv_rdma_retry ();
    }
    if (0 == (module->progress_calls++ & 1023)) {
        MCA_BTL_RWV_LOCK(module);
        double now = mca_btl_rwv_now ();

        mca_btl_rwv_conn_check_timeouts (now);
        mca_btl_rwv_check_links (now);
        mca_btl_rwv_report_lost_rails (now);
        MCA_BTL_RWV_UNLOCK(module);
    }
    opal_atomic_wmb ();
    module->progressing = 0;
    return count;
}
