/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Every format that crosses from one process to another, over a rail or
 * through a shared ring.  All of it is checked before use by the receiver
 * (btl_rwv_handshake.c, btl_rwv_recv.c, btl_rwv_eager_stripe.c,
 * btl_rwv_atomic.c): a peer is never trusted.
 *
 * A connection's receive ring, written by the peer:
 *
 *   slot 0 | slot 1 | ... | slot N-1 | tail (64 bytes)
 *
 * Every connection has one such ring of its own, small (a cold peer's,
 * btl_rwv_cold_slots of btl_rwv_cold_slot_size) unless the peer is on this
 * node.  A peer the receiver promotes to its hot set writes into a large
 * ring from the rail's hot set instead (slots only, no tail: the tail
 * stays in the connection's own ring), until it is demoted again
 * (btl_rwv_hotset.c).  The receiver says which ring in a RING message.
 *
 * An eager message occupies the END of a slot, so the receiver always
 * knows where to look: [payload, padded to 8][mca_btl_rwv_eager_hdr_t], the
 * header's last word being the sequence number the receiver polls.  The
 * tail holds words the peer writes on their own: how many of our
 * messages it has consumed (credits), its goodbye at finalize, and the
 * target of flush markers.
 */
#ifndef MCA_BTL_RWV_WIRE_H
#define MCA_BTL_RWV_WIRE_H

#include <stdint.h>

#include "opal/mca/btl/btl.h"
#include "opal/util/proc.h"

#include "btl_rwv_addr.h"
#include "btl_rwv_auth.h"

BEGIN_C_DECLS

/* ------------------------------------------------------------ the ring */

#define MCA_BTL_RWV_RING_TAIL_BYTES 64

typedef enum {
    MCA_BTL_RWV_TAIL_CREDITS = 0,  /* messages of ours the peer has consumed */
    MCA_BTL_RWV_TAIL_GOODBYE = 1,  /* non-zero: the peer is finalizing */
    MCA_BTL_RWV_TAIL_MARKER = 2,   /* flush markers write (or read) here */
} mca_btl_rwv_ring_tail_word_t;

static inline uint64_t mca_btl_rwv_ring_size (uint64_t slots, uint64_t slot_size)
{
    return slots * slot_size + MCA_BTL_RWV_RING_TAIL_BYTES;
}

/* Offset of the tail from the ring's start: its words follow, 8 bytes each. */
static inline uint64_t mca_btl_rwv_ring_tail (uint64_t slots, uint64_t slot_size)
{
    return slots * slot_size;
}

/* ------------------------------------------------------------ eager messages */

/* rwv's own messages, below the PML's tags (MCA_BTL_TAG_BTL's range) */
#define MCA_BTL_RWV_TAG_ATOMIC (MCA_BTL_TAG_BTL + 0x10)        /* an atomic to perform here */
#define MCA_BTL_RWV_TAG_ATOMIC_REPLY (MCA_BTL_TAG_BTL + 0x11)  /* its old value, back at the origin */
#define MCA_BTL_RWV_TAG_RING (MCA_BTL_TAG_BTL + 0x12)          /* write your messages to me into this ring */

#define MCA_BTL_RWV_HDR_FLAG_HELLO 0x01   /* connection opener: no payload, no upcall */
#define MCA_BTL_RWV_HDR_FLAG_REPLAY 0x02  /* first written on a rail that failed */
#define MCA_BTL_RWV_HDR_FLAG_STRIPE 0x04  /* one piece of a split eager message */
#define MCA_BTL_RWV_HDR_FLAG_FETCH 0x08   /* too big for the slot: the payload says where to read it */
/* The payload is the data, then the PML's header of head_len bytes: a
 * message sent from the application's memory is two pieces (data, then
 * headers and sequence word from one buffer), so that two fit one write
 * of the tcp provider's four pieces.  The receiver moves the header in
 * front of the data, into the free start of the slot, which the sender
 * leaves room for (mca_btl_rwv_head_last_span). */
#define MCA_BTL_RWV_HDR_FLAG_HEAD_LAST 0x10

