/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The operations and the core as the API layer (armci/) sees them: the headers of their
 * interfaces at once. Files of src/ include the headers they use, one per owner, never
 * this one (testing/layers.sh). Of the core:
 *   runtime.h   armcii_rt (runtime.c): who this process is, the settings, the provider's
 *               capabilities and protocol limits (agree.c: the settings that must match
 *               everywhere)
 *   bringup.h   bring-up and shut-down, and the layers above the core (bringup.c)
 *   topo.h      armcii_topo (topo.c): the node layout, where the progress thread runs
 *   mem.h       armcii_mem (alloc.c): allocations and the region table
 *   req.h       armcii_reqs (req.c): the table of processes, requests and handles
 *   progress.h  armcii_prog (progress.c): polling, waits, the progress thread, the lock;
 *               waits on MPI (mpiwait.c)
 *   order.h     ordering and fences (order.c)
 *   warm.h      keeping the hot structures cached (not included here: no API call uses it)
 * Each of the five owned structs starts a cache line; what a call reads every time sits
 * together, and what both the caller and the progress thread write sits on lines of its
 * own, so that the thread's writes do not take from the caller the lines it only reads.
 * Of the operations (src/ops), above the core:
 *   exec.h      the executor: the prologue every operation passes, in one place
 *   open.h      the open messages blocking puts and accumulates share
 *   rma.h, nc.h, amo.h, span.h
 *               contiguous, noncontiguous and read-modify-write operations, and the reads
 *               of a get's short blocks' range
 *   local.h     every copy, accumulate and read-modify-write done at node memory
 *   mcs.h       ARMCI's mutexes as MCS queue locks (mcs.c)
 * Below the core: src/base, the transport (transport.h), the get cache (getcache.h) and
 * the job's health (health.h); docs/layers.md has the rules.
 */
#ifndef ARMCII_H
#define ARMCII_H

#include "../core/bringup.h"
#include "../core/mem.h"
#include "../core/order.h"
#include "../core/progress.h"
#include "../core/req.h"
#include "../core/runtime.h"
#include "../core/topo.h"
#include "amo.h"
#include "exec.h"
#include "local.h"
#include "mcs.h"
#include "nc.h"
#include "open.h"
#include "rma.h"

#endif
