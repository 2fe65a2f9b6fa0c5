/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Fault injection for the suite's tests (btl_rwv_test_fault.h).
 * Layer: helpers (docs/layout.md).
 */
#include "opal_config.h"

#include <stdlib.h>
#include <string.h>

#include "btl_rwv_test_fault.h"

mca_btl_rwv_test_fault_t mca_btl_rwv_test_fault = MCA_BTL_RWV_TEST_FAULT_NONE;
bool mca_btl_rwv_test_gate = false;

void mca_btl_rwv_test_fault_open (void)
{
    static const char *names[] = {
        [MCA_BTL_RWV_TEST_FAULT_RING_LEN] = "ring_len",   [MCA_BTL_RWV_TEST_FAULT_ATOMIC_ADDR] = "atomic_addr",
        [MCA_BTL_RWV_TEST_FAULT_REPLAY] = "replay",       [MCA_BTL_RWV_TEST_FAULT_RING_SIZE] = "ring_size",
        [MCA_BTL_RWV_TEST_FAULT_FETCH_LEN] = "fetch_len", [MCA_BTL_RWV_TEST_FAULT_FETCH_ADDR] = "fetch_addr",
        [MCA_BTL_RWV_TEST_FAULT_HEAD_LEN] = "head_len",   [MCA_BTL_RWV_TEST_FAULT_DROP_CONN] = "drop_conn",
    };
    const char *name = getenv ("RWV_TEST_FAULT"), *gate = getenv ("RWV_TEST_GATE");

    mca_btl_rwv_test_gate = NULL != gate && 0 == strcmp (gate, "1");
    mca_btl_rwv_test_fault = MCA_BTL_RWV_TEST_FAULT_NONE;
    for (size_t f = 1 ; NULL != name && f < sizeof (names) / sizeof (names[0]) ; ++f) {
        if (0 == strcmp (name, names[f])) {
            mca_btl_rwv_test_fault = (mca_btl_rwv_test_fault_t) f;
        }
    }
}

bool mca_btl_rwv_test_fault_now (mca_btl_rwv_test_fault_t fault, bool ready)
{
    if (fault != mca_btl_rwv_test_fault || !ready) {
        return false;
    }
    /* every atomic goes astray, as a peer with a wrong window base would
     * send them; the other faults are one message each */
    if (MCA_BTL_RWV_TEST_FAULT_ATOMIC_ADDR != fault) {
        mca_btl_rwv_test_fault = MCA_BTL_RWV_TEST_FAULT_NONE;
    }
    return true;
}
