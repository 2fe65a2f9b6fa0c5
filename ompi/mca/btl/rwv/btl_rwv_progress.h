/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/* The progress function (btl_rwv_progress.c).  Glue layer. */
#ifndef MCA_BTL_RWV_PROGRESS_H
#define MCA_BTL_RWV_PROGRESS_H

#include "btl_rwv_conn.h"

BEGIN_C_DECLS

int mca_btl_rwv_progress (void);
END_C_DECLS

#endif /* MCA_BTL_RWV_PROGRESS_H */
