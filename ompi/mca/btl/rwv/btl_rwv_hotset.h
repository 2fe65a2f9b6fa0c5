/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * The hot set (btl_rwv_hotset.c): large receive rings for the few peers
 * that send to us most, small ones for everyone else.
 */
#ifndef MCA_BTL_RWV_HOTSET_H
#define MCA_BTL_RWV_HOTSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mca_btl_rwv_conn_t;

/* One ring of a rail's hot set, registered on that rail. */
typedef struct mca_btl_rwv_hot_ring_t {
    unsigned char *base;
    void *mr;
    uint64_t rkey;
    struct mca_btl_rwv_conn_t *owner;   /* the connection it was given to, NULL: free */
} mca_btl_rwv_hot_ring_t;

/* What a tool sees (btl_rwv_pvars.c). */
typedef struct mca_btl_rwv_hotset_stats_t {
    unsigned hot_peers;       /* hot rings given to a connection, every rail */
    uint64_t promotions;
    uint64_t demotions;
    uint64_t ring_bytes;      /* hot rings allocated, every rail */
    uint64_t own_ring_bytes;  /* every connection's own ring */
    unsigned warm_peers;      /* warm rings, every rail */
    uint64_t warm_ring_bytes;
    unsigned roomy_peers;     /* own rings started with warm slots (in own_ring_bytes) */
    unsigned connections;
} mca_btl_rwv_hotset_stats_t;

/* What the parameter table cannot check (btl_rwv_params.c): a cold ring
 * against the large one; defaults follow a smaller large ring. */
void mca_btl_rwv_hotset_fini (void);

/* Each rail's clock: messages consumed on its tiered connections.  A
 * connection notes the time of its last one; demotion picks the oldest. */
extern uint64_t mca_btl_rwv_hot_clock[];

/* A message was consumed from a connection with no hot ring: count it,
 * and perhaps promote it or demote the hot set's idlest to make room. */
void mca_btl_rwv_hotset_arrival_cold (struct mca_btl_rwv_conn_t *conn);
/* With the lock: a message of LEN bytes was read from the peer, too big for
 * its small slots; it may get a warm ring. */
void mca_btl_rwv_hotset_fetched (struct mca_btl_rwv_conn_t *conn, size_t len);
/* The peer wrote into the ring our RING message named: the old one is done. */
void mca_btl_rwv_hotset_switched (struct mca_btl_rwv_conn_t *conn);
/* The peer's RING message: our writes go there from now on.  Returns what
 * was wrong with it, or NULL. */
const char *mca_btl_rwv_hotset_receive (struct mca_btl_rwv_conn_t *conn, const void *payload, size_t len);
/* The connection starts afresh or goes: its hot rings back to the set. */
void mca_btl_rwv_hotset_release (struct mca_btl_rwv_conn_t *conn);
void mca_btl_rwv_hotset_stats (mca_btl_rwv_hotset_stats_t *stats);
/* At finalize, one line (btl_base_verbose 40): what the hot set did. */
void mca_btl_rwv_hotset_report (void);

#endif /* MCA_BTL_RWV_HOTSET_H */
