/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Between nodes: the node leaders exchange barrier numbers by RDMA writes
 * (btl_put) into a small registered array of slots, one slot per round,
 * one set of slots per barrier parity, and wait on their own slots for
 * this barrier's number exactly (coll_rdmabar_barrier.c says why).
 *
 *   dissemination        ceil(log2 N) rounds for any N: in round k write to
 *                        leader (i + 2^k) mod N, wait for (i - 2^k) mod N
 *   recursive doubling   pairwise exchange with i ^ 2^k among the largest
 *                        power of two P <= N; each extra leader i >= P
 *                        first writes to i - P and is released by it after
 *   linear               every leader writes to leader 0, which then
 *                        writes to every leader: two hops for any N
 *
 * Set-up happens once per communicator: choose a put-capable BTL to every
 * other leader, register the slots and the source words, exchange address
 * and raw handle bytes with one allgather, and agree with one allreduce;
 * any failure anywhere keeps the barrier below for everyone.
 * Layer: building blocks (docs/layout.md).
 */
#include "ompi_config.h"

#include <stdlib.h>
#include <string.h>

#include "opal/mca/btl/btl.h"
#include "opal/runtime/opal_progress.h"
#include "ompi/communicator/communicator.h"
#include "ompi/group/group.h"
#include "ompi/mca/bml/base/base.h"
#include "ompi/mca/bml/bml.h"
#include "ompi/mca/coll/base/base.h"
#include "ompi/proc/proc.h"

#include "coll_rdmabar.h"

#define RDMABAR_MAX_HANDLE 192

/* What each leader publishes about its slots. */
typedef struct rdmabar_record_t {
    uint64_t addr;
    uint32_t handle_size;
    uint32_t is_leader;
    char btl[MCA_BASE_MAX_COMPONENT_NAME_LEN + 1];
    unsigned char handle[RDMABAR_MAX_HANDLE];
} rdmabar_record_t;

/* The leaders' algorithms, by the names coll_rdmabar_algorithm takes. */
const mca_base_var_enum_value_t mca_coll_rdmabar_algorithms[] = {
    {MCA_COLL_RDMABAR_AUTO, "auto"},
    {MCA_COLL_RDMABAR_RECURSIVE_DOUBLING, "recursive_doubling"},
    {MCA_COLL_RDMABAR_DISSEMINATION, "dissemination"},
    {MCA_COLL_RDMABAR_LINEAR, "linear"},
    {0, NULL}};

const char *mca_coll_rdmabar_algorithm_name (int algorithm)
{
    for (int i = 0 ; NULL != mca_coll_rdmabar_algorithms[i].string ; ++i) {
        if (mca_coll_rdmabar_algorithms[i].value == algorithm) {
            return mca_coll_rdmabar_algorithms[i].string;
        }
    }
    return "?";
}

static void rdmabar_put_done (mca_btl_base_module_t *btl, struct mca_btl_base_endpoint_t *endpoint,
                              void *local_address, mca_btl_base_registration_handle_t *local_handle,
                              void *context, void *cbdata, int status)
{
    mca_coll_rdmabar_module_t *module = (mca_coll_rdmabar_module_t *) context;

    if (OPAL_SUCCESS != status) {
        module->put_errors++;
    }
    module->puts_in_flight[(uintptr_t) cbdata]--;
}

/* Barrier N's slot K: odd and even barriers use separate sets, so that a
 * late put of barrier N - 1 cannot lower a slot barrier N has raised. */
static volatile uint64_t *rdmabar_slot (mca_coll_rdmabar_module_t *module, uint64_t n, int k)
{
    return module->slots + (n & 1) * module->set_words + k;
}

static void rdmabar_wait_puts (mca_coll_rdmabar_module_t *module, int parity)
{
    while (module->puts_in_flight[parity] > 0) {
        opal_progress ();
    }
}

/* The first BTL that can put to this process. */
static mca_bml_base_btl_t *rdmabar_put_path (ompi_proc_t *proc)
{
    mca_bml_base_endpoint_t *endpoint = mca_bml_base_get_endpoint (proc);

    for (size_t i = 0 ; endpoint && i < mca_bml_base_btl_array_get_size (&endpoint->btl_rdma) ; ++i) {
        mca_bml_base_btl_t *bml_btl = mca_bml_base_btl_array_get_index (&endpoint->btl_rdma, i);

        if (bml_btl->btl->btl_flags & MCA_BTL_FLAGS_PUT) {
            return bml_btl;
        }
    }
    return NULL;
}

