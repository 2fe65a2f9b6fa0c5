/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * rcache/regcache module: register, deregister, find, invalidate, evict,
 * finalize.  The state machine is described in rcache_regcache.h.
 */
#include "opal_config.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "opal/align.h"
#include "opal/util/output.h"
#include "opal/util/proc.h"
#include "opal/util/sys_limits.h"
#include "opal/mca/rcache/base/base.h"
#include "opal/memoryhooks/memory.h"
#include "opal/runtime/opal_params.h"

#include "rcache_regcache.h"
#include "rwv_show_help.h"

#define REG_LIST_ITEM(reg) ((opal_list_item_t *) (reg))
#define REG_SIZE(reg) ((uint64_t) ((reg)->bound - (reg)->base) + 1)

static inline mca_rcache_regcache_module_t *regcache_of (mca_rcache_base_module_t *rcache)
{
    return (mca_rcache_regcache_module_t *) rcache;
}

static inline bool regcache_covers (const mca_rcache_base_registration_t *reg,
                                    const unsigned char *base, const unsigned char *bound)
{
    return reg->base <= base && reg->bound >= bound;
}

/* ------------------------------------------------------------ entry life */

/* Give the registration back to its owner and recycle the record. */
static void regcache_release (mca_rcache_regcache_module_t *cache, mca_rcache_base_registration_t *reg)
{
    int rc = cache->resources.deregister_mem (cache->resources.reg_data, reg);

    cache->stats.pinned_bytes -= REG_SIZE(reg);
    if (OPAL_UNLIKELY(OPAL_SUCCESS != rc)) {
        /* the owner still holds resources behind this record: never hand it out again */
        opal_output_verbose (MCA_BASE_VERBOSE_WARN, opal_rcache_base_framework.framework_output,
                             "rcache/regcache: deregistering [%p, %p] failed (%d); record leaked",
                             (void *) reg->base, (void *) reg->bound, rc);
        return;
    }
    reg->flags = 0;
    opal_free_list_return (&cache->reg_list, (opal_free_list_item_t *) reg);
}

/* Take the entry out of the lookup tree.  It lives on until its last reference. */
static void regcache_detach (mca_rcache_regcache_module_t *cache, mca_rcache_base_registration_t *reg)
{
    (void) opal_interval_tree_delete (&cache->tree, (uintptr_t) reg->base,
                                      (uintptr_t) reg->bound + 1, reg);
    cache->stats.cached_bytes -= REG_SIZE(reg);
    --cache->stats.cached_entries;
    reg->flags |= MCA_RCACHE_REGCACHE_FLAG_DETACHED;
    if (cache->mru == reg) {
        cache->mru = NULL;
    }
}

/* Take an entry out of the cache for good: released now if idle, else at
 * its last deregister. */
static void regcache_retire (mca_rcache_regcache_module_t *cache, mca_rcache_base_registration_t *reg)
{
    if (reg->flags & MCA_RCACHE_FLAGS_INVALID) {
        opal_list_remove_item (&cache->pending, REG_LIST_ITEM(reg));
    } else if (0 == reg->ref_count) {
        opal_list_remove_item (&cache->lru, REG_LIST_ITEM(reg));
    }
    regcache_detach (cache, reg);
    if (0 == reg->ref_count) {
        regcache_release (cache, reg);
    }
}

/* Finish, outside any memory hook, what the hooks only marked. */
static void regcache_drain_pending (mca_rcache_regcache_module_t *cache)
{
    while (!opal_list_is_empty (&cache->pending)) {
        regcache_retire (cache, (mca_rcache_base_registration_t *) opal_list_get_first (&cache->pending));
    }
}

static bool regcache_evict_one (mca_rcache_regcache_module_t *cache)
{
    mca_rcache_base_registration_t *reg =
        (mca_rcache_base_registration_t *) opal_list_get_first (&cache->lru);

    if (REG_LIST_ITEM(reg) == opal_list_get_end (&cache->lru)) {
        return false;
    }
    regcache_retire (cache, reg);
    ++cache->stats.evictions;
    return true;
}

static void regcache_acquire (mca_rcache_regcache_module_t *cache, mca_rcache_base_registration_t *reg)
{
    if (0 == reg->ref_count++) {
        opal_list_remove_item (&cache->lru, REG_LIST_ITEM(reg));
    }
}

