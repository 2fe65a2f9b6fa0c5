/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Who may touch rwv's state, and when (btl_rwv_lock.c).
 *
 * With MPI_THREAD_MULTIPLE the module lock is a mutex and a progress pass
 * is claimed with a compare-and-swap, as before.  Without MPI threads one
 * application thread does everything but answer connections, which the
 * connection thread (btl_rwv_cm_thread.c) does while that thread computes.
 * That thread enters rarely (a batch of connection events), the
 * application thread on every send and every progress pass, so the fence
 * both need is paid by the rare side alone: the application thread
 * counts how deep it is in and reads one flag, with only a compiler
 * barrier between (Dekker's exclusion made asymmetric by the membarrier()
 * system call, as liburcu does).  Where membarrier() is missing, a mutex
 * for everyone while the thread runs (gate.fenced).
 *
 * While the application computes and its peers keep the thread serving,
 * the thread keeps the gate from one serving turn to the next, through
 * its sleeps: a membarrier per turn interrupted the computation and was
 * a third of the thread's CPU.  The application thread that finds it in
 * asks it out (gate.asked and an eventfd that wakes it), as a biased lock
 * is revoked; one that must wait for the gate says so (gate.waiting), and
 * the thread does not take it back meanwhile.
 */
#ifndef MCA_BTL_RWV_LOCK_H
#define MCA_BTL_RWV_LOCK_H

#include "opal/class/opal_free_list.h"
#include "opal/sys/atomic.h"
#include "rwv_opal_compat.h"
#include "btl_rwv_test_fault.h"

BEGIN_C_DECLS

static inline bool mca_btl_rwv_locks_real (const mca_btl_rwv_module_t *module)
{
    return opal_using_threads () || module->gate.fenced;
}

/* The application thread found the connection thread wanting in. */
void mca_btl_rwv_gate_wait (mca_btl_rwv_module_t *module);
/* The application thread found the connection thread in: it may be
 * holding the gate while it sleeps (a serving thread does,
 * btl_rwv_cm_thread.c), so it is woken and asked out, once until the
 * thread has taken the ask. */
void mca_btl_rwv_gate_ask (mca_btl_rwv_module_t *module);

/* The connection thread inside the gate: it takes no count.  gate.depth
 * is the application thread's alone; an increment of the thread's there
 * raced the application's own (in mca_btl_rwv_gate_wait) and could leave
 * a count that no one held, shutting the thread out for good. */
static inline bool mca_btl_rwv_gate_holder (const mca_btl_rwv_module_t *module)
{
    return OPAL_UNLIKELY(__atomic_load_n (&module->gate.cm_in, __ATOMIC_RELAXED)) && module->cm.running &&
        pthread_equal (pthread_self (), module->cm.thread);
}

static inline void mca_btl_rwv_lock (mca_btl_rwv_module_t *module)
{
    if (mca_btl_rwv_locks_real (module)) {
        opal_mutex_lock (&module->lock);
        return;
    }
    if (mca_btl_rwv_gate_holder (module)) {
        return;
    }
    if (0 == module->gate.depth++) {
        __atomic_signal_fence (__ATOMIC_SEQ_CST);
        if (OPAL_UNLIKELY(__atomic_load_n (&module->gate.cm_in, __ATOMIC_ACQUIRE))) {
            mca_btl_rwv_gate_wait (module);
        }
    }
}

static inline void mca_btl_rwv_unlock (mca_btl_rwv_module_t *module)
{
    if (mca_btl_rwv_locks_real (module)) {
        opal_mutex_unlock (&module->lock);
        return;
    }
    if (mca_btl_rwv_gate_holder (module)) {
        return;
    }
    __atomic_store_n (&module->gate.depth, module->gate.depth - 1, __ATOMIC_RELEASE);
}

