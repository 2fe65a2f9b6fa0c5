/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Proves rwv's addresses of either family (btl_rwv_addr.c): CIDR text as
 * btl_rwv_if_include takes it, accepted and refused; networks compared
 * per family, IPv4 never equal to IPv6; loopback and link-local told
 * apart; socket addresses and netmasks read and written back.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "btl_rwv_addr.h"

static int failed;

static void check (bool cond, const char *what)
{
    if (!cond) {
        printf ("# failed: %s\n", what);
        failed++;
    }
}

static mca_btl_rwv_ip_t ip_of (const char *text)
{
    mca_btl_rwv_ip_t ip = {{0}};
    int bits;

    check (mca_btl_rwv_cidr_parse (text, &ip, &bits), text);
    return ip;
}

static void cidr_checks (void)
{
    static const struct { const char *text; int bits; int family; } good[] = {
        {"198.51.100.0/24", 24, MCA_BTL_RWV_IPV4}, {"198.51.100.7", 32, MCA_BTL_RWV_IPV4},
        {"0.0.0.0/0", 0, MCA_BTL_RWV_IPV4}, {"2001:db8:1::/64", 64, MCA_BTL_RWV_IPV6},
        {"2001:db8::1", 128, MCA_BTL_RWV_IPV6}, {"::/0", 0, MCA_BTL_RWV_IPV6},
        {"::ffff:192.0.2.1/32", 32, MCA_BTL_RWV_IPV4},
    };
    static const char *bad[] = {"198.51.100.0/33", "2001:db8::/129", "r1", "198.51.100.1/", "198.51.100.1/x",
                                "/24", "198.51.100.0/24/1", "2001:db8::/-1", "", "198.51.100.256/24",
                                "0123456789012345678901234567890123456789012345678901234567890123456789/8"};
    mca_btl_rwv_ip_t ip;
    int bits;

    for (size_t i = 0 ; i < sizeof (good) / sizeof (good[0]) ; ++i) {
        bool ok = mca_btl_rwv_cidr_parse (good[i].text, &ip, &bits);

        check (ok && bits == good[i].bits && mca_btl_rwv_ip_family (&ip) == good[i].family, good[i].text);
    }
    for (size_t i = 0 ; i < sizeof (bad) / sizeof (bad[0]) ; ++i) {
        check (!mca_btl_rwv_cidr_parse (bad[i], &ip, &bits), bad[i]);
    }
    printf ("%s - IPv4 and IPv6 CIDR networks and addresses parse with their prefix lengths; "
            "malformed ones and prefixes too long for the family are refused\n", failed ? "not ok" : "ok");
}

static void network_checks (void)
{
    mca_btl_rwv_ip_t a4 = ip_of ("198.51.100.1"), b4 = ip_of ("198.51.100.2"), c4 = ip_of ("203.0.113.1");
    mca_btl_rwv_ip_t a6 = ip_of ("2001:db8:1::1"), b6 = ip_of ("2001:db8:1::2"), c6 = ip_of ("2001:db8:2::1");
    mca_btl_rwv_ip_t mapped = ip_of ("::ffff:198.51.100.1");
    int before = failed;

    check (mca_btl_rwv_ip_same_net (&a4, &b4, 24) && !mca_btl_rwv_ip_same_net (&a4, &b4, 32), "IPv4 /24 and /32");
    check (!mca_btl_rwv_ip_same_net (&a4, &c4, 24) && mca_btl_rwv_ip_same_net (&a4, &c4, 0), "IPv4 /0");
    check (mca_btl_rwv_ip_same_net (&a6, &b6, 64) && !mca_btl_rwv_ip_same_net (&a6, &c6, 64), "IPv6 /64");
    check (mca_btl_rwv_ip_same_net (&a6, &c6, 32) && mca_btl_rwv_ip_same_net (&a6, &c6, 46) &&
           !mca_btl_rwv_ip_same_net (&a6, &c6, 47), "IPv6 prefix inside a byte");
    check (!mca_btl_rwv_ip_same_net (&a4, &a6, 0) && !mca_btl_rwv_ip_same_net (&a6, &a4, 0), "families differ");
    check (mca_btl_rwv_ip_equal (&a4, &mapped), "IPv4-mapped is IPv4");
    mca_btl_rwv_ip_t lo4 = ip_of ("127.0.0.1"), lo6 = ip_of ("::1"), ll = ip_of ("fe80::1");
    mca_btl_rwv_ip_t ll_end = ip_of ("febf::1"), site = ip_of ("fec0::1"), apipa = ip_of ("169.254.1.1");

    check (mca_btl_rwv_ip_is_loopback (&lo4) && mca_btl_rwv_ip_is_loopback (&lo6) &&
           !mca_btl_rwv_ip_is_loopback (&a4) && !mca_btl_rwv_ip_is_loopback (&a6), "loopback");
    check (mca_btl_rwv_ip_is_link_local (&ll) && mca_btl_rwv_ip_is_link_local (&ll_end) &&
           !mca_btl_rwv_ip_is_link_local (&site) && !mca_btl_rwv_ip_is_link_local (&apipa), "link-local");
    printf ("%s - networks compare per family (IPv4 /24 and /32, IPv6 /32, /46, /47 and /64), never IPv4 "
            "with IPv6; loopback, link-local (fe80::/10 only) and IPv4-mapped addresses recognised\n",
            failed > before ? "not ok" : "ok");
}

