/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * btl/rwv's MCA parameters, from one table (name, type, default, range or
 * choices, level, description): registered with a description a user can
 * act on (ompi_info --param btl rwv --level 9), and each checked at init
 * against its own range or choices; what depends on several of them is
 * checked in btl_rwv_params_check.c.
 * Layer: helpers (docs/layout.md).
 */
#include "opal_config.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "opal/mca/base/mca_base_var.h"
#include "opal/mca/btl/base/base.h"
#include "rwv_opal_compat.h"

#include "btl_rwv.h"
#include "btl_rwv_frag.h"
#include "btl_rwv_params.h"
#include "btl_rwv_params_check.h"

/* One btl_rwv_ parameter: how it is registered and which values it takes.
 * The range an INT takes is checked at init and shown in its description
 * (ompi_info); a STRING with choices must name one of them. */
typedef struct rwv_param_t {
    const char *name;
    mca_base_var_type_t type; /* INT, BOOL or STRING */
    int level;                /* OPAL_INFO_LVL_* */
    void *storage;            /* int *, bool * or char ** */
    int value;                /* INT, BOOL: the default */
    const char *text;         /* STRING: the default */
    int min, max, step;       /* INT: valid values (step: a multiple of it) */
    const char *const *choices; /* STRING: the values it may name; the index goes to *choice */
    int *choice;
    const char *use;          /* the message for a value out of range or not among the choices */
    const char *desc;
} rwv_param_t;

#define RWV_INT(n, def, lo, hi, st, u, d)                                                                            \
    {.name = #n, .type = MCA_BASE_VAR_TYPE_INT, .level = OPAL_INFO_LVL_4, .storage = &mca_btl_rwv_component.n,     \
     .value = (def), .min = (lo), .max = (hi), .step = (st), .use = (u), .desc = (d)}
#define RWV_BOOL(n, def, lvl, d)                                                                                     \
    {.name = #n, .type = MCA_BASE_VAR_TYPE_BOOL, .level = (lvl), .storage = &mca_btl_rwv_component.n,             \
     .value = (def), .desc = (d)}
#define RWV_STRING(n, def, store, d)                                                                                 \
    {.name = #n, .type = MCA_BASE_VAR_TYPE_STRING, .level = OPAL_INFO_LVL_3, .storage = (store), .text = (def),   \
     .desc = (d)}
#define RWV_CHOICE(n, def, store, names, u, d)                                                                       \
    {.name = #n, .type = MCA_BASE_VAR_TYPE_STRING, .level = OPAL_INFO_LVL_3, .storage = (store), .text = (def),   \
     .choices = (names), .choice = &mca_btl_rwv_component.n, .use = (u), .desc = (d)}

static char *rwv_eager_mode_string, *rwv_eager_rail_string, *rwv_backend_string, *rwv_single_copy_string,
    *rwv_put_completion_string, *rwv_ip_family_string;

/* in the order of their enums in btl_rwv.h */
static const char *const rwv_eager_modes[] = {"auto", "poll", "cq", NULL};
static const char *const rwv_eager_rails[] = {"first", "round_robin", NULL};
static const char *const rwv_backends[] = {"auto", "ofi", "verbs", NULL};
static const char *const rwv_single_copies[] = {"none", "cma", NULL};
static const char *const rwv_put_completions[] = {"ordered", "delivered", NULL};
static const char *const rwv_ip_families[] = {"auto", "prefer_ipv6", "ipv4", "ipv6", NULL};

