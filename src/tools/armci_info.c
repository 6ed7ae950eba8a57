/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * armci-info: what armci-ofi would run on here, in the spirit of ompi_info and fi_info.
 * The libfabric providers with what the runtime needs from each and the one it would
 * choose, hwloc's view of the node, and every environment variable with its current value.
 * Runs as a single process, without mpirun.
 *
 *   armci-info            a report for people
 *   armci-info --json     the same for scripts
 *   armci-info --markdown the environment table (docs/tuning.md is generated from it)
 *   armci-info --check    a site's bring-up: can this node (or, under a launcher, every
 *                         host) run armci-ofi jobs (armci_check.c)
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

#include "../transport/ofi_internal.h"
#include "armci_check.h"

/* Appended to the help of the settings ARMCI_Init compares across processes. */
#define SAME_NOTE " (the same on every process)"

static const char *const acc_names[6] = {"int",    "long",    "float",
                                         "double", "complex", "double complex"};
static const enum fi_datatype acc_fi[6] = {FI_INT32,  FI_INT64,         FI_FLOAT,
                                           FI_DOUBLE, FI_FLOAT_COMPLEX, FI_DOUBLE_COMPLEX};

typedef struct {
    char name[64];
    size_t inject, iov, rma_iov;
    int manual, atomic_cap, opened;
    uint64_t mr_mode;
    int acc[6]; /* fi_atomicvalid(FI_SUM) per ARMCI accumulate type */
} prov_t;

/* Open an endpoint just to ask which atomics the provider accepts. */
static void probe_atomics(struct fi_info *info, prov_t *p)
{
    struct fid_fabric *fab = NULL;
    struct fid_domain *dom = NULL;
    struct fid_av *av = NULL;
    struct fid_cq *cq = NULL;
    struct fid_ep *ep = NULL;
    struct fi_av_attr av_attr = {.type = FI_AV_TABLE};
    struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_CONTEXT};
    if (fi_fabric(info->fabric_attr, &fab, NULL) == 0 && fi_domain(fab, info, &dom, NULL) == 0 &&
        fi_av_open(dom, &av_attr, &av, NULL) == 0 && fi_cq_open(dom, &cq_attr, &cq, NULL) == 0 &&
        fi_endpoint(dom, info, &ep, NULL) == 0 && fi_ep_bind(ep, &av->fid, 0) == 0 &&
        fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV) == 0 && fi_enable(ep) == 0) {
        p->opened = 1;
        for (int t = 0; t < 6; t++) {
            size_t count = 0;
            p->acc[t] = (info->caps & FI_ATOMIC) &&
                        fi_atomicvalid(ep, acc_fi[t], FI_SUM, &count) == 0 && count > 0;
        }
    }
    if (ep)
        fi_close(&ep->fid);
    if (cq)
        fi_close(&cq->fid);
    if (av)
        fi_close(&av->fid);
    if (dom)
        fi_close(&dom->fid);
    if (fab)
        fi_close(&fab->fid);
}

