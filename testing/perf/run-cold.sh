#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# cold_bench (cold_bench.c) with the keep-warm pass of the progress thread off and on
# (ARMCI_KEEP_WARM, src/core/warm.c), on the same node and over the fabric (shared memory
# off, FI_PROVIDER as set, tcp by default). The configurations alternate within each
# round; each printed value is the median over COLD_ROUNDS rounds of the per-run medians.
#
#   COLD_ROUNDS=3 COLD_SAMPLES=101 COLD_CSV=file COLD_PATHS="node fabric" run-cold.sh
# COLD_BEFORE=DIR adds another build of the library, DIR holding its libarmci.so.0 (for
# example the .libs of a build of an earlier commit): the same program runs against it,
# in the same rounds, and the table compares the two. The CSV has one row per run and
# row of cold_bench, with the library ("this" or "before") and the configuration first.
here=$(cd "$(dirname "$0")" && pwd)
top=${top_builddir:-.}
run="$here/../run-mpi.sh"
rounds=${COLD_ROUNDS:-3}
samples=${COLD_SAMPLES:-101}
csv=${COLD_CSV:-}
paths=${COLD_PATHS:-node fabric}
fabric=${FI_PROVIDER:-tcp}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

libs=this
if [ -n "${COLD_BEFORE:-}" ]; then
    if [ ! -e "$COLD_BEFORE/libarmci.so.0" ] || [ ! -x "$top/testing/perf/.libs/cold_bench" ]; then
        echo "run-cold: COLD_BEFORE needs $COLD_BEFORE/libarmci.so.0 and a shared build here" >&2
        exit 1
    fi
    libs="this before"
fi

failed=0
for r in $(seq "$rounds"); do
    for lib in $libs; do
        prog="$top/testing/perf/cold_bench"
        libpath=${LD_LIBRARY_PATH:-}
        if [ "$lib" = before ]; then
            prog="$top/testing/perf/.libs/cold_bench"
            libpath="$COLD_BEFORE${libpath:+:$libpath}"
        fi
        for path in $paths; do
            for warm in 0 1; do
                shm=1
                [ "$path" = fabric ] && shm=0
                if ! env LD_LIBRARY_PATH="$libpath" ARMCI_SHM=$shm FI_PROVIDER="$fabric" \
                    ARMCI_KEEP_WARM="$warm" "$run" 2 "$prog" "$samples" "$out/run.csv" \
                    >"$out/log" 2>&1; then
                    echo "run-cold: $lib, $path, ARMCI_KEEP_WARM=$warm failed:" >&2
                    cat "$out/log" >&2
                    failed=1
                    continue
                fi
                tail -n +2 "$out/run.csv" | sed "s/^/$lib,$warm,$r,/" >>"$out/all.csv"
            done
        done
    done
done
[ -s "$out/all.csv" ] || exit 1
if [ -n "$csv" ]; then
    echo "library,keep_warm,round,path,op,allocations,implicit,live,hot_ns,cold_ns" >"$csv"
    cat "$out/all.csv" >>"$csv"
fi
python3 - "$out/all.csv" <<'PY'
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    lib, warm, _, path, op, allocs, implicit, _, hot, cold = line.strip().split(",")
    runs[(lib, path, op, int(allocs), int(implicit), warm)].append((float(hot), float(cold)))
med = {k: (statistics.median(h for h, _ in v), statistics.median(c for _, c in v))
       for k, v in runs.items()}
libs = sorted({k[0] for k in runs}, key=lambda l: l != "before")
# the floor of an operation: the same bytes moved by hand after the walk, over every run
# (neither the pass nor the library can change a load and a store of the application's)
floor = {}
for op in ("get", "put", "acc"):
    v = [c for k, r in runs.items() if k[2] == "floor-" + op for _, c in r]
    if v:
        floor[op] = statistics.median(v)
print("ns per operation, medians; \"over floor\": cold minus the same bytes moved by hand")
for lib in libs:
    if len(libs) > 1:
        print("library: %s" % lib)
    print("%-6s %-4s %6s %8s | %7s %9s %9s | %10s %10s %6s" % ("path", "op", "allocs",
          "implicit", "hot", "cold off", "cold on", "over, off", "over, on", "cut"))
    for (l, path, op, a, i, warm) in sorted(med):
        if l != lib or warm != "0" or op.startswith("floor"):
            continue
        off, on = med[(l, path, op, a, i, "0")], med.get((l, path, op, a, i, "1"), (0, 0))
        extra = ""
        if path == "node" and op in floor:
            x, y = off[1] - floor[op], on[1] - floor[op]
            extra = "%10.0f %10.0f %5.0f%%" % (x, y, 100 * (1 - y / x) if x > 0 else 0)
        print("%-6s %-4s %6d %8d | %7.0f %9.0f %9.0f | %s" % (path, op, a, i, off[0], off[1],
              on[1], extra))
for op, f in sorted(floor.items()):
    print("node floor-%s (by hand, after the walk): %.0f ns" % (op, f))
# same node, per operation: the median over the 9 settings of what the runtime adds above
# the floor, for each library and setting of the pass, and its cut against the first
if floor:
    print("same node, over the floor (median of the settings):")
    base = None
    for lib in libs:
        for warm in ("0", "1"):
            cells = []
            for op in ("get", "put", "acc"):
                v = [med[k][1] - floor[op] for k in med
                     if k[0] == lib and k[1] == "node" and k[2] == op and k[5] == warm]
                cells.append(statistics.median(v) if v else float("nan"))
            if base is None:
                base = cells
            cut = " ".join("%4.0f%%" % (100 * (1 - c / b)) if b > 0 else "   -"
                           for c, b in zip(cells, base))
            print("  %-7s pass %s: get %5.0f  put %5.0f  acc %5.0f ns   cut vs first row: %s" %
                  (lib, "on " if warm == "1" else "off", cells[0], cells[1], cells[2], cut))
PY
exit $failed
