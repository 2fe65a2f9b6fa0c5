/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Eager rings shared with processes on this node (btl_rwv_shm.c).
 */
#ifndef MCA_BTL_RWV_SHM_H
#define MCA_BTL_RWV_SHM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "opal/util/proc.h"

struct mca_btl_base_endpoint_t;
struct mca_btl_rwv_conn_t;

/* What a process on this node needs to reach us without the network:
 * our process id (single copies, btl_rwv_cma.c) and our shared rings.
 * The modex carries it, local scope only. */
typedef struct mca_btl_rwv_shm_card_t {
    uint32_t pid;
    uint32_t slots;        /* 0: no shared rings */
    int32_t fd;
    uint32_t reserved;
    uint64_t slot_bytes;
    uint64_t base;         /* where the rings are in the owner's address space */
    uint64_t probe;        /* where the owner keeps its pid: a single copy from there proves it works */
} mca_btl_rwv_shm_card_t;

/* Create our shared rings and publish our card (nothing under
 * btl_rwv_single_copy none); at finalize, drop them. */
int mca_btl_rwv_shm_init (void);
void mca_btl_rwv_shm_finalize (void);

/* A peer's card, if it is on this node and a single copy from it works:
 * its process id, else 0. */
pid_t mca_btl_rwv_shm_peer_card (opal_proc_t *proc, mca_btl_rwv_shm_card_t *card);

/* A large receive ring in our shared rings, for a peer on this node that
 * can reach them; NULL if it cannot or no slot is free.  The ring is freed
 * by mca_btl_rwv_ring_free, as a private one (malloc'd) is. */
unsigned char *mca_btl_rwv_shm_ring_take (const struct mca_btl_base_endpoint_t *endpoint);
void mca_btl_rwv_ring_free (unsigned char *ring);
/* Where the ring is in our shared rings, for the peer: slot + 1, 0 if private. */
uint16_t mca_btl_rwv_ring_shm_slot (const unsigned char *ring);

/* Once the peer's ring is known: point conn->peer_ring at it in our
 * mapping, if it can be stored into; NULL keeps the rail's writes. */
void mca_btl_rwv_shm_attach (struct mca_btl_rwv_conn_t *conn);
void mca_btl_rwv_shm_release (struct mca_btl_base_endpoint_t *endpoint);

/* Store LEN bytes (a multiple of 8, the last word last) at the peer's ring
 * address RADDR. */
void mca_btl_rwv_shm_store (struct mca_btl_rwv_conn_t *conn, const void *buf, size_t len, uint64_t raddr);
/* COUNT pieces one after the other from RADDR; the last (a multiple of 8
 * bytes that ends on a word) through mca_btl_rwv_shm_store. */
void mca_btl_rwv_shm_store_gathered (struct mca_btl_rwv_conn_t *conn, const struct iovec *iov, int count,
                                     uint64_t raddr);

#endif /* MCA_BTL_RWV_SHM_H */