static int rdmabar_log2_ceil (int n)
{
    int k = 0;

    while ((1 << k) < n) {
        ++k;
    }
    return k;
}

/* Two leaders: one pairwise exchange.  3 to 16: linear, two hops whatever
 * N, measured fastest at every size tried (test/bench/bench_barrier_nodes.sh,
 * 1 rank per emulated node: 4, 8, 16 nodes 17.6, 45.3, 103.5 us against
 * recursive doubling's 21.9, 64.1, 211.9 and dissemination's 22.8, 71.1,
 * 217.7).  Beyond 16 nothing was measured: the root's serial puts grow with
 * N where recursive doubling's hops grow with log2 N, so recursive doubling. */
#define MCA_COLL_RDMABAR_LINEAR_MAX 16

static int rdmabar_auto (int num_leaders)
{
    if (num_leaders >= 3 && num_leaders <= MCA_COLL_RDMABAR_LINEAR_MAX) {
        return MCA_COLL_RDMABAR_LINEAR;
    }
    return MCA_COLL_RDMABAR_RECURSIVE_DOUBLING;
}

/* Slots and source words, registered with the BTL our peers will use. */
static bool rdmabar_register_slots (mca_coll_rdmabar_module_t *module, rdmabar_record_t *mine)
{
    mca_btl_base_module_t *btl = module->btl;
    /* one per round and one for extras; linear's root takes one per leader */
    size_t count = module->rounds + 1 > module->num_leaders ? module->rounds + 1 : module->num_leaders;
    size_t bytes = count * sizeof (uint64_t);

    module->slots = calloc (2 * count, sizeof (uint64_t));
    module->src = calloc (2 * count, sizeof (uint64_t));
    module->set_words = count;
    if (NULL == module->slots || NULL == module->src) {
        return false;
    }
    if (NULL != btl->btl_register_mem) {
        if (btl->btl_registration_handle_size > RDMABAR_MAX_HANDLE) {
            return false;
        }
        module->slots_handle = btl->btl_register_mem (btl, NULL, (void *) module->slots, 2 * bytes,
                                                      MCA_BTL_REG_FLAG_REMOTE_WRITE | MCA_BTL_REG_FLAG_LOCAL_WRITE);
        module->src_handle = btl->btl_register_mem (btl, NULL, module->src, 2 * bytes, MCA_BTL_REG_FLAG_LOCAL_WRITE);
        if (NULL == module->slots_handle || NULL == module->src_handle) {
            return false;
        }
        mine->handle_size = (uint32_t) btl->btl_registration_handle_size;
        memcpy (mine->handle, module->slots_handle, mine->handle_size);
    }
    mine->addr = (uint64_t) (uintptr_t) module->slots;
    return true;
}

/* Take each other leader's record; every leader must use the same BTL
 * component we use to reach it, or its handle means nothing to ours. */
static bool rdmabar_take_peers (mca_coll_rdmabar_module_t *module, struct ompi_communicator_t *comm,
                                const rdmabar_record_t *records)
{
    int size = ompi_comm_size (comm), index = 0;

    module->peers = calloc (module->num_leaders, sizeof (*module->peers));
    if (NULL == module->peers) {
        return false;
    }
    for (int r = 0 ; r < size ; ++r) {
        mca_coll_rdmabar_peer_t *peer;
        mca_bml_base_btl_t *path;

        if (!records[r].is_leader) {
            continue;
        }
        peer = &module->peers[index++];
        if (r == ompi_comm_rank (comm)) {
            continue;
        }
        path = rdmabar_put_path (ompi_group_peer_lookup (comm->c_local_group, r));
        if (NULL == path || path->btl != module->btl ||
            0 != strcmp (records[r].btl, module->btl->btl_component->btl_version.mca_component_name)) {
            return false;
        }
        peer->endpoint = path->btl_endpoint;
        peer->addr = records[r].addr;
        if (records[r].handle_size) {
            peer->handle = malloc (records[r].handle_size);
            if (NULL == peer->handle) {
                return false;
            }
            memcpy (peer->handle, records[r].handle, records[r].handle_size);
        }
    }
    return true;
}

