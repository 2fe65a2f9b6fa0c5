/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Waiting on a flag (coll_rdmabar.h): a shared-memory flag another core
 * writes, or a slot a node leader's RDMA write fills.
 * Layer: helpers (docs/layout.md).
 */
#include "ompi_config.h"

#include <sched.h>

#include "opal/runtime/opal_progress.h"
#include "opal/sys/atomic.h"

#include "coll_rdmabar.h"

/* A flag is waited on for exactly this barrier's number, never "at least":
 * its writer cannot write the next number meant for it before this rank
 * has seen this one (that needs this rank in the next barrier), and an
 * RDMA-written slot may be stored byte by byte by a kernel copy running on
 * another thread (libfabric 2.x's tcp provider progresses from rwv's
 * connection thread too), so a mix of old and new bytes can read as
 * larger than either, but never as the new number until it is whole. */

/* More ranks than cores (mpi_yield_when_idle): give the core away on every
 * look.  A shared-memory flag needs no progress to change, so call
 * opal_progress (which moves other traffic, and polls every BTL) only every
 * 16th look.  An RDMA-written slot changes only inside opal_progress, and
 * opal_progress would yield right after placing the write (a write is no
 * event): progress without its yield, look, and only then yield. */
static void mca_coll_rdmabar_wait_yielding (volatile uint64_t *flag, uint64_t value, bool remote)
{
    for (unsigned looks = 1 ; *flag != value ; ++looks) {
        if (remote) {
            bool yielding = opal_progress_set_yield_when_idle (false);
            opal_progress ();
            (void) opal_progress_set_yield_when_idle (yielding);
        } else if (0 == looks % 16) {
            opal_progress ();
        }
        if (*flag != value) {
            sched_yield ();
        }
    }
    opal_atomic_rmb ();
}

/* Wait on local memory.  A shared-memory flag is written by another core:
 * spin a little between calls to opal_progress, which moves other traffic
 * along (calling it on every look doubles an on-node barrier's time).  An
 * RDMA-written slot changes only inside opal_progress (a software provider
 * places the write when the target reads its socket), so there spinning
 * only delays it: progress on every look (2 nodes x 1: 10.5 -> 7.8 us).
 * With mpi_yield_when_idle (more ranks than cores) no spinning at all (see
 * above; sleeping on a futex instead of yielding measured 2-3x slower). */
void mca_coll_rdmabar_wait (volatile uint64_t *flag, uint64_t value, bool remote)
{
    if (opal_progress_yield_when_idle) {
        mca_coll_rdmabar_wait_yielding (flag, value, remote);
        return;
    }
    while (*flag != value) {
        for (int spin = 0 ; !remote && spin < 64 && *flag != value ; ++spin) {
            __builtin_ia32_pause ();
        }
        if (*flag != value) {
            opal_progress ();
        }
    }
    opal_atomic_rmb ();
}
