#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The scale run of `make check-long`: SCALE_NP processes (256) on this machine,
# oversubscribed, on node memory and over tcp with shared memory off. Each runs crowd_bench
# for SCALE_ROUNDS rounds (every process puts to, gets from and accumulates into every other
# and adds to a counter each round; the data, sums and counters are checked), beside a run of
# 4 processes on the same path that gives the figures every process has whatever the job's
# size. Printed for each path: ARMCI_Init's time, the largest process's private memory and
# open files, and what the model of docs/performance.md ("The model: 10^3 and 10^4
# processes") and the runtime's own count of open files (src/core/runtime.c,
# fit_open_files) say they grow by. Held to them:
#   - the checks of every round pass;
#   - open files grow by at most one per process for the node leader's heartbeat
#     connections (the largest process is the leader) and, over tcp, one per peer
#     contacted (tcp;ofi_rxm's connection), 16 more for slack;
#   - private memory grows over tcp by at most a quarter more than node memory's growth plus
#     the model's 28.6 KiB per connection and one growth of rxm's send pool (1024 buffers,
#     4.5 MiB: every process has four operations in flight to each of its peers).
# ARMCI_Init's time is printed only (a crowd of 128 processes to a core; on a cluster each
# has its own, and the model's figure is per process). SCALE_CSV=FILE also writes every
# run's figures there: path,P,rounds,init_s,work_s,errors,rss_kib,fds.
here=$(cd "$(dirname "$0")" && pwd)
run="$here/run-mpi.sh"
. "$here/report.sh"
top=${top_builddir:-.}
np=${SCALE_NP:-256}
rounds=${SCALE_ROUNDS:-3}
small=4
. "$here/perf/rounds.sh"
ours_direct crowd_bench # not libtool's script: a shell per process
prog=$ours_bin ourlib=$ours_env
[ -x "$prog" ] || skip_all "crowd_bench not built"
export TEST_TIMEOUT=${TEST_TIMEOUT:-1200}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
csv=${SCALE_CSV:-}
[ -n "$csv" ] && echo "path,P,rounds,init_s,work_s,errors,rss_kib,fds" >"$csv"

# one run: its crowd_bench line's fields, or nothing (the log keeps the output)
crowd() { # crowd P ROUNDS LOG ENV...
    p=$1 r=$2 out=$3
    shift 3
    env $ourlib "$@" "$run" "$p" "$prog" armci-ofi scale "$r" >"$out" 2>&1 &&
        sed -n 's/^crowd_bench: //p' "$out"
}

for path in node tcp; do
    case $path in
    node) penv="ARMCI_SHM=1" per_peer_files=1 ;;
    tcp) penv="ARMCI_SHM=0 FI_PROVIDER=tcp" per_peer_files=2 ;;
    esac
    name="scale/$np processes, $path: $rounds rounds of everyone to everyone checked"
    small_line=$(crowd $small 1 "$tmp/small-$path.log" $penv)
    line=$(crowd "$np" "$rounds" "$tmp/$path.log" $penv)
    if [ -z "$line" ] || [ -z "$small_line" ]; then
        result "a run failed" "$name" "$tmp/$path.log"
        continue
    fi
    set -- $line # label path P init_s work_s ops errors rss_kib fds
    init=$4 work=$5 errors=$7 rss=$8 fds=$9
    [ -n "$csv" ] && echo "$path,$np,$rounds,$init,$work,$errors,$rss,$fds" >>"$csv"
    set -- $small_line
    rss0=$8 fds0=$9
    [ -n "$csv" ] && echo "$path,$small,1,$4,$5,$7,$rss0,$fds0" >>"$csv"
    eval "rss_$path=$rss rss0_$path=$rss0"
    echo "# $path, $np processes: ARMCI_Init $init s, rounds $work s; largest process:" \
        "$((rss / 1024)) MiB private, $fds open files ($small processes: $((rss0 / 1024)) MiB," \
        "$fds0 files)"
    [ "$errors" = 0 ] && result ok "$name" || result "$errors checks failed" "$name" "$tmp/$path.log"
    files_max=$((fds0 + per_peer_files * (np - small) + 16))
    echo "# $path: open files, model: at most $files_max ($fds0 at $small processes, one per" \
        "process for the leader's heartbeats$([ $path = tcp ] && echo ", one per peer contacted"))"
    [ "$fds" -le "$files_max" ] &&
        result ok "scale/$np processes, $path: open files within the model ($fds <= $files_max)" ||
        result "$fds > $files_max" "scale/$np processes, $path: open files within the model"
done

# memory: what tcp adds over node memory, per peer, against the model
if [ -n "${rss_tcp:-}" ] && [ -n "${rss_node:-}" ]; then
    grown=$(((rss_tcp - rss0_tcp) - (rss_node - rss0_node)))
    model=$((286 * (np - small) / 10 + 4608))
    echo "# tcp over node memory, $small to $np processes: private memory +$grown KiB per largest" \
        "process; model $model KiB (28.6 KiB a connection, 4.5 MiB of rxm's send pool)"
    [ "$grown" -le $((model * 5 / 4)) ] &&
        result ok "scale/$np processes: what tcp adds to a process's memory within the model ($grown KiB <= 1.25 x $model)" ||
        result "$grown KiB > 1.25 x $model KiB" "scale/$np processes: what tcp adds to a process's memory within the model"
fi
finish scale
