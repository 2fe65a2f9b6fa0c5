/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * The rail interface: everything rwv needs from a transport, so the
 * libfabric backend (btl_rwv_rail_ofi.c) and the native verbs backend plug
 * in behind the same few calls.  A rail is one network path: one libfabric
 * domain (one NIC or IP interface) or one verbs port.
 */
#ifndef MCA_BTL_RWV_RAIL_H
#define MCA_BTL_RWV_RAIL_H

#include <arpa/inet.h>
#include <sys/uio.h>

#include "btl_rwv.h"
#include "btl_rwv_addr.h"
#include "btl_rwv_wire.h"

BEGIN_C_DECLS

struct mca_btl_rwv_conn_t;
struct mca_btl_rwv_frag_t;

/* An operation whose completion the backend reports: OPAL_SUCCESS,
 * OPAL_ERR_PERM when the peer's transport refused the memory named (a key
 * or range it did not register), OPAL_ERR_UNREACH for any other failure
 * (the connection broke, was closed, or the transport cancelled it). */
typedef struct mca_btl_rwv_op_t {
    opal_free_list_item_t super;
    void (*complete) (struct mca_btl_rwv_op_t *op, int status);
    bool in_transport;      /* posted, its completion not yet reported */
    int status;             /* reported while the connection thread served: kept for progress */
} mca_btl_rwv_op_t;

/* A backend marks an operation it gave the transport and reports its
 * completion once: a provider that reports one twice (libfabric 1.17's
 * tcp, see mca_btl_rwv_ofi_cq_taint) is not believed the second time. */
static inline void mca_btl_rwv_op_posted (mca_btl_rwv_op_t *op, bool posted)
{
    op->in_transport = posted;
}

static inline void mca_btl_rwv_op_report (mca_btl_rwv_op_t *op, int status)
{
    if (op->in_transport) {
        op->in_transport = false;
        if (OPAL_UNLIKELY(mca_btl_rwv_component.module->serving)) {
            /* the connection thread never calls up: progress completes it */
            op->status = status;
            opal_list_append (&mca_btl_rwv_component.module->reaped, &op->super.super);
            return;
        }
        op->complete (op, status);
    }
}

typedef struct mca_btl_rwv_rail_t mca_btl_rwv_rail_t;

/* One write of a batch (mca_btl_rwv_rail_ops_t.writev), and the
 * operation its completion reports to. */
typedef struct mca_btl_rwv_iov_t {
    /* the application's data before BUF, unregistered (data_len 0: none;
     * only on rails that gather, mca_btl_rwv_rail_gathers) */
    const void *data;
    size_t data_len;
    const void *buf;
    size_t len;
    void *desc;
    uint64_t raddr;
    uint32_t imm;
    mca_btl_rwv_op_t *op;
} mca_btl_rwv_iov_t;

/* Receives a connection keeps posted where notifications are sends (no
 * immediate or CQ data): one per slot of the largest ring its peer may
 * fill, and at least this many, for transports (iWARP) where a send that
 * finds no receive breaks the connection. */
#define MCA_BTL_RWV_NOTIFY_RECVS 64

/* The most writes rwv posts at once. */
#define MCA_BTL_RWV_MAX_BATCH 8

typedef enum {
    MCA_BTL_RWV_CM_EVENT,   /* a connection event waits */
    MCA_BTL_RWV_CM_IDLE,    /* nothing: cm_fd may be slept on */
    MCA_BTL_RWV_CM_BUSY,    /* no event, but cm_fd may wake for the provider's own work */
} mca_btl_rwv_cm_state_t;

/* What a registration lets the transport do, no more: a key a peer holds
 * (or guesses) opens only what the memory is for. */
typedef enum {
    MCA_BTL_RWV_ACCESS_READ_INTO,     /* the local buffer a read lands in; no peer access */
    MCA_BTL_RWV_ACCESS_WRITE_FROM,    /* a send ring: writes go from it; no peer access */
    MCA_BTL_RWV_ACCESS_PEER_WRITES,   /* a hot ring: peers write into it */
    MCA_BTL_RWV_ACCESS_OWN_RING,      /* a connection's ring: written, and its tail read by flush markers */
    MCA_BTL_RWV_ACCESS_RDMA,          /* the PML's and osc's memory: put, get, messages read from it */
} mca_btl_rwv_access_t;

