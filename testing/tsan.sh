#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# ThreadSanitizer over t_threads (4 threads per process issuing puts, gets, accumulates and
# fetch-and-adds beside the progress thread) at 4 processes (2 for the woken thread), about
# 10 s per configuration; and over t_values (flagged puts, whose acknowledgements the
# progress thread may answer and collect, waited for with acquire loads) at 3.
# Then every other program that starts the progress thread, with node pairs beside the
# fabric; with TSAN_LONG=1 (make check-long) those again over each provider alone (below).
# Runs only in a build configured with --enable-tsan; elsewhere it is skipped. Suppressions,
# each explained, only for Open MPI's own locks: testing/tsan.supp.
# Then the matrix's set @tsan (testing/mpi/matrix says which programs, and which not).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/matrix.sh"
long_progs=$(matrix_set "$here/mpi/matrix" tsan | tr '\n' ' ')
# `tsan.sh --programs`: the programs it runs, for the build to make them (quickstart.sh)
if [ "${1:-}" = --programs ]; then
    echo t_threads t_values $long_progs
    exit 0
fi
build=${top_builddir:-.}
run="$here/run-mpi.sh"
. "$here/report.sh"
grep -q '^SAN_CFLAGS = .*-fsanitize=thread' "$build/Makefile" 2>/dev/null ||
    skip_all "tsan: not a --enable-tsan build"
one() { # one NAME ITERS ENV...   (PROG: the program, t_threads unless set)
    name=$1
    iters=$2
    shift 2
    prog=${PROG:-t_threads}
    # run_case (report.sh) fails a run with any ThreadSanitizer warning
    run_case "tsan $prog $name" -- env "$@" ARMCI_SHM_HEAP_SIZE=1G TEST_TIMEOUT=300 \
        TSAN_OPTIONS="halt_on_error=0 suppressions=$here/tsan.supp" \
        "$run" "${NP:-4}" "$build/testing/mpi/$prog" $iters
}
one "shm" 30000 ARMCI_SHM=1
one "fabric tcp" 800 ARMCI_SHM=0 FI_PROVIDER=tcp
one "fabric sockets" 800 ARMCI_SHM=0 FI_PROVIDER=sockets
# two processes, so not oversubscribed: the thread is woken by every transfer
NP=2 one "fabric tcp, woken thread" 400 ARMCI_SHM=0 FI_PROVIDER=tcp ARMCI_PROGRESS_CPUS=0-1 \
    ARMCI_PROGRESS_WAKE_MIN=1
PROG=t_values NP=3 one "fabric tcp" "" ARMCI_SHM=0 FI_PROVIDER=tcp
PROG=t_values NP=3 one "fabric tcp, 4 requests" "" ARMCI_SHM=0 FI_PROVIDER=tcp ARMCI_MAX_REQUESTS=4
# Every other program that starts the progress thread, with node peers beside the fabric
# (ARMCI_NODE_SIZE=2 of 4 processes: node memory within a pair, tcp between the pairs),
# which is where the thread touches the most: aggregate handles, the get cache, the
# collectives, mutexes, keep-warm passes (about 50 s in all). `make check-long`
# (TSAN_LONG=1) adds each over tcp alone and over sockets alone, where the thread also
# completes every transfer between node peers.
for p in $long_progs; do
    PROG=$p one "node pairs beside tcp" "" ARMCI_SHM=1 ARMCI_NODE_SIZE=2 FI_PROVIDER=tcp \
        ARMCI_KEEP_WARM=1
done
if [ -n "${TSAN_LONG:-}" ]; then
    for p in $long_progs; do
        PROG=$p one "fabric tcp" "" ARMCI_SHM=0 FI_PROVIDER=tcp ARMCI_KEEP_WARM=1
        # t_progress polls a word that a direct put writes: over sockets the provider's
        # own thread copies it in, a write with no order TSan can see (as a NIC's DMA)
        if [ "$p" = t_progress ]; then
            skip "tsan $p fabric sockets" "the provider's thread writes the word it polls"
            continue
        fi
        PROG=$p one "fabric sockets" "" ARMCI_SHM=0 FI_PROVIDER=sockets
    done
fi
finish tsan