/* ------------------------------------------------------------ lookups */

/* The valid cached entry covering [base, bound], if any.  Exact because
 * cached entries never overlap (see rcache_regcache.h). */
static mca_rcache_base_registration_t *regcache_lookup (mca_rcache_regcache_module_t *cache,
                                                        unsigned char *base, unsigned char *bound)
{
    mca_rcache_base_registration_t *reg = cache->mru;

    if (NULL != reg && regcache_covers (reg, base, bound)) {
        return reg;
    }
    return (mca_rcache_base_registration_t *)
        opal_interval_tree_find_overlapping (&cache->tree, (uintptr_t) base, (uintptr_t) bound + 1);
}

typedef int (*regcache_visit_fn_t) (mca_rcache_base_registration_t *reg, void *ctx);

/* Visit the entries overlapping [base, bound] in address order until `visit'
 * returns non-zero.  The walk reads the tree's nodes itself instead of
 * calling opal_interval_tree_traverse(), whose in-order walk descends both
 * subtrees of every node whatever the range: the whole tree, on every miss
 * and in every memory hook.  Because no two
 * of our entries overlap, the order by base address alone limits this walk
 * to O(log n + matches).  It reads only what the installed header declares
 * (a node's low, high, left, right and data; the tree's root and nill
 * sentinels), the same in Open MPI 4.1, 5.0 and 6.0; traverse's reader
 * token is not needed, since the cache's lock keeps writers out.  The
 * visitor must not change the tree. */
static int regcache_walk (const opal_interval_tree_t *tree, const opal_interval_tree_node_t *node,
                          uintptr_t base, uintptr_t bound, regcache_visit_fn_t visit, void *ctx)
{
    int rc;

    if (node == &tree->nill) {
        return 0;
    }
    /* entries to the left end at or before node->low */
    if (node->low > base && 0 != (rc = regcache_walk (tree, node->left, base, bound, visit, ctx))) {
        return rc;
    }
    if (node->low <= bound && node->high > base &&
        0 != (rc = visit ((mca_rcache_base_registration_t *) node->data, ctx))) {
        return rc;
    }
    /* entries to the right start at or after node->high */
    if (node->high <= bound) {
        return regcache_walk (tree, node->right, base, bound, visit, ctx);
    }
    return 0;
}

static int regcache_walk_range (mca_rcache_regcache_module_t *cache, unsigned char *base,
                                unsigned char *bound, regcache_visit_fn_t visit, void *ctx)
{
    return regcache_walk (&cache->tree, cache->tree.root.left, (uintptr_t) base, (uintptr_t) bound,
                          visit, ctx);
}

static int regcache_found (mca_rcache_base_registration_t *reg, void *ctx)
{
    *(mca_rcache_base_registration_t **) ctx = reg;
    return 1;
}

static mca_rcache_base_registration_t *regcache_first_overlap (mca_rcache_regcache_module_t *cache,
                                                               unsigned char *base, unsigned char *bound)
{
    mca_rcache_base_registration_t *reg = NULL;

    (void) regcache_walk_range (cache, base, bound, regcache_found, &reg);
    return reg;
}

/* ------------------------------------------------------------ misses */

/* Grow [*base, *bound] over every cached entry it overlaps (unless the union
 * would exceed the byte limit) and take those entries out of the tree, so
 * the new registration can go in without breaking the no-overlap rule.  An
 * entry with weaker access flags is absorbed the same way: that is the
 * access-flag upgrade.  An invalidated entry (a memory hook fired inside
 * this very operation) leaves too, but its pages may be gone, so the range
 * does not grow over it. */
static void regcache_absorb_overlaps (mca_rcache_regcache_module_t *cache, unsigned char **base,
                                      unsigned char **bound, int32_t *access_flags)
{
    mca_rcache_base_registration_t *reg;

    while (NULL != (reg = regcache_first_overlap (cache, *base, *bound))) {
        unsigned char *ubase = reg->base < *base ? reg->base : *base;
        unsigned char *ubound = reg->bound > *bound ? reg->bound : *bound;

        if (!(reg->flags & MCA_RCACHE_FLAGS_INVALID) && (uint64_t) (ubound - ubase) + 1 <= cache->max_bytes) {
            *base = ubase;
            *bound = ubound;
            *access_flags |= reg->access_flags;
        }
        regcache_retire (cache, reg);
    }
}

