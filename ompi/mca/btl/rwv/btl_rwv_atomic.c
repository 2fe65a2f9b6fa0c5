/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Atomics for osc/rdma: btl_atomic_op, btl_atomic_fop and btl_atomic_cswap.
 *
 * libfabric's tcp provider has no atomics, so each one is an active
 * message: the origin writes a request into the target's ring, the target's
 * progress performs it with a CPU atomic instruction on its own memory and
 * writes the old value back in a reply.  Because the target uses the CPU's
 * atomics, an emulated atomic is atomic with respect to every other one on
 * that address whichever peer or rail it came from, and with respect to
 * the target's own CPU atomics (MCA_BTL_ATOMIC_SUPPORTS_GLOB).  Requests
 * ride the eager path, so a failing rail replays them exactly once
 * (btl_rwv_failover.c), and a put completed before them is visible before
 * they run.
 *
 * The target's CPU runs them: its progress, or, while it computes, rwv's
 * connection thread (btl_rwv_async_progress, btl_rwv_cm_thread.c).
 *
 * Integer min and max are declined (OPAL_ERR_NOT_SUPPORTED): the BTL
 * interface does not say whether the operands are signed, and osc/rdma
 * sends MPI_UNSIGNED's MPI_MIN as the same operation as MPI_INT's.  osc/rdma
 * then falls back to its lock-protected get-op-put, which knows the type.
 * Floating-point min and max have no such ambiguity and are done here.
 * Layer: protocol (docs/layout.md).
 */
#include "opal_config.h"

#include <string.h>

#include "btl_rwv.h"
#include "btl_rwv_test_fault.h"
#include "btl_rwv_endpoint.h"
#include "btl_rwv_frag.h"
#include "btl_rwv_flush.h"
#include "btl_rwv_atomic.h"
#include "btl_rwv_rdma.h"
#include "btl_rwv_reg.h"
#include "btl_rwv_recv.h"


OBJ_CLASS_INSTANCE(mca_btl_rwv_atomic_t, opal_free_list_item_t, NULL, NULL);

/* ------------------------------------------------------------ the arithmetic */

static bool mca_btl_rwv_atomic_supported (int op, int flags)
{
    if (MCA_BTL_RWV_ATOMIC_CSWAP == op || MCA_BTL_ATOMIC_SWAP == op || MCA_BTL_ATOMIC_ADD == op) {
        return true;
    }
    if (flags & MCA_BTL_ATOMIC_FLAG_FLOAT) {
        return MCA_BTL_ATOMIC_MIN == op || MCA_BTL_ATOMIC_MAX == op;
    }
    switch (op) {
    case MCA_BTL_ATOMIC_AND: case MCA_BTL_ATOMIC_OR: case MCA_BTL_ATOMIC_XOR:
    case MCA_BTL_ATOMIC_LAND: case MCA_BTL_ATOMIC_LOR: case MCA_BTL_ATOMIC_LXOR:
        return true;
    default:
        return false;
    }
}

static uint64_t mca_btl_rwv_combine_int (int op, uint64_t old, uint64_t operand)
{
    switch (op) {
    case MCA_BTL_ATOMIC_ADD: return old + operand;
    case MCA_BTL_ATOMIC_AND: return old & operand;
    case MCA_BTL_ATOMIC_OR: return old | operand;
    case MCA_BTL_ATOMIC_XOR: return old ^ operand;
    case MCA_BTL_ATOMIC_LAND: return old && operand;
    case MCA_BTL_ATOMIC_LOR: return old || operand;
    case MCA_BTL_ATOMIC_LXOR: return !old != !operand;
    default: return operand; /* swap */
    }
}

static double mca_btl_rwv_combine_float (int op, double old, double operand)
{
    switch (op) {
    case MCA_BTL_ATOMIC_ADD: return old + operand;
    case MCA_BTL_ATOMIC_MIN: return operand < old ? operand : old;
    case MCA_BTL_ATOMIC_MAX: return operand > old ? operand : old;
    default: return operand; /* swap */
    }
}

