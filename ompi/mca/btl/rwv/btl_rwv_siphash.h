/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * SipHash-2-4 (Aumasson and Bernstein, 2012): a keyed 64-bit MAC made for
 * short messages, with a 128-bit key.  Written here from the paper, so
 * that a MAC costs a microsecond from the first one on (OpenSSL 3 spends
 * about 0.8 ms loading its providers at the first digest, on the path of
 * the first connection).  Checked against the paper's test vector by
 * test/btl/test_rwv_siphash.c.
 */
#ifndef MCA_BTL_RWV_SIPHASH_H
#define MCA_BTL_RWV_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

static inline uint64_t mca_btl_rwv_sip_rotl (uint64_t x, int b)
{
    return (x << b) | (x >> (64 - b));
}

/* Little-endian load of N <= 8 bytes. */
static inline uint64_t mca_btl_rwv_sip_load (const uint8_t *p, size_t n)
{
    uint64_t x = 0;

    for (size_t i = 0 ; i < n ; ++i) {
        x |= (uint64_t) p[i] << (8 * i);
    }
    return x;
}

static inline void mca_btl_rwv_sip_rounds (uint64_t v[4], int rounds)
{
    for (int r = 0 ; r < rounds ; ++r) {
        v[0] += v[1]; v[1] = mca_btl_rwv_sip_rotl (v[1], 13); v[1] ^= v[0]; v[0] = mca_btl_rwv_sip_rotl (v[0], 32);
        v[2] += v[3]; v[3] = mca_btl_rwv_sip_rotl (v[3], 16); v[3] ^= v[2];
        v[0] += v[3]; v[3] = mca_btl_rwv_sip_rotl (v[3], 21); v[3] ^= v[0];
        v[2] += v[1]; v[1] = mca_btl_rwv_sip_rotl (v[1], 17); v[1] ^= v[2]; v[2] = mca_btl_rwv_sip_rotl (v[2], 32);
    }
}

static inline void mca_btl_rwv_sip_absorb (uint64_t v[4], uint64_t m)
{
    v[3] ^= m;
    mca_btl_rwv_sip_rounds (v, 2);
    v[0] ^= m;
}

/* The MAC of LEN bytes at DATA under a 16-byte KEY. */
static inline uint64_t mca_btl_rwv_siphash24 (const uint8_t key[16], const void *data, size_t len)
{
    const uint8_t *p = (const uint8_t *) data;
    uint64_t k0 = mca_btl_rwv_sip_load (key, 8), k1 = mca_btl_rwv_sip_load (key + 8, 8);
    uint64_t v[4] = {k0 ^ 0x736f6d6570736575ull, k1 ^ 0x646f72616e646f6dull,
                     k0 ^ 0x6c7967656e657261ull, k1 ^ 0x7465646279746573ull};
    size_t full = len - len % 8;

    for (size_t i = 0 ; i < full ; i += 8) {
        mca_btl_rwv_sip_absorb (v, mca_btl_rwv_sip_load (p + i, 8));
    }
    mca_btl_rwv_sip_absorb (v, ((uint64_t) (len & 0xff) << 56) | mca_btl_rwv_sip_load (p + full, len % 8));
    v[2] ^= 0xff;
    mca_btl_rwv_sip_rounds (v, 4);
    return v[0] ^ v[1] ^ v[2] ^ v[3];
}

#endif /* MCA_BTL_RWV_SIPHASH_H */
