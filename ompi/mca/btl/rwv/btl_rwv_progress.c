/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * The progress function: the rings that need looking at (hot, shared on
 * the node, or with work under way; a cold peer's completion puts it
 * back on the list), the rails' completion queues and connection events,
 * retries, and the periodic checks (timeouts, links, lost-rail reports).
 * Layer: glue (docs/layout.md).
 */
#include "opal_config.h"

#include <stdlib.h>
#include <string.h>

#include "opal/sys/atomic.h"

#include "btl_rwv.h"
#include "btl_rwv_cm_thread.h"
#include "btl_rwv_endpoint.h"
#include "btl_rwv_rail.h"
#include "btl_rwv_links.h"
#include "btl_rwv_ring.h"
#include "btl_rwv_recv.h"
#include "btl_rwv_send.h"
#include "btl_rwv_rdma.h"
#include "btl_rwv_poll.h"
#include "btl_rwv_progress.h"

/* Looking for connection events costs a system call per rail (an
 * epoll_wait in libfabric's tcp provider, a read of the rdmacm channel):
 * every eighth call while connections exist, every 1024th while none does.
 * A job whose peers all use other BTLs (vader on one node) then pays next
 * to nothing for rwv being in the default set, and a first connection
 * request waits at most 1024 progress calls (microseconds in a spin loop). */
#define MCA_BTL_RWV_CM_POLL_MASK 7
#define MCA_BTL_RWV_CM_POLL_MASK_IDLE 1023
/* A rail whose every connection stores into a shared ring (btl_rwv_shm.c)
 * and has no put or get outstanding through it has nothing in its
 * completion queue: it is read every 1024th call, as when idle, and so are
 * connection events (a new peer, one that died).  Reading it every 64th
 * call cost a same-node ping-pong 0.08 us of its 0.34: a system call that
 * a message arriving meanwhile waits for. */
#define MCA_BTL_RWV_CQ_POLL_MASK_SHARED 1023

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
 * requests, which the connection thread answers: nothing at all.  Without
 * that thread every call but the 1024th returns before any shared write. */
static int rwv_progress_idle (void)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    int count;

    if (module->cm.running || 0 != (module->progress_calls++ & MCA_BTL_RWV_CM_POLL_MASK_IDLE) ||
        !mca_btl_rwv_progress_begin (module)) {
        return 0;
    }
    count = rwv_poll_connections ();
    mca_btl_rwv_progress_end (module);
    return count;
}

/* Connection events: the thread's, or read here every so often without
 * it; what the thread left to this thread, at once. */
static int rwv_progress_connections (mca_btl_rwv_module_t *module, bool any_cq_wanted)
{
    if (module->cm.running) {
        return mca_btl_rwv_cm_has_deferred (module) ? mca_btl_rwv_cm_run_deferred () : 0;
    }
    if (0 == (module->progress_calls & (any_cq_wanted ? MCA_BTL_RWV_CM_POLL_MASK : MCA_BTL_RWV_CQ_POLL_MASK_SHARED))) {
        return rwv_poll_connections ();
    }
    return 0;
}

/* Nothing for progress to look at on this connection until a completion
 * says so (mca_btl_rwv_conn_remote_data) or a send waits on it: every ring
 * the peer may write into is written with immediate data, and nothing of
 * ours waits for a credit, a hello, a read, or the peer's consuming it.
 * Cold peers are such, so an idle pass costs a step per hot or same-node
 * peer, not per peer. */
static bool rwv_conn_quiet (mca_btl_rwv_conn_t *conn)
{
    const mca_btl_rwv_local_ring_t *local = &conn->local;

    return local->tiered && local->cur.notify_imm && (NULL == local->next.base || local->next.notify_imm) &&
        local->imm_seen == local->imm_used && !local->fetching && !conn->peer.owe_hello &&
        opal_list_is_empty (&conn->pending) && opal_list_is_empty (&conn->replay.unacked);
}

/* Off the polled list if still quiet under the lock; true if so. */
static bool rwv_poll_drop (mca_btl_rwv_conn_t *conn)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    bool quiet;

    MCA_BTL_RWV_LOCK(module);
    if ((quiet = rwv_conn_quiet (conn))) {
        mca_btl_rwv_poll_remove (conn);
    }
    MCA_BTL_RWV_UNLOCK(module);
    return quiet;
}

/* Every polled ring, dropping the quiet ones; CQ_WANTED[r]: rail r has a
 * connection that writes (or is written) through the rail rather than a
 * shared ring, or has a put or get in flight through it. */
static int rwv_poll_rings (bool *cq_wanted)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    int n = module->num_polled, count = 0;

    for (int i = 0 ; i < n ; ) {
        mca_btl_rwv_conn_t *conn;

        opal_atomic_rmb (); /* the length before the list it counts */
        conn = module->polled[i];
        if (MCA_BTL_RWV_CONN_CONNECTED == conn->state && mca_btl_rwv_conn_ring_busy (conn)) {
            count += mca_btl_rwv_conn_poll_ring (conn);
        }
        if (rwv_conn_quiet (conn) && rwv_poll_drop (conn)) {
            n = n < module->num_polled ? n : module->num_polled; /* the last took its place */
            continue;
        }
        cq_wanted[conn->rail->index] |= NULL == conn->peer.ring || conn->pieces_out > 0;
        ++i;
    }
    for (int r = 0 ; r < module->num_rails ; ++r) {
        /* a connection off the list is a cold one: its completions are its doorbell */
        cq_wanted[r] |= module->rails[r]->num_conns > module->rails[r]->num_polled;
    }
    return count;
}

int mca_btl_rwv_progress (void)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    bool cq_wanted[MCA_BTL_RWV_MAX_RAILS] = {false}, any_cq_wanted = false, landed = false;
    int count;

    if (NULL == module) {
        return 0;
    }
    if (!mca_btl_rwv_module_has_conns ()) {
        return rwv_progress_idle ();
    }
    if (!mca_btl_rwv_progress_begin (module)) {
        return 0;
    }
    count = rwv_poll_rings (cq_wanted);
    for (int i = 0 ; i < module->num_rails ; ++i) {
        if (cq_wanted[i] || 0 == (module->progress_calls & MCA_BTL_RWV_CQ_POLL_MASK_SHARED)) {
            count += module->rails[i]->ops->poll_completions (module->rails[i]);
            any_cq_wanted |= cq_wanted[i];
            landed |= cq_wanted[i] && module->rails[i]->lands_in_poll;
        }
    }
    if (0 == count && landed) {
        /* libfabric's tcp provider lands a peer's ring writes while its
         * completion queue is read, with no entry for a hot ring: seen
         * only next time, the message would first cost opal_progress's
         * sched_yield, once per message for a receiver that keeps up.  A
         * device lands them whenever they come: a second look there only
         * doubled what an empty pass costs */
        count = rwv_poll_rings (cq_wanted);
    }
    if (!opal_list_is_empty (&module->stored)) {
        count += mca_btl_rwv_complete_ops (&module->stored);
    }
    if (!opal_list_is_empty (&module->reaped)) {
        count += mca_btl_rwv_complete_ops (&module->reaped);
    }
    count += rwv_progress_connections (module, any_cq_wanted);
    if (!opal_list_is_empty (&module->retry)) {
        mca_btl_rwv_rdma_retry ();
    }
    if (0 == (module->progress_calls++ & 1023)) {
        MCA_BTL_RWV_LOCK(module);
        double now = mca_btl_rwv_now ();

        mca_btl_rwv_check_connections (now);
        MCA_BTL_RWV_UNLOCK(module);
    }
    mca_btl_rwv_progress_end (module);
    return count;
}