static const rwv_param_t rwv_params[] = {
    RWV_STRING(provider_include, "", &mca_btl_rwv_component.provider_include,
      "Comma-separated libfabric providers to use for rails (default: every provider "
      "offering RMA on connected endpoints; with btl_rwv_backend auto in a build with native "
      "verbs, tcp only, the native rails serving RDMA ports). Mutually exclusive with "
      "btl_rwv_provider_exclude"),
    RWV_STRING(provider_exclude, "sockets", &mca_btl_rwv_component.provider_exclude,
      "Comma-separated libfabric providers never to use (sockets hangs with libfabric 1.17)"),
    RWV_STRING(if_include, "", &mca_btl_rwv_component.if_include,
      "Comma-separated interface names or CIDR networks, IPv4 or IPv6 (198.51.100.0/24, "
      "2001:db8:1::/64), to use as rails, as for btl_tcp_if_include (default: all). A name takes the "
      "interface with all its addresses; a network takes only the addresses inside it. Mutually "
      "exclusive with btl_rwv_if_exclude"),
    RWV_STRING(if_exclude, "", &mca_btl_rwv_component.if_exclude,
      "Comma-separated interface names or CIDR networks, IPv4 or IPv6, never to use as rails: a "
      "name drops the interface, a network only the addresses inside it. The loopback interface is "
      "only ever used between processes on one node"),
    RWV_CHOICE(ip_family, "auto", &rwv_ip_family_string, rwv_ip_families,
      "use auto, prefer_ipv6, ipv4 or ipv6",
      "Address families of the rails: auto (IPv4 and IPv6; a rail reaches a peer over IPv4 where "
      "both have it there, else over IPv6), prefer_ipv6 (both, IPv6 first), ipv4 or ipv6 (that "
      "family alone: addresses of the other are neither published nor listened on). One rail per "
      "interface whatever its families. IPv6 link-local addresses are used only on interfaces "
      "btl_rwv_if_include names"),
    RWV_INT(eager_slots, 16, 2, 65536, 1, "use 2 to 65536 slots",
      "Slots in a large receive ring: a hot peer's (btl_rwv_hot_peers) and a peer's on this node "
      "(at least 2; slots x btl_rwv_eager_slot_size at most 64 MiB). Also the most messages such a "
      "peer has in flight before its sends queue"),
    RWV_INT(eager_slot_size, MCA_BTL_RWV_DEFAULT_SLOT_SIZE, 256, 1 << 20, 8, "use a multiple of 8 from 256 to 1048576",
      "Bytes per slot of a large receive ring, a multiple of 8 from 256 to 1048576. A message of up to "
      "slot size - 32 bytes travels eagerly; a large ring is eager_slots * eager_slot_size bytes "
      "(+ 64 for a peer on this node). The default carries a 64 KiB message eagerly with ob1's "
      "header (about 1 MiB per large ring with 16 slots); btl_rwv_eager_limit follows it unless set"),
    RWV_INT(hot_peers, 8, -1, 65535, 1, "use -1 (no limit) or 0 to 65535 peers per rail",
      "Peers per rail whose eager messages land in a large receive ring (btl_rwv_eager_slots x "
      "btl_rwv_eager_slot_size, about 1 MiB): the ones that send to this process most, chosen as the "
      "job runs. Every other peer writes into a small ring (btl_rwv_cold_slots x "
      "btl_rwv_cold_slot_size), and its messages too big for it are read from the sender. "
      "Eager memory per rail is then peers x cold ring + hot_peers x large ring. "
      "-1: every peer gets a large ring (memory grows by 1 MiB per peer and rail)"),
    RWV_INT(promote_after, 16, 1, INT_MAX, 1, "use at least 1 message",
      "Messages a cold peer sends before it joins the hot set (a free large ring, or one the hot "
      "peer silent longest gives up)"),
    RWV_INT(cold_slots, 3, 2, 64, 1, "use 2 to 64 slots, at most btl_rwv_eager_slots",
      "Slots in a cold peer's receive ring (2 to 64): how many of its small messages may be in "
      "flight before it waits for credits"),
    RWV_INT(cold_slot_size, 1088, 128, 1 << 20, 8, "use a multiple of 8 from 128 to btl_rwv_eager_slot_size",
      "Bytes per slot of a cold peer's receive ring, a multiple of 8 from 128 to "
      "btl_rwv_eager_slot_size: messages up to this size - 32 bytes are written into it, larger "
      "ones read by the receiver from the sender's buffer. The default carries a 1 KiB message with ob1's "
      "header"),
    RWV_INT(warm_slot_size, 16544, 0, 1 << 20, 8,
      "use 0 or a multiple of 8 from btl_rwv_cold_slot_size to btl_rwv_eager_slot_size",
      "Bytes per slot of a warm ring: a cold peer one of whose messages had to be read from it, and "
      "would fit this, gets a ring of btl_rwv_cold_slots such slots in place of its small one, so "
      "that such messages are written to us, not read back from a sender that may be busy; a "
      "connection made for a first message of that size starts with such slots on both sides. The "
      "default carries a 16 KiB message with ob1's header (a warm ring is 49,632 bytes). 0: no "
      "warm rings"),
    RWV_INT(warm_peers, 256, -1, 65535, 1, "use -1 (no limit) or 0 to 65535 peers per rail",
      "Peers per rail that may have a warm ring (btl_rwv_warm_slot_size), or an own ring started with "
      "warm slots, the first to need one: "
      "eager memory per rail grows by at most warm_peers x btl_rwv_cold_slots x "
      "btl_rwv_warm_slot_size (about 12 MiB by default). -1: no limit"),
    RWV_INT(send_rings, 8, 0, 65535, 1, "use 0 to 65535 send rings per rail",
      "Connections per rail whose eager messages of up to 8 KiB are packed into a send ring of "
      "their own, registered once (16 entries of 8,448 bytes, 135,168 bytes a ring), instead of a "
      "send buffer taken, kept and given back per message: the first to have sent 64 messages, each "
      "keeping its ring until it closes. Only for peers reached over one rail, on a "
      "rail that writes without a completion (both backends). Send memory per rail grows by at "
      "most send_rings x 135,168 bytes (about 1 MiB by default). 0: no send rings"),
    RWV_CHOICE(eager_mode, "auto", &rwv_eager_mode_string, rwv_eager_modes, "use auto, poll or cq",
      "How a receiver sees an eager message arrive in a large ring (a cold peer's small ring "
      "always uses cq): poll (watch the sequence word at the "
      "end of the next slot; needs in-order data placement), cq (the write carries "
      "immediate data and the receiver waits for its completion event; correct without "
      "in-order placement) or auto (poll where the provider places data in order, else cq)"),
    RWV_INT(connect_timeout, 30, 1, INT_MAX, 1, "use a positive number of seconds",
      "Seconds a connection may wait for its peer to answer at the transport level before the "
      "peer is reported unreachable (its host down or cut off, its process gone). With "
      "btl_rwv_connection_thread a live peer answers at once even while it computes. On TCP rails "
      "(libfabric's tcp provider) a silent peer is then probed: while its host still completes TCP "
      "handshakes on its listener (a process stopped by a debugger or SIGSTOP) rwv waits on, "
      "however long; verbs rails cannot tell, and fail it"),
    RWV_BOOL(connection_thread, true, OPAL_INFO_LVL_5,
      "Answer connection requests in a thread of rwv's own, which sleeps until one comes: a peer "
      "busy computing, without calling MPI, still answers within milliseconds, so "
      "btl_rwv_connect_timeout judges only whether a host and process answer. Data still waits "
      "for the application's MPI calls. 0: connection events are read only when the application "
      "calls MPI (a peer that computes longer than btl_rwv_connect_timeout at first contact then "
      "is waited for on TCP rails, its host answering rwv's probe, and fails the job on verbs rails)"),
    RWV_BOOL(async_progress, true, OPAL_INFO_LVL_4,
      "While the application computes without calling MPI, let the connection thread serve its "
      "peers: the transport progressed (puts land, gets and rendezvous reads are answered) and "
      "emulated atomics done and answered, so one-sided transfers to a computing rank and "
      "rendezvous sends from one complete; under MPI_THREAD_MULTIPLE it also delivers what "
      "arrives to the MPI library, so a computing rank's posted receives complete too. Below "
      "MPI_THREAD_MULTIPLE it never calls the MPI library. The thread watches for peers' data "
      "only once the application has made no MPI call for a pause (1 ms, doubling to 4 ms while "
      "calls keep coming, and confirmed 100 us later), so a rank busy in MPI pays nothing measurable for it. By default it serves only "
      "where the node's ranks do not outnumber its processors; set to 1 to serve anyway. 0: peers' "
      "data waits for the application's next MPI call. On verbs rails the device lands puts and answers gets "
      "itself, and the thread sleeps on the completion queue's channel for peers' messages and "
      "atomic requests. Needs btl_rwv_connection_thread"),
    RWV_INT(rail_down_timeout, 120, 0, INT_MAX, 1, "use 0 or a positive number of seconds",
      "Seconds a rail's link may stay down before rwv gives it up. Peers with another rail move "
      "to it at once; a peer whose only rail it is keeps its connection meanwhile (TCP, or the "
      "HCA's retries, hold what was sent), so a link that flaps or a switch that reboots within "
      "this time costs nothing. 0: give the rail up at once"),
    RWV_STRING(rail_bandwidth, "", &mca_btl_rwv_component.rail_bandwidth,
      "Bandwidth of each network rail in Mbit/s, comma separated, in the order btl_base_verbose 100 "
      "lists the rails (e.g. 25000,12500); the loopback rail, used only within a node, takes no "
      "value. Puts, gets and split eager messages are shared "
      "among a peer's rails in proportion. Default (empty): measured per peer as the job runs, "
      "from the time each piece of 64 KiB or more takes to be delivered; all rails start equal"),
    RWV_INT(stripe_min_size, 65536, 4096, INT_MAX, 1, "use at least 4096 bytes",
      "Smallest piece, in bytes, of a put or get split across rails: a transfer is split over "
      "as many rails as keeps every piece at least this big (pieces in proportion to bandwidth), "
      "those that will be free soonest; one under twice this goes whole to the rail free "
      "soonest"),
    RWV_INT(stripe_eager_threshold, 16384, 4096, INT_MAX, 1,
            "use at least 4096 bytes (a value above btl_rwv_eager_limit turns splitting off)",
      "Eager messages of at least this many bytes to a peer with several ready rails are "
      "split across them and reassembled before delivery (ob1 sends a message up to the eager "
      "limit as one fragment). Set it above btl_rwv_eager_limit to never split"),
    RWV_INT(write_batch, 8, 1, MCA_BTL_RWV_MAX_BATCH, 1, "use 1 (one write per message) to 8",
      "Most eager messages waiting on one connection (for credits) that are written into the peer's "
      "ring with one post, each still in its own slot with its own header: one system call on the tcp "
      "provider (at most its iov_limit and rma_iov_limit, 4; not to rings written with immediate data), "
      "one doorbell on verbs (a chain of work requests). 1: every message its own post"),
    RWV_INT(in_place_min, 8192, 0, INT_MAX, 1, "use 0 (always copy) or a number of bytes",
      "Eager messages carrying at least this many bytes of contiguous data go from the application's "
      "buffer straight into the peer's ring, without a copy into a send buffer, on rails whose "
      "transport reads memory it was not given a registration for (libfabric's tcp provider, not "
      "verbs); only to peers on other nodes reached by one rail (a multi-rail peer's messages are "
      "kept for replay), and only when written at once: one that must wait for credits is copied, "
      "so that it can go in a batch, up to btl_rwv_batch_copy_max. To a peer on this node whose "
      "ring rwv shares, any eager message is stored from the application's buffer, whatever its "
      "size. The send completes once the transport is done with the buffer. 0: always copy"),
    RWV_INT(batch_copy_max, MCA_BTL_RWV_BATCH_COPY_AUTO, MCA_BTL_RWV_BATCH_COPY_AUTO, INT_MAX, 1,
            "use -2 (auto), -1 (always copy) or a number of bytes",
      "Largest eager message, in bytes with the PML's header, that is copied into a send buffer while "
      "it waits for credits, so that it can go in a batch (btl_rwv_write_batch); a larger one waits "
      "in the application's buffer and goes, when credits come, two to a write while they fit in 124 "
      "KiB, else alone (only messages that would go in place, btl_rwv_in_place_min). -2 (auto): 45056 "
      "on a libfabric tcp rail where the default TCP congestion control of the process's network "
      "namespace is bbr, which paces (/proc/sys/net/ipv4/tcp_congestion_control): there, writes of "
      "four large copies lost half the rate to retransmissions; -1 elsewhere (cubic, reno). "
      "-1: always copy"),
    RWV_INT(batch_copy_max_shared, 16384, -1, INT_MAX, 1, "use -1 (always copy) or a number of bytes",
      "btl_rwv_batch_copy_max for ranks that share processor cores (mpi_yield_when_idle, which "
      "mpirun sets on an oversubscribed node): there the copy takes processor time from the ranks "
      "a core is shared with, where a rank with a core of its own would spend it polling. "
      "-1: always copy"),
    RWV_CHOICE(eager_rail, "round_robin", &rwv_eager_rail_string, rwv_eager_rails, "use first or round_robin",
      "Which rail carries each unsplit eager message to a multi-rail peer: round_robin (every "
      "ready rail in turn: a stream of small messages uses every rail, as btl/tcp's modules do) "
      "or first (the first live rail: NUMA-near rails come first, then the order of discovery)"),
    RWV_BOOL(one_sided, true, OPAL_INFO_LVL_4,
      "Offer rwv to osc/rdma first, so that MPI one-sided (windows, put, get, accumulate, atomics) "
      "uses rwv's put, get, flush and atomics: rwv is put at the head of osc_rdma_btls unless "
      "that parameter was set. Without it osc/rdma picks btl/vader wherever vader reaches every "
      "process of a window, and vader's emulated compare-and-swap crashes in Open MPI 4.1.4. "
      "Under Open MPI 5.0 and 6.0 it also tells osc/rdma that rwv's puts complete remotely "
      "(MCA_BTL_FLAGS_RDMA_REMOTE_COMPLETION, in the sense of btl_rwv_put_completion), without which "
      "that osc/rdma emulates put, get and atomics with active messages over rwv's eager ring. "
      "Whatever this says, under Open MPI 4.1.0-4.1.4, 5.0 and 6.0 rwv also sets osc_rdma_network_max_amo "
      "to 0 unless it was set: those osc/rdma compute some accumulates wrongly on their network-atomic "
      "path"),
    RWV_INT(osc_buffer_size, 1 << 20, 0, 1 << 30, 4096,
            "use 0 (leave osc_rdma_buffer_size alone) or a multiple of 4096 up to 1073741824 bytes",
      "Size in bytes of osc/rdma's temporary buffers (osc_rdma_buffer_size, 32768 by default), set "
      "by rwv unless that parameter was set (in the environment, with mpirun's --mca or in an MCA "
      "parameter file), and only to make them larger. osc/rdma computes an MPI_Accumulate larger "
      "than an eighth of it in pieces of an eighth, each a read, the operation and a write: at "
      "1048576 a 1 MiB accumulate takes 8 round trips, at 32768 it takes 256. Each process "
      "reserves four such buffers at MPI_Init (address space: memory is touched only by "
      "one-sided operations that use them). 0: osc_rdma_buffer_size is left alone"),
    RWV_CHOICE(backend, "auto", &rwv_backend_string, rwv_backends, "use auto, ofi or verbs",
      "Rail backend: verbs (libibverbs + librdmacm on every active RDMA port with an IPv4 or IPv6 address; "
      "disqualifies with the reason when there is none), ofi (libfabric providers, see "
      "btl_rwv_provider_include) or auto (a verbs rail for each usable RDMA port, libfabric rails "
      "for the other addresses; striping and failover span both). btl_rwv_if_include/exclude "
      "apply to both. btl_rwv_backends_built says what this build has"),
    RWV_CHOICE(single_copy, "cma", &rwv_single_copy_string, rwv_single_copies, "use cma or none",
      "How a process on this node is reached: cma (eager messages are stores into a receive ring "
      "shared with it, puts and gets one kernel copy with process_vm_readv/writev; needs the right "
      "to ptrace the peer: same user and user namespace, and Yama's kernel.yama.ptrace_scope 0; "
      "where the kernel refuses, rwv says so at btl_base_verbose 20 and uses the loopback rail) or "
      "none (everything over the loopback rail)"),
    RWV_CHOICE(put_completion, "ordered", &rwv_put_completion_string, rwv_put_completions, "use ordered or delivered",
      "When a put is reported complete: ordered (when the transport is done with the source; whatever "
      "this process sends the same peer afterwards arrives after the data, and btl_flush completes "
      "every earlier put at the target, as osc/rdma relies on; puts to multi-rail and same-node peers "
      "are delivered anyway) or delivered (only once the data is at the target: one more "
      "acknowledgement per put, which doubles coll/rdmabar's barrier time between nodes)"),
    RWV_BOOL(verbs_immediate, true, OPAL_INFO_LVL_5,
      "On verbs rails, tell a receiver that a message landed in its ring with RDMA write with "
      "immediate data, where the device has it (InfiniBand, RoCE). Off, or on a device without "
      "immediate data (iWARP: RDMAP has none), a zero-length send follows each such write instead: "
      "one more work request per message, and the receiver's queue pair keeps a receive posted for "
      "each slot of the largest ring its peer may write into"),
    RWV_BOOL(ofi_cq_data, true, OPAL_INFO_LVL_5,
      "On libfabric rails, tell a receiver that a message landed in its ring with remote CQ data, "
      "where the provider carries it. Off, or with a provider that carries none (libfabric's verbs "
      "provider on iWARP), a zero-length send follows each such write instead: one more operation "
      "per message, and each endpoint keeps a receive posted for each slot of the largest ring its "
      "peer may write into"),
    RWV_STRING(rcache, "regcache", &mca_btl_rwv_component.rcache_name,
      "Registration cache for RDMA buffers: regcache (this project) or grdma (Open MPI's)"),
};

