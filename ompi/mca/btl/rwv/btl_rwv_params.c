/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * btl/rwv's MCA parameters: registered with a description a user can act
 * on (ompi_info --param btl rwv --level 9), then checked as a whole at
 * init, the first bad value named with what to use instead.
 */
#include "opal_config.h"

#include <stdio.h>
#include <string.h>

#include "opal/mca/base/mca_base_var.h"
#include "opal/mca/btl/base/base.h"
#include "rwv_opal_compat.h"
#include "opal/util/show_help.h"

#include "btl_rwv.h"
#include "btl_rwv_frag.h"
#include "btl_rwv_hotset.h"
#include "btl_rwv_params.h"
#include "btl_rwv_pvars.h"

static char *rwv_eager_mode_string;
static char *rwv_eager_rail_string;
static char *rwv_backend_string;
static char *rwv_single_copy_string;
static char *rwv_put_completion_string;

static void rwv_register_string (const char *name, const char *desc, const char *value, char **storage)
{
    *storage = (char *) value;
    (void) mca_base_component_var_register (&mca_btl_rwv_component.super.btl_version, name, desc,
                                            MCA_BASE_VAR_TYPE_STRING, NULL, 0, 0, OPAL_INFO_LVL_3,
                                            MCA_BASE_VAR_SCOPE_READONLY, storage);
}

void mca_btl_rwv_register_int (const char *name, const char *desc, int value, int *storage)
{
    *storage = value;
    (void) mca_base_component_var_register (&mca_btl_rwv_component.super.btl_version, name, desc,
                                            MCA_BASE_VAR_TYPE_INT, NULL, 0, 0, OPAL_INFO_LVL_4,
                                            MCA_BASE_VAR_SCOPE_READONLY, storage);
}

static void rwv_register_bool (const char *name, const char *desc, bool value, int level, bool *storage)
{
    *storage = value;
    (void) mca_base_component_var_register (&mca_btl_rwv_component.super.btl_version, name, desc,
                                            MCA_BASE_VAR_TYPE_BOOL, NULL, 0, 0, level,
                                            MCA_BASE_VAR_SCOPE_READONLY, storage);
}

