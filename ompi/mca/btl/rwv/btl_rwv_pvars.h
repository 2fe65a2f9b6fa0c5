/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/* MPI_T performance variables of btl/rwv (btl_rwv_pvars.c). */
#ifndef MCA_BTL_RWV_PVARS_H
#define MCA_BTL_RWV_PVARS_H

void mca_btl_rwv_pvars_register (void);

#endif /* MCA_BTL_RWV_PVARS_H */
