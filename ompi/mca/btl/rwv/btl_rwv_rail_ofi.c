/*
 * The libfabric rail backend: connected FI_EP_MSG endpoints (libfabric's
 * mirror of RDMA-CM).  Every provider address that offers RMA on message
 * endpoints is a rail: with the tcp provider, each IPv4 interface; with
 * verbs, each RDMA device port's address.
 *
 * Each rail has a passive endpoint listening for connection requests, one
 * event queue for connection events and one completion queue for every
 * connection's operations.
 */
#include "opal_config.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
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
#include <rdma/fi_rma.h>

#include "opal/mca/btl/base/base.h"
#include "opal/util/argv.h"
#include "opal/util/if.h"
#include "opal/util/output.h"
#include "opal/util/show_help.h"

#include "btl_rwv.h"
#include "btl_rwv_endpoint.h"
#include "btl_rwv_rail.h"

#define RWV_OFI_API FI_VERSION(1, 11)
#define RWV_OFI_CM_MAX 256

typedef struct mca_btl_rwv_ofi_rail_t {
    mca_btl_rwv_rail_t super;
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_eq *eq;
    struct fid_cq *cq;
    struct fid_pep *pep;
    uint64_t next_key;      /* keys we choose, where the provider lets us */
    bool prov_key;
    int ioctl_fd;           /* for link checks */
} mca_btl_rwv_ofi_rail_t;

/* One endpoint's context: outlives an abandoned connection attempt until
 * the provider has said its last word about it. */
typedef struct mca_btl_rwv_ofi_ep_t {
    struct fid_ep *ep;
    mca_btl_rwv_conn_t *conn;   /* NULL once abandoned */
    bool connecting;            /* an event for it is still to come */
} mca_btl_rwv_ofi_ep_t;

static const mca_btl_rwv_rail_ops_t mca_btl_rwv_ofi_ops;

static mca_btl_rwv_ofi_rail_t *ofi_rail (mca_btl_rwv_rail_t *rail)
{
    return (mca_btl_rwv_ofi_rail_t *) rail;
}

static struct fid_ep *ofi_ep (const mca_btl_rwv_conn_t *conn)
{
    return ((mca_btl_rwv_ofi_ep_t *) conn->backend)->ep;
}

static int ofi_errno_to_opal (ssize_t rc)
{
    if (-FI_EAGAIN == rc || -FI_ENOMEM == rc) {
        return OPAL_ERR_OUT_OF_RESOURCE;
    }
    return 0 == rc ? OPAL_SUCCESS : OPAL_ERROR;
}

/* ------------------------------------------------------------ endpoints */

static void ofi_ep_close (mca_btl_rwv_ofi_ep_t *oep)
{
    if (NULL != oep->ep) {
        (void) fi_close (&oep->ep->fid);
    }
    free (oep);
}

static int ofi_ep_open (mca_btl_rwv_ofi_rail_t *rail, mca_btl_rwv_conn_t *conn, struct fi_info *info)
{
    mca_btl_rwv_ofi_ep_t *oep = calloc (1, sizeof (*oep));
    int rc;

    if (NULL == oep) {
        return OPAL_ERR_OUT_OF_RESOURCE;
    }
    oep->conn = conn;
    oep->connecting = true;
    rc = fi_endpoint (rail->domain, info, &oep->ep, oep);
    if (0 == rc) {
        rc = fi_ep_bind (oep->ep, &rail->eq->fid, 0);
    }
    if (0 == rc) {
        rc = fi_ep_bind (oep->ep, &rail->cq->fid, FI_TRANSMIT | FI_RECV);
    }
    if (0 == rc) {
        rc = fi_enable (oep->ep);
    }
    if (0 != rc) {
        opal_output_verbose (MCA_BASE_VERBOSE_ERROR, opal_btl_base_framework.framework_output,
                             "btl/rwv: %s: endpoint setup failed: %s", rail->super.name, fi_strerror (-rc));
        ofi_ep_close (oep);
        return OPAL_ERROR;
    }
    conn->backend = oep;
    return OPAL_SUCCESS;
}