static void sockaddr_checks (void)
{
    struct sockaddr_storage sa;
    struct sockaddr_in6 mapped = {.sin6_family = AF_INET6};
    mca_btl_rwv_ip_t a4 = ip_of ("192.0.2.9"), a6 = ip_of ("2001:db8::9"), ll = ip_of ("fe80::9"), back;
    char text[MCA_BTL_RWV_IP_STRLEN];
    int before = failed;

    check (sizeof (struct sockaddr_in) == mca_btl_rwv_ip_to_sockaddr (&a4, htons (4242), 7, &sa) &&
           AF_INET == sa.ss_family && htons (4242) == ((struct sockaddr_in *) &sa)->sin_port &&
           mca_btl_rwv_ip_from_sockaddr ((struct sockaddr *) &sa, &back) && mca_btl_rwv_ip_equal (&a4, &back),
           "IPv4 socket address");
    check (sizeof (struct sockaddr_in6) == mca_btl_rwv_ip_to_sockaddr (&a6, htons (4243), 7, &sa) &&
           AF_INET6 == sa.ss_family && 0 == ((struct sockaddr_in6 *) &sa)->sin6_scope_id &&
           mca_btl_rwv_ip_from_sockaddr ((struct sockaddr *) &sa, &back) && mca_btl_rwv_ip_equal (&a6, &back),
           "IPv6 socket address");
    mca_btl_rwv_ip_to_sockaddr (&ll, 0, 7, &sa);
    check (7 == ((struct sockaddr_in6 *) &sa)->sin6_scope_id, "link-local keeps its interface");
    inet_pton (AF_INET6, "::ffff:192.0.2.9", &mapped.sin6_addr);
    check (mca_btl_rwv_ip_from_sockaddr ((struct sockaddr *) &mapped, &back) && mca_btl_rwv_ip_equal (&a4, &back),
           "an IPv4-mapped source from an IPv6 socket");
    sa.ss_family = AF_UNIX;
    check (!mca_btl_rwv_ip_from_sockaddr ((struct sockaddr *) &sa, &back), "AF_UNIX refused");
    check (0 == strcmp ("192.0.2.9", mca_btl_rwv_ip_ntop (&a4, text, sizeof (text))) &&
           0 == strcmp ("2001:db8::9", mca_btl_rwv_ip_ntop (&a6, text, sizeof (text))), "text");

    static const struct { int family; const char *mask; int bits; } masks[] = {
        {AF_INET, "255.255.255.0", 24}, {AF_INET, "255.255.255.255", 32}, {AF_INET, "0.0.0.0", 0},
        {AF_INET, "255.0.255.0", -1}, {AF_INET, "255.255.254.1", -1}, {AF_INET6, "ffff:ffff:ffff:ffff::", 64},
        {AF_INET6, "ffff:ffff:fffe::", 47}, {AF_INET6, "ffff::1", -1},
    };
    for (size_t i = 0 ; i < sizeof (masks) / sizeof (masks[0]) ; ++i) {
        struct sockaddr_storage m = {.ss_family = (sa_family_t) masks[i].family};
        void *where = AF_INET == masks[i].family ? (void *) &((struct sockaddr_in *) &m)->sin_addr
                                                 : (void *) &((struct sockaddr_in6 *) &m)->sin6_addr;

        inet_pton (masks[i].family, masks[i].mask, where);
        check (masks[i].bits == mca_btl_rwv_ip_prefix_of_mask ((struct sockaddr *) &m), masks[i].mask);
    }
    printf ("%s - socket addresses of both families written and read back (ports, link-local scope, "
            "IPv4-mapped sources); netmasks give their prefix length, non-contiguous ones -1\n",
            failed > before ? "not ok" : "ok");
}

int main (void)
{
    cidr_checks ();
    network_checks ();
    sockaddr_checks ();
    return failed ? 1 : 0;
}
