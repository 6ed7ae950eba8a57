#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The application-level rows of docs/performance.md ("Beyond contiguous transfers" and
# "Synchronisation over TCP"), each library or setting it compares run alternately within
# every one of ROUNDS rounds (default 3), so that they share the machine's drift:
#   spmv     testing/perf/spmv over tcp (ARMCI_SHM=0, MPI on TCP too), 2 processes of 4000
#            rows and 4 of 2000: individual gets, aggregate handles and one GetV per owner
#            (the three modes, one after the other inside each run of the program, the best
#            of 3 multiplies each), and individual over aggregate. armci-ofi only.
#   ga       Global Arrays, 4 processes on one node: testing/ga/t_ga --bench (armci-ofi)
#            and t_ga_mpi --bench (ARMCI-MPI, on Open MPI's osc/pt2pt: its other
#            components fail to create the windows ARMCI-MPI asks for here).
#   coll-tcp testing/perf/coll_bench over tcp, 2 and 4 processes: the runtime's collectives
#            (ARMCI_COLL_ALG=auto, impl armci-ofi) and the same calls through MPI's
#            nonblocking collectives (ARMCI_COLL_ALG=mpi, impl armci-ofi-collmpi), with MPI's
#            own blocking collective measured in each of those runs (impl mpi).
#   run-apps.sh [BUILD_DIR]
# APPS picks the cases (default "spmv ga coll-tcp"). Rows to APPS_CSV (default apps.csv:
# round,config,impl,case,value,unit), then the medians over the rounds.
build=${1:-${top_builddir:-.}}
here=$(cd "$(dirname "$0")" && pwd)
run="$here/../run-mpi.sh"
b=$build/testing/perf
gadir=$build/testing/ga
out=${APPS_CSV:-apps.csv}
export TEST_TIMEOUT=${TEST_TIMEOUT:-900}
tcp="ARMCI_SHM=0 FI_PROVIDER=tcp MPI_NET=tcp"
echo "round,config,impl,case,value,unit" >"$out"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

# rows R CONFIG IMPL AWK-PROGRAM: runs the awk program over the program's output in $tmp;
# it prints "case value unit" lines, which become CSV rows
rows() {
    r=$1 cfg=$2 impl=$3
    awk "$4" "$tmp" | while read -r c v u; do
        echo "$r,$cfg,$impl,$c,$v,$u" >>"$out"
    done
}

spmv() { # spmv ROUND NP ROWS
    echo "== round $1, spmv over tcp, $2 processes"
    env $tcp "$run" "$2" "$b/spmv" "$3" >"$tmp" || echo "run-apps: spmv ($2 processes) failed"
    cat "$tmp"
    grep -q "results verified" "$tmp" || { echo "run-apps: spmv ($2 processes) not verified"; return 0; }
    rows "$1" "tcp-$2" armci-ofi '
        $1 == "spmv" && $2 == "individual" { print "spmv_individual_gets", $4, "us"; ind = $4 }
        $1 == "spmv" && $2 == "aggregate" { print "spmv_aggregate_handles", $4, "us"; agg = $4 }
        $1 == "spmv" && $2 == "one" { print "spmv_getv_per_owner", $6, "us" }
        END { if (agg > 0) printf "spmv_individual_over_aggregate %.2f x\n", ind / agg }'
}

ga() { # ga ROUND IMPL
    if [ "$2" = armci-ofi ]; then
        x=$gadir/t_ga envs=
    else
        x=$gadir/t_ga_mpi envs="MPI_ONESIDED=messages"
    fi
    [ -x "$x" ] || { echo "run-apps: $x not built (make $x; needs Global Arrays)"; return 0; }
    echo "== round $1, Global Arrays on $2, 4 processes, one node"
    env $envs "$run" 4 "$x" --bench >"$tmp" || echo "run-apps: $x --bench failed"
    grep ga-bench "$tmp"
    # "ga-bench put 100x100   12.2 us" -> ga_put_100x100
    rows "$1" node-4 "$2" '$1 == "ga-bench" && NF == 5 { print "ga_" $2 "_" $3, $4, $5 }'
}

coll() { # coll ROUND NP ALG
    impl=armci-ofi
    [ "$3" = mpi ] && impl=armci-ofi-collmpi
    echo "== round $1, coll_bench over tcp, $2 processes, ARMCI_COLL_ALG=$3"
    env $tcp ARMCI_COLL_ALG="$3" "$run" "$2" "$b/coll_bench" >"$tmp" ||
        echo "run-apps: coll_bench ($2 processes, $3) failed"
    # "op block ours MPI MPI/ours": block is bytes (per process for dgop; 0 for barriers)
    rows "$1" "tcp-$2" "$impl" '$1 ~ /^(alltoall|allgather|dgop|barrier|bcast|group-bar|group-dgop)$/ && NF == 5 { print $1 "_" $2, $3, "us" }'
    rows "$1" "tcp-$2" mpi '$1 ~ /^(alltoall|allgather|dgop|barrier|bcast|group-bar|group-dgop)$/ && NF == 5 { print $1 "_" $2, $4, "us" }'
}

for r in $(seq "${ROUNDS:-3}"); do
    for app in ${APPS:-spmv ga coll-tcp}; do
        case $app in
        spmv)
            spmv "$r" 2 4000
            spmv "$r" 4 2000
            ;;
        ga)
            # the order alternates from round to round as well
            if [ $((r % 2)) -eq 1 ]; then ga "$r" armci-ofi; ga "$r" armci-mpi; else ga "$r" armci-mpi; ga "$r" armci-ofi; fi
            ;;
        coll-tcp)
            for np in 2 4; do
                if [ $((r % 2)) -eq 1 ]; then coll "$r" $np auto; coll "$r" $np mpi; else coll "$r" $np mpi; coll "$r" $np auto; fi
            done
            ;;
        *) echo "run-apps: unknown case $app (spmv, ga, coll-tcp)" ;;
        esac
    done
done

# medians over the rounds, one line per config, case and implementation
echo "== medians over ${ROUNDS:-3} rounds ($out)"
awk -F, '
NR == 1 { next }
{
    k = $2 SUBSEP $4 SUBSEP $3
    if (!(k in v)) { order[++n] = k; unit[k] = $6 }
    v[k] = v[k] " " $5
}
function median(s,    a, m, i, j, t) {
    m = split(s, a, " ")
    for (i = 2; i <= m; i++)
        for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
}
END {
    printf "%-8s %-34s %-18s %12s %s\n", "config", "case", "impl", "median", "unit"
    for (i = 1; i <= n; i++) {
        split(order[i], p, SUBSEP)
        printf "%-8s %-34s %-18s %12g %s\n", p[1], p[2], p[3], median(v[order[i]]), unit[order[i]]
    }
}' "$out" | sort -s -k1,1 -k2,2
