/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/* btl/rwv's parameters checked as a whole (btl_rwv_params_check.c). */
#ifndef MCA_BTL_RWV_PARAMS_CHECK_H
#define MCA_BTL_RWV_PARAMS_CHECK_H

#include <stdbool.h>

/* Check every parameter; say what is wrong with the first bad one. */
bool mca_btl_rwv_params_valid (void);
/* Was btl_rwv_NAME left at its default (not set by the user)? */
bool mca_btl_rwv_param_is_default (const char *name);
/* Say a parameter's value is wrong and why (show_help); returns false. */
bool mca_btl_rwv_invalid (const char *param, const char *value, const char *why);

#endif /* MCA_BTL_RWV_PARAMS_CHECK_H */