/* Evict idle entries until `size' more bytes and one more entry fit. */
static bool regcache_make_room (mca_rcache_regcache_module_t *cache, uint64_t size)
{
    if (size > cache->max_bytes) {
        return false;
    }
    while (cache->stats.cached_bytes + size > cache->max_bytes ||
           cache->stats.cached_entries + 1 > cache->max_entries) {
        if (!regcache_evict_one (cache)) {
            return false;
        }
    }
    return true;
}

static int regcache_create (mca_rcache_regcache_module_t *cache, unsigned char *base, unsigned char *bound,
                            uint32_t flags, int32_t access_flags, bool cached,
                            mca_rcache_base_registration_t **reg_out)
{
    mca_rcache_base_registration_t *reg;
    int rc;

    reg = (mca_rcache_base_registration_t *) opal_free_list_get (&cache->reg_list);
    if (OPAL_UNLIKELY(NULL == reg)) {
        return OPAL_ERR_OUT_OF_RESOURCE;
    }
    reg->rcache = &cache->super;
    reg->base = base;
    reg->bound = bound;
    reg->flags = flags;
    reg->access_flags = access_flags;
    reg->ref_count = 1;

    /* the owner ran out of registration resources: give back idle entries and retry */
    while (OPAL_ERR_OUT_OF_RESOURCE ==
           (rc = cache->resources.register_mem (cache->resources.reg_data, base, REG_SIZE(reg), reg)) &&
           regcache_evict_one (cache));
    if (OPAL_UNLIKELY(OPAL_SUCCESS != rc)) {
        opal_free_list_return (&cache->reg_list, (opal_free_list_item_t *) reg);
        return rc;
    }
    cache->stats.pinned_bytes += REG_SIZE(reg);

    if (cached) {
        rc = opal_interval_tree_insert (&cache->tree, reg, (uintptr_t) base, (uintptr_t) bound + 1);
        cached = (OPAL_SUCCESS == rc);
    }
    if (cached) {
        cache->stats.cached_bytes += REG_SIZE(reg);
        ++cache->stats.cached_entries;
    } else {
        reg->flags |= MCA_RCACHE_REGCACHE_FLAG_DETACHED;
        ++cache->stats.uncached;
    }

    *reg_out = reg;
    return OPAL_SUCCESS;
}

static int regcache_register_miss (mca_rcache_regcache_module_t *cache, unsigned char *base,
                                   unsigned char *bound, uint32_t flags, int32_t access_flags,
                                   mca_rcache_base_registration_t **reg_out)
{
    bool cached;

    ++cache->stats.misses;
    regcache_absorb_overlaps (cache, &base, &bound, &access_flags);
    /* when every cached byte is in use, register outside the cache rather than fail */
    cached = regcache_make_room (cache, (uint64_t) (bound - base) + 1);
    return regcache_create (cache, base, bound, flags, access_flags, cached, reg_out);
}

/* ------------------------------------------------------------ module API */

static void regcache_page_range (mca_rcache_regcache_module_t *cache, void *addr, size_t size,
                                 unsigned char **base, unsigned char **bound)
{
    *base = OPAL_DOWN_ALIGN_PTR(addr, cache->page_size, unsigned char *);
    *bound = OPAL_ALIGN_PTR((uintptr_t) addr + (size ? size : 1), cache->page_size, unsigned char *) - 1;
}

