/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * btl/rwv's parameters checked as a whole at init: each against its own
 * range (btl_rwv_params.c), then what depends on several (ring sizes, the
 * hot set's rings, the eager limits, interface lists, a backend this
 * build lacks), and the values derived from them; the first bad value is
 * named with what to use instead.
 * Layer: helpers (docs/layout.md).
 */
#include "opal_config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "opal/mca/base/mca_base_var.h"
#include "opal/mca/btl/base/base.h"
#include "rwv_opal_compat.h"
#include "opal/util/proc.h"
#include "opal/util/show_help.h"

#include "btl_rwv.h"
#include "btl_rwv_addr.h"
#include "btl_rwv_frag.h"
#include "btl_rwv_params.h"
#include "btl_rwv_params_check.h"

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

/* The serving thread needs a core of its own to be worth having: where
 * this node's ranks outnumber its online processors it would take one
 * from a rank that is most likely in MPI, just not running (128 ranks on
 * 2 cores: an all-to-all took 1.98x btl/tcp's time serving, 1.27x not).
 * So by default it serves only where each rank of the node can have a
 * processor; btl_rwv_async_progress set by the user is obeyed. */
static void rwv_fit_async_progress (void)
{
    long cpus = sysconf (_SC_NPROCESSORS_ONLN);
    long ranks = (long) opal_process_info.num_local_peers + 1;

    if (!mca_btl_rwv_component.async_progress || !mca_btl_rwv_param_is_default ("async_progress") || cpus <= 0 ||
        ranks <= cpus) {
        return;
    }
    mca_btl_rwv_component.async_progress = false;
    opal_output_verbose (MCA_BASE_VERBOSE_INFO, opal_btl_base_framework.framework_output,
                         "btl/rwv: %ld ranks on this node's %ld processors: the connection thread does not serve "
                         "peers while the application computes (set btl_rwv_async_progress 1 to make it)", ranks,
                         cpus);
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
              "is allowed (the default is 16 x 65696 bytes, about 1 MiB)", ring / 1048576.0,
              MCA_BTL_RWV_MAX_RING_BYTES >> 20);
    return mca_btl_rwv_invalid ("btl_rwv_eager_slots", value, why);
}

/* An entry with a slash is a network, and must be one of either family;
 * anything else names an interface. */
static bool rwv_if_list_valid (const char *param, const char *list)
{
    char entry[128];
    mca_btl_rwv_ip_t ip;
    int bits;

    for (const char *p = list ; *p ; p += '\0' != *p) {
        size_t n = strcspn (p, ",");

        snprintf (entry, sizeof (entry), "%.*s", (int) n, p);
        p += n;
        if (NULL != strchr (entry, '/') && !mca_btl_rwv_cidr_parse (entry, &ip, &bits)) {
            char why[400];

            snprintf (why, sizeof (why), "'%s' is not a network: use ADDRESS/BITS with an IPv4 address and "
                      "0 to 32 bits (198.51.100.0/24) or an IPv6 address and 0 to 128 bits (2001:db8:1::/64), "
                      "or an interface name", entry);
            return mca_btl_rwv_invalid (param, list, why);
        }
    }
    return true;
}

/* A warm slot left at its default follows the smaller of the two rings
 * around it (a larger cold slot makes warm rings pointless: none); one
 * set outside them is refused. */
static bool rwv_warm_params_valid (void)
{
    mca_btl_rwv_component_t *c = &mca_btl_rwv_component;
    char value[32];

    if (mca_btl_rwv_param_is_default ("warm_slot_size")) {
        if (c->warm_slot_size > c->eager_slot_size) {
            c->warm_slot_size = c->eager_slot_size;
        }
        if (c->warm_slot_size <= c->cold_slot_size) {
            c->warm_slot_size = 0;
        }
    }
    snprintf (value, sizeof (value), "%d", c->warm_slot_size);
    if (0 != c->warm_slot_size && (c->warm_slot_size < c->cold_slot_size || c->warm_slot_size > c->eager_slot_size)) {
        return mca_btl_rwv_invalid ("btl_rwv_warm_slot_size", value,
                                    "use 0 or a multiple of 8 from btl_rwv_cold_slot_size to btl_rwv_eager_slot_size");
    }
    return true;
}