typedef struct mca_btl_rwv_rail_ops_t {
    /* connections: connect to a peer, answer a request the backend reported
     * through events->request; cm_data travels with them */
    int (*connect) (mca_btl_rwv_rail_t *rail, struct mca_btl_rwv_conn_t *conn,
                    const void *cm_data, size_t cm_len);
    int (*accept) (mca_btl_rwv_rail_t *rail, struct mca_btl_rwv_conn_t *conn, void *request,
                   const void *cm_data, size_t cm_len);
    void (*reject) (mca_btl_rwv_rail_t *rail, void *request);
    /* forget the connection: no more callbacks for it */
    void (*disconnect) (struct mca_btl_rwv_conn_t *conn);

    /* data movement on a connected conn; `op' completes through op->complete.
     * A `delivered' write completes only once its data is in the target's
     * memory, not when the buffer may be reused: what makes a put striped
     * across rails visible before a message on another rail says so */
    int (*write) (struct mca_btl_rwv_conn_t *conn, const void *buf, size_t len, void *desc,
                  uint64_t raddr, uint64_t rkey, bool with_imm, uint32_t imm, bool delivered,
                  mca_btl_rwv_op_t *op);
    /* up to COUNT writes posted at once (one system call, or one
     * doorbell), each to its own place and completing through its own op,
     * in order; with immediate data only where rail->batch_imm.  Returns
     * how many were posted, the first ones; 0: the transport is full.
     * NULL where rail->max_batch is below 2 */
    int (*writev) (struct mca_btl_rwv_conn_t *conn, const mca_btl_rwv_iov_t *iov, int count, uint64_t rkey,
                   bool with_imm);
    /* one write gathered from COUNT pieces of local memory that need no
     * registration (at most rail->gather_max) into one remote place; NULL
     * where gather_max is 0 */
    int (*write_gather) (struct mca_btl_rwv_conn_t *conn, const struct iovec *iov, int count, uint64_t raddr,
                         uint64_t rkey, bool with_imm, uint32_t imm, mca_btl_rwv_op_t *op);
    /* a small write whose buffer is free on return, with no completion */
    int (*inject_write) (struct mca_btl_rwv_conn_t *conn, const void *buf, size_t len,
                         uint64_t raddr, uint64_t rkey, bool with_imm, uint32_t imm);
    /* a write from registered memory (DESC) with no completion: the caller
     * leaves BUF alone until the peer has consumed what it carries, which
     * proves the transport read it all */
    int (*write_quiet) (struct mca_btl_rwv_conn_t *conn, const void *buf, size_t len, void *desc,
                        uint64_t raddr, uint64_t rkey, bool with_imm, uint32_t imm);
    int (*read) (struct mca_btl_rwv_conn_t *conn, void *buf, size_t len, void *desc,
                 uint64_t raddr, uint64_t rkey, mca_btl_rwv_op_t *op);

    /* memory registration on this rail, for ACCESS only */
    int (*mr_reg) (mca_btl_rwv_rail_t *rail, void *base, size_t len, mca_btl_rwv_access_t access, void **mr,
                   void **desc, uint64_t *rkey);
    void (*mr_dereg) (mca_btl_rwv_rail_t *rail, void *mr);

    /* poll completions, calling op->complete and events->remote_data;
     * runs without the module lock, since completions call up into the PML */
    int (*poll_completions) (mca_btl_rwv_rail_t *rail);
    /* poll connection events, reporting them through rail->events;
     * runs under the module lock */
    int (*poll_connections) (mca_btl_rwv_rail_t *rail);
    /* what waits on cm_fd: a connection event, nothing (the connection
     * thread may sleep on it: libfabric's fi_trywait), or work of the
     * provider's that may wake the fd with no event; with DATA, peers'
     * data waiting behind data_fd counts as such work too (asked only
     * while the thread watches it).  Called by the connection thread,
     * outside the module lock unless a serving turn holds it: it reads
     * nothing away */
    mca_btl_rwv_cm_state_t (*cm_state) (mca_btl_rwv_rail_t *rail, bool data);
    /* bring data_fd up to date with the rail's connections, before the
     * connection thread watches it; under the module gate.  NULL where
     * data_fd is always -1 */
    void (*data_sync) (mca_btl_rwv_rail_t *rail);
    /* is the rail's link up (interface up with carrier)? */
    bool (*link_up) (mca_btl_rwv_rail_t *rail);
    void (*close) (mca_btl_rwv_rail_t *rail);
} mca_btl_rwv_rail_ops_t;

