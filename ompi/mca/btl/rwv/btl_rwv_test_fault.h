/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Fault injection for the suite's tests of malformed peers, built only
 * with `configure --enable-test-faults' (the suite's own build).  A
 * process started with RWV_TEST_FAULT=<name> misbehaves, as a broken
 * or hostile member would, so the suite can prove that its peers refuse
 * it and live.  One started with RWV_TEST_GATE=1 checks how its threads
 * share rwv's free lists (btl_rwv_lock.h).  A default build compiles
 * every check below to nothing.
 */
#ifndef MCA_BTL_RWV_TEST_FAULT_H
#define MCA_BTL_RWV_TEST_FAULT_H

#include "opal_config.h"

#include <stdbool.h>

typedef enum {
    MCA_BTL_RWV_TEST_FAULT_NONE,
    MCA_BTL_RWV_TEST_FAULT_RING_LEN,    /* "ring_len": a message claims 4 GiB */
    MCA_BTL_RWV_TEST_FAULT_ATOMIC_ADDR, /* "atomic_addr": every atomic aims 1 GiB past its target */
    MCA_BTL_RWV_TEST_FAULT_REPLAY,      /* "replay": a message claims to replay a connection never made */
    MCA_BTL_RWV_TEST_FAULT_RING_SIZE,   /* "ring_size": a ring change names 1 GiB slots */
    MCA_BTL_RWV_TEST_FAULT_FETCH_LEN,   /* "fetch_len": a FETCH claims 4 GiB */
    MCA_BTL_RWV_TEST_FAULT_FETCH_ADDR,  /* "fetch_addr": a FETCH names memory 1 GiB past its buffer */
    MCA_BTL_RWV_TEST_FAULT_HEAD_LEN,    /* "head_len": a message with the PML's header last names none */
    MCA_BTL_RWV_TEST_FAULT_DROP_CONN,   /* "drop_conn": a connection accepted is closed at once, unsaid, and forgotten */
} mca_btl_rwv_test_fault_t;

#if RWV_TEST_FAULTS
/* the fault still to commit; NONE in every process not told one */
extern mca_btl_rwv_test_fault_t mca_btl_rwv_test_fault;
/* RWV_TEST_GATE=1: check that every free list item is taken and given
 * back inside the gate (btl_rwv_lock.h) */
extern bool mca_btl_rwv_test_gate;
/* read RWV_TEST_FAULT and RWV_TEST_GATE, once, when the component opens */
void mca_btl_rwv_test_fault_open (void);
/* true when READY holds and this process is to commit FAULT: once, or for
 * atomic_addr every time */
bool mca_btl_rwv_test_fault_now (mca_btl_rwv_test_fault_t fault, bool ready);
/* one load on the paths it guards, as in a process told no fault */
#    define MCA_BTL_RWV_TEST_FAULT(fault, ready)                                                                       \
        OPAL_UNLIKELY(MCA_BTL_RWV_TEST_FAULT_NONE != mca_btl_rwv_test_fault && mca_btl_rwv_test_fault_now (fault, ready))
#else
#    define mca_btl_rwv_test_fault_open() ((void) 0)
#    define MCA_BTL_RWV_TEST_FAULT(fault, ready) false
#endif

#endif /* MCA_BTL_RWV_TEST_FAULT_H */
