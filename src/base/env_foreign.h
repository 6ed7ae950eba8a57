/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Settings that users of the other ARMCIs have in their job scripts: ARMCI-MPI's
 * (src/init_finalize.c of pmodels/armci-mpi), GA's own ARMCI and ComEx's (GA 5.8.2:
 * armci/src/memory/shmem.c, comex/src-mpi-pr/comex.c, comex/src-ofi/comex.c) and GA's and
 * NWChem's build variables. ARMCI_Init says once what each one set in the job means here
 * (rank 0), and armci-info --migration prints the table for docs/cluster.md.
 *
 * ARMCII_ENV_FOREIGN(name, origin, alias, note)
 *   alias: our variable that takes this one's value when ours is not set ("" for none);
 *   note: what to do here instead, one line.
 * A name ending in '*' stands for every name it begins.
 */
/* One row per line, as a reader of the table expects: */
/* clang-format off */
ARMCII_ENV_FOREIGN("ARMCI_PROGRESS_USLEEP", "ARMCI-MPI", "ARMCI_PROGRESS_INTERVAL_US", "the idle progress thread's sleep between polls, in microseconds, as there")
ARMCII_ENV_FOREIGN("ARMCI_USE_WIN_ALLOCATE", "ARMCI-MPI", "", "no MPI windows here: ARMCI_Malloc places memory in the node's shared heap, sized by ARMCI_SHM_HEAP_SIZE")
ARMCII_ENV_FOREIGN("ARMCI_USE_ALLOC_SHM", "ARMCI-MPI", "", "no MPI windows here: same-node memory is always shared (ARMCI_SHM=0 sends every peer through libfabric)")
ARMCII_ENV_FOREIGN("ARMCI_SHM_LIMIT", "ARMCI-MPI", "", "ARMCI_SHM_HEAP_SIZE bounds what one process may ARMCI_Malloc (bytes, with K/M/G)")
ARMCII_ENV_FOREIGN("ARMCI_SHR_BUF_METHOD", "ARMCI-MPI", "", "a local buffer inside ARMCI memory needs no copy or lock here")
ARMCII_ENV_FOREIGN("ARMCI_STRIDED_METHOD", "ARMCI-MPI", "", "strided transfers are planned per request: ARMCI_NC_DIRECT_MIN, ARMCI_NC_SPAN_RATIO")
ARMCII_ENV_FOREIGN("ARMCI_IOV_METHOD", "ARMCI-MPI", "", "vector transfers are planned per request: ARMCI_NC_DIRECT_MIN, ARMCI_NC_SPAN_RATIO")
ARMCII_ENV_FOREIGN("ARMCI_IOV_BATCHED_LIMIT", "ARMCI-MPI", "", "vector transfers are planned per request: ARMCI_NC_DIRECT_MIN, ARMCI_NC_SPAN_RATIO")
ARMCII_ENV_FOREIGN("ARMCI_IOV_DTYPE_CHUNK", "ARMCI-MPI", "", "vector transfers are planned per request: ARMCI_NC_DIRECT_MIN, ARMCI_NC_SPAN_RATIO")
ARMCII_ENV_FOREIGN("ARMCI_IOV_CHECKS", "ARMCI-MPI", "", "every vector is checked against the allocations here, always")
ARMCII_ENV_FOREIGN("ARMCI_DEBUG_ALLOC", "ARMCI-MPI", "", "argument checks are always on; configure --enable-debug adds the runtime's internal checks")
ARMCII_ENV_FOREIGN("ARMCI_NONCOLLECTIVE_GROUPS", "ARMCI-MPI", "", "groups are made collectively over their parent group; there is no non-collective mode")
ARMCII_ENV_FOREIGN("ARMCI_CACHE_RANK_TRANSLATION", "ARMCI-MPI", "", "group ranks are always translated through a table kept with the group")
ARMCII_ENV_FOREIGN("ARMCI_FLUSH_BARRIERS", "ARMCI-MPI", "", "ARMCI_Barrier always completes every operation first (ARMCI_AllFence, then a barrier)")
ARMCII_ENV_FOREIGN("ARMCI_MSG_BARRIER_SYNCS", "ARMCI-MPI", "", "armci_msg_barrier is a barrier of processes; ARMCI_Barrier also completes every operation")
ARMCII_ENV_FOREIGN("ARMCI_EXPLICIT_NB_PROGRESS", "ARMCI-MPI", "", "progress is made in every call and by the progress thread: ARMCI_PROGRESS_THREAD")
ARMCII_ENV_FOREIGN("ARMCI_DISABLE_SHM_ACC", "ARMCI-MPI", "", "same-node accumulates are atomic per element in node memory; ARMCI_ACC_NATIVE=1 sends them through the NIC")
ARMCII_ENV_FOREIGN("ARMCI_RMA_*", "ARMCI-MPI", "", "MPI one-sided tuning: no MPI windows here")
ARMCII_ENV_FOREIGN("ARMCI_NO_FLUSH_LOCAL", "ARMCI-MPI", "", "MPI one-sided tuning: no MPI windows here")
ARMCII_ENV_FOREIGN("ARMCI_NO_MPI_BOTTOM", "ARMCI-MPI", "", "MPI one-sided tuning: no MPI windows here")
ARMCII_ENV_FOREIGN("ARMCI_USE_RMA_REQUESTS", "ARMCI-MPI", "", "MPI one-sided tuning: no MPI windows here")
ARMCII_ENV_FOREIGN("ARMCI_USE_REQUEST_ATOMICS", "ARMCI-MPI", "", "MPI one-sided tuning: no MPI windows here")
ARMCII_ENV_FOREIGN("ARMCI_FLUSH_REQUEST_ATOMICS", "ARMCI-MPI", "", "MPI one-sided tuning: no MPI windows here")
ARMCII_ENV_FOREIGN("ARMCI_USE_SAME_OP", "ARMCI-MPI", "", "MPI one-sided tuning: no MPI windows here")
ARMCII_ENV_FOREIGN("ARMCI_ACCUMULATE_GRANULARITY", "ARMCI-MPI", "", "MPI one-sided tuning: no MPI windows here")
ARMCII_ENV_FOREIGN("ARMCI_MEMKIND_POOL_PATH", "ARMCI-MPI", "", "memory comes from the node's shared heap (/dev/shm)")
ARMCII_ENV_FOREIGN("ARMCI_DEFAULT_SHMMAX", "GA's ARMCI", "", "nothing to raise: node memory is reserved as address space and backed as allocated; ARMCI_SHM_HEAP_SIZE bounds each process (bytes, with K/M/G; the default fits the address-space limit)")
ARMCII_ENV_FOREIGN("ARMCI_NETWORK", "GA's and NWChem's build", "", "a build setting of GA and NWChem, not read at run time; GA built with --with-armci on this library uses libfabric")
ARMCII_ENV_FOREIGN("ARMCI_OPENIB_*", "GA's ARMCI", "", "the NIC is libfabric's: FI_PROVIDER and ARMCI_NIC (armci-info --check names them)")
ARMCII_ENV_FOREIGN("ARMCI_HOSTNAME*", "GA's ARMCI", "", "nodes are found by MPI and hwloc, not by host name")
ARMCII_ENV_FOREIGN("ARMCI_NSERV_EQ_NPROC", "GA's ARMCI", "", "no server processes or threads: each process serves its own memory (progress thread, doorbell)")
ARMCII_ENV_FOREIGN("ARMCI_MAX_THREADS", "GA's ARMCI", "", "threads may call ARMCI when MPI gives MPI_THREAD_MULTIPLE; no count to set")
ARMCII_ENV_FOREIGN("COMEX_MAX_NB_OUTSTANDING", "GA's ComEx", "", "ARMCI_MAX_REQUESTS bounds the requests in flight; when it is full the oldest completes")
ARMCII_ENV_FOREIGN("COMEX_STATIC_BUFFER_SIZE", "GA's ComEx", "", "ARMCI_BOUNCE_SIZE and ARMCI_BOUNCE_COUNT size the registered buffers")
ARMCII_ENV_FOREIGN("COMEX_EAGER_THRESHOLD", "GA's ComEx", "", "ARMCI_PUT_MESSAGE_MAX and ARMCI_BUFFERED_MAX choose messages over RMA")
ARMCII_ENV_FOREIGN("COMEX_MAX_MESSAGE_SIZE", "GA's ComEx", "", "ARMCI_MSG_MAX splits long transfers (default: the provider's limit)")
ARMCII_ENV_FOREIGN("COMEX_OFI_PROVIDER", "GA's ComEx", "", "FI_PROVIDER picks the provider (armci-info --check shows the one chosen)")
ARMCII_ENV_FOREIGN("COMEX_OFI_LIBRARY", "GA's ComEx", "ARMCI_FABRIC_LIB", "the libfabric to open, as there")
ARMCII_ENV_FOREIGN("COMEX_*", "GA's ComEx", "", "a ComEx setting with no counterpart: the runtime picks per request")
ARMCII_ENV_FOREIGN("GA_NUM_PROGRESS_RANKS_PER_NODE", "GA's ComEx MPI-PR", "", "no progress rank: every process computes and serves its own memory (progress thread, doorbell: ARMCI_DOORBELL_US)")
ARMCII_ENV_FOREIGN("GA_PROGRESS_RANKS_DISTRIBUTION_*", "GA's ComEx MPI-PR", "", "no progress rank: every process computes and serves its own memory (progress thread, doorbell: ARMCI_DOORBELL_US)")
/* clang-format on */
