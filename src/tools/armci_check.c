/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * armci-info --check: can this node, and every node of a launch, run armci-ofi jobs?
 *
 * A site's bring-up in one command. Alone, it checks this node and prints one line per
 * item, each ok, warn or FAIL: the libfabric that will be opened, the provider ARMCI_Init
 * would choose (and why a node with RDMA devices would end on a software one), the MPI,
 * the locked-memory limit that NIC registrations count against, /dev/shm (where node
 * memory lives), huge pages. Under a launcher (mpirun, mpiexec, srun: more than one
 * process) every host checks itself, and the first process prints one line per host and
 * whether all hosts would choose alike. The exit status is 1 when anything failed.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <hwloc.h>
#include <mpi.h>

#include "../transport/ofi_internal.h"
#include "armci_check.h"

#define LINE 360

typedef struct {
    char host[64];
    int procs, rank; /* processes of the launch on this host; the first one's rank */
    char provider[48];
    char libfabric[160];
    char memlock[32];
    char shm[48];
    int fails, warns;
} host_t;

typedef struct {
    int fails, warns;
    int quiet;  /* under a launcher only the first process prints its lines; none with JSON */
    int nitems; /* the lines, kept for JSON */
    struct {
        char level[8];
        char msg[LINE];
    } items[24];
} tally_t;

static void say(tally_t *t, const char *level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void say(tally_t *t, const char *level, const char *fmt, ...)
{
    if (level[0] == 'F')
        t->fails++;
    else if (level[0] == 'w')
        t->warns++;
    char msg[LINE];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (t->nitems < (int)(sizeof t->items / sizeof t->items[0])) {
        snprintf(t->items[t->nitems].level, sizeof t->items[0].level, "%s", level);
        snprintf(t->items[t->nitems].msg, sizeof t->items[0].msg, "%s", msg);
        t->nitems++;
    }
    if (!t->quiet)
        printf("  %-5s %s\n", level, msg);
}

static void bytes_text(unsigned long long b, char *out, size_t len)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    double v = (double)b;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        u++;
    }
    snprintf(out, len, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
}

/* A line of /proc/meminfo ("HugePages_Total:"), as a number; -1 when absent. */
static long meminfo(const char *key)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return -1;
    char line[256];
    long v = -1;
    size_t n = strlen(key);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, n) == 0) {
            v = strtol(line + n, NULL, 10);
            break;
        }
    fclose(f);
    return v;
}

