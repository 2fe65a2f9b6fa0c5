/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Proof of membership for connections: the secret and the MAC
 * (SipHash-2-4: 128-bit key, 64-bit tag, which lets a request fit the 56
 * bytes RDMA-CM carries; an online forgery needs about 2^64 tries, each a
 * connection attempt that is refused and counted).
 * Layer: helpers (docs/layout.md).
 */
#include "opal_config.h"

#include <errno.h>
#include <string.h>
#include <sys/random.h>

#include "btl_rwv.h"
#include "btl_rwv_auth.h"
#include "btl_rwv_endpoint.h"
#include "btl_rwv_siphash.h"

static uint8_t rwv_secret[MCA_BTL_RWV_SECRET_BYTES];

int mca_btl_rwv_auth_init (void)
{
    size_t got = 0;

    while (got < sizeof (rwv_secret)) {
        ssize_t n = getrandom (rwv_secret + got, sizeof (rwv_secret) - got, 0);

        if (n < 0 && EINTR != errno) {
            return OPAL_ERROR;
        }
        got += n > 0 ? (size_t) n : 0;
    }
    return OPAL_SUCCESS;
}

const uint8_t *mca_btl_rwv_auth_secret (void)
{
    return rwv_secret;
}

/* What the MAC covers: the connection data up to its MAC, then who it is
 * from and for, then the request it answers (zeros in a request). */
typedef struct rwv_auth_input_t {
    unsigned char data[offsetof (mca_btl_rwv_cm_data_t, mac)];
    mca_btl_rwv_auth_ends_t ends;
    uint8_t binding[MCA_BTL_RWV_MAC_BYTES];
} rwv_auth_input_t;

static void rwv_auth_mac (const mca_btl_rwv_cm_data_t *data, const uint8_t *key,
                          const mca_btl_rwv_auth_ends_t *ends, const uint8_t *binding, uint8_t *mac)
{
    rwv_auth_input_t input;
    uint64_t tag;

    memset (&input, 0, sizeof (input));
    memcpy (input.data, data, sizeof (input.data));
    input.ends.to = ends->to;
    input.ends.from = ends->from;
    input.ends.to_ip = ends->to_ip;
    if (NULL != binding) {
        memcpy (input.binding, binding, sizeof (input.binding));
    }
    tag = mca_btl_rwv_siphash24 (key, &input, sizeof (input));
    memcpy (mac, &tag, MCA_BTL_RWV_MAC_BYTES);
}

void mca_btl_rwv_auth_sign (mca_btl_rwv_cm_data_t *data, const uint8_t *key, const mca_btl_rwv_auth_ends_t *ends,
                            const uint8_t *binding)
{
    rwv_auth_mac (data, key, ends, binding, data->mac);
}

bool mca_btl_rwv_auth_check (const mca_btl_rwv_cm_data_t *data, const mca_btl_rwv_auth_ends_t *ends,
                             const uint8_t *binding)
{
    uint8_t mac[MCA_BTL_RWV_MAC_BYTES], diff = 0;

    rwv_auth_mac (data, rwv_secret, ends, binding, mac);
    for (size_t i = 0 ; i < sizeof (mac) ; ++i) {
        diff |= mac[i] ^ data->mac[i]; /* in constant time: no byte-by-byte guessing */
    }
    return 0 == diff;
}
