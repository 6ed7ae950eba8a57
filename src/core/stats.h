/*
 * Per-process statistics (ARMCI_STATS=1): counted where operations are issued, reported
 * at ARMCI_Finalize as one table over all processes (min / median / max), and written as
 * JSON to ARMCI_STATS_FILE when that is set.
 */
#ifndef ARMCII_STATS_H
#define ARMCII_STATS_H

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
    long eagain_retries;          /* provider queue full, retried */
    long idle_yields;             /* ARMCIX_Progress calls that found nothing and yielded */
    long acks_sent;               /* acknowledgement messages of their own (not riding on others) */
    long acks_wanted;             /* deferred acknowledgements asked for (src/transport/am.c) */
    long warm_passes;             /* keep-warm passes of the progress thread (src/core/warm.c) */
    long warm_lines;              /* ... and the cache lines they read */
    double warm_seconds;          /* ... and the time they took */
    double wait_seconds;          /* time spent waiting for completions */
} armcii_stats_t;

extern armcii_stats_t armcii_stats;

static inline void armcii_stat_op(armcii_op_t kind, int path, long bytes)
{
    armcii_stats.ops[kind][path]++;
    armcii_stats.bytes[kind] += bytes;
}

/** Collective (in ARMCI_Finalize): print and write the statistics when asked for. */
void armcii_stats_report(void);

#endif
