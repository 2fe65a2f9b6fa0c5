/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Open MPI 4.1's MPI_I<coll> and MPI_<coll>_init wrappers treat every
 * collective request as an ompi_coll_base_nbc_request_t: they keep
 * user-defined ops and datatypes alive in its fields (a completion and a
 * free callback with data, two object pointers) until completion.  Its
 * header, coll_base_util.h, cannot be included (it needs op.h, which is not
 * installed), so this mirrors its layout.  configure checks the mirror
 * against libmpi's class (RDMABAR_NBC_LAYOUT: 1 when they agree); without
 * that rdmabar supplies no nonblocking or persistent collective.
 */
#ifndef MCA_COLL_RDMABAR_NBC_LAYOUT_H
#define MCA_COLL_RDMABAR_NBC_LAYOUT_H

#include "ompi/request/request.h"

typedef struct mca_coll_rdmabar_nbc_base_t {
    ompi_request_t super;
    void *cb;
    void *cb_data;
    void *objs[2];
} mca_coll_rdmabar_nbc_base_t;

#endif /* MCA_COLL_RDMABAR_NBC_LAYOUT_H */
