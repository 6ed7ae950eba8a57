/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Which libfabric provider the job runs on, and that every process chose the same.
 *
 * The provider is libfabric's first choice for what the runtime cannot do without (RDM
 * endpoints, RMA and messages); what it can do without but prefers (atomics, delivery
 * completion, manual progress, ordering) is then asked of that provider alone, most
 * wanted first. Asking for everything at once let a NIC that lacks one extra lose to tcp,
 * which emulates them all.
 *
 * Each process chooses by itself, from its own environment and its own node's devices; a
 * process that chose differently would fail far from the cause (an address vector that
 * takes some addresses, or worse, providers whose addresses look alike and whose wire
 * formats do not). So the choices are compared before anything is opened.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nic.h"
#include "ofi_internal.h"
#include "../base/common.h"

#define OFI_VERSION FI_VERSION(1, 10)

static struct fi_info *make_hints(int atomics, int dc, int manual, int ordered)
{
    struct fi_info *h = fi_allocinfo();
    if (!h)
        return NULL;
    h->caps = FI_RMA | FI_MSG | (atomics ? FI_ATOMIC : 0);
    h->ep_attr->type = FI_EP_RDM;
    h->mode = FI_CONTEXT | FI_CONTEXT2;
    /* Accept every registration mode we know how to honour. */
    h->domain_attr->mr_mode =
        FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    h->domain_attr->threading = FI_THREAD_DOMAIN; /* we serialise all calls ourselves */
    /* The sockets provider works here only with manual progress; we drive progress
     * ourselves anyway, so ask for it everywhere it is offered. */
    h->domain_attr->data_progress = manual ? FI_PROGRESS_MANUAL : FI_PROGRESS_UNSPEC;
    if (dc)
        h->tx_attr->op_flags = FI_DELIVERY_COMPLETE;
    /* Providers report only the ordering asked for: ask for what saves us waits (reads
     * and writes after writes to one target), and take none where it is not offered. */
    if (ordered) {
        h->tx_attr->msg_order = FI_ORDER_RAW | FI_ORDER_WAW | FI_ORDER_SAS;
        h->rx_attr->msg_order = FI_ORDER_RAW | FI_ORDER_WAW | FI_ORDER_SAS;
    }
    return h;
}

/* Every answer of @p prov (any provider when NULL; on domain @p domain when not NULL) to
 * these hints, in libfabric's order. */
static struct fi_info *ask_all(const char *prov, const char *domain, int atomics, int dc,
                               int manual, int ordered)
{
    struct fi_info *hints = make_hints(atomics, dc, manual, ordered), *list = NULL;
    if (!hints)
        return NULL;
    if (prov)
        hints->fabric_attr->prov_name = strdup(prov);
    if (domain)
        hints->domain_attr->name = strdup(domain);
    int rc = fi_getinfo(OFI_VERSION, NULL, NULL, 0, hints, &list);
    fi_freeinfo(hints);
    return rc == 0 ? list : NULL;
}

/* Passing over `net`, whose atomics report success at fi_atomicvalid but fail at fi_atomic
 * (measured on libfabric 1.17). */
static int usable(const struct fi_info *i)
{
    return strncmp(i->fabric_attr->prov_name, "net", 3) != 0;
}

/* A copy of the first usable answer to these hints. */
static struct fi_info *ask(const char *prov, const char *domain, int atomics, int dc, int manual,
                           int ordered)
{
    struct fi_info *list = ask_all(prov, domain, atomics, dc, manual, ordered);
    if (!list)
        return NULL;
    struct fi_info *first = list;
    for (struct fi_info *i = list; i; i = i->next) {
        if (usable(i)) {
            first = i;
            break;
        }
    }
    struct fi_info *dup = fi_dupinfo(first);
    fi_freeinfo(list);
    return dup;
}

/* The CPUs near domain @p d, from sysfs (its device's local_cpulist), into @p out. */
static void near_cpus(const struct fi_info *i, char *out, size_t len)
{
    static const char *const classes[] = {"infiniband", "cxi", "net"};
    char path[256];
    out[0] = '\0';
    const struct fid_nic *nic = i->nic;
    if (nic && nic->bus_attr && nic->bus_attr->bus_type == FI_BUS_PCI) {
        const struct fi_pci_attr *a = &nic->bus_attr->attr.pci;
        snprintf(path, sizeof path, "/sys/bus/pci/devices/%04x:%02x:%02x.%x/local_cpulist",
                 a->domain_id, a->bus_id, a->device_id, a->function_id);
    } else {
        path[0] = '\0';
    }
    for (size_t c = 0; c <= sizeof classes / sizeof classes[0]; c++) {
        if (c > 0)
            snprintf(path, sizeof path, "/sys/class/%s/%s/device/local_cpulist", classes[c - 1],
                     i->domain_attr->name);
        FILE *f = path[0] ? fopen(path, "r") : NULL;
        if (!f)
            continue;
        if (fgets(out, (int)len, f))
            out[strcspn(out, "\n")] = '\0';
        fclose(f);
        if (out[0])
            return;
    }
}