static void check_node(tally_t *t, host_t *h, const armcii_env_t *env)
{
    gethostname(h->host, sizeof h->host);
    h->host[sizeof h->host - 1] = '\0';

    /* libfabric: the file the runtime will open, and its version */
    const char *why = armcii_fi_load(env->FABRIC_LIB);
    if (why) {
        say(t, "FAIL", "libfabric: %s (install libfabric1, or name it in ARMCI_FABRIC_LIB)", why);
        snprintf(h->libfabric, sizeof h->libfabric, "none");
    } else {
        say(t, "ok", "%s", armcii_fi_loaded());
        snprintf(h->libfabric, sizeof h->libfabric, "%s", armcii_fi_loaded());
    }

    /* the provider ARMCI_Init would choose, and RDMA devices that it would not use */
    char devs[200];
    size_t ndev = armcii_ofi_rdma_devices("/sys", devs, sizeof devs);
    snprintf(h->provider, sizeof h->provider, "none");
    if (!why) {
        struct fi_info *info = NULL;
        int atom = 0, dc = 0;
        armcii_ofi_want_t want = {.virt_addr = strcmp(env->MR_MODE, "strict") == 0,
                                  .nic = env->NIC,
                                  .lib = env->FABRIC_LIB};
        armcii_status_t st = armcii_ofi_choose(&want, &info, &atom, &dc);
        if (st == ARMCII_EINVAL) {
            say(t, "FAIL", "NIC: %s", want.nic_why);
        } else if (st != ARMCII_OK) {
            say(t, "FAIL",
                "provider: none offers RDM endpoints with RMA and messages (see "
                "`fi_info -t FI_EP_RDM -c FI_RMA`; FI_PROVIDER narrows the choice)");
        } else {
            const char *p = info->fabric_attr->prov_name;
            snprintf(h->provider, sizeof h->provider, "%s", p);
            char soft[400];
            armcii_ofi_why_software(p, getenv("FI_PROVIDER"), soft, sizeof soft);
            if (soft[0])
                say(t, "warn", "provider: %s; %s", p, soft);
            else
                say(t, "ok", "provider: %s (%s atomics, %s completion%s)", p, atom ? "with" : "no",
                    dc ? "delivery" : "transmit",
                    getenv("FI_PROVIDER") ? ", chosen by FI_PROVIDER" : "");
            say(t, "ok", "NIC: %s", want.nic_why);
            fi_freeinfo(info);
        }
    }
    if (ndev)
        say(t, "ok", "RDMA devices: %s", devs);
    else
        say(t, "ok",
            "RDMA devices: none (/sys/class/infiniband, /sys/class/cxi): processes "
            "on different nodes meet over tcp");

    /* MPI: the library this build runs with */
    char ver[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(ver, &len);
    ver[strcspn(ver, "\n,")] = '\0';
    for (char *c = ver; *c; c++) /* MPICH writes "MPICH Version:\t4.0.2" */
        if (*c == '\t')
            *c = ' ';
#if defined(OPEN_MPI)
    const char *family = "Open MPI";
#elif defined(MPICH_VERSION)
    const char *family = "MPICH family";
#else
    const char *family = "an MPI of neither family";
#endif
    say(t, "ok", "MPI: %s (this build is for %s: its ARMCI_Group layout is that family's)", ver,
        family);

    /* locked memory: every NIC registration counts against it */
    struct rlimit rl;
    if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0) {
        char b[32];
        if (rl.rlim_cur == RLIM_INFINITY)
            snprintf(b, sizeof b, "unlimited");
        else
            bytes_text((unsigned long long)rl.rlim_cur, b, sizeof b);
        snprintf(h->memlock, sizeof h->memlock, "%s", b);
        int low = rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < (rlim_t)1 << 30;
        if (low && ndev)
            say(t, "warn",
                "locked memory: %s (ulimit -l); NIC providers pin what they register, "
                "ARMCI_Malloc memory included: set it unlimited (limits.conf, or the "
                "launcher's daemons' own limit)",
                b);
        else
            say(t, "ok", "locked memory: %s%s", b,
                low ? " (low, but tcp registers nothing with the kernel)" : "");
    }

    /* /dev/shm: node memory for ARMCI_Malloc and the collectives lives there */
    struct statvfs vfs;
    if (statvfs("/dev/shm", &vfs) != 0) {
        snprintf(h->shm, sizeof h->shm, "absent");
        say(t, env->SHM ? "FAIL" : "ok",
            "/dev/shm: not mounted; node memory needs it (ARMCI_SHM=0 reaches every peer "
            "through libfabric instead)");
    } else {
        unsigned long long total = (unsigned long long)vfs.f_blocks * vfs.f_frsize;
        unsigned long long avail = (unsigned long long)vfs.f_bavail * vfs.f_frsize;
        char a[32], tot[32];
        bytes_text(avail, a, sizeof a);
        bytes_text(total, tot, sizeof tot);
        snprintf(h->shm, sizeof h->shm, "%s free", a);
        long mem_kib = meminfo("MemTotal:");
        int small = mem_kib > 0 && total < (unsigned long long)mem_kib * 1024 / 4;
        say(t, small ? "warn" : "ok", "/dev/shm: %s free of %s%s", a, tot,
            small ? "; under a quarter of the node's memory: ARMCI_Malloc of the node's "
                    "processes is limited by it (mount it larger)"
                  : " (ARMCI_Malloc of the node's processes lives here)");
    }

    /* huge pages: what is there (the runtime does not need them) */
    long huge = meminfo("HugePages_Total:"), huge_kib = meminfo("Hugepagesize:");
    char thp[64] = "unknown";
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (f) {
        if (fgets(thp, sizeof thp, f)) {
            char *a = strchr(thp, '['), *b = a ? strchr(a, ']') : NULL;
            if (a && b) {
                *b = '\0';
                memmove(thp, a + 1, (size_t)(b - a));
            }
            thp[strcspn(thp, "\n")] = '\0';
        }
        fclose(f);
    }
    say(t, "ok", "huge pages: %ld reserved of %ld KiB; transparent: %s", huge < 0 ? 0 : huge,
        huge_kib < 0 ? 0 : huge_kib, thp);

    /* the node */
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) == 0) {
        if (hwloc_topology_load(topo) == 0)
            say(t, "ok", "node: %d cores, %d hardware threads, %d NUMA node(s)",
                hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE),
                hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU),
                hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE));
        hwloc_topology_destroy(topo);
    }
    h->fails = t->fails;
    h->warns = t->warns;
}

/* Whether a launcher started this process among others (then MPI is initialised). */
static int launched(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK",
                                       "SLURM_NTASKS", "MPI_LOCALNRANKS"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v && (strcmp(vars[i], "PMIX_RANK") == 0 || atoi(v) > 1))
            return 1;
    }
    return 0;
}

void armci_json_str(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 0x20)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

