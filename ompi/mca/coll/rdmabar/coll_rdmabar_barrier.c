/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * The barrier: set-up of the node's shared segment, and its flags.
 * Layer: collectives (docs/layout.md).
 */
#include "ompi_config.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "opal/runtime/opal_progress.h"
#include "opal/sys/atomic.h"
#include "ompi/communicator/communicator.h"
#include "ompi/group/group.h"
#include "ompi/mca/coll/base/base.h"
#include "ompi/proc/proc.h"

#include "coll_rdmabar.h"

static volatile uint64_t *mca_coll_rdmabar_line (const mca_coll_rdmabar_module_t *module, int index)
{
    return (volatile uint64_t *) (module->segment + (size_t) index * MCA_COLL_RDMABAR_LINE);
}

static volatile uint64_t *mca_coll_rdmabar_release (const mca_coll_rdmabar_module_t *module)
{
    return mca_coll_rdmabar_line (module, module->local_size);
}

/* Where this rank sits among the communicator's ranks on its node, and
 * which world process leads the node. */
static void mca_coll_rdmabar_locate (mca_coll_rdmabar_module_t *module, struct ompi_communicator_t *comm,
                                     opal_process_name_t *leader, int *leader_rank)
{
    int me = ompi_comm_rank (comm), size = ompi_comm_size (comm);

    module->local_rank = 0;
    module->local_size = 0;
    for (int r = 0 ; r < size ; ++r) {
        ompi_proc_t *proc = ompi_group_peer_lookup (comm->c_local_group, r);

        if (r != me && !OPAL_PROC_ON_LOCAL_NODE(proc->super.proc_flags)) {
            continue;
        }
        if (0 == module->local_size) {
            *leader = proc->super.proc_name;
            *leader_rank = r;
        }
        module->local_rank += r < me;
        module->local_size++;
    }
}

static void *mca_coll_rdmabar_map (const char *name, size_t size, bool create)
{
    int fd = shm_open (name, O_RDWR | (create ? O_CREAT | O_EXCL : 0), 0600);
    void *seg;

    if (fd < 0 && create && EEXIST == errno) {
        (void) shm_unlink (name); /* left by a job that died */
        fd = shm_open (name, O_RDWR | O_CREAT | O_EXCL, 0600);
    }
    if (fd < 0) {
        return NULL;
    }
    if (create && 0 != ftruncate (fd, (off_t) size)) {
        close (fd);
        return NULL;
    }
    seg = mmap (NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close (fd);
    return MAP_FAILED == seg ? NULL : seg;
}

/* Build the node's segment, using the barrier below to order the steps:
 * the leader creates it, the others map it, the leader removes its name.
 * Every rank then agrees, by an allreduce, whether all of them got it. */
static int mca_coll_rdmabar_node_setup (mca_coll_rdmabar_module_t *module, struct ompi_communicator_t *comm)
{
    opal_process_name_t leader = {0};
    char name[96];
    int ok, all_ok = 0, rc, leader_rank = 0;

    module->set_up = true;
    mca_coll_rdmabar_locate (module, comm, &leader, &leader_rank);
    module->segment_size = (size_t) (module->local_size + 1) * MCA_COLL_RDMABAR_LINE;
    snprintf (name, sizeof (name), "/ompi-rdmabar-%u-%u-%u", (unsigned) leader.jobid, (unsigned) leader.vpid,
              rwv_compat_comm_id (comm));

    if (0 == module->local_rank) {
        module->segment = mca_coll_rdmabar_map (name, module->segment_size, true);
    }
    rc = module->below_barrier (comm, module->below_barrier_module);
    if (OMPI_SUCCESS == rc && 0 != module->local_rank) {
        module->segment = mca_coll_rdmabar_map (name, module->segment_size, false);
    }
    ok = NULL != module->segment;
    rc = comm->c_coll->coll_allreduce (&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm,
                                       comm->c_coll->coll_allreduce_module);
    if (0 == module->local_rank) {
        (void) shm_unlink (name);
    }
    if (OMPI_SUCCESS != rc || !all_ok) {
        opal_output_verbose (MCA_BASE_VERBOSE_WARN, ompi_coll_base_framework.framework_output,
                             "coll/rdmabar: no shared segment for %s; using the barrier below", comm->c_name);
        module->use_below = true;
        return rc;
    }
    opal_output_verbose (MCA_BASE_VERBOSE_COMPONENT, ompi_coll_base_framework.framework_output,
                         "coll/rdmabar: %s: %d ranks on this node meet on shared-memory flags",
                         comm->c_name, module->local_size);
    if (module->local_size < ompi_comm_size (comm)) {
        return mca_coll_rdmabar_rdma_setup (module, comm, leader_rank);
    }
    return OMPI_SUCCESS;
}

int mca_coll_rdmabar_barrier (struct ompi_communicator_t *comm, mca_coll_base_module_t *base)
{
    mca_coll_rdmabar_module_t *module = (mca_coll_rdmabar_module_t *) base;
    int rc = OMPI_SUCCESS;
    uint64_t n;

    if (OPAL_UNLIKELY(!module->set_up)) {
        rc = mca_coll_rdmabar_node_setup (module, comm);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
    }
    if (module->use_below) {
        return module->below_barrier (comm, module->below_barrier_module);
    }

    n = ++module->barrier_no;
    if (0 != module->local_rank) {
        opal_atomic_wmb ();
        *mca_coll_rdmabar_line (module, module->local_rank) = n;
        mca_coll_rdmabar_wait (mca_coll_rdmabar_release (module), n, false);
        return OMPI_SUCCESS;
    }
    for (int i = 1 ; i < module->local_size ; ++i) {
        mca_coll_rdmabar_wait (mca_coll_rdmabar_line (module, i), n, false);
    }
    if (module->num_leaders > 1) {
        rc = mca_coll_rdmabar_rdma_barrier (module, n);
    }
    opal_atomic_wmb ();
    *mca_coll_rdmabar_release (module) = n;
    return rc;
}
