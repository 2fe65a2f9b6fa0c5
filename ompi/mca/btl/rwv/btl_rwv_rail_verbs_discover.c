/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Which addresses become native verbs rails (an IPv4 address of an active
 * RDMA port, filtered by btl_rwv_if_include/exclude), and opening each:
 * its device context, protection domain, completion queue, event channel
 * and listening cm id.
 */
#include "opal_config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "opal/mca/btl/base/base.h"
#include "opal/util/argv.h"
#include "opal/util/output.h"
#include "opal/util/show_help.h"

#include "btl_rwv.h"
#include "btl_rwv_endpoint.h"
#include "btl_rwv_rail.h"
#include "btl_rwv_rail_verbs.h"

/* The device's NUMA node, from sysfs; -1 when unknown (rxe has none). */
static int verbs_numa_node (const char *device)
{
    char path[160];

    snprintf (path, sizeof (path), "/sys/class/infiniband/%s/device/numa_node", device);
    return mca_btl_rwv_sysfs_int (path, -1);
}

/* A rail listening on `addr' if an active RDMA port holds it: binding a cm
 * id to the address names the device and port. */
static mca_btl_rwv_rail_t *verbs_rail_open (const struct ifaddrs *ifa, int index)
{
    const struct sockaddr_in *addr = (const struct sockaddr_in *) ifa->ifa_addr;
    mca_btl_rwv_verbs_rail_t *rail = calloc (1, sizeof (*rail));
    struct sockaddr_in bind_addr = *addr;
    struct ibv_port_attr port;
    char text[MCA_BTL_RWV_IP_STRLEN];
    mca_btl_rwv_ip_t ip;
    int family;

    if (NULL == rail) {
        return NULL;
    }
    OBJ_CONSTRUCT(&rail->dead, opal_list_t);
    rail->super.ops = &mca_btl_rwv_verbs_ops;
    bind_addr.sin_port = 0;
    rail->channel = rdma_create_event_channel ();
    if (NULL == rail->channel || 0 != rdma_create_id (rail->channel, &rail->listen_id, NULL, RDMA_PS_TCP) ||
        0 != rdma_bind_addr (rail->listen_id, (struct sockaddr *) &bind_addr) || NULL == rail->listen_id->verbs ||
        0 != ibv_query_port (rail->listen_id->verbs, rail->listen_id->port_num, &port) ||
        IBV_PORT_ACTIVE != port.state) {
        mca_btl_rwv_verbs_rail_close (&rail->super);
        return NULL;
    }
    rail->context = rail->listen_id->verbs;
    rail->port = rail->listen_id->port_num;
    snprintf (rail->device, sizeof (rail->device), "%s", ibv_get_device_name (rail->context->device));
    rail->pd = ibv_alloc_pd (rail->context);
    rail->cq = rail->pd ? ibv_create_cq (rail->context, MCA_BTL_RWV_VERBS_CQ_DEPTH, NULL, NULL, 0) : NULL;
    if (NULL == rail->cq || 0 != rdma_listen (rail->listen_id, 64) ||
        0 != fcntl (rail->channel->fd, F_SETFL, fcntl (rail->channel->fd, F_GETFL) | O_NONBLOCK)) {
        mca_btl_rwv_verbs_rail_close (&rail->super);
        return NULL;
    }
    rail->super.index = index;
    rail->super.cm_fd = rail->channel->fd;
    mca_btl_rwv_ip_from_sockaddr (ifa->ifa_addr, &ip);
    family = mca_btl_rwv_ip_family (&ip);
    rail->super.addr.ip[family] = ip;
    rail->super.addr.port[family] = rdma_get_src_port (rail->listen_id);
    rail->super.addr.prefix_len[family] = (uint8_t) mca_btl_rwv_ip_prefix_of_mask (ifa->ifa_netmask);
    rail->super.addr.loopback = 0;
    rail->super.inject_size = MCA_BTL_RWV_VERBS_INLINE;
    rail->super.virt_addr = true;
    /* RDMA writes may be placed out of order: eager messages use immediate data */
    rail->super.ordered_placement = false;
    rail->super.max_batch = MCA_BTL_RWV_MAX_BATCH;
    rail->super.batch_imm = true;
    rail->super.reads_after_writes = false;
    rail->super.numa_node = verbs_numa_node (rail->device);
    snprintf (rail->super.ifname, sizeof (rail->super.ifname), "%s", ifa->ifa_name);
    snprintf (rail->super.name, sizeof (rail->super.name), "verbs/%s:%u %s %s", rail->device, rail->port,
              ifa->ifa_name, mca_btl_rwv_ip_ntop (&ip, text, sizeof (text)));
    return &rail->super;
}

