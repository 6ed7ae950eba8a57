#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# What a job's start costs, beside ARMCI-MPI: the whole launch of a short program
# (crowd_bench with one exchange: MPI_Init, ARMCI_Init, one allocation, a put, a get, an
# accumulate and a counter update to every peer, a barrier, the end), as a user waits for
# it, and ARMCI_Init within it. armci-ofi on node memory and over tcp with shared memory
# off; ARMCI-MPI on node memory and over tcp (MPI_ONESIDED=messages, MPI_NET=tcp, as
# run-scale.sh); alternating within each round, at each process count (oversubscribed here).
#
#   STARTUP_NPS="16 64" STARTUP_ROUNDS=3 STARTUP_CSV=file run-startup.sh
#
# STARTUP_FABRIC_LIB=FILE adds armci-ofi over tcp with ARMCI_FABRIC_LIB=FILE, path
# tcp-lean: a libfabric built with only the providers the job uses (docs/tuning.md says why
# and how). One CSV row per run: round,library,path,P,job_s,init_s,work_s (work: the
# exchange, the slowest process's). Then a table of
# medians over the rounds, each job against ARMCI-MPI's on the same path (tcp for tcp-lean).
# Exits 1 if a run failed or a check in it did.
here=$(cd "$(dirname "$0")" && pwd)
top=${top_builddir:-.}
run="$here/../run-mpi.sh"
. "$here/rounds.sh"
nps=${STARTUP_NPS:-16 64}
rounds=${STARTUP_ROUNDS:-3}
csv=${STARTUP_CSV:-startup.csv}
lean=${STARTUP_FABRIC_LIB:-}
export TEST_TIMEOUT=${TEST_TIMEOUT:-600}
ours=$top/testing/perf/crowd_bench
theirs=$top/testing/perf/crowd_bench_mpi
[ -x "$ours" ] || { echo "run-startup: $ours not built" >&2; exit 1; }
ours_direct crowd_bench # (rounds.sh) as ARMCI-MPI's is run: no shell per process
ours=$ours_bin ourlib=$ours_env
if [ -n "$lean" ] && [ ! -e "$lean" ]; then
    echo "run-startup: STARTUP_FABRIC_LIB=$lean: no such file" >&2
    exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "round,library,path,P,job_s,init_s,work_s" >"$csv"

configs="armci-ofi:node armci-ofi:tcp"
[ -n "$lean" ] && configs="$configs armci-ofi:tcp-lean"
[ -x "$theirs" ] && configs="$configs armci-mpi:node armci-mpi:tcp"

failed=0
for np in $nps; do
    for r in $(seq "$rounds"); do
        for c in $(rotate $((r - 1)) $configs); do
            lib=${c%:*} path=${c#*:} prog=$ours
            case $lib:$path in
            armci-ofi:node) penv="$ourlib ARMCI_SHM=1" ;;
            armci-ofi:tcp) penv="$ourlib ARMCI_SHM=0 FI_PROVIDER=tcp" ;;
            armci-ofi:tcp-lean) penv="$ourlib ARMCI_SHM=0 FI_PROVIDER=tcp ARMCI_FABRIC_LIB=$lean" ;;
            armci-mpi:node) penv= prog=$theirs ;;
            armci-mpi:tcp) penv="MPI_ONESIDED=messages MPI_NET=tcp" prog=$theirs ;;
            esac
            t0=$(date +%s.%N)
            env $penv "$run" "$np" "$prog" "$lib" "$path" 1 >"$tmp/out" 2>&1
            rc=$?
            t1=$(date +%s.%N)
            line=$(sed -n 's/^crowd_bench: //p' "$tmp/out")
            if [ $rc != 0 ] || [ -z "$line" ]; then
                echo "run-startup: $lib $path at $np (round $r) failed (exit $rc):" >&2
                tail -5 "$tmp/out" >&2
                failed=1
                continue
            fi
            set -- $line # label path P init_s work_s ops
            echo "$r,$lib,$path,$3,$(echo "$t1 - $t0" | bc),$4,$5" >>"$csv"
        done
    done
done

# the table: medians over the rounds, against ARMCI-MPI on the same path
python3 - "$here" "$csv" <<'EOF'
import sys
sys.path.insert(0, sys.argv[1])
from rounds import Runs
runs = Runs(sys.argv[2], ("P", "library", "path"))
print("%4s %-10s %-9s %8s %8s %8s %12s" % ("P", "library", "path", "job s", "init s", "work s",
      "x ARMCI-MPI"))
for k in runs.keys:
    job = runs.med(k, "job_s")
    theirs = runs.med((k[0], "armci-mpi", "node" if k[2] == "node" else "tcp"), "job_s")
    print("%4s %-10s %-9s %8.3f %8.3f %8.3f %12.2f" % (k[0], k[1], k[2], job,
          runs.med(k, "init_s"), runs.med(k, "work_s"), job / theirs))
EOF
exit $failed