/* Every provider offering RDM endpoints with RMA and messages, once each. */
static int list_providers(prov_t *out, int max)
{
    struct fi_info *hints = fi_allocinfo(), *list = NULL;
    hints->caps = FI_RMA | FI_MSG;
    hints->ep_attr->type = FI_EP_RDM;
    hints->mode = FI_CONTEXT | FI_CONTEXT2;
    hints->domain_attr->mr_mode =
        FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    int n = 0;
    if (fi_getinfo(FI_VERSION(1, 10), NULL, NULL, 0, hints, &list) == 0) {
        for (struct fi_info *i = list; i && n < max; i = i->next) {
            int seen = 0;
            for (int k = 0; k < n; k++)
                seen |= strcmp(out[k].name, i->fabric_attr->prov_name) == 0;
            if (seen)
                continue;
            prov_t *p = &out[n++];
            memset(p, 0, sizeof(*p));
            snprintf(p->name, sizeof(p->name), "%s", i->fabric_attr->prov_name);
            p->inject = i->tx_attr->inject_size;
            p->iov = i->tx_attr->iov_limit;
            p->rma_iov = i->tx_attr->rma_iov_limit;
            p->manual = i->domain_attr->data_progress == FI_PROGRESS_MANUAL;
            p->mr_mode = i->domain_attr->mr_mode;
            p->atomic_cap = (i->caps & FI_ATOMIC) != 0;
            /* ask again with atomics to get an info an endpoint can be opened with */
            struct fi_info *h2 = fi_dupinfo(hints), *l2 = NULL;
            h2->caps |= FI_ATOMIC;
            h2->fabric_attr->prov_name = strdup(p->name);
            if (fi_getinfo(FI_VERSION(1, 10), NULL, NULL, 0, h2, &l2) == 0) {
                p->atomic_cap = 1;
                probe_atomics(l2, p);
                fi_freeinfo(l2);
            }
            fi_freeinfo(h2);
        }
        fi_freeinfo(list);
    }
    fi_freeinfo(hints);
    return n;
}

static void mr_mode_text(uint64_t m, char *buf, size_t len)
{
    static const struct {
        uint64_t bit;
        const char *name;
    } bits[] = {{FI_MR_LOCAL, "local"},         {FI_MR_VIRT_ADDR, "virt_addr"},
                {FI_MR_ALLOCATED, "allocated"}, {FI_MR_PROV_KEY, "prov_key"},
                {FI_MR_ENDPOINT, "endpoint"},   {FI_MR_RAW, "raw"}};
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
        if (m & bits[i].bit)
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? "," : "", bits[i].name);
    if (!buf[0])
        snprintf(buf, len, "none");
}

typedef struct {
    unsigned cores, pus, numa;
    unsigned long l2, l3;
} node_t;

static void node_info(node_t *n)
{
    memset(n, 0, sizeof(*n));
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0)
        return;
    if (hwloc_topology_load(topo) == 0) {
        n->cores = (unsigned)hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
        n->pus = (unsigned)hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
        n->numa = (unsigned)hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
        hwloc_obj_t l2 = hwloc_get_obj_by_type(topo, HWLOC_OBJ_L2CACHE, 0);
        hwloc_obj_t l3 = hwloc_get_obj_by_type(topo, HWLOC_OBJ_L3CACHE, 0);
        n->l2 = l2 ? (unsigned long)l2->attr->cache.size : 0;
        n->l3 = l3 ? (unsigned long)l3->attr->cache.size : 0;
    }
    hwloc_topology_destroy(topo);
}

static const char *env_lookup(const char *name)
{
    return getenv(name);
}

/* Text for roff: a backslash doubled, a hyphen escaped (a plain - may print as a dash),
 * and a line that would begin with a dot or a quote kept from being read as a request. */
static void roff(const char *s)
{
    if (*s == '.' || *s == '\'')
        fputs("\\&", stdout);
    for (; *s; s++) {
        if (*s == '\\')
            fputs("\\e", stdout);
        else if (*s == '-')
            fputs("\\-", stdout);
        else
            putchar(*s);
    }
}

/* armci-ofi(7): what the library is, and every environment variable from the same table
 * as docs/tuning.md (`make docs` writes docs/man/armci-ofi.7 with it). */
