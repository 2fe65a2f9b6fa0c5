/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Which libfabric provider addresses become rails (the btl_rwv_if_*,
 * btl_rwv_provider_* and btl_rwv_ip_family settings; one rail per
 * interface, listening on its address of each family), and opening and
 * closing each one: its fabric, domain, event and completion queues, and
 * listening endpoints.
 * Layer: transports (docs/layout.md).
 */
#include "opal_config.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/epoll.h>
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
            for (int f = 0 ; f < MCA_BTL_RWV_FAMILIES && !found ; ++f) {
                found = 0 != rails[r]->addr.port[f] &&
                        mca_btl_rwv_if_entry_matches (if_inc[i], rails[r]->ifname, &rails[r]->addr.ip[f]);
            }
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

/* The address an fi_info listens on, of either family. */
static bool ofi_info_ip (const struct fi_info *info, mca_btl_rwv_ip_t *ip)
{
    const struct sockaddr *sa = (const struct sockaddr *) info->src_addr;

    if (NULL == sa || (FI_SOCKADDR_IN != info->addr_format && FI_SOCKADDR_IN6 != info->addr_format) ||
        info->src_addrlen < (AF_INET6 == sa->sa_family ? sizeof (struct sockaddr_in6) : sizeof (struct sockaddr_in))) {
        return false;
    }
    return mca_btl_rwv_ip_from_sockaddr (sa, ip);
}

/* The tcp provider names a fabric after its network (198.51.100.0/24). */
static int ofi_prefix_len (const struct fi_info *info, int family)
{
    const char *slash = info->fabric_attr->name ? strrchr (info->fabric_attr->name, '/') : NULL;
    int bits = slash ? atoi (slash + 1) : -1;
    int max = MCA_BTL_RWV_IPV4 == family ? 32 : 128;

    return bits >= 0 && bits <= max ? bits : MCA_BTL_RWV_IPV4 == family ? 24 : 64;
}

/* The network interface that holds INFO's address (the tcp provider names
 * its domains after interfaces, the verbs provider after devices).  A
 * link-local address names it by its scope: VLANs of one NIC share theirs. */
static bool ofi_interface_of (const struct fi_info *info, char *name, size_t len)
{
    const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *) info->src_addr;
    struct ifaddrs *list, *ifa;
    mca_btl_rwv_ip_t held, ip;
    char scoped[IF_NAMESIZE];
    bool found = false;

    if (!ofi_info_ip (info, &ip)) {
        return false;
    }
    if (mca_btl_rwv_ip_is_link_local (&ip) && 0 != sin6->sin6_scope_id &&
        NULL != if_indextoname (sin6->sin6_scope_id, scoped)) {
        snprintf (name, len, "%s", scoped);
        return true;
    }
    if (0 != getifaddrs (&list)) {
        return false;
    }
    for (ifa = list ; ifa && !found ; ifa = ifa->ifa_next) {
        if (ifa->ifa_addr && mca_btl_rwv_ip_from_sockaddr (ifa->ifa_addr, &held) &&
            mca_btl_rwv_ip_equal (&held, &ip)) {
            snprintf (name, len, "%s", ifa->ifa_name);
            found = true;
        }
    }
    freeifaddrs (list);
    return found;
}

/* Does the user want INFO's address as a rail (providers, interfaces or
 * networks, the family)? */
static bool ofi_wanted (const struct fi_info *info, int family, char **prov_inc, char **prov_exc, char **if_inc,
                        char **if_exc)
{
    const char *prov = info->fabric_attr->prov_name;
    char ifname[IF_NAMESIZE];
    mca_btl_rwv_ip_t addr;

    if (!ofi_info_ip (info, &addr) || family != mca_btl_rwv_ip_family (&addr)) {
        return false;
    }
    if ((prov_inc && !ofi_listed (prov_inc, prov)) || (prov_exc && ofi_listed (prov_exc, prov))) {
        return false;
    }
    /* the interface, as for every backend: the verbs provider's domain is the device */
    if (!ofi_interface_of (info, ifname, sizeof (ifname))) {
        snprintf (ifname, sizeof (ifname), "%s", info->domain_attr->name);
    }
    /* a link-local address means something on one link alone: only where
     * the user named the interface */
    if (mca_btl_rwv_ip_is_link_local (&addr)) {
        return mca_btl_rwv_if_named (if_inc, ifname);
    }
    if (if_inc) {
        return mca_btl_rwv_if_listed (if_inc, ifname, &addr);
    }
    return !(if_exc && mca_btl_rwv_if_listed (if_exc, ifname, &addr));
}