int mca_btl_rwv_params_register (void)
{
    mca_btl_rwv_component_t *c = &mca_btl_rwv_component;
    mca_btl_base_module_t *template = &mca_btl_rwv_module_template.super;

    rwv_register_string ("provider_include",
        "Comma-separated libfabric providers to use for rails (default: every provider "
        "offering RMA on connected endpoints; with btl_rwv_backend auto in a build with native "
        "verbs, tcp only, the native rails serving RDMA ports). Mutually exclusive with "
        "btl_rwv_provider_exclude", "", &c->provider_include);
    rwv_register_string ("provider_exclude",
        "Comma-separated libfabric providers never to use (sockets hangs with libfabric 1.17)",
        "sockets", &c->provider_exclude);
    rwv_register_string ("if_include",
        "Comma-separated interface names or IPv4 CIDR networks to use as rails, as for "
        "btl_tcp_if_include (default: all). Mutually exclusive with btl_rwv_if_exclude", "", &c->if_include);
    rwv_register_string ("if_exclude",
        "Comma-separated interface names or IPv4 CIDR networks never to use as rails. The "
        "loopback interface is only ever used between processes on one node", "", &c->if_exclude);
    mca_btl_rwv_register_int ("eager_slots",
        "Slots in a large receive ring: a hot peer's (btl_rwv_hot_peers) and a peer's on this node "
        "(at least 2; slots x btl_rwv_eager_slot_size at most 64 MiB). Also the most messages such a "
        "peer has in flight before its sends queue", 16, &c->eager_slots);
    mca_btl_rwv_register_int ("eager_slot_size",
        "Bytes per slot of a large receive ring, a multiple of 8 from 256 to 1048576. A message of up to "
        "slot size - 32 bytes travels eagerly; a large ring is eager_slots * eager_slot_size bytes "
        "(+ 64 for a peer on this node). The default carries ob1's 64 KiB eager fragments, as btl/tcp "
        "does (about 1 MiB per large ring with 16 slots); btl_rwv_eager_limit follows it unless set",
        MCA_BTL_RWV_DEFAULT_SLOT_SIZE, &c->eager_slot_size);
    rwv_register_string ("eager_mode",
        "How a receiver sees an eager message arrive in a large ring (a cold peer's small ring "
        "always uses cq): poll (watch the sequence word at the "
        "end of the next slot; needs in-order data placement), cq (the write carries "
        "immediate data and the receiver waits for its completion event; correct without "
        "in-order placement) or auto (poll where the provider places data in order, else cq)",
        "auto", &rwv_eager_mode_string);
    mca_btl_rwv_register_int ("connect_timeout",
        "Seconds a connection may wait for its peer to answer at the transport level before the "
        "peer is reported unreachable (its host down or cut off, its process gone or stopped). "
        "With btl_rwv_connection_thread a live peer answers at once even while it computes", 30,
        &c->connect_timeout);
    rwv_register_bool ("connection_thread",
        "Answer connection requests in a thread of rwv's own, which sleeps until one comes: a peer "
        "busy computing, without calling MPI, still answers within milliseconds, so "
        "btl_rwv_connect_timeout judges only whether a host and process answer. Data still waits "
        "for the application's MPI calls. 0: connection events are read only when the application "
        "calls MPI (a peer that computes longer than btl_rwv_connect_timeout at first contact then "
        "fails the job)", true, OPAL_INFO_LVL_5, &c->connection_thread);
    mca_btl_rwv_register_int ("rail_down_timeout",
        "Seconds a rail's link may stay down before rwv gives it up. Peers with another rail move "
        "to it at once; a peer whose only rail it is keeps its connection meanwhile (TCP, or the "
        "HCA's retries, hold what was sent), so a link that flaps or a switch that reboots within "
        "this time costs nothing. 0: give the rail up at once", 120, &c->rail_down_timeout);
    rwv_register_string ("rail_bandwidth",
        "Bandwidth of each network rail in Mbit/s, comma separated, in the order btl_base_verbose 100 "
        "lists the rails (e.g. 25000,12500); the loopback rail, used only within a node, takes no "
        "value. Puts, gets and split eager messages are shared "
        "among a peer's rails in proportion. Default (empty): measured per peer as the job runs, "
        "from the time each piece of 64 KiB or more takes to be delivered; all rails start equal",
        "", &c->rail_bandwidth);
    mca_btl_rwv_register_int ("stripe_min_size",
        "Smallest piece, in bytes, of a put or get split across rails: a transfer is split over "
        "as many rails as keeps every piece at least this big (pieces in proportion to bandwidth), "
        "those that will be free soonest; one under twice this goes whole to the rail free "
        "soonest", 65536, &c->stripe_min_size);
    mca_btl_rwv_register_int ("stripe_eager_threshold",
        "Eager messages of at least this many bytes to a peer with several ready rails are "
        "split across them and reassembled before delivery (ob1 sends a message up to the eager "
        "limit as one fragment). Set it above btl_rwv_eager_limit to never split", 16384,
        &c->stripe_eager_threshold);
    rwv_register_string ("eager_rail",
        "Which rail carries each unsplit eager message to a multi-rail peer: round_robin (every "
        "ready rail in turn: a stream of small messages uses every rail, as btl/tcp's modules do) "
        "or first (the first live rail: NUMA-near rails come first, then the order of discovery)",
        "round_robin", &rwv_eager_rail_string);
    rwv_register_bool ("one_sided",
        "Offer rwv to osc/rdma first, so that MPI one-sided (windows, put, get, accumulate, atomics) "
        "uses rwv's put, get, flush and atomics: rwv is put at the head of osc_rdma_btls unless "
        "that parameter was set. Without it osc/rdma picks btl/vader wherever vader reaches every "
        "process of a window, and vader's emulated compare-and-swap crashes in Open MPI 4.1.4. "
        "Under Open MPI 5.0 it also tells osc/rdma that rwv's puts complete remotely "
        "(MCA_BTL_FLAGS_RDMA_REMOTE_COMPLETION, in the sense of btl_rwv_put_completion), without which "
        "that osc/rdma emulates put, get and atomics with active messages over rwv's eager ring. "
        "Whatever this says, under Open MPI 4.1.0-4.1.4 and 5.0 rwv also sets osc_rdma_network_max_amo "
        "to 0 unless it was set: those osc/rdma compute some accumulates wrongly on their network-atomic "
        "path", true, OPAL_INFO_LVL_4, &c->one_sided);
    if (c->one_sided) {
        template->btl_flags |= RWV_COMPAT_BTL_FLAGS_REMOTE_COMPLETION;
    }
    rwv_register_string ("backend",
        "Rail backend: verbs (libibverbs + librdmacm on every active RDMA port with an IPv4 address; "
        "disqualifies with the reason when there is none), ofi (libfabric providers, see "
        "btl_rwv_provider_include) or auto (a verbs rail for each usable RDMA port, libfabric rails "
        "for the other addresses; striping and failover span both). btl_rwv_if_include/exclude "
        "apply to both. btl_rwv_backends_built says what this build has",
        "auto", &rwv_backend_string);
    rwv_register_string ("single_copy",
        "How a process on this node is reached: cma (eager messages are stores into a receive ring "
        "shared with it, puts and gets one kernel copy with process_vm_readv/writev; needs the right "
        "to ptrace the peer: same user and user namespace, and Yama's kernel.yama.ptrace_scope 0; "
        "where the kernel refuses, rwv says so at btl_base_verbose 20 and uses the loopback rail) or "
        "none (everything over the loopback rail)",
        "cma", &rwv_single_copy_string);
    rwv_register_string ("put_completion",
        "When a put is reported complete: ordered (when the transport is done with the source; whatever "
        "this process sends the same peer afterwards arrives after the data, and btl_flush completes "
        "every earlier put at the target, as osc/rdma relies on; puts to multi-rail and same-node peers "
        "are delivered anyway) or delivered (only once the data is at the target: one more "
        "acknowledgement per put, which doubles coll/rdmabar's barrier time between nodes)",
        "ordered", &rwv_put_completion_string);
    rwv_register_string ("rcache",
        "Registration cache for RDMA buffers: regcache (this project) or grdma (Open MPI's)",
        "regcache", &c->rcache_name);

    c->backends = RWV_BACKENDS;
    (void) mca_base_component_var_register (&c->super.btl_version, "backends_built",
        "Rail backends this build can use (read only)", MCA_BASE_VAR_TYPE_STRING, NULL, 0,
        MCA_BASE_VAR_FLAG_DEFAULT_ONLY, OPAL_INFO_LVL_3, MCA_BASE_VAR_SCOPE_CONSTANT, &c->backends);

    mca_btl_rwv_hotset_register ();
    mca_btl_rwv_pvars_register ();

    /* the standard BTL parameters: btl_rwv_eager_limit, _exclusivity, _put_limit, ... */
    template->btl_eager_limit = MCA_BTL_RWV_DEFAULT_SLOT_SIZE - sizeof (mca_btl_rwv_eager_hdr_t);
    template->btl_rndv_eager_limit = template->btl_eager_limit;
    template->btl_max_send_size = template->btl_eager_limit;
    return mca_btl_base_param_register (&c->super.btl_version, template);
}