/* The leaders among the communicator's ranks, from each rank's node leader. */
static int rdmabar_find_leaders (mca_coll_rdmabar_module_t *module, struct ompi_communicator_t *comm,
                                 int my_leader, rdmabar_record_t *mine)
{
    int size = ompi_comm_size (comm), me = ompi_comm_rank (comm);
    int *leader_of = malloc ((size_t) size * sizeof (int));
    int rc;

    if (NULL == leader_of) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    rc = comm->c_coll->coll_allgather (&my_leader, 1, MPI_INT, leader_of, 1, MPI_INT, comm,
                                       comm->c_coll->coll_allgather_module);
    module->num_leaders = 0;
    for (int r = 0 ; OMPI_SUCCESS == rc && r < size ; ++r) {
        if (leader_of[r] == r) {
            if (r == me) {
                module->leader_index = module->num_leaders;
            }
            module->num_leaders++;
        }
    }
    mine->is_leader = my_leader == me;
    free (leader_of);
    return rc;
}

int mca_coll_rdmabar_rdma_setup (mca_coll_rdmabar_module_t *module, struct ompi_communicator_t *comm, int my_leader)
{
    int size = ompi_comm_size (comm), ok = 1, all_ok = 0, rc;
    rdmabar_record_t mine, *records;
    mca_bml_base_btl_t *path = NULL;

    memset (&mine, 0, sizeof (mine));
    rc = rdmabar_find_leaders (module, comm, my_leader, &mine);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    module->rounds = rdmabar_log2_ceil (module->num_leaders);
    if (MCA_COLL_RDMABAR_AUTO == module->algorithm) {
        module->algorithm = rdmabar_auto (module->num_leaders);
    }

    if (mine.is_leader) {
        /* any other leader shows which BTL we will put with */
        for (int r = 0 ; r < size && NULL == path ; ++r) {
            ompi_proc_t *proc = ompi_group_peer_lookup (comm->c_local_group, r);
            if (r != ompi_comm_rank (comm) && !OPAL_PROC_ON_LOCAL_NODE(proc->super.proc_flags)) {
                path = rdmabar_put_path (proc);
            }
        }
        ok = NULL != path;
        if (ok) {
            module->btl = path->btl;
            snprintf (mine.btl, sizeof (mine.btl), "%s", path->btl->btl_component->btl_version.mca_component_name);
            ok = rdmabar_register_slots (module, &mine);
        }
    }

    records = malloc ((size_t) size * sizeof (*records));
    if (NULL == records) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    rc = comm->c_coll->coll_allgather (&mine, sizeof (mine), MPI_BYTE, records, sizeof (mine), MPI_BYTE, comm,
                                       comm->c_coll->coll_allgather_module);
    if (OMPI_SUCCESS == rc && ok && mine.is_leader) {
        ok = rdmabar_take_peers (module, comm, records);
    }
    free (records);
    if (OMPI_SUCCESS == rc) {
        rc = comm->c_coll->coll_allreduce (&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm,
                                           comm->c_coll->coll_allreduce_module);
    }
    if (OMPI_SUCCESS != rc || !all_ok) {
        opal_output_verbose (MCA_BASE_VERBOSE_WARN, ompi_coll_base_framework.framework_output,
                             "coll/rdmabar: %s: no RDMA path among the node leaders; using the barrier below",
                             comm->c_name);
        module->use_below = true;
        return rc;
    }
    if (mine.is_leader) {
        opal_output_verbose (MCA_BASE_VERBOSE_COMPONENT, ompi_coll_base_framework.framework_output,
                             "coll/rdmabar: %s: %d node leaders exchange flags with btl/%s puts (%s)",
                             comm->c_name, module->num_leaders, mine.btl,
                             mca_coll_rdmabar_algorithm_name (module->algorithm));
    }
    return OMPI_SUCCESS;
}

void mca_coll_rdmabar_rdma_release (mca_coll_rdmabar_module_t *module)
{
    /* the last barriers' puts may still read the source words */
    rdmabar_wait_puts (module, 0);
    rdmabar_wait_puts (module, 1);
    if (NULL != module->btl && NULL != module->btl->btl_deregister_mem) {
        if (module->slots_handle) {
            module->btl->btl_deregister_mem (module->btl, module->slots_handle);
        }
        if (module->src_handle) {
            module->btl->btl_deregister_mem (module->btl, module->src_handle);
        }
    }
    for (int i = 0 ; module->peers && i < module->num_leaders ; ++i) {
        free (module->peers[i].handle);
    }
    free (module->peers);
    free ((void *) module->slots);
    free (module->src);
}

