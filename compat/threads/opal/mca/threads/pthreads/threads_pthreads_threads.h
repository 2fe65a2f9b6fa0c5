/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/* The threads component's half of opal/mca/threads/threads.h (see
 * threads_pthreads_mutex.h here for why this file exists). */
#ifndef RWV_COMPAT_THREADS_PTHREADS_THREADS_H
#define RWV_COMPAT_THREADS_PTHREADS_THREADS_H

#include <pthread.h>

#include "opal/mca/threads/threads.h"

#define OPAL_THREAD_YIELD_WHEN_IDLE_DEFAULT false

/* libopen-pal's yield, chosen by its threads_pthreads_yield_strategy */
OPAL_DECLSPEC extern void (*opal_threads_pthreads_yield_fn) (void);

static inline void opal_thread_yield (void)
{
    opal_threads_pthreads_yield_fn ();
}

#endif
