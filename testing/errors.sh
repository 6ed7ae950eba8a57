#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Misuse must end the job with a clear message through ARMCI_Error: for each case, the
# run must fail and its output must contain the expected words.
here=$(cd "$(dirname "$0")" && pwd)
prog=${top_builddir:-.}/testing/mpi/t_errors
run="$here/run-mpi.sh"
NO_LEAK_CHECK=1 # every case ends its job by ARMCI_Error (report.sh)
. "$here/report.sh"
nprocs=2
tag= # prefix of the case names (the program when not t_errors)
# Cases run with `peer` concern another process (its memory, its mutexes, its settings);
# cluster.sh runs those alone (ERRORS_PEERS_ONLY=1) with the peer on another host, in
# `make check-long` (CLUSTER_LONG=1).
only_peers=${ERRORS_PEERS_ONLY:-0}

expect() { # expect CASE "expected text" [ENV...]
    [ "$only_peers" = 0 ] || return 0
    check "$@"
}

peer() { # peer CASE "expected text" [ENV...]
    check "$@"
}

with_texts() { # with_texts NAME "a&&b" RUN_CASE_ARGS...: run_case, every part a --text
    wt_name=$1 rest=$2
    shift 2
    while :; do
        part=${rest%%&&*}
        set -- --text "$part" "$@"
        [ "$part" = "$rest" ] && break
        rest=${rest#*&&}
    done
    run_case "$wt_name" "$@"
}

check() {
    c=$1
    want=$2
    shift 2
    envs=$*
    # A misuse must end the job, not only print (run_case --fails: a run still going after
    # 60 s fails, whatever it printed before), with ARMCI's error line and every part of
    # the expected text ("a&&b": a and b).
    with_texts "errors/$tag$c $envs" "$want" --fails --want "armci: rank [0-9]*: " -- \
        env TEST_TIMEOUT=60 "$@" "$run" "$nprocs" "$prog" "$c"
}

for shm in 1 0; do
    expect null_buffer "ARMCI_Put: local buffer is NULL with 8 bytes" ARMCI_SHM=$shm
    # (issue 52: a SIGSEGV in the copy of a small put, over tcp and on node memory)
    expect low_buffer "ARMCI_Put: local buffer is 0x10 with 8 bytes to transfer: an address in the first page" ARMCI_SHM=$shm
    expect low_buffer_get "ARMCI_Get: local buffer is 0x10 with 8 bytes" ARMCI_SHM=$shm
    expect rank_negative "ARMCI_Get: process -1 is out of range (0..1)" ARMCI_SHM=$shm
    expect rank_too_big "ARMCI_Get: process 2 is out of range (0..1)" ARMCI_SHM=$shm
    peer outside "outside every ARMCI allocation of that process" ARMCI_SHM=$shm
    peer past_end "ARMCI_Get: remote address" ARMCI_SHM=$shm
    expect negative_size "ARMCI_Put: size is negative (-5)" ARMCI_SHM=$shm
    expect acc_bad_type "ARMCI_Acc: datatype 17 is not an ARMCI_ACC_* type" ARMCI_SHM=$shm
    expect acc_null_scale "ARMCI_Acc: scale is NULL" ARMCI_SHM=$shm
    expect acc_partial "ARMCI_Acc: 12 bytes is not a whole number of 8-byte elements" ARMCI_SHM=$shm
    expect wait_uninit "ARMCI_Wait: handle" ARMCI_SHM=$shm
    expect malloc_huge "ARMCI_Malloc: 1125899906842624 bytes do not fit in this process's heap" ARMCI_SHM=$shm
    # ARMCI_Free is collective over one allocation; the blocks passed name it
    expect free_mismatch "ARMCI_Free: process 1 freed &&which is not its block of the allocation this process freed" ARMCI_SHM=$shm
done
# resource exhaustion: more registrations than allowed, more memory than the node has
expect mr_limit "ARMCI_Malloc: registering 4096 bytes with libfabric would exceed the 16 memory registrations allowed (ARMCI_MR_MAX)" \
    ARMCI_SHM=0 ARMCI_MR_MAX=16
expect malloc_unbacked "ARMCI_Malloc: cannot back 16492674416640 bytes of node shared memory" \
    ARMCI_SHM=1 ARMCI_SHM_HEAP_SIZE=16384G
expect malloc_unbacked "ARMCI_Malloc: 16492674416640 bytes (with 4096 already allocated here) exceed this node's memory" \
    ARMCI_SHM=0 ARMCI_SHM_HEAP_SIZE=16384G
# heap sizes the address space cannot hold are refused at init, named (a sum that wrapped
# around once gave a small heap that the first ARMCI_Malloc overran)
expect heap_size "ARMCI_Init: ARMCI_SHM_HEAP_SIZE=9223372036854775807 is too large: the node's 2 processes x that much: do not fit in a 64-bit address space" \
    ARMCI_SHM=1 ARMCI_SHM_HEAP_SIZE=9223372036854775807
expect heap_size "ARMCI_SHM_HEAP_SIZE=4611686018427387904 is too large: 4611686018427392000 bytes are more address space than this process can reserve" \
    ARMCI_SHM=0 ARMCI_SHM_HEAP_SIZE=4294967296G
expect stride_levels "ARMCI_PutS: stride_levels 9 is outside 0..8"
expect negative_count "ARMCI_GetS: count[1] is negative (-2)"
expect small_stride "ARMCI_PutS: src_stride_arr[0] = 4 is smaller than the 8 bytes of the level below it"
# a target that never makes progress: the message points at it, whichever wait gives up
# (a send the provider cannot take, or a completion that never comes)
peer silent_target "to rank 1&&alive, and calling ARMCI or running its progress thread?&&ARMCI_TIMEOUT" \
    ARMCI_SHM=0 FI_PROVIDER=tcp ARMCI_PROGRESS_THREAD=0 ARMCI_TIMEOUT=2
expect null_iov "ARMCI_PutV: iov is NULL with iov_len 2"
peer vector_outside "ARMCI_PutV: iov[0].dst_ptr_array[1] (of ptr_array_len 3): remote address&&(+8 bytes) on process 1 is outside every ARMCI allocation of that process"
peer vector_len "ARMCI_GetV: iov[0].src_ptr_array[2] (of ptr_array_len 4): remote address"
peer vector_huge_len "ARMCI_GetV: iov[0].src_ptr_array: ptr_array_len 1073741824 entries (8589934592 bytes from&&run past the process's mapped memory"
expect vector_null_local "ARMCI_PutV: iov[0].src_ptr_array[1] (of ptr_array_len 3), a local address, is NULL with 8 bytes to transfer"
expect vector_long_null_local "ARMCI_PutV: iov[0].src_ptr_array[21] (of ptr_array_len 40), a local address, is NULL with 8 bytes to transfer"
peer vector_long_outside "ARMCI_PutV: iov[0].dst_ptr_array[21] (of ptr_array_len 40): remote address&&(+8 bytes) on process 1 is outside every ARMCI allocation of that process"
peer mutex_range "ARMCI_Lock: mutex 5 is out of range: process 1 has 2 mutexes"
peer unlock_not_held "ARMCI_Unlock: mutex 0 at process 1 is not held by this process"
# freed groups and their copies (issue 21, item 9): once a crash inside MPI
expect group_freed "armci_msg_group_barrier: the group was freed by ARMCI_Group_free; make a new group"
expect group_freed_copy "ARMCI_Malloc_group: the group was freed by ARMCI_Group_free (this is a copy made before)"
expect group_garbage "ARMCI_Group_rank: the group is not a group of this process"
expect group_duplicate "ARMCI_Group_create_child: pid_list[1] = 0 appears more than once"
expect group_range "pid_list[1] = 99 is outside the parent group (0..1)"
# armci_msg_abort ends the job through ARMCI_Error, with its code
expect msg_abort "armci_msg_abort called"
for shm in 1 0; do # two processes: one node domain, or one domain each
    expect domain_id "armci_domain_nprocs: domain id $((2 - shm)) is outside 0..$((1 - shm))" ARMCI_SHM=$shm
done
expect rmw_op "ARMCI_Rmw: op 7 is not ARMCI_FETCH_AND_ADD(_LONG) or ARMCI_SWAP(_LONG)"
# different collectives: once every process has waited ARMCI_TIMEOUT s, and not in one call
for shm in 1 0; do
    peer coll_mismatch "ARMCI_Free: every process has waited 2 s or more in a collective, and not in the same one: rank 0 in ARMCI_Free; rank 1 in ARMCI_Barrier" \
        ARMCI_SHM=$shm ARMCI_TIMEOUT=2
done
# every mismatched pair of collective calls ends the job naming both (issue 52: free with
# finalize met in two MPI collectives on one communicator, and MPICH ended a process with
# no word): the ones that open with the same exchange at once, the others once every
# process has waited ARMCI_TIMEOUT
for pair in "free:finalize ARMCI_Free ARMCI_Finalize 1" "malloc:finalize ARMCI_Malloc ARMCI_Finalize 0" \
    "finalize:barrier ARMCI_Finalize ARMCI_Barrier 1" "dgop:brdcst armci_msg_dgop armci_msg_brdcst 0" \
    "barrier:alltoall ARMCI_Barrier ARMCIX_Alltoall 1" "mutexes:barrier ARMCI_Create_mutexes ARMCI_Barrier 0" \
    "finalize:dgop ARMCI_Finalize armci_msg_dgop 1"; do
    set -- $pair
    peer "pair:$1" "$2&&$3" ARMCI_SHM=$4 ARMCI_TIMEOUT=2
done
# each process a node of its own: the all-to-all decides how to cross nodes with a
# collective of its own first, which blocked in MPI where the peer sat in the barrier
peer pair:barrier:alltoall "ARMCI_Barrier&&ARMCIX_Alltoall" ARMCI_NODE_SIZE=1 FI_PROVIDER=tcp \
    ARMCI_TIMEOUT=2
peer group_lists "ARMCI_Group_create_child: pid_list names process 0 of the parent group, whose own pid_list is a different one (here 2: 0 1)"
# collectives called with different counts: named on the node path (the staged send data
# carries its size) and over the fabric (each step counts what arrived, longer or shorter:
# a longer one was MPI's MPI_ERR_TRUNCATE, which MPICH ended the process with, unnamed)
counts="the processes called this collective with different counts"
for shm in 1 0; do
    peer gop_counts "armci_msg_dgop: &&$counts" ARMCI_SHM=$shm
done
# reductions with different operations or types on different processes: named on the node
# path (the staged data carries the reduction), over the fabric (each step's message does),
# and where MPI's collective reduces (one exchange of the reduction's hash beforehand)
ops="the processes called this reduction with different operations or element types"
for shm in 1 0; do
    peer gop_ops "armci_msg_dgop: &&+ double&&max double&&$ops" ARMCI_SHM=$shm
done
peer gop_types "+ int&&+ float&&$ops" ARMCI_SHM=0
peer gop_ops_long "armci_msg_dgop: $ops (this process: m" ARMCI_SHM=0
expect gop_ops_scope "armci_msg_gop_scope: $ops (this process: "
peer sel_ops "armci_msg_sel: the processes called this selection with different operations"
expect msg_op "armci_msg_igop: operation \"xor\" is not one of +, *, max, min, absmax, absmin, && (land), || (lor), & (band), | (bor), or"
expect msg_op_fortran "armci_msg_lgop: operation \"xor\\x01GGGG\" is not one of"
expect msg_sel_op "armci_msg_sel: operation \"mid     \" is not min or max"
expect msg_op_fp "armci_msg_dgop: operation \"&\" is bitwise and the elements are doubles; bitwise reductions take ARMCI_INT, _LONG or _LONG_LONG"
nprocs=3 # two peers other than oneself (operations to oneself are not aggregated)
for shm in 1 0; do # refused alike whether the targets share this node or not
    peer agg_two_targets "collects operations to process 1; it cannot take one to process 2" ARMCI_SHM=$shm
done
nprocs=2
for shm in 1 0; do # on the node an accumulate otherwise takes a way without the runtime lock
    peer agg_acc "ARMCI_NbAcc: accumulates are not aggregated" ARMCI_SHM=$shm
done
# the segment an aggregate handle keeps for its target does not outlive ARMCI_Free
for shm in 1 0; do
    peer agg_freed "ARMCI_NbPut: remote address&&is outside every ARMCI allocation of that process" ARMCI_SHM=$shm
done
# one process allocates while the other frees: both meet in the same first exchange
for shm in 1 0; do
    peer malloc_vs_free "process 1 called ARMCI_Free where this process called ARMCI_Malloc: allocating and freeing are collective" ARMCI_SHM=$shm
done
# a handle takes a second operation while its first is in flight; on node memory the first
# completes within its call, so only the fabric can show it (t_errors.c says how)
reused="still names an operation in flight (a get from rank 1): a handle takes one operation at a time"
peer handle_reused "ARMCI_NbGet: handle&&$reused" ARMCI_SHM=0 FI_PROVIDER=tcp ARMCI_PROGRESS_THREAD=0
peer handle_reused_node "ARMCI_NbPut: handle&&$reused" ARMCI_SHM=0 FI_PROVIDER=tcp \
    ARMCI_PROGRESS_THREAD=0
peer agg_flag "ARMCIX_NbPut_flag: flagged puts are not aggregated" ARMCI_SHM=0
peer flag_outside "ARMCIX_NbPut_flag: remote address" ARMCI_SHM=0
expect coll_null "ARMCIX_Alltoall: sendbuf is NULL with 16 bytes to transfer"
expect coll_overlap "ARMCIX_Allgather: sendbuf"
expect coll_not_member "ARMCIX_Alltoall: this process is not a member of the group"
expect coll_nodes "ARMCIX_Alltoall: ARMCI_COLL_NODES=\"sideways\" is not hier, mpi or auto" \
    ARMCI_NODE_SIZE=1 ARMCI_COLL_NODES=sideways
# settings that must be alike everywhere (ARMCII_ENV_SAME): compared before they choose a path
same="it must be the same on every process"
peer differ:ARMCI_SHM:1:0 "ARMCI_Init: ARMCI_SHM differs between processes: \"1\" at rank 0, \"0\" at rank 1; $same"
for shm in 1 0; do
    peer differ:ARMCI_BOUNCE_SIZE:64K:128K "ARMCI_BOUNCE_SIZE differs between processes: \"65536\" at rank 0, \"131072\" at rank 1" ARMCI_SHM=$shm
done
peer differ:ARMCI_COLL_SMALL:4K:8K "ARMCI_COLL_SMALL differs between processes: \"4096\" at rank 0, \"8192\" at rank 1"
peer differ:ARMCI_COLL_ALG:pull:morton "ARMCI_COLL_ALG differs between processes: \"pull\" at rank 0, \"morton\" at rank 1"
nprocs=3 # the lowest rank that differs is named
peer differ:ARMCI_LIVENESS_MS:250:0 "ARMCI_LIVENESS_MS differs between processes: \"250\" at rank 0, \"0\" at rank 1"
# processes that chose different providers: before, tcp and sockets took each other's
# addresses and the job went on (issue 50); now every choice is named with its ranks
chose="ARMCI_Init: the processes chose different libfabric providers or settings"
peer differ:FI_PROVIDER:tcp:sockets "$chose&&rank 0: tcp;ofi_rxm (&&ranks 1-2: sockets (" ARMCI_SHM=0
peer differ:FI_PROVIDER:sockets:udp "$chose&&rank 0: sockets (&&ranks 1-2: udp;ofi_rxd (" ARMCI_SHM=0
nprocs=2
expect bad_local "ARMCI_Put: the local buffer at 0x" ARMCI_SHM=0 FI_PROVIDER=tcp
expect finalize_after_mpi "ARMCI_Finalize: called after MPI_Finalize; call ARMCI_Finalize first"
expect before_init "ARMCI_Put: called before ARMCI_Init"
expect after_finalize "ARMCI_Get: called after ARMCI_Finalize"
expect finalize_extra "ARMCI_Finalize: called after ARMCI_Finalize"
expect env "ARMCI_MAX_REQUESTS=\"many\" is not a valid value" ARMCI_MAX_REQUESTS=many
expect env "ARMCI_Init: ARMCI_SHM=\"fasle\" is not a valid value: ARMCI_SHM takes 1, yes, on, true, y or 0, no, off, false, n" ARMCI_SHM=fasle
expect env "ARMCI_TIMEOUT=\"0\" is not a valid value, out of range (seconds an operation may wait" ARMCI_TIMEOUT=0
expect env "ARMCI_Init: ARMCI_MR_MODE=bogus is not auto or strict" ARMCI_MR_MODE=bogus
expect env "ARMCI_Init: ARMCI_NIC=ib0 names none of this node's:" ARMCI_SHM=0 ARMCI_NIC=ib0
expect cache_mode "ARMCIX_Cache_set_mode: mode 7 is not ARMCIX_CACHE_OFF (0), _TRANSPARENT (1), _ALWAYS (2) or _USER (3)"
expect cache_base "ARMCIX_Cache_set_mode: 0x" ARMCI_SHM=0
expect cache_base "is not the start of an ARMCI allocation of this process" ARMCI_SHM=0
expect cache_invalidate_base "ARMCIX_Cache_invalidate: 0x"
expect cache_stats_null "ARMCIX_Cache_get_stats: stats is NULL"
expect env "ARMCI_CACHE=sometimes is not off, transparent, always or user" ARMCI_CACHE=sometimes
expect env "ARMCI_CACHE_ENTRIES=0 must be at least 1" ARMCI_CACHE_ENTRIES=0
expect env "ARMCI_PLACEMENT=nt is not auto, cache or memory" ARMCI_PLACEMENT=nt
expect env "ARMCI_Init: ARMCI_PROGRESS_CPUS=4096 is not a list of CPUs this process may use" \
    ARMCI_PROGRESS_CPUS=4096
# ARMCI-MPI's extensions (t_armcix): mutex handles and group split
prog=${top_builddir:-.}/testing/mpi/t_armcix
tag=t_armcix/
nprocs=2
expect null "ARMCIX_Lock_hdl: the mutex handle is NULL"
peer range "ARMCIX_Lock_hdl: mutex 5 is out of range: process 1 has 2 mutexes"
peer outside "ARMCIX_Trylock_hdl: process 1 is not in the group of these mutexes"
expect rank "ARMCIX_Unlock_hdl: process 2 is out of range (0..1)"
peer not_held "ARMCIX_Unlock_hdl: mutex 0 at process 1 is not held by this process"
peer twice "ARMCIX_Trylock_hdl: mutex 1 at process 1 is already held by this process"
peer destroy_held "ARMCIX_Destroy_mutexes_hdl: mutex 0 at process 1 is still held by this process"
expect destroyed "is not a mutex handle of ARMCIX_Create_mutexes_hdl (or was destroyed)"
expect color "ARMCIX_Group_split: color -3 is negative (and not MPI_UNDEFINED)"
expect create_null "ARMCIX_Create_mutexes_hdl: the group is NULL"
# Settings that are not errors but cost: the job runs to its end, and rank 0 says so.
warns() { # warns NAME "expected text" ENV...: t_contig at 2 processes
    [ "$only_peers" = 0 ] || return 0
    name=$1 want=$2
    shift 2
    with_texts "warns/$name $*" "$want" --want " 0 failed" -- \
        env TEST_TIMEOUT=60 "$@" "$run" 2 "${top_builddir:-.}/testing/mpi/t_contig"
}
# Settings not read here (issue 61): a misspelling, ARMCI-MPI's and GA's own names; each is
# said once at ARMCI_Init (rank 0) and the job runs on. ARMCI-MPI's name for a setting of ours
# is read as ours (the value shows in ARMCI_VERBOSE's table).
warns unknown_setting "ARMCI_Init: ARMCI_SHMM is not a setting of armci-ofi and is ignored; did you mean ARMCI_SHM?" \
    ARMCI_SHMM=0
warns foreign_settings "ARMCI_Init: ARMCI_USE_WIN_ALLOCATE (ARMCI-MPI) is not read by armci-ofi: no MPI windows here&&ARMCI_Init: ARMCI_DEFAULT_SHMMAX (GA's ARMCI) is not read by armci-ofi&&ARMCI_Init: GA_NUM_PROGRESS_RANKS_PER_NODE (GA's ComEx MPI-PR) is not read by armci-ofi: no progress rank" \
    ARMCI_USE_WIN_ALLOCATE=0 ARMCI_DEFAULT_SHMMAX=4096 GA_NUM_PROGRESS_RANKS_PER_NODE=1
warns alias_setting "ARMCI_Init: ARMCI_PROGRESS_USLEEP (ARMCI-MPI) is read as ARMCI_PROGRESS_INTERVAL_US=333&&armci: ARMCI_PROGRESS_INTERVAL_US   = 333 (default 200)" \
    ARMCI_PROGRESS_USLEEP=333 ARMCI_VERBOSE=1
# Site limits (issue 61), set on the job's processes alone (prlimit; the launcher keeps its
# own): an address-space limit the default node heap does not fit sizes the heap to it, on
# both paths (before: every ARMCI_Init failed under ulimit -v 8000000); a soft open-file limit
# too low for the job is raised to the hard one; a hard one too low ends the job at start-up
# naming both numbers (before: 60 s, then a peer blamed as stopped or unreachable).
limited() { # limited NAME "texts" fails|runs PRLIMIT-OPTION ENV...: t_contig at 4 processes
    [ "$only_peers" = 0 ] || return 0
    name=$1 want=$2 how=$3 lim=$4
    shift 4
    if [ "$how" = fails ]; then
        set -- --fails --want "armci: rank [0-9]*: " -- env TEST_TIMEOUT=60 "$@"
    else
        set -- --want " 0 failed" -- env TEST_TIMEOUT=60 "$@"
    fi
    with_texts "limits/$name $lim" "$want" "$@" "$run" 4 prlimit "$lim" \
        "${top_builddir:-.}/testing/mpi/t_contig"
}
if [ "$asan_build" = 1 ]; then # the sanitizer's shadow memory is address space too
    skip "limits/heap_fits_address_space" "AddressSanitizer reserves terabytes of address space"
else
    for shm in 1 0; do
        limited "heap_fits_address_space ARMCI_SHM=$shm" "armci: node heap: &&MiB per process, fitted to the address-space limit (ulimit -v 8000000 KiB)" \
            runs --as=8192000000 ARMCI_SHM=$shm FI_PROVIDER=tcp ARMCI_VERBOSE=1
    done
fi
# (48 leaves MPI_Init room: MPICH's UCX holds about 34 descriptors after it, and fails it
# with 32; the runtime then asks for 54-56 under Open MPI, 67 under MPICH)
limited open_files_raised "armci: open files: soft limit raised from 48 to the hard limit, 20000 (this job may need" \
    runs --nofile=48:20000 ARMCI_SHM=0 FI_PROVIDER=tcp ARMCI_VERBOSE=1
limited open_files_hard "ARMCI_Init: this process may need &&(3 peers through libfabric, &&more than the hard limit of 48 (ulimit -Hn)" \
    fails --nofile=48:48 ARMCI_SHM=0 FI_PROVIDER=tcp
. "$here/launcher.sh" # MPI_FAMILY
# MPI that opened libfabric before ARMCI_Init (Open MPI's ofi MTL): rxm's settings were read
if [ "$MPI_FAMILY" = openmpi ]; then
    warns rxm_late "ARMCI_Init: libfabric was opened before ARMCI_Init&&FI_OFI_RXM_MSG_RX_SIZE=1024" \
        ARMCI_SHM=0 FI_PROVIDER=tcp MPI_NET=fabric
else
    skip "warns/rxm_late" "MPI opens no libfabric here ($MPI_FAMILY: UCX)"
fi
[ "$only_peers" = 0 ] || [ "$pass" -gt 0 ] || report 1 "errors: ERRORS_PEERS_ONLY=1 ran no case"
finish errors
