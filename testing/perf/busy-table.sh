#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The table of a run-busy.sh CSV: one row per configuration, layout, process count and
# measure; per library the median over the rounds (latencies in microseconds, the compute
# shares kept as ratios).
#   busy-table.sh BUSY_CSV
f=${1:?usage: busy-table.sh BUSY_CSV}
awk -F, '
NR == 1 { next }
$6 == "loop" { next }
{
    k = $2 SUBSEP $4 SUBSEP $5 SUBSEP $6
    if (!(k in seen)) { seen[k] = 1; order[++n] = k }
    if (!($3 in haslib)) { haslib[$3] = 1; libs[++nl] = $3 }
    vals[k, $3] = vals[k, $3] " " $7
}
function median(s,    a, m, i, j, t) {
    m = split(s, a, " ")
    if (m == 0) return ""
    for (i = 2; i <= m; i++)
        for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
}
function show(v) { return v == "" ? "-" : sprintf(v >= 100 ? "%.0f" : v >= 10 ? "%.1f" : v >= 1 ? "%.2f" : "%.3f", v) }
BEGIN {
    what["fadd_median"] = "fetch-and-add on 0, median us"; what["fadd_p99"] = "fetch-and-add on 0, p99 us"
    what["acc_median"] = "accumulate 64 B, median us"; what["acc_p99"] = "accumulate 64 B, p99 us"
    what["get_median"] = "get 64 B, median us"; what["get_p99"] = "get 64 B, p99 us"
    what["share_p0"] = "compute kept by process 0"; what["share_min"] = "compute kept, lowest"
}
END {
    printf "| config | layout | P | measure |"
    for (i = 1; i <= nl; i++) printf " %s |", libs[i]
    print ""
    printf "|---|---|---|---|"
    for (i = 1; i <= nl; i++) printf "---|"
    print ""
    for (r = 1; r <= n; r++) {
        split(order[r], p, SUBSEP)
        printf "| %s | %s | %s | %s |", p[1], p[2], p[3], (p[4] in what) ? what[p[4]] : p[4]
        for (i = 1; i <= nl; i++) printf " %s |", show(median(vals[order[r], libs[i]]))
        print ""
    }
}' "$f"
