/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * What the rail backends share: the btl_rwv_if_include/exclude syntax
 * (btl_tcp's: interface names or CIDR networks), the text of a rail's
 * addresses, and sysfs reads.
 * Layer: helpers (docs/layout.md).
 */
#include "opal_config.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btl_rwv.h"
#include "btl_rwv_rail.h"

/* Does one entry of btl_tcp's syntax (an interface name, or a CIDR network
 * of either family) match the interface or, for a network, its address? */
bool mca_btl_rwv_if_entry_matches (const char *entry, const char *ifname, const mca_btl_rwv_ip_t *addr)
{
    mca_btl_rwv_ip_t net;
    int bits;

    if (NULL == strchr (entry, '/')) {
        return 0 == strcmp (entry, ifname);
    }
    return mca_btl_rwv_cidr_parse (entry, &net, &bits) && mca_btl_rwv_ip_same_net (&net, addr, bits);
}

bool mca_btl_rwv_if_listed (char **list, const char *ifname, const mca_btl_rwv_ip_t *addr)
{
    for (int i = 0 ; list && list[i] ; ++i) {
        if (mca_btl_rwv_if_entry_matches (list[i], ifname, addr)) {
            return true;
        }
    }
    return false;
}

bool mca_btl_rwv_if_named (char **list, const char *ifname)
{
    for (int i = 0 ; list && list[i] ; ++i) {
        if (0 == strcmp (list[i], ifname)) {
            return true;
        }
    }
    return false;
}

const char *mca_btl_rwv_rail_addr_text (const mca_btl_rwv_rail_addr_t *addr, char *buf, size_t len)
{
    size_t used = 0;

    buf[0] = '\0';
    for (int f = 0 ; f < MCA_BTL_RWV_FAMILIES && used < len ; ++f) {
        char ip[MCA_BTL_RWV_IP_STRLEN];

        if (0 != addr->port[f]) {
            mca_btl_rwv_ip_ntop (&addr->ip[f], ip, sizeof (ip));
            used += (size_t) snprintf (buf + used, len - used, "%s%s port %u", used ? " and " : "", ip,
                                       (unsigned) ntohs (addr->port[f]));
        }
    }
    return buf;
}

const char *mca_btl_rwv_rail_addr_nets (const mca_btl_rwv_rail_addr_t *addr, char *buf, size_t len)
{
    size_t used = strlen (buf);

    for (int f = 0 ; f < MCA_BTL_RWV_FAMILIES && used < len ; ++f) {
        char ip[MCA_BTL_RWV_IP_STRLEN];

        if (0 != addr->port[f]) {
            mca_btl_rwv_ip_ntop (&addr->ip[f], ip, sizeof (ip));
            used += (size_t) snprintf (buf + used, len - used, "%s%s/%u", used ? ", " : "", ip,
                                       (unsigned) addr->prefix_len[f]);
        }
    }
    return buf;
}

/* The families btl_rwv_ip_family lets a rail use, first choice first;
 * returns how many. */
int mca_btl_rwv_family_order (int order[MCA_BTL_RWV_FAMILIES])
{
    switch (mca_btl_rwv_component.ip_family) {
    case MCA_BTL_RWV_IP_FAMILY_IPV4:
        order[0] = MCA_BTL_RWV_IPV4;
        return 1;
    case MCA_BTL_RWV_IP_FAMILY_IPV6:
        order[0] = MCA_BTL_RWV_IPV6;
        return 1;
    case MCA_BTL_RWV_IP_FAMILY_PREFER_IPV6:
        order[0] = MCA_BTL_RWV_IPV6;
        order[1] = MCA_BTL_RWV_IPV4;
        return 2;
    default:
        order[0] = MCA_BTL_RWV_IPV4;
        order[1] = MCA_BTL_RWV_IPV6;
        return 2;
    }
}

int mca_btl_rwv_sysfs_int (const char *path, int fallback)
{
    FILE *f = fopen (path, "r");
    int value = fallback;

    if (NULL != f) {
        if (1 != fscanf (f, "%d", &value)) {
            value = fallback;
        }
        fclose (f);
    }
    return value;
}

bool mca_btl_rwv_sysfs_word_starts (const char *path, const char *prefix)
{
    FILE *f = fopen (path, "r");
    char value[64];
    bool match = false;

    if (NULL != f) {
        match = 1 == fscanf (f, "%63s", value) && 0 == strncmp (value, prefix, strlen (prefix));
        fclose (f);
    }
    return match;
}