/* A payload is padded to a multiple of 8 bytes, so that the header after
 * it is aligned. */
#define MCA_BTL_RWV_PAD8(n) (((n) + 7) & ~(size_t) 7)

/* HEAD_LAST: the bytes from where the receiver moves the PML's header
 * to our header: the payload of LEN bytes, its HEAD_LEN again, and the
 * padding after the payload that makes it a multiple of 8, so that the
 * moved header starts aligned.  The payload starts this far before our
 * header, less HEAD_LEN. */
static inline size_t mca_btl_rwv_head_last_span (size_t len, size_t head_len)
{
    return MCA_BTL_RWV_PAD8(len + head_len);
}

typedef struct mca_btl_rwv_eager_hdr_t {
    uint32_t len;             /* payload bytes */
    uint8_t tag;
    uint8_t flags;
    uint8_t replay_rail;      /* REPLAY: the receiver's index of the failed rail */
    uint8_t head_len;         /* HEAD_LAST: bytes of the PML's header at the payload's end */
    uint32_t replay_attempt;  /* REPLAY: the connection it was first written on (a rail may be re-established) */
    uint32_t replay_seq;      /* REPLAY: its sequence number there, low 32 bits (btl_rwv_failover.c) */
    uint64_t consumed;        /* piggy-backed credit: messages of ours the sender has consumed */
    uint64_t seq;             /* 1, 2, 3...: written last, polled by the receiver */
} mca_btl_rwv_eager_hdr_t;
_Static_assert (sizeof (mca_btl_rwv_eager_hdr_t) == 32, "the default slot size counts on a 32-byte header");

/* The bytes a message of LEN bytes takes in a slot: padded, then our header. */
static inline size_t mca_btl_rwv_slot_bytes (size_t len)
{
    return MCA_BTL_RWV_PAD8(len) + sizeof (mca_btl_rwv_eager_hdr_t);
}

/* At the start of a STRIPE message's payload: where its bytes go. */
typedef struct mca_btl_rwv_stripe_hdr_t {
    uint32_t id;              /* the sender's number for the whole message */
    uint32_t offset;
    uint32_t total;           /* bytes of the whole message */
    uint32_t reserved;
} mca_btl_rwv_stripe_hdr_t;

/* The payload of a FETCH message: the message itself stays in the
 * sender's registered buffer until the receiver has read it and consumed
 * the slot (btl_rwv_fetch.c). */
typedef struct mca_btl_rwv_fetch_hdr_t {
    uint64_t raddr;           /* as the receiver addresses it on this rail */
    uint64_t rkey;
    uint32_t len;
    uint32_t reserved;
} mca_btl_rwv_fetch_hdr_t;

/* The payload of a RING message (btl_rwv_hotset.c): from the sender's
 * next message on, write into these slots, starting with the first. */
typedef struct mca_btl_rwv_ring_msg_t {
    uint64_t raddr;
    uint64_t rkey;
    uint32_t slots;
    uint32_t slot_size;
    uint32_t generation;      /* 1, 2, 3...: the connection's ring changes so far */
    uint8_t notify_imm;       /* write into it with immediate data */
    uint8_t reserved[3];
} mca_btl_rwv_ring_msg_t;

/* ------------------------------------------------------------ the modex */

/* What a process publishes through the runtime (never over a rail),
 * followed by one mca_btl_rwv_rail_addr_t per rail. */
typedef struct mca_btl_rwv_modex_t {
    uint8_t secret[MCA_BTL_RWV_SECRET_BYTES]; /* btl_rwv_auth.h */
    uint32_t max_eager;        /* the longest eager message it takes (btl_rwv_eager_slot_size - 32) */
    uint16_t addr_size;        /* sizeof (mca_btl_rwv_rail_addr_t): a peer of another layout is refused */
    uint16_t reserved;
} mca_btl_rwv_modex_t;

/* A rail's listen addresses, one per family it has an address in (a
 * rail is one interface, whatever its families). */