static int man_page(void)
{
    printf(".\\\" SPDX-License-Identifier: BSD-3-Clause\n"
           ".\\\" Generated by armci-info --man (make docs); edit src/base/env_defs.h instead.\n"
           ".TH ARMCI-OFI 7 \"\" \"armci-ofi %s\" \"armci-ofi\"\n"
           ".SH NAME\narmci\\-ofi \\- the ARMCI one\\-sided communication library on libfabric\n"
           ".SH SYNOPSIS\n"
           ".B #include <armci.h>\n.PP\n"
           ".B mpicc prog.c $(pkg\\-config \\-\\-cflags \\-\\-libs armci)\n"
           ".SH DESCRIPTION\n"
           "armci\\-ofi implements the ARMCI interface of ARMCI\\-MPI (armci.h, message.h, "
           "armcix.h) with its ABI, on libfabric: one\\-sided put, get, accumulate and "
           "read\\-modify\\-write, strided and vector, blocking and nonblocking, mutexes, "
           "groups and the armci_msg collectives. Processes of one node reach each other "
           "through shared memory; MPI starts the job. Global Arrays and NWChem run on it.\n"
           ".PP\nIt is configured by the environment variables below, read by ARMCI_Init. "
           "A bad value ends the program with a message naming the variable. Those marked "
           "\\(lqthe same on every process\\(rq are compared between processes at start, "
           "and a difference ends the job naming both values.\n"
           ".SH ENVIRONMENT\n",
           PACKAGE_VERSION);
    for (int i = 0; i < armcii_env_nrows; i++) {
        printf(".TP\n.B ");
        roff(armcii_env_rows[i].name);
        printf("\n(default ");
        roff(armcii_env_rows[i].def[0] ? armcii_env_rows[i].def : "empty");
        printf(")\n");
        roff(armcii_env_rows[i].help);
        if (armcii_env_rows[i].same)
            roff(SAME_NOTE);
        printf("\n");
    }
    printf(".SH SEE ALSO\n.BR armci\\-info (1),\n.BR fabric (7),\n.BR mpirun (1)\n"
           ".PP\ntuning.md and cluster.md, in /usr/share/doc/armci\\-ofi\\-tools of the "
           "Debian packages and in docs/ of the source, for what each setting changes and "
           "how to bring armci\\-ofi up on a cluster.\n");
    return 0;
}

extern char **environ;

/* A setting of the environment this runtime does not read (env_foreign.h, misspellings). */
static void print_not_read(const char *line)
{
    printf("  note: %s\n", line);
}

static void usage(FILE *to)
{
    fprintf(to,
            "usage: armci-info [--json | --markdown | --migration | --man | --check [--json] |\n"
            "                  --version | --help]\n"
            "What armci-ofi would run on here: the libfabric providers and the one it would\n"
            "choose, the node as hwloc sees it, every ARMCI_* environment variable with its\n"
            "value, default and meaning. Runs as one process, without a launcher.\n"
            "  --json      the same report for scripts\n"
            "  --markdown  the environment table (docs/tuning.md is made from it)\n"
            "  --migration the settings of ARMCI-MPI, GA's ARMCI and ComEx, and what each\n"
            "              means here, as a table (docs/cluster.md is made from it)\n"
            "  --man       the armci-ofi(7) manual page: the environment, in roff\n"
            "  --check     can this node run armci-ofi jobs: libfabric, provider, MPI,\n"
            "              locked memory, /dev/shm, huge pages, each ok, warn or FAIL (exit\n"
            "              status 1 on a failure); under a launcher (mpirun -np N armci-info\n"
            "              --check, one process per node or more) one line per host, and\n"
            "              between every pair of hosts a put, a get and a fetch-and-add, each\n"
            "              verified, with latency and bandwidth; --check --json for scripts\n"
            "  --version   the version of armci-ofi\n");
}

