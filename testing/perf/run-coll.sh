#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# ARMCIX_Alltoall / ARMCIX_Allgather, armci_msg_dgop and ARMCI_Barrier side by side:
# every shared-heap algorithm (ARMCI_COLL_ALG = auto, pull, morton, naive; reductions and
# barriers take MPI's path under morton and naive) and Open MPI's collective, at 2 and 4
# processes (4 is oversubscribed on a 2-core machine), buffers from ARMCI_Malloc_local and
# from malloc. The runs alternate between algorithms, ROUNDS times (default 3), and each
# cell is the median over them of coll_bench's median per call, in microseconds; MPI's
# column is the median over every run. COLL_CSV=file also writes the rows as CSV.
here=$(cd "$(dirname "$0")" && pwd)
run="$here/../run-mpi.sh"
b=${top_builddir:-.}/testing/perf
rounds=${ROUNDS:-3}
algs="auto pull morton naive"
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT
export TEST_TIMEOUT=600
for np in ${NPS:-2 4}; do
    for buf in heap private; do
        flag=
        [ "$buf" = private ] && flag=--private
        r=0
        while [ $r -lt "$rounds" ]; do
            for alg in $algs; do
                ARMCI_COLL_ALG=$alg "$run" "$np" "$b/coll_bench" $flag |
                    awk -v np="$np" -v buf="$buf" -v alg="$alg" \
                        '$1 ~ /^(alltoall|allgather|dgop|barrier|bcast|group-bar|group-dgop)$/ { print np, buf, $1, $2, alg, $3, $4 }'
            done
            r=$((r + 1))
        done
    done
done >"$raw"
# raw rows: np buffers op block alg ours mpi
awk -v algs="$algs" -v csv="${COLL_CSV:-}" '
function median(list,   a, n, i, j, t) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++)
        for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
            t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
        }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{
    key = $1 SUBSEP $2 SUBSEP $3 SUBSEP $4
    if (!(key in seen)) { seen[key] = 1; order[++nk] = key }
    ours[key, $5] = ours[key, $5] " " $6
    mpi[key] = mpi[key] " " $7
}
END {
    na = split(algs, al, " ")
    if (csv != "")
        print "processes,buffers,op,block,auto,pull,morton,naive,mpi" > csv
    last = ""
    for (k = 1; k <= nk; k++) {
        split(order[k], f, SUBSEP)
        head = f[1] " processes" (f[1] > 2 ? " (oversubscribed)" : "") ", " \
               (f[2] == "heap" ? "ARMCI_Malloc_local" : "malloc") " buffers, " f[3]
        if (head != last) {
            printf "\n# %s: median us per call\n", head
            printf "%10s %8s %8s %8s %8s %8s %12s %10s\n", "block", "auto", "pull", "morton",
                   "naive", "MPI", "naive/morton", "MPI/auto"
            last = head
        }
        for (i = 1; i <= na; i++)
            m[al[i]] = median(ours[order[k], al[i]])
        mm = median(mpi[order[k]])
        printf "%10d %8.2f %8.2f %8.2f %8.2f %8.2f %12.2f %10.2f\n", f[4], m["auto"], m["pull"],
               m["morton"], m["naive"], mm, m["naive"] / m["morton"], mm / m["auto"]
        if (csv != "")
            printf "%s,%s,%s,%s,%s,%s,%s,%s,%s\n", f[1], f[2], f[3], f[4], m["auto"], m["pull"],
                   m["morton"], m["naive"], mm > csv
    }
}' "$raw"
