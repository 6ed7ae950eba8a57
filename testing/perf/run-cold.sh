#!/bin/sh
# cold_bench (cold_bench.c) with the keep-warm pass of the progress thread off and on
# (ARMCI_KEEP_WARM, src/core/warm.c), on the same node and over the fabric (shared memory
# off, FI_PROVIDER as set, tcp by default). The four configurations alternate within each
# round; each printed value is the median over COLD_ROUNDS rounds of the per-run medians.
#
#   COLD_ROUNDS=3 COLD_SAMPLES=101 COLD_CSV=file run-cold.sh
# The CSV has one row per run and row of cold_bench, with the configuration first.
here=$(cd "$(dirname "$0")" && pwd)
top=${top_builddir:-.}
run="$here/../run-mpi.sh"
rounds=${COLD_ROUNDS:-3}
samples=${COLD_SAMPLES:-101}
csv=${COLD_CSV:-}
fabric=${FI_PROVIDER:-tcp}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

failed=0
for r in $(seq "$rounds"); do
    for cfg in node,0 node,1 fabric,0 fabric,1; do
        path=${cfg%,*}
        warm=${cfg#*,}
        shm=1
        [ "$path" = fabric ] && shm=0
        if ! env ARMCI_SHM=$shm FI_PROVIDER="$fabric" ARMCI_KEEP_WARM="$warm" "$run" 2 \
            "$top/testing/perf/cold_bench" "$samples" "$out/run.csv" >"$out/log" 2>&1; then
            echo "run-cold: $path, ARMCI_KEEP_WARM=$warm failed:" >&2
            cat "$out/log" >&2
            failed=1
            continue
        fi
        tail -n +2 "$out/run.csv" | sed "s/^/$warm,$r,/" >>"$out/all.csv"
    done
done
[ -s "$out/all.csv" ] || exit 1
if [ -n "$csv" ]; then
    echo "keep_warm,round,path,op,allocations,implicit,live,hot_ns,cold_ns" >"$csv"
    cat "$out/all.csv" >>"$csv"
fi
python3 - "$out/all.csv" <<'PY'
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    warm, _, path, op, allocs, implicit, _, hot, cold = line.strip().split(",")
    runs[(path, op, int(allocs), int(implicit), warm)].append((float(hot), float(cold)))
med = {k: (statistics.median(h for h, _ in v), statistics.median(c for _, c in v))
       for k, v in runs.items()}
# the floor of an operation: the same bytes moved by hand after the walk, both settings'
# runs together (the pass cannot change a load and a store of the application's)
floor = {}
for op in ("get", "put", "acc"):
    v = [c for w in ("0", "1") for _, c in runs.get(("node", "floor-" + op, 1, 0, w), [])]
    if v:
        floor[op] = statistics.median(v)
print("ns per operation, medians; \"over floor\": cold minus the same bytes moved by hand")
print("%-6s %-4s %6s %8s | %7s %9s %9s | %10s %10s %6s" % ("path", "op", "allocs", "implicit",
      "hot", "cold off", "cold on", "over, off", "over, on", "cut"))
for (path, op, a, i, warm) in sorted(med):
    if warm != "0" or op.startswith("floor"):
        continue
    off, on = med[(path, op, a, i, "0")], med.get((path, op, a, i, "1"), (0, 0))
    extra = ""
    if path == "node" and op in floor:
        x, y = off[1] - floor[op], on[1] - floor[op]
        extra = "%10.0f %10.0f %5.0f%%" % (x, y, 100 * (1 - y / x) if x > 0 else 0)
    print("%-6s %-4s %6d %8d | %7.0f %9.0f %9.0f | %s" % (path, op, a, i, off[0], off[1], on[1], extra))
for op, f in sorted(floor.items()):
    print("node floor-%s (by hand, after the walk): %.0f ns" % (op, f))
PY
exit $failed