static int mca_rcache_regcache_register (mca_rcache_base_module_t *rcache, void *addr, size_t size,
                                         uint32_t flags, int32_t access_flags,
                                         mca_rcache_base_registration_t **reg)
{
    mca_rcache_regcache_module_t *cache = regcache_of (rcache);
    mca_rcache_base_registration_t *found;
    unsigned char *base, *bound;
    int rc = OPAL_SUCCESS;

    *reg = NULL;
    if (OPAL_UNLIKELY(flags & MCA_RCACHE_FLAGS_INVALID)) {
        return OPAL_ERR_BAD_PARAM;
    }
    regcache_page_range (cache, addr, size, &base, &bound);

    mca_rcache_regcache_lock (cache);
    if (OPAL_UNLIKELY(!opal_list_is_empty (&cache->pending))) {
        regcache_drain_pending (cache);
    }

    if (OPAL_UNLIKELY(flags & (MCA_RCACHE_FLAGS_CACHE_BYPASS | MCA_RCACHE_FLAGS_PERSIST))) {
        rc = regcache_create (cache, base, bound, flags, access_flags, false, reg);
    } else if (NULL != (found = regcache_lookup (cache, base, bound)) &&
               access_flags == (found->access_flags & access_flags)) {
        regcache_acquire (cache, found);
        ++cache->stats.hits;
        cache->mru = found;
        *reg = found;
    } else {
        rc = regcache_register_miss (cache, base, bound, flags, access_flags, reg);
    }
    mca_rcache_regcache_unlock (cache);

    return rc;
}

/* From now on every registration goes when its last user does; the idle
 * ones go now.  Said once per process. */
static void regcache_stop_keeping_idle (mca_rcache_regcache_module_t *cache)
{
    static bool told;

    cache->keep_idle = false;
    while (regcache_evict_one (cache)) {
    }
    if (!told) {
        told = true;
        rwv_show_help ("help-rcache-regcache.txt", "hooks silenced", true, OPAL_NAME_PRINT(OPAL_PROC_MY_NAME),
                       opal_process_info.nodename);
    }
}

/* Open MPI's memory hooks can stop reaching us after the cache was made:
 * under Open MPI 4.1, UCX's own hooks silence them when pml/ucx starts
 * after ob1 (--mca pml ob1,ucx or ^cm).  An idle entry of memory freed and
 * mapped again would then serve the new buffer with the old pages.  Unmap
 * a page of our own: the hook must see it (the lock is re-entrant). */
