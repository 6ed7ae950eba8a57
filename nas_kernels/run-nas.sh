#!/bin/sh
# NAS MG and CG: every communication variant at 2 and 4 processes, on the same-node path
# (ARMCI through shared memory, MPI through its shared-memory transport) and on the fabric
# path (ARMCI_SHM=0 over libfabric tcp, MPI over its TCP transport), in one table:
# median time of NAS_REPS runs, Mop/s, and the speedup of each variant over mpi.
#   run-nas.sh [BUILD_DIR]     (or `make nas-bench`)
# Environment: NAS_REPS (3), NAS_NPS ("2 4"), NAS_RUNS ("cg:A mg:A mg:B"),
#              NAS_CSV (also write the rows there).
# This machine has 2 cores: the 4-process rows are oversubscribed.
build=${1:-.}
here=$(cd "$(dirname "$0")" && pwd)
run="$here/../testing/run-mpi.sh"
reps=${NAS_REPS:-3}
nps=${NAS_NPS:-2 4}
runs=${NAS_RUNS:-cg:A mg:A mg:B}
csv=${NAS_CSV:-}
[ -n "$csv" ] && echo "kernel,class,nprocs,path,variant,seconds,mops,speedup_vs_mpi" >"$csv"

one() { # one KERNEL CLASS NP PATH VARIANT -> "seconds mops" (median of reps by time)
    k=$1 c=$2 np=$3 path=$4 v=$5
    if [ "$path" = fabric ]; then
        set -- ARMCI_SHM=0 FI_PROVIDER=tcp OMPI_MCA_btl=self,tcp
    else
        set -- ARMCI_SHM=1
    fi
    i=0
    while [ $i -lt "$reps" ]; do
        out=$(env "$@" TEST_TIMEOUT=600 "$run" "$np" "$build/nas_kernels/$k" --class "$c" \
            --variant "$v" 2>&1)
        if ! echo "$out" | grep -Eq '^ Verification += +SUCCESSFUL$'; then
            echo "run-nas: $k class $c $v np=$np $path did not verify:" >&2
            echo "$out" | tail -15 >&2
            echo "FAILED FAILED"
            return
        fi
        echo "$out" | awk '/^ Time in seconds/ {t=$NF} /^ Mop\/s total/ {m=$NF} END {print t, m}'
        i=$((i + 1))
    done | sort -n | awk -v n="$reps" 'NR == int((n + 1) / 2) {print}'
}

printf '%-6s %-5s %-3s %-9s %-9s %10s %10s %8s\n' kernel class np path variant seconds Mop/s vs_mpi
for kc in $runs; do
    k=${kc%%:*} c=${kc#*:}
    for np in $nps; do
        for path in same-node fabric; do
            base=
            for v in mpi armci armci-nb; do
                set -- $(one "$k" "$c" "$np" "$path" "$v")
                t=$1 m=$2
                [ "$v" = mpi ] && base=$t
                sp=$(awk -v b="$base" -v t="$t" 'BEGIN {if (t + 0 > 0 && b + 0 > 0) printf "%.2fx", b / t; else print "-"}')
                printf '%-6s %-5s %-3s %-9s %-9s %10s %10s %8s\n' "$k" "$c" "$np" "$path" "$v" "$t" "$m" "$sp"
                [ -n "$csv" ] && echo "$k,$c,$np,$path,$v,$t,$m,${sp%x}" >>"$csv"
            done
        done
    done
done
