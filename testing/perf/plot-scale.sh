#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Charts from run-scale.sh's CSV (make scale-bench):
#   plot-scale.sh scale.csv [outdir]
# ARMCI_Init's time, the private memory of ARMCI_Init and first contact, and the heap one
# ARMCI_Malloc keeps, against the number of processes, for every library and path in the
# CSV. Needs gnuplot (gnuplot-nox).
set -eu
csv=$1
out=${2:-.}
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the library/path pairs, in the order they first appear
awk -F, 'NR > 1 && !seen[$1 "/" $2]++ { print $1 "/" $2 }' "$csv" >"$tmp/series"

plot() { # plot FILE TITLE YLABEL COLUMN-EXPRESSION
    cmd=""
    while read -r s; do
        lib=${s%/*} path=${s#*/}
        awk -F, -v l="$lib" -v p="$path" "NR > 1 && \$1 == l && \$2 == p { print \$3, $4 }" \
            "$csv" | sort -n >"$tmp/$lib-$path.dat"
        cmd="$cmd${cmd:+, }'$tmp/$lib-$path.dat' using 1:2 with linespoints title \"$lib, $path\""
    done <"$tmp/series"
    gnuplot <<GP
set terminal png size 1000,520 noenhanced
set output '$out/$1'
set title '$2'
set xlabel 'processes (oversubscribed on 2 cores)'
set ylabel '$3'
set logscale xy
set grid
set key outside right
plot $cmd
GP
    echo "wrote $out/$1"
}
plot scale-init.png "ARMCI_Init, slowest process" "seconds" '$4'
plot scale-memory.png "Private memory added by ARMCI_Init and first contact" "MiB" '$5 + $7'
plot scale-heap-per-alloc.png "Heap one ARMCI_Malloc keeps" "bytes" '$8'