/* Of the domains of @p list (one provider's answers), the one to use: its name into
 * @p domain. 0, or -1 when ARMCI_NIC names none (want->nic_why says so). */
static int pick_domain(const struct fi_info *list, armcii_ofi_want_t *want, char *domain,
                       size_t len)
{
    armcii_nic_t nics[32];
    int n = 0;
    for (const struct fi_info *i = list; i && n < 32; i = i->next) {
        if (!usable(i) || !i->domain_attr->name)
            continue;
        int seen = 0;
        for (int k = 0; k < n && !seen; k++)
            seen = strcmp(nics[k].name, i->domain_attr->name) == 0;
        if (seen)
            continue;
        snprintf(nics[n].name, sizeof nics[n].name, "%s", i->domain_attr->name);
        near_cpus(i, nics[n].cpus, sizeof nics[n].cpus);
        n++;
    }
    /* A software provider's domains are interfaces (tcp: eth0, lo) and only the user's
     * word moves it off libfabric's first: loopback would reach no other node. */
    int hw = !armcii_ofi_is_software(list->fabric_attr->prov_name);
    char why[sizeof want->nic_why];
    int k;
    if (!(want->nic && want->nic[0]) && (!hw || n <= 1)) {
        k = 0;
        snprintf(why, sizeof why, "%s (libfabric's first%s)", n ? nics[0].name : "?",
                 n > 1 ? "; ARMCI_NIC chooses" : "");
    } else {
        cpu_set_t set;
        hwloc_bitmap_t mine = hwloc_bitmap_alloc();
        if (sched_getaffinity(0, sizeof set, &set) == 0)
            for (int c = 0; c < CPU_SETSIZE; c++)
                if (CPU_ISSET(c, &set))
                    hwloc_bitmap_set(mine, (unsigned)c);
        k = armcii_nic_pick(nics, n, want->nic, mine, want->local_rank, why, sizeof why);
        hwloc_bitmap_free(mine);
    }
    snprintf(want->nic_why, sizeof want->nic_why, "%s", why);
    if (k < 0)
        return -1;
    snprintf(domain, len, "%s", n ? nics[k].name : "");
    return 0;
}

armcii_status_t armcii_ofi_choose(armcii_ofi_want_t *want, struct fi_info **info_p, int *atomics_p,
                                  int *dc_p)
{
    /* The extras, most wanted first: atomics and delivery completion with manual
     * progress. Ordering is asked for last, from the same provider with the same extras,
     * so that it never decides which provider runs (asking for it up front made
     * udp;ofi_rxd win over tcp;ofi_rxm). */
    static const int tries[][3] = {{1, 1, 1}, {1, 1, 0}, {0, 1, 1}, {0, 1, 0},
                                   {1, 0, 1}, {1, 0, 0}, {0, 0, 1}, {0, 0, 0}};
    const char *why = armcii_fi_load(want->lib);
    if (why) {
        armcii_warn("ARMCI_Init: the fabric is needed and libfabric did not load: %s", why);
        return ARMCII_ESYS;
    }
    double t0 = armcii_now();
    struct fi_info *base = ask(NULL, NULL, 0, 0, 0, 0);
    armcii_fi_note_start(armcii_now() - t0);
    if (!base)
        return ARMCII_EFABRIC;
    char *prov = strdup(base->fabric_attr->prov_name);
    fi_freeinfo(base);
    if (!prov)
        return ARMCII_ENOMEM;
    /* Its NIC, where it has several: every domain that answers the bare needs. */
    char domain[64] = "";
    struct fi_info *all = ask_all(prov, NULL, 0, 0, 0, 0);
    int bad_nic = all && pick_domain(all, want, domain, sizeof domain) != 0;
    if (all)
        fi_freeinfo(all);
    if (bad_nic) {
        free(prov);
        armcii_warn("ARMCI_Init: %s", want->nic_why);
        return ARMCII_EINVAL;
    }
    const char *dom = domain[0] ? domain : NULL;
    for (size_t t = 0; t < sizeof(tries) / sizeof(tries[0]); t++) {
        struct fi_info *info = ask(prov, dom, tries[t][0], tries[t][1], tries[t][2], 1);
        /* Asked for ordering, shm addresses registrations by offset; without, by virtual
         * address, as NICs do: strict registration takes that (ARMCI_MR_MODE). */
        if (!info || (want->virt_addr && !(info->domain_attr->mr_mode & FI_MR_VIRT_ADDR))) {
            struct fi_info *plain = ask(prov, dom, tries[t][0], tries[t][1], tries[t][2], 0);
            if (plain && (!info || (plain->domain_attr->mr_mode & FI_MR_VIRT_ADDR))) {
                if (info)
                    fi_freeinfo(info);
                info = plain;
            } else if (plain) {
                fi_freeinfo(plain);
            }
        }
        if (!info)
            continue;
        free(prov);
        *info_p = info;
        *atomics_p = tries[t][0];
        *dc_p = tries[t][1];
        return ARMCII_OK;
    }
    free(prov); /* it answered the bare hints, so the last try cannot fail but by a race */
    return ARMCII_EFABRIC;
}