/* Locked memory: RDMA pins every registered page. */
static bool verbs_memlock_ok (void)
{
    struct rlimit limit;

    return 0 != getrlimit (RLIMIT_MEMLOCK, &limit) || RLIM_INFINITY == limit.rlim_cur ||
        limit.rlim_cur >= (rlim_t) 64 << 20;
}

/* btl_rwv_if_include / _exclude apply to verbs rails too. */
static bool verbs_if_wanted (const struct ifaddrs *ifa)
{
    mca_btl_rwv_component_t *c = &mca_btl_rwv_component;
    mca_btl_rwv_ip_t addr;
    char **list;
    bool wanted = true;

    if (!mca_btl_rwv_ip_from_sockaddr (ifa->ifa_addr, &addr)) {
        return false;
    }
    if (NULL != c->if_include && *c->if_include) {
        list = opal_argv_split (c->if_include, ',');
        wanted = mca_btl_rwv_if_listed (list, ifa->ifa_name, &addr);
        opal_argv_free (list);
    } else if (NULL != c->if_exclude && *c->if_exclude) {
        list = opal_argv_split (c->if_exclude, ',');
        wanted = !mca_btl_rwv_if_listed (list, ifa->ifa_name, &addr);
        opal_argv_free (list);
    }
    return wanted;
}

int mca_btl_rwv_verbs_discover (mca_btl_rwv_rail_t **rails, int max_rails, int *num_rails, bool required)
{
    struct ibv_device **devices;
    struct ifaddrs *ifas, *ifa;
    int ndev = 0, found = 0;

    devices = ibv_get_device_list (&ndev);
    if (NULL != devices) {
        ibv_free_device_list (devices);
    }
    if (0 == ndev) {
        if (!required) {
            return OPAL_SUCCESS; /* the common case under auto: nothing to say */
        }
        rwv_show_help ("help-mpi-btl-rwv.txt", "verbs unusable", true, OPAL_PROC_MY_HOSTNAME,
                       "no RDMA device was found (ibv_get_device_list)",
                       "Load the driver of the RDMA NIC, or rdma_rxe for soft-RoCE, or use btl_rwv_backend ofi");
        return OPAL_ERR_NOT_AVAILABLE;
    }
    if (!verbs_memlock_ok ()) {
        rwv_show_help ("help-mpi-btl-rwv.txt", "verbs unusable", true, OPAL_PROC_MY_HOSTNAME,
                       "the locked-memory limit (ulimit -l) is below 64 MiB",
                       "Raise it (ulimit -l unlimited, or memlock in /etc/security/limits.conf)");
        return OPAL_ERR_NOT_AVAILABLE;
    }
    if (0 != getifaddrs (&ifas)) {
        return OPAL_ERROR;
    }
    for (ifa = ifas ; NULL != ifa && *num_rails < max_rails ; ifa = ifa->ifa_next) {
        mca_btl_rwv_rail_t *rail;

        if (NULL == ifa->ifa_addr || AF_INET != ifa->ifa_addr->sa_family || (ifa->ifa_flags & IFF_LOOPBACK) ||
            NULL == ifa->ifa_netmask || !verbs_if_wanted (ifa)) {
            continue;
        }
        rail = verbs_rail_open (ifa, *num_rails);
        if (NULL != rail) {
            rails[(*num_rails)++] = rail;
            ++found;
        }
    }
    freeifaddrs (ifas);
    /* the user's interface lists may have left the RDMA ports out on purpose */
    if (0 == found && !(*mca_btl_rwv_component.if_include || *mca_btl_rwv_component.if_exclude)) {
        rwv_show_help ("help-mpi-btl-rwv.txt", "verbs unusable", true, OPAL_PROC_MY_HOSTNAME,
                       "RDMA devices exist, but no active port has an IPv4 address",
                       "Bring a port up (ibstat, rdma link) and give its network interface an IPv4 address");
        return OPAL_ERR_NOT_AVAILABLE;
    }
    return OPAL_SUCCESS;
}
