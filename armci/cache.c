/* SPDX-License-Identifier: BSD-3-Clause */
/* ARMCIX_Cache_*: modes, invalidation and statistics of the get cache (src/cache). */
#include <string.h>

#include "check.h"
#include "../src/cache/getcache.h"

static armcii_alloc_t *alloc_of(const char *call, void *my_base)
{
    if (!my_base)
        return NULL;
    armcii_alloc_t *a = armcii_alloc_find(my_base);
    if (!a)
        armcii_fatal(call, "%p is not the start of an ARMCI allocation of this process", my_base);
    return a;
}

int ARMCIX_Cache_set_mode(void *my_base, int mode)
{
    static const char call[] = "ARMCIX_Cache_set_mode";
    armcii_enter(call);
    if (mode < ARMCIX_CACHE_OFF || mode > ARMCIX_CACHE_USER)
        armcii_fatal(call,
                     "mode %d is not ARMCIX_CACHE_OFF (0), _TRANSPARENT (1), _ALWAYS (2) or "
                     "_USER (3)",
                     mode);
    armcii_alloc_t *a = alloc_of(call, my_base);
    armcii_cache_set_mode(call, a ? &a->cache : NULL, mode);
    armcii_unlock();
    return 0;
}

int ARMCIX_Cache_get_mode(void *my_base)
{
    static const char call[] = "ARMCIX_Cache_get_mode";
    armcii_enter(call);
    armcii_alloc_t *a = alloc_of(call, my_base);
    int mode = a ? a->cache.mode : armcii_cache_default_mode();
    armcii_unlock();
    return mode;
}

int ARMCIX_Cache_invalidate(void *my_base)
{
    static const char call[] = "ARMCIX_Cache_invalidate";
    armcii_enter(call);
    armcii_alloc_t *a = alloc_of(call, my_base);
    armcii_cache_invalidate(a ? &a->cache : NULL);
    armcii_unlock();
    return 0;
}

int ARMCIX_Cache_get_stats(armcix_cache_stats_t *stats)
{
    static const char call[] = "ARMCIX_Cache_get_stats";
    armcii_enter(call);
    if (!stats)
        armcii_fatal(call, "stats is NULL");
    armcii_cache_get_stats(stats);
    armcii_unlock();
    return 0;
}

int ARMCIX_Cache_reset_stats(void)
{
    static const char call[] = "ARMCIX_Cache_reset_stats";
    armcii_enter(call);
    armcii_cache_reset_stats();
    armcii_unlock();
    return 0;
}
