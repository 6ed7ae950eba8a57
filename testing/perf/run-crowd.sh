#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# crowd_bench (crowd_bench.c) with more processes than cores: armci-ofi on node memory and
# over tcp with shared memory off, and ARMCI-MPI on node memory and over tcp
# (MPI_ONESIDED=messages, MPI_NET=tcp, as run-scale.sh), alternating within each round.
#
#   CROWD_NP=8 CROWD_ROUNDS=5 CROWD_ITERS=100 CROWD_CSV=file run-crowd.sh
#
# CROWD_BEFORE=DIR adds another build of the library, DIR holding its libarmci.so.0 (the
# .libs of a build of an earlier commit), run as armci-ofi-before on both paths.
#
# One CSV row per run: round,library,path,P,job_s,init_s,work_s,ops,retries_med,
# retries_max,retries_all,yields_all,bells_all. job_s is the whole launch, as a user waits for it;
# init_s and work_s the program's own (ARMCI_Init; the exchange rounds), the slowest
# process's; ops what one process issued; retries armci-ofi's queue-full retries per
# process (ARMCI_STATS_FILE): the median, the largest and all processes' together, and the
# yields among them (all), and the doorbells rung (all). Then a table of medians over the rounds, with each path's work
# time against armci-ofi's on node memory and the job's retries per operation. Exits 1 if
# a run failed or a check in it did.
here=$(cd "$(dirname "$0")" && pwd)
top=${top_builddir:-.}
run="$here/../run-mpi.sh"
. "$here/rounds.sh"
np=${CROWD_NP:-8}
rounds=${CROWD_ROUNDS:-5}
iters=${CROWD_ITERS:-100}
csv=${CROWD_CSV:-crowd.csv}
export TEST_TIMEOUT=${TEST_TIMEOUT:-600}
ours=$top/testing/perf/crowd_bench
theirs=$top/testing/perf/crowd_bench_mpi
[ -x "$ours" ] || { echo "run-crowd: $ours not built" >&2; exit 1; }
ours_direct crowd_bench # (rounds.sh) as ARMCI-MPI's is run: no shell per process
ours=$ours_bin ourlib=$ours_env
if [ -n "${CROWD_BEFORE:-}" ] && { [ ! -e "$CROWD_BEFORE/libarmci.so.0" ] ||
    [ ! -x "$top/testing/perf/.libs/crowd_bench" ]; }; then
    echo "run-crowd: CROWD_BEFORE needs $CROWD_BEFORE/libarmci.so.0 and a shared build here" >&2
    exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "round,library,path,P,job_s,init_s,work_s,ops,retries_med,retries_max,retries_all,yields_all,bells_all" >"$csv"

configs="armci-ofi:node armci-ofi:tcp"
[ -n "${CROWD_BEFORE:-}" ] && configs="$configs armci-ofi-before:node armci-ofi-before:tcp"
[ -x "$theirs" ] && configs="$configs armci-mpi:node armci-mpi:tcp"

# median, largest and sum of one counter over the processes, from the statistics file
counter() { # counter FILE NAME
    python3 - "$1" "$2" <<'EOF'
import json, sys
try:
    v = sorted(json.load(open(sys.argv[1]))["counters"].get(sys.argv[2], [0]))
except (OSError, ValueError):
    v = [-1]
print("%d %d %d" % (v[len(v) // 2], v[-1], sum(v)))
EOF
}

failed=0
for r in $(seq "$rounds"); do
    for c in $(rotate $((r - 1)) $configs); do
        lib=${c%:*} path=${c#*:}
        case $path in
        node) penv="ARMCI_SHM=1" ;;
        tcp) penv="ARMCI_SHM=0 FI_PROVIDER=tcp" ;;
        esac
        prog=$ours pre=$ourlib
        case $lib in
        armci-mpi)
            prog=$theirs pre=
            [ $path = tcp ] && penv="MPI_ONESIDED=messages MPI_NET=tcp" || penv= ;;
        armci-ofi-before)
            prog=$top/testing/perf/.libs/crowd_bench
            pre="LD_LIBRARY_PATH=$CROWD_BEFORE${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ;;
        esac
        stats=$tmp/stats.json
        rm -f "$stats"
        t0=$(date +%s.%N)
        env $pre $penv ARMCI_STATS=1 ARMCI_STATS_FILE="$stats" "$run" "$np" "$prog" "$lib" "$path" "$iters" \
            >"$tmp/out" 2>&1
        rc=$?
        t1=$(date +%s.%N)
        line=$(sed -n 's/^crowd_bench: //p' "$tmp/out")
        if [ $rc != 0 ] || [ -z "$line" ]; then
            echo "run-crowd: $lib $path (round $r) failed (exit $rc):" >&2
            tail -5 "$tmp/out" >&2
            failed=1
            continue
        fi
        if [ "$lib" = armci-mpi ]; then
            ret="0 0 0" yie="0 0 0" bel="0 0 0"
        else
            ret=$(counter "$stats" "queue-full retries")
            yie=$(counter "$stats" "... yielding the CPU")
            bel=$(counter "$stats" "doorbells rung")
        fi
        set -- $line $ret $yie $bel # ... rss, fds; retries, yields, rings: each med max all
        echo "$r,$lib,$path,$3,$(echo "$t1 - $t0" | bc),$4,$5,$6,${10},${11},${12},${15},${18}" >>"$csv"
    done
done

# the table: medians over the rounds
python3 - "$here" "$csv" <<'EOF'
import sys
sys.path.insert(0, sys.argv[1])
from rounds import Runs
runs = Runs(sys.argv[2], ("library", "path"))
base = runs.med(("armci-ofi", "node"), "work_s")
print("%-18s %-5s %3s %8s %8s %8s %9s %10s %9s %8s" % ("library", "path", "P", "job s",
      "init s", "work s", "x node", "retries", "per op", "rings"))
for k in runs.keys:
    first = runs.runs(k)[0]
    work = runs.med(k, "work_s")
    ret = runs.med(k, "retries_all", int)
    ops = int(first["ops"]) * int(first["P"])
    print("%-18s %-5s %3s %8.3f %8.3f %8.3f %9.2f %10d %8.2f%% %8d" % (k[0], k[1], first["P"],
          runs.med(k, "job_s"), runs.med(k, "init_s"), work,
          work / base if base == base and base > 0 else float("nan"), ret,
          100.0 * ret / ops if ops else 0, runs.med(k, "bells_all", int)))
EOF
exit $failed
