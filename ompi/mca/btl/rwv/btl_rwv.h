/*
 * btl/rwv: RDMA-write/read byte-transfer layer.
 *
 * This component is loaded and lists its parameters, but it does not move
 * data yet: its init offers no module, so ob1 uses the other BTLs.
 */
#ifndef MCA_BTL_RWV_H
#define MCA_BTL_RWV_H

#include "opal_config.h"

#include "opal/mca/btl/btl.h"

BEGIN_C_DECLS

typedef struct mca_btl_rwv_component_t {
    mca_btl_base_component_3_0_0_t super;
    /* what this build can do, shown by ompi_info */
    char *status;
    char *backends;
} mca_btl_rwv_component_t;

OPAL_DECLSPEC extern mca_btl_rwv_component_t mca_btl_rwv_component;

END_C_DECLS

#endif /* MCA_BTL_RWV_H */
