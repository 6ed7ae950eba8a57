#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# scale_bench (scale_bench.c) at several process counts, oversubscribed on this machine:
# armci-ofi on node memory and over tcp with shared memory off, and ARMCI-MPI over tcp
# (MPI_ONESIDED=messages: Open MPI's pt2pt one-sided component; MPI_NET=tcp), alternating at each count.
#
#   SCALE_NPS="2 4 8 16 32 64" SCALE_CSV=file run-scale.sh
#
# SCALE_BEFORE=DIR adds another build of the library, DIR holding its libarmci.so.0 (the
# .libs of a build of an earlier commit): the same program runs against it, on both paths,
# labelled armci-ofi-before.
#
# One CSV row per run: library,path,P,init_s,init_mib,contact_s,contact_mib,
# heap_per_alloc_b,malloc_us,free_us,barrier_us. glibc's thread cache is off in every run,
# so that the heap figures count what is in use.
here=$(cd "$(dirname "$0")" && pwd)
top=${top_builddir:-.}
run="$here/../run-mpi.sh"
nps=${SCALE_NPS:-2 4 8 16 32 64}
csv=${SCALE_CSV:-}
export GLIBC_TUNABLES=glibc.malloc.tcache_count=0
export TEST_TIMEOUT=${TEST_TIMEOUT:-600}
[ -n "$csv" ] && [ ! -s "$csv" ] &&
    echo "library,path,P,init_s,init_mib,contact_s,contact_mib,heap_per_alloc_b,malloc_us,free_us,barrier_us" >"$csv"
out=${csv:+--csv $csv}
if [ -n "${SCALE_BEFORE:-}" ] && { [ ! -e "$SCALE_BEFORE/libarmci.so.0" ] ||
    [ ! -x "$top/testing/perf/.libs/scale_bench" ]; }; then
    echo "run-scale: SCALE_BEFORE needs $SCALE_BEFORE/libarmci.so.0 and a shared build here" >&2
    exit 1
fi
before() { # before ENV... -- ARGS: the program against the earlier library
    LD_LIBRARY_PATH="$SCALE_BEFORE${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" env "$@"
}
failed=0
for np in $nps; do
    ARMCI_SHM=1 "$run" "$np" "$top/testing/perf/scale_bench" armci-ofi node $out || failed=1
    ARMCI_SHM=0 FI_PROVIDER=tcp "$run" "$np" "$top/testing/perf/scale_bench" armci-ofi tcp \
        $out || failed=1
    if [ -n "${SCALE_BEFORE:-}" ]; then
        before ARMCI_SHM=1 "$run" "$np" "$top/testing/perf/.libs/scale_bench" armci-ofi-before \
            node $out || failed=1
        before ARMCI_SHM=0 FI_PROVIDER=tcp "$run" "$np" "$top/testing/perf/.libs/scale_bench" \
            armci-ofi-before tcp $out || failed=1
    fi
    if [ -x "$top/testing/perf/scale_bench_mpi" ]; then
        MPI_ONESIDED=messages MPI_NET=tcp "$run" "$np" \
            "$top/testing/perf/scale_bench_mpi" armci-mpi tcp $out || failed=1
    fi
done
exit $failed