/* Listen on INFO's address, of FAMILY, with the rail's event queue: the
 * rail's address of that family is where the listener was bound. */
static int ofi_listen (mca_btl_rwv_ofi_rail_t *rail, const struct fi_info *info, int family)
{
    struct sockaddr_storage bound;
    size_t bound_len = sizeof (bound);
    mca_btl_rwv_ip_t ip;
    int rc;

    rail->info[family] = fi_dupinfo (info);
    rc = NULL == rail->info[family] ? -FI_ENOMEM : fi_passive_ep (rail->fabric, rail->info[family],
                                                                  &rail->pep[family], NULL);
    rc = rc ? rc : fi_pep_bind (rail->pep[family], &rail->eq->fid, 0);
    rc = rc ? rc : fi_listen (rail->pep[family]);
    rc = rc ? rc : fi_getname (&rail->pep[family]->fid, &bound, &bound_len);
    if (0 == rc && (!mca_btl_rwv_ip_from_sockaddr ((const struct sockaddr *) &bound, &ip) ||
                    family != mca_btl_rwv_ip_family (&ip))) {
        rc = -FI_EINVAL;
    }
    if (0 != rc) {
        /* nothing half-made stays: the rail may live on with its other family */
        if (rail->pep[family]) {
            (void) fi_close (&rail->pep[family]->fid);
        }
        fi_freeinfo (rail->info[family]);
        rail->pep[family] = NULL;
        rail->info[family] = NULL;
        return rc;
    }
    rail->super.addr.ip[family] = ip;
    rail->super.addr.port[family] = AF_INET == bound.ss_family ? ((const struct sockaddr_in *) &bound)->sin_port
                                                               : ((const struct sockaddr_in6 *) &bound)->sin6_port;
    rail->super.addr.prefix_len[family] = (uint8_t) ofi_prefix_len (info, family);
    return 0;
}

/* The NUMA node of the interface's device, -1 when it has none (veth, lo). */
static int ofi_numa_node (const char *ifname)
{
    char path[128];

    snprintf (path, sizeof (path), "/sys/class/net/%s/device/numa_node", ifname);
    return mca_btl_rwv_sysfs_int (path, -1);
}

/* Is bbr, which paces, the congestion control of the TCP this rail's
 * provider runs on (tcp, and net, libfabric 1.17's other name for it)?
 * Read as this process's network namespace's default, which the
 * provider's sockets take; Debian's default is cubic.  The fq queue
 * discipline paces any congestion control, and is not looked at: not
 * measured. */
