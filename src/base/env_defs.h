/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every environment variable of armci-ofi, declared once: name (without the ARMCI_
 * prefix), type, default, one-line help. The same table parses, validates and
 * prints the settings; nothing else in the library calls getenv.
 *
 * ARMCII_ENV(field, type, default, help)
 *   type: BOOL (0/1/yes/no/on/off/true/false), AUTO (BOOL or "auto", stored as -1),
 *         INT, SIZE (bytes, with optional K/M/G suffix), STR (text)
 * ARMCII_ENV_SAME(field, type, default, help): a setting that must have one value on every
 *   process of the job, because it decides what a peer expects (the node layout, message
 *   sizes, which collective or protocol runs). ARMCI_Init compares these and refuses a
 *   mismatch.
 */
/* One row per line, as docs.sh and a reader expect: */
/* clang-format off */
ARMCII_ENV(VERBOSE, BOOL, "0", "print the settings, the libfabric provider and the node layout at init (rank 0)")
ARMCII_ENV_SAME(SHM, BOOL, "1", "reach same-node peers through the node's shared memory; 0 sends every peer through libfabric")
ARMCII_ENV_SAME(NODE_SIZE, INT, "0", "treat each run of this many processes of a node as a node of its own (node memory shared within it, libfabric between them), to exercise the multi-node paths on one machine; 0: real nodes")
ARMCII_ENV_SAME(DOMAIN_NODE, BOOL, "1", "report nodes as ARMCI domains (so Global Arrays accesses same-node memory directly); 0: one domain per process")
ARMCII_ENV_SAME(SHM_HEAP_SIZE, SIZE, "64G", "virtual address space reserved per process for ARMCI_Malloc (backed only when allocated)")
ARMCII_ENV(SHM_RELEASE_MIN, SIZE, "64M", "freed blocks at least this large return their pages to the system; smaller ones stay backed for reuse")
ARMCII_ENV(PROGRESS_THREAD, AUTO, "auto", "run a progress thread; auto = when the provider needs manual data progress")
ARMCII_ENV(PROGRESS_INTERVAL_US, INT, "200", "sleep of the idle progress thread between polls, in microseconds (unset: 1000 where the thread has no CPU of its own: processes outnumber hardware threads, or every CPU has a process bound to it)")
ARMCII_ENV(PROGRESS_CPUS, STR, "auto", "CPUs the progress thread runs on, as a list (0-3,8); auto = the CPUs of this machine no process is bound to, if the launcher bound the processes and left some free, else the process's CPUs; inherit = always the process's CPUs")
ARMCII_ENV(PROGRESS_WAKE_MIN, SIZE, "64K", "a nonblocking transfer of at least this many bytes wakes the napping progress thread, so that it moves the data while the caller computes; only where the thread has a CPU no process is bound to (see ARMCI_PROGRESS_CPUS) or CPUs outnumber unbound processes; 0: never")
ARMCII_ENV(SERVE, BOOL, "1", "over a provider that needs the target's help and has a doorbell (tcp, sockets, udp), a read-modify-write (ARMCI_Rmw, fetch-and-add), a blocking get of up to 1 KiB and an accumulate of up to 512 bytes go to their holder as UDP datagrams (accumulates join the next request to that holder) that a real-time signal announces to the thread that called ARMCI_Init, whose handler serves them at once without waking a thread (where the holder was found polling inside ARMCI 4 times in a row, the next ones go through libfabric); 0: through libfabric, served at the holder's next poll")
ARMCII_ENV(SERVE_SIGNAL, INT, "0", "the real-time signal of ARMCI_SERVE; 0: SIGRTMIN+4 (the runtime refuses one that already has a handler)")
ARMCII_ENV(DOORBELL_US, INT, "200", "a wait for a fabric peer that has lasted this many microseconds rings the peer's doorbell, a UDP datagram that wakes its napping progress thread, so that a process computing serves the request at once instead of at its next poll (providers whose addresses are IP addresses: tcp, sockets, udp); unless set, multiplied by the processes per hardware thread where they outnumber the node's threads (a wait there is the crowd's doing); 0: no doorbell")
ARMCII_ENV(KEEP_WARM, AUTO, "auto", "the progress thread reads the runtime's hot structures and code (region table, request pool, counters, the code of small puts, gets and accumulates) every ARMCI_WARM_INTERVAL_US, so that a call after the application's own work finds them in cache; auto = where the progress thread runs anyway (libfabric needs it) and this process has same-node peers in shared memory; 1 also where it would run for this alone (a job of one node)")
ARMCII_ENV(WARM_INTERVAL_US, INT, "100", "least time between two keep-warm passes, in microseconds (0: a pass at every wake-up of the progress thread, which passes ride on)")
ARMCII_ENV(PLACEMENT, STR, "auto", "where copies into memory another party reads land (same-node puts and gets, copies out of bounce buffers, a target's copies of packed blocks, collectives' blocks): cache, memory (non-temporal stores, around the cache) or auto (memory from this process's share of the last-level cache up, the size hwloc reports over the processes of the machine; cache below, and for data a flag announces)")
ARMCII_ENV(YIELD_IDLE, AUTO, "auto", "a wait (and ARMCIX_Progress) that finds nothing to do yields the processor at once instead of after 128 empty polls, as does an operation retried while the provider's queue is full; auto = when the processes of this machine outnumber its hardware threads")
ARMCII_ENV(WAIT_MPI_TESTS, INT, "0", "MPI tests between two polls of libfabric while a collective or armci_msg_* call waits on MPI; 0 = as many as one poll costs tests, measured during the waits (8 where MPI goes through shared memory, 1 where it goes over TCP and a test polls its sockets)")
ARMCII_ENV(MAX_REQUESTS, INT, "4096", "request pool size; when it is full the oldest request is completed")
ARMCII_ENV_SAME(BOUNCE_SIZE, SIZE, "64K", "size of one registered bounce buffer (buffered protocol, software accumulate)")
ARMCII_ENV(BOUNCE_COUNT, INT, "64", "number of registered bounce buffers per process")
ARMCII_ENV_SAME(TCP_EAGER, AUTO, "auto", "raise tcp;ofi_rxm's eager limit (FI_OFI_RXM_EAGER_LIMIT) to ARMCI_BOUNCE_SIZE, so that a message of the runtime leaves in one send instead of in segments that need this process's later progress; auto = when FI_PROVIDER names tcp and FI_OFI_RXM_EAGER_LIMIT is not set")
ARMCII_ENV_SAME(RXM_BUFFER, SIZE, "4K", "size of tcp;ofi_rxm's own message buffers (FI_OFI_RXM_BUFFER_SIZE), set where ARMCI_RXM_RECV is: rxm keeps two pools of 1024 of them, one for receiving and one for sending, and libfabric's 16 KiB make those 34 MiB per process; our messages go out from their own buffers over tcp whatever this size (0: libfabric's default)")
ARMCII_ENV(RXM_RECV, INT, "1024", "receive buffers tcp;ofi_rxm keeps posted for incoming messages (FI_OFI_RXM_MSG_RX_SIZE), set when FI_PROVIDER names tcp, or is unset on a machine without RDMA devices, and FI_OFI_RXM_MSG_RX_SIZE is not; rxm allocates its buffers 1024 at a time, and libfabric's default of 4096 costs four times the memory (0: libfabric's default)")
ARMCII_ENV(BUFFERED_MAX, SIZE, "0", "puts and gets up to this size go through bounce buffers (0: only when the provider needs it)")
ARMCII_ENV(PUT_MESSAGE_MAX, SIZE, "-1", "contiguous puts over the fabric up to this size go as messages the target applies in the order sent, so that a blocking put returns without waiting for the put before it to land (-1: 16K where the provider does not keep writes after writes in order, as tcp;ofi_rxm, else 0: never)")
ARMCII_ENV(PUT_COMBINE, BOOL, "1", "blocking puts sent as messages (ARMCI_PUT_MESSAGE_MAX) and blocking accumulates sent as messages to one target share one message (accumulates: of one type and scale), which goes at the next other operation to that target, a fence or wait, a full message, or when the progress thread finds nothing joined it since its last pass; where progress threads run (0: each its own message)")
ARMCII_ENV(INJECT_MAX, SIZE, "-1", "largest put sent with inject (-1: the provider's inject_size, 0: never)")
ARMCII_ENV(MSG_MAX, SIZE, "0", "most bytes one libfabric read or write moves: a longer get or put goes as several (0: the provider's max_msg_size)")
ARMCII_ENV(ACK_DEFER, BOOL, "1", "the target of a flagged put, or of a blocking put sent as a message (ARMCI_PUT_MESSAGE_MAX), does not acknowledge it at once: the acknowledgement rides on the next message the target sends back, or goes when the origin waits for it (a fence, a get from that target, a wait, a full request pool); needs progress threads; 0 acknowledges every one at once")
ARMCII_ENV(AGG_MAX, INT, "4096", "an aggregate handle sends what it collected once it holds this many operations")
ARMCII_ENV(NC_DIRECT_MIN, SIZE, "16K", "blocks of strided/vector transfers at least this long move by zero-copy RMA; shorter ones are packed into messages")
ARMCII_ENV(NC_SPAN_RATIO, INT, "4", "a strided or vector get whose blocks are shorter than ARMCI_NC_DIRECT_MIN reads the whole range the blocks span in one RMA read and copies them out, instead of a message the target answers, when the range lies in one allocation, is at most 4 MiB, and is at most this many times the bytes asked for or at most ARMCI_NC_SPAN_MIN; 0: never")
ARMCII_ENV(NC_SPAN_MIN, SIZE, "16K", "a range this short is read whole (ARMCI_NC_SPAN_RATIO) however few bytes its blocks ask for: a read of it costs about what a read of one block costs")
ARMCII_ENV_SAME(ACC_NATIVE, AUTO, "auto", "use libfabric atomics for accumulate and read-modify-write, to node peers and oneself too (through the NIC), so that every atomic on a word goes one way; auto = where the provider does not emulate atomics in software")
ARMCII_ENV_SAME(COLL_ALG, STR, "auto", "ARMCIX_Alltoall/Allgather within a node: morton (copies shared along the Z curve), naive (each process copies its own row), pull (each process copies its own row from the others' staged send data, one synchronisation instead of two), mpi (MPI's collectives, also for the reductions, broadcasts and barriers that otherwise take the node's shared memory or point-to-point messages), or auto (pull up to ARMCI_COLL_SMALL bytes of send data per process, morton above)")
ARMCII_ENV_SAME(COLL_SMALL, SIZE, "4K", "largest send data per process (bytes) that ARMCI_COLL_ALG=auto or pull moves with one synchronisation; each process keeps twice this in the node heap once it has used it")
ARMCII_ENV_SAME(COLL_CMA, SIZE, "32K", "ARMCIX_Alltoall/Allgather of the whole node with blocks at least this large read a send buffer outside the node heap straight from its process (process_vm_readv, one copy) instead of staging it in the heap (0: always stage); where the processes may not read each other, they stage")
ARMCII_ENV_SAME(COLL_NODES, STR, "auto", "ARMCIX_Alltoall/Allgather of all processes over several nodes: hier (copies within each node plus one exchange between node leaders), mpi (MPI's collective) or auto (hier for blocks up to 16 KiB when nodes hold several processes and every process has a hardware thread)")
ARMCII_ENV_SAME(STATS, BOOL, "0", "at ARMCI_Finalize, print operation counts by kind and path, bytes, flushes and waiting time over all processes (rank 0)")
ARMCII_ENV(STATS_FILE, STR, "", "with ARMCI_STATS=1, also write the statistics of every process to this file as JSON")
ARMCII_ENV(TIMEOUT, INT, "60", "seconds an operation may wait for a full provider queue, a missing completion or a node peer's accumulate lock before it is an error (at least 1); a collective in which every process has waited this long, not all in the same call, is an error too")
ARMCII_ENV_SAME(LIVENESS_MS, INT, "250", "heartbeat period between the job's processes, and how often a wait checks that the node's processes are alive: a process that dies, or is silent for ARMCI_TIMEOUT, ends every other naming its rank and host (0: no heartbeats, no checks)")
ARMCII_ENV(WATCHDOG, INT, "0", "warn (once per wait) when a wait has lasted this many seconds: which call, which target (0: off)")
ARMCII_ENV(FABRIC_LIB, STR, "", "the libfabric to open when the fabric is first needed: a path, or a name the dynamic linker searches for (libfabric.so.1); empty: the file configure found (--with-libfabric-so), or the linker's libfabric.so.1 on a node without that file (armci-info --check shows which)")
ARMCII_ENV(NIC, STR, "", "the NIC (libfabric domain) to use where the provider reaches several, by the name fi_info gives it (mlx5_0, cxi1, eth0); empty: a NIC's provider takes one near the process's cores, the processes of the node shared out over the near ones, and a software provider (tcp) libfabric's first")
ARMCII_ENV_SAME(MR_MODE, STR, "auto", "memory registration: auto = as the provider asks; strict = as the providers of RDMA NICs (verbs, efa, cxi) ask, whatever the provider, to exercise those paths on tcp or sockets: a registration's descriptor for every local buffer (data staged through bounce buffers, each transfer checked), keys the provider picks, registrations bound to the endpoint where the provider accepts it, only mapped memory registered; virtual addresses only where the provider takes them (shm)")
ARMCII_ENV(MR_MAX, INT, "0", "most memory registrations a process holds with libfabric (0: the provider's mr_cnt); past it ARMCI_Malloc fails with a clear error")
ARMCII_ENV(CACHE, STR, "off", "get cache mode of every allocation unless ARMCIX_Cache_set_mode says otherwise: off, transparent (dropped at each synchronisation point), always (read-only data) or user (dropped by ARMCIX_Cache_invalidate)")
ARMCII_ENV(CACHE_ENTRIES, INT, "1024", "initial slots of the get cache's index (rounded up to a power of two)")
ARMCII_ENV(CACHE_BYTES, SIZE, "1M", "initial size of the get cache's storage buffer")
ARMCII_ENV(CACHE_MAX_BYTES, SIZE, "64M", "the adaptive scheme grows the storage buffer up to this size")
ARMCII_ENV(CACHE_ADAPTIVE, BOOL, "1", "resize the cache's index and buffer from its conflict and capacity evictions")
ARMCII_ENV_SAME(CACHE_STATS, BOOL, "0", "at ARMCI_Finalize, print the get cache's hits, misses, evictions and resizes summed over all processes (rank 0)")
/* clang-format on */
