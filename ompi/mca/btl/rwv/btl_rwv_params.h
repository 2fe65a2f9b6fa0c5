/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/* btl/rwv's MCA parameters (btl_rwv_params.c). */
#ifndef MCA_BTL_RWV_PARAMS_H
#define MCA_BTL_RWV_PARAMS_H

#include <stdbool.h>

/* Register every btl_rwv_ parameter and the standard BTL ones. */
int mca_btl_rwv_params_register (void);
/* Check every parameter; say what is wrong with the first bad one. */
bool mca_btl_rwv_params_valid (void);
/* Was btl_rwv_NAME left at its default (not set by the user)? */
bool mca_btl_rwv_param_is_default (const char *name);
/* btl_rwv_ip_family as the user gave it, for messages. */
const char *mca_btl_rwv_ip_family_text (void);
/* Say a parameter's value is wrong and why (show_help); returns false. */
bool mca_btl_rwv_invalid (const char *param, const char *value, const char *why);

#endif /* MCA_BTL_RWV_PARAMS_H */