/* The hot set's rings: a small ring left at its defaults follows a large
 * one made smaller; one set larger is refused. */
static bool rwv_hotset_params_valid (void)
{
    mca_btl_rwv_component_t *c = &mca_btl_rwv_component;
    char value[32];

    /* a small ring left at its defaults is never larger than a large one */
    if (mca_btl_rwv_param_is_default ("cold_slots") && c->cold_slots > c->eager_slots) {
        c->cold_slots = c->eager_slots;
    }
    if (mca_btl_rwv_param_is_default ("cold_slot_size") && c->cold_slot_size > c->eager_slot_size) {
        c->cold_slot_size = c->eager_slot_size;
    }
    snprintf (value, sizeof (value), "%d", c->cold_slots);
    if (c->cold_slots > c->eager_slots) {
        return mca_btl_rwv_invalid ("btl_rwv_cold_slots", value, "use 2 to 64 slots, at most btl_rwv_eager_slots");
    }
    snprintf (value, sizeof (value), "%d", c->cold_slot_size);
    if (c->cold_slot_size > c->eager_slot_size) {
        return mca_btl_rwv_invalid ("btl_rwv_cold_slot_size", value,
                                    "use a multiple of 8 from 128 to btl_rwv_eager_slot_size");
    }
    return rwv_warm_params_valid ();
}

bool mca_btl_rwv_params_valid (void)
{
    mca_btl_rwv_component_t *c = &mca_btl_rwv_component;
    mca_btl_base_module_t *template = &mca_btl_rwv_module_template.super;
    char value[64];

    if (!mca_btl_rwv_params_in_range ()) {
        return false;
    }
    /* what one parameter's range cannot say */
    if (MCA_BTL_RWV_BACKEND_VERBS == c->backend && !RWV_HAVE_VERBS) {
        return mca_btl_rwv_invalid ("btl_rwv_backend", mca_btl_rwv_backend_text (),
                                    "this build has no verbs rail (btl_rwv_backends_built): configure found no "
                                    "libibverbs-dev and librdmacm-dev");
    }
    if (!rwv_ring_size_valid () || !rwv_hotset_params_valid ()) {
        return false;
    }
    rwv_derive_eager_limits ();
    rwv_fit_async_progress ();
    snprintf (value, sizeof (value), "%zu", template->btl_eager_limit);
    if (template->btl_eager_limit > mca_btl_rwv_max_payload ()) {
        char why[160];

        snprintf (why, sizeof (why), "an eager message must fit in one ring slot: at most "
                  "btl_rwv_eager_slot_size - 32 = %zu bytes", mca_btl_rwv_max_payload ());
        return mca_btl_rwv_invalid ("btl_rwv_eager_limit", value, why);
    }
    if (*c->provider_include && 0 != strcmp (c->provider_exclude, "sockets") && *c->provider_exclude) {
        return mca_btl_rwv_invalid ("btl_rwv_provider_include", c->provider_include,
                                    "set btl_rwv_provider_include or btl_rwv_provider_exclude, not both");
    }
    if (*c->if_include && *c->if_exclude) {
        return mca_btl_rwv_invalid ("btl_rwv_if_include", c->if_include,
                                    "set btl_rwv_if_include or btl_rwv_if_exclude, not both");
    }
    if (!rwv_if_list_valid ("btl_rwv_if_include", c->if_include) ||
        !rwv_if_list_valid ("btl_rwv_if_exclude", c->if_exclude)) {
        return false;
    }
    if (template->btl_rndv_eager_limit > template->btl_eager_limit) {
        template->btl_rndv_eager_limit = template->btl_eager_limit;
    }
    if (template->btl_max_send_size > mca_btl_rwv_max_payload ()) {
        template->btl_max_send_size = mca_btl_rwv_max_payload ();
    }
    return true;
}
