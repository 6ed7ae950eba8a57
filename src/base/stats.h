/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-process statistics (ARMCI_STATS=1): counted where operations are issued, reported
 * at ARMCI_Finalize as one table over all processes (min / median / max), and written as
 * JSON to ARMCI_STATS_FILE when that is set.
 */
#ifndef ARMCII_STATS_H
#define ARMCII_STATS_H

#include <stddef.h>

#include "op.h"

/* The paths operations (armcii_op_t) took. */
enum {
    ARMCII_ST_LOCAL,    /* self or same node: load/store */
    ARMCII_ST_DIRECT,   /* zero-copy RMA */
    ARMCII_ST_INJECT,   /* inject put */
    ARMCII_ST_BUFFERED, /* through bounce buffers */
    ARMCII_ST_MESSAGE,  /* applied or answered by the target (active messages) */
    ARMCII_ST_ATOMIC,   /* libfabric atomics */
    ARMCII_ST_NPATH
};

/* How ARMCIX_Alltoall/Allgather calls ran (src/coll), and reductions and barriers of all
 * processes that took point-to-point messages (the node's shared memory counts as pull). */
enum {
    ARMCII_ST_COLL_PULL,   /* one meeting, send data staged */
    ARMCII_ST_COLL_MORTON, /* shared along the Z curve */
    ARMCII_ST_COLL_NAIVE,  /* each process its own row */
    ARMCII_ST_COLL_HIER,   /* over several nodes: node copies plus an exchange of leaders */
    ARMCII_ST_COLL_MPI,    /* MPI's collective */
    ARMCII_ST_COLL_P2P,    /* reduction, broadcast or barrier by MPI point-to-point messages */
    ARMCII_ST_NCOLL
};

typedef struct {
    long ops[ARMCII_OP_NKIND][ARMCII_ST_NPATH];
    long coll[ARMCII_ST_NCOLL];
    long coll_cma_blocks; /* blocks read from another process's private memory */
    long bytes[ARMCII_OP_NKIND];
    long agg_ops, agg_flushes;
    long progress_wakeups;        /* progress-thread polls that found work */
    long progress_woken;          /* naps cut short by a large nonblocking transfer (atomic) */
    long progress_wake_preempted; /* ... whose thread took the caller's processor (atomic) */
    long bells_rung;              /* doorbells rung to a peer's progress thread (atomic) */
    long bell_wakes;              /* naps a peer's doorbell cut short (atomic) */
    long served_signal;           /* datagram requests served in the signal handler */
    long served_poll;             /* ... served at a poll (the lock was held) */
    long served_again;            /* ... asked again and answered again (not applied) */
    long serve_sent;              /* datagram requests sent to a serving socket */
    long serve_resent;            /* ... sent again, unanswered */
    long eagain_retries;          /* provider queue full, retried */
    long eagain_yields;           /* ... and the processor let go meanwhile */
    long idle_yields;             /* ARMCIX_Progress calls that found nothing and yielded */
    long acks_sent;               /* acknowledgement messages of their own (not riding on others) */
    long acks_wanted;             /* deferred acknowledgements asked for (src/transport/am.c) */
    long warm_passes;             /* keep-warm passes of the progress thread (src/core/warm.c) */
    long warm_lines;              /* ... and the cache lines they read */
    double warm_seconds;          /* ... and the time they took */
    double progress_cpu_seconds;  /* processor time the progress thread took, all told */
    double wait_seconds;          /* time spent waiting for completions */
} armcii_stats_t;

extern armcii_stats_t armcii_stats;

/* What was counted, one function an event: stats.c owns armcii_stats, and every other
 * file counts through these. They are inline because most are counted on the hot path,
 * where a call would cost more than the count. */

/** An operation of @p kind took @p path (ARMCII_ST_LOCAL...) and moved @p bytes. */
static inline void armcii_stat_op(armcii_op_t kind, int path, long bytes)
{
    armcii_stats.ops[kind][path]++;
    armcii_stats.bytes[kind] += bytes;
}

/** The operations counted so far, of every kind and path. */
static inline long armcii_stat_ops_total(void)
{
    long n = 0;
    for (int k = 0; k < ARMCII_OP_NKIND; k++)
        for (int p = 0; p < ARMCII_ST_NPATH; p++)
            n += armcii_stats.ops[k][p];
    return n;
}