static int ofi_connect (mca_btl_rwv_rail_t *r, mca_btl_rwv_conn_t *conn, const void *cm, size_t cm_len)
{
    mca_btl_rwv_ofi_rail_t *rail = ofi_rail (r);
    struct sockaddr_in peer = {.sin_family = AF_INET, .sin_addr.s_addr = conn->peer_addr.ipv4,
                               .sin_port = conn->peer_addr.port};
    struct fi_info *info = fi_dupinfo (rail->info);
    int rc;

    if (NULL == info) {
        return OPAL_ERR_OUT_OF_RESOURCE;
    }
    /* leave from this rail's interface, any port */
    ((struct sockaddr_in *) info->src_addr)->sin_port = 0;
    rc = ofi_ep_open (rail, conn, info);
    fi_freeinfo (info);
    if (OPAL_SUCCESS != rc) {
        return rc;
    }
    rc = fi_connect (ofi_ep (conn), &peer, cm, cm_len);
    if (0 != rc) {
        opal_output_verbose (MCA_BASE_VERBOSE_ERROR, opal_btl_base_framework.framework_output,
                             "btl/rwv: %s: fi_connect failed: %s", r->name, fi_strerror (-rc));
        ofi_ep_close (conn->backend);
        conn->backend = NULL;
        return OPAL_ERROR;
    }
    return OPAL_SUCCESS;
}

static int ofi_accept (mca_btl_rwv_rail_t *r, mca_btl_rwv_conn_t *conn, void *request, const void *cm,
                       size_t cm_len)
{
    struct fi_info *info = (struct fi_info *) request;
    int rc = ofi_ep_open (ofi_rail (r), conn, info);

    fi_freeinfo (info);
    if (OPAL_SUCCESS != rc) {
        return rc;
    }
    rc = fi_accept (ofi_ep (conn), cm, cm_len);
    if (0 != rc) {
        ofi_ep_close (conn->backend);
        conn->backend = NULL;
        return OPAL_ERROR;
    }
    return OPAL_SUCCESS;
}

static void ofi_reject (mca_btl_rwv_rail_t *r, void *request)
{
    struct fi_info *info = (struct fi_info *) request;

    (void) fi_reject (ofi_rail (r)->pep, info->handle, NULL, 0);
    fi_freeinfo (info);
}

static void ofi_disconnect (mca_btl_rwv_conn_t *conn)
{
    mca_btl_rwv_ofi_ep_t *oep = (mca_btl_rwv_ofi_ep_t *) conn->backend;

    if (NULL == oep) {
        return;
    }
    conn->backend = NULL;
    oep->conn = NULL;
    if (oep->connecting) {
        return; /* closed when its last event arrives */
    }
    (void) fi_shutdown (oep->ep, 0);
    ofi_ep_close (oep);
}

/* ------------------------------------------------------------ data */

/* The tcp provider acknowledges a FI_DELIVERY_COMPLETE write once the
 * target has placed it. */
static ssize_t ofi_write_delivered (mca_btl_rwv_conn_t *conn, const void *buf, size_t len, void *desc,
                                    uint64_t raddr, uint64_t rkey, mca_btl_rwv_op_t *op)
{
    struct iovec iov = {.iov_base = (void *) buf, .iov_len = len};
    struct fi_rma_iov rma_iov = {.addr = raddr, .len = len, .key = rkey};
    struct fi_msg_rma msg = {.msg_iov = &iov, .desc = &desc, .iov_count = 1, .rma_iov = &rma_iov,
                             .rma_iov_count = 1, .context = op};

    return fi_writemsg (ofi_ep (conn), &msg, FI_COMPLETION | FI_DELIVERY_COMPLETE);
}

static int ofi_write (mca_btl_rwv_conn_t *conn, const void *buf, size_t len, void *desc, uint64_t raddr,
                      uint64_t rkey, bool with_imm, uint32_t imm, bool delivered, mca_btl_rwv_op_t *op)
{
    ssize_t rc;

    if (delivered && !with_imm) {
        rc = ofi_write_delivered (conn, buf, len, desc, raddr, rkey, op);
    } else if (with_imm) {
        rc = fi_writedata (ofi_ep (conn), buf, len, desc, imm, 0, raddr, rkey, op);
    } else {
        rc = fi_write (ofi_ep (conn), buf, len, desc, 0, raddr, rkey, op);
    }
    return ofi_errno_to_opal (rc);
}

static int ofi_inject_write (mca_btl_rwv_conn_t *conn, const void *buf, size_t len, uint64_t raddr,
                             uint64_t rkey, bool with_imm, uint32_t imm)
{
    ssize_t rc = with_imm ? fi_inject_writedata (ofi_ep (conn), buf, len, imm, 0, raddr, rkey)
                          : fi_inject_write (ofi_ep (conn), buf, len, 0, raddr, rkey);

    return ofi_errno_to_opal (rc);
}