bool mca_btl_rwv_invalid (const char *param, const char *value, const char *why)
{
    rwv_show_help ("help-mpi-btl-rwv.txt", "invalid parameter", true, OPAL_PROC_MY_HOSTNAME,
                    param, value, why);
    return false;
}

bool mca_btl_rwv_param_is_default (const char *name)
{
    mca_base_var_source_t source = MCA_BASE_VAR_SOURCE_DEFAULT;
    int index = mca_base_var_find ("opal", "btl", "rwv", name);

    if (index >= 0) {
        (void) mca_base_var_get_value (index, NULL, &source, NULL);
    }
    return MCA_BASE_VAR_SOURCE_DEFAULT == source;
}

/* A user who sizes the slots means the eager limit to follow, unless
 * the eager limit was set too: a 64 KiB slot with a 32 KiB eager limit
 * would send every 33-64 KiB message through the rendezvous for nothing
 * (32 KiB messages took 30 us there against 17 us eagerly). */
static void rwv_derive_eager_limits (void)
{
    mca_btl_base_module_t *template = &mca_btl_rwv_module_template.super;

    if (mca_btl_rwv_param_is_default ("eager_limit")) {
        template->btl_eager_limit = mca_btl_rwv_max_payload ();
    }
    if (mca_btl_rwv_param_is_default ("rndv_eager_limit")) {
        template->btl_rndv_eager_limit = template->btl_eager_limit;
    }
    if (mca_btl_rwv_param_is_default ("max_send_size")) {
        template->btl_max_send_size = template->btl_eager_limit;
    }
}