/* The description ompi_info shows: the table's, with an INT's range. */
static void rwv_describe (const rwv_param_t *p, char *out, size_t size)
{
    if (MCA_BASE_VAR_TYPE_INT != p->type) {
        snprintf (out, size, "%s", p->desc);
    } else if (INT_MAX == p->max) {
        snprintf (out, size, "%s. Valid: %d or more", p->desc, p->min);
    } else {
        snprintf (out, size, "%s. Valid: %d to %d", p->desc, p->min, p->max);
    }
    if (p->step > 1) {
        size_t len = strlen (out);
        snprintf (out + len, size - len, ", a multiple of %d", p->step);
    }
}

static void rwv_register (const rwv_param_t *p)
{
    char desc[2048];

    if (MCA_BASE_VAR_TYPE_STRING == p->type) {
        *(char **) p->storage = (char *) p->text;
    } else if (MCA_BASE_VAR_TYPE_BOOL == p->type) {
        *(bool *) p->storage = 0 != p->value;
    } else {
        *(int *) p->storage = p->value;
    }
    rwv_describe (p, desc, sizeof (desc));
    (void) mca_base_component_var_register (&mca_btl_rwv_component.super.btl_version, p->name, desc, p->type, NULL,
                                            0, 0, p->level, MCA_BASE_VAR_SCOPE_READONLY, p->storage);
}