static void json_host(const host_t *h)
{
    printf("    {\"host\": ");
    armci_json_str(h->host);
    printf(", \"processes\": %d, \"result\": \"%s\", \"provider\": ", h->procs,
           h->fails   ? "FAIL"
           : h->warns ? "warn"
                      : "ok");
    armci_json_str(h->provider);
    printf(", \"libfabric\": ");
    armci_json_str(h->libfabric);
    printf(", \"memlock\": ");
    armci_json_str(h->memlock);
    printf(", \"dev_shm\": ");
    armci_json_str(h->shm);
    printf("}");
}

static int pair_ok(const armci_pair_t *p)
{
    return p->put_get && p->fetch_add && !p->error[0];
}

static const char *pair_result(const armci_pair_t *p)
{
    return pair_ok(p) ? "ok" : p->untested ? "not tested" : "FAIL";
}

/* The report of a launch (rank 0): hosts, pairs, the verdict; as text or JSON. */
static int report_launch(const tally_t *t, const host_t *hosts, int nh, const armci_pair_t *pairs,
                         int npairs, const char *no_pairs, int json)
{
    int fails = 0, differ = 0, bad_pairs = 0;
    for (int i = 0; i < nh; i++) {
        fails += hosts[i].fails;
        differ |= strcmp(hosts[i].provider, hosts[0].provider) != 0 ||
                  strcmp(hosts[i].libfabric, hosts[0].libfabric) != 0;
    }
    int untested = 0;
    for (int i = 0; i < npairs; i++) {
        bad_pairs += !pair_ok(&pairs[i]) && !pairs[i].untested;
        untested += pairs[i].untested;
    }
    if (json) {
        printf("{\n  \"checks\": [\n");
        for (int i = 0; i < t->nitems; i++) {
            printf("    {\"level\": \"%s\", \"what\": ", t->items[i].level);
            armci_json_str(t->items[i].msg);
            printf("}%s\n", i + 1 < t->nitems ? "," : "");
        }
        printf("  ],\n  \"hosts\": [\n");
        for (int i = 0; i < nh; i++) {
            json_host(&hosts[i]);
            printf("%s\n", i + 1 < nh ? "," : "");
        }
        printf("  ],\n  \"providers_differ\": %s,\n  \"pairs\": [\n", differ ? "true" : "false");
        for (int i = 0; i < npairs; i++) {
            const armci_pair_t *p = &pairs[i];
            printf("    {\"from\": ");
            armci_json_str(hosts[p->from].host);
            printf(", \"to\": ");
            armci_json_str(hosts[p->to].host);
            printf(", \"result\": \"%s\", \"put_get\": %s, \"fetch_add\": %s, "
                   "\"latency_us\": %.2f, \"bandwidth_gbs\": %.3f, \"error\": ",
                   pair_result(p), p->put_get ? "true" : "false", p->fetch_add ? "true" : "false",
                   p->latency_us, p->bandwidth_gbs);
            armci_json_str(p->error);
            printf("}%s\n", i + 1 < npairs ? "," : "");
        }
        printf("  ],\n  \"pairs_not_tested\": ");
        armci_json_str(no_pairs ? no_pairs : "");
        printf(",\n  \"failed_checks\": %d,\n  \"failed_pairs\": %d,\n  \"untested_pairs\": "
               "%d,\n  \"ok\": %s\n}\n",
               fails + differ, bad_pairs, untested,
               fails + differ + bad_pairs + untested ? "false" : "true");
        return fails + differ + bad_pairs + untested ? 1 : 0;
    }
    printf("\n  %-20s %5s %-16s %-8s %-10s %-14s %s\n", "host", "procs", "provider", "result",
           "memlock", "/dev/shm", "libfabric");
    for (int i = 0; i < nh; i++) {
        const host_t *h = &hosts[i];
        printf("  %-20.20s %5d %-16.16s %-8s %-10s %-14s %s\n", h->host, h->procs, h->provider,
               h->fails   ? "FAIL"
               : h->warns ? "warn"
                          : "ok",
               h->memlock, h->shm, h->libfabric);
    }
    if (differ)
        printf("  FAIL  the hosts would not all choose the same provider and libfabric: "
               "ARMCI_Init would end the job; set FI_PROVIDER alike everywhere\n");
    if (npairs) {
        printf("\n  between hosts (a put read back, two fetch-and-adds, an 8 B get's latency, "
               "a 1 MiB get's bandwidth):\n  %-20s %-20s %-6s %10s %10s\n",
               "from", "to", "result", "latency", "bandwidth");
        for (int i = 0; i < npairs; i++) {
            const armci_pair_t *p = &pairs[i];
            if (pair_ok(p))
                printf("  %-20.20s %-20.20s %-6s %7.1f us %5.2f GB/s\n", hosts[p->from].host,
                       hosts[p->to].host, "ok", p->latency_us, p->bandwidth_gbs);
            else
                printf("  %-20.20s %-20.20s %-6s %s\n", hosts[p->from].host, hosts[p->to].host,
                       p->untested ? "-" : "FAIL", p->error[0] ? p->error : "a check failed");
        }
    } else if (no_pairs) {
        printf("  between hosts: not tested (%s)\n", no_pairs);
    }
    printf("%d host(s), %d failed check(s)%s", nh, fails + differ,
           differ ? ", providers differ" : "");
    if (npairs)
        printf(", %d pair(s) of hosts tested, %d failed", npairs - untested, bad_pairs);
    if (untested)
        printf(", %d not tested", untested);
    printf("\n");
    return fails + differ + bad_pairs + untested ? 1 : 0;
}