static int ofi_read (mca_btl_rwv_conn_t *conn, void *buf, size_t len, void *desc, uint64_t raddr,
                     uint64_t rkey, mca_btl_rwv_op_t *op)
{
    return ofi_errno_to_opal (fi_read (ofi_ep (conn), buf, len, desc, 0, raddr, rkey, op));
}

/* ------------------------------------------------------------ memory */

static int ofi_mr_reg (mca_btl_rwv_rail_t *r, void *base, size_t len, void **mr, void **desc, uint64_t *rkey)
{
    mca_btl_rwv_ofi_rail_t *rail = ofi_rail (r);
    const uint64_t access = FI_SEND | FI_RECV | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE;
    struct fid_mr *fmr;
    int rc;

    rc = fi_mr_reg (rail->domain, base, len, access, 0, rail->prov_key ? 0 : rail->next_key++, 0, &fmr, NULL);
    if (0 != rc) {
        opal_output_verbose (MCA_BASE_VERBOSE_WARN, opal_btl_base_framework.framework_output,
                             "btl/rwv: %s: registering %zu bytes failed: %s", r->name, len, fi_strerror (-rc));
        return -FI_ENOMEM == rc || -FI_EAGAIN == rc ? OPAL_ERR_OUT_OF_RESOURCE : OPAL_ERROR;
    }
    *mr = fmr;
    *desc = fi_mr_desc (fmr);
    *rkey = fi_mr_key (fmr);
    return OPAL_SUCCESS;
}

static void ofi_mr_dereg (mca_btl_rwv_rail_t *r, void *mr)
{
    (void) fi_close (&((struct fid_mr *) mr)->fid);
}

/* ------------------------------------------------------------ progress */

/* Where a connection request came from: the provider puts the peer's
 * address in the request's dest_addr. */
static uint32_t ofi_source_ipv4 (const struct fi_info *info)
{
    const struct sockaddr_in *sin = (const struct sockaddr_in *) info->dest_addr;

    if (NULL == sin || info->dest_addrlen < sizeof (*sin) || AF_INET != sin->sin_family) {
        return 0;
    }
    return sin->sin_addr.s_addr;
}

static void ofi_cm_event (mca_btl_rwv_ofi_rail_t *rail, uint32_t event, struct fi_eq_cm_entry *entry, size_t len)
{
    size_t cm_len = len > sizeof (*entry) ? len - sizeof (*entry) : 0;
    mca_btl_rwv_ofi_ep_t *oep;

    if (FI_CONNREQ == event) {
        mca_btl_rwv_conn_request (&rail->super, entry->info, entry->data, cm_len, ofi_source_ipv4 (entry->info));
        return;
    }
    oep = (mca_btl_rwv_ofi_ep_t *) entry->fid->context;
    if (FI_CONNECTED == event) {
        oep->connecting = false;
        if (NULL == oep->conn) {
            ofi_ep_close (oep);
        } else {
            mca_btl_rwv_conn_established (oep->conn, entry->data, cm_len);
        }
    } else if (FI_SHUTDOWN == event && NULL != oep->conn) {
        mca_btl_rwv_conn_closed (oep->conn);
    }
}

static void ofi_cm_error (mca_btl_rwv_ofi_rail_t *rail)
{
    struct fi_eq_err_entry err = {0};
    mca_btl_rwv_ofi_ep_t *oep;
    char why[128];

    if (fi_eq_readerr (rail->eq, &err, 0) < 0 || NULL == err.fid || &rail->pep->fid == err.fid) {
        return;
    }
    oep = (mca_btl_rwv_ofi_ep_t *) err.fid->context;
    oep->connecting = false;
    if (NULL == oep->conn) {
        ofi_ep_close (oep);     /* an abandoned attempt, refused as expected */
        return;
    }
    /* fi_strerror's buffer may be reused before we are done with it */
    snprintf (why, sizeof (why), "%s", fi_strerror (err.err));
    if (FI_ECONNREFUSED == err.err) {
        mca_btl_rwv_conn_refused (oep->conn, why);
    } else {
        mca_btl_rwv_conn_failed (oep->conn, why);
    }
}