int mca_btl_rwv_params_register (void)
{
    mca_btl_rwv_component_t *c = &mca_btl_rwv_component;
    mca_btl_base_module_t *template = &mca_btl_rwv_module_template.super;

    for (size_t i = 0 ; i < sizeof (rwv_params) / sizeof (rwv_params[0]) ; ++i) {
        rwv_register (&rwv_params[i]);
    }
    if (c->one_sided) {
        template->btl_flags |= RWV_COMPAT_BTL_FLAGS_REMOTE_COMPLETION;
    }
    c->backends = RWV_BACKENDS;
    (void) mca_base_component_var_register (&c->super.btl_version, "backends_built",
        "Rail backends this build can use (read only)", MCA_BASE_VAR_TYPE_STRING, NULL, 0,
        MCA_BASE_VAR_FLAG_DEFAULT_ONLY, OPAL_INFO_LVL_3, MCA_BASE_VAR_SCOPE_CONSTANT, &c->backends);

    /* the standard BTL parameters: btl_rwv_eager_limit, _exclusivity, _put_limit, ... */
    template->btl_eager_limit = MCA_BTL_RWV_DEFAULT_SLOT_SIZE - sizeof (mca_btl_rwv_eager_hdr_t);
    template->btl_rndv_eager_limit = template->btl_eager_limit;
    template->btl_max_send_size = template->btl_eager_limit;
    return mca_btl_base_param_register (&c->super.btl_version, template);
}

