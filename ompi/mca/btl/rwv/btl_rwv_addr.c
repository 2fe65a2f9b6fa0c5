/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * IP addresses of either family in one 16-byte form (btl_rwv_addr.h).
 * Kept free of Open MPI so the unit test links it alone.
 * Layer: helpers (docs/layout.md).
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btl_rwv_addr.h"

static const uint8_t v4_mapped_prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

int mca_btl_rwv_ip_family (const mca_btl_rwv_ip_t *ip)
{
    return 0 == memcmp (ip->b, v4_mapped_prefix, sizeof (v4_mapped_prefix)) ? MCA_BTL_RWV_IPV4
                                                                           : MCA_BTL_RWV_IPV6;
}

bool mca_btl_rwv_ip_from_sockaddr (const struct sockaddr *sa, mca_btl_rwv_ip_t *ip)
{
    if (AF_INET == sa->sa_family) {
        memcpy (ip->b, v4_mapped_prefix, sizeof (v4_mapped_prefix));
        memcpy (ip->b + 12, &((const struct sockaddr_in *) sa)->sin_addr, 4);
        return true;
    }
    if (AF_INET6 == sa->sa_family) {
        memcpy (ip->b, &((const struct sockaddr_in6 *) sa)->sin6_addr, 16);
        return true;
    }
    return false;
}

socklen_t mca_btl_rwv_ip_to_sockaddr (const mca_btl_rwv_ip_t *ip, uint16_t port, uint32_t scope,
                                      struct sockaddr_storage *sa)
{
    memset (sa, 0, sizeof (*sa));
    if (MCA_BTL_RWV_IPV4 == mca_btl_rwv_ip_family (ip)) {
        struct sockaddr_in *in = (struct sockaddr_in *) sa;

        in->sin_family = AF_INET;
        in->sin_port = port;
        memcpy (&in->sin_addr, ip->b + 12, 4);
        return sizeof (*in);
    }
    struct sockaddr_in6 *in6 = (struct sockaddr_in6 *) sa;

    in6->sin6_family = AF_INET6;
    in6->sin6_port = port;
    in6->sin6_scope_id = mca_btl_rwv_ip_is_link_local (ip) ? scope : 0;
    memcpy (&in6->sin6_addr, ip->b, 16);
    return sizeof (*in6);
}

bool mca_btl_rwv_ip_is_loopback (const mca_btl_rwv_ip_t *ip)
{
    static const uint8_t v6_loopback[16] = {[15] = 1};

    return MCA_BTL_RWV_IPV4 == mca_btl_rwv_ip_family (ip) ? 127 == ip->b[12]
                                                          : 0 == memcmp (ip->b, v6_loopback, 16);
}

/* fe80::/10; IPv4's 169.254/16 is an ordinary network to rwv, as to btl/tcp */
bool mca_btl_rwv_ip_is_link_local (const mca_btl_rwv_ip_t *ip)
{
    return MCA_BTL_RWV_IPV6 == mca_btl_rwv_ip_family (ip) && 0xfe == ip->b[0] && 0x80 == (ip->b[1] & 0xc0);
}

bool mca_btl_rwv_ip_equal (const mca_btl_rwv_ip_t *a, const mca_btl_rwv_ip_t *b)
{
    return 0 == memcmp (a->b, b->b, sizeof (a->b));
}

bool mca_btl_rwv_ip_same_net (const mca_btl_rwv_ip_t *a, const mca_btl_rwv_ip_t *b, int bits)
{
    int family = mca_btl_rwv_ip_family (a);

    if (family != mca_btl_rwv_ip_family (b)) {
        return false;
    }
    /* an IPv4 prefix counts after the 96 bits of the mapping */
    bits += MCA_BTL_RWV_IPV4 == family ? 96 : 0;
    bits = bits < 0 ? 0 : bits > 128 ? 128 : bits;
    for (int i = 0 ; i < 16 && bits > 0 ; ++i, bits -= 8) {
        uint8_t mask = bits >= 8 ? 0xff : (uint8_t) (0xff << (8 - bits));

        if ((a->b[i] ^ b->b[i]) & mask) {
            return false;
        }
    }
    return true;
}

int mca_btl_rwv_ip_prefix_of_mask (const struct sockaddr *mask)
{
    mca_btl_rwv_ip_t ip;
    int first = 0, bits = 0;

    if (NULL == mask || !mca_btl_rwv_ip_from_sockaddr (mask, &ip)) {
        return -1;
    }
    first = AF_INET == mask->sa_family ? 12 : 0;
    for (int i = first ; i < 16 ; ++i) {
        for (int bit = 7 ; bit >= 0 ; --bit) {
            if (!(ip.b[i] & (1u << bit))) {
                goto ones_end;
            }
            bits++;
        }
    }
ones_end:
    /* every bit after the first zero must be zero too */
    for (int i = first + bits / 8 ; i < 16 ; ++i) {
        uint8_t rest = i == first + bits / 8 ? (uint8_t) (0xff >> (bits % 8)) : 0xff;

        if (ip.b[i] & rest) {
            return -1;
        }
    }
    return bits;
}

const char *mca_btl_rwv_ip_ntop (const mca_btl_rwv_ip_t *ip, char *buf, size_t len)
{
    if (MCA_BTL_RWV_IPV4 == mca_btl_rwv_ip_family (ip)) {
        return inet_ntop (AF_INET, ip->b + 12, buf, (socklen_t) len);
    }
    return inet_ntop (AF_INET6, ip->b, buf, (socklen_t) len);
}

bool mca_btl_rwv_cidr_parse (const char *text, mca_btl_rwv_ip_t *ip, int *bits)
{
    const char *slash = strchr (text, '/');
    size_t n = slash ? (size_t) (slash - text) : strlen (text);
    char host[INET6_ADDRSTRLEN];
    struct sockaddr_storage sa = {0};
    char *end;
    long len;
    int max;

    if (n >= sizeof (host)) {
        return false;
    }
    memcpy (host, text, n);
    host[n] = '\0';
    if (1 == inet_pton (AF_INET, host, &((struct sockaddr_in *) &sa)->sin_addr)) {
        sa.ss_family = AF_INET;
        max = 32;
    } else if (1 == inet_pton (AF_INET6, host, &((struct sockaddr_in6 *) &sa)->sin6_addr)) {
        sa.ss_family = AF_INET6;
        max = 128;
    } else {
        return false;
    }
    len = max;
    if (slash) {
        len = strtol (slash + 1, &end, 10);
        if (end == slash + 1 || '\0' != *end || len < 0 || len > max) {
            return false;
        }
    }
    mca_btl_rwv_ip_from_sockaddr ((const struct sockaddr *) &sa, ip);
    *bits = (int) len;
    return true;
}
