/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Messages too big for the peer's slot: the receiver reads them
 * (btl_rwv_fetch.c).
 */
#ifndef MCA_BTL_RWV_FETCH_H
#define MCA_BTL_RWV_FETCH_H

#include <stdbool.h>
#include <stddef.h>

#include "btl_rwv_wire.h"

struct mca_btl_rwv_conn_t;

/* Receiver, at a FETCH message HDR (already checked): once the message
 * has been read, *PAYLOAD and *LEN say where it is; until then *PAYLOAD is
 * NULL.  Returns what was wrong with the message, or NULL; a read that
 * fails fails its connection as its completion arrives. */
const char *mca_btl_rwv_fetch_poll (struct mca_btl_rwv_conn_t *conn, const mca_btl_rwv_eager_hdr_t *hdr,
                                    void **payload, size_t *len);
/* The message read has been consumed, or the connection goes: the
 * buffer is free again (a read still out is left to finish alone). */
void mca_btl_rwv_fetch_done (struct mca_btl_rwv_conn_t *conn);
void mca_btl_rwv_fetch_fini (void);

#endif /* MCA_BTL_RWV_FETCH_H */
