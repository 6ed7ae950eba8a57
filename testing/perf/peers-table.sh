#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The table of a run-peers.sh CSV: one row per configuration, operation and size; per
# library the median over the rounds; the floor of that row (memcpy on the node, plain
# libfabric over tcp, where one was measured); MPI's own two-sided bandwidth beside the
# bandwidth rows over tcp (the transport under ARMCI-MPI and ComEx); the best peer (the
# best library that is not armci-ofi, by the row's unit: time and ratio lower, bandwidth
# and overlap higher) and armci-ofi over it ("ahead" when ours is at least as good;
# armci-ofi-before, run-peers.sh's BEFORE_ENV column, is not a peer). The last column
# pairs armci-ofi with that best peer within each round, where the two ran one after the
# other on the machine in the same state: in how many rounds ours was at least as good.
# This machine runs a launch at one of two speeds (docs/performance.md), which a median
# over rounds can follow to either side; the count shows how often the verdict holds.
#   peers-table.sh PEERS_CSV
f=${1:?usage: peers-table.sh PEERS_CSV}
awk -F, '
NR == 1 { next }
{
    rnd = $1
    if (!(rnd in hasround)) { hasround[rnd] = 1; rounds[++nr] = rnd }
    # the floors, under the name of the row they bound
    op = $5
    if ($4 == "raw-shm") {
        if (op == "copy") { add($2, "get", $6, "memcpy", $7, $8); add($2, "put", $6, "memcpy", $7, $8); next }
        if (op == "copy_bw") { add($2, "get_bw", $6, "memcpy", $7, $8); add($2, "put_bw", $6, "memcpy", $7, $8); next }
    }
    if ($4 ~ /^raw-/) {
        if (op == "fi_read") { add($2, "get", $6, "libfabric", $7, $8); next }
        if (op == "fi_write") { add($2, "put", $6, "libfabric", $7, $8); next }
        if (op == "read_bw") { add($2, "get_bw", $6, "libfabric", $7, $8); next }
        if (op == "write_bw") { add($2, "put_bw", $6, "libfabric", $7, $8); next }
        if (op == "mpi_bw") { add($2, "get_bw", $6, "mpi", $7, $8); add($2, "put_bw", $6, "mpi", $7, $8); next }
    }
    add($2, op, $6, $3, $7, $8)
}
function add(cfg, op, bytes, lib, v, unit,    k) {
    k = cfg SUBSEP op SUBSEP bytes
    if (!(k in seen)) { seen[k] = 1; order[++n] = k; units[k] = unit }
    if (!(lib in haslib)) {
        haslib[lib] = 1
        if (lib != "memcpy" && lib != "libfabric" && lib != "mpi") libs[++nl] = lib
    }
    vals[k, lib] = vals[k, lib] " " v
    at[k, lib, rnd] = v
}
function median(s,    a, m, i, j, t) {
    m = split(s, a, " ")
    if (m == 0) return ""
    for (i = 2; i <= m; i++)
        for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
}
function better(u, x, y) { return (u == "MB/s" || u == "%") ? x > y : x < y }
function show(v) { return v == "" ? "-" : sprintf(v >= 100 ? "%.0f" : v >= 10 ? "%.1f" : v >= 1 ? "%.2f" : "%.3f", v) }
END {
    printf "| config | operation | bytes | unit |"
    for (i = 1; i <= nl; i++) printf " %s |", libs[i]
    print " floor | MPI send/recv | best peer | armci-ofi / best | rounds ahead |"
    printf "|---|---|---|---|"
    for (i = 1; i <= nl; i++) printf "---|"
    print "---|---|---|---|---|"
    for (r = 1; r <= n; r++) {
        k = order[r]
        split(k, p, SUBSEP)
        u = units[k]
        printf "| %s | %s | %s | %s |", p[1], p[2], p[3], u
        best = ""; bestlib = ""
        for (i = 1; i <= nl; i++) {
            v = median(vals[k, libs[i]])
            med[libs[i]] = v
            printf " %s |", show(v)
            if (libs[i] !~ /^armci-ofi/ && v != "" && (best == "" || better(u, v + 0, best + 0))) {
                best = v; bestlib = libs[i]
            }
        }
        fl = median(vals[k, "memcpy"]); if (fl == "") fl = median(vals[k, "libfabric"])
        ours = med["armci-ofi"]
        verdict = "-"
        if (ours != "" && best != "" && best + 0 != 0)
            verdict = sprintf("%.2f%s", ours / best, better(u, best + 0, ours + 0) ? "" : " ahead")
        won = 0; paired = 0
        for (j = 1; j <= nr; j++) {
            if (!((k, "armci-ofi", rounds[j]) in at)) continue
            if (bestlib == "" || !((k, bestlib, rounds[j]) in at)) continue
            paired++
            if (!better(u, at[k, bestlib, rounds[j]] + 0, at[k, "armci-ofi", rounds[j]] + 0)) won++
        }
        printf " %s | %s | %s | %s | %s |\n", show(fl), show(median(vals[k, "mpi"])),
            best == "" ? "-" : bestlib " " show(best), verdict, paired ? won "/" paired : "-"
    }
}' "$f"
