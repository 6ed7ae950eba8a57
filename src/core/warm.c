/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The keep-warm pass (warm.h). What an 8-byte operation reads before its data, measured
 * with testing/perf/cold_bench after the application has walked 64 MiB: the runtime's
 * state and counters, the target's entry in the region table, the request pool's next
 * free slot and the per-target counters of requests in flight, the node's control blocks.
 * The pass reads those lines and the code of those operations (the section ARMCII_HOT
 * gathers, the heads of the C library functions they call and the library's relocated
 * pointers through which those calls go), and asks the modules
 * beside the core (the get cache's index, the aggregate handles) to read theirs. It runs in the
 * progress thread, under the runtime lock, at most every ARMCI_WARM_INTERVAL_US.
 */
#define _GNU_SOURCE /* dl_iterate_phdr */
#include <link.h>
#include <pthread.h>
#include <string.h>

#include "warm.h"
#include "mem.h"
#include "progress.h"
#include "req.h"
#include "runtime.h"
#include "topo.h"
#include "../base/acc.h"
#include "../base/common.h"
#include "../base/hot.h"
#include "../base/pool.h"
#include "../base/region.h"
#include "../base/stats.h"
#include "../transport/transport.h"

#define MAX_HOOKS       8
#define REGION_BUDGET   1024 /* lines of region table per pass: 64 KiB */
#define POOL_FREE_AHEAD 4    /* free slots read beyond the next one */

/* Bounds of the section, set by the linker (weak: an empty section has none). */
extern const char __start_armcii_hot_text[] __attribute__((weak, visibility("hidden")));
extern const char __stop_armcii_hot_text[] __attribute__((weak, visibility("hidden")));
/* Bytes read from the start of the C library functions the operations call. The runtime
 * lock's are read further: pthread_mutex_lock's path runs past its first lines (726 bytes
 * in Debian 12's C library). The accumulate lock is the runtime's own (nodelock.h): its
 * word is in the node control blocks read below. */
#define LIBC_HEAD      256
#define LIBC_LOCK_HEAD 2048

/* The library's relocated pointers: the global offset table through which every call into
 * the C library goes (the library is built with -fno-plt), and the slots of the
 * accumulate kernels' resolved clones just after it. Found once, in armcii_warm_init. */
static const char *got_lo;
static size_t got_len;

/* Whether the progress thread runs the pass (armcii_warm_init). */
static int keep_warm;

static armcii_warm_fn hooks[MAX_HOOKS];
static int nhooks;
static double last_pass;
static volatile unsigned warm_sink;

void armcii_warm_register(armcii_warm_fn fn)
{
    for (int i = 0; i < nhooks; i++)
        if (hooks[i] == fn)
            return;
    if (nhooks < MAX_HOOKS)
        hooks[nhooks++] = fn;
}

static size_t lines_of(size_t bytes)
{
    return (bytes + ARMCII_LINE - 1) / ARMCII_LINE;
}

static size_t touch_counted(const void *p, size_t len, unsigned *sum)
{
    *sum += armcii_touch(p, len);
    return p ? lines_of(len) : 0;
}

/* The relocated pointers lie among the library's globals, whose padding AddressSanitizer
 * poisons: those lines are read without its checks (the bytes themselves are mapped). */
#ifdef __SANITIZE_ADDRESS__
#define NO_ASAN __attribute__((no_sanitize_address))
#else
#define NO_ASAN
#endif
ARMCII_TOUCH_ATTR NO_ASAN static size_t touch_got(unsigned *sum)
{
    const volatile char *c = (const volatile char *)got_lo;
    unsigned s = 0;
    for (size_t i = 0; i < got_len; i += ARMCII_LINE)
        s += (unsigned char)c[i];
    *sum += s;
    return lines_of(got_len);
}

static size_t touch_pool(const armcii_pool_t *pool, unsigned *sum)
{
    size_t lines = 0;
    int i = pool->free_head;
    for (int k = 0; k <= POOL_FREE_AHEAD && i >= 0 && i < pool->nslots; k++) {
        lines += touch_counted(&pool->slots[i], sizeof(armcii_req_t), sum);
        i = pool->slots[i].next_free;
    }
    if (pool->newest)
        lines += touch_counted(pool->newest, sizeof(armcii_req_t), sum);
    if (pool->oldest)
        lines += touch_counted(pool->oldest, sizeof(armcii_req_t), sum);
    return lines;
}

size_t armcii_warm_pass(void)
{
    unsigned s = 0;
    size_t lines = 0;
    lines += touch_counted(&armcii_rt, sizeof(armcii_rt), &s);
    lines += touch_counted(&armcii_topo, sizeof(armcii_topo), &s);
    lines += touch_counted(&armcii_prog, sizeof(armcii_prog), &s);
    lines += touch_counted(&armcii_mem, sizeof(armcii_mem), &s);
    lines += touch_counted(&armcii_reqs, sizeof(armcii_reqs), &s);
    lines += touch_counted(&armcii_stats, sizeof(armcii_stats), &s);
    if (armcii_reqs.peers)
        lines +=
            touch_counted(armcii_reqs.peers, (size_t)armcii_rt.nproc * sizeof(armcii_peer_t), &s);
    if (armcii_node.slots)
        lines += touch_counted(armcii_node.slots,
                               (size_t)armcii_topo.node_size * sizeof(armcii_node_slot_t), &s);
    lines += touch_pool(&armcii_reqs.pool, &s);
    lines += armcii_region_touch(&armcii_mem.regions, REGION_BUDGET, &s);
    if (__start_armcii_hot_text && __stop_armcii_hot_text)
        lines += touch_counted(__start_armcii_hot_text,
                               (size_t)(__stop_armcii_hot_text - __start_armcii_hot_text), &s);
    lines += touch_counted((const void *)(uintptr_t)&memcpy, LIBC_HEAD, &s);
    lines += touch_counted((const void *)(uintptr_t)&memmove, LIBC_HEAD, &s);
    lines += touch_counted((const void *)(uintptr_t)&pthread_mutex_lock, LIBC_LOCK_HEAD, &s);
    lines += touch_counted((const void *)(uintptr_t)&pthread_mutex_unlock, LIBC_LOCK_HEAD, &s);
    lines += armcii_acc_kernels_touch(&s);
    lines += touch_got(&s);
    for (int i = 0; i < nhooks; i++)
        lines += hooks[i]();
    warm_sink += s;
    return lines;
}

int armcii_warm_on(void)
{
    return keep_warm;
}

void armcii_warm_maybe(double now)
{
    if (!keep_warm)
        return;
    if (now - last_pass < 1e-6 * (double)armcii_rt.env.WARM_INTERVAL_US)
        return;
    last_pass = now;
    size_t lines = armcii_warm_pass();
    armcii_stat_warm_pass(lines, armcii_now() - now);
}

/* dl_iterate_phdr's visitor: in the object whose code holds @p arg, the span that is
 * read-only after relocation (.data.rel.ro, .dynamic, .got) and the 4 lines after it,
 * within the writable segment (.got.plt: the accumulate kernels' resolved clones). */
static int find_got(struct dl_phdr_info *info, size_t size, void *arg)
{
    uintptr_t me = (uintptr_t)arg, lo = 0, hi = 0, rw_end = 0;
    int mine = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t a = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && me >= a && me < a + ph->p_memsz)
            mine = 1;
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W))
            rw_end = a + ph->p_memsz;
        if (ph->p_type == PT_GNU_RELRO) {
            lo = a;
            hi = a + ph->p_memsz;
        }
    }
    if (!mine)
        return 0;
    if (lo && hi <= rw_end) {
        hi = hi + 4 * ARMCII_LINE < rw_end ? hi + 4 * ARMCII_LINE : rw_end;
        got_lo = (const char *)lo;
        got_len = hi - lo;
    }
    return 1;
}

/* Called as the progress thread starts. The pass pays where operations stay on the node:
 * after the application's own work, a same-node get costs about half as much above its
 * data's own misses with it. Over tcp the kernel's path and the provider's code come back
 * from memory too, and the pass changes nothing measurable (docs/performance.md, "Small
 * operations after the application has used the caches"). So by default it runs where the
 * progress thread runs anyway (the fabric needs it) and this process has peers in node
 * memory; a pass costs a few microseconds per wake-up of the thread. Where nothing else needs the
 * thread, only ARMCI_KEEP_WARM=1 starts it (armcii_progress_thread_start): its wake-ups
 * would cost the application a context switch each. */
void armcii_warm_init(void)
{
    long want = armcii_rt.env.KEEP_WARM;
    keep_warm = want == 1 || (want == -1 && armcii_rt.shm && armcii_topo.node_size > 1);
    if (keep_warm && !got_lo)
        dl_iterate_phdr(find_got, (void *)(uintptr_t)&armcii_warm_pass);
}
