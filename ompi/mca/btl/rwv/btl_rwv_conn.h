/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * One connection to a peer on one rail: the receive ring the peer writes
 * into, what we know of the ring we write into, and the connection's
 * state (btl_rwv_conn.c; the handshake that moves it is
 * btl_rwv_handshake.c, the peer that owns it btl_rwv_endpoint.h).
 *
 * Connection state machine (per rail):
 *
 *   IDLE --first traffic--> CONNECTING --connected--> CONNECTED
 *     |                         |  a crossing request from a higher rank:
 *     |                         +--> ACCEPTING (ours abandoned)
 *     |                         |  ours refused by a higher rank, whose own
 *     |                         +--> AWAITING   request is on its way
 *     +--request from peer----------> ACCEPTING --connected--> CONNECTED
 *   any --error, timeout, peer gone--> FAILED
 *
 * Either side may start; when both start at once the higher rank's attempt
 * wins (the lower rank listens, the higher connects).  The higher rank
 * refuses the lower one's crossing attempt, and that refusal may arrive
 * before the higher rank's request: the lower rank then waits for it.
 * The active side sends first: it writes a hello into the peer's ring at
 * once, and the passive side sends nothing until it has seen a message on
 * that connection.
 */
#ifndef MCA_BTL_RWV_CONN_H
#define MCA_BTL_RWV_CONN_H

#include "btl_rwv.h"
#include "btl_rwv_auth.h"
#include "btl_rwv_hotset.h"
#include "btl_rwv_rail.h"
#include "btl_rwv_wire.h"

BEGIN_C_DECLS

typedef enum {
    MCA_BTL_RWV_CONN_IDLE,
    MCA_BTL_RWV_CONN_CONNECTING,
    MCA_BTL_RWV_CONN_ACCEPTING,
    MCA_BTL_RWV_CONN_AWAITING,
    MCA_BTL_RWV_CONN_CONNECTED,
    MCA_BTL_RWV_CONN_FAILED,
} mca_btl_rwv_conn_state_t;


/* What a failed connection's replays need at the receiver: which of its
 * messages were consumed from its ring, or delivered from a replay since.
 * The peer never has more than a ring's worth unconsumed, so one bit per
 * slot after recv_seq covers every replay. */
typedef struct mca_btl_rwv_replay_window_t {
    uint32_t attempt;          /* the connection's; 0: none */
    uint64_t recv_seq;
    uint8_t *seen;             /* by seq after recv_seq, allocated at the first replay */
} mca_btl_rwv_replay_window_t;

/* Slots the peer writes our eager messages into: the connection's own
 * ring, or a ring of the rail's hot set (btl_rwv_hotset.c). */
typedef struct mca_btl_rwv_slots_t {
    unsigned char *base;       /* NULL: none */
    uint32_t slots;
    uint32_t slot_size;
    bool notify_imm;           /* the peer writes with immediate data: a completion says it landed */
    struct mca_btl_rwv_hot_ring_t *hot; /* NULL: the connection's own ring */
} mca_btl_rwv_slots_t;

/* Our receive side of a connection.  The connection's own ring (slots,
 * then the tail, btl_rwv_wire.h) is small unless the peer stores into it
 * from this node; while the peer is in our hot set it writes into a hot
 * ring instead, and the tail stays where it was. */
typedef struct mca_btl_rwv_local_ring_t {
    unsigned char *ring;
    size_t ring_bytes;
    volatile uint64_t *tail;   /* the ring's tail words, indexed by mca_btl_rwv_ring_tail_word_t */
    void *ring_mr;
    uint64_t ring_rkey;
    mca_btl_rwv_slots_t own;   /* the own ring's slots */
    /* once a cold peer's messages outgrew its small slots, a ring of its
     * own with larger ones, where a demotion brings it back (base NULL:
     * none; its owner is unused: it is never given to another) */
    mca_btl_rwv_hot_ring_t warm;
    mca_btl_rwv_slots_t cur;   /* where the peer writes now */
    mca_btl_rwv_slots_t next;  /* where it writes once it has read our RING message */
    bool tiered;               /* promoted and demoted (not a ring shared on this node) */
    uint32_t generation;       /* RING messages sent on this connection */
    bool fetching;             /* the next message is being read from the peer (btl_rwv_fetch.c) */
    uint64_t recv_seq;         /* messages consumed from our rings */
    uint32_t next_slot;        /* where the next one arrives in cur */
    uint64_t imm_seen;         /* immediate-data events for our rings */
    uint64_t imm_used;         /* messages consumed from rings written with immediate data */
    uint64_t credits_reported; /* recv_seq last told to the peer */
    uint64_t arrivals;         /* since connected or demoted: promotion counts them */
    uint64_t last_arrival;     /* the rail's arrival count at our last one: demotion picks the oldest */
} mca_btl_rwv_local_ring_t;

