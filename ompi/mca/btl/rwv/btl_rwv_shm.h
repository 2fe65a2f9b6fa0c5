/*
 * Eager rings shared with processes on this node (btl_rwv_shm.c).
 */
#ifndef MCA_BTL_RWV_SHM_H
#define MCA_BTL_RWV_SHM_H

#include <stddef.h>
#include <stdint.h>

struct mca_btl_base_endpoint_t;
struct mca_btl_rwv_conn_t;

/* What a peer needs to map a process's rings (the modex carries it). */
typedef struct mca_btl_rwv_shm_card_t {
    int32_t fd;
    uint32_t slots;
    uint64_t slot_bytes;
    uint64_t base;         /* where the rings are in the owner's address space */
} mca_btl_rwv_shm_card_t;

/* Create our shared rings and publish them (nothing without same-node peers
 * or single copies); at finalize, drop them. */
int mca_btl_rwv_shm_init (void);
void mca_btl_rwv_shm_finalize (void);

/* A receive ring for a connection: shared if the peer is on this node and
 * a slot is free, else private memory. */
unsigned char *mca_btl_rwv_ring_alloc (const struct mca_btl_base_endpoint_t *endpoint, size_t bytes);
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

#endif /* MCA_BTL_RWV_SHM_H */
