/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Messages too big for the slot they would go into: a cold peer's ring
 * has small slots (btl_rwv_hotset.c), so its larger eager messages travel
 * as a FETCH message naming the sender's registered buffer, and the
 * receiver reads them from there (one RDMA read, no copy through slots).
 * The sender's buffer holds a copy of the PML's data: the PML is told at
 * once, and the buffer is kept until the receiver has consumed the slot
 * (btl_rwv_send.c), which it credits at once.
 *
 * The receiver reads one message at a time per rail, into a buffer of the
 * largest eager message: a peer that sends many becomes hot and stops
 * needing it, so the memory stays one buffer per rail.  The ring waits at
 * the FETCH slot until the read is done, which keeps the peer's messages
 * in order.
 * Layer: protocol (docs/layout.md).
 */
#include "opal_config.h"

#include <stdlib.h>
#include <string.h>

#include "btl_rwv.h"
#include "btl_rwv_endpoint.h"
#include "btl_rwv_fetch.h"
#include "btl_rwv_frag.h"
#include "btl_rwv_recv.h"

/* A rail's read buffer.  The op comes first: its completion finds the rest. */
typedef struct rwv_bounce_t {
    mca_btl_rwv_op_t op;
    mca_btl_rwv_rail_t *rail;
    unsigned char *buf;
    void *mr;
    void *desc;
    mca_btl_rwv_conn_t *owner;   /* whose message it holds or is reading, NULL: free */
    size_t len;
    bool done;                   /* read, and right: a failed read fails its connection */
    bool orphaned;               /* its connection went with the read out: freed when that completes */
} rwv_bounce_t;

static rwv_bounce_t *rwv_bounce[MCA_BTL_RWV_MAX_RAILS];

static void rwv_bounce_free (rwv_bounce_t *bounce)
{
    bounce->rail->ops->mr_dereg (bounce->rail, bounce->mr);
    free (bounce->buf);
    free (bounce);
}

/* A read refused by the peer's transport (OPAL_ERR_PERM) is the peer's
 * malformed message.  Any other failure is the connection breaking under
 * it (a link, a peer's death, or the libfabric tcp provider, which closes
 * a connection whose peer reads memory it may not, and so cannot tell the
 * two apart): the rail fails, the peer replays the message on another,
 * and the rail may come back.  Decided here, as the completion arrives:
 * the connection's close may be the next event progress sees. */
static void rwv_fetch_failed (mca_btl_rwv_conn_t *conn, int status)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;

    MCA_BTL_RWV_LOCK(module);
    if (OPAL_ERR_PERM == status) {
        mca_btl_rwv_conn_malformed (conn, "a message to be read from memory it does not let us read");
    } else {
        mca_btl_rwv_conn_failed (conn, "the read of a message it sent failed");
    }
    mca_btl_rwv_fetch_done (conn);
    MCA_BTL_RWV_UNLOCK(module);
}

static void rwv_bounce_complete (mca_btl_rwv_op_t *op, int status)
{
    rwv_bounce_t *bounce = (rwv_bounce_t *) op;

    if (bounce->orphaned) {
        rwv_bounce_free (bounce);
        return;
    }
    bounce->done = true;
    if (OPAL_SUCCESS != status) {
        rwv_fetch_failed (bounce->owner, status);
    }
}

static rwv_bounce_t *rwv_bounce_get (mca_btl_rwv_rail_t *rail)
{
    rwv_bounce_t *bounce = rwv_bounce[rail->index];
    uint64_t rkey;

    if (NULL != bounce) {
        return bounce;
    }
    if (NULL == (bounce = calloc (1, sizeof (*bounce))) ||
        0 != posix_memalign ((void **) &bounce->buf, 64, mca_btl_rwv_max_payload ())) {
        free (bounce);
        return NULL;
    }
    if (OPAL_SUCCESS != rail->ops->mr_reg (rail, bounce->buf, mca_btl_rwv_max_payload (), MCA_BTL_RWV_ACCESS_READ_INTO, &bounce->mr, &bounce->desc,
                                           &rkey)) {
        free (bounce->buf);
        free (bounce);
        return NULL;
    }
    bounce->rail = rail;
    bounce->op.complete = rwv_bounce_complete;
    return rwv_bounce[rail->index] = bounce;
}

/* Start reading the message FETCH names; if the transport is full, the
 * buffer stays free and the next pass tries again. */
static void rwv_fetch_start (mca_btl_rwv_conn_t *conn, rwv_bounce_t *bounce, const mca_btl_rwv_fetch_hdr_t *fetch)
{
    bounce->owner = conn;
    bounce->len = fetch->len;
    bounce->done = false;
    if (0 == fetch->len) {
        bounce->done = true;
        return;
    }
    if (OPAL_SUCCESS != conn->rail->ops->read (conn, bounce->buf, fetch->len, bounce->desc, fetch->raddr, fetch->rkey,
                                               &bounce->op)) {
        bounce->owner = NULL;
    }
}

const char *mca_btl_rwv_fetch_poll (mca_btl_rwv_conn_t *conn, const mca_btl_rwv_eager_hdr_t *hdr, void **payload,
                                    size_t *len)
{
    rwv_bounce_t *bounce = rwv_bounce_get (conn->rail);
    mca_btl_rwv_fetch_hdr_t fetch;

    *payload = NULL;
    conn->local.fetching = true;  /* progress keeps looking at this ring meanwhile */
    if (NULL == bounce) {
        return NULL; /* no memory to read into now: the message waits in its slot */
    }
    if (bounce->owner == conn) {
        if (!bounce->done) {
            return NULL;
        }
        *payload = bounce->buf;
        *len = bounce->len;
        return NULL;
    }
    if (NULL != bounce->owner) {
        return NULL; /* another peer's message first */
    }
    memcpy (&fetch, (const unsigned char *) hdr - MCA_BTL_RWV_PAD8(sizeof (fetch)), sizeof (fetch));
    if (fetch.len > mca_btl_rwv_max_payload ()) {
        return "a message to be read that is longer than any eager message";
    }
    rwv_fetch_start (conn, bounce, &fetch);
    return NULL;
}

/* A read still out (the connection went, or the peer rewrote the FETCH
 * slot under it) may yet write into the buffer: it is left to the read,
 * freed when that completes, and the rail's next FETCH gets a new one. */
void mca_btl_rwv_fetch_done (mca_btl_rwv_conn_t *conn)
{
    rwv_bounce_t *bounce = rwv_bounce[conn->rail->index];

    if (NULL != bounce && bounce->owner == conn) {
        if (bounce->done) {
            bounce->owner = NULL;
        } else {
            bounce->orphaned = true;
            rwv_bounce[conn->rail->index] = NULL;
        }
    }
    conn->local.fetching = false;
}

void mca_btl_rwv_fetch_fini (void)
{
    for (int r = 0 ; r < MCA_BTL_RWV_MAX_RAILS ; ++r) {
        if (NULL != rwv_bounce[r]) {
            rwv_bounce_free (rwv_bounce[r]);
            rwv_bounce[r] = NULL;
        }
    }
}
