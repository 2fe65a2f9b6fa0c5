/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Put and get to a process on this node in one copy by the kernel (Linux
 * cross-memory attach, LiMIC's idea): the origin reads or writes the
 * target's memory with process_vm_readv/writev, with no rail, key or
 * target involvement.
 *
 * Why not the loopback rail: kernel TCP copies twice and needs the target
 * to progress, and the key must match the address.  osc/rdma 4.1.4 reads a
 * dynamic window's region table of a same-node peer in shared memory and
 * uses the entry after dropping the table's lock: an MPI_Win_attach at the
 * target in between shifts the table, so a put or get may arrive with the
 * key of another region, which the provider refuses by closing the
 * connection.  The address itself is right, and a copy needs nothing else.
 *
 * Trust: the peer's process id comes from the runtime (its card in the
 * modex, btl_rwv_shm.c), never from the network; the kernel lets us
 * touch only processes we may ptrace (same user, Yama permitting).  A
 * refusal turns the mechanism off and puts go over the rails as before.
 * Layer: helpers (docs/layout.md).
 */
#include "opal_config.h"

#include <errno.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include "opal/mca/btl/base/base.h"
#include "opal/util/output.h"

#include "btl_rwv.h"
#include "btl_rwv_cma.h"
#include "btl_rwv_endpoint.h"

static bool rwv_cma_refused;

bool mca_btl_rwv_cma_refused (void)
{
    return rwv_cma_refused;
}

OBJ_CLASS_INSTANCE(mca_btl_rwv_cma_handle_t, opal_free_list_item_t, NULL, NULL);

/* No right to ptrace our peers: every peer falls back to its rail. */
static void rwv_cma_refuse (int err)
{
    if (rwv_cma_refused) {
        return;
    }
    rwv_cma_refused = true;
    opal_output_verbose (MCA_BASE_VERBOSE_WARN, opal_btl_base_framework.framework_output,
                         "btl/rwv: cross-memory attach refused (%s): puts and gets to processes on "
                         "this node go over the loopback rail", strerror (err));
}

/* The kernel may move less than asked (a page boundary it could not
 * cross at once): carry on from there. */
static ssize_t rwv_cma_move (pid_t pid, bool is_put, char *local, uint64_t remote, size_t size)
{
    size_t done = 0;

    while (done < size) {
        struct iovec here = {.iov_base = local + done, .iov_len = size - done};
        struct iovec there = {.iov_base = (void *) (uintptr_t) (remote + done), .iov_len = size - done};
        ssize_t n = is_put ? process_vm_writev (pid, &here, 1, &there, 1, 0)
                           : process_vm_readv (pid, &here, 1, &there, 1, 0);

        if (n <= 0) {
            return n < 0 ? -errno : -EFAULT;
        }
        done += (size_t) n;
    }
    return (ssize_t) done;
}

int mca_btl_rwv_cma_copy (mca_btl_rwv_endpoint_t *endpoint, bool is_put, void *local_address,
                          uint64_t remote_address, size_t size)
{
    ssize_t rc = rwv_cma_move (endpoint->cma_pid, is_put, local_address, remote_address, size);

    if (rc >= 0) {
        return OPAL_SUCCESS;
    }
    if (-EPERM == rc || -ENOSYS == rc) {
        rwv_cma_refuse ((int) -rc);
        endpoint->cma_pid = 0;
        return OPAL_ERR_NOT_AVAILABLE;
    }
    opal_output_verbose (MCA_BASE_VERBOSE_ERROR, opal_btl_base_framework.framework_output,
                         "btl/rwv: %s of %zu bytes at 0x%" PRIx64 " in process %d on this node failed: %s",
                         is_put ? "put" : "get", size, remote_address, (int) endpoint->cma_pid,
                         strerror ((int) -rc));
    return OPAL_ERROR;
}

/* Asked when a peer's endpoint is made, so that memory handed over for it
 * need not be registered: a single copy that works now keeps working (the
 * kernel's ptrace rules do not change under a running job). */
bool mca_btl_rwv_cma_probe (pid_t pid, uint64_t address, uint64_t expect)
{
    uint64_t word = 0;
    ssize_t rc;

    if (rwv_cma_refused) {
        return false;
    }
    rc = rwv_cma_move (pid, false, (char *) &word, address, sizeof (word));
    if (-EPERM == rc || -ENOSYS == rc) {
        rwv_cma_refuse ((int) -rc);
    }
    return rc >= 0 && word == expect;
}

mca_btl_base_registration_handle_t *mca_btl_rwv_cma_handle (void *base)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    mca_btl_rwv_cma_handle_t *item;

    MCA_BTL_RWV_LOCK(module);
    item = (mca_btl_rwv_cma_handle_t *) mca_btl_rwv_list_get (&module->cma_handles);
    MCA_BTL_RWV_UNLOCK(module);
    if (NULL == item) {
        return NULL;
    }
    item->handle = (mca_btl_base_registration_handle_t) {.base = (uint64_t) (uintptr_t) base,
                                                          .flags = MCA_BTL_RWV_HANDLE_SINGLE_COPY};
    return &item->handle;
}

void mca_btl_rwv_cma_handle_release (mca_btl_base_registration_handle_t *handle)
{
    mca_btl_rwv_cma_handle_t *item =
        (mca_btl_rwv_cma_handle_t *) ((char *) handle - offsetof (mca_btl_rwv_cma_handle_t, handle));

    MCA_BTL_RWV_LOCK(mca_btl_rwv_component.module);
    mca_btl_rwv_list_return (&mca_btl_rwv_component.module->cma_handles, &item->super);
    MCA_BTL_RWV_UNLOCK(mca_btl_rwv_component.module);
}