/* ---- a node with RDMA devices that ended on a software provider ---- */

size_t armcii_ofi_rdma_devices(const char *sysfs, char *out, size_t len)
{
    static const char *const classes[] = {"class/infiniband", "class/cxi"};
    size_t n = 0, used = 0;
    if (len > 0)
        out[0] = '\0';
    for (size_t c = 0; c < sizeof(classes) / sizeof(classes[0]); c++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", sysfs, classes[c]);
        DIR *d = opendir(path);
        if (!d)
            continue;
        for (struct dirent *e; (e = readdir(d));) {
            if (e->d_name[0] == '.')
                continue;
            n++;
            if (used + strlen(e->d_name) + 3 < len)
                used +=
                    (size_t)snprintf(out + used, len - used, "%s%s", used ? ", " : "", e->d_name);
        }
        closedir(d);
    }
    return n;
}

int armcii_ofi_is_software(const char *prov)
{
    static const char *const soft[] = {"tcp", "udp", "sockets", "net", "shm"};
    size_t core = strcspn(prov, ";");
    for (size_t i = 0; i < sizeof(soft) / sizeof(soft[0]); i++)
        if (strlen(soft[i]) == core && strncmp(prov, soft[i], core) == 0)
            return 1;
    return 0;
}

void armcii_ofi_why_software(const char *chosen, const char *fi_provider, char *out, size_t len)
{
    char devs[200];
    out[0] = '\0';
    if (!armcii_ofi_is_software(chosen) || (fi_provider && fi_provider[0] && fi_provider[0] != '^'))
        return; /* a NIC's provider, or the user's own choice */
    if (armcii_ofi_rdma_devices("/sys", devs, sizeof devs) == 0)
        return;
    /* Which providers of a NIC libfabric has at all, and what each lacks of the bare
     * needs: RDM endpoints, then RMA, then messages. */
    struct fi_info *all = NULL;
    size_t used = (size_t)snprintf(
        out, len, "this node has RDMA devices (%s) but armci-ofi runs on %s", devs, chosen);
    if (fi_getinfo(OFI_VERSION, NULL, NULL, 0, NULL, &all) != 0 || !all) {
        snprintf(out + used, len - used, ": libfabric lists no provider for them");
        return;
    }
    int named = 0;
    for (struct fi_info *i = all; i && used < len; i = i->next) {
        const char *p = i->fabric_attr->prov_name;
        if (armcii_ofi_is_software(p) || strchr(p, ';'))
            continue; /* one line per core provider */
        int dup = 0;
        for (struct fi_info *j = all; j != i; j = j->next)
            dup |= strcmp(j->fabric_attr->prov_name, p) == 0;
        if (dup)
            continue;
        struct fi_info *h = fi_allocinfo(), *l = NULL;
        const char *lacks = "armci-ofi's hints (mr_mode, threading or mode bits)";
        if (h) {
            h->fabric_attr->prov_name = strdup(p);
            h->ep_attr->type = FI_EP_RDM;
            if (fi_getinfo(OFI_VERSION, NULL, NULL, 0, h, &l) != 0 || !l)
                lacks = "RDM endpoints (with or without a utility provider)";
            else {
                fi_freeinfo(l);
                l = NULL;
                h->caps = FI_RMA;
                if (fi_getinfo(OFI_VERSION, NULL, NULL, 0, h, &l) != 0 || !l)
                    lacks = "RMA on RDM endpoints";
                else {
                    fi_freeinfo(l);
                    l = NULL;
                    h->caps = FI_RMA | FI_MSG;
                    if (fi_getinfo(OFI_VERSION, NULL, NULL, 0, h, &l) != 0 || !l)
                        lacks = "messages beside RMA on RDM endpoints";
                }
            }
            if (l)
                fi_freeinfo(l);
            fi_freeinfo(h);
        }
        used += (size_t)snprintf(out + used, len - used, "%s %s offers no %s", named ? ";" : ":", p,
                                 lacks);
        named = 1;
    }
    fi_freeinfo(all);
    if (!named && used < len)
        snprintf(out + used, len - used,
                 ": libfabric has no provider for them (is it built with verbs, efa or cxi?)");
}