typedef struct mca_btl_rwv_rail_addr_t {
    mca_btl_rwv_ip_t ip[MCA_BTL_RWV_FAMILIES];
    uint16_t port[MCA_BTL_RWV_FAMILIES];    /* network byte order; 0: no address of that family */
    uint8_t prefix_len[MCA_BTL_RWV_FAMILIES]; /* of the rail's network in that family */
    uint8_t loopback;          /* reaches only processes on the same node */
    uint8_t reserved;
} mca_btl_rwv_rail_addr_t;
_Static_assert (sizeof (mca_btl_rwv_rail_addr_t) == 40, "the modex layout (addr_size) is 40 bytes per rail");

/* ------------------------------------------------------------ connection data */

/* Exchanged in the connect request and in the accept.  RDMA-CM carries
 * 56 bytes in a request, and libfabric's verbs provider keeps one of them
 * for itself: with 8-byte fields, 48.  The MAC proves membership
 * (btl_rwv_auth.h); a request of another build, or garbage, is refused
 * by its version or its MAC. */
typedef struct mca_btl_rwv_cm_data_t {
    uint8_t version;
    uint8_t rail_flags;        /* the sender's rail index, MCA_BTL_RWV_CM_FIRST_LARGE, _BY_SEND, _NOTIFY_IMM */
    uint16_t shm_slot;         /* my ring's slot + 1 in my shared rings (btl_rwv_shm.c), 0: none */
    uint16_t conn_id;          /* put this in the immediate data of writes to my ring (65536 of them) */
    uint16_t slots_less_one;   /* my ring's slots - 1 (btl_rwv_eager_slots: 2 to 65536) */
    opal_process_name_t name;
    uint64_t ring_raddr;       /* my ring as the peer must address it */
    uint64_t ring_rkey;
    uint32_t slot_size;
    uint32_t attempt;          /* request: grows with every attempt on a rail; reply: the request's */
    uint8_t mac[MCA_BTL_RWV_MAC_BYTES];
} mca_btl_rwv_cm_data_t;

/* 8: the first byte (7 had no FIRST_LARGE: its rail index took 6 bits);
 * version 6 began with the magic "RW" (0x57 first) */
#define MCA_BTL_RWV_CM_VERSION 8
#define MCA_BTL_RWV_CM_RAIL_MASK 0x1fu
/* request: my first message will not fit your small slots, but a warm
 * one (btl_rwv_warm_slot_size): start my ring with such slots */
#define MCA_BTL_RWV_CM_FIRST_LARGE 0x20u
#define MCA_BTL_RWV_CM_BY_SEND 0x40u    /* my rail notifies by sends (mca_btl_rwv_rail_t.notify_by_send) */
#define MCA_BTL_RWV_CM_NOTIFY_IMM 0x80u /* write into my ring with immediate data (eager mode cq) */
_Static_assert (sizeof (mca_btl_rwv_cm_data_t) <= 55, "libfabric's verbs provider carries 55 bytes of connection data");

/* ------------------------------------------------------------ atomics */

/* Not an mca_btl_base_atomic_op_t: compare-and-swap travels as one more operation. */
#define MCA_BTL_RWV_ATOMIC_CSWAP 0x00ff

typedef struct mca_btl_rwv_atomic_request_hdr_t {
    uint64_t context;         /* names the origin's request; only echoed */
    uint64_t address;
    uint64_t key;             /* the target's registration, by its key on the target's first rail */
    uint64_t operand;
    uint64_t compare;         /* compare-and-swap only */
    uint16_t op;
    uint16_t flags;           /* MCA_BTL_ATOMIC_FLAG_32BIT, MCA_BTL_ATOMIC_FLAG_FLOAT */
    uint32_t reserved;
} mca_btl_rwv_atomic_request_hdr_t;

typedef struct mca_btl_rwv_atomic_reply_hdr_t {
    uint64_t context;
    uint64_t result;          /* the value before the operation */
    int32_t status;           /* OPAL_SUCCESS, or why the target refused it */
    uint32_t reserved;
} mca_btl_rwv_atomic_reply_hdr_t;

END_C_DECLS

#endif /* MCA_BTL_RWV_WIRE_H */