/* A parameter naming one of `names': its index, else the message. */
static bool rwv_choose (const char *param, const char *value, const char **names, const char *why, int *choice)
{
    for (int i = 0 ; names[i] ; ++i) {
        if (0 == strcmp (value, names[i])) {
            *choice = i;
            return true;
        }
    }
    return mca_btl_rwv_invalid (param, value, why);
}

/* Every connected peer gets a ring on every rail it uses: a size that
 * multiplies into gigabytes per peer is a typo, not a tuning, and would
 * fail only later, on first contact, far from its cause. */
#define MCA_BTL_RWV_MAX_RING_BYTES (64ul << 20)

static bool rwv_ring_size_valid (void)
{
    mca_btl_rwv_component_t *c = &mca_btl_rwv_component;
    size_t ring = (size_t) c->eager_slots * (size_t) c->eager_slot_size;
    char value[64], why[256];

    if (ring <= MCA_BTL_RWV_MAX_RING_BYTES) {
        return true;
    }
    snprintf (value, sizeof (value), "%d x btl_rwv_eager_slot_size %d", c->eager_slots, c->eager_slot_size);
    snprintf (why, sizeof (why), "that is %.1f MiB for each large receive ring; at most %lu MiB "
              "is allowed (the default is 16 x 65568 bytes, about 1 MiB)", ring / 1048576.0,
              MCA_BTL_RWV_MAX_RING_BYTES >> 20);
    return mca_btl_rwv_invalid ("btl_rwv_eager_slots", value, why);
}

