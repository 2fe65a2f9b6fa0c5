/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * IP addresses of either family in one form (btl_rwv_addr.c): 16 bytes,
 * an IPv4 address IPv4-mapped (::ffff:a.b.c.d), so rails, the modex, the
 * connection proof and the btl_rwv_if_include/exclude lists compare
 * addresses without asking which family they are.  A prefix length
 * counts bits of the family's own address (24 for an IPv4 /24).
 */
#ifndef MCA_BTL_RWV_ADDR_H
#define MCA_BTL_RWV_ADDR_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* The families a rail may have an address in, as indexes. */
enum {
    MCA_BTL_RWV_IPV4,
    MCA_BTL_RWV_IPV6,
    MCA_BTL_RWV_FAMILIES
};

typedef struct mca_btl_rwv_ip_t {
    uint8_t b[16];
} mca_btl_rwv_ip_t;

/* Longest text of an address with its family's prefix length. */
#define MCA_BTL_RWV_IP_STRLEN (INET6_ADDRSTRLEN + 4)

/* The address of an AF_INET or AF_INET6 socket address; false for any
 * other family.  An IPv4-mapped IPv6 address is IPv4. */
bool mca_btl_rwv_ip_from_sockaddr (const struct sockaddr *sa, mca_btl_rwv_ip_t *ip);
/* The socket address of IP and PORT (network byte order) in IP's own
 * family; SCOPE names the interface of a link-local IPv6 address. */
socklen_t mca_btl_rwv_ip_to_sockaddr (const mca_btl_rwv_ip_t *ip, uint16_t port, uint32_t scope,
                                      struct sockaddr_storage *sa);
/* MCA_BTL_RWV_IPV4 or MCA_BTL_RWV_IPV6 */
int mca_btl_rwv_ip_family (const mca_btl_rwv_ip_t *ip);
bool mca_btl_rwv_ip_is_loopback (const mca_btl_rwv_ip_t *ip);
bool mca_btl_rwv_ip_is_link_local (const mca_btl_rwv_ip_t *ip);
bool mca_btl_rwv_ip_equal (const mca_btl_rwv_ip_t *a, const mca_btl_rwv_ip_t *b);
/* Are A and B in one network of BITS prefix bits (their family's)? */
bool mca_btl_rwv_ip_same_net (const mca_btl_rwv_ip_t *a, const mca_btl_rwv_ip_t *b, int bits);
/* The prefix length of a netmask socket address, -1 if not contiguous. */
int mca_btl_rwv_ip_prefix_of_mask (const struct sockaddr *mask);
/* The address as text, in its own family's notation. */
const char *mca_btl_rwv_ip_ntop (const mca_btl_rwv_ip_t *ip, char *buf, size_t len);
/* An address of either family with an optional /BITS; BITS is the whole
 * address when absent.  False (nothing written) for anything else. */
bool mca_btl_rwv_cidr_parse (const char *text, mca_btl_rwv_ip_t *ip, int *bits);

#endif /* MCA_BTL_RWV_ADDR_H */
