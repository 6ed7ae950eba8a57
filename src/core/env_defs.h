/*
 * Every environment variable of armci-ofi, declared once: name (without the ARMCI_
 * prefix), type, default, one-line help. The same table parses, validates and
 * prints the settings; nothing else in the library calls getenv.
 *
 * ARMCII_ENV(field, type, default, help)
 *   type: BOOL (0/1/yes/no/on/off/true/false), AUTO (BOOL or "auto", stored as -1),
 *         INT, SIZE (bytes, with optional K/M/G suffix), STR (text)
 */
ARMCII_ENV(VERBOSE, BOOL, "0", "print the settings, the libfabric provider and the node layout at init (rank 0)")
ARMCII_ENV(SHM, BOOL, "1", "reach same-node peers through the node's shared memory; 0 sends every peer through libfabric")
ARMCII_ENV(NODE_SIZE, INT, "0", "treat each run of this many processes of a node as a node of its own (node memory shared within it, libfabric between them), to exercise the multi-node paths on one machine; 0: real nodes")
ARMCII_ENV(DOMAIN_NODE, BOOL, "1", "report nodes as ARMCI domains (so Global Arrays accesses same-node memory directly); 0: one domain per process")
ARMCII_ENV(SHM_HEAP_SIZE, SIZE, "64G", "virtual address space reserved per process for ARMCI_Malloc (backed only when allocated)")
ARMCII_ENV(SHM_RELEASE_MIN, SIZE, "64M", "freed blocks at least this large return their pages to the system; smaller ones stay backed for reuse")
ARMCII_ENV(PROGRESS_THREAD, AUTO, "auto", "run a progress thread; auto = when the provider needs manual data progress")
ARMCII_ENV(PROGRESS_INTERVAL_US, INT, "200", "sleep of the idle progress thread between polls, in microseconds")
ARMCII_ENV(MAX_REQUESTS, INT, "4096", "request pool size; when it is full the oldest request is completed")
ARMCII_ENV(BOUNCE_SIZE, SIZE, "64K", "size of one registered bounce buffer (buffered protocol, software accumulate)")
ARMCII_ENV(BOUNCE_COUNT, INT, "64", "number of registered bounce buffers per process")
ARMCII_ENV(BUFFERED_MAX, SIZE, "0", "puts and gets up to this size go through bounce buffers (0: only when the provider needs it)")
ARMCII_ENV(INJECT_MAX, SIZE, "-1", "largest put sent with inject (-1: the provider's inject_size, 0: never)")
ARMCII_ENV(AGG_MAX, INT, "4096", "an aggregate handle sends what it collected once it holds this many operations")
ARMCII_ENV(NC_DIRECT_MIN, SIZE, "16K", "blocks of strided/vector transfers at least this long move by zero-copy RMA; shorter ones are packed into messages")
ARMCII_ENV(ACC_NATIVE, AUTO, "auto", "use libfabric atomics for accumulate; auto = when no peer uses shared memory and the provider does not emulate atomics in software")
ARMCII_ENV(COLL_ALG, STR, "morton", "ARMCIX_Alltoall/Allgather within a node: morton (copies shared along the Z curve), naive (each process its own row) or mpi")
ARMCII_ENV(COLL_NODES, STR, "auto", "ARMCIX_Alltoall/Allgather of all processes over several nodes: hier (copies within each node plus one exchange between node leaders), mpi (MPI's collective) or auto (hier for blocks up to 16 KiB when nodes hold several processes and every process has a hardware thread)")
ARMCII_ENV(STATS, BOOL, "0", "at ARMCI_Finalize, print operation counts by kind and path, bytes, flushes and waiting time over all processes (rank 0)")
ARMCII_ENV(STATS_FILE, STR, "", "with ARMCI_STATS=1, also write the statistics of every process to this file as JSON")
ARMCII_ENV(TIMEOUT, INT, "60", "seconds an operation may wait for a full provider queue or a missing completion before it is an error")
ARMCII_ENV(LIVENESS_MS, INT, "250", "while waiting, check every this many milliseconds that the processes of this node are alive; a dead one ends the job naming its rank (0: never)")
ARMCII_ENV(WATCHDOG, INT, "0", "warn (once per wait) when a wait has lasted this many seconds: which call, which target (0: off)")
ARMCII_ENV(MR_MAX, INT, "0", "most memory registrations a process holds with libfabric (0: the provider's mr_cnt); past it ARMCI_Malloc fails with a clear error")
ARMCII_ENV(CACHE, STR, "off", "get cache mode of every allocation unless ARMCIX_Cache_set_mode says otherwise: off, transparent (dropped at each synchronisation point), always (read-only data) or user (dropped by ARMCIX_Cache_invalidate)")
ARMCII_ENV(CACHE_ENTRIES, INT, "1024", "initial slots of the get cache's index (rounded up to a power of two)")
ARMCII_ENV(CACHE_BYTES, SIZE, "1M", "initial size of the get cache's storage buffer")
ARMCII_ENV(CACHE_MAX_BYTES, SIZE, "64M", "the adaptive scheme grows the storage buffer up to this size")
ARMCII_ENV(CACHE_ADAPTIVE, BOOL, "1", "resize the cache's index and buffer from its conflict and capacity evictions")
ARMCII_ENV(CACHE_STATS, BOOL, "0", "at ARMCI_Finalize, print the get cache's hits, misses, evictions and resizes summed over all processes (rank 0)")