/* The new bits of a 32-bit (low half) or 64-bit element. */
static uint64_t mca_btl_rwv_combine (int op, int flags, uint64_t old, uint64_t operand)
{
    bool is32 = flags & MCA_BTL_ATOMIC_FLAG_32BIT;

    if (!(flags & MCA_BTL_ATOMIC_FLAG_FLOAT)) {
        return mca_btl_rwv_combine_int (op, old, operand);
    }
    if (is32) {
        float a, b, r;
        uint32_t a32 = (uint32_t) old, b32 = (uint32_t) operand, r32;

        memcpy (&a, &a32, sizeof (a));
        memcpy (&b, &b32, sizeof (b));
        r = (float) mca_btl_rwv_combine_float (op, a, b);
        memcpy (&r32, &r, sizeof (r32));
        return r32;
    } else {
        double a, b, r;
        uint64_t r64;

        memcpy (&a, &old, sizeof (a));
        memcpy (&b, &operand, sizeof (b));
        r = mca_btl_rwv_combine_float (op, a, b);
        memcpy (&r64, &r, sizeof (r64));
        return r64;
    }
}

/* One compare-and-swap loop serves every operation and width: correct for
 * all of them, and contention here is only with the local CPU. */
static uint64_t mca_btl_rwv_atomic_apply (uint64_t address, int op, int flags, uint64_t operand, uint64_t compare)
{
    if (flags & MCA_BTL_ATOMIC_FLAG_32BIT) {
        uint32_t *p = (uint32_t *) (uintptr_t) address, old = __atomic_load_n (p, __ATOMIC_RELAXED), want;

        if (MCA_BTL_RWV_ATOMIC_CSWAP == op) {
            old = (uint32_t) compare;
            (void) __atomic_compare_exchange_n (p, &old, (uint32_t) operand, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
            return old;
        }
        do {
            want = (uint32_t) mca_btl_rwv_combine (op, flags, old, (uint32_t) operand);
        } while (!__atomic_compare_exchange_n (p, &old, want, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
        return old;
    } else {
        uint64_t *p = (uint64_t *) (uintptr_t) address, old = __atomic_load_n (p, __ATOMIC_RELAXED), want;

        if (MCA_BTL_RWV_ATOMIC_CSWAP == op) {
            old = compare;
            (void) __atomic_compare_exchange_n (p, &old, operand, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
            return old;
        }
        do {
            want = mca_btl_rwv_combine (op, flags, old, operand);
        } while (!__atomic_compare_exchange_n (p, &old, want, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
        return old;
    }
}

/* ------------------------------------------------------------ origin */

static void mca_btl_rwv_atomic_store_result (void *local_address, int flags, uint64_t result)
{
    if (NULL == local_address) {
        return;
    }
    if (flags & MCA_BTL_ATOMIC_FLAG_32BIT) {
        *(uint32_t *) local_address = (uint32_t) result;
    } else {
        *(uint64_t *) local_address = result;
    }
}

static void mca_btl_rwv_atomic_finish (mca_btl_rwv_atomic_t *atomic, uint64_t result, int status)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    mca_btl_rwv_endpoint_t *endpoint = atomic->endpoint;
    mca_btl_base_rdma_completion_fn_t cbfunc = atomic->cbfunc;
    void *local_address = atomic->local_address, *cbcontext = atomic->cbcontext, *cbdata = atomic->cbdata;
    mca_btl_base_registration_handle_t *local_handle = atomic->local_handle;

    if (OPAL_SUCCESS == status) {
        mca_btl_rwv_atomic_store_result (local_address, atomic->flags, result);
    }
    MCA_BTL_RWV_LOCK(module);
    opal_list_remove_item (&endpoint->atomics, &atomic->super.super);
    endpoint->ops_out--;
    mca_btl_rwv_list_return (&module->atomics, &atomic->super);
    MCA_BTL_RWV_UNLOCK(module);
    if (NULL != cbfunc) {
        cbfunc (&module->super, endpoint, local_address, local_handle, cbcontext, cbdata, status);
    }
}

/* Done here, with the CPU's atomics, when the memory is ours or mapped
 * here: osc/rdma passes no remote handle for a shared-memory window on
 * one node, whose addresses are then in our own mapping. */
static int mca_btl_rwv_atomic_start (mca_btl_base_module_t *btl, mca_btl_base_endpoint_t *endpoint,
                                     void *local_address, mca_btl_base_registration_handle_t *local_handle,
                                     mca_btl_base_registration_handle_t *remote_handle, uint64_t remote_address, int op, uint64_t operand, uint64_t compare, int flags,
                                     mca_btl_base_rdma_completion_fn_t cbfunc, void *cbcontext, void *cbdata)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    size_t width = (flags & MCA_BTL_ATOMIC_FLAG_32BIT) ? 4 : 8;
    mca_btl_rwv_atomic_request_hdr_t hdr;
    mca_btl_rwv_atomic_t *atomic;
    mca_btl_rwv_proof_t proof;
    int rc;

    if (!mca_btl_rwv_atomic_supported (op, flags)) {
        return OPAL_ERR_NOT_SUPPORTED;
    }
    if (0 != remote_address % width) {
        return OPAL_ERR_BAD_PARAM;
    }
    if (mca_btl_rwv_target_is_local (endpoint, remote_handle)) {
        uint64_t old = mca_btl_rwv_atomic_apply (remote_address, op, flags, operand, compare);

        mca_btl_rwv_atomic_store_result (local_address, flags, old);
        if (NULL != cbfunc) {
            cbfunc (btl, endpoint, local_address, local_handle, cbcontext, cbdata, OPAL_SUCCESS);
        }
        return OPAL_SUCCESS;
    }
    if (endpoint->failed) {
        return OPAL_ERR_UNREACH;
    }
    /* taken and listed under the lock, before it can be answered: the
     * reply may come in another thread */
    MCA_BTL_RWV_LOCK(module);
    atomic = (mca_btl_rwv_atomic_t *) mca_btl_rwv_list_get (&module->atomics);
    if (NULL == atomic) {
        MCA_BTL_RWV_UNLOCK(module);
        return OPAL_ERR_OUT_OF_RESOURCE;
    }
    *atomic = (mca_btl_rwv_atomic_t) {
        .super = atomic->super, .endpoint = endpoint, .local_address = local_address,
        .local_handle = local_handle, .flags = flags, .cbfunc = cbfunc, .cbcontext = cbcontext, .cbdata = cbdata,
    };
    opal_list_append (&endpoint->atomics, &atomic->super.super);
    endpoint->ops_out++;
    proof = mca_btl_rwv_flush_prove (endpoint);
    MCA_BTL_RWV_UNLOCK(module);
    hdr = (mca_btl_rwv_atomic_request_hdr_t) {
        .context = (uint64_t) (uintptr_t) atomic, .address = remote_address, .key = remote_handle->rkey[0],
        .operand = operand, .compare = compare, .op = (uint16_t) op, .flags = (uint16_t) flags,
    };
    if (MCA_BTL_RWV_TEST_FAULT(MCA_BTL_RWV_TEST_FAULT_ATOMIC_ADDR, true)) {
        hdr.address += (uint64_t) 1 << 30;
    }
    rc = mca_btl_rwv_send_control (endpoint, MCA_BTL_RWV_TAG_ATOMIC, &hdr, sizeof (hdr));
    if (OPAL_SUCCESS != rc) {
        MCA_BTL_RWV_LOCK(module);
        mca_btl_rwv_flush_unprove (&proof);
        opal_list_remove_item (&endpoint->atomics, &atomic->super.super);
        endpoint->ops_out--;
        mca_btl_rwv_list_return (&module->atomics, &atomic->super);
        MCA_BTL_RWV_UNLOCK(module);
    }
    return rc;
}

int mca_btl_rwv_atomic_op (mca_btl_base_module_t *btl, mca_btl_base_endpoint_t *endpoint, uint64_t remote_address,
                           mca_btl_base_registration_handle_t *remote_handle, mca_btl_base_atomic_op_t op,
                           uint64_t operand, int flags, int order, mca_btl_base_rdma_completion_fn_t cbfunc,
                           void *cbcontext, void *cbdata)
{
    return mca_btl_rwv_atomic_start (btl, endpoint, NULL, NULL, remote_handle, remote_address, op, operand, 0, flags, cbfunc,
                                     cbcontext, cbdata);
}

int mca_btl_rwv_atomic_fop (mca_btl_base_module_t *btl, mca_btl_base_endpoint_t *endpoint, void *local_address,
                            uint64_t remote_address, mca_btl_base_registration_handle_t *local_handle,
                            mca_btl_base_registration_handle_t *remote_handle, mca_btl_base_atomic_op_t op,
                            uint64_t operand, int flags, int order, mca_btl_base_rdma_completion_fn_t cbfunc,
                            void *cbcontext, void *cbdata)
{
    return mca_btl_rwv_atomic_start (btl, endpoint, local_address, local_handle, remote_handle, remote_address,
                                     op, operand, 0,
                                     flags, cbfunc, cbcontext, cbdata);
}

int mca_btl_rwv_atomic_cswap (mca_btl_base_module_t *btl, mca_btl_base_endpoint_t *endpoint, void *local_address,
                              uint64_t remote_address, mca_btl_base_registration_handle_t *local_handle,
                              mca_btl_base_registration_handle_t *remote_handle, uint64_t compare, uint64_t value,
                              int flags, int order, mca_btl_base_rdma_completion_fn_t cbfunc, void *cbcontext,
                              void *cbdata)
{
    return mca_btl_rwv_atomic_start (btl, endpoint, local_address, local_handle, remote_handle, remote_address,
                                     MCA_BTL_RWV_ATOMIC_CSWAP, value, compare, flags, cbfunc, cbcontext, cbdata);
}

/* ------------------------------------------------------------ target and reply */

static size_t mca_btl_rwv_atomic_width (int flags)
{
    return (flags & MCA_BTL_ATOMIC_FLAG_32BIT) ? 4 : 8;
}

/* Only an operation we offer, aligned, inside memory we registered for
 * remote atomics under the key it names; the registration stays while it
 * runs (regs_lock). */
static int mca_btl_rwv_atomic_serve (const mca_btl_rwv_atomic_request_hdr_t *request, uint64_t *result)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    size_t width = mca_btl_rwv_atomic_width (request->flags);
    int rc = OPAL_ERR_BAD_PARAM;

    if (!mca_btl_rwv_atomic_supported (request->op, request->flags) ||
        0 != (request->flags & ~(MCA_BTL_ATOMIC_FLAG_32BIT | MCA_BTL_ATOMIC_FLAG_FLOAT)) ||
        0 != request->address % width) {
        return rc;
    }
    mca_btl_rwv_regs_lock (module);
    if (mca_btl_rwv_registered_for (request->key, request->address, width, MCA_RCACHE_ACCESS_REMOTE_ATOMIC)) {
        *result = mca_btl_rwv_atomic_apply (request->address, request->op, request->flags, request->operand,
                                            request->compare);
        rc = OPAL_SUCCESS;
    }
    mca_btl_rwv_regs_unlock (module);
    return rc;
}

bool mca_btl_rwv_atomic_serve_request (mca_btl_rwv_conn_t *conn, const void *payload, size_t len)
{
    mca_btl_rwv_atomic_request_hdr_t request;
    mca_btl_rwv_atomic_reply_hdr_t reply = {0};

    if (len < sizeof (request)) {
        return false;
    }
    memcpy (&request, payload, sizeof (request));
    reply.context = request.context;
    reply.status = mca_btl_rwv_atomic_serve (&request, &reply.result);
    if (OPAL_SUCCESS != reply.status) {
        return false; /* applied nothing: progress refuses it, by name */
    }
    (void) mca_btl_rwv_send_control (conn->endpoint, MCA_BTL_RWV_TAG_ATOMIC_REPLY, &reply, sizeof (reply));
    return true;
}

static const char *mca_btl_rwv_atomic_request_receive (mca_btl_rwv_conn_t *conn, const void *payload, size_t len)
{
    mca_btl_rwv_atomic_request_hdr_t request;
    mca_btl_rwv_atomic_reply_hdr_t reply = {0};

    if (len < sizeof (request)) {
        return "an atomic request shorter than its header";
    }
    memcpy (&request, payload, sizeof (request));
    reply.context = request.context;
    reply.status = mca_btl_rwv_atomic_serve (&request, &reply.result);
    if (OPAL_SUCCESS != reply.status) {
        mca_btl_rwv_conn_refused_access (conn, "an atomic", request.address, request.key);
    }
    /* no room now: the reply waits on the queue, or the peer is gone and nobody waits */
    (void) mca_btl_rwv_send_control (conn->endpoint, MCA_BTL_RWV_TAG_ATOMIC_REPLY,
                                     &reply, sizeof (reply));
    return NULL;
}

/* Ours, and still waiting: a reply is never taken as a pointer on trust. */
static mca_btl_rwv_atomic_t *mca_btl_rwv_atomic_waiting (mca_btl_rwv_endpoint_t *endpoint, uint64_t context)
{
    mca_btl_rwv_atomic_t *atomic, *found = NULL;

    MCA_BTL_RWV_LOCK(mca_btl_rwv_component.module);
    OPAL_LIST_FOREACH(atomic, &endpoint->atomics, mca_btl_rwv_atomic_t) {
        if ((uint64_t) (uintptr_t) atomic == context) {
            found = atomic;
            break;
        }
    }
    MCA_BTL_RWV_UNLOCK(mca_btl_rwv_component.module);
    return found;
}

static const char *mca_btl_rwv_atomic_reply_receive (mca_btl_rwv_conn_t *conn, const void *payload, size_t len)
{
    mca_btl_rwv_atomic_reply_hdr_t reply;
    mca_btl_rwv_atomic_t *atomic;

    if (len < sizeof (reply)) {
        return "an atomic reply shorter than its header";
    }
    memcpy (&reply, payload, sizeof (reply));
    if (NULL == (atomic = mca_btl_rwv_atomic_waiting (conn->endpoint, reply.context))) {
        return "the reply to an atomic this process never asked for";
    }
    mca_btl_rwv_atomic_finish (atomic, reply.result, OPAL_SUCCESS == reply.status ? OPAL_SUCCESS : OPAL_ERR_BAD_PARAM);
    return NULL;
}

const char *mca_btl_rwv_atomic_receive (mca_btl_rwv_conn_t *conn, uint8_t tag, const void *payload, size_t len)
{
    return MCA_BTL_RWV_TAG_ATOMIC == tag ? mca_btl_rwv_atomic_request_receive (conn, payload, len)
                                         : mca_btl_rwv_atomic_reply_receive (conn, payload, len);
}

/* The peer is gone: no reply will come. */
void mca_btl_rwv_atomics_fail (mca_btl_rwv_endpoint_t *endpoint)
{
    while (!opal_list_is_empty (&endpoint->atomics)) {
        mca_btl_rwv_atomic_finish ((mca_btl_rwv_atomic_t *) opal_list_get_first (&endpoint->atomics), 0,
                                   OPAL_ERR_UNREACH);
    }
}
