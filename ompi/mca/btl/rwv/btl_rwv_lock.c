/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * The slow sides of the module gate (btl_rwv_lock.h): the connection
 * thread's entry, with the one fence both sides need, and the application
 * thread's wait when it finds that thread in.
 * Layer: helpers (docs/layout.md).
 */
#include "opal_config.h"

#include <linux/membarrier.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "opal/mca/btl/base/base.h"
#include "opal/util/output.h"

#include "btl_rwv.h"

static int rwv_membarrier (int cmd)
{
    return (int) syscall (SYS_membarrier, cmd, 0, 0);
}

void mca_btl_rwv_gate_prepare (mca_btl_rwv_module_t *module)
{
    int supported = rwv_membarrier (MEMBARRIER_CMD_QUERY);

    module->gate.fenced = supported < 0 || !(supported & MEMBARRIER_CMD_PRIVATE_EXPEDITED) ||
        0 != rwv_membarrier (MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED);
    if (module->gate.fenced) {
        opal_output_verbose (MCA_BASE_VERBOSE_INFO, opal_btl_base_framework.framework_output,
                             "btl/rwv: the kernel offers no private expedited membarrier: rwv's lock is a "
                             "mutex while its connection thread runs");
    }
}

/* One write however often the thread is found in before it takes the
 * ask. */
void mca_btl_rwv_gate_ask (mca_btl_rwv_module_t *module)
{
    uint64_t one = 1;

    if (!__atomic_exchange_n (&module->gate.asked, 1, __ATOMIC_SEQ_CST)) {
        (void) !write (module->cm.ask_fd, &one, sizeof (one));
    }
}

/* A progress pass holds the gate already: the connection thread is not
 * in (it waits for the pass to end), so a lock taken inside goes on. */
void mca_btl_rwv_gate_wait (mca_btl_rwv_module_t *module)
{
    /* nested in our own progress pass (the connection thread itself takes
     * no count: mca_btl_rwv_gate_holder) */
    if (module->progressing) {
        return;
    }
    __atomic_store_n (&module->gate.waiting, 1, __ATOMIC_SEQ_CST);
    do {
        __atomic_store_n (&module->gate.depth, 0, __ATOMIC_RELEASE);
        mca_btl_rwv_gate_ask (module);
        while (__atomic_load_n (&module->gate.cm_in, __ATOMIC_ACQUIRE)) {
            sched_yield ();
        }
        module->gate.depth = 1;
        __atomic_signal_fence (__ATOMIC_SEQ_CST);
    } while (__atomic_load_n (&module->gate.cm_in, __ATOMIC_ACQUIRE));
    __atomic_store_n (&module->gate.waiting, 0, __ATOMIC_RELEASE);
}

static uint64_t rwv_now_ns (void)
{
    struct timespec t;

    clock_gettime (CLOCK_MONOTONIC, &t);
    return (uint64_t) t.tv_sec * 1000000000u + (uint64_t) t.tv_nsec;
}

static bool rwv_app_inside (mca_btl_rwv_module_t *module)
{
    return __atomic_load_n (&module->gate.depth, __ATOMIC_ACQUIRE) ||
        __atomic_load_n (&module->progressing, __ATOMIC_ACQUIRE);
}

/* Nested, the connection thread is in already: a serving turn holds the
 * gate throughout (btl_rwv_cm_thread.c) and pays one fence, not one per
 * step. */
void mca_btl_rwv_gate_enter (mca_btl_rwv_module_t *module)
{
    int32_t idle = 0;
    uint64_t since;

    if (module->gate.cm_depth++ > 0) {
        return;
    }
    __atomic_store_n (&module->gate.cm_in, 1, __ATOMIC_SEQ_CST);
    if (mca_btl_rwv_locks_real (module)) {
        if (!opal_atomic_compare_exchange_strong_32 (&module->progressing, &idle, 1)) {
            since = rwv_now_ns ();
            do {
                idle = 0;
                sched_yield ();
            } while (!opal_atomic_compare_exchange_strong_32 (&module->progressing, &idle, 1));
            module->cm.gate_wait_ns += rwv_now_ns () - since;
        }
        opal_mutex_lock (&module->lock);
        return;
    }
    /* every running thread of ours fences: its earlier stores are seen
     * below, and its later loads see cm_in */
    (void) rwv_membarrier (MEMBARRIER_CMD_PRIVATE_EXPEDITED);
    if (rwv_app_inside (module)) {
        since = rwv_now_ns ();
        do {
            sched_yield ();
        } while (rwv_app_inside (module));
        module->cm.gate_wait_ns += rwv_now_ns () - since;
    }
}

void mca_btl_rwv_gate_leave (mca_btl_rwv_module_t *module)
{
    if (--module->gate.cm_depth > 0) {
        return;
    }
    if (mca_btl_rwv_locks_real (module)) {
        opal_mutex_unlock (&module->lock);
        __atomic_store_n (&module->progressing, 0, __ATOMIC_RELEASE);
    }
    __atomic_store_n (&module->gate.cm_in, 0, __ATOMIC_RELEASE);
}

#if RWV_TEST_FAULTS
static const char *rwv_list_name (const mca_btl_rwv_module_t *module, const opal_free_list_t *list)
{
    if (list == &module->eager_frags || list == &module->small_frags) {
        return "send buffers";
    }
    if (list == &module->rdma_ops || list == &module->pieces) {
        return "put/get requests";
    }
    if (list == &module->atomics) {
        return "atomics";
    }
    return list == &module->cma_handles ? "single-copy handles" : "a rail's write batches";
}

/* The application thread holds the gate while it counts a depth or runs a
 * pass, the connection thread while it counts its own.  With MPI threads
 * the lists are atomic; a fenced gate is a mutex, whose holder is not
 * recorded, and goes unchecked. */
void mca_btl_rwv_gate_check_now (const opal_free_list_t *list)
{
    mca_btl_rwv_module_t *module = mca_btl_rwv_component.module;
    bool cm_thread;

    if (opal_using_threads () || module->gate.fenced || !module->cm.running) {
        return;
    }
    cm_thread = pthread_equal (pthread_self (), module->cm.thread);
    if (cm_thread ? module->gate.cm_depth > 0 : module->gate.depth > 0 || module->progressing) {
        return;
    }
    opal_output (0, "btl/rwv: %s taken or given back outside the gate by the %s thread (a race with the other "
                 "thread)", rwv_list_name (module, list), cm_thread ? "connection" : "application");
    abort ();
}
#endif
