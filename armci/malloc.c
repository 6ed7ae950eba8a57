/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Collective and local allocation, the public calls: their arguments are checked here,
 * and the allocation itself is the core's (src/core/alloc.c).
 */
#include "check.h"

/* The collective calls, named @p call; the public names below and their device-memory
 * twins each come here directly, not through one another's public name, so that a tool
 * that wraps ARMCI_Malloc (the profiling interface) sees the calls the program made. */
static int malloc_on(const char *call, void **ptr_arr, armci_size_t bytes, ARMCI_Group *group)
{
    armcii_enter(call);
    if (group)
        armcii_check_group(call, "the group", group, 1);
    armcii_check_local(call, "ptr_arr", ptr_arr, 1);
    armcii_check_count(call, "size", (long)bytes);
    int rc = armcii_malloc_comm(call, ptr_arr, bytes, group ? group->comm : armcii_rt.comm);
    armcii_unlock();
    return rc;
}

static int free_on(const char *call, void *ptr, ARMCI_Group *group)
{
    armcii_enter(call);
    if (group)
        armcii_check_group(call, "the group", group, 1);
    int rc = armcii_free_comm(call, ptr, group ? group->comm : armcii_rt.comm);
    armcii_unlock();
    return rc;
}

int ARMCI_Malloc(void **base_ptrs, armci_size_t size)
{
    return malloc_on("ARMCI_Malloc", base_ptrs, size, NULL);
}

int ARMCI_Free(void *ptr)
{
    return free_on("ARMCI_Free", ptr, NULL);
}

void *ARMCI_Malloc_local(armci_size_t size)
{
    static const char call[] = "ARMCI_Malloc_local";
    armcii_enter(call);
    armcii_check_count(call, "size", (long)size);
    void *addr = armcii_malloc_local(call, (size_t)size);
    armcii_unlock();
    return addr;
}

int ARMCI_Free_local(void *ptr)
{
    static const char call[] = "ARMCI_Free_local";
    if (ptr == NULL)
        return 0;
    armcii_enter(call);
    armcii_free_local(call, ptr);
    armcii_unlock();
    return 0;
}

int ARMCI_Malloc_group(void **ptr_arr, armci_size_t bytes, ARMCI_Group *group)
{
    return malloc_on("ARMCI_Malloc_group", ptr_arr, bytes, group);
}

int ARMCI_Free_group(void *ptr, ARMCI_Group *group)
{
    return free_on("ARMCI_Free_group", ptr, group);
}

/* Device memory: accepted for compatibility, and served from host memory (no device
 * is driven by this runtime). */
int ARMCI_Malloc_memdev(void **ptr_arr, armci_size_t bytes, const char *device)
{
    (void)device;
    return malloc_on("ARMCI_Malloc_memdev", ptr_arr, bytes, NULL);
}

int ARMCI_Malloc_group_memdev(void **ptr_arr, armci_size_t bytes, ARMCI_Group *group,
                              const char *device)
{
    (void)device;
    return malloc_on("ARMCI_Malloc_group_memdev", ptr_arr, bytes, group);
}

int ARMCI_Free_memdev(void *ptr)
{
    return free_on("ARMCI_Free_memdev", ptr, NULL);
}

/* Profiling names (see ARMCII_PROFILED). */
ARMCII_PROFILED(Malloc)
ARMCII_PROFILED(Free)
ARMCII_PROFILED(Malloc_local)
ARMCII_PROFILED(Free_local)
ARMCII_PROFILED(Malloc_memdev)
ARMCII_PROFILED(Malloc_group_memdev)
ARMCII_PROFILED(Free_memdev)
