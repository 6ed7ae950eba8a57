/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory registration: a key for each allocation, the registrations and their
 * descriptors, and ARMCI_MR_MODE=strict, which behaves on any provider as RDMA NICs'
 * providers require.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "host.h"
#include "ofi_internal.h"
#include "transport.h"
#include "../base/common.h"

ofi_reg_t armcii_ofi_reg;

armcii_status_t armcii_ofi_reg_open(const struct fi_info *info)
{
    armcii_ofi_reg.mr_mode = info->domain_attr->mr_mode;
    /* The provider's own limit on registrations, lowered by ARMCI_MR_MAX if asked. */
    armcii_ofi_reg.mr_max = (long)info->domain_attr->mr_cnt;
    armcii_ofi_reg.mr_max_from = "the provider's mr_cnt";
    if (armcii_tp.env->MR_MAX > 0 &&
        (armcii_ofi_reg.mr_max <= 0 || armcii_tp.env->MR_MAX < armcii_ofi_reg.mr_max)) {
        armcii_ofi_reg.mr_max = armcii_tp.env->MR_MAX;
        armcii_ofi_reg.mr_max_from = "ARMCI_MR_MAX";
    }
    armcii_ofi_reg.next_key = 1;
    if (strcmp(armcii_tp.env->MR_MODE, "strict") == 0) {
        armcii_ofi_reg.mr_emulated = OFI_STRICT_BITS & ~armcii_ofi_reg.mr_mode;
        armcii_ofi_reg.mr_mode |= armcii_ofi_reg.mr_emulated;
    }
    if (armcii_ofi_reg.mr_mode & FI_MR_RAW) {
        armcii_warn("ARMCI_Init: provider %s needs raw memory keys, which armci-ofi does not "
                    "support yet",
                    armcii_ofi_prov_name());
        return ARMCII_EFABRIC;
    }
    return ARMCII_OK;
}

void armcii_ofi_reg_close(void)
{
    free(armcii_ofi_reg.checked);
    memset(&armcii_ofi_reg, 0, sizeof(armcii_ofi_reg));
}

uint64_t armcii_net_key_next(void)
{
    return armcii_ofi_reg.next_key;
}

/*
 * ARMCI_MR_MODE=strict: on a provider that asks nothing of registrations (tcp, sockets),
 * the runtime behaves as the providers of RDMA NICs require, so that those paths run here:
 *   FI_MR_LOCAL     every local buffer has a registration's descriptor: data go through
 *                   bounce buffers (the selector's rule), and each transfer's descriptor is
 *                   checked against the registration holding its buffer (below);
 *   FI_MR_PROV_KEY  keys are the provider's: each registration asks for one that looks
 *                   like a provider's (scattered, different in every process), and peers
 *                   learn every block's key instead of agreeing on one;
 *   FI_MR_ENDPOINT  registrations are bound to the endpoint and enabled, where the provider
 *                   accepts it;
 *   FI_MR_ALLOCATED only mapped memory is registered (checked with mincore).
 * FI_MR_VIRT_ADDR cannot be imposed: a provider that addresses registrations by offset
 * reads any address as one. The shm provider asks for it (FI_PROVIDER=shm).
 */

/* A key as a provider would pick it: a bijection of the process's registration count and
 * its rank (splitmix64's finaliser), so keys are unique in the process and scattered. */
