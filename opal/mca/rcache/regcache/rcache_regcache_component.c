/* SPDX-License-Identifier: BSD-3-Clause (see LICENSE) */
/*
 * rcache/regcache component: parameters, MPI_T statistics, open/close and
 * the init hook that mca_rcache_base_module_create() calls.
 */
#include "opal_config.h"

#include <stddef.h>
#include <unistd.h>

#include "opal/mca/base/mca_base_pvar.h"
#include "opal/mca/base/mca_base_var.h"
#include "opal/util/show_help.h"
#include "rwv_show_help.h"

#include "rcache_regcache.h"

#define REGCACHE_DEFAULT_MAX_ENTRIES 16384

static int regcache_register (void);
static int regcache_open (void);
static int regcache_close (void);
static mca_rcache_base_module_t *regcache_init (mca_rcache_base_resources_t *resources);

mca_rcache_regcache_component_t mca_rcache_regcache_component = {
    .super = {
        .rcache_version = {
            MCA_RCACHE_BASE_VERSION_3_0_0,
            .mca_component_name = "regcache",
            MCA_BASE_MAKE_VERSION(component, RWV_VERSION_MAJOR, RWV_VERSION_MINOR, RWV_VERSION_RELEASE),
            .mca_open_component = regcache_open,
            .mca_close_component = regcache_close,
            .mca_register_component_params = regcache_register,
        },
        .rcache_data = {
            .param_field = MCA_BASE_METADATA_PARAM_CHECKPOINT
        },
        .rcache_init = regcache_init,
    },
};

static int64_t regcache_default_max_bytes;

/* Half of physical memory: enough to keep every buffer of a normal job
 * registered, while a runaway application cannot pin the whole node. */
static int64_t regcache_half_of_memory (void)
{
    long pages = sysconf (_SC_PHYS_PAGES);
    long page_size = sysconf (_SC_PAGESIZE);

    if (pages <= 0 || page_size <= 0) {
        return INT64_C(1) << 32;
    }
    return (int64_t) pages * page_size / 2;
}

/* ------------------------------------------------------------ MPI_T */

static int regcache_pvar_read (const struct mca_base_pvar_t *pvar, void *value, void *obj)
{
    mca_rcache_regcache_component_t *component = &mca_rcache_regcache_component;
    size_t offset = (size_t) (uintptr_t) pvar->ctx;
    mca_rcache_regcache_module_t *cache;
    unsigned long long sum;
    opal_list_item_t *item;

    opal_mutex_lock (&component->modules_lock);
    sum = *(uint64_t *) ((char *) &component->finalized_stats + offset);
    OPAL_LIST_FOREACH(item, &component->modules, opal_list_item_t) {
        cache = (mca_rcache_regcache_module_t *) ((char *) item -
                                                  offsetof (mca_rcache_regcache_module_t, component_item));
        mca_rcache_regcache_lock (cache);
        sum += *(uint64_t *) ((char *) &cache->stats + offset);
        mca_rcache_regcache_unlock (cache);
    }
    opal_mutex_unlock (&component->modules_lock);

    *(unsigned long long *) value = sum;
    return OPAL_SUCCESS;
}

static void regcache_register_pvar (const char *name, const char *description, int var_class,
                                    size_t offset)
{
    (void) mca_base_component_pvar_register (&mca_rcache_regcache_component.super.rcache_version,
                                             name, description, OPAL_INFO_LVL_4, var_class,
                                             MCA_BASE_VAR_TYPE_UNSIGNED_LONG_LONG, NULL,
                                             MCA_BASE_VAR_BIND_NO_OBJECT,
                                             MCA_BASE_PVAR_FLAG_READONLY | MCA_BASE_PVAR_FLAG_CONTINUOUS,
                                             regcache_pvar_read, NULL, NULL, (void *) offset);
}

