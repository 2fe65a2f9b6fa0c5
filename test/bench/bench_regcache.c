/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * Cost of a register+deregister pair through a registration cache, on a hit
 * (the same buffer again, as a BTL sees for a reused send buffer) and on a
 * miss (a page the cache has not seen), for several rcache components in
 * the same process and the same run.  The register callbacks do nothing, so
 * the figures are the cache's own overhead.  Prints a markdown table with
 * medians of the repeats and the ratio to the first cache named.
 *
 *   bench_regcache [-r repeats] [-n hit_pairs] [-m miss_pages] CACHE...
 */
#include "opal_config.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "bench_stats.h"

#include "opal/mca/rcache/base/base.h"

#define MAX_CACHES 4
#define MAX_REPEATS 101

static int noop_register (void *ctx, void *base, size_t size, mca_rcache_base_registration_t *reg)
{
    return OPAL_SUCCESS;
}

static int noop_deregister (void *ctx, mca_rcache_base_registration_t *reg)
{
    return OPAL_SUCCESS;
}

static double now_ns (void)
{
    struct timespec ts;

    clock_gettime (CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void pair (mca_rcache_base_module_t *rc, void *addr, size_t size)
{
    mca_rcache_base_registration_t *reg;

    if (OPAL_SUCCESS != rc->rcache_register (rc, addr, size, 0, MCA_RCACHE_ACCESS_ANY, &reg)) {
        fprintf (stderr, "register failed\n");
        MPI_Abort (MPI_COMM_WORLD, 2);
    }
    rc->rcache_deregister (rc, reg);
}

static double time_hits (mca_rcache_base_module_t *rc, char *buf, size_t size, long pairs)
{
    double t0;

    pair (rc, buf, size); /* warm: from here on every pair is a hit */
    t0 = now_ns ();
    for (long i = 0 ; i < pairs ; ++i) {
        pair (rc, buf, size);
    }
    return (now_ns () - t0) / pairs;
}

static double time_misses (mca_rcache_base_module_t *rc, char *region, size_t page, long pages)
{
    double t0, elapsed;

    t0 = now_ns ();
    for (long i = 0 ; i < pages ; ++i) {
        pair (rc, region + i * page, page);
    }
    elapsed = now_ns () - t0;
    while (rc->rcache_evict (rc)) {
        /* start the next repeat from an empty cache, untimed */
    }
    return elapsed / pages;
}

int main (int argc, char **argv)
{
    int repeats = 11, opt, ncaches;
    long hit_pairs = 1000000, miss_pages = 1024;
    size_t page = (size_t) sysconf (_SC_PAGESIZE);
    mca_rcache_base_module_t *rc[MAX_CACHES];
    double hit[MAX_CACHES][MAX_REPEATS], miss[MAX_CACHES][MAX_REPEATS];
    const char **names;
    char *buf, *region;

    while (-1 != (opt = getopt (argc, argv, "r:n:m:"))) {
        switch (opt) {
        case 'r': repeats = atoi (optarg); break;
        case 'n': hit_pairs = atol (optarg); break;
        case 'm': miss_pages = atol (optarg); break;
        default:
            fprintf (stderr, "usage: %s [-r repeats] [-n hit_pairs] [-m miss_pages] CACHE...\n", argv[0]);
            return 2;
        }
    }
    ncaches = argc - optind;
    names = (const char **) argv + optind;
    if (ncaches < 1 || ncaches > MAX_CACHES || repeats < 1 || repeats > MAX_REPEATS ||
        hit_pairs < 1 || miss_pages < 1) {
        fprintf (stderr, "usage: %s [-r 1..%d] [-n hit_pairs] [-m miss_pages] CACHE... (1 to %d)\n",
                 argv[0], MAX_REPEATS, MAX_CACHES);
        return 2;
    }

    MPI_Init (&argc, &argv);
    for (int c = 0 ; c < ncaches ; ++c) {
        mca_rcache_base_resources_t res = {
            .cache_name = "bench", .sizeof_reg = sizeof (mca_rcache_base_registration_t),
            .register_mem = noop_register, .deregister_mem = noop_deregister,
        };
        rc[c] = mca_rcache_base_module_create (names[c], NULL, &res);
        if (NULL == rc[c]) {
            fprintf (stderr, "rcache component %s could not be created\n", names[c]);
            MPI_Abort (MPI_COMM_WORLD, 2);
        }
    }
    buf = mmap (NULL, 64 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    region = mmap (NULL, miss_pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (MAP_FAILED == buf || MAP_FAILED == region) {
        perror ("mmap");
        MPI_Abort (MPI_COMM_WORLD, 2);
    }

    /* interleave the contenders in every repeat so drift hits them alike */
    for (int r = 0 ; r < repeats ; ++r) {
        for (int c = 0 ; c < ncaches ; ++c) {
            hit[c][r] = time_hits (rc[c], buf + 100, 64 * 1024, hit_pairs);
            miss[c][r] = time_misses (rc[c], region, page, miss_pages);
        }
    }

    printf ("| rcache | hit pair (ns) | miss pair (ns) | hit vs %s | miss vs %s |\n", names[0], names[0]);
    printf ("|---|---:|---:|---:|---:|\n");
    double hit0 = bench_median (hit[0], repeats), miss0 = bench_median (miss[0], repeats);
    for (int c = 0 ; c < ncaches ; ++c) {
        double h = bench_median (hit[c], repeats), m = bench_median (miss[c], repeats);
        printf ("| %s | %.1f | %.1f | %.2fx | %.2fx |\n", names[c], h, m, h / hit0, m / miss0);
    }
    printf ("\nmedians of %d repeats; hit: %ld pairs on one 64 KiB buffer; miss: %ld distinct pages "
            "into an empty cache; no-op register callbacks (cache overhead only)\n",
            repeats, hit_pairs, miss_pages);

    for (int c = 0 ; c < ncaches ; ++c) {
        mca_rcache_base_module_destroy (rc[c]);
    }
    munmap (buf, 64 * page);
    munmap (region, miss_pages * page);
    MPI_Finalize ();
    return 0;
}
