#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The LCC benchmark (lcc.c) under every cache configuration, one process launch each, on
# the fabric path (shared memory off, FI_PROVIDER as set, tcp by default): cache off, fixed
# index and buffer sizes without the adaptive scheme, the adaptive scheme from small sizes,
# and ARMCI-MPI (which has no cache) over TCP. Prints one table; fails if any run's LCC
# checksum differs from the others.
#
#   LCC_SCALE=14 LCC_EF=16 LCC_NP=2 LCC_RUNS=5 LCC_CSV=file run-lcc.sh
here=$(cd "$(dirname "$0")" && pwd)
top=${top_builddir:-.}
run="$here/../run-mpi.sh"
scale=${LCC_SCALE:-14}
ef=${LCC_EF:-16}
np=${LCC_NP:-2}
runs=${LCC_RUNS:-5}
export FI_PROVIDER=${FI_PROVIDER:-tcp}
export ARMCI_SHM=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# one LABEL PROGRAM ENV... : the median-time run of $runs launches goes into $out
one() {
    label=$1
    prog=$2
    shift 2
    best=$(mktemp)
    for r in $(seq "$runs"); do
        if ! env "$@" TEST_TIMEOUT=600 "$run" "$np" "$prog" "$scale" "$ef" "$label" 2>&1 |
            grep '^LCC ' >>"$best"; then
            echo "run-lcc: $label failed" >&2
        fi
    done
    sort -k5 -g "$best" | sed -n "$(((runs + 1) / 2))p" >>"$out"
    rm -f "$best"
}

one off "$top/testing/perf/lcc" LCC_CACHE_OFF=1
one fixed-1K-64K "$top/testing/perf/lcc" ARMCI_CACHE_ADAPTIVE=0 ARMCI_CACHE_ENTRIES=1024 ARMCI_CACHE_BYTES=64K
one fixed-1K-1M "$top/testing/perf/lcc" ARMCI_CACHE_ADAPTIVE=0 ARMCI_CACHE_ENTRIES=1024 ARMCI_CACHE_BYTES=1M
one fixed-8K-1M "$top/testing/perf/lcc" ARMCI_CACHE_ADAPTIVE=0 ARMCI_CACHE_ENTRIES=8192 ARMCI_CACHE_BYTES=1M
one fixed-8K-8M "$top/testing/perf/lcc" ARMCI_CACHE_ADAPTIVE=0 ARMCI_CACHE_ENTRIES=8192 ARMCI_CACHE_BYTES=8M
one fixed-64K-32M "$top/testing/perf/lcc" ARMCI_CACHE_ADAPTIVE=0 ARMCI_CACHE_ENTRIES=65536 ARMCI_CACHE_BYTES=32M
one adaptive-256-64K "$top/testing/perf/lcc" ARMCI_CACHE_ADAPTIVE=1 ARMCI_CACHE_ENTRIES=256 ARMCI_CACHE_BYTES=64K
if [ -x "$top/testing/perf/lcc_mpi" ]; then
    # ARMCI-MPI over the network too: MPI RMA by messages over TCP (by default Open MPI
    # would map the peer's memory, which is the same-node path)
    one armci-mpi-tcp "$top/testing/perf/lcc_mpi" MPI_ONESIDED=messages MPI_NET=tcp
fi

echo "LCC: R-MAT scale $scale, edge factor $ef, $np processes, shared memory off, FI_PROVIDER=$FI_PROVIDER; median of $runs runs"
awk -v csv="${LCC_CSV:-}" '
    { label[NR] = $2; t[NR] = $5; hits[NR] = $6; miss[NR] = $7; pct[NR] = $8; conf[NR] = $9;
      cap[NR] = $10; ri[NR] = $11; rb[NR] = $12; buf[NR] = $13; sum[NR] = $14
      if ($2 == "off") off = $5
      if ($2 ~ /^fixed/ && (best == "" || $5 < best)) { best = $5; bestl = $2 } }
    END {
      printf "%-18s %9s %8s %7s %10s %10s %8s %8s %10s\n", "configuration", "time s", "speedup",
             "hit %", "conflict", "capacity", "resizes", "buffer", "checksum"
      if (csv != "") print "configuration,time_s,speedup,hit_pct,hits,misses,conflict,capacity,index_resizes,buffer_resizes,buffer_bytes,checksum" > csv
      bad = 0
      for (i = 1; i <= NR; i++) {
        same = sum[i] == sum[1] ? "same" : "DIFFERS"
        if (same != "same") bad = 1
        printf "%-18s %9.3f %7.1fx %6.1f%% %10d %10d %4d/%-3d %7.1fM %10s\n", label[i], t[i],
               off / t[i], pct[i], conf[i], cap[i], ri[i], rb[i], buf[i] / 1048576, same
        if (csv != "") printf "%s,%.4f,%.2f,%.1f,%d,%d,%d,%d,%d,%d,%d,%s\n", label[i], t[i],
               off / t[i], pct[i], hits[i], miss[i], conf[i], cap[i], ri[i], rb[i], buf[i], sum[i] > csv
        if (label[i] ~ /^adaptive/) ad = t[i]
      }
      printf "best fixed: %s (%.3f s); adaptive / best fixed = %.2f; checksums %s\n", bestl, best,
             ad / best, bad ? "DIFFER" : "identical in every run"
      exit bad
    }' "$out"
