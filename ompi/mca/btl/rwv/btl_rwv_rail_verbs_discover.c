/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Which addresses become native verbs rails (the interface of an active
 * RDMA port, with its IPv4 and IPv6 address as btl_rwv_ip_family and
 * btl_rwv_if_include/exclude allow), and opening each: its device
 * context, protection domain, completion queue, event channel and one
 * listening cm id per family.
 * Layer: transports (docs/layout.md).
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

/* Listen on IFA's address for RAIL: a cm id bound to it names the RDMA
 * device and port that hold it, which must be the rail's once it has
 * one.  The rail's address of that family is then where it listens. */
static int verbs_listen (mca_btl_rwv_verbs_rail_t *rail, const struct ifaddrs *ifa)
{
    struct sockaddr_storage bind_addr;
    struct rdma_cm_id *id;
    mca_btl_rwv_ip_t ip;
    int family, bits, rc = OPAL_ERROR;

    mca_btl_rwv_ip_from_sockaddr (ifa->ifa_addr, &ip);
    family = mca_btl_rwv_ip_family (&ip);
    mca_btl_rwv_ip_to_sockaddr (&ip, 0, if_nametoindex (ifa->ifa_name), &bind_addr);
    if (0 != rdma_create_id (rail->channel, &rail->listen_id[family], NULL, RDMA_PS_TCP)) {
        return OPAL_ERROR;
    }
    id = rail->listen_id[family];
    if (0 != rdma_bind_addr (id, (struct sockaddr *) &bind_addr) || NULL == id->verbs ||
        (NULL != rail->context && (id->verbs != rail->context || id->port_num != rail->port))) {
        goto fail;
    }
    if (NULL == rail->context) {
        struct ibv_port_attr port;

        if (0 != ibv_query_port (id->verbs, id->port_num, &port) || IBV_PORT_ACTIVE != port.state) {
            goto fail;
        }
        rail->context = id->verbs;
        rail->port = id->port_num;
        snprintf (rail->device, sizeof (rail->device), "%s", ibv_get_device_name (rail->context->device));
        rail->pd = ibv_alloc_pd (rail->context);
        if (NULL == rail->pd || OPAL_SUCCESS != (rc = mca_btl_rwv_verbs_caps (rail))) {
            goto fail;
        }
    }
    rc = OPAL_ERROR;
    if (NULL == rail->cq || 0 != rdma_listen (id, 64)) {
        goto fail;
    }
    rail->super.addr.ip[family] = ip;
    rail->super.addr.port[family] = rdma_get_src_port (id);
    bits = mca_btl_rwv_ip_prefix_of_mask (ifa->ifa_netmask);
    /* a netmask with holes (never seen) counts as the address alone */
    rail->super.addr.prefix_len[family] = (uint8_t) (bits >= 0 ? bits : MCA_BTL_RWV_IPV4 == family ? 32 : 128);
    return OPAL_SUCCESS;
fail:
    /* the rail's device stays (a rail being opened is closed whole) */
    rdma_destroy_id (id);
    rail->listen_id[family] = NULL;
    return rc;
}

/* A rail on IFA's interface, listening on its address, if an active RDMA
 * port holds it. */
static mca_btl_rwv_rail_t *verbs_rail_open (const struct ifaddrs *ifa, int index, bool *refused)
{
    mca_btl_rwv_verbs_rail_t *rail = calloc (1, sizeof (*rail));
    char text[MCA_BTL_RWV_IP_STRLEN];
    mca_btl_rwv_ip_t ip;
    int rc = OPAL_ERROR;

    if (NULL == rail) {
        return NULL;
    }
    OBJ_CONSTRUCT(&rail->dead, opal_list_t);
    OBJ_CONSTRUCT(&rail->owing, opal_list_t);
    OBJ_CONSTRUCT(&rail->owing_lock, opal_mutex_t);
    rail->super.ops = &mca_btl_rwv_verbs_ops;
    rail->channel = rdma_create_event_channel ();
    if (NULL == rail->channel || OPAL_SUCCESS != (rc = verbs_listen (rail, ifa)) ||
        0 != fcntl (rail->channel->fd, F_SETFL, fcntl (rail->channel->fd, F_GETFL) | O_NONBLOCK)) {
        /* a device rwv cannot use has been named to the user already */
        *refused |= OPAL_ERR_NOT_SUPPORTED == rc;
        mca_btl_rwv_verbs_rail_close (&rail->super);
        return NULL;
    }
    rail->super.index = index;
    rail->super.cm_fd = rail->channel->fd;
    /* the device serves reads and writes itself; peers' messages and
     * atomic requests complete receives, which the channel announces */
    rail->super.data_fd = NULL != rail->comp ? rail->comp->fd : -1;
    rail->super.addr.loopback = 0;
    rail->super.inject_size = rail->inline_bytes;
    rail->super.virt_addr = true;
    /* RDMA writes may be placed out of order: eager messages use immediate data */
    rail->super.ordered_placement = false;
    rail->super.max_batch = MCA_BTL_RWV_MAX_BATCH;
    rail->super.batch_imm = true;
    /* a flush marker: on iWARP, whose writes complete before they are
     * delivered, a read, which RDMAP answers only once the writes before it
     * are placed; on InfiniBand and RoCE a write, acknowledged once delivered */
    rail->super.reads_after_writes = rail->iwarp;
    rail->super.numa_node = verbs_numa_node (rail->device);
    snprintf (rail->super.ifname, sizeof (rail->super.ifname), "%s", ifa->ifa_name);
    mca_btl_rwv_ip_from_sockaddr (ifa->ifa_addr, &ip);
    snprintf (rail->super.name, sizeof (rail->super.name), "verbs/%s:%u %s %s", rail->device, rail->port,
              ifa->ifa_name, mca_btl_rwv_ip_ntop (&ip, text, sizeof (text)));
    return &rail->super;
}