static void regcache_check_hooks (mca_rcache_regcache_module_t *cache)
{
    void *page = mmap (NULL, cache->page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    if (MAP_FAILED == page) {
        return; /* no page to spare: the next deregister looks again */
    }
    cache->hooks_checked = true;
    cache->probe_page = page;
    cache->probe_seen = false;
    (void) munmap (page, cache->page_size);
    cache->probe_page = NULL;
    if (!cache->probe_seen) {
        regcache_stop_keeping_idle (cache);
    }
}

static int mca_rcache_regcache_deregister (mca_rcache_base_module_t *rcache,
                                           mca_rcache_base_registration_t *reg)
{
    mca_rcache_regcache_module_t *cache = regcache_of (rcache);

    mca_rcache_regcache_lock (cache);
    if (OPAL_UNLIKELY(cache->keep_idle && !cache->hooks_checked)) {
        regcache_check_hooks (cache);
    }
    if (0 == --reg->ref_count) {
        if (reg->flags & MCA_RCACHE_REGCACHE_FLAG_DETACHED) {
            regcache_release (cache, reg);
        } else if (reg->flags & MCA_RCACHE_FLAGS_INVALID) {
            /* on the pending list; the next drain releases it */
        } else if (cache->keep_idle) {
            opal_list_append (&cache->lru, REG_LIST_ITEM(reg));
        } else {
            regcache_detach (cache, reg);
            regcache_release (cache, reg);
        }
    }
    mca_rcache_regcache_unlock (cache);

    return OPAL_SUCCESS;
}

static int mca_rcache_regcache_find (mca_rcache_base_module_t *rcache, void *addr, size_t size,
                                     mca_rcache_base_registration_t **reg)
{
    mca_rcache_regcache_module_t *cache = regcache_of (rcache);
    unsigned char *base, *bound;

    regcache_page_range (cache, addr, size, &base, &bound);

    mca_rcache_regcache_lock (cache);
    if (!opal_list_is_empty (&cache->pending)) {
        regcache_drain_pending (cache);
    }
    *reg = regcache_lookup (cache, base, bound);
    if (NULL != *reg) {
        regcache_acquire (cache, *reg);
    }
    mca_rcache_regcache_unlock (cache);

    return NULL != *reg ? OPAL_SUCCESS : OPAL_ERR_NOT_FOUND;
}

static int regcache_mark_invalid (mca_rcache_base_registration_t *reg, void *ctx)
{
    mca_rcache_regcache_module_t *cache = (mca_rcache_regcache_module_t *) ctx;

    if (reg->flags & MCA_RCACHE_FLAGS_INVALID) {
        return 0;
    }
    reg->flags |= MCA_RCACHE_FLAGS_INVALID;
    ++cache->stats.invalidations;
    if (cache->mru == reg) {
        cache->mru = NULL;
    }
    if (0 == reg->ref_count) {
        opal_list_remove_item (&cache->lru, REG_LIST_ITEM(reg));
    }
    opal_list_append (&cache->pending, REG_LIST_ITEM(reg));
    return 0;
}

/* Called by Open MPI's memory hooks from inside free/munmap/mremap, possibly
 * from inside malloc: mark only.  No deregistration, no tree change, no
 * allocation here; the next cache operation finishes the job.  Memory
 * freed while a transfer still uses it is the program's error, but not a
 * reason to kill the process: the entry can never be found again and is
 * deregistered when the transfer releases it. */
static int mca_rcache_regcache_invalidate_range (mca_rcache_base_module_t *rcache, void *addr, size_t size)
{
    mca_rcache_regcache_module_t *cache = regcache_of (rcache);

    if (0 == size) {
        return OPAL_SUCCESS;
    }
    mca_rcache_regcache_lock (cache);
    if (NULL != cache->probe_page && cache->probe_page >= (unsigned char *) addr &&
        cache->probe_page < (unsigned char *) addr + size) {
        cache->probe_seen = true;
    }
    (void) regcache_walk_range (cache, (unsigned char *) addr, (unsigned char *) addr + size - 1,
                                regcache_mark_invalid, cache);
    mca_rcache_regcache_unlock (cache);

    return OPAL_SUCCESS;
}

static bool mca_rcache_regcache_evict (mca_rcache_base_module_t *rcache)
{
    mca_rcache_regcache_module_t *cache = regcache_of (rcache);
    bool evicted;

    mca_rcache_regcache_lock (cache);
    regcache_drain_pending (cache);
    evicted = regcache_evict_one (cache);
    mca_rcache_regcache_unlock (cache);

    return evicted;
}

static void regcache_print_stats (mca_rcache_regcache_module_t *cache)
{
    const mca_rcache_regcache_stats_t *s = &cache->stats;

    opal_output (0, "%s rcache/regcache (%s) stats: hits %llu misses %llu evictions %llu "
                 "invalidations %llu uncached %llu pinned bytes %llu cached bytes %llu entries %llu",
                 OPAL_NAME_PRINT(OPAL_PROC_MY_NAME),
                 cache->resources.cache_name ? cache->resources.cache_name : "unnamed",
                 (unsigned long long) s->hits, (unsigned long long) s->misses,
                 (unsigned long long) s->evictions, (unsigned long long) s->invalidations,
                 (unsigned long long) s->uncached, (unsigned long long) s->pinned_bytes,
                 (unsigned long long) s->cached_bytes, (unsigned long long) s->cached_entries);
}

static void regcache_free (mca_rcache_regcache_module_t *cache)
{
    OBJ_DESTRUCT(&cache->component_item);
    OBJ_DESTRUCT(&cache->tree);
    OBJ_DESTRUCT(&cache->lru);
    OBJ_DESTRUCT(&cache->pending);
    OBJ_DESTRUCT(&cache->reg_list);
    free (cache->resources.cache_name);
    free (cache);
}

static void mca_rcache_regcache_finalize (mca_rcache_base_module_t *rcache)
{
    mca_rcache_regcache_module_t *cache = regcache_of (rcache);
    mca_rcache_regcache_component_t *component = &mca_rcache_regcache_component;
    mca_rcache_base_registration_t *reg;
    unsigned char *everything_bound = (unsigned char *) UINTPTR_MAX - 1;

    mca_rcache_regcache_lock (cache);
    regcache_drain_pending (cache);
    if (component->print_stats) {
        regcache_print_stats (cache);
    }
    /* the owner is shutting down: whatever it still holds goes too */
    while (NULL != (reg = regcache_first_overlap (cache, NULL, everything_bound))) {
        bool held = reg->ref_count > 0;

        regcache_retire (cache, reg);
        if (held) {
            regcache_release (cache, reg);
        }
    }
    mca_rcache_regcache_unlock (cache);

    opal_mutex_lock (&component->modules_lock);
    opal_list_remove_item (&component->modules, &cache->component_item);
    component->finalized_stats.hits += cache->stats.hits;
    component->finalized_stats.misses += cache->stats.misses;
    component->finalized_stats.evictions += cache->stats.evictions;
    component->finalized_stats.invalidations += cache->stats.invalidations;
    component->finalized_stats.uncached += cache->stats.uncached;
    opal_mutex_unlock (&component->modules_lock);

    regcache_free (cache);
}

/* Idle entries may only be kept when Open MPI's memory hooks will tell us
 * about free/munmap: the rcache base installs them unless the user turned
 * mpi_leave_pinned off, and only where the memory component can see both. */
static bool regcache_hooks_active (void)
{
    const int needed = OPAL_MEMORY_FREE_SUPPORT | OPAL_MEMORY_MUNMAP_SUPPORT;

    return (0 != opal_leave_pinned || opal_leave_pinned_pipeline) &&
        needed == (opal_mem_hooks_support_level () & needed);
}

mca_rcache_base_module_t *mca_rcache_regcache_module_create (mca_rcache_base_resources_t *resources)
{
    mca_rcache_regcache_component_t *component = &mca_rcache_regcache_component;
    mca_rcache_regcache_module_t *cache;
    size_t reg_size = resources->sizeof_reg;

    if (reg_size < sizeof (mca_rcache_base_registration_t)) {
        reg_size = sizeof (mca_rcache_base_registration_t);
    }

    cache = calloc (1, sizeof (*cache));
    if (NULL == cache) {
        return NULL;
    }
    cache->super.rcache_component = &component->super;
    cache->super.rcache_register = mca_rcache_regcache_register;
    cache->super.rcache_deregister = mca_rcache_regcache_deregister;
    cache->super.rcache_find = mca_rcache_regcache_find;
    cache->super.rcache_invalidate_range = mca_rcache_regcache_invalidate_range;
    cache->super.rcache_evict = mca_rcache_regcache_evict;
    cache->super.rcache_finalize = mca_rcache_regcache_finalize;

    cache->resources = *resources;
    cache->resources.cache_name = resources->cache_name ? strdup (resources->cache_name) : NULL;
    cache->page_size = (size_t) opal_getpagesize ();
    cache->max_bytes = (uint64_t) component->max_pinned_bytes;
    cache->max_entries = (uint64_t) component->max_entries;
    cache->keep_idle = regcache_hooks_active ();
    if (!cache->keep_idle) {
        opal_output_verbose (MCA_BASE_VERBOSE_INFO, opal_rcache_base_framework.framework_output,
                             "rcache/regcache: no memory hooks (mpi_leave_pinned is 0 or the memory "
                             "component cannot intercept free/munmap): registrations are shared "
                             "while in use and released when idle");
    }

    opal_atomic_lock_init (&cache->lock, OPAL_ATOMIC_LOCK_UNLOCKED);
    OBJ_CONSTRUCT(&cache->tree, opal_interval_tree_t);
    OBJ_CONSTRUCT(&cache->lru, opal_list_t);
    OBJ_CONSTRUCT(&cache->pending, opal_list_t);
    OBJ_CONSTRUCT(&cache->reg_list, opal_free_list_t);
    OBJ_CONSTRUCT(&cache->component_item, opal_list_item_t);

    if (OPAL_SUCCESS != opal_interval_tree_init (&cache->tree) ||
        OPAL_SUCCESS != opal_free_list_init (&cache->reg_list, reg_size, opal_cache_line_size,
                                             OBJ_CLASS(mca_rcache_base_registration_t), 0,
                                             opal_cache_line_size, 0, -1, 32, NULL, 0, NULL,
                                             NULL, NULL)) {
        regcache_free (cache);
        return NULL;
    }

    opal_mutex_lock (&component->modules_lock);
    opal_list_append (&component->modules, &cache->component_item);
    opal_mutex_unlock (&component->modules_lock);

    return &cache->super;
}
