/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Eager rings shared with processes on this node: the same ring protocol,
 * where the "RDMA write" into the peer's ring is a store.
 *
 * Each process keeps the receive rings of its connections to same-node
 * peers in one anonymous shared-memory file (memfd: no name in /dev/shm,
 * nothing left behind by a crash), one slot per possible same-node peer.
 * Its card in the modex (local scope) gives its process id (for single
 * copies too) and the file's descriptor number, size and address.
 * A peer maps the file once, through /proc/PID/fd/N, which the kernel
 * allows exactly where it allows single copies (btl_rwv_cma.c: same
 * user, may ptrace); otherwise the peer keeps writing over the loopback
 * rail.  The connection handshake, its proof and the process-death
 * detection still go over the loopback rail; only the writes into the
 * ring, the credit word and the goodbye flag become stores.
 *
 * A store lands in order only if the sequence word comes last: the
 * payload and header go first, then a write barrier, then that word, so
 * the receiver's poll (which reads the word, then a read barrier) never
 * sees a message before its bytes.
 * Layer: transports (docs/layout.md).
 */
#include "opal_config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "opal/mca/btl/base/base.h"
#include "rwv_opal_compat.h"
#include "opal/sys/atomic.h"
#include "opal/util/output.h"
#include "opal/util/sys_limits.h"

#include "btl_rwv.h"
#include "btl_rwv_cma.h"
#include "btl_rwv_endpoint.h"
#include "btl_rwv_shm.h"
#include "btl_rwv_send.h"

#define RWV_SHM_KEY "btl.rwv.local"

static struct {
    unsigned char *base;   /* our rings, NULL if there is no shared file */
    size_t slot_bytes;
    uint32_t slots;
    unsigned char *used;   /* one flag per slot */
    int fd;
} rwv_shm = {.fd = -1};

static uint64_t rwv_shm_probe_word; /* our pid, read by peers' probes */

/* a large ring of this job's eager slots */
static size_t rwv_large_ring_bytes (void)
{
    return (size_t) mca_btl_rwv_ring_size ((uint64_t) mca_btl_rwv_component.eager_slots,
                                           (uint64_t) mca_btl_rwv_component.eager_slot_size);
}

static size_t rwv_shm_slot_bytes (void)
{
    size_t page = (size_t) opal_getpagesize ();

    return (rwv_large_ring_bytes () + page - 1) / page * page;
}

/* Our rings in one memfd, a slot per possible same-node peer (the
 * connection data names up to 65535); false if there is none. */
static bool rwv_shm_create (uint32_t slots)
{
    slots = slots > UINT16_MAX ? UINT16_MAX : slots;
    rwv_shm.slot_bytes = rwv_shm_slot_bytes ();
    rwv_shm.fd = memfd_create ("btl-rwv-rings", MFD_CLOEXEC);
    if (rwv_shm.fd < 0 || 0 != ftruncate (rwv_shm.fd, (off_t) (rwv_shm.slot_bytes * slots)) ||
        MAP_FAILED == (rwv_shm.base = mmap (NULL, rwv_shm.slot_bytes * slots, PROT_READ | PROT_WRITE, MAP_SHARED,
                                            rwv_shm.fd, 0)) ||
        NULL == (rwv_shm.used = calloc (slots, 1))) {
        opal_output_verbose (MCA_BASE_VERBOSE_WARN, opal_btl_base_framework.framework_output,
                             "btl/rwv: no shared rings for peers on this node (%s): they use the loopback rail",
                             strerror (errno));
        mca_btl_rwv_shm_finalize ();
        return false;
    }
    rwv_shm.slots = slots;
    return true;
}

int mca_btl_rwv_shm_init (void)
{
    uint32_t local_peers = (uint32_t) opal_process_info.num_local_peers;
    mca_btl_rwv_shm_card_t card = {.pid = (uint32_t) getpid (), .fd = -1,
                                   .probe = (uint64_t) (uintptr_t) &rwv_shm_probe_word};
    int rc;

    rwv_shm_probe_word = card.pid;
    if (MCA_BTL_RWV_SINGLE_COPY_CMA != mca_btl_rwv_component.single_copy || 0 == local_peers) {
        return OPAL_SUCCESS;
    }
    if (rwv_shm_create (local_peers)) {
        card.slots = rwv_shm.slots;
        card.fd = rwv_shm.fd;
        card.slot_bytes = rwv_shm.slot_bytes;
        card.base = (uint64_t) (uintptr_t) rwv_shm.base;
    }
    OPAL_MODEX_SEND_STRING(rc, RWV_MODEX_LOCAL, RWV_SHM_KEY, &card, sizeof (card));
    return rc;
}

pid_t mca_btl_rwv_shm_peer_card (opal_proc_t *proc, mca_btl_rwv_shm_card_t *card)
{
    uint8_t *got = NULL;
    size_t size = 0;
    int rc;

    if (MCA_BTL_RWV_SINGLE_COPY_CMA != mca_btl_rwv_component.single_copy ||
        !OPAL_PROC_ON_LOCAL_NODE(proc->proc_flags)) {
        return 0;
    }
    OPAL_MODEX_RECV_STRING(rc, RWV_SHM_KEY, &proc->proc_name, &got, &size);
    if (OPAL_SUCCESS != rc || size != sizeof (*card)) {
        free (got);
        return 0;
    }
    memcpy (card, got, sizeof (*card));
    free (got);
    return mca_btl_rwv_cma_probe ((pid_t) card->pid, card->probe, card->pid) ? (pid_t) card->pid : 0;
}

