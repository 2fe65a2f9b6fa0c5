/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * What differs between the coll interfaces of Open MPI 4.1 (2.0.0), 5.0
 * (2.4.0) and 6.0 (3.0.0) for coll/rdmabar (the opal-level differences
 * are in rwv_opal_compat.h).  The choice follows the interface coll.h
 * declares; no other file tests the Open MPI version.
 *
 *                      coll 2.0.0 (4.1)      2.4.0 (5.0)           3.0.0 (6.0)
 *   process info       ompi/mca/rte/rte.h    ompi/runtime/ompi_rte.h
 *   communicator id    ompi_comm_get_cid     ompi_comm_get_local_cid
 *   counts             int                   int                   size_t
 *   count, displacement const int *          const int *           ompi_count_array_t,
 *   arrays                                                         ompi_disp_array_t
 *   collective request  mirrored here: its header, coll_base_util.h, needs op.h,
 *                        which 4.1 does not install and 5.0 installs without the
 *                        Fortran header it includes
 */
#ifndef RWV_OMPI_COMPAT_H
#define RWV_OMPI_COMPAT_H

#include "ompi_config.h"

#include "rwv_opal_compat.h"

#include "ompi/mca/coll/coll.h"

#if defined(MCA_COLL_BASE_VERSION_3_0_0)
#define RWV_COMPAT_COLL_API 300
#define RWV_COMPAT_COLL_VERSION MCA_COLL_BASE_VERSION_3_0_0
#elif defined(MCA_COLL_BASE_VERSION_2_4_0)
#define RWV_COMPAT_COLL_API 240
#define RWV_COMPAT_COLL_VERSION MCA_COLL_BASE_VERSION_2_4_0
#elif defined(MCA_COLL_BASE_VERSION_2_0_0)
#define RWV_COMPAT_COLL_API 200
#define RWV_COMPAT_COLL_VERSION MCA_COLL_BASE_VERSION_2_0_0
#else
#error "coll/rdmabar knows coll 2.0.0, 2.4.0 and 3.0.0 (configure checks this)"
#endif

#if RWV_COMPAT_COLL_API == 200
#    include "ompi/mca/rte/rte.h"
#else
#    include "ompi/runtime/ompi_rte.h"
#endif
#include "ompi/communicator/communicator.h"
#include "ompi/mca/coll/base/coll_base_functions.h"
#include "ompi/request/request.h"

/* Make FN the communicator's NAME collective, from module BASE.  Up to
 * coll 2.4.0 the base copies a module's pointers after enabling it; from
 * 3.0.0 each module installs its own while it is enabled. */
#if RWV_COMPAT_COLL_API >= 300
#define RWV_COMPAT_COLL_INSTALL(comm, base, name, fn)                                                                  \
    do {                                                                                                               \
        (base)->coll_##name = (fn);                                                                                    \
        MCA_COLL_INSTALL_API(comm, name, (base)->coll_##name, base, "rdmabar");                                       \
    } while (0)
#else
#define RWV_COMPAT_COLL_INSTALL(comm, base, name, fn) ((base)->coll_##name = (fn))
#endif

/* The fault-tolerance agreement (coll 2.4.0 on; 6.0 refuses a communicator
 * without one): libmpi's allreduce-based one, where no component below
 * supplies it, counted in FILLED. */
#if RWV_COMPAT_COLL_API >= 240
#define RWV_COMPAT_COLL_FILL_AGREE(comm, base, filled)                                                                 \
    do {                                                                                                               \
        if (NULL == (comm)->c_coll->coll_agree) {                                                                      \
            RWV_COMPAT_COLL_INSTALL(comm, base, agree, ompi_coll_base_agree_noft);                                    \
            ++(filled);                                                                                                \
        }                                                                                                              \
        if (NULL == (comm)->c_coll->coll_iagree) {                                                                     \
            RWV_COMPAT_COLL_INSTALL(comm, base, iagree, ompi_coll_base_iagree_noft);                                  \
            ++(filled);                                                                                                \
        }                                                                                                              \
    } while (0)
#else
#define RWV_COMPAT_COLL_FILL_AGREE(comm, base, filled) ((void) 0)
#endif

/* A count, and arrays of counts and displacements, as the collective
 * entry points take them; read an array's element i with the accessors. */
#if RWV_COMPAT_COLL_API >= 300
#include "ompi/util/count_disp_array.h"
typedef size_t rwv_compat_count_t;
typedef ompi_count_array_t rwv_compat_counts_t;
typedef ompi_disp_array_t rwv_compat_displs_t;
typedef ompi_disp_array_t rwv_compat_byte_displs_t; /* neighbor_alltoallw's */
#define RWV_COMPAT_NO_COUNTS OMPI_COUNT_ARRAY_NULL
#define RWV_COMPAT_NO_DISPLS OMPI_DISP_ARRAY_NULL

static inline size_t rwv_compat_count_at (rwv_compat_counts_t counts, int i)
{
    return ompi_count_array_get (counts, (size_t) i);
}

static inline ptrdiff_t rwv_compat_displ_at (rwv_compat_displs_t displs, int i)
{
    return ompi_disp_array_get (displs, (size_t) i);
}

static inline rwv_compat_displs_t rwv_compat_displs_of (const int *displs)
{
    return NULL == displs ? OMPI_DISP_ARRAY_NULL : ompi_disp_array_create (displs);
}
#else
typedef int rwv_compat_count_t;
typedef const int *rwv_compat_counts_t;
typedef const int *rwv_compat_displs_t;
typedef const MPI_Aint *rwv_compat_byte_displs_t;
#define RWV_COMPAT_NO_COUNTS NULL
#define RWV_COMPAT_NO_DISPLS NULL

static inline size_t rwv_compat_count_at (rwv_compat_counts_t counts, int i)
{
    return (size_t) counts[i];
}

static inline ptrdiff_t rwv_compat_displ_at (rwv_compat_displs_t displs, int i)
{
    return displs[i];
}

static inline rwv_compat_displs_t rwv_compat_displs_of (const int *displs)
{
    return displs;
}
#endif

/* libmpi's MPI_I<coll> and MPI_<coll>_init wrappers treat every collective
 * request as an ompi_coll_base_nbc_request_t: they keep user-defined ops
 * and datatypes (5.0: and the arrays of MPI_Ialltoallw) alive in its fields
 * until completion.  rdmabar's requests derive from libmpi's class, whose
 * constructor sets these fields; this says how much room they take.
 * configure checks it field by field against coll_base_util.h and its size
 * against libmpi's class (RDMABAR_NBC_LAYOUT); coll_rdmabar_request.c the
 * size against the libmpi it is loaded into. */
typedef struct rwv_compat_nbc_request_t {
    ompi_request_t super;
    void *complete_cb;
    void *complete_cb_data;
#if RWV_COMPAT_COLL_API == 200
    void *data[2];
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
#if RWV_COMPAT_COLL_API == 200
    return (unsigned) ompi_comm_get_cid ((ompi_communicator_t *) comm);
#else
    return (unsigned) ompi_comm_get_local_cid (comm);
#endif
}

#endif