/* Inside a progress pass (below), or in the connection thread inside the
 * gate, nobody else of ours can be in: the connection thread waits for the
 * pass (mca_btl_rwv_gate_enter) and the pass for it.  Only other
 * application threads (MPI_THREAD_MULTIPLE), which may send meanwhile,
 * make a lock needed there; the light gate's count would buy nothing
 * (4 lock calls cost a received message 23 instructions). */
static inline void mca_btl_rwv_pass_lock (mca_btl_rwv_module_t *module)
{
    if (mca_btl_rwv_locks_real (module)) {
        opal_mutex_lock (&module->lock);
    }
}

static inline void mca_btl_rwv_pass_unlock (mca_btl_rwv_module_t *module)
{
    if (mca_btl_rwv_locks_real (module)) {
        opal_mutex_unlock (&module->lock);
    }
}

/* One progress pass at a time: a nested or concurrent call, or one while
 * the connection thread is in or wants in, returns false at once, the
 * thread asked out should it be holding the gate. */
static inline bool mca_btl_rwv_progress_begin (mca_btl_rwv_module_t *module)
{
    int32_t idle = 0;

    if (mca_btl_rwv_locks_real (module)) {
        return !__atomic_load_n (&module->gate.cm_in, __ATOMIC_ACQUIRE) &&
            opal_atomic_compare_exchange_strong_32 (&module->progressing, &idle, 1);
    }
    if (module->progressing) {
        return false;
    }
    module->progressing = 1;
    __atomic_signal_fence (__ATOMIC_SEQ_CST);
    if (OPAL_UNLIKELY(__atomic_load_n (&module->gate.cm_in, __ATOMIC_ACQUIRE))) {
        __atomic_store_n (&module->progressing, 0, __ATOMIC_RELEASE);
        mca_btl_rwv_gate_ask (module);
        return false;
    }
    return true;
}

static inline void mca_btl_rwv_progress_end (mca_btl_rwv_module_t *module)
{
    __atomic_store_n (&module->progressing, 0, __ATOMIC_RELEASE);
}

/* rwv's free lists are shared by the application thread and the
 * connection thread, and below MPI_THREAD_MULTIPLE Open MPI's are plain
 * stacks (opal_using_threads): an item taken by one thread while the other
 * gives one back can be handed out twice or lost.  So every take and
 * return happens inside the gate: under the lock, in a progress pass, or
 * in the connection thread inside it.  The suite's build
 * (--enable-test-faults), in a process started with RWV_TEST_GATE=1 (the
 * suite's runner sets it), checks that at each one and aborts, naming the
 * list, where it does not hold; otherwise it costs a load, and a default
 * build checks nothing. */
#if RWV_TEST_FAULTS
void mca_btl_rwv_gate_check_now (const opal_free_list_t *list);
#    define mca_btl_rwv_gate_check(list)                                                                            \
        do {                                                                                                      \
            if (OPAL_UNLIKELY(mca_btl_rwv_test_gate)) {                                                           \
                mca_btl_rwv_gate_check_now (list);                                                                \
            }                                                                                                     \
        } while (0)
#else
#    define mca_btl_rwv_gate_check(list) ((void) 0)
#endif

static inline opal_free_list_item_t *mca_btl_rwv_list_get (opal_free_list_t *list)
{
    mca_btl_rwv_gate_check (list);
    return opal_free_list_get (list);
}

static inline void mca_btl_rwv_list_return (opal_free_list_t *list, opal_free_list_item_t *item)
{
    mca_btl_rwv_gate_check (list);
    opal_free_list_return (list, item);
}

/* The connection thread: enter when no application thread is in rwv (no
 * lock held, no progress pass), and keep them out until leaving. */
void mca_btl_rwv_gate_enter (mca_btl_rwv_module_t *module);
void mca_btl_rwv_gate_leave (mca_btl_rwv_module_t *module);
/* Before the connection thread starts: can the application side go
 * without a fence?  If not, gate.fenced: a mutex for everyone. */
void mca_btl_rwv_gate_prepare (mca_btl_rwv_module_t *module);

END_C_DECLS

#endif /* MCA_BTL_RWV_LOCK_H */