bool mca_btl_rwv_params_valid (void)
{
    mca_btl_rwv_component_t *c = &mca_btl_rwv_component;
    mca_btl_base_module_t *template = &mca_btl_rwv_module_template.super;
    char value[64];

    static const char *eager_modes[] = {"auto", "poll", "cq", NULL};   /* mca_btl_rwv_eager_mode_t */
    static const char *eager_rails[] = {"first", "round_robin", NULL}; /* mca_btl_rwv_eager_rail_t */
    static const char *backends[] = {"auto", "ofi", "verbs", NULL};   /* mca_btl_rwv_backend_t */
    static const char *single_copies[] = {"none", "cma", NULL};        /* mca_btl_rwv_single_copy_t */
    static const char *put_completions[] = {"ordered", "delivered", NULL}; /* mca_btl_rwv_put_completion_t */

    if (!rwv_choose ("btl_rwv_eager_mode", rwv_eager_mode_string, eager_modes, "use auto, poll or cq",
                     &c->eager_mode) ||
        !rwv_choose ("btl_rwv_eager_rail", rwv_eager_rail_string, eager_rails, "use first or round_robin",
                     &c->eager_rail) ||
        !rwv_choose ("btl_rwv_backend", rwv_backend_string, backends, "use auto, ofi or verbs", &c->backend) ||
        !rwv_choose ("btl_rwv_single_copy", rwv_single_copy_string, single_copies, "use cma or none",
                     &c->single_copy) ||
        !rwv_choose ("btl_rwv_put_completion", rwv_put_completion_string, put_completions,
                     "use ordered or delivered", &c->put_completion)) {
        return false;
    }
    if (MCA_BTL_RWV_BACKEND_VERBS == c->backend && !RWV_HAVE_VERBS) {
        return mca_btl_rwv_invalid ("btl_rwv_backend", rwv_backend_string,
                            "this build has no verbs rail (btl_rwv_backends_built): configure found no "
                            "libibverbs-dev and librdmacm-dev");
    }
    snprintf (value, sizeof (value), "%d", c->eager_slots);
    if (c->eager_slots < 2 || c->eager_slots > 65536) {
        return mca_btl_rwv_invalid ("btl_rwv_eager_slots", value, "use 2 to 65536 slots");
    }
    snprintf (value, sizeof (value), "%d", c->eager_slot_size);
    if (c->eager_slot_size < 256 || c->eager_slot_size > (1 << 20) || c->eager_slot_size % 8) {
        return mca_btl_rwv_invalid ("btl_rwv_eager_slot_size", value, "use a multiple of 8 from 256 to 1048576");
    }
    if (!rwv_ring_size_valid () || !mca_btl_rwv_hotset_params_valid ()) {
        return false;
    }
    rwv_derive_eager_limits ();
    snprintf (value, sizeof (value), "%zu", template->btl_eager_limit);
    if (template->btl_eager_limit > mca_btl_rwv_max_payload ()) {
        char why[160];

        snprintf (why, sizeof (why), "an eager message must fit in one ring slot: at most "
                  "btl_rwv_eager_slot_size - 32 = %zu bytes", mca_btl_rwv_max_payload ());
        return mca_btl_rwv_invalid ("btl_rwv_eager_limit", value, why);
    }
    snprintf (value, sizeof (value), "%d", c->stripe_min_size);
    if (c->stripe_min_size < 4096) {
        return mca_btl_rwv_invalid ("btl_rwv_stripe_min_size", value, "use at least 4096 bytes");
    }
    snprintf (value, sizeof (value), "%d", c->stripe_eager_threshold);
    if (c->stripe_eager_threshold < 4096) {
        return mca_btl_rwv_invalid ("btl_rwv_stripe_eager_threshold", value,
                            "use at least 4096 bytes (a value above btl_rwv_eager_limit turns splitting off)");
    }
    snprintf (value, sizeof (value), "%d", c->connect_timeout);
    if (c->connect_timeout <= 0) {
        return mca_btl_rwv_invalid ("btl_rwv_connect_timeout", value, "use a positive number of seconds");
    }
    snprintf (value, sizeof (value), "%d", c->rail_down_timeout);
    if (c->rail_down_timeout < 0) {
        return mca_btl_rwv_invalid ("btl_rwv_rail_down_timeout", value, "use 0 or a positive number of seconds");
    }
    if (*c->provider_include && 0 != strcmp (c->provider_exclude, "sockets") && *c->provider_exclude) {
        return mca_btl_rwv_invalid ("btl_rwv_provider_include", c->provider_include,
                            "set btl_rwv_provider_include or btl_rwv_provider_exclude, not both");
    }
    if (*c->if_include && *c->if_exclude) {
        return mca_btl_rwv_invalid ("btl_rwv_if_include", c->if_include, "set btl_rwv_if_include or btl_rwv_if_exclude, not both");
    }
    if (template->btl_rndv_eager_limit > template->btl_eager_limit) {
        template->btl_rndv_eager_limit = template->btl_eager_limit;
    }
    if (template->btl_max_send_size > mca_btl_rwv_max_payload ()) {
        template->btl_max_send_size = mca_btl_rwv_max_payload ();
    }
    return true;
}
