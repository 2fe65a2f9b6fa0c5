/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * btl/rwv component: open, init (rails, module, modex); its parameters
 * are btl_rwv_params.c, the progress function btl_rwv_progress.c.
 * Layer: glue (docs/layout.md).
 */
#include "opal_config.h"

#include <arpa/inet.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <hwloc.h>

#include "opal/mca/btl/base/base.h"
#include "rwv_opal_compat.h"
#include "opal/util/argv.h"
#include "opal/util/output.h"
#include "opal/util/proc.h"
#include "opal/util/show_help.h"

#include "btl_rwv.h"
#include "btl_rwv_handshake.h"
#include "btl_rwv_test_fault.h"
#include "btl_rwv_progress.h"
#include "btl_rwv_auth.h"
#include "btl_rwv_cma.h"
#include "btl_rwv_cm_thread.h"
#include "btl_rwv_endpoint.h"
#include "btl_rwv_frag.h"
#include "btl_rwv_rail.h"
#include "btl_rwv_params.h"
#include "btl_rwv_params_check.h"
#include "btl_rwv_pvars.h"
#include "btl_rwv_hotset.h"

static int rwv_open (void);
static int rwv_register (void);
static mca_btl_base_module_t **rwv_init (int *num_btls, bool enable_progress_threads,
                                         bool enable_mpi_threads);

mca_btl_rwv_component_t mca_btl_rwv_component = {
    .super = {
        .btl_version = {
            RWV_COMPAT_BTL_VERSION,
            .mca_component_name = "rwv",
            MCA_BASE_MAKE_VERSION(component, RWV_VERSION_MAJOR, RWV_VERSION_MINOR, RWV_VERSION_RELEASE),
            .mca_open_component = rwv_open,
            .mca_register_component_params = rwv_register,
        },
        .btl_data = {
            .param_field = MCA_BASE_METADATA_PARAM_CHECKPOINT
        },
        .btl_init = rwv_init,
        .btl_progress = mca_btl_rwv_progress,
    },
};

/* libopen-pal's copy of the machine topology, loaded at start-up */
extern hwloc_topology_t opal_hwloc_topology;

/* Parameters first, then the performance variables that report on them. */
static int rwv_register (void)
{
    int rc = mca_btl_rwv_params_register ();

    mca_btl_rwv_pvars_register ();
    return rc;
}

static int rwv_open (void)
{
    mca_btl_rwv_test_fault_open ();
    rwv_show_help_open ();
    return OPAL_SUCCESS;
}

/* ------------------------------------------------------------ init */

/* Our secret (btl_rwv_auth.h), then our rail addresses: through the
 * runtime only, never over a rail. */
static int rwv_modex_send (void)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    struct {
        mca_btl_rwv_modex_t head;
        mca_btl_rwv_rail_addr_t addrs[MCA_BTL_RWV_MAX_RAILS];
    } blob = {.head = {.max_eager = (uint32_t) mca_btl_rwv_max_payload (),
                       .addr_size = sizeof (mca_btl_rwv_rail_addr_t)}};
    int rc;

    if (OPAL_SUCCESS != (rc = mca_btl_rwv_auth_init ())) {
        return rc;
    }
    memcpy (blob.head.secret, mca_btl_rwv_auth_secret (), sizeof (blob.head.secret));
    for (int i = 0 ; i < module->num_rails ; ++i) {
        blob.addrs[i] = module->rails[i]->addr;
    }
    OPAL_MODEX_SEND(rc, RWV_MODEX_GLOBAL, &mca_btl_rwv_component.super.btl_version, &blob,
                    sizeof (blob.head) + module->num_rails * sizeof (blob.addrs[0]));
    return rc;
}

/* The NUMA node this process is bound to, -1 if unbound, spread over
 * several nodes, or unknown. */
