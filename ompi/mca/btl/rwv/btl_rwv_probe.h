/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Does a peer's host still answer at the transport level (btl_rwv_probe.c)?
 * A TCP connection to the peer's listen address, opened only to ask, for
 * rails whose listener is a TCP socket of the peer's kernel (libfabric's
 * tcp provider).  A process stopped in a debugger or by SIGSTOP never
 * answers a connection request, but its kernel still completes TCP
 * handshakes on its listener; a process that died has no listener left,
 * so its kernel refuses; a host that is down or cut off answers nothing.
 * A probe that connected stays open with TCP keepalive, so a host that
 * goes away later is noticed too.  Helpers layer: no rwv state.
 */
#ifndef MCA_BTL_RWV_PROBE_H
#define MCA_BTL_RWV_PROBE_H

#include <stdint.h>

#include "btl_rwv_addr.h"

typedef enum {
    MCA_BTL_RWV_PROBE_WAITING,   /* no answer yet */
    MCA_BTL_RWV_PROBE_ANSWERED,  /* the host's kernel accepted the connection, and keeps it */
    MCA_BTL_RWV_PROBE_ALIVE,     /* the peer's process accepted it and closed it: it runs */
    MCA_BTL_RWV_PROBE_REFUSED,   /* refused or reset: nothing listens there any more */
    MCA_BTL_RWV_PROBE_SILENT,    /* unreachable, or the kept connection timed out */
} mca_btl_rwv_probe_state_t;

/* Starts a probe from LOCAL to PEER's PORT (network byte order), whose
 * keepalive gives up after about 2 x KEEPALIVE seconds of silence.
 * Returns its socket, or -1 (errno set) if none could be started. */
int mca_btl_rwv_probe_start (const mca_btl_rwv_ip_t *local, const mca_btl_rwv_ip_t *peer, uint16_t port,
                             int keepalive);
/* What the probe on FD has learnt so far; never blocks. */
mca_btl_rwv_probe_state_t mca_btl_rwv_probe_check (int fd);
/* One probe, waited for up to MS milliseconds and closed: what it
 * learnt, SILENT if nothing in time or none could be started. */
mca_btl_rwv_probe_state_t mca_btl_rwv_probe_ask (const mca_btl_rwv_ip_t *local, const mca_btl_rwv_ip_t *peer,
                                                 uint16_t port, int ms);

#endif /* MCA_BTL_RWV_PROBE_H */
