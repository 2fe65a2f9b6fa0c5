/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/* Resident memory of this process, for tests that bound memory growth. */
#ifndef RWV_TEST_RSS_H
#define RWV_TEST_RSS_H

#include <stdio.h>
#include <unistd.h>

/* resident memory now, in KiB */
static inline long rss_kib (void)
{
    long pages = 0, resident = 0;
    FILE *f = fopen ("/proc/self/statm", "r");

    if (NULL != f) {
        if (2 != fscanf (f, "%ld %ld", &pages, &resident)) {
            resident = 0;
        }
        fclose (f);
    }
    return resident * (sysconf (_SC_PAGESIZE) / 1024);
}

#endif