static int rwv_process_numa_node (void)
{
    hwloc_topology_t topo = opal_hwloc_topology;
    hwloc_cpuset_t bound;
    hwloc_obj_t node = NULL, found = NULL;

    if (NULL == topo || NULL == (bound = hwloc_bitmap_alloc ())) {
        return -1;
    }
    if (0 == hwloc_get_cpubind (topo, bound, HWLOC_CPUBIND_PROCESS)) {
        while (NULL != (node = hwloc_get_next_obj_by_type (topo, HWLOC_OBJ_NUMANODE, node))) {
            if (hwloc_bitmap_isincluded (bound, node->cpuset)) {
                found = node;
            }
        }
    }
    hwloc_bitmap_free (bound);
    return found ? (int) found->os_index : -1;
}

/* NICs on the process's NUMA node first (a stable reorder): the first
 * rail carries eager messages by default. */
static void rwv_order_rails (int numa)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    mca_btl_rwv_rail_t *sorted[MCA_BTL_RWV_MAX_RAILS];
    int n = 0;

    for (int near = 1 ; near >= 0 ; --near) {
        for (int i = 0 ; i < module->num_rails ; ++i) {
            if ((numa >= 0 && module->rails[i]->numa_node == numa) == near) {
                sorted[n++] = module->rails[i];
            }
        }
    }
    for (int i = 0 ; i < n ; ++i) {
        module->rails[i] = sorted[i];
        module->rails[i]->index = i;
    }
}

static void rwv_list_rails (char *buf, size_t len)
{
    const mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;

    buf[0] = '\0';
    for (int i = 0 ; i < module->num_rails ; ++i) {
        size_t used = strlen (buf);

        snprintf (buf + used, len - used, "  rail %d: %s%s\n", i, module->rails[i]->name,
                  module->rails[i]->addr.loopback ? " (loopback: takes no value)" : "");
    }
}

static int rwv_network_rails (void)
{
    const mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    int n = 0;

    for (int i = 0 ; i < module->num_rails ; ++i) {
        n += !module->rails[i]->addr.loopback;
    }
    return n;
}

/* btl_rwv_rail_bandwidth: one value in Mbit/s per network rail, or nothing. */
static void rwv_apply_bandwidths (void)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    char **values = opal_argv_split (mca_btl_rwv_component.rail_bandwidth, ',');
    int count = opal_argv_count (values);
    bool valid = count == rwv_network_rails ();
    char rails[MCA_BTL_RWV_MAX_RAILS * 110];

    for (int i = 0 ; valid && i < count ; ++i) {
        char *end;
        double mbps = strtod (values[i], &end);

        valid = end != values[i] && '\0' == *end && mbps > 0 && isfinite (mbps);
    }
    if (valid) {
        for (int i = 0, v = 0 ; i < module->num_rails ; ++i) {
            if (!module->rails[i]->addr.loopback) {
                module->rails[i]->bandwidth = strtod (values[v++], NULL) / 8.0; /* Mbit/s = bytes per us * 8 */
            }
        }
    } else if (count > 0) {
        rwv_list_rails (rails, sizeof (rails));
        rwv_show_help ("help-mpi-btl-rwv.txt", "bad bandwidth list", true, OPAL_PROC_MY_HOSTNAME,
                       mca_btl_rwv_component.rail_bandwidth, count, rwv_network_rails (), rails);
    }
    opal_argv_free (values);
}

static void rwv_report_no_rails (void)
{
    mca_btl_rwv_component_t *c = &mca_btl_rwv_component;

    rwv_show_help ("help-mpi-btl-rwv.txt", "no rails", true, OPAL_PROC_MY_HOSTNAME,
                   c->provider_include, c->provider_exclude, c->if_include, c->if_exclude);
}

/* btl_rwv_backend: under auto, a verbs rail for every active RDMA port
 * with an IPv4 or IPv6 address, then libfabric rails for the other
 * interfaces (loopback among them), all in one module: striping and failover span
 * both.  Under verbs a missing or unusable device leaves no rail, and rwv
 * disqualifies with the reason.  True if the user was told why there is
 * no rail. */
static bool rwv_discover_rails (bool thread_safe)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    int backend = mca_btl_rwv_component.backend;
    bool told = false;