/* ---- every process chose the same ---- */

typedef struct {
    char prov[48];
    char fabric[48];
    uint64_t mr_mode;
    uint64_t order;
    int32_t ok, atomics, dc, manual;
} choice_t;

static int same_choice(const choice_t *a, const choice_t *b)
{
    return strcmp(a->prov, b->prov) == 0 && a->mr_mode == b->mr_mode && a->order == b->order &&
           a->atomics == b->atomics && a->dc == b->dc && a->manual == b->manual;
}

static void describe(const choice_t *c, char *out, size_t len)
{
    snprintf(out, len, "%s (fabric %s; %s, %s completion, %s progress, mr_mode 0x%llx)", c->prov,
             c->fabric, c->atomics ? "atomics" : "no atomics", c->dc ? "delivery" : "transmit",
             c->manual ? "manual" : "auto", (unsigned long long)c->mr_mode);
}

/* "0,2-5,9": the ranks of @p all that chose like @p like, written into @p out. */
static void ranks_like(const choice_t *all, int n, const choice_t *like, char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (int r = 0; r < n && used + 24 < len; r++) {
        if (!same_choice(&all[r], like) || (r > 0 && same_choice(&all[r - 1], like)))
            continue;
        int last = r;
        while (last + 1 < n && same_choice(&all[last + 1], like))
            last++;
        used += (size_t)snprintf(out + used, len - used, used ? ",%d" : "%d", r);
        if (last > r)
            used += (size_t)snprintf(out + used, len - used, "-%d", last);
    }
}

armcii_status_t armcii_ofi_agree(const char *call, MPI_Comm comm, const struct fi_info *i,
                                 int atomic_cap, int delivery_complete)
{
    choice_t mine;
    memset(&mine, 0, sizeof mine);
    mine.ok = i != NULL;
    if (i) {
        snprintf(mine.prov, sizeof mine.prov, "%s", i->fabric_attr->prov_name);
        snprintf(mine.fabric, sizeof mine.fabric, "%s",
                 i->fabric_attr->name ? i->fabric_attr->name : "?");
        mine.mr_mode = i->domain_attr->mr_mode;
        mine.order = i->tx_attr->msg_order;
        mine.atomics = atomic_cap;
        mine.dc = delivery_complete;
        mine.manual = i->domain_attr->data_progress == FI_PROGRESS_MANUAL;
    }
    int n;
    MPI_Comm_size(comm, &n);
    choice_t *all = malloc((size_t)n * sizeof(*all));
    if (!all)
        return ARMCII_ENOMEM;
    MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, comm);
    int kinds = 0, first_other = -1;
    armcii_status_t st = ARMCII_OK;
    for (int r = 0; r < n; r++) {
        if (!all[r].ok)
            st = ARMCII_EFABRIC; /* that process said why */
        else if (first_other < 0 && !same_choice(&all[r], &all[0]))
            first_other = r;
    }
    if (st != ARMCII_OK || first_other < 0) {
        free(all);
        return st;
    }
    /* Every distinct choice, in the order of its lowest rank, with the ranks that made it. */
    char msg[900], ranks[160], what[200];
    size_t used = (size_t)snprintf(msg, sizeof msg,
                                   "the processes chose different libfabric providers or "
                                   "settings and could not reach each other:");
    for (int r = 0; r < n && used < sizeof msg; r++) {
        int seen = 0;
        for (int q = 0; q < r && !seen; q++)
            seen = same_choice(&all[q], &all[r]);
        if (seen)
            continue;
        if (++kinds > 4) {
            used += (size_t)snprintf(msg + used, sizeof msg - used, " ...");
            break;
        }
        ranks_like(all, n, &all[r], ranks, sizeof ranks);
        describe(&all[r], what, sizeof what);
        used +=
            (size_t)snprintf(msg + used, sizeof msg - used, "%s rank%s %s: %s",
                             kinds > 1 ? ";" : "", strpbrk(ranks, ",-") ? "s" : "", ranks, what);
    }
    free(all);
    armcii_fatal(call,
                 "%s. Set FI_PROVIDER (and the provider's interface, e.g. FI_TCP_IFACE) the "
                 "same for every process; `armci-info` on each node shows what it would choose",
                 msg);
}