static int ofi_poll_connections (mca_btl_rwv_rail_t *r)
{
    mca_btl_rwv_ofi_rail_t *rail = ofi_rail (r);
    union {
        struct fi_eq_cm_entry entry;
        unsigned char bytes[sizeof (struct fi_eq_cm_entry) + RWV_OFI_CM_MAX];
    } buf;
    uint32_t event;
    ssize_t len = fi_eq_read (rail->eq, &event, &buf, sizeof (buf), 0);

    if (-FI_EAVAIL == len) {
        ofi_cm_error (rail);
        return 1;
    }
    if (len < 0) {
        return 0;
    }
    ofi_cm_event (rail, event, &buf.entry, (size_t) len);
    return 1;
}

static void ofi_cq_error (mca_btl_rwv_ofi_rail_t *rail)
{
    struct fi_cq_err_entry err = {0};

    if (fi_cq_readerr (rail->cq, &err, 0) < 0 || NULL == err.op_context) {
        return;
    }
    opal_output_verbose (MCA_BASE_VERBOSE_ERROR, opal_btl_base_framework.framework_output,
                         "btl/rwv: %s: operation failed: %s", rail->super.name, fi_strerror (err.err));
    ((mca_btl_rwv_op_t *) err.op_context)->complete (err.op_context, OPAL_ERR_UNREACH);
}

/* A queue read can cost a system call: none without connections. */
static int ofi_poll_completions (mca_btl_rwv_rail_t *r)
{
    mca_btl_rwv_ofi_rail_t *rail = ofi_rail (r);
    struct fi_cq_data_entry entries[16];
    ssize_t n = r->num_conns ? fi_cq_read (rail->cq, entries, 16) : 0;
    int count = 0;

    if (-FI_EAVAIL == n) {
        ofi_cq_error (rail);
        count = 1;
    }
    for (ssize_t i = 0 ; i < n ; ++i) {
        if (entries[i].flags & FI_REMOTE_CQ_DATA) {
            mca_btl_rwv_conn_remote_data (r, (uint32_t) entries[i].data);
        } else if (NULL != entries[i].op_context) {
            ((mca_btl_rwv_op_t *) entries[i].op_context)->complete (entries[i].op_context, OPAL_SUCCESS);
        }
    }
    return count + (n > 0 ? (int) n : 0);
}

/* Up and with carrier: a veth whose peer went down, or a NIC whose cable
 * was pulled, loses IFF_RUNNING. */
static bool ofi_link_up (mca_btl_rwv_rail_t *r)
{
    mca_btl_rwv_ofi_rail_t *rail = ofi_rail (r);
    struct ifreq ifr;

    if (r->addr.loopback || rail->ioctl_fd < 0) {
        return true;
    }
    memset (&ifr, 0, sizeof (ifr));
    snprintf (ifr.ifr_name, sizeof (ifr.ifr_name), "%.*s", (int) sizeof (ifr.ifr_name) - 1, r->ifname);
    if (ioctl (rail->ioctl_fd, SIOCGIFFLAGS, &ifr) < 0) {
        return false; /* the interface is gone */
    }
    return (ifr.ifr_flags & IFF_UP) && (ifr.ifr_flags & IFF_RUNNING);
}

static void ofi_close (mca_btl_rwv_rail_t *r)
{
    mca_btl_rwv_ofi_rail_t *rail = ofi_rail (r);

    if (rail->pep) {
        (void) fi_close (&rail->pep->fid);
    }
    if (rail->cq) {
        (void) fi_close (&rail->cq->fid);
    }
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
    fi_freeinfo (rail->info);
    free (rail);
}

static const mca_btl_rwv_rail_ops_t mca_btl_rwv_ofi_ops = {
    .connect = ofi_connect,
    .accept = ofi_accept,
    .reject = ofi_reject,
    .disconnect = ofi_disconnect,
    .write = ofi_write,
    .inject_write = ofi_inject_write,
    .read = ofi_read,
    .mr_reg = ofi_mr_reg,
    .mr_dereg = ofi_mr_dereg,
    .poll_completions = ofi_poll_completions,
    .poll_connections = ofi_poll_connections,
    .link_up = ofi_link_up,
    .close = ofi_close,
};

/* ------------------------------------------------------------ discovery */

/* Does one entry of btl_tcp's syntax (an interface name or a CIDR network) match? */
static bool ofi_if_entry_matches (const char *entry, const char *ifname, const struct sockaddr_in *addr)
{
    const char *slash = strchr (entry, '/');
    char net[64];
    struct in_addr in;
    uint32_t mask;
    size_t n;

    if (NULL == slash) {
        return 0 == strcmp (entry, ifname);
    }
    n = (size_t) (slash - entry) < sizeof (net) - 1 ? (size_t) (slash - entry) : sizeof (net) - 1;
    memcpy (net, entry, n);
    net[n] = '\0';
    mask = mca_btl_rwv_netmask (atoi (slash + 1));
    return 1 == inet_pton (AF_INET, net, &in) && (in.s_addr & mask) == (addr->sin_addr.s_addr & mask);
}