#if RWV_HAVE_VERBS
    if (MCA_BTL_RWV_BACKEND_OFI != backend) {
        told = OPAL_ERR_NOT_AVAILABLE == mca_btl_rwv_verbs_discover (module->rails, MCA_BTL_RWV_MAX_RAILS,
                                                                      &module->num_rails,
                                                                      MCA_BTL_RWV_BACKEND_VERBS == backend);
    }
#endif
    if (MCA_BTL_RWV_BACKEND_VERBS != backend) {
        (void) mca_btl_rwv_ofi_discover (module->rails, MCA_BTL_RWV_MAX_RAILS, &module->num_rails, thread_safe);
    }
    return told && MCA_BTL_RWV_BACKEND_VERBS == backend;
}

/* With this flag ob1 gives us an eager message's data through
 * prepare_src instead of sendi, so that it may stay in the application's
 * memory (mca_btl_rwv_prepare_src decides per peer): only worth it where
 * a rail can gather it. */
static void rwv_offer_in_place (void)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;

    if (0 == mca_btl_rwv_component.in_place_min) {
        return;
    }
    for (int i = 0 ; i < module->num_rails ; ++i) {
        if (mca_btl_rwv_rail_gathers (module->rails[i])) {
            module->super.btl_flags |= MCA_BTL_FLAGS_SEND_INPLACE;
            return;
        }
    }
}

static mca_btl_base_module_t **rwv_init (int *num_btls, bool enable_progress_threads, bool enable_mpi_threads)
{
    mca_btl_rwv_component_t *c = &mca_btl_rwv_component;
    mca_btl_base_module_t **modules;
    mca_btl_rwv_module_t *module;
    bool told;
    int numa;

    *num_btls = 0;
    if (!mca_btl_rwv_params_valid ()) {
        return NULL;
    }
    module = malloc (sizeof (*module));
    modules = malloc (sizeof (*modules));
    if (NULL == module || NULL == modules) {
        free (module);
        free (modules);
        return NULL;
    }
    *module = mca_btl_rwv_module_template;
    c->module = module;
    /* the connection thread registers rings while the application may register its memory */
    told = rwv_discover_rails (enable_mpi_threads || enable_progress_threads || c->connection_thread);
    if (0 == module->num_rails) {
        if (!told) {
            rwv_report_no_rails ();
        }
        c->module = NULL;
        free (module);
        free (modules);
        return NULL;
    }
    for (int i = 0 ; i < module->num_rails ; ++i) {
        module->rails[i]->events = &mca_btl_rwv_conn_events;
    }
    numa = rwv_process_numa_node ();
    rwv_order_rails (numa);
    rwv_apply_bandwidths ();
    if (OPAL_SUCCESS != mca_btl_rwv_module_init () || OPAL_SUCCESS != rwv_modex_send ()) {
        module->super.btl_finalize (&module->super);
        free (modules);
        return NULL;
    }
    for (int i = 0 ; i < module->num_rails ; ++i) {
        mca_btl_rwv_rail_t *rail = module->rails[i];

        char where[2 * (MCA_BTL_RWV_IP_STRLEN + 16)];

        opal_output_verbose (MCA_BASE_VERBOSE_INFO, opal_btl_base_framework.framework_output,
                             "btl/rwv: rail %d: %s listening on %s (NUMA node %d, process on %d; %s; "
                             "rings of %d x %d bytes for %d hot peers, %d x %d for the others%s)", i, rail->name,
                             mca_btl_rwv_rail_addr_text (&rail->addr, where, sizeof (where)), rail->numa_node, numa,
                             rail->bandwidth > 0 ? "bandwidth configured" : "bandwidth measured",
                             c->eager_slots, c->eager_slot_size, c->hot_peers, c->cold_slots, c->cold_slot_size,
                             rail->tcp_paced ? "; the kernel paces its TCP (bbr)" : "");
    }
    rwv_offer_in_place ();
    mca_btl_rwv_size_osc_buffers (); /* may setenv: before our thread starts */
    module->deliver = opal_using_threads () ? mca_btl_rwv_progress : NULL;
    mca_btl_rwv_cm_thread_start ();
    modules[0] = &module->super;
    *num_btls = 1;
    return modules;
}