static uint64_t strict_key(uint64_t n)
{
    uint64_t z = n + ((uint64_t)armcii_tp.rank << 40) + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void checked_add(void *buf, size_t len, void *desc, void *real)
{
    if (armcii_ofi_reg.nchecked == armcii_ofi_reg.checked_cap) {
        int cap = armcii_ofi_reg.checked_cap ? 2 * armcii_ofi_reg.checked_cap : 16;
        ofi_checked_t *c = realloc(armcii_ofi_reg.checked, (size_t)cap * sizeof(*c));
        if (!c)
            armcii_fatal("armci", "out of memory for the registrations ARMCI_MR_MODE checks");
        armcii_ofi_reg.checked = c;
        armcii_ofi_reg.checked_cap = cap;
    }
    armcii_ofi_reg.checked[armcii_ofi_reg.nchecked++] =
        (ofi_checked_t){.base = (uintptr_t)buf, .len = len, .desc = desc, .real = real};
}

static void checked_drop(void *desc)
{
    for (int i = 0; i < armcii_ofi_reg.nchecked; i++) {
        if (armcii_ofi_reg.checked[i].desc == desc) {
            armcii_ofi_reg.checked[i] = armcii_ofi_reg.checked[--armcii_ofi_reg.nchecked];
            return;
        }
    }
}

void *armcii_ofi_local_check(const char *call, const char *what, int target, const void *buf,
                             size_t len, void *desc)
{
    uintptr_t b = (uintptr_t)buf;
    for (int i = 0; desc && i < armcii_ofi_reg.nchecked; i++) {
        const ofi_checked_t *c = &armcii_ofi_reg.checked[i];
        if (c->desc == desc && b >= c->base && len <= c->len && b - c->base <= c->len - len)
            return c->real;
    }
    armcii_tp.blame(call, target);
    armcii_fatal(call,
                 "%s to rank %d: %zu bytes at %p %s; a provider that requires FI_MR_LOCAL "
                 "(verbs, efa) would fail it (ARMCI_MR_MODE=strict checks what they check)",
                 what, target, len, buf,
                 desc ? "lie outside the registration their descriptor names"
                      : "have no registration's descriptor");
}

/* Whether every page of [buf, buf+len) is mapped (FI_MR_ALLOCATED's rule). */
static int mapped(void *buf, size_t len)
{
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t lo = (uintptr_t)buf & ~(uintptr_t)(page - 1);
    uintptr_t hi = ((uintptr_t)buf + len + (uintptr_t)page - 1) & ~(uintptr_t)(page - 1);
    unsigned char vec[64];
    for (uintptr_t at = lo; at < hi;) {
        size_t n = (hi - at) / (size_t)page < sizeof vec ? (hi - at) / (size_t)page : sizeof vec;
        if (mincore((void *)at, n * (size_t)page, vec) != 0)
            return 0;
        at += n * (size_t)page;
    }
    return 1;
}

armcii_status_t armcii_net_register(const char *call, void *buf, size_t len, armcii_mr_t *mr_p)
{
    return armcii_net_register_key(call, buf, len, armcii_ofi_reg.next_key, mr_p);
}

armcii_status_t armcii_net_register_key(const char *call, void *buf, size_t len, uint64_t key,
                                        armcii_mr_t *mr_p)
{
    struct fid_mr *mr;
    uint64_t access = FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE | FI_SEND | FI_RECV;
    /* Past the limit the provider would fail (or, with some, fail later and obscurely). */
    if (armcii_ofi_reg.mr_max > 0 && armcii_ofi_reg.mr_live >= armcii_ofi_reg.mr_max) {
        armcii_warn("%s: registering %zu bytes with libfabric would exceed the %ld memory "
                    "registrations allowed (%s); free allocations first",
                    call, len, armcii_ofi_reg.mr_max, armcii_ofi_reg.mr_max_from);
        return ARMCII_ENOMEM;
    }
    if ((armcii_ofi_reg.mr_emulated & FI_MR_ALLOCATED) && !mapped(buf, len)) {
        armcii_warn("%s: registering %zu bytes at %p, memory that is not all mapped; a provider "
                    "that requires FI_MR_ALLOCATED would refuse it (ARMCI_MR_MODE=strict)",
                    call, len, buf);
        return ARMCII_EFABRIC;
    }
    /* The key asked for: a provider that picks its own ignores it. */
    uint64_t asked = (armcii_ofi_reg.mr_emulated & FI_MR_PROV_KEY) ? strict_key(key) : key;
    int rc = fi_mr_reg(armcii_ofi.domain, buf, len, access, 0, asked, 0, &mr, NULL);
    if (rc != 0) {
        armcii_warn("%s: registering %zu bytes at %p with libfabric failed: %s", call, len, buf,
                    fi_strerror(-rc));
        return ARMCII_ENOMEM;
    }
    if (armcii_ofi_reg.mr_mode & FI_MR_ENDPOINT) {
        rc = fi_mr_bind(mr, &armcii_ofi.ep->fid, 0);
        if (rc == 0)
            rc = fi_mr_enable(mr);
        if (rc != 0) {
            armcii_warn("%s: binding a registration to the endpoint failed: %s", call,
                        fi_strerror(-rc));
            fi_close(&mr->fid);
            return ARMCII_EFABRIC;
        }
    }
    armcii_ofi_reg.mr_live++;
    if (key >= armcii_ofi_reg.next_key)
        armcii_ofi_reg.next_key = key + 1;
    mr_p->handle = mr;
    mr_p->desc = fi_mr_desc(mr);
    mr_p->key = fi_mr_key(mr);
    mr_p->raddr_base = (armcii_ofi_reg.mr_mode & FI_MR_VIRT_ADDR) ? (uint64_t)(uintptr_t)buf : 0;
    if (armcii_ofi_reg.mr_emulated & FI_MR_LOCAL) {
        /* The runtime carries a descriptor of its own, distinct per registration as a
         * provider's that requires them are; the check hands the provider's own (which
         * may be NULL here) to the call. */
        void *real = mr_p->desc;
        mr_p->desc = real ? real : (void *)mr;
        checked_add(buf, len, mr_p->desc, real);
    }
    return ARMCII_OK;
}

void armcii_net_unregister(armcii_mr_t *mr)
{
    if (mr->handle) {
        if (armcii_ofi_reg.mr_emulated & FI_MR_LOCAL)
            checked_drop(mr->desc);
        fi_close(&((struct fid_mr *)mr->handle)->fid);
        armcii_ofi_reg.mr_live--;
    }
    mr->handle = NULL;
}

/* What ARMCI_MR_MODE=strict does on this provider, in words (one line). */
void armcii_ofi_strict_summary(char *out, size_t len)
{
    static const struct {
        uint64_t bit;
        const char *what;
    } bits[] = {{FI_MR_LOCAL, "local descriptors"},
                {FI_MR_PROV_KEY, "provider keys"},
                {FI_MR_ENDPOINT, "endpoint-bound registrations"},
                {FI_MR_ALLOCATED, "mapped memory only"}};
    size_t used =
        (size_t)snprintf(out, len, "ARMCI_MR_MODE=strict on %s: emulated", armcii_ofi_prov_name());
    int any = 0;
    for (size_t i = 0; i < sizeof bits / sizeof bits[0] && used < len; i++)
        if (armcii_ofi_reg.mr_emulated & bits[i].bit)
            used +=
                (size_t)snprintf(out + used, len - used, "%s %s", any++ ? "," : "", bits[i].what);
    if (!any && used < len)
        used += (size_t)snprintf(out + used, len - used, " nothing (the provider asks it all)");
    if (armcii_ofi_reg.mr_refused && used < len)
        used += (size_t)snprintf(out + used, len - used, "; refused by the provider: %s",
                                 armcii_ofi_reg.mr_refused_why);
    if (!(armcii_ofi_reg.mr_mode & FI_MR_VIRT_ADDR) && used < len)
        snprintf(out + used, len - used,
                 "; not virtual addresses: the provider addresses registrations by offset");
}

/* Strict registration binds registrations to the endpoint where the provider accepts it;
 * one that does not (binding is its own to refuse) says so and goes on without. */
armcii_status_t armcii_ofi_strict_probe(void)
{
    if (!(armcii_ofi_reg.mr_emulated & FI_MR_ENDPOINT))
        return ARMCII_OK;
    static uint64_t word;
    struct fid_mr *mr;
    uint64_t access = FI_REMOTE_READ | FI_REMOTE_WRITE;
    int rc =
        fi_mr_reg(armcii_ofi.domain, &word, sizeof word, access, 0, strict_key(0), 0, &mr, NULL);
    if (rc != 0) {
        armcii_warn("ARMCI_Init: registering a word failed: %s", fi_strerror(-rc));
        return ARMCII_EFABRIC;
    }
    rc = fi_mr_bind(mr, &armcii_ofi.ep->fid, 0);
    if (rc == 0)
        rc = fi_mr_enable(mr);
    fi_close(&mr->fid);
    if (rc != 0) {
        armcii_ofi_reg.mr_emulated &= ~(uint64_t)FI_MR_ENDPOINT;
        armcii_ofi_reg.mr_mode &= ~(uint64_t)FI_MR_ENDPOINT;
        armcii_ofi_reg.mr_refused = "endpoint-bound registrations (fi_mr_bind to the endpoint: ";
        snprintf(armcii_ofi_reg.mr_refused_why, sizeof armcii_ofi_reg.mr_refused_why, "%s%s)",
                 armcii_ofi_reg.mr_refused, fi_strerror(-rc));
    }
    return ARMCII_OK;
}