bool mca_btl_rwv_if_listed (char **list, const char *ifname, const struct sockaddr_in *addr)
{
    for (int i = 0 ; list && list[i] ; ++i) {
        if (ofi_if_entry_matches (list[i], ifname, addr)) {
            return true;
        }
    }
    return false;
}

/* btl_rwv_if_include entries that name no rail found: say so, and go on
 * with the rails found. */
static void ofi_report_unmatched (char **if_inc, mca_btl_rwv_rail_t **rails, int num_rails)
{
    for (int i = 0 ; if_inc && if_inc[i] && num_rails > 0 ; ++i) {
        bool found = false;
        char names[MCA_BTL_RWV_MAX_RAILS * 40] = "";

        for (int r = 0 ; r < num_rails && !found ; ++r) {
            struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = rails[r]->addr.ipv4};

            found = ofi_if_entry_matches (if_inc[i], rails[r]->ifname, &addr);
        }
        for (int r = 0 ; r < num_rails && !found ; ++r) {
            size_t used = strlen (names);

            snprintf (names + used, sizeof (names) - used, "%s%s", r ? ", " : "", rails[r]->ifname);
        }
        if (!found) {
            opal_show_help ("help-mpi-btl-rwv.txt", "rail not found", true, opal_proc_local_get ()->proc_hostname,
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

/* The NUMA node of the interface's device, -1 when it has none (veth, lo)
 * or the kernel does not know. */
static int ofi_numa_node (const char *ifname)
{
    char path[128];
    int node = -1;
    FILE *f;

    snprintf (path, sizeof (path), "/sys/class/net/%s/device/numa_node", ifname);
    if (NULL != (f = fopen (path, "r"))) {
        if (1 != fscanf (f, "%d", &node)) {
            node = -1;
        }
        fclose (f);
    }
    return node;
}

static mca_btl_rwv_rail_t *ofi_rail_open (struct fi_info *info, int index)
{
    mca_btl_rwv_ofi_rail_t *rail = calloc (1, sizeof (*rail));
    struct fi_eq_attr eq_attr = {.wait_obj = FI_WAIT_UNSPEC};
    struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_DATA, .size = 4096, .wait_obj = FI_WAIT_NONE};
    struct sockaddr_in bound;
    size_t bound_len = sizeof (bound);
    char ip[INET_ADDRSTRLEN];
    int rc;

    if (NULL == rail) {
        return NULL;
    }
    rail->ioctl_fd = -1;
    rail->info = fi_dupinfo (info);
    rc = fi_fabric (info->fabric_attr, &rail->fabric, NULL);
    rc = rc ? rc : fi_domain (rail->fabric, info, &rail->domain, NULL);
    rc = rc ? rc : fi_eq_open (rail->fabric, &eq_attr, &rail->eq, NULL);
    rc = rc ? rc : fi_cq_open (rail->domain, &cq_attr, &rail->cq, NULL);
    rc = rc ? rc : fi_passive_ep (rail->fabric, info, &rail->pep, NULL);
    rc = rc ? rc : fi_pep_bind (rail->pep, &rail->eq->fid, 0);
    rc = rc ? rc : fi_listen (rail->pep);
    rc = rc ? rc : fi_getname (&rail->pep->fid, &bound, &bound_len);
    if (0 != rc) {
        opal_output_verbose (MCA_BASE_VERBOSE_WARN, opal_btl_base_framework.framework_output,
                             "btl/rwv: %s %s: cannot open: %s", info->fabric_attr->prov_name,
                             info->domain_attr->name, fi_strerror (-rc));
        ofi_close (&rail->super);
        return NULL;
    }

    rail->super.ops = &mca_btl_rwv_ofi_ops;
    rail->super.index = index;
    rail->super.addr.ipv4 = bound.sin_addr.s_addr;
    rail->super.addr.port = bound.sin_port;
    rail->super.addr.prefix_len = (uint8_t) ofi_prefix_len (info);
    rail->super.addr.loopback = (ntohl (bound.sin_addr.s_addr) >> 24) == 127;
    rail->super.inject_size = info->tx_attr->inject_size;
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
