/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * What differs between the BTL interfaces of Open MPI 4.1 (3.1.0) and 5.0
 * and 6.0 (3.3.0, identical in both) for the opal-level components
 * (btl/rwv, rcache/regcache; rcache is 3.0.0 in all three).  The protocol
 * code includes this header instead of the moved headers and calls these
 * helpers where the interfaces differ; no other file tests the Open MPI
 * version.  The choice follows the interface btl.h declares; the lock and
 * runtime-exchange headers moved in the same release.
 *
 *                      BTL 3.1.0 (4.1)             BTL 3.3.0 (5.0, 6.0)
 *   locks              opal/threads/mutex.h        opal/mca/threads/mutex.h
 *   runtime exchange   opal/mca/pmix/pmix.h        opal/mca/pmix/pmix-internal.h
 *                      OPAL_PMIX_GLOBAL, _LOCAL    PMIX_GLOBAL, PMIX_LOCAL
 *   component version  MCA_BTL_BASE_VERSION_3_1_0  MCA_BTL_BASE_VERSION_3_3_0
 *   remote completion  (no flag)                   MCA_BTL_FLAGS_RDMA_REMOTE_COMPLETION: osc/rdma
 *                                                  uses a BTL's own put, get and atomics only
 *                                                  with it, else its active-message emulation
 *   receive upcall     cb(btl, tag, descriptor,    cb(btl, receive descriptor
 *                         cbdata)                     with endpoint, tag, cbdata)
 */
#ifndef RWV_OPAL_COMPAT_H
#define RWV_OPAL_COMPAT_H

#include "opal_config.h"

#include <string.h>

#include "opal/mca/btl/btl.h"

#include "rwv_show_help.h"

#if defined(MCA_BTL_BASE_VERSION_3_1_0)
#    include "opal/mca/pmix/pmix.h"
#    include "opal/threads/mutex.h"
#    define RWV_MODEX_GLOBAL OPAL_PMIX_GLOBAL
#    define RWV_MODEX_LOCAL OPAL_PMIX_LOCAL
#    define RWV_COMPAT_BTL_VERSION MCA_BTL_BASE_VERSION_3_1_0
#    define RWV_COMPAT_BTL_FLAGS_REMOTE_COMPLETION 0
#elif defined(MCA_BTL_BASE_VERSION_3_3_0)
#    include "opal/mca/pmix/pmix-internal.h"
#    include "opal/mca/threads/mutex.h"
#    define RWV_MODEX_GLOBAL PMIX_GLOBAL
#    define RWV_MODEX_LOCAL PMIX_LOCAL
#    define RWV_COMPAT_BTL_VERSION MCA_BTL_BASE_VERSION_3_3_0
#    define RWV_COMPAT_BTL_FLAGS_REMOTE_COMPLETION MCA_BTL_FLAGS_RDMA_REMOTE_COMPLETION
#else
#error "btl/rwv and rcache/regcache know BTL 3.1.0 and 3.3.0 (configure checks this)"
#endif

/* osc/rdma computes wrong results when it sends accumulates through a
 * BTL's atomics: 4.x before 4.1.5 (4.1.0 to 4.1.4 checked) unpack MPI_Get_accumulate's fetched values
 * from the end of the buffer for derived datatypes (fixed in 4.1.5); 5.0.7
 * gets MPI_BXOR, BOR, LAND, LOR and LXOR wrong (stock btl/sm shows the
 * same values; test_onesided_verify's accumulate check).  btl_rwv_osc.c
 * then sets osc_rdma_network_max_amo to 0, unless the user set it, so
 * that every accumulate takes osc/rdma's get-op-put path, which is right.
 * 6.0.0rc2 was not checked for these bugs apart, so the workaround stays
 * on there too.  Fetch-and-op and compare-and-swap
 * keep rwv's atomics. */
#if (OMPI_MAJOR_VERSION == 4 && OMPI_RELEASE_VERSION < 5) || OMPI_MAJOR_VERSION >= 5
#    define RWV_COMPAT_OSC_ACC_AMO_BROKEN 1
#else
#    define RWV_COMPAT_OSC_ACC_AMO_BROKEN 0
#endif

/* Hand LEN bytes at PAYLOAD, which arrived from ENDPOINT with TAG, to
 * whoever registered TAG (ob1, osc/rdma). */
static inline void rwv_compat_btl_deliver (mca_btl_base_module_t *btl, struct mca_btl_base_endpoint_t *endpoint,
                                           mca_btl_base_tag_t tag, void *payload, size_t len)
{
    const mca_btl_active_message_callback_t *reg = mca_btl_base_active_message_trigger + tag;
    mca_btl_base_segment_t segment = {.seg_addr.pval = payload, .seg_len = len};
#if defined(MCA_BTL_BASE_VERSION_3_1_0)
    mca_btl_base_descriptor_t des = {.des_segments = &segment, .des_segment_count = 1};

    (void) endpoint;
    reg->cbfunc (btl, tag, &des, reg->cbdata);
#else
    const mca_btl_base_receive_descriptor_t des = {
        .endpoint = endpoint, .des_segments = &segment, .des_segment_count = 1, .tag = tag, .cbdata = reg->cbdata,
    };

    reg->cbfunc (btl, &des);
#endif
}

/* A receive descriptor made once and handed to every upcall of one
 * thread's progress passes: under BTL 3.1.0 the descriptor is the whole
 * 120-byte send descriptor, whose zeroing cost a received message 20
 * instructions of rwv's 380. */
typedef struct rwv_compat_recv_des_t {
    mca_btl_base_segment_t segment;
#if defined(MCA_BTL_BASE_VERSION_3_1_0)
    mca_btl_base_descriptor_t des;
#else
    mca_btl_base_receive_descriptor_t des;
#endif
} rwv_compat_recv_des_t;

static inline void rwv_compat_recv_des_init (rwv_compat_recv_des_t *d)
{
    memset (d, 0, sizeof (*d));
    d->des.des_segments = &d->segment;
    d->des.des_segment_count = 1;
}

/* As rwv_compat_btl_deliver, with D; never nested on one D: the upcall
 * returns before the next is made. */
static inline void rwv_compat_btl_deliver_with (rwv_compat_recv_des_t *d, mca_btl_base_module_t *btl,
                                                struct mca_btl_base_endpoint_t *endpoint, mca_btl_base_tag_t tag,
                                                void *payload, size_t len)
{
    const mca_btl_active_message_callback_t *reg = mca_btl_base_active_message_trigger + tag;

    d->segment.seg_addr.pval = payload;
    d->segment.seg_len = len;
#if defined(MCA_BTL_BASE_VERSION_3_1_0)
    (void) endpoint;
    reg->cbfunc (btl, tag, &d->des, reg->cbdata);
#else
    d->des.endpoint = endpoint;
    d->des.tag = tag;
    d->des.cbdata = reg->cbdata;
    reg->cbfunc (btl, &d->des);
#endif
}

#endif