/* IFA's address joins the verbs rail of its interface, if that has none
 * of its family yet; false if there is no such rail. */
static bool verbs_rail_join (mca_btl_rwv_rail_t **rails, int num_rails, const struct ifaddrs *ifa)
{
    char text[MCA_BTL_RWV_IP_STRLEN];
    mca_btl_rwv_ip_t ip;

    mca_btl_rwv_ip_from_sockaddr (ifa->ifa_addr, &ip);
    for (int i = 0 ; i < num_rails ; ++i) {
        mca_btl_rwv_verbs_rail_t *rail = (mca_btl_rwv_verbs_rail_t *) rails[i];
        int family = mca_btl_rwv_ip_family (&ip);
        size_t used;

        if (&mca_btl_rwv_verbs_ops != rails[i]->ops || 0 != strcmp (rails[i]->ifname, ifa->ifa_name)) {
            continue;
        }
        if (0 != rails[i]->addr.port[family]) {
            return true; /* another address of the family: one rail per interface */
        }
        mca_btl_rwv_ip_ntop (&ip, text, sizeof (text));
        used = strlen (rail->super.name);
        if (OPAL_SUCCESS == verbs_listen (rail, ifa)) {
            snprintf (rail->super.name + used, sizeof (rail->super.name) - used, " %s", text);
        } else {
            opal_output_verbose (MCA_BASE_VERBOSE_WARN, opal_btl_base_framework.framework_output,
                                 "btl/rwv: %s: cannot listen on %s too (no GID of it on the port?)",
                                 rail->super.name, text);
        }
        return true;
    }
    return false;
}

/* Locked memory: RDMA pins every registered page. */
static bool verbs_memlock_ok (void)
{
    struct rlimit limit;

    return 0 != getrlimit (RLIMIT_MEMLOCK, &limit) || RLIM_INFINITY == limit.rlim_cur ||
        limit.rlim_cur >= (rlim_t) 64 << 20;
}

/* An address of FAMILY, link-local or not as asked, that btl_rwv_if_include
 * / _exclude let verbs rails use. */
static bool verbs_if_wanted (const struct ifaddrs *ifa, int family, bool link_local)
{
    mca_btl_rwv_component_t *c = &mca_btl_rwv_component;
    mca_btl_rwv_ip_t addr;
    char **list;
    bool wanted = true;

    if (NULL == ifa->ifa_addr || NULL == ifa->ifa_netmask || (ifa->ifa_flags & IFF_LOOPBACK) ||
        !mca_btl_rwv_ip_from_sockaddr (ifa->ifa_addr, &addr) || family != mca_btl_rwv_ip_family (&addr) ||
        link_local != mca_btl_rwv_ip_is_link_local (&addr)) {
        return false;
    }
    if (NULL != c->if_include && *c->if_include) {
        list = opal_argv_split (c->if_include, ',');
        /* a link-local address only on an interface the user named */
        wanted = link_local ? mca_btl_rwv_if_named (list, ifa->ifa_name)
                            : mca_btl_rwv_if_listed (list, ifa->ifa_name, &addr);
        opal_argv_free (list);
    } else if (NULL != c->if_exclude && *c->if_exclude) {
        list = opal_argv_split (c->if_exclude, ',');
        wanted = !link_local && !mca_btl_rwv_if_listed (list, ifa->ifa_name, &addr);
        opal_argv_free (list);
    } else if (link_local) {
        wanted = false;
    }
    return wanted;
}

int mca_btl_rwv_verbs_discover (mca_btl_rwv_rail_t **rails, int max_rails, int *num_rails, bool required)
{
    struct ibv_device **devices;
    struct ifaddrs *ifas, *ifa;
    int ndev = 0, found = 0, order[MCA_BTL_RWV_FAMILIES], families;
    bool refused = false;

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
    /* the first family's addresses open the rails, the other's join those
     * of their interfaces; global addresses before link-local ones */
    families = mca_btl_rwv_family_order (order);
    for (int f = 0 ; f < families ; ++f) {
        for (int link_local = 0 ; link_local < 2 ; ++link_local) {
            for (ifa = ifas ; NULL != ifa ; ifa = ifa->ifa_next) {
                mca_btl_rwv_rail_t *rail;

                if (!verbs_if_wanted (ifa, order[f], link_local) || verbs_rail_join (rails, *num_rails, ifa) ||
                    *num_rails >= max_rails || NULL == (rail = verbs_rail_open (ifa, *num_rails, &refused))) {
                    continue;
                }
                rails[(*num_rails)++] = rail;
                ++found;
            }
        }
    }
    freeifaddrs (ifas);
    /* the user's interface lists may have left the RDMA ports out on purpose */
    if (0 == found && refused) {
        return OPAL_ERR_NOT_AVAILABLE;
    }
    if (0 == found && !(*mca_btl_rwv_component.if_include || *mca_btl_rwv_component.if_exclude)) {
        rwv_show_help ("help-mpi-btl-rwv.txt", "verbs unusable", true, OPAL_PROC_MY_HOSTNAME,
                       "RDMA devices exist, but no active port has an address of a family btl_rwv_ip_family "
                       "allows (IPv6 link-local ones count only on interfaces btl_rwv_if_include names)",
                       "Bring a port up (ibstat, rdma link) and give its network interface an IPv4 or IPv6 address");
        return OPAL_ERR_NOT_AVAILABLE;
    }
    return OPAL_SUCCESS;
}
