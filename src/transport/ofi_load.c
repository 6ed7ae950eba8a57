/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libfabric, opened when the runtime first needs the fabric rather than when the program
 * is loaded. Debian's libfabric.so.1 depends on libpsm_infinipath.so.1 and libpsm2.so.2,
 * whose constructors calibrate a clock by sleeping: as a dependency of libarmci they cost
 * every process a fifth of a second before main, whether or not it ever reaches a peer
 * through the fabric (NWChem's short QA tests showed it as start-up time outside NWChem's
 * own timer). A job on one node now never loads libfabric; one over the fabric
 * pays the constructors once, in ARMCI_Init.
 *
 * libfabric exports five functions the transport calls (its other calls go through the
 * objects' operation tables). Each is looked up with the symbol version that configure
 * found a link against the same headers binds (ARMCII_FI_*_VERSION), so that the structs
 * the headers describe are the ones the function takes.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "ofi_internal.h"
#include "../base/common.h"

/* The file configure found a program linked against these headers to load (its
 * --with-libfabric-so), and that file's soname, which the dynamic linker searches for where
 * a node lacks the file itself. */
#ifndef ARMCII_FI_LIB
#define ARMCII_FI_LIB "libfabric.so.1"
#endif
#ifndef ARMCII_FI_SONAME
#define ARMCII_FI_SONAME "libfabric.so.1"
#endif

armcii_fi_fns_t armcii_fi;

static void *handle;
static const char *asked; /* ARMCI_FABRIC_LIB, "" for the configured one */
static const char *opened;
static char load_error[512];
static char loaded[640];                     /* "libfabric 1.17 (/usr/lib/.../libfabric.so.1)" */
static double open_s = -1.0, start_s = -1.0; /* seconds: dlopen; the first question */

static void *lookup(const char *name, const char *version)
{
    void *f = version[0] ? dlvsym(handle, name, version) : dlsym(handle, name);
    if (!f)
        snprintf(load_error, sizeof(load_error), "%s has no %s%s%s", opened, name,
                 version[0] ? "@" : "", version);
    return f;
}

static void load_once(void)
{
    char missing[300] = "";
    int chosen = asked && asked[0];
    opened = chosen ? asked : ARMCII_FI_LIB;
    double t0 = armcii_now();
    handle = dlopen(opened, RTLD_NOW | RTLD_LOCAL);
    if (!handle && !chosen && strcmp(opened, ARMCII_FI_SONAME) != 0) {
        /* the configured file is not on this node: the dynamic linker's libfabric, said */
        snprintf(missing, sizeof(missing), "; the configured %s did not open: %s", opened,
                 dlerror());
        opened = ARMCII_FI_SONAME;
        handle = dlopen(opened, RTLD_NOW | RTLD_LOCAL);
    }
    open_s = armcii_now() - t0;
    if (!handle) {
        snprintf(load_error, sizeof(load_error), "cannot open %s%s: %s%s", opened,
                 chosen ? " (ARMCI_FABRIC_LIB)" : "", dlerror(), missing);
        return;
    }
    armcii_fi_fns_t f;
    /* each assignment through a cast of the object pointer dlsym returns (POSIX) */
    *(void **)&f.getinfo = lookup("fi_getinfo", ARMCII_FI_GETINFO_VERSION);
    *(void **)&f.freeinfo = lookup("fi_freeinfo", ARMCII_FI_FREEINFO_VERSION);
    *(void **)&f.dupinfo = lookup("fi_dupinfo", ARMCII_FI_DUPINFO_VERSION);
    *(void **)&f.fabric = lookup("fi_fabric", ARMCII_FI_FABRIC_VERSION);
    *(void **)&f.strerror = lookup("fi_strerror", ARMCII_FI_STRERROR_VERSION);
    if (f.getinfo && f.freeinfo && f.dupinfo && f.fabric && f.strerror)
        armcii_fi = f;
    /* Which file the name found, and its own version: the library configure saw need not
     * be the one a node has (its fi_version, unversioned: every libfabric has it). */
    struct link_map *map = NULL;
    const char *path =
        dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name[0] ? map->l_name : opened;
    uint32_t (*version)(void);
    *(void **)&version = dlsym(handle, "fi_version");
    uint32_t v = version ? version() : 0;
    snprintf(loaded, sizeof(loaded), "libfabric %u.%u (%s%s%s)", FI_MAJOR(v), FI_MINOR(v), path,
             chosen ? ", from ARMCI_FABRIC_LIB" : "", missing);
}

int armcii_fi_opened_elsewhere(void)
{
    if (handle)
        return 0; /* ours: it read the environment when we opened it */
    /* by soname: MPI may have loaded libfabric from another file than ours */
    void *h = dlopen(ARMCII_FI_SONAME, RTLD_NOLOAD | RTLD_LAZY);
    if (h)
        dlclose(h);
    return h != NULL;
}

const char *armcii_fi_loaded(void)
{
    return loaded;
}

void armcii_fi_note_start(double seconds)
{
    if (start_s < 0)
        start_s = seconds;
}

double armcii_fi_open_seconds(void)
{
    return open_s;
}

double armcii_fi_start_seconds(void)
{
    return start_s;
}

const char *armcii_fi_load(const char *lib)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    if (!asked)
        asked = lib ? lib : ""; /* the first caller's word decides (before the once) */
    pthread_once(&once, load_once);
    return armcii_fi.getinfo ? NULL : load_error;
}