/* What a rail reports upward: the only way a backend reaches the layer
 * above, which hands every rail this table once it is opened
 * (rail->events); completions of operations go through op->complete.
 * Connection events (request, established, refused, failed, closed) come
 * from progress or the connection thread; data events from polling
 * completions. */
typedef struct mca_btl_rwv_rail_events_t {
    /* a peer asks to connect; SRC_IP: the address it came from, NULL if the
     * backend cannot tell (and then it is refused) */
    void (*request) (mca_btl_rwv_rail_t *rail, void *request, const void *cm_data, size_t cm_len,
                     const mca_btl_rwv_ip_t *src_ip);
    void (*established) (struct mca_btl_rwv_conn_t *conn, const void *cm_data, size_t cm_len);
    void (*refused) (struct mca_btl_rwv_conn_t *conn, const char *why);
    void (*failed) (struct mca_btl_rwv_conn_t *conn, const char *why);
    void (*closed) (struct mca_btl_rwv_conn_t *conn);
    /* a write with immediate data IMM landed on RAIL; FROM: the connection
     * it came on where the transport says (verbs), else NULL */
    void (*remote_data) (mca_btl_rwv_rail_t *rail, struct mca_btl_rwv_conn_t *from, uint32_t imm);
    /* the peer notified CONN of a write into its ring by a send, where the
     * transport carries no immediate data */
    void (*notified) (struct mca_btl_rwv_conn_t *conn);
} mca_btl_rwv_rail_events_t;

struct mca_btl_rwv_rail_t {
    const mca_btl_rwv_rail_ops_t *ops;
    const mca_btl_rwv_rail_events_t *events; /* set by the connection layer */
    int index;                      /* in the module's rail array and in handles */
    char name[128];                 /* for messages: backend, provider, interface, addresses */
    mca_btl_rwv_rail_addr_t addr;   /* where peers connect */
    int cm_fd;                      /* readable when connection events wait; -1: none */
    int data_fd;                    /* readable when the transport has peers' data to progress
                                     * (btl_rwv_async_progress); -1: none */
    size_t inject_size;             /* largest inject_write */
    int max_batch;                  /* most writes one writev posts; below 2: no writev */
    int gather_max;                 /* pieces of unregistered memory one write_gather takes; 0: the transport
                                     * reads only registered memory (verbs, FI_MR_LOCAL) */
    bool batch_imm;                 /* each write of a batch may carry its own immediate data */
    bool notify_by_send;            /* a libfabric rail that tells of ring writes by sends, not remote CQ
                                     * data, and posts receives for them: both ends must agree (verbs
                                     * rails take either, and leave it false) */
    bool virt_addr;                 /* remote addresses are virtual, not offsets */
    bool ordered_placement;         /* a write's bytes land in order: poll mode is safe */
    bool reads_after_writes;        /* a read sees every earlier write on its connection (FI_ORDER_RAW, iWARP) */
    bool lands_in_poll;             /* peers' writes land only while poll_completions runs (a libfabric
                                     * provider with manual data progress: tcp), not by the device */
    bool tcp_paced;                 /* the rail is the kernel's TCP under bbr, which paces (btl_rwv_batch_copy_max) */
    bool probe_tcp;                 /* peers listen on TCP sockets of their kernel: a silent one can be probed
                                     * (btl_rwv_probe.h) */
    int num_conns;                  /* connections on this rail: no CQ to poll without them */
    int num_polled;                 /* of those, on the polled list (btl_rwv_poll.c) */
    int warm_rings;                 /* warm rings, and own rings started with warm slots: at most
                                     * btl_rwv_warm_peers (btl_rwv_hotset.c, btl_rwv_conn.c) */
    char ifname[32];                /* the network interface, for link checks and NUMA */
    int numa_node;                  /* of the NIC, -1 if unknown */
    double bandwidth;               /* configured bytes per microsecond, 0: measure */
    bool down;                      /* given up: its link stayed down past btl_rwv_rail_down_timeout */
    double link_lost_at;            /* when its link went down, 0 while it is up */
};