int main(int argc, char **argv)
{
    const char *opt = argc > 1 ? argv[1] : "";
    int json = strcmp(opt, "--json") == 0;
    int markdown = strcmp(opt, "--markdown") == 0;
    int man = strcmp(opt, "--man") == 0;
    int check = strcmp(opt, "--check") == 0;
    if (strcmp(opt, "--help") == 0 || strcmp(opt, "-h") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(opt, "--version") == 0) {
        printf("armci-info (armci-ofi) %s\n", PACKAGE_VERSION);
        return 0;
    }
    if (man) /* from the table alone: no libfabric, no environment needed */
        return man_page();
    if (strcmp(opt, "--migration") == 0 && argc == 2) {
        printf("| setting | of | here |\n|---|---|---|\n");
        for (int f = 0; f < armcii_env_nforeign; f++) {
            const armcii_env_foreign_t *x = &armcii_env_foreign[f];
            printf("| `%s` | %s | %s%s%s%s |\n", x->name, x->origin, x->alias[0] ? "read as `" : "",
                   x->alias, x->alias[0] ? "`: " : "", x->note);
        }
        return 0;
    }
    /* --check --json: the check's report for scripts */
    int check_json = check && argc == 3 && strcmp(argv[2], "--json") == 0;
    if (argc > 2 + check_json || (argc > 1 && !json && !markdown && !check)) {
        fprintf(stderr, "armci-info: unknown option '%s'\n", argc > 2 ? argv[2] : opt);
        usage(stderr);
        return 2;
    }
    armcii_env_t env;
    char err[512];
    if (armcii_env_load(&env, env_lookup, err, sizeof(err)) != 0) {
        fprintf(stderr, "armci-info: %s\n", err);
        return 1;
    }
    if (check)
        return armci_check_run(&env, check_json);
    const char *why = armcii_fi_load(env.FABRIC_LIB);
    if (why) {
        fprintf(stderr, "armci-info: %s\n", why);
        return 1;
    }
    if (markdown) {
        printf("| variable | default | meaning |\n|---|---|---|\n");
        for (int i = 0; i < armcii_env_nrows; i++)
            printf("| `%s` | %s | %s%s |\n", armcii_env_rows[i].name, armcii_env_rows[i].def,
                   armcii_env_rows[i].help, armcii_env_rows[i].same ? SAME_NOTE : "");
        return 0;
    }
    prov_t prov[32];
    int np = list_providers(prov, 32);
    struct fi_info *chosen = NULL;
    int atom = 0, dc = 0;
    armcii_ofi_want_t want = {
        .virt_addr = strcmp(env.MR_MODE, "strict") == 0, .nic = env.NIC, .lib = env.FABRIC_LIB};
    const char *pick = armcii_ofi_choose(&want, &chosen, &atom, &dc) == ARMCII_OK
                           ? chosen->fabric_attr->prov_name
                           : "none";
    char soft[400] = "";
    if (chosen)
        armcii_ofi_why_software(pick, getenv("FI_PROVIDER"), soft, sizeof soft);
    node_t node;
    node_info(&node);
    char mr[96], val[32];

    if (json) {
        printf("{\n  \"version\": \"%s\",\n  \"libfabric\": \"%u.%u\",\n", PACKAGE_VERSION,
               FI_MAJOR(fi_version()), FI_MINOR(fi_version()));
        printf("  \"build\": {\"cc\": ");
        armci_json_str(ARMCII_BUILD_CC);
        printf(", \"cflags\": ");
        armci_json_str(ARMCII_BUILD_CFLAGS);
        printf(", \"configure\": ");
        armci_json_str(ARMCII_CONFIGURE_ARGS);
        printf("},\n");
        printf("  \"providers\": [\n");
        for (int i = 0; i < np; i++) {
            mr_mode_text(prov[i].mr_mode, mr, sizeof(mr));
            printf("    {\"name\": ");
            armci_json_str(prov[i].name);
            printf(", \"inject_size\": %zu, \"iov_limit\": %zu, \"rma_iov_limit\": %zu, "
                   "\"progress\": \"%s\", \"mr_mode\": \"%s\", \"atomics\": {",
                   prov[i].inject, prov[i].iov, prov[i].rma_iov, prov[i].manual ? "manual" : "auto",
                   mr);
            for (int t = 0; t < 6; t++)
                printf("%s\"%s\": %s", t ? ", " : "", acc_names[t],
                       prov[i].acc[t] ? "true" : "false");
            printf("}, \"atomics_use\": ");
            armci_json_str(armcii_ofi_atomics_policy(prov[i].name));
            printf("}%s\n", i + 1 < np ? "," : "");
        }
        printf("  ],\n  \"chosen\": ");
        armci_json_str(pick);
        printf(",\n  \"why_software\": ");
        armci_json_str(soft);
        printf(",\n  \"node\": {\"cores\": %u, \"pus\": %u, \"numa_nodes\": %u, \"l2_bytes\": %lu, "
               "\"l3_bytes\": %lu},\n",
               node.cores, node.pus, node.numa, node.l2, node.l3);
        printf("  \"environment\": [\n");
        for (int i = 0; i < armcii_env_nrows; i++) {
            armcii_env_format(&env, i, val, sizeof(val));
            printf("    {\"name\": \"%s\", \"value\": \"%s\", \"default\": \"%s\", \"help\": ",
                   armcii_env_rows[i].name, val, armcii_env_rows[i].def);
            armci_json_str(armcii_env_rows[i].help);
            printf(", \"same_everywhere\": %s}%s\n", armcii_env_rows[i].same ? "true" : "false",
                   i + 1 < armcii_env_nrows ? "," : "");
        }
        printf("  ]\n}\n");
    } else {
        printf("armci-ofi %s on libfabric %u.%u and hwloc %s\n", PACKAGE_VERSION,
               FI_MAJOR(fi_version()), FI_MINOR(fi_version()), HWLOC_VERSION);
        printf("built with %s %s; configured with: %s\n\n", ARMCII_BUILD_CC, ARMCII_BUILD_CFLAGS,
               ARMCII_CONFIGURE_ARGS[0] ? ARMCII_CONFIGURE_ARGS : "(defaults)");
        printf("libfabric providers with RDM endpoints, RMA and messages:\n");
        printf("  %-16s %7s %4s %7s %-8s %-24s %s\n", "provider", "inject", "iov", "rma_iov",
               "progress", "mr_mode", "atomics (sum): int long float double cpl dcpl");
        for (int i = 0; i < np; i++) {
            mr_mode_text(prov[i].mr_mode, mr, sizeof(mr));
            printf("  %-16s %7zu %4zu %7zu %-8s %-24s ", prov[i].name, prov[i].inject, prov[i].iov,
                   prov[i].rma_iov, prov[i].manual ? "manual" : "auto", mr);
            if (!prov[i].opened)
                printf("(not probed)");
            for (int t = 0; t < 6 && prov[i].opened; t++)
                printf("%s ", prov[i].acc[t] ? "yes" : "no");
            printf("-> %s\n", armcii_ofi_atomics_policy(prov[i].name));
        }
        printf("\narmci-ofi would use: %s (set FI_PROVIDER to choose; ARMCI_SHM=0 sends same-node "
               "peers through it too)\n\n",
               pick);
        if (soft[0])
            printf("note: %s\n\n", soft);
        printf("node (hwloc): %u cores, %u PUs, %u NUMA node(s), L2 %lu KiB, L3 %lu KiB\n\n",
               node.cores, node.pus, node.numa, node.l2 >> 10, node.l3 >> 10);
        printf("environment:\n");
        if (armcii_env_review(environ, print_not_read) > 0)
            printf("\n");
        for (int i = 0; i < armcii_env_nrows; i++) {
            armcii_env_format(&env, i, val, sizeof(val));
            printf("  %-28s = %-6s (default %s)\n      %s%s\n", armcii_env_rows[i].name, val,
                   armcii_env_rows[i].def, armcii_env_rows[i].help,
                   armcii_env_rows[i].same ? SAME_NOTE : "");
        }
    }
    fi_freeinfo(chosen);
    /* a node where no provider fits cannot run a job that leaves it: scripts see it */
    if (!chosen && !json)
        printf("\narmci-info: no libfabric provider armci-ofi can use here%s; a job whose "
               "processes are all on this node runs on node memory alone\n",
               getenv("FI_PROVIDER") ? " (FI_PROVIDER narrows the choice)" : "");
    return chosen ? 0 : 1;
}
