/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Proof of membership for connections (btl_rwv_auth.c).
 *
 * Every process draws a secret from the kernel at init and publishes it
 * only through the runtime's modex (the launcher's channel, never a
 * rail).  A connection request carries a MAC (SipHash-2-4) keyed with the ACCEPTOR's
 * secret, so only a process of this job can make one, and the acceptor
 * checks it with what it holds alone, before it creates any state.  The
 * reply carries a MAC keyed with the connector's secret and bound to the
 * request.  Both MACs cover the connection data, both process names and
 * both rail addresses (captured data replayed from another host fails),
 * and the request's attempt number, which must grow on each rail
 * (captured data replayed later fails).
 */
#ifndef MCA_BTL_RWV_AUTH_H
#define MCA_BTL_RWV_AUTH_H

#include <stdbool.h>
#include <stdint.h>

#include "opal/util/proc.h"

#include "btl_rwv_addr.h"

#define MCA_BTL_RWV_SECRET_BYTES 16 /* a SipHash key */
#define MCA_BTL_RWV_MAC_BYTES 8

struct mca_btl_rwv_cm_data_t;

/* Who speaks to whom, as the MAC covers it: the receiver's name and the
 * addresses of the sender and the receiver of the data, 128 bits of
 * either family (IPv4 as IPv4-mapped). */
typedef struct mca_btl_rwv_auth_ends_t {
    opal_process_name_t to;
    mca_btl_rwv_ip_t from;
    mca_btl_rwv_ip_t to_ip;
} mca_btl_rwv_auth_ends_t;

/* Draw this process's secret (getrandom). */
int mca_btl_rwv_auth_init (void);
const uint8_t *mca_btl_rwv_auth_secret (void);

/* Sign DATA for the receiver whose secret is KEY; BINDING is the
 * request's MAC in a reply, NULL in a request. */
void mca_btl_rwv_auth_sign (struct mca_btl_rwv_cm_data_t *data, const uint8_t *key,
                            const mca_btl_rwv_auth_ends_t *ends, const uint8_t *binding);

/* Check data meant for this process against our own secret. */
bool mca_btl_rwv_auth_check (const struct mca_btl_rwv_cm_data_t *data, const mca_btl_rwv_auth_ends_t *ends,
                             const uint8_t *binding);

#endif /* MCA_BTL_RWV_AUTH_H */