void mca_btl_rwv_shm_finalize (void)
{
    if (NULL != rwv_shm.base && MAP_FAILED != (void *) rwv_shm.base) {
        munmap (rwv_shm.base, rwv_shm.slot_bytes * (rwv_shm.slots ? rwv_shm.slots : 1));
    }
    if (rwv_shm.fd >= 0) {
        close (rwv_shm.fd);
    }
    free (rwv_shm.used);
    rwv_shm.base = NULL;
    rwv_shm.used = NULL;
    rwv_shm.fd = -1;
    rwv_shm.slots = 0;
}

unsigned char *mca_btl_rwv_shm_ring_take (const mca_btl_rwv_endpoint_t *endpoint)
{
    for (uint32_t s = 0 ; endpoint->cma_pid && s < rwv_shm.slots ; ++s) {
        if (!rwv_shm.used[s]) {
            rwv_shm.used[s] = 1;
            return rwv_shm.base + s * rwv_shm.slot_bytes;
        }
    }
    return NULL;
}

uint16_t mca_btl_rwv_ring_shm_slot (const unsigned char *ring)
{
    if (NULL == rwv_shm.base || ring < rwv_shm.base || ring >= rwv_shm.base + rwv_shm.slots * rwv_shm.slot_bytes) {
        return 0;
    }
    return (uint16_t) ((size_t) (ring - rwv_shm.base) / rwv_shm.slot_bytes + 1);
}

void mca_btl_rwv_ring_free (unsigned char *ring)
{
    uint16_t slot = mca_btl_rwv_ring_shm_slot (ring);

    if (0 != slot) {
        rwv_shm.used[slot - 1] = 0;
        return;
    }
    free (ring);
}

/* The peer's rings in our address space, mapped on first use. */
static unsigned char *rwv_shm_peer_rings (mca_btl_rwv_endpoint_t *endpoint)
{
    const mca_btl_rwv_shm_card_t *card = &endpoint->peer_card;
    char path[64];
    int fd;

    if (NULL != endpoint->peer_rings) {
        return MAP_FAILED == (void *) endpoint->peer_rings ? NULL : endpoint->peer_rings;
    }
    endpoint->peer_rings = MAP_FAILED;
    if (0 == card->slots || card->slot_bytes != rwv_shm_slot_bytes ()) {
        return NULL;
    }
    snprintf (path, sizeof (path), "/proc/%d/fd/%d", (int) endpoint->cma_pid, (int) card->fd);
    if ((fd = open (path, O_RDWR | O_CLOEXEC)) < 0) {
        opal_output_verbose (MCA_BASE_VERBOSE_WARN, opal_btl_base_framework.framework_output,
                             "btl/rwv: cannot map the rings of process %d on this node (%s): its messages "
                             "go over the loopback rail", (int) endpoint->cma_pid, strerror (errno));
        return NULL;
    }
    endpoint->peer_rings = mmap (NULL, card->slot_bytes * card->slots, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close (fd);
    return MAP_FAILED == (void *) endpoint->peer_rings ? NULL : endpoint->peer_rings;
}

void mca_btl_rwv_shm_attach (mca_btl_rwv_conn_t *conn)
{
    mca_btl_rwv_endpoint_t *endpoint = conn->endpoint;
    uint64_t ring_bytes = mca_btl_rwv_ring_size (conn->peer.slots, conn->peer.slot_size);
    unsigned char *rings;

    conn->peer.ring = NULL;
    if (0 == endpoint->cma_pid || 0 == conn->peer.shm_slot || conn->peer.notify_imm ||
        NULL == (rings = rwv_shm_peer_rings (endpoint))) {
        return;
    }
    /* never trust the peer's numbers: the whole ring must be in its slot */
    if (conn->peer.shm_slot > endpoint->peer_card.slots || ring_bytes > endpoint->peer_card.slot_bytes) {
        return;
    }
    conn->peer.ring = rings + (size_t) (conn->peer.shm_slot - 1) * endpoint->peer_card.slot_bytes;
    opal_output_verbose (MCA_BASE_VERBOSE_INFO, opal_btl_base_framework.framework_output,
                         "btl/rwv: %s: messages to process %d on this node are stores into its shared ring",
                         conn->rail->name, (int) endpoint->cma_pid);
}

void mca_btl_rwv_shm_release (mca_btl_rwv_endpoint_t *endpoint)
{
    if (NULL != endpoint->peer_rings && MAP_FAILED != (void *) endpoint->peer_rings) {
        munmap (endpoint->peer_rings, endpoint->peer_card.slot_bytes * endpoint->peer_card.slots);
    }
    endpoint->peer_rings = NULL;
}

void mca_btl_rwv_shm_store (mca_btl_rwv_conn_t *conn, const void *buf, size_t len, uint64_t raddr)
{
    unsigned char *dst = conn->peer.ring + (raddr - conn->peer.ring_raddr);

    if (len > sizeof (uint64_t)) {
        memcpy (dst, buf, len - sizeof (uint64_t));
        opal_atomic_wmb ();
    }
    *(volatile uint64_t *) (dst + len - sizeof (uint64_t)) =
        *(const uint64_t *) ((const unsigned char *) buf + len - sizeof (uint64_t));
}

void mca_btl_rwv_shm_store_gathered (mca_btl_rwv_conn_t *conn, const struct iovec *iov, int count, uint64_t raddr)
{
    for (int i = 0 ; i < count - 1 ; ++i) {
        memcpy (conn->peer.ring + (raddr - conn->peer.ring_raddr), iov[i].iov_base, iov[i].iov_len);
        raddr += iov[i].iov_len;
    }
    mca_btl_rwv_shm_store (conn, iov[count - 1].iov_base, iov[count - 1].iov_len, raddr);
}