static void regcache_register_pvars (void)
{
    static const struct {
        const char *name;
        const char *description;
        int var_class;
        size_t offset;
    } pvars[] = {
        {"hits", "Registrations served from the cache (all regcache instances of this process)",
         MCA_BASE_PVAR_CLASS_COUNTER, offsetof (mca_rcache_regcache_stats_t, hits)},
        {"misses", "Registrations that had to register memory",
         MCA_BASE_PVAR_CLASS_COUNTER, offsetof (mca_rcache_regcache_stats_t, misses)},
        {"evictions", "Idle cached registrations released to stay within the limits",
         MCA_BASE_PVAR_CLASS_COUNTER, offsetof (mca_rcache_regcache_stats_t, evictions)},
        {"invalidations", "Cached registrations invalidated because their memory was freed or unmapped",
         MCA_BASE_PVAR_CLASS_COUNTER, offsetof (mca_rcache_regcache_stats_t, invalidations)},
        {"uncached", "Registrations made outside the cache (limits reached, or requested by the caller)",
         MCA_BASE_PVAR_CLASS_COUNTER, offsetof (mca_rcache_regcache_stats_t, uncached)},
        {"pinned_bytes", "Bytes registered right now, cached or not",
         MCA_BASE_PVAR_CLASS_LEVEL, offsetof (mca_rcache_regcache_stats_t, pinned_bytes)},
        {"cached_bytes", "Bytes of the registrations held in the cache right now",
         MCA_BASE_PVAR_CLASS_LEVEL, offsetof (mca_rcache_regcache_stats_t, cached_bytes)},
        {"cached_entries", "Registrations held in the cache right now",
         MCA_BASE_PVAR_CLASS_LEVEL, offsetof (mca_rcache_regcache_stats_t, cached_entries)},
    };

    for (size_t i = 0 ; i < sizeof (pvars) / sizeof (pvars[0]) ; ++i) {
        regcache_register_pvar (pvars[i].name, pvars[i].description, pvars[i].var_class,
                                pvars[i].offset);
    }
}

/* ------------------------------------------------------------ params */

static int regcache_register (void)
{
    mca_rcache_regcache_component_t *component = &mca_rcache_regcache_component;
    const mca_base_component_t *version = &component->super.rcache_version;

    regcache_default_max_bytes = regcache_half_of_memory ();
    component->max_pinned_bytes = regcache_default_max_bytes;
    (void) mca_base_component_var_register (version, "max_pinned_bytes",
        "Most bytes the cache keeps registered for later reuse (suffixes k, m, g allowed). "
        "Idle registrations are released least recently used first to stay below it; a "
        "transfer that needs more while everything cached is in use gets a registration "
        "outside the cache, released when the transfer ends. Must be > 0. "
        "Default: half of the node's physical memory",
        MCA_BASE_VAR_TYPE_INT64_T, NULL, 0, 0, OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_READONLY,
        &component->max_pinned_bytes);

    component->max_entries = REGCACHE_DEFAULT_MAX_ENTRIES;
    (void) mca_base_component_var_register (version, "max_entries",
        "Most registrations the cache keeps at once; beyond it the least recently used "
        "idle one is released. Must be > 0",
        MCA_BASE_VAR_TYPE_INT64_T, NULL, 0, 0, OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_READONLY,
        &component->max_entries);

    component->print_stats = false;
    (void) mca_base_component_var_register (version, "print_stats",
        "Print each cache's counters (hits, misses, evictions, invalidations, uncached, "
        "pinned bytes) when it is finalized. The same counters are readable at run time "
        "as MPI_T performance variables rcache_regcache_*",
        MCA_BASE_VAR_TYPE_BOOL, NULL, 0, 0, OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_LOCAL,
        &component->print_stats);

    regcache_register_pvars ();
    return OPAL_SUCCESS;
}

/* A limit of zero or less would make every registration uncached, which no
 * user wants: say so and use the default. */
static void regcache_check_limit (int64_t *value, int64_t fallback, const char *name,
                                  const char *example)
{
    if (*value > 0) {
        return;
    }
    rwv_show_help ("help-rcache-regcache.txt", "invalid limit", true, name, (long long) *value,
                   (long long) fallback, name, example);
    *value = fallback;
}

static int regcache_open (void)
{
    mca_rcache_regcache_component_t *component = &mca_rcache_regcache_component;

    rwv_show_help_open ();
    regcache_check_limit (&component->max_pinned_bytes, regcache_default_max_bytes,
                          "rcache_regcache_max_pinned_bytes", "4g");
    regcache_check_limit (&component->max_entries, REGCACHE_DEFAULT_MAX_ENTRIES,
                          "rcache_regcache_max_entries", "4096");

    OBJ_CONSTRUCT(&component->modules, opal_list_t);
    OBJ_CONSTRUCT(&component->modules_lock, opal_mutex_t);
    memset (&component->finalized_stats, 0, sizeof (component->finalized_stats));
    return OPAL_SUCCESS;
}

static int regcache_close (void)
{
    mca_rcache_regcache_component_t *component = &mca_rcache_regcache_component;

    OBJ_DESTRUCT(&component->modules);
    OBJ_DESTRUCT(&component->modules_lock);
    return OPAL_SUCCESS;
}

static mca_rcache_base_module_t *regcache_init (mca_rcache_base_resources_t *resources)
{
    return mca_rcache_regcache_module_create (resources);
}