/** A collective ran as @p alg (ARMCII_ST_COLL_PULL...). */
static inline void armcii_stat_coll(int alg)
{
    armcii_stats.coll[alg]++;
}

/** A collective read a block from another process's private memory. */
static inline void armcii_stat_coll_cma_block(void)
{
    armcii_stats.coll_cma_blocks++;
}

/** An operation went into an aggregate handle. */
static inline void armcii_stat_agg_op(void)
{
    armcii_stats.agg_ops++;
}

/** An aggregate handle was flushed. */
static inline void armcii_stat_agg_flush(void)
{
    armcii_stats.agg_flushes++;
}

/** A poll of the progress thread, which found @p found operations or messages. */
static inline void armcii_stat_progress_poll(int found)
{
    armcii_stats.progress_wakeups += found > 0;
}

/** The progress thread's nap was cut short. Another application thread may count at once:
 *  atomic. */
static inline void armcii_stat_progress_woken(void)
{
    __atomic_add_fetch(&armcii_stats.progress_woken, 1, __ATOMIC_RELAXED);
}

/** ... and the woken thread took the caller's processor (atomic, as above). */
static inline void armcii_stat_progress_wake_preempted(void)
{
    __atomic_add_fetch(&armcii_stats.progress_wake_preempted, 1, __ATOMIC_RELAXED);
}

/** A wait rang a peer's doorbell (src/transport/bell.c); atomic, as above. */
static inline void armcii_stat_bell_rung(void)
{
    __atomic_add_fetch(&armcii_stats.bells_rung, 1, __ATOMIC_RELAXED);
}

/** A read-modify-write or get served by this process's serving socket (serve.c), in its
 *  signal handler or at a poll; under the runtime lock, as the ones below. */
static inline void armcii_stat_served(int in_handler)
{
    if (in_handler)
        armcii_stats.served_signal++;
    else
        armcii_stats.served_poll++;
}
static inline void armcii_stat_served_again(void)
{
    armcii_stats.served_again++;
}
static inline void armcii_stat_serve_sent(void)
{
    armcii_stats.serve_sent++;
}
static inline void armcii_stat_serve_resent(void)
{
    armcii_stats.serve_resent++;
}

/** A peer's doorbell cut the progress thread's nap short (outside the lock: atomic). */
static inline void armcii_stat_bell_wake(void)
{
    __atomic_add_fetch(&armcii_stats.bell_wakes, 1, __ATOMIC_RELAXED);
}

/** The progress thread, as it ends: the processor time it took (read after its join). */
static inline void armcii_stat_progress_cpu(double seconds)
{
    armcii_stats.progress_cpu_seconds = seconds;
}

/** The provider's queue was full and an operation is retried. */
static inline void armcii_stat_eagain(void)
{
    armcii_stats.eagain_retries++;
}

/** A retry found nothing to complete and yielded the processor. */
static inline void armcii_stat_eagain_yield(void)
{
    armcii_stats.eagain_yields++;
}

/** ARMCIX_Progress found nothing and yielded the processor. */
static inline void armcii_stat_idle_yield(void)
{
    armcii_stats.idle_yields++;
}

/** An acknowledgement went out as a message of its own. */
static inline void armcii_stat_ack_sent(void)
{
    armcii_stats.acks_sent++;
}

/** Deferred acknowledgements were asked for. */
static inline void armcii_stat_ack_wanted(void)
{
    armcii_stats.acks_wanted++;
}

/** A keep-warm pass read @p lines cache lines in @p seconds. */
static inline void armcii_stat_warm_pass(size_t lines, double seconds)
{
    armcii_stats.warm_passes++;
    armcii_stats.warm_lines += (long)lines;
    armcii_stats.warm_seconds += seconds;
}

/** A wait for completions took @p seconds. */
static inline void armcii_stat_wait(double seconds)
{
    armcii_stats.wait_seconds += seconds;
}

/** Collective (in ARMCI_Finalize): print and write the statistics when asked for. */
void armcii_stats_report(void);

#endif