/* ------------------------------------------------------------ the exchange */

static int rdmabar_put (mca_coll_rdmabar_module_t *module, int leader, int slot, uint64_t n)
{
    mca_coll_rdmabar_peer_t *peer = &module->peers[leader];
    mca_btl_base_module_t *btl = module->btl;
    uintptr_t parity = n & 1;
    uint64_t *src = module->src + parity * module->set_words + slot;
    int rc;

    *src = n;
    module->puts_in_flight[parity]++;
    while (OPAL_ERR_OUT_OF_RESOURCE ==
           (rc = btl->btl_put (btl, peer->endpoint, src, peer->addr + (src - module->src) * sizeof (uint64_t),
                               module->src_handle, peer->handle, sizeof (uint64_t), 0, MCA_BTL_NO_ORDER,
                               rdmabar_put_done, module, (void *) parity))) {
        opal_progress ();
    }
    if (OPAL_SUCCESS != rc) {
        module->puts_in_flight[parity]--;
    }
    return rc;
}

static int rdmabar_dissemination (mca_coll_rdmabar_module_t *module, uint64_t n)
{
    int nl = module->num_leaders, i = module->leader_index;

    for (int k = 0 ; k < module->rounds ; ++k) {
        int rc = rdmabar_put (module, (i + (1 << k)) % nl, k, n);

        if (OPAL_SUCCESS != rc) {
            return rc;
        }
        mca_coll_rdmabar_wait (rdmabar_slot (module, n, k), n, true);
    }
    return OPAL_SUCCESS;
}

static int rdmabar_recursive_doubling (mca_coll_rdmabar_module_t *module, uint64_t n)
{
    int nl = module->num_leaders, i = module->leader_index, extra = module->rounds;
    int p = 1 << (rdmabar_log2_ceil (nl + 1) - 1); /* largest power of two <= nl */
    int rc = OPAL_SUCCESS;

    if (i >= p) {
        /* extra: check in with a partner in the power-of-two set, wait to be released */
        rc = rdmabar_put (module, i - p, extra, n);
        mca_coll_rdmabar_wait (rdmabar_slot (module, n, extra), n, true);
        return rc;
    }
    if (i + p < nl) {
        mca_coll_rdmabar_wait (rdmabar_slot (module, n, extra), n, true);
    }
    for (int k = 0 ; (1 << k) < p && OPAL_SUCCESS == rc ; ++k) {
        rc = rdmabar_put (module, i ^ (1 << k), k, n);
        mca_coll_rdmabar_wait (rdmabar_slot (module, n, k), n, true);
    }
    if (i + p < nl && OPAL_SUCCESS == rc) {
        rc = rdmabar_put (module, i + p, extra, n);
    }
    return rc;
}

/* Leader 0 collects every check-in (slot i from leader i), then writes the
 * release into each leader's slot 0: two network hops whatever N, and
 * 2(N-1) puts; the root's serial puts cost more as N grows. */
static int rdmabar_linear (mca_coll_rdmabar_module_t *module, uint64_t n)
{
    int nl = module->num_leaders, i = module->leader_index, rc = OPAL_SUCCESS;

    if (0 != i) {
        rc = rdmabar_put (module, 0, i, n);
        mca_coll_rdmabar_wait (rdmabar_slot (module, n, 0), n, true);
        return rc;
    }
    for (int j = 1 ; j < nl ; ++j) {
        mca_coll_rdmabar_wait (rdmabar_slot (module, n, j), n, true);
    }
    for (int j = 1 ; j < nl && OPAL_SUCCESS == rc ; ++j) {
        rc = rdmabar_put (module, j, 0, n);
    }
    return rc;
}

int mca_coll_rdmabar_rdma_barrier (mca_coll_rdmabar_module_t *module, uint64_t n)
{
    int rc;

    /* the puts of the barrier before last still own this parity's source
     * words; they are long done by now */
    rdmabar_wait_puts (module, n & 1);
    switch (module->algorithm) {
    case MCA_COLL_RDMABAR_DISSEMINATION:
        rc = rdmabar_dissemination (module, n);
        break;
    case MCA_COLL_RDMABAR_LINEAR:
        rc = rdmabar_linear (module, n);
        break;
    default:
        rc = rdmabar_recursive_doubling (module, n);
        break;
    }
    return OPAL_SUCCESS == rc && 0 == module->put_errors ? OMPI_SUCCESS : OMPI_ERROR;
}
