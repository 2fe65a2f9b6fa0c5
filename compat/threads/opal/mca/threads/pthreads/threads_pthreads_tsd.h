/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/* The threads component's half of opal/mca/threads/tsd.h (see
 * threads_pthreads_mutex.h here for why this file exists). */
#ifndef RWV_COMPAT_THREADS_PTHREADS_TSD_H
#define RWV_COMPAT_THREADS_PTHREADS_TSD_H

#include <pthread.h>

#include "opal/constants.h"

typedef pthread_key_t opal_tsd_key_t;

static inline int opal_tsd_key_delete (opal_tsd_key_t key)
{
    return 0 == pthread_key_delete (key) ? OPAL_SUCCESS : OPAL_ERR_IN_ERRNO;
}

static inline int opal_tsd_set (opal_tsd_key_t key, void *value)
{
    return 0 == pthread_setspecific (key, value) ? OPAL_SUCCESS : OPAL_ERR_IN_ERRNO;
}

static inline int opal_tsd_get (opal_tsd_key_t key, void **value)
{
    *value = pthread_getspecific (key);
    return OPAL_SUCCESS;
}

#endif
