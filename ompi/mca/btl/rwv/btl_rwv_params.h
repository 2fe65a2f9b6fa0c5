/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/* btl/rwv's MCA parameters (btl_rwv_params.c). */
#ifndef MCA_BTL_RWV_PARAMS_H
#define MCA_BTL_RWV_PARAMS_H

#include <stdbool.h>

/* Register every btl_rwv_ parameter and the standard BTL ones. */
int mca_btl_rwv_params_register (void);
/* Each parameter against its own range or choices; says what is wrong
 * with the first bad one. */
bool mca_btl_rwv_params_in_range (void);
/* btl_rwv_ip_family and btl_rwv_backend as the user gave them, for messages. */
const char *mca_btl_rwv_ip_family_text (void);
const char *mca_btl_rwv_backend_text (void);

#endif /* MCA_BTL_RWV_PARAMS_H */