/* Can RAIL gather an eager message sent in place: the PML's header, the
 * application's data, and padding with our header (three pieces)? */
static inline bool mca_btl_rwv_rail_gathers (const mca_btl_rwv_rail_t *rail)
{
    return rail->gather_max >= 3;
}

/* Where to address `vaddr' inside memory registered from `base' on `rail'. */
static inline uint64_t mca_btl_rwv_rail_raddr (const mca_btl_rwv_rail_t *rail, uint64_t base,
                                               uint64_t vaddr)
{
    return rail->virt_addr ? vaddr : vaddr - base;
}

/* btl_rwv_rail_ofi_discover.c, the libfabric backend: one rail per usable
 * FI_EP_MSG domain address.
 * thread_safe: other threads may call in (MPI_THREAD_MULTIPLE). */
/* Backends add their rails after the `*num_rails' already found, skipping
 * the addresses those hold. */
int mca_btl_rwv_ofi_discover (mca_btl_rwv_rail_t **rails, int max_rails, int *num_rails, bool thread_safe);
/* btl_rwv_rail.c: does one entry of a btl_rwv_if_include/exclude list,
 * or any entry of LIST, name this interface or its network? */
bool mca_btl_rwv_if_entry_matches (const char *entry, const char *ifname, const mca_btl_rwv_ip_t *addr);
bool mca_btl_rwv_if_listed (char **list, const char *ifname, const mca_btl_rwv_ip_t *addr);
/* btl_rwv_rail.c: does LIST name the interface itself (not a network)?
 * An IPv6 link-local address is used only then. */
bool mca_btl_rwv_if_named (char **list, const char *ifname);
/* btl_rwv_rail.c: "ADDRESS port PORT", for each family the rail has
 * ("... and ..."), into BUF */
const char *mca_btl_rwv_rail_addr_text (const mca_btl_rwv_rail_addr_t *addr, char *buf, size_t len);
/* btl_rwv_rail.c: appends "ADDRESS/BITS" of each family the rail has,
 * comma separated, to the text in BUF */
const char *mca_btl_rwv_rail_addr_nets (const mca_btl_rwv_rail_addr_t *addr, char *buf, size_t len);
/* btl_rwv_rail.c: the families btl_rwv_ip_family lets rails use, first
 * choice first, into ORDER; returns how many */
int mca_btl_rwv_family_order (int order[MCA_BTL_RWV_FAMILIES]);
/* btl_rwv_rail.c: the integer in a sysfs file, FALLBACK if none */
int mca_btl_rwv_sysfs_int (const char *path, int fallback);
/* btl_rwv_rail.c: does the first word of a sysfs or procfs file start with PREFIX? */
bool mca_btl_rwv_sysfs_word_starts (const char *path, const char *prefix);
/* btl_rwv_rail_verbs_discover.c: OPAL_ERR_NOT_AVAILABLE once it has told the user
 * why no verbs rail could be made; `required' (btl_rwv_backend verbs)
 * also tells of a machine without RDMA devices */
int mca_btl_rwv_verbs_discover (mca_btl_rwv_rail_t **rails, int max_rails, int *num_rails, bool required);

END_C_DECLS

#endif /* MCA_BTL_RWV_RAIL_H */
