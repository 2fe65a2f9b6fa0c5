/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * What differs between the Open MPI 4.1 and 5.0 series for coll/rdmabar
 * (the opal-level differences are in rwv_opal_compat.h).  No other file
 * tests the Open MPI version.
 *
 *                      4.1 (coll 2.0.0)            5.0 (coll 2.4.0)
 *   component version  MCA_COLL_BASE_VERSION_2_0_0 MCA_COLL_BASE_VERSION_2_4_0
 *   process info       ompi/mca/rte/rte.h          ompi/runtime/ompi_rte.h
 *   communicator id    ompi_comm_get_cid           ompi_comm_get_local_cid
 *   collective request  mirrored here: its header, coll_base_util.h, needs op.h,
 *                        which 4.1 does not install and 5.0 installs without the
 *                        Fortran header it includes
 */
#ifndef RWV_OMPI_COMPAT_H
#define RWV_OMPI_COMPAT_H

#include "ompi_config.h"

#include "rwv_opal_compat.h"

#if OMPI_MAJOR_VERSION == 4
#    include "ompi/mca/rte/rte.h"
#else
#    include "ompi/runtime/ompi_rte.h"
#endif
#include "ompi/communicator/communicator.h"
#include "ompi/mca/coll/coll.h"
#include "ompi/request/request.h"

#if OMPI_MAJOR_VERSION == 4
#    define RWV_COMPAT_COLL_VERSION MCA_COLL_BASE_VERSION_2_0_0
#else
#    define RWV_COMPAT_COLL_VERSION MCA_COLL_BASE_VERSION_2_4_0
#endif

/* libmpi's MPI_I<coll> and MPI_<coll>_init wrappers treat every collective
 * request as an ompi_coll_base_nbc_request_t: they keep user-defined ops
 * and datatypes (5.0: and the arrays of MPI_Ialltoallw) alive in its fields
 * until completion.  rdmabar's requests derive from libmpi's class, whose
 * constructor sets these fields; this says how much room they take.
 * configure checks the size against libmpi's class (RDMABAR_NBC_LAYOUT). */
typedef struct rwv_compat_nbc_request_t {
    ompi_request_t super;
    void *complete_cb;
    void *complete_cb_data;
#if OMPI_MAJOR_VERSION == 4
    void *objs[2];
#else
    struct {
        union {
            void *objs[2];
            struct {
                const void *send_types, *recv_types;
                int send_count, recv_count;
            } vecs;
        } refcounted;
        void *release_arrays[7];
    } data;
#endif
} rwv_compat_nbc_request_t;

/* The communicator's number, for messages. */
static inline unsigned rwv_compat_comm_id (const ompi_communicator_t *comm)
{
#if OMPI_MAJOR_VERSION == 4
    return (unsigned) ompi_comm_get_cid ((ompi_communicator_t *) comm);
#else
    return (unsigned) ompi_comm_get_local_cid (comm);
#endif
}

#endif