/* Does the peer write into a ring of the rail's hot set?  A warm ring is
 * the connection's own, named like a hot one (its slots' hot points at
 * it) but never counted in the set. */
static inline bool mca_btl_rwv_local_hot (const mca_btl_rwv_local_ring_t *local)
{
    return NULL != local->cur.hot && &local->warm != local->cur.hot;
}

/* The peer's ring on a connection, which we write into. */
typedef struct mca_btl_rwv_peer_ring_t {
    uint64_t ring_raddr;
    uint64_t tail_raddr;       /* its tail's first word, as we address it */
    uint64_t tail_rkey;        /* the tail's ring (the connection's own) keeps its key when ring_rkey changes */
    uint64_t ring_rkey;
    unsigned char *ring;       /* the same ring in our mapping of a same-node peer's rings: stores, not writes */
    uint16_t shm_slot;
    uint32_t slots;
    uint32_t slot_size;
    uint32_t conn_id;
    uint8_t rail;              /* the peer's index of this rail (replays name it) */
    bool notify_imm;
    uint64_t send_seq;         /* messages written into the peer's ring */
    uint32_t next_slot;        /* where the next one goes */
    uint64_t consumed;         /* of those, how many the peer has consumed */
    uint32_t generation;       /* the peer's RING messages taken */
    bool owe_hello;            /* a RING message taken and nothing written into the new ring yet */
} mca_btl_rwv_peer_ring_t;

/* Striping (btl_rwv_stripe.c), kept for peers reached over more than one
 * rail: the rail's bandwidth to this peer, the bytes outstanding on it and
 * since when it has had some, and the fading sums of bytes delivered and
 * busy time that measure it. */
typedef struct mca_btl_rwv_meter_t {
    double bandwidth;          /* bytes per microsecond, measured or configured */
    bool measured;             /* bandwidth is this rail's own measurement */
    size_t bytes_out;
    double busy_since;
    double bytes;
    double busy;
} mca_btl_rwv_meter_t;

/* Failover (btl_rwv_failover.c): what a failed connection must still
 * replay or recognise, its report, and its re-establishment. */
typedef struct mca_btl_rwv_replay_t {
    /* frags written but not yet consumed by the peer, kept while another
     * rail could replay them (multi-rail peers only), oldest first */
    opal_list_t unacked;
    /* a failed rail to a peer still reachable is reported a little later,
     * and only if the peer is still reachable then: a peer that dies
     * closes every rail, and one message about its death says it all */
    char failed_why[96];
    /* the peer's host and process, as they were: a report made at finalize
     * comes after Open MPI 4.1 has let go of the peer's process names */
    char failed_peer[64];
    char failed_name[48];
    double warn_at;            /* 0: nothing to report */
    uint8_t *seen;             /* once failed: replays of its messages delivered, by seq after recv_seq */
    /* a failed rail to a live peer is re-established once its link is up
     * and the failover is done with it; replays of the connection before
     * still arrive meanwhile */
    mca_btl_rwv_replay_window_t before;
    bool rejoining;            /* being re-established: traffic keeps to the other rails meanwhile */
    double rejoin_at;          /* not before */
    double rejoin_backoff;     /* seconds, doubled by every failed attempt */
    unsigned rejoins;          /* times re-established, for the verbose report */
    bool no_rejoin;            /* closed for a malformed message: never re-established */
} mca_btl_rwv_replay_t;

struct mca_btl_base_endpoint_t;

