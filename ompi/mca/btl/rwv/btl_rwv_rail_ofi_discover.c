/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Which libfabric provider addresses become rails (the btl_rwv_if_* and
 * btl_rwv_provider_* lists, one rail per address), and opening each one:
 * its fabric, domain, event and completion queues, and listening endpoint.
 */
#include "opal_config.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>

#include "opal/mca/btl/base/base.h"
#include "opal/util/argv.h"
#include "opal/util/if.h"
#include "opal/util/output.h"
#include "opal/util/show_help.h"

#include "btl_rwv.h"
#include "btl_rwv_rail.h"
#include "btl_rwv_rail_ofi.h"


/* btl_rwv_if_include entries that name no rail found: say so, and go on
 * with the rails found. */
static void ofi_report_unmatched (char **if_inc, mca_btl_rwv_rail_t **rails, int num_rails)
{
    for (int i = 0 ; if_inc && if_inc[i] && num_rails > 0 ; ++i) {
        bool found = false;
        char names[MCA_BTL_RWV_MAX_RAILS * 40] = "";

        for (int r = 0 ; r < num_rails && !found ; ++r) {
            struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = rails[r]->addr.ipv4};

            found = mca_btl_rwv_if_entry_matches (if_inc[i], rails[r]->ifname, &addr);
        }
        for (int r = 0 ; r < num_rails && !found ; ++r) {
            size_t used = strlen (names);

            snprintf (names + used, sizeof (names) - used, "%s%s", r ? ", " : "", rails[r]->ifname);
        }
        if (!found) {
            rwv_show_help ("help-mpi-btl-rwv.txt", "rail not found", true, OPAL_PROC_MY_HOSTNAME,
                           if_inc[i], names);
        }
    }
}

static bool ofi_listed (char **list, const char *name)
{
    for (int i = 0 ; list && list[i] ; ++i) {
        if (0 == strcmp (list[i], name)) {
            return true;
        }
    }
    return false;
}

static bool ofi_wanted (const struct fi_info *info, char **prov_inc, char **prov_exc, char **if_inc, char **if_exc)
{
    const struct sockaddr_in *addr = (const struct sockaddr_in *) info->src_addr;
    const char *prov = info->fabric_attr->prov_name;
    const char *ifname = info->domain_attr->name;

    if (NULL == addr || FI_SOCKADDR_IN != info->addr_format || AF_INET != addr->sin_family) {
        return false;
    }
    if ((prov_inc && !ofi_listed (prov_inc, prov)) || (prov_exc && ofi_listed (prov_exc, prov))) {
        return false;
    }
    if (if_inc) {
        return mca_btl_rwv_if_listed (if_inc, ifname, addr);
    }
    return !(if_exc && mca_btl_rwv_if_listed (if_exc, ifname, addr));
}

static int ofi_prefix_len (const struct fi_info *info)
{
    const char *slash = info->fabric_attr->name ? strrchr (info->fabric_attr->name, '/') : NULL;

    return slash ? atoi (slash + 1) : 24;
}

/* The network interface that holds `ipv4' (the tcp provider names its
 * domains after interfaces, the verbs provider after devices). */
static bool ofi_interface_of (uint32_t ipv4, char *name, size_t len)
{
    struct ifaddrs *list, *ifa;
    bool found = false;

    if (0 != getifaddrs (&list)) {
        return false;
    }
    for (ifa = list ; ifa && !found ; ifa = ifa->ifa_next) {
        if (ifa->ifa_addr && AF_INET == ifa->ifa_addr->sa_family &&
            ((struct sockaddr_in *) ifa->ifa_addr)->sin_addr.s_addr == ipv4) {
            snprintf (name, len, "%s", ifa->ifa_name);
            found = true;
        }
    }
    freeifaddrs (list);
    return found;
}

/* The NUMA node of the interface's device, -1 when it has none (veth, lo). */
static int ofi_numa_node (const char *ifname)
{
    char path[128];

    snprintf (path, sizeof (path), "/sys/class/net/%s/device/numa_node", ifname);
    return mca_btl_rwv_sysfs_int (path, -1);
}