int armci_check_run(const armcii_env_t *env, int json)
{
    tally_t t;
    memset(&t, 0, sizeof t);
    t.quiet = json;
    host_t me;
    memset(&me, 0, sizeof me);
    if (!launched()) {
        if (!json)
            printf("armci-info --check: this node (a launcher, mpirun -np N armci-info --check, "
                   "checks every host of the launch)\n");
        check_node(&t, &me, env);
        me.procs = 1;
        if (json)
            return report_launch(&t, &me, 1, NULL, 0, "one process: no launcher", 1);
        printf("%d failed, %d warnings\n", t.fails, t.warns);
        return t.fails ? 1 : 0;
    }
    MPI_Init(NULL, NULL);
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    int node_rank, node_size;
    MPI_Comm_rank(node, &node_rank);
    MPI_Comm_size(node, &node_size);
    MPI_Comm_free(&node);
    /* the first process prints its host's lines; every host's first process reports */
    t.quiet |= rank != 0;
    if (rank == 0 && !json)
        printf("armci-info --check: %d processes; this host first, then one line per host\n", n);
    check_node(&t, &me, env);
    me.procs = node_size;
    me.rank = rank;
    if (node_rank != 0)
        me.host[0] = '\0'; /* one report per host */
    host_t *all = malloc((size_t)n * sizeof *all);
    MPI_Allgather(&me, (int)sizeof me, MPI_BYTE, all, (int)sizeof me, MPI_BYTE, MPI_COMM_WORLD);
    /* the hosts in rank order of their first processes, and this process's host */
    int nh = 0, me_host = -1;
    int *leaders = malloc((size_t)n * sizeof *leaders);
    for (int r = 0; r < n; r++)
        if (all[r].host[0]) {
            all[nh] = all[r];
            leaders[nh++] = r;
        }
    char my_host[64];
    gethostname(my_host, sizeof my_host);
    my_host[sizeof my_host - 1] = '\0';
    for (int i = 0; i < nh; i++)
        if (strncmp(all[i].host, my_host, sizeof all[i].host) == 0)
            me_host = i;
    /* data between every pair of hosts, where a provider would be chosen alike on all */
    const char *no_pairs = NULL;
    for (int i = 0; i < nh && !no_pairs; i++)
        if (strcmp(all[i].provider, "none") == 0)
            no_pairs = "a host has no usable provider";
        else if (strcmp(all[i].provider, all[0].provider) != 0)
            no_pairs = "the hosts would choose different providers";
    if (nh < 2 && !no_pairs)
        no_pairs = "one host";
    int npairs = no_pairs ? 0 : nh * (nh - 1), stuck = 0;
    armci_pair_t *mine = calloc((size_t)(nh > 1 ? nh - 1 : 1), sizeof *mine);
    armci_pair_t *pairs =
        rank == 0 ? calloc((size_t)n * (size_t)(nh > 1 ? nh - 1 : 1), sizeof *pairs) : NULL;
    if (npairs) {
        /* no heartbeats: a host cut off would end every process before the report; and
         * the runtime's own waits no longer than the check's (unless the job says) */
        setenv("ARMCI_LIVENESS_MS", "0", 0);
        setenv("ARMCI_TIMEOUT", "10", 0);
        for (int i = 0; i < nh - 1; i++)
            mine[i].from = -1;
        stuck = armci_check_pairs(nh, leaders, me_host, 10.0, mine);
        MPI_Gather(mine, (int)((size_t)(nh - 1) * sizeof *mine), MPI_BYTE, pairs,
                   (int)((size_t)(nh - 1) * sizeof *mine), MPI_BYTE, 0, MPI_COMM_WORLD);
        /* the leaders' results, in host order */
        int k = 0;
        for (int r = 0; rank == 0 && r < n * (nh - 1); r++)
            if (pairs[r].from >= 0)
                pairs[k++] = pairs[r];
    }
    int status = 0;
    if (rank == 0)
        status = report_launch(&t, all, nh, pairs, npairs, no_pairs, json);
    fflush(stdout);
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(all);
    free(leaders);
    free(mine);
    free(pairs);
    if (stuck) /* a request to a host cut off is still open: ARMCI cannot finalise */
        _exit(1);
    MPI_Finalize();
    return status;
}