static bool ofi_tcp_paced (const struct fi_info *info)
{
    return (0 == strcmp (info->fabric_attr->prov_name, "tcp") || 0 == strcmp (info->fabric_attr->prov_name, "net")) &&
        mca_btl_rwv_sysfs_word_starts ("/proc/sys/net/ipv4/tcp_congestion_control", "bbr");
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

/* Where the connection thread serves peers while the application computes
 * (btl_rwv_async_progress): an epoll set of the completion queues'
 * descriptors (mca_btl_rwv_ofi_data_sync), readable when peers' data
 * waits for the provider.  Without one, data waits for the application's
 * progress. */
static void ofi_data_open (mca_btl_rwv_ofi_rail_t *rail)
{
    rail->super.data_fd = -1;
    if (mca_btl_rwv_component.async_progress && mca_btl_rwv_component.connection_thread) {
        rail->super.data_fd = epoll_create1 (EPOLL_CLOEXEC);
    }
}

/* A batch of writes is one message of as many pieces, local and remote. */
static size_t ofi_batch_limit (const struct fi_info *info)
{
    size_t limit = MCA_BTL_RWV_MAX_BATCH;

    limit = info->tx_attr->iov_limit < limit ? info->tx_attr->iov_limit : limit;
    return info->tx_attr->rma_iov_limit < limit ? info->tx_attr->rma_iov_limit : limit;
}

static mca_btl_rwv_rail_t *ofi_rail_open (struct fi_info *info, int family, int index)
{
    mca_btl_rwv_ofi_rail_t *rail = calloc (1, sizeof (*rail));
    mca_btl_rwv_ip_t *ip;
    char text[MCA_BTL_RWV_IP_STRLEN];
    int rc;

    if (NULL == rail) {
        return NULL;
    }
    rail->ioctl_fd = -1;
    rail->super.data_fd = -1;
    mca_btl_rwv_ofi_notify_construct (rail);
    OBJ_CONSTRUCT(&rail->batches, opal_free_list_t);
    rc = opal_free_list_init (&rail->batches, sizeof (mca_btl_rwv_ofi_batch_t), opal_cache_line_size,
                              OBJ_CLASS(mca_btl_rwv_ofi_batch_t), 0, 0, 16, -1, 16, NULL, 0, NULL, NULL, NULL);
    rc = rc ? -FI_ENOMEM : fi_fabric (info->fabric_attr, &rail->fabric, NULL);
    rc = rc ? rc : fi_domain (rail->fabric, info, &rail->domain, NULL);
    rc = rc ? rc : ofi_eq_open (rail);
    if (0 == rc) {
        ofi_data_open (rail);
    }
    rc = rc ? rc : mca_btl_rwv_ofi_cq_open (rail, 0);
    rail->prov_key = !!(info->domain_attr->mr_mode & FI_MR_PROV_KEY);
    rail->next_key = 1;
    if (0 == rc && !mca_btl_rwv_ofi_notify_setup (rail, info)) {
        mca_btl_rwv_ofi_rail_close (&rail->super); /* it said why */
        return NULL;
    }
    rc = rc ? rc : ofi_listen (rail, info, family);
    if (0 != rc) {
        opal_output_verbose (MCA_BASE_VERBOSE_WARN, opal_btl_base_framework.framework_output,
                             "btl/rwv: %s %s: cannot open: %s", info->fabric_attr->prov_name,
                             info->domain_attr->name, fi_strerror (-rc));
        mca_btl_rwv_ofi_rail_close (&rail->super);
        return NULL;
    }

    rail->super.ops = &mca_btl_rwv_ofi_ops;
    rail->super.index = index;
    ip = &rail->super.addr.ip[family];
    rail->super.addr.loopback = mca_btl_rwv_ip_is_loopback (ip);
    rail->super.inject_size = info->tx_attr->inject_size;
    rail->super.max_batch = (int) ofi_batch_limit (info);
    rail->super.gather_max = info->domain_attr->mr_mode & FI_MR_LOCAL ? 0 : (int) info->tx_attr->iov_limit;
    rail->super.virt_addr = !!(info->domain_attr->mr_mode & FI_MR_VIRT_ADDR);
    /* tcp copies each write from the socket into memory in stream order */
    rail->super.ordered_placement = 0 == strcmp (info->fabric_attr->prov_name, "tcp");
    rail->super.reads_after_writes = NULL != info->tx_attr && (info->tx_attr->msg_order & FI_ORDER_RAW);
    if (ofi_interface_of (info, rail->super.ifname, sizeof (rail->super.ifname))) {
        rail->ioctl_fd = socket (AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    } else {
        /* no network interface holds the address: no link checks */
        snprintf (rail->super.ifname, sizeof (rail->super.ifname), "%s", info->domain_attr->name);
    }
    rail->super.numa_node = ofi_numa_node (rail->super.ifname);
    rail->super.tcp_paced = ofi_tcp_paced (info);
    /* tcp (net in libfabric 1.17) listens on a kernel TCP socket */
    rail->super.probe_tcp = 0 == strcmp (info->fabric_attr->prov_name, "tcp") ||
        0 == strcmp (info->fabric_attr->prov_name, "net");
    /* libfabric 2.x's tcp says FI_PROGRESS_AUTO, and still reads its sockets in the caller's calls */
    rail->super.lands_in_poll = FI_PROGRESS_MANUAL == info->domain_attr->data_progress || rail->super.probe_tcp;
    snprintf (rail->super.name, sizeof (rail->super.name), "ofi/%s %s %s", info->fabric_attr->prov_name,
              info->domain_attr->name, mca_btl_rwv_ip_ntop (ip, text, sizeof (text)));
    return &rail->super;
}

/* libfabric 1.17 offers each interface twice (tcp and net): one rail per
 * address, from the first provider listed. */
static bool ofi_address_taken (mca_btl_rwv_rail_t **rails, int num_rails, const mca_btl_rwv_ip_t *ip)
{
    for (int i = 0 ; i < num_rails ; ++i) {
        for (int f = 0 ; f < MCA_BTL_RWV_FAMILIES ; ++f) {
            if (0 != rails[i]->addr.port[f] && mca_btl_rwv_ip_equal (&rails[i]->addr.ip[f], ip)) {
                return true;
            }
        }
    }
    return false;
}

/* The rail, of any backend, on the interface holding INFO's address: an
 * interface is one rail, whatever its families and addresses. */
static mca_btl_rwv_rail_t *ofi_rail_of_interface (mca_btl_rwv_rail_t **rails, int num_rails,
                                                  const struct fi_info *info)
{
    char ifname[sizeof (rails[0]->ifname)];

    if (!ofi_interface_of (info, ifname, sizeof (ifname))) {
        return NULL;
    }
    for (int i = 0 ; i < num_rails ; ++i) {
        if (0 == strcmp (rails[i]->ifname, ifname)) {
            return rails[i];
        }
    }
    return NULL;
}

/* Can INFO's address of FAMILY join RAIL: a libfabric rail of the same
 * provider with no address of that family yet? */
static bool ofi_may_join (const mca_btl_rwv_rail_t *rail, const struct fi_info *info, int family)
{
    const mca_btl_rwv_ofi_rail_t *ofi = (const mca_btl_rwv_ofi_rail_t *) rail;
    const struct fi_info *any = NULL;

    if (&mca_btl_rwv_ofi_ops != rail->ops || 0 != rail->addr.port[family]) {
        return false;
    }
    any = ofi->info[MCA_BTL_RWV_IPV4] ? ofi->info[MCA_BTL_RWV_IPV4] : ofi->info[MCA_BTL_RWV_IPV6];
    return NULL != any && 0 == strcmp (any->fabric_attr->prov_name, info->fabric_attr->prov_name);
}

/* INFO's address joins the rail of its interface if that has none of its
 * family yet, or opens the interface's rail. */
static void ofi_take (struct fi_info *info, int family, mca_btl_rwv_rail_t **rails, int max_rails, int *num_rails)
{
    mca_btl_rwv_ip_t ip;
    mca_btl_rwv_rail_t *rail, *opened;
    char text[MCA_BTL_RWV_IP_STRLEN];
    size_t used;
    int rc;

    ofi_info_ip (info, &ip);
    /* a link-local address may be on several interfaces: its own decides */
    if (!mca_btl_rwv_ip_is_link_local (&ip) && ofi_address_taken (rails, *num_rails, &ip)) {
        return;
    }
    rail = ofi_rail_of_interface (rails, *num_rails, info);
    if (NULL == rail) {
        if (*num_rails < max_rails && NULL != (opened = ofi_rail_open (info, family, *num_rails))) {
            rails[(*num_rails)++] = opened;
        }
        return;
    }
    if (!ofi_may_join (rail, info, family)) {
        return; /* another address of the family, another provider, or a verbs rail's interface:
                 * one rail per interface */
    }
    if (0 != (rc = ofi_listen ((mca_btl_rwv_ofi_rail_t *) rail, info, family))) {
        opal_output_verbose (MCA_BASE_VERBOSE_WARN, opal_btl_base_framework.framework_output,
                             "btl/rwv: %s: cannot listen on %s too: %s", rail->name,
                             mca_btl_rwv_ip_ntop (&ip, text, sizeof (text)), fi_strerror (-rc));
        return;
    }
    used = strlen (rail->name);
    snprintf (rail->name + used, sizeof (rail->name) - used, " %s", mca_btl_rwv_ip_ntop (&ip, text, sizeof (text)));
}

/* Before libfabric's first call in the process:
 *  - rwv caches registrations itself (btl_rwv_rcache).  A cache inside
 *    libfabric below it keeps what rwv released, and its verbs provider
 *    then served memory unmapped and mapped again at the same address
 *    with the old registration (wrong bytes, the semantics test on
 *    siw0).  So libfabric caches none, unless the user says otherwise;
 *    it reads this once, when first called.
 *  - providers may start threads that live until libfabric's destructor
 *    at exit (the verbs provider's memory monitor).  Were this component,
 *    libfabric's last user, unloaded at finalize while they run, they
 *    would return into unmapped code.  So libfabric stays loaded. */
static void ofi_prepare_library (void)
{
    Dl_info where;

    (void) setenv ("FI_MR_CACHE_MAX_COUNT", "0", 0);
    if (0 != dladdr ((void *) fi_getinfo, &where) && NULL != where.dli_fname) {
        (void) dlopen (where.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
    }
}

int mca_btl_rwv_ofi_discover (mca_btl_rwv_rail_t **rails, int max_rails, int *num_rails, bool thread_safe)
{
    mca_btl_rwv_component_t *c = &mca_btl_rwv_component;
    char **prov_inc = c->provider_include && *c->provider_include ? opal_argv_split (c->provider_include, ',') : NULL;
    char **prov_exc = c->provider_exclude && *c->provider_exclude ? opal_argv_split (c->provider_exclude, ',') : NULL;
    char **if_inc = c->if_include && *c->if_include ? opal_argv_split (c->if_include, ',') : NULL;
    char **if_exc = c->if_exclude && *c->if_exclude ? opal_argv_split (c->if_exclude, ',') : NULL;
    struct fi_info *hints = fi_allocinfo (), *list = NULL;
    int rc, order[MCA_BTL_RWV_FAMILIES], families;

    hints->ep_attr->type = FI_EP_MSG;
    hints->caps = FI_MSG | FI_RMA | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE;
    hints->addr_format = FI_FORMAT_UNSPEC;
    hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    /* the module lock serialises sends and progress, but memory registration
     * runs under the rcache's lock and may meet another thread in the provider */
    hints->domain_attr->threading = thread_safe ? FI_THREAD_SAFE : FI_THREAD_DOMAIN;
    /* Beside the native verbs rail, libfabric's own verbs provider would
     * only duplicate it, and asking it costs time and threads.  So under
     * auto, unless providers were named, only tcp is asked. */
    if (MCA_BTL_RWV_BACKEND_AUTO == c->backend && RWV_HAVE_VERBS && NULL == prov_inc) {
        hints->fabric_attr->prov_name = strdup ("tcp");
    }
    ofi_prepare_library ();
    rc = fi_getinfo (RWV_OFI_API, NULL, NULL, 0, hints, &list);
    fi_freeinfo (hints);

    /* the first family's addresses open the rails, the other's join them;
     * an interface's global address before its link-local one */
    families = mca_btl_rwv_family_order (order);
    for (int f = 0 ; f < families ; ++f) {
        for (int link_local = 0 ; link_local < 2 ; ++link_local) {
            for (struct fi_info *info = (0 == rc ? list : NULL) ; info ; info = info->next) {
                mca_btl_rwv_ip_t ip;

                if (ofi_wanted (info, order[f], prov_inc, prov_exc, if_inc, if_exc) && ofi_info_ip (info, &ip) &&
                    link_local == mca_btl_rwv_ip_is_link_local (&ip)) {
                    ofi_take (info, order[f], rails, max_rails, num_rails);
                }
            }
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

void mca_btl_rwv_ofi_rail_close (mca_btl_rwv_rail_t *r)
{
    mca_btl_rwv_ofi_rail_t *rail = (mca_btl_rwv_ofi_rail_t *) r;

    OBJ_DESTRUCT(&rail->batches);
    for (int f = 0 ; f < MCA_BTL_RWV_FAMILIES ; ++f) {
        if (rail->pep[f]) {
            (void) fi_close (&rail->pep[f]->fid);
        }
        fi_freeinfo (rail->info[f]);
    }
    mca_btl_rwv_ofi_close_abandoned (rail);
    for (int slot = 0 ; slot < RWV_OFI_MAX_CQS ; ++slot) {
        if (rail->cqs[slot].cq) {
            mca_btl_rwv_ofi_cq_close (rail, slot);
        }
    }
    mca_btl_rwv_ofi_notify_destruct (rail);
    if (rail->super.data_fd >= 0) {
        close (rail->super.data_fd);
    }
    free (rail->wait_fds);
    if (rail->eq) {
        (void) fi_close (&rail->eq->fid);
    }
    if (rail->domain) {
        (void) fi_close (&rail->domain->fid);
    }
    if (rail->fabric) {
        (void) fi_close (&rail->fabric->fid);
    }
    if (rail->ioctl_fd >= 0) {
        close (rail->ioctl_fd);
    }
    free (rail);
}