typedef struct mca_btl_rwv_conn_t {
    struct mca_btl_base_endpoint_t *endpoint;
    mca_btl_rwv_rail_t *rail;
    int family;                /* MCA_BTL_RWV_IPV4 or _IPV6: the addresses it runs between */
    mca_btl_rwv_ip_t peer_ip;  /* the peer's end; unset until known */
    uint16_t peer_port;        /* the peer's listen port there (network byte order); 0: not known */
    mca_btl_rwv_conn_state_t state;
    bool may_send;             /* passive side: the active side has spoken */
    void *backend;             /* the backend's per-connection state */
    uint8_t request_mac[MCA_BTL_RWV_MAC_BYTES]; /* active side: our request's, which the reply must name */
    double deadline;           /* connect timeout, CLOCK_MONOTONIC seconds */
    int probe_fd;              /* past the deadline: a probe of the peer's host (btl_rwv_probe.h); -1: none */
    int cm_deferred;           /* its events the connection thread left to progress (btl_rwv_cm_thread.c) */
    uint32_t attempt;          /* the request's that made this connection: replays name it */
    uint32_t id;               /* index in the module's connection table */
    int poll_index;            /* index in the module's polled list, -1 while not on it */
    opal_list_t pending;       /* frags waiting for the connection or for credits */

    mca_btl_rwv_local_ring_t local;
    mca_btl_rwv_peer_ring_t peer;
    mca_btl_rwv_meter_t meter;
    mca_btl_rwv_replay_t replay;
    /* where its busy stream's messages are packed (btl_rwv_send_ring.c); NULL: none */
    struct mca_btl_rwv_send_ring_t *send_ring;
    uint64_t send_ring_asked;  /* send_seq when it last asked for one */

    /* small puts injected here, kept until a later delivered write on this
     * stream confirms them (btl_rwv_rdma.c) */
    opal_list_t kept_puts;
    uint64_t small_puts;
    /* puts posted here that complete before they are delivered, counted
     * (a post that failed too: it is counted again when retried, which
     * costs a marker at most), and how many of them a flush marker or an
     * atomic request written behind them will prove landed
     * (btl_rwv_flush.c) */
    uint64_t undelivered_puts;
    uint64_t covered_puts;
    int pieces_out;            /* put and get pieces posted here and not yet complete (btl_rwv_rdma.c) */
    uint64_t rdma_bytes;       /* put or got since connected, for the verbose report */
    unsigned access_refused;   /* requests refused for memory not registered for them (said once) */
} mca_btl_rwv_conn_t;

/* What the protocol layer does when a connection's life changes: the
 * connection layer's only way up, a table the protocol provides
 * (mca_btl_rwv_proto_hooks, btl_rwv_failover.c) and the module installs
 * at init (module->conn_hooks).  Each runs under the module lock. */
typedef struct mca_btl_rwv_conn_hooks_t {
    /* CONN is connected and may send: its first message, then what waited */
    int (*ready) (mca_btl_rwv_conn_t *conn);
    /* CONN is closed or starts afresh: what the rail's connections share
     * (a hot ring, a read buffer) goes back at once */
    void (*drop_shared) (mca_btl_rwv_conn_t *conn);
    /* CONN failed and its peer has another rail: what it carried moves there */
    void (*rail_lost) (mca_btl_rwv_conn_t *conn, const char *why);
    /* no rail is left to CONN's peer: what waits for it fails */
    void (*peer_lost) (mca_btl_rwv_conn_t *conn);
    /* CONN is going away: what waits fails, what it kept for replays goes */
    void (*release) (mca_btl_rwv_conn_t *conn);
    /* From the connection thread while the application computes: what
     * arrived on CONN that needs no call into the MPI library (a peer's
     * atomics), done and answered; returns how many */
    int (*serve) (mca_btl_rwv_conn_t *conn);
} mca_btl_rwv_conn_hooks_t;

static inline const mca_btl_rwv_conn_hooks_t *mca_btl_rwv_conn_hooks (void)
{
    return mca_btl_rwv_component.module->conn_hooks;
}

/* Closed or starting afresh: what the rail's connections share goes back
 * at once, so other peers do not wait for this one to reconnect (the
 * transport writes no more into them): the hot ring it had or was
 * offered, and the read buffer of a message it sent. */
static inline void mca_btl_rwv_conn_drop_shared (mca_btl_rwv_conn_t *conn)
{
    mca_btl_rwv_conn_hooks ()->drop_shared (conn);
}

/* Does a first message of LEN bytes outgrow a small slot but fit a warm
 * one (btl_rwv_cold_slot_size, btl_rwv_warm_slot_size)?  Sent there, it
 * would be read from its sender, which on a transport without RDMA
 * hardware waits for the sender to be scheduled. */
