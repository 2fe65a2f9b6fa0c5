/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * A peer: what its modex says, the local rails that reach it, and its
 * connection on each of them (btl_rwv_conn.h), created on first use.
 * Which connection carries the next message is chosen here.
 */
#ifndef MCA_BTL_RWV_ENDPOINT_H
#define MCA_BTL_RWV_ENDPOINT_H

#include "btl_rwv.h"
#include "btl_rwv_conn.h"
#include "btl_rwv_rail.h"
#include "btl_rwv_shm.h"
#include "btl_rwv_wire.h"

#include "opal/util/proc.h"

BEGIN_C_DECLS

struct mca_btl_base_endpoint_t {
    opal_list_item_t super;
    opal_proc_t *proc;
    bool self;
    bool same_node;            /* on this node: puts to it complete once delivered */
    pid_t cma_pid;             /* on this node and reachable by single copy (btl_rwv_cma.c), else 0 */
    unsigned char *peer_rings; /* its shared rings mapped here (btl_rwv_shm.c); MAP_FAILED: cannot be */
    mca_btl_rwv_shm_card_t peer_card;
    bool modex_read;           /* its modex was read and is of this version */
    int num_peer_rails;
    mca_btl_rwv_rail_addr_t peer_rails[MCA_BTL_RWV_MAX_RAILS];
    uint8_t peer_secret[MCA_BTL_RWV_SECRET_BYTES]; /* from the modex: keys what we send it */
    uint32_t peer_attempt[MCA_BTL_RWV_MAX_RAILS];  /* its last accepted attempt on each local rail */
    /* the connection on each local rail, created on first use */
    mca_btl_rwv_conn_t *conns[MCA_BTL_RWV_MAX_RAILS];
    /* local rails that reach this peer, in preference order */
    int rails[MCA_BTL_RWV_MAX_RAILS];
    int num_rails;
    unsigned next_rail;        /* round-robin position */
    uint32_t next_stripe_id;   /* names our split eager messages */
    /* the rail of our small puts, and how many may not have landed yet:
     * eager messages follow them there meanwhile (btl_rwv_rdma.c) */
    mca_btl_rwv_conn_t *put_conn;
    int unconfirmed_puts;
    opal_list_t reassembly;    /* the peer's split eager messages, partly arrived */
    bool failed;               /* reported to the PML; everything to it fails now */
    /* the rail where it closed a connection without its goodbye, or NULL:
     * what fails on its other rails after that is its death, not theirs */
    const char *vanished_on;
    /* what a flush waits for: puts, gets, atomics and flush markers not yet complete */
    int ops_out;
    opal_list_t atomics;       /* ours, waiting for the peer's reply */
};
typedef struct mca_btl_base_endpoint_t mca_btl_base_endpoint_t;
typedef mca_btl_base_endpoint_t mca_btl_rwv_endpoint_t;
OBJ_CLASS_DECLARATION(mca_btl_rwv_endpoint_t);

#define RWV_TRACE(...) opal_output_verbose (MCA_BASE_VERBOSE_TRACE, opal_btl_base_framework.framework_output, __VA_ARGS__)

/* The connection for the next eager message, of LEN bytes, by
 * btl_rwv_eager_rail, started if needed (LEN sizes the rings of a
 * connection it starts); NULL when the peer is unreachable. */
mca_btl_rwv_conn_t *mca_btl_rwv_endpoint_conn_chosen (mca_btl_rwv_endpoint_t *endpoint, size_t len);

/* The same for every message: a peer of one rail whose connection is up,
 * as most are, has the only answer every policy would give, found here
 * without asking them (choosing cost a message 53 instructions, then 28
 * out of line).  NULL from the first when the policies must be asked. */
static inline mca_btl_rwv_conn_t *mca_btl_rwv_endpoint_only_conn (mca_btl_rwv_endpoint_t *endpoint)
{
    mca_btl_rwv_conn_t *conn = 1 == endpoint->num_rails ? endpoint->conns[endpoint->rails[0]] : NULL;

    if (OPAL_LIKELY(NULL != conn && MCA_BTL_RWV_CONN_CONNECTED == conn->state && !conn->replay.rejoining &&
                    !endpoint->failed && !conn->rail->down)) {
        return conn;
    }
    return NULL;
}

static inline mca_btl_rwv_conn_t *mca_btl_rwv_endpoint_conn (mca_btl_rwv_endpoint_t *endpoint, size_t len)
{
    mca_btl_rwv_conn_t *conn = mca_btl_rwv_endpoint_only_conn (endpoint);

    return OPAL_LIKELY(NULL != conn) ? conn : mca_btl_rwv_endpoint_conn_chosen (endpoint, len);
}
/* The ready connections on every live rail to the peer, starting any not
 * yet started; returns how many. */
int mca_btl_rwv_endpoint_ready_conns (mca_btl_rwv_endpoint_t *endpoint, mca_btl_rwv_conn_t **conns);
/* btl_rwv_put_completion delivered: every put completes only once at the target. */
static inline bool mca_btl_rwv_puts_complete_remotely (void)
{
    return MCA_BTL_RWV_PUT_COMPLETION_DELIVERED == mca_btl_rwv_component.put_completion;
}

/* Must a put to this peer complete only once delivered (btl_rwv_rdma.c)? */
static inline bool mca_btl_rwv_endpoint_puts_delivered (const mca_btl_rwv_endpoint_t *endpoint)
{
    return endpoint->num_rails > 1 || endpoint->same_node || mca_btl_rwv_puts_complete_remotely ();
}
/* Destroys its connections and releases it. */
void mca_btl_rwv_endpoint_release (mca_btl_rwv_endpoint_t *endpoint);
/* the peer's host name, for messages */
static inline const char *mca_btl_rwv_peer_host (const mca_btl_rwv_endpoint_t *endpoint)
{
    const char *host = endpoint->proc ? opal_get_proc_hostname (endpoint->proc) : NULL;

    return host ? host : "unknown host";
}

END_C_DECLS

#endif /* MCA_BTL_RWV_ENDPOINT_H */