const char *mca_btl_rwv_ip_family_text (void)
{
    return rwv_ip_family_string;
}

const char *mca_btl_rwv_backend_text (void)
{
    return rwv_backend_string;
}

/* One parameter's own range or choices; false after the message. */
static bool rwv_param_valid (const rwv_param_t *p)
{
    char param[64], value[32];

    snprintf (param, sizeof (param), "btl_rwv_%s", p->name);
    if (NULL != p->choices) {
        const char *text = *(char **) p->storage;

        for (int i = 0 ; NULL != p->choices[i] ; ++i) {
            if (0 == strcmp (text, p->choices[i])) {
                *p->choice = i;
                return true;
            }
        }
        return mca_btl_rwv_invalid (param, text, p->use);
    }
    if (MCA_BASE_VAR_TYPE_INT == p->type) {
        int v = *(int *) p->storage;

        snprintf (value, sizeof (value), "%d", v);
        if (v < p->min || v > p->max || v % p->step) {
            return mca_btl_rwv_invalid (param, value, p->use);
        }
    }
    return true;
}

bool mca_btl_rwv_params_in_range (void)
{
    for (size_t i = 0 ; i < sizeof (rwv_params) / sizeof (rwv_params[0]) ; ++i) {
        if (!rwv_param_valid (&rwv_params[i])) {
            return false;
        }
    }
    return true;
}
