/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/* Peers: lookup, modex and the rails that reach them (btl_rwv_peer.c). */
#ifndef MCA_BTL_RWV_PEER_H
#define MCA_BTL_RWV_PEER_H

#include "btl_rwv_endpoint.h"

BEGIN_C_DECLS

/* the peer of PROC, made from its modex if CREATE and unknown; NULL if
 * no rail reaches it */
mca_btl_rwv_endpoint_t *mca_btl_rwv_endpoint_lookup (opal_proc_t *proc,
                                                     bool create);
/* the peer's rail on the same network as our RAIL, in the first family
 * btl_rwv_ip_family allows that both have there (into *FAMILY unless
 * NULL); -1 if none */
int mca_btl_rwv_peer_rail_for (const mca_btl_rwv_endpoint_t *endpoint, const mca_btl_rwv_rail_t *rail,
                               int *family);
/* Could another rail still carry traffic to this peer? */
int mca_btl_rwv_endpoint_live_rails (const mca_btl_rwv_endpoint_t *endpoint, const mca_btl_rwv_conn_t *except);
static inline bool mca_btl_rwv_endpoint_has_live_rail (const mca_btl_rwv_endpoint_t *endpoint,
                                                       const mca_btl_rwv_conn_t *except)
{
    return mca_btl_rwv_endpoint_live_rails (endpoint, except) > 0;
}

END_C_DECLS

#endif /* MCA_BTL_RWV_PEER_H */
