/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * rcache/regcache: a registration cache that stays correct when memory is
 * freed and reused, keeps pinned memory bounded and counts what it does.
 *
 * Invariant that everything below relies on: the valid entries in the
 * lookup tree never overlap.  A request that overlaps cached entries gets
 * one registration covering their union, and the old entries leave the
 * tree.  Because of that a point lookup in Open MPI's interval tree (a
 * search ordered by base address) finds the only entry that can cover a
 * range, in O(log n), and an idle entry can always be evicted or merged
 * without leaving a hole in another entry's coverage.
 *
 * An entry is in exactly one of these states:
 *   cached, in use     in the tree, ref_count > 0, on no list
 *   cached, idle       in the tree, ref_count == 0, on the LRU list
 *   invalidated        INVALID, still in the tree, on the pending list; a
 *                      memory hook found its pages unmapped and only marked
 *                      it (no deregistration inside free/munmap)
 *   detached           DETACHED, not in the tree, on no list; deregistered
 *                      when its last reference goes (uncached, persistent,
 *                      merged away while in use, or invalidated while in use)
 */
#ifndef MCA_RCACHE_REGCACHE_H
#define MCA_RCACHE_REGCACHE_H

#include "opal_config.h"

#include "opal/class/opal_interval_tree.h"
#include "opal/class/opal_free_list.h"
#include "opal/class/opal_list.h"
#include "opal/mca/rcache/rcache.h"
#include "opal/sys/atomic.h"

#include <pthread.h>
#include <sched.h>

BEGIN_C_DECLS

/* the entry is out of the tree; deregister it on its last release */
#define MCA_RCACHE_REGCACHE_FLAG_DETACHED MCA_RCACHE_FLAGS_MOD_RESV0

/* Counters of one cache.  Also the layout the MPI_T performance variables
 * read (summed over every live cache and the ones already finalized). */
typedef struct mca_rcache_regcache_stats_t {
    uint64_t hits;            /* register() satisfied by a cached entry */
    uint64_t misses;          /* register() that created a registration */
    uint64_t evictions;       /* idle entries deregistered to make room */
    uint64_t invalidations;   /* entries hit by free/munmap/mremap */
    uint64_t uncached;        /* registrations made outside the cache */
    uint64_t pinned_bytes;    /* bytes registered now, cached or not */
    uint64_t cached_bytes;    /* bytes of the entries in the tree */
    uint64_t cached_entries;  /* entries in the tree */
} mca_rcache_regcache_stats_t;

typedef struct mca_rcache_regcache_component_t {
    mca_rcache_base_component_t super;

    /* MCA parameters */
    int64_t max_pinned_bytes;
    int64_t max_entries;
    bool print_stats;

    /* live caches, so the performance variables can sum them */
    opal_list_t modules;
    opal_mutex_t modules_lock;
    /* counters of caches already finalized */
    mca_rcache_regcache_stats_t finalized_stats;
} mca_rcache_regcache_component_t;

OPAL_DECLSPEC extern mca_rcache_regcache_component_t mca_rcache_regcache_component;

typedef struct mca_rcache_regcache_module_t {
    mca_rcache_base_module_t super;
    /* membership in mca_rcache_regcache_component.modules */
    opal_list_item_t component_item;

    mca_rcache_base_resources_t resources;
    size_t page_size;
    uint64_t max_bytes;
    uint64_t max_entries;
    /* false without memory hooks: an idle entry could go stale unnoticed */
    bool keep_idle;
    /* whether the hooks still reach us was checked (at the first
     * deregister: another library may have silenced them since the cache
     * was made); the page unmapped to check, and whether the hook saw it */
    bool hooks_checked;
    unsigned char *probe_page;
    bool probe_seen;

    /* protects everything below; see mca_rcache_regcache_lock() */
    opal_atomic_lock_t lock;
    volatile uintptr_t lock_owner;  /* pthread_self() of the holder, 0 when free */
    int lock_depth;
    opal_interval_tree_t tree;
    opal_list_t lru;          /* idle cached entries, least recently released first */
    opal_list_t pending;      /* invalidated by a memory hook, not yet out of the tree */
    opal_free_list_t reg_list;
    /* the entry that served the last hit: repeated use of one buffer skips the tree */
    mca_rcache_base_registration_t *mru;
    mca_rcache_regcache_stats_t stats;
} mca_rcache_regcache_module_t;

/* The cache lock.  Always taken, even without MPI_THREAD_MULTIPLE, because
 * any thread may free memory and so run the memory hook.  Re-entrant,
 * because that hook can fire inside our own critical section when a
 * register/deregister callback or an allocation frees memory.  A spinlock
 * tagged with its owner costs a fraction of a recursive pthread mutex,
 * which would be most of a cache hit.  The owner is pthread_self(), not a
 * __thread variable: in a dlopen()ed library a thread's first touch of one
 * calls malloc, and this lock is taken inside free(). */
static inline void mca_rcache_regcache_lock (mca_rcache_regcache_module_t *cache)
{
    const uintptr_t self = (uintptr_t) pthread_self ();

    if (cache->lock_owner == self) {
        ++cache->lock_depth;
        return;
    }
    while (opal_atomic_trylock (&cache->lock)) {
        sched_yield (); /* the holder may be inside a slow registration */
    }
    cache->lock_owner = self;
    cache->lock_depth = 1;
}

static inline void mca_rcache_regcache_unlock (mca_rcache_regcache_module_t *cache)
{
    if (0 == --cache->lock_depth) {
        cache->lock_owner = 0;
        opal_atomic_unlock (&cache->lock);
    }
}

mca_rcache_base_module_t *mca_rcache_regcache_module_create (mca_rcache_base_resources_t *resources);

END_C_DECLS

#endif /* MCA_RCACHE_REGCACHE_H */
