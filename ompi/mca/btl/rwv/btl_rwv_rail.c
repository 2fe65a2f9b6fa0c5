/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * What the rail backends share: the btl_rwv_if_include/exclude syntax
 * (btl_tcp's: interface names or CIDR networks) and sysfs reads.
 */
#include "opal_config.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btl_rwv_rail.h"

/* Does one entry of btl_tcp's syntax (an interface name or a CIDR network) match? */
bool mca_btl_rwv_if_entry_matches (const char *entry, const char *ifname, const struct sockaddr_in *addr)
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
        if (mca_btl_rwv_if_entry_matches (list[i], ifname, addr)) {
            return true;
        }
    }
    return false;
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
