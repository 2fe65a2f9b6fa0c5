/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * btl/rwv: a byte-transfer layer that moves data with RDMA writes and reads.
 *
 *   rail        one network path (an IP interface of libfabric's tcp provider,
 *               a verbs port's address, or a libfabric verbs domain) behind the
 *               small backend interface of btl_rwv_rail.h
 *   endpoint    one peer process (btl_rwv_endpoint.h), with one connection
 *               per rail (btl_rwv_conn.h)
 *   eager path  the sender RDMA-writes each message into a slot of a ring
 *               that the receiver registered for that connection
 *               (btl_rwv_send.c); credits keep it from overwriting
 *   rendezvous  zero-copy put/get on memory registered through an rcache
 *               (btl_rwv_rdma.c), with one remote key per rail in the handle
 *
 *   striping    one module owns every rail: a put or get is split across the
 *               rails to a peer by their bandwidth (btl_rwv_stripe.c), and so
 *               is a large eager message (btl_rwv_eager_stripe.c)
 *   failover    a rail that fails hands its traffic to the surviving rails
 *               (btl_rwv_failover.c)
 */
#ifndef MCA_BTL_RWV_H
#define MCA_BTL_RWV_H

#include "opal_config.h"

#include <pthread.h>
#include <time.h>

#include "opal/class/opal_free_list.h"
#include "opal/class/opal_hash_table.h"
#include "opal/class/opal_list.h"
#include "opal/class/opal_pointer_array.h"
#include "opal/mca/btl/btl.h"
#include "opal/mca/rcache/rcache.h"
#include "rwv_opal_compat.h"

BEGIN_C_DECLS

/* 64 KiB of payload sent eagerly: ob1 sends eagerly what fits the eager
 * limit with its largest header (56 bytes in Open MPI 4.1, 80 in 5.0 and
 * 6.0; 128 kept), and our 32-byte header follows in the slot.  At 64 KiB
 * the rendezvous cost a round trip per message: one pair streamed 0.74x
 * btl/tcp with it, 0.91x without. */
#define MCA_BTL_RWV_DEFAULT_SLOT_SIZE (65536 + 128 + 32)
/* btl_rwv_batch_copy_max: decided per rail (mca_btl_rwv_batch_copy_limit) */
#define MCA_BTL_RWV_BATCH_COPY_AUTO (-2)
#define MCA_BTL_RWV_BATCH_COPY_PACED 45056

#define MCA_BTL_RWV_MAX_RAILS 8

struct mca_btl_rwv_rail_t;

/* What a peer needs to reach registered memory: one key per rail.  Memory
 * handed over for a peer on this node that takes single copies is not
 * registered at all (MCA_BTL_RWV_HANDLE_SINGLE_COPY, btl_rwv_cma.c): only a
 * single copy reaches it, and a rail refuses the handle. */
struct mca_btl_base_registration_handle_t {
    uint64_t base;                          /* registered base address */
    uint64_t flags;
    uint64_t rkey[MCA_BTL_RWV_MAX_RAILS];
};
#define MCA_BTL_RWV_HANDLE_SINGLE_COPY 0x1

typedef struct mca_btl_rwv_reg_t {
    mca_rcache_base_registration_t base;
    void *mr[MCA_BTL_RWV_MAX_RAILS];        /* backend memory region per rail */
    void *desc[MCA_BTL_RWV_MAX_RAILS];      /* local descriptor per rail */
    mca_btl_base_registration_handle_t handle;
} mca_btl_rwv_reg_t;

typedef enum {
    MCA_BTL_RWV_SINGLE_COPY_NONE,
    MCA_BTL_RWV_SINGLE_COPY_CMA,     /* process_vm_readv/writev to peers on this node */
} mca_btl_rwv_single_copy_t;

typedef enum {
    MCA_BTL_RWV_EAGER_AUTO,
    MCA_BTL_RWV_EAGER_POLL,   /* poll the sequence word at the end of the next slot */
    MCA_BTL_RWV_EAGER_CQ,     /* the write carries immediate data; wait for the remote CQ event */
} mca_btl_rwv_eager_mode_t;

typedef enum {
    MCA_BTL_RWV_BACKEND_AUTO,
    MCA_BTL_RWV_BACKEND_OFI,
    MCA_BTL_RWV_BACKEND_VERBS,
} mca_btl_rwv_backend_t;

typedef enum {
    MCA_BTL_RWV_PUT_COMPLETION_ORDERED,   /* transport done with the source; stream order and flush do the rest */
    MCA_BTL_RWV_PUT_COMPLETION_DELIVERED, /* the data is at the target */
} mca_btl_rwv_put_completion_t;

/* Which address families rails use to reach a peer, in which order. */
typedef enum {
    MCA_BTL_RWV_IP_FAMILY_AUTO,          /* both, IPv4 first */
    MCA_BTL_RWV_IP_FAMILY_PREFER_IPV6,   /* both, IPv6 first */
    MCA_BTL_RWV_IP_FAMILY_IPV4,          /* IPv4 alone */
    MCA_BTL_RWV_IP_FAMILY_IPV6,          /* IPv6 alone */
} mca_btl_rwv_ip_family_t;

typedef enum {
    MCA_BTL_RWV_EAGER_RAIL_FIRST,        /* the first live rail in preference order */
    MCA_BTL_RWV_EAGER_RAIL_ROUND_ROBIN,  /* every live rail in turn */
} mca_btl_rwv_eager_rail_t;

/* The module lock without MPI threads (btl_rwv_lock.h): the application's
 * thread counts how deep it is in, the connection thread says it wants in. */
typedef struct mca_btl_rwv_gate_t {
    volatile int32_t depth;          /* the application thread's lock nesting */
    volatile int32_t cm_in;          /* the connection thread wants in, or is in */
    volatile int32_t asked;          /* the application thread found it in and asked it out (cm.ask_fd) */
    volatile int32_t waiting;        /* the application thread waits for it to leave (mca_btl_rwv_gate_wait) */
    int32_t cm_depth;                /* the connection thread's own nesting: its alone */
    bool fenced;                     /* no membarrier: a mutex for everyone while the thread runs */
} mca_btl_rwv_gate_t;

/* What the data path costs, read as MPI_T counters (btl_rwv_pvars.c). */
typedef enum {
    MCA_BTL_RWV_COUNT_EAGER,         /* messages written into a peer's ring, over a rail or by a store */
    MCA_BTL_RWV_COUNT_WRITES,        /* posts of RDMA writes to a rail (a system call or doorbell); a batch is one */
    MCA_BTL_RWV_COUNT_REQUESTED,     /* of the rail's operations, those that report their completion */
    MCA_BTL_RWV_COUNT_REAPED,        /* such reports read from a rail's completion queue */
    MCA_BTL_RWV_COUNT_CREDITS,       /* credit words written into a peer's tail over a rail */
    MCA_BTL_RWV_COUNT_IN_PLACE,      /* eager messages gathered from the application's memory */
    MCA_BTL_RWV_COUNT_SEND_RING,     /* eager messages written from a connection's send ring */
    MCA_BTL_RWV_COUNT_SEND_RING_HANDOVER, /* send rings passed from a slow holder to one that asked */
    MCA_BTL_RWV_COUNT_READ,          /* eager messages too large for their slot, read from the sender */
    MCA_BTL_RWV_COUNT_MAX,
} mca_btl_rwv_counter_t;

typedef struct mca_btl_rwv_cm_thread_t {
    bool running;
    bool stopping;                   /* finalize asks the thread to end: seen at every turn */
    pthread_t thread;
    int epoll_fd;
    int stop_fd;                     /* an eventfd: finalize wakes the thread to end it */
    int ask_fd;                      /* an eventfd: the application thread wakes it to have the gate back */
    opal_list_t deferred;            /* events the application's thread must handle */
    uint32_t looks;                  /* looks begun and ended (btl_rwv_cm_thread.h) */
    uint32_t data_watched;           /* rails whose data fd is in epoll_fd, a bit each (btl_rwv_cm_watch.c) */
    /* what connections cost it, said at finalize (btl_base_verbose 40) */
    uint64_t events;                 /* connection events it handled */
    uint64_t cpu_ns;                 /* its CPU time, taken as it ends */
    uint64_t gate_wait_ns;           /* its time waiting for the application thread to leave rwv */
} mca_btl_rwv_cm_thread_t;

typedef struct mca_btl_rwv_module_t {
    mca_btl_base_module_t super;

    struct mca_btl_rwv_rail_t *rails[MCA_BTL_RWV_MAX_RAILS];
    int num_rails;
    /* the connection thread is serving peers for a computing application
     * (btl_rwv_cm_thread.c): completions are queued on `reaped' */
    bool serving;
    /* what the protocol does when a connection's life changes (btl_rwv_conn.h) */
    const struct mca_btl_rwv_conn_hooks_t *conn_hooks;
    /* a whole progress pass, delivering to the MPI library, that the
     * connection thread may run for a computing application: set by the
     * component under MPI_THREAD_MULTIPLE, where ob1 locks its matching;
     * NULL at lower levels, where only the application's thread may */
    int (*deliver) (void);

    mca_rcache_base_module_t *rcache;
    /* what peers may name in an atomic: our registrations by their key on
     * the first rail (btl_rwv_module.c), under regs_lock */
    opal_hash_table_t regs;
    opal_mutex_t regs_lock;
    opal_free_list_t eager_frags;    /* send buffers, registered on every rail */
    opal_free_list_t small_frags;    /* the same, of MCA_BTL_RWV_SMALL_FRAG bytes (btl_rwv_frag.c) */
    opal_free_list_t rdma_ops;       /* put/get requests */
    opal_free_list_t pieces;         /* the part of a put/get on one rail; flush markers */
    opal_free_list_t atomics;        /* atomics waiting for their reply */
    opal_free_list_t cma_handles;    /* handles of memory only single copies reach (btl_rwv_cma.c) */
    struct mca_btl_rwv_frag_t *marker; /* registered source of the flush markers */
    opal_list_t retry;               /* pieces waiting for room on a rail */
    opal_list_t stored;              /* writes done by a store (btl_rwv_shm.c), completed at progress */
    opal_list_t reaped;              /* completions the connection thread read, completed at progress */
    /* connection requests: our attempt counter, and the ones we refused
     * (btl_rwv_handshake.c reports them at most once a second) */
    uint32_t next_attempt;
    uint64_t refused;
    uint64_t refused_reported;
    double refusal_report_at;
    opal_hash_table_t endpoints;     /* opal_process_name_t -> endpoint */
    opal_list_t endpoint_list;       /* every endpoint, for finalize */
    opal_pointer_array_t conns;      /* every connection, by id (immediate data names it) */
    /* every connection again, dense, for the progress loop (btl_rwv_poll.c) */
    struct mca_btl_rwv_conn_t **polled;
    int num_polled;
    int polled_size;
    mca_btl_base_module_error_cb_fn_t error_cb;

    /* connection state, queues and ring counters; never held across an upcall
     * to the PML (which takes its own locks and may call back in).  A mutex
     * with MPI_THREAD_MULTIPLE (recursive for the rare failure paths), else
     * the light gate of btl_rwv_lock.h */
    opal_recursive_mutex_t lock;
    /* one thread progresses at a time; a nested or concurrent call returns at once */
    volatile int32_t progressing;
    mca_btl_rwv_gate_t gate;
    mca_btl_rwv_cm_thread_t cm;      /* the connection thread (btl_rwv_cm_thread.c) */
    rwv_compat_recv_des_t upcall_des; /* what a progress pass's upcalls are given (btl_rwv_recv.h) */
    unsigned progress_calls;
    double next_link_check;          /* CLOCK_MONOTONIC seconds */
    int reports_pending;             /* failed rails not reported yet (btl_rwv_failover.c) */
    int conns_waiting;               /* connecting, accepting or awaiting the peer's attempt */
    uint64_t counters[MCA_BTL_RWV_COUNT_MAX];
    uint64_t send_ring_bytes;        /* send rings allocated, every rail (btl_rwv_send_ring.c) */
} mca_btl_rwv_module_t;

typedef struct mca_btl_rwv_component_t {
    mca_btl_base_component_3_0_0_t super;

    /* parameters */
    char *provider_include;
    char *provider_exclude;
    char *if_include;
    char *if_exclude;
    int eager_slots;
    int eager_slot_size;
    int hot_peers;                   /* per rail; -1: every peer's ring is a hot one (btl_rwv_hotset.c) */
    int promote_after;               /* messages from a cold peer before it may be promoted */
    int cold_slots;
    int cold_slot_size;
    int warm_slot_size;              /* a cold peer's ring once its messages outgrew it; 0: never */
    int warm_peers;                  /* per rail; -1: no limit */
    int send_rings;                  /* per rail (btl_rwv_send_ring.c) */
    int eager_mode;                  /* mca_btl_rwv_eager_mode_t as chosen by the user */
    int connect_timeout;             /* seconds */
    bool connection_thread;          /* answer connection events in a thread of our own */
    bool async_progress;             /* that thread serves peers while the application computes */
    int rail_down_timeout;           /* seconds a lost link may take to come back */
    char *rcache_name;
    char *backends;                  /* read only: what this build contains */
    char *rail_bandwidth;            /* Mbit/s per rail, comma separated; empty: measured */
    int stripe_min_size;             /* smallest piece of a striped put or get */
    int stripe_eager_threshold;      /* eager messages this big are split across rails */
    int write_batch;                 /* most waiting eager messages written with one post */
    int in_place_min;                /* eager data this big is sent from the application's memory; 0: never */
    int batch_copy_max;              /* a waiting message up to this is copied for a batch; -1: any */
    int batch_copy_max_shared;       /* the same where ranks share cores (yield when idle) */
    int eager_rail;                  /* mca_btl_rwv_eager_rail_t */
    bool one_sided;                  /* put rwv first in osc_rdma_btls */
    int osc_buffer_size;             /* osc_rdma_buffer_size, unless the user set it; 0: untouched */
    int single_copy;                 /* mca_btl_rwv_single_copy_t */
    int put_completion;              /* mca_btl_rwv_put_completion_t */
    int backend;                     /* mca_btl_rwv_backend_t */
    int ip_family;                   /* mca_btl_rwv_ip_family_t */
    bool verbs_immediate;            /* verbs rings notified by immediate data where the device has it */
    bool ofi_cq_data;                /* libfabric rings notified by remote CQ data where the provider has it */

    /* The one module, from the start of init.  Every function reaches it
     * here; the btl argument the BTL interface passes is this same module. */
    mca_btl_rwv_module_t *module;
} mca_btl_rwv_component_t;

OPAL_DECLSPEC extern mca_btl_rwv_component_t mca_btl_rwv_component;
extern mca_btl_rwv_module_t mca_btl_rwv_module_template;

/* Posts come from the caller's thread and from the progressing one: with
 * MPI threads two may count at once. */
static inline void mca_btl_rwv_count (mca_btl_rwv_counter_t which)
{
    uint64_t *counter = &mca_btl_rwv_component.module->counters[which];

    if (opal_using_threads ()) {
        (void) __atomic_fetch_add (counter, 1, __ATOMIC_RELAXED);
    } else {
        ++*counter;
    }
}

#define MCA_BTL_RWV_LOCK(module) mca_btl_rwv_lock (module)
#define MCA_BTL_RWV_UNLOCK(module) mca_btl_rwv_unlock (module)

/* btl_rwv_module.c */
int mca_btl_rwv_module_init (void);

/* btl_rwv_send.c */
int mca_btl_rwv_send (mca_btl_base_module_t *btl, struct mca_btl_base_endpoint_t *endpoint,
                      mca_btl_base_descriptor_t *descriptor, mca_btl_base_tag_t tag);
/* btl_rwv_sendi.c */
int mca_btl_rwv_sendi (mca_btl_base_module_t *btl, struct mca_btl_base_endpoint_t *endpoint,
                       struct opal_convertor_t *convertor, void *header, size_t header_size,
                       size_t payload_size, uint8_t order, uint32_t flags, mca_btl_base_tag_t tag,
                       mca_btl_base_descriptor_t **descriptor);
/* a small message of rwv's own, sent now or queued behind the connection's */
int mca_btl_rwv_send_control (struct mca_btl_base_endpoint_t *endpoint, mca_btl_base_tag_t tag, void *data,
                              size_t len);

/* btl_rwv_rdma.c */
int mca_btl_rwv_put (mca_btl_base_module_t *btl, struct mca_btl_base_endpoint_t *endpoint,
                     void *local_address, uint64_t remote_address,
                     mca_btl_base_registration_handle_t *local_handle,
                     mca_btl_base_registration_handle_t *remote_handle, size_t size, int flags,
                     int order, mca_btl_base_rdma_completion_fn_t cbfunc, void *cbcontext, void *cbdata);
int mca_btl_rwv_get (mca_btl_base_module_t *btl, struct mca_btl_base_endpoint_t *endpoint,
                     void *local_address, uint64_t remote_address,
                     mca_btl_base_registration_handle_t *local_handle,
                     mca_btl_base_registration_handle_t *remote_handle, size_t size, int flags,
                     int order, mca_btl_base_rdma_completion_fn_t cbfunc, void *cbcontext, void *cbdata);

/* btl_rwv_atomic.c */
int mca_btl_rwv_atomic_op (mca_btl_base_module_t *btl, struct mca_btl_base_endpoint_t *endpoint,
                           uint64_t remote_address, mca_btl_base_registration_handle_t *remote_handle,
                           mca_btl_base_atomic_op_t op, uint64_t operand, int flags, int order,
                           mca_btl_base_rdma_completion_fn_t cbfunc, void *cbcontext, void *cbdata);
int mca_btl_rwv_atomic_fop (mca_btl_base_module_t *btl, struct mca_btl_base_endpoint_t *endpoint,
                            void *local_address, uint64_t remote_address,
                            mca_btl_base_registration_handle_t *local_handle,
                            mca_btl_base_registration_handle_t *remote_handle, mca_btl_base_atomic_op_t op,
                            uint64_t operand, int flags, int order, mca_btl_base_rdma_completion_fn_t cbfunc,
                            void *cbcontext, void *cbdata);
int mca_btl_rwv_atomic_cswap (mca_btl_base_module_t *btl, struct mca_btl_base_endpoint_t *endpoint,
                              void *local_address, uint64_t remote_address,
                              mca_btl_base_registration_handle_t *local_handle,
                              mca_btl_base_registration_handle_t *remote_handle, uint64_t compare,
                              uint64_t value, int flags, int order, mca_btl_base_rdma_completion_fn_t cbfunc,
                              void *cbcontext, void *cbdata);

/* btl_rwv_flush.c */
int mca_btl_rwv_flush (mca_btl_base_module_t *btl, struct mca_btl_base_endpoint_t *endpoint);

/* seconds on the monotonic clock, for timeouts and rates */
static inline double mca_btl_rwv_now (void)
{
    struct timespec ts;

    clock_gettime (CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}


/* btl_rwv_osc.c: osc/rdma's parameters, set at the first add_procs
 * (the BTLs it uses, the accumulate bug) and at init (its buffers) */
void mca_btl_rwv_offer_one_sided (void);
void mca_btl_rwv_size_osc_buffers (void);

END_C_DECLS

#include "btl_rwv_lock.h"

#endif /* MCA_BTL_RWV_H */