static inline bool mca_btl_rwv_conn_first_large (size_t len)
{
    const mca_btl_rwv_component_t *c = &mca_btl_rwv_component;
    size_t bytes = mca_btl_rwv_slot_bytes (len);

    return bytes > (size_t) c->cold_slot_size && bytes <= (size_t) c->warm_slot_size;
}

/* Did the connection's own ring start with warm slots?  A small ring's
 * slots are the cold ones otherwise (counted in the rail's warm_rings). */
static inline bool mca_btl_rwv_conn_roomy (const mca_btl_rwv_local_ring_t *local)
{
    return local->tiered && local->own.slot_size != (uint32_t) mca_btl_rwv_component.cold_slot_size;
}

/* A connection object on RAIL, idle, with its receive ring; NULL (and
 * rwv's message, once) if the ring cannot be had.  ROOMY: the peer's
 * first message will outgrow a small slot (it said so, or ours to it
 * does, and peers tend to answer in kind): a small ring gets warm slots
 * while the rail has fewer than btl_rwv_warm_peers. */
mca_btl_rwv_conn_t *mca_btl_rwv_conn_create (struct mca_btl_base_endpoint_t *endpoint, mca_btl_rwv_rail_t *rail,
                                             bool roomy);
/* Says goodbye if connected, reports the connection at btl_base_verbose,
 * fails what still waits on it and frees it. */
void mca_btl_rwv_conn_destroy (mca_btl_rwv_conn_t *conn);
void mca_btl_rwv_conn_set_state (mca_btl_rwv_conn_t *conn, mca_btl_rwv_conn_state_t state);

/* The rails' connection events (mca_btl_rwv_rail_events_t) that end or
 * refuse a connection. */
void mca_btl_rwv_conn_failed (mca_btl_rwv_conn_t *conn, const char *why);
void mca_btl_rwv_conn_refused (mca_btl_rwv_conn_t *conn, const char *why);
void mca_btl_rwv_conn_closed (mca_btl_rwv_conn_t *conn);
/* The peer sent something malformed: say what, naming it, and close the
 * connection for good (once per connection). */
void mca_btl_rwv_conn_malformed (mca_btl_rwv_conn_t *conn, const char *what);
/* The peer asked for memory not registered for it: say so once. */
void mca_btl_rwv_conn_refused_access (mca_btl_rwv_conn_t *conn, const char *what, uint64_t address, uint64_t key);
/* The peer's end went away without its goodbye (closed, or reset under a
 * write): fails CONN, and names the peer's death once no rail is left. */
void mca_btl_rwv_conn_vanished (mca_btl_rwv_conn_t *conn);
/* Fails the connections still waiting for an answer at NOW (seconds,
 * CLOCK_MONOTONIC) past their btl_rwv_connect_timeout, unless a probe
 * finds the peer's host still answering at the transport level (its
 * process stopped, in a debugger say): those wait on. */
void mca_btl_rwv_conn_check_timeouts (double now);

/* Is a large ring on RAIL written with immediate data (btl_rwv_eager_mode)?
 * A small one always is: a completion, not a poll, tells of its messages. */
static inline bool mca_btl_rwv_large_ring_notifies (const mca_btl_rwv_rail_t *rail)
{
    return MCA_BTL_RWV_EAGER_CQ == mca_btl_rwv_component.eager_mode ||
        (MCA_BTL_RWV_EAGER_AUTO == mca_btl_rwv_component.eager_mode && !rail->ordered_placement);
}

/* Did the peer write its goodbye (it is finalizing) into our ring's tail? */
static inline bool mca_btl_rwv_conn_peer_said_goodbye (const mca_btl_rwv_conn_t *conn)
{
    return 0 != conn->local.tail[MCA_BTL_RWV_TAIL_GOODBYE];
}

static inline bool mca_btl_rwv_conn_ready (const mca_btl_rwv_conn_t *conn)
{
    return MCA_BTL_RWV_CONN_CONNECTED == conn->state && conn->may_send;
}

/* The word of the peer's ring tail that flush markers write or read
 * (btl_rwv_flush.c), and iWARP's delivered writes read (btl_rwv_rail_verbs.c). */
static inline uint64_t mca_btl_rwv_conn_marker_raddr (const mca_btl_rwv_conn_t *conn)
{
    return conn->peer.tail_raddr + MCA_BTL_RWV_TAIL_MARKER * sizeof (uint64_t);
}

END_C_DECLS

#endif /* MCA_BTL_RWV_CONN_H */
