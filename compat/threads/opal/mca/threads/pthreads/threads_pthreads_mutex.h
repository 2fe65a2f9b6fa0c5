/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Open MPI 5.0 installs opal/mca/threads/mutex.h, which includes this
 * header of its pthreads threads component, but does not install it
 * (Debian 13's libopenmpi-dev has the same gap).  configure adds this
 * directory only when the installed one is missing, and checks that an
 * opal_mutex_t built from it is the size libopen-pal's own class says.
 *
 * What Open MPI's mutex and condition code needs from its threads
 * component: the thread library's types, and thin calls into it.
 */
#ifndef RWV_COMPAT_THREADS_PTHREADS_MUTEX_H
#define RWV_COMPAT_THREADS_PTHREADS_MUTEX_H

#include "opal_config.h"

#include <pthread.h>
#include <stdbool.h>

#include "opal/class/opal_object.h"
#include "opal/constants.h"

typedef pthread_mutex_t opal_thread_internal_mutex_t;
typedef pthread_cond_t opal_thread_internal_cond_t;

#define OPAL_THREAD_INTERNAL_MUTEX_INITIALIZER PTHREAD_MUTEX_INITIALIZER
#define OPAL_THREAD_INTERNAL_RECURSIVE_MUTEX_INITIALIZER PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP
#define OPAL_THREAD_INTERNAL_COND_INITIALIZER PTHREAD_COND_INITIALIZER

static inline int opal_thread_internal_mutex_init (opal_thread_internal_mutex_t *mutex, bool recursive)
{
    pthread_mutexattr_t attr;
    int rc;

    if (!recursive) {
        return 0 == pthread_mutex_init (mutex, NULL) ? OPAL_SUCCESS : OPAL_ERR_IN_ERRNO;
    }
    if (0 != pthread_mutexattr_init (&attr)) {
        return OPAL_ERR_IN_ERRNO;
    }
    rc = pthread_mutexattr_settype (&attr, PTHREAD_MUTEX_RECURSIVE);
    if (0 == rc) {
        rc = pthread_mutex_init (mutex, &attr);
    }
    pthread_mutexattr_destroy (&attr);
    return 0 == rc ? OPAL_SUCCESS : OPAL_ERR_IN_ERRNO;
}

static inline void opal_thread_internal_mutex_lock (opal_thread_internal_mutex_t *mutex)
{
    (void) pthread_mutex_lock (mutex);
}

/* 0 when taken, 1 when another thread holds it */
static inline int opal_thread_internal_mutex_trylock (opal_thread_internal_mutex_t *mutex)
{
    return 0 == pthread_mutex_trylock (mutex) ? 0 : 1;
}

static inline void opal_thread_internal_mutex_unlock (opal_thread_internal_mutex_t *mutex)
{
    (void) pthread_mutex_unlock (mutex);
}

static inline void opal_thread_internal_mutex_destroy (opal_thread_internal_mutex_t *mutex)
{
    (void) pthread_mutex_destroy (mutex);
}

static inline int opal_thread_internal_cond_init (opal_thread_internal_cond_t *cond)
{
    return 0 == pthread_cond_init (cond, NULL) ? OPAL_SUCCESS : OPAL_ERR_IN_ERRNO;
}

static inline void opal_thread_internal_cond_wait (opal_thread_internal_cond_t *cond,
                                                   opal_thread_internal_mutex_t *mutex)
{
    (void) pthread_cond_wait (cond, mutex);
}

static inline void opal_thread_internal_cond_broadcast (opal_thread_internal_cond_t *cond)
{
    (void) pthread_cond_broadcast (cond);
}

static inline void opal_thread_internal_cond_signal (opal_thread_internal_cond_t *cond)
{
    (void) pthread_cond_signal (cond);
}

static inline void opal_thread_internal_cond_destroy (opal_thread_internal_cond_t *cond)
{
    (void) pthread_cond_destroy (cond);
}

#endif