/* An event queue the connection thread can sleep on (a file descriptor
 * to epoll), else one only progress reads. */
static int ofi_eq_open (mca_btl_rwv_ofi_rail_t *rail)
{
    struct fi_eq_attr eq_attr = {.wait_obj = FI_WAIT_FD};

    rail->super.cm_fd = -1;
    if (0 == fi_eq_open (rail->fabric, &eq_attr, &rail->eq, NULL)) {
        if (0 != fi_control (&rail->eq->fid, FI_GETWAIT, &rail->super.cm_fd)) {
            rail->super.cm_fd = -1;
        }
        return 0;
    }
    eq_attr.wait_obj = FI_WAIT_UNSPEC;
    return fi_eq_open (rail->fabric, &eq_attr, &rail->eq, NULL);
}

/* A batch of writes is one message of as many pieces, local and remote. */
static size_t ofi_batch_limit (const struct fi_info *info)
{
    size_t limit = MCA_BTL_RWV_MAX_BATCH;

    limit = info->tx_attr->iov_limit < limit ? info->tx_attr->iov_limit : limit;
    return info->tx_attr->rma_iov_limit < limit ? info->tx_attr->rma_iov_limit : limit;
}

static mca_btl_rwv_rail_t *ofi_rail_open (struct fi_info *info, int index)
{
    mca_btl_rwv_ofi_rail_t *rail = calloc (1, sizeof (*rail));
    struct sockaddr_in bound;
    size_t bound_len = sizeof (bound);
    char ip[INET_ADDRSTRLEN];
    int rc;

    if (NULL == rail) {
        return NULL;
    }
    rail->ioctl_fd = -1;
    OBJ_CONSTRUCT(&rail->batches, opal_free_list_t);
    rail->info = fi_dupinfo (info);
    rc = opal_free_list_init (&rail->batches, sizeof (mca_btl_rwv_ofi_batch_t), opal_cache_line_size,
                              OBJ_CLASS(mca_btl_rwv_ofi_batch_t), 0, 0, 16, -1, 16, NULL, 0, NULL, NULL, NULL);
    rc = rc ? -FI_ENOMEM : fi_fabric (info->fabric_attr, &rail->fabric, NULL);
    rc = rc ? rc : fi_domain (rail->fabric, info, &rail->domain, NULL);
    rc = rc ? rc : ofi_eq_open (rail);
    rc = rc ? rc : mca_btl_rwv_ofi_cq_open (rail, 0);
    rc = rc ? rc : fi_passive_ep (rail->fabric, info, &rail->pep, NULL);
    rc = rc ? rc : fi_pep_bind (rail->pep, &rail->eq->fid, 0);
    rc = rc ? rc : fi_listen (rail->pep);
    rc = rc ? rc : fi_getname (&rail->pep->fid, &bound, &bound_len);
    if (0 != rc) {
        opal_output_verbose (MCA_BASE_VERBOSE_WARN, opal_btl_base_framework.framework_output,
                             "btl/rwv: %s %s: cannot open: %s", info->fabric_attr->prov_name,
                             info->domain_attr->name, fi_strerror (-rc));
        mca_btl_rwv_ofi_rail_close (&rail->super);
        return NULL;
    }

    rail->super.ops = &mca_btl_rwv_ofi_ops;
    rail->super.index = index;
    rail->super.addr.ipv4 = bound.sin_addr.s_addr;
    rail->super.addr.port = bound.sin_port;
    rail->super.addr.prefix_len = (uint8_t) ofi_prefix_len (info);
    rail->super.addr.loopback = (ntohl (bound.sin_addr.s_addr) >> 24) == 127;
    rail->super.inject_size = info->tx_attr->inject_size;
    rail->super.max_batch = (int) ofi_batch_limit (info);
    rail->super.virt_addr = !!(info->domain_attr->mr_mode & FI_MR_VIRT_ADDR);
    /* tcp copies each write from the socket into memory in stream order */
    rail->super.ordered_placement = 0 == strcmp (info->fabric_attr->prov_name, "tcp");
    rail->super.reads_after_writes = NULL != info->tx_attr && (info->tx_attr->msg_order & FI_ORDER_RAW);
    rail->prov_key = !!(info->domain_attr->mr_mode & FI_MR_PROV_KEY);
    rail->next_key = 1;
    if (ofi_interface_of (bound.sin_addr.s_addr, rail->super.ifname, sizeof (rail->super.ifname))) {
        rail->ioctl_fd = socket (AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    } else {
        /* no network interface holds the address: no link checks */
        snprintf (rail->super.ifname, sizeof (rail->super.ifname), "%s", info->domain_attr->name);
    }
    rail->super.numa_node = ofi_numa_node (rail->super.ifname);
    inet_ntop (AF_INET, &bound.sin_addr, ip, sizeof (ip));
    snprintf (rail->super.name, sizeof (rail->super.name), "ofi/%s %s %s", info->fabric_attr->prov_name,
              info->domain_attr->name, ip);
    return &rail->super;
}

/* libfabric 1.17 offers each interface twice (tcp and net): one rail per
 * address, from the first provider listed. */
static bool ofi_address_taken (mca_btl_rwv_rail_t **rails, int num_rails, const struct sockaddr_in *addr)
{
    for (int i = 0 ; i < num_rails ; ++i) {
        if (rails[i]->addr.ipv4 == addr->sin_addr.s_addr) {
            return true;
        }
    }
    return false;
}

int mca_btl_rwv_ofi_discover (mca_btl_rwv_rail_t **rails, int max_rails, int *num_rails, bool thread_safe)
{
    mca_btl_rwv_component_t *c = &mca_btl_rwv_component;
    char **prov_inc = c->provider_include && *c->provider_include ? opal_argv_split (c->provider_include, ',') : NULL;
    char **prov_exc = c->provider_exclude && *c->provider_exclude ? opal_argv_split (c->provider_exclude, ',') : NULL;
    char **if_inc = c->if_include && *c->if_include ? opal_argv_split (c->if_include, ',') : NULL;
    char **if_exc = c->if_exclude && *c->if_exclude ? opal_argv_split (c->if_exclude, ',') : NULL;
    struct fi_info *hints = fi_allocinfo (), *list = NULL;
    int rc;

    hints->ep_attr->type = FI_EP_MSG;
    hints->caps = FI_MSG | FI_RMA | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE;
    hints->addr_format = FI_SOCKADDR_IN;
    hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    /* the module lock serialises sends and progress, but memory registration
     * runs under the rcache's lock and may meet another thread in the provider */
    hints->domain_attr->threading = thread_safe ? FI_THREAD_SAFE : FI_THREAD_DOMAIN;
    /* Beside the native verbs rail, libfabric's own verbs provider would
     * only duplicate it, and asking it costs more than time: with a low
     * locked-memory limit it leaves a thread behind that crashes the
     * process once the component is unloaded at finalize.  So under auto,
     * unless providers were named, only tcp is asked. */
    if (MCA_BTL_RWV_BACKEND_AUTO == c->backend && RWV_HAVE_VERBS && NULL == prov_inc) {
        hints->fabric_attr->prov_name = strdup ("tcp");
    }
    rc = fi_getinfo (RWV_OFI_API, NULL, NULL, 0, hints, &list);
    fi_freeinfo (hints);

    for (struct fi_info *info = (0 == rc ? list : NULL) ; info && *num_rails < max_rails ; info = info->next) {
        mca_btl_rwv_rail_t *rail;

        if (!ofi_wanted (info, prov_inc, prov_exc, if_inc, if_exc) ||
            ofi_address_taken (rails, *num_rails, (const struct sockaddr_in *) info->src_addr)) {
            continue;
        }
        rail = ofi_rail_open (info, *num_rails);
        if (NULL != rail) {
            rails[(*num_rails)++] = rail;
        }
    }
    if (list) {
        fi_freeinfo (list);
    }
    ofi_report_unmatched (if_inc, rails, *num_rails);
    opal_argv_free (prov_inc);
    opal_argv_free (prov_exc);
    opal_argv_free (if_inc);
    opal_argv_free (if_exc);
    return OPAL_SUCCESS;
}
