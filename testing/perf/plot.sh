#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Charts from the benchmark's CSV (armci_bench --csv, or BENCH_CSV with run-bench.sh):
#   plot.sh results.csv [outdir]
# latency and bandwidth against message size, same node and fabric, armci-ofi beside
# ARMCI-MPI and the raw floors (libfabric, shared-memory copy). Needs gnuplot (gnuplot-nox).
set -eu
csv=$1
out=${2:-.}
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# series NAME IMPL PATH OP: the (size, value) pairs of one series
series() {
    awk -F, -v i="$2" -v p="$3" -v o="$4" '$1 == i && $2 == p && $3 == o { print $4, $5 }' \
        "$csv" | sort -n >"$tmp/$1.dat"
}
series ours_shm_get armci-ofi shm get
series mpi_shm_get armci-mpi mpi-default get
series raw_shm_copy armci-ofi raw-shm copy
series ours_shm_bw armci-ofi shm get_bw
series mpi_shm_bw armci-mpi mpi-default get_bw
series raw_shm_bw armci-ofi raw-shm copy_bw
series ours_tcp_get armci-ofi "tcp;ofi_rxm" get
series mpi_tcp_get armci-mpi mpi-pt2pt get
series raw_tcp_read armci-ofi "raw-tcp;ofi_rxm" fi_read
series ours_tcp_bw armci-ofi "tcp;ofi_rxm" get_bw
series mpi_tcp_bw armci-mpi mpi-pt2pt get_bw
series raw_tcp_bw armci-ofi "raw-tcp;ofi_rxm" read_bw

plot() { # plot FILE TITLE YLABEL "series:title ..."
    file=$1
    title=$2
    ylabel=$3
    shift 3
    cmd=""
    for s in "$@"; do
        name=${s%%:*}
        label=${s#*:}
        [ -s "$tmp/$name.dat" ] || continue
        cmd="$cmd${cmd:+, }'$tmp/$name.dat' using 1:2 with linespoints title \"$label\""
    done
    [ -n "$cmd" ] || { echo "plot.sh: no data for $file" >&2; return 0; }
    gnuplot <<GP
set terminal png size 900,520 noenhanced
set output '$out/$file'
set title '$title'
set xlabel 'bytes'
set ylabel '$ylabel'
set logscale xy
set grid
set key left top
plot $cmd
GP
    echo "wrote $out/$file"
}
plot latency-same-node.png "Get latency, same node (2 processes)" "microseconds" \
    "ours_shm_get:armci-ofi" "mpi_shm_get:ARMCI-MPI" "raw_shm_copy:memcpy from the peer's segment"
plot bandwidth-same-node.png "Get bandwidth, same node" "MB/s" \
    "ours_shm_bw:armci-ofi" "mpi_shm_bw:ARMCI-MPI" "raw_shm_bw:memcpy from the peer's segment"
plot latency-fabric.png "Get latency over TCP (shared memory off)" "microseconds" \
    "ours_tcp_get:armci-ofi (tcp;ofi_rxm)" "mpi_tcp_get:ARMCI-MPI (osc pt2pt over TCP)" \
    "raw_tcp_read:raw fi_read (tcp;ofi_rxm)"
plot bandwidth-fabric.png "Get bandwidth over TCP (shared memory off)" "MB/s" \
    "ours_tcp_bw:armci-ofi (tcp;ofi_rxm)" "mpi_tcp_bw:ARMCI-MPI (osc pt2pt over TCP)" \
    "raw_tcp_bw:raw fi_read (tcp;ofi_rxm)"
