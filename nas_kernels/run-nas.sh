#!/bin/sh
# NAS MG and CG: every communication variant at 2 and 4 processes, on the same-node path
# (ARMCI through shared memory, MPI through its shared-memory transport) and on the fabric
# path (ARMCI_SHM=0 over libfabric tcp, MPI over its TCP transport), in one table:
# median time of NAS_REPS runs (the variants alternating), Mop/s, and the speedup of each
# variant over mpi. NAS_PATHS=cluster runs NP hosts x 1 process instead (cluster/run.sh;
# ARMCI_CLUSTER names hosts already up, e.g. with their links shaped).
#   run-nas.sh [BUILD_DIR]     (or `make nas-bench`)
# Environment: NAS_REPS (3), NAS_NPS ("2 4"), NAS_RUNS ("cg:A mg:A mg:B"), NAS_PATHS,
#              NAS_CSV (also write the rows there).
# This machine has 2 cores: the 4-process rows are oversubscribed.
build=${1:-.}
here=$(cd "$(dirname "$0")" && pwd)
run="$here/../testing/run-mpi.sh"
reps=${NAS_REPS:-3}
nps=${NAS_NPS:-2 4}
runs=${NAS_RUNS:-cg:A mg:A mg:B}
paths=${NAS_PATHS:-same-node fabric}
csv=${NAS_CSV:-}
[ -n "$csv" ] && echo "kernel,class,nprocs,path,variant,seconds,mops,speedup_vs_mpi" >"$csv"

once() { # once KERNEL CLASS NP PATH VARIANT -> "seconds mops" of one verified run
    k=$1 c=$2 np=$3 path=$4 v=$5
    case $path in
    fabric) set -- ARMCI_SHM=0 FI_PROVIDER=tcp OMPI_MCA_btl=self,tcp ;;
    cluster) set -- ARMCI_TEST_HOSTS="$np" OMPI_MCA_btl=self,tcp ;;
    *) set -- ARMCI_SHM=1 ;;
    esac
    out=$(env "$@" TEST_TIMEOUT=600 "$run" "$np" "$build/nas_kernels/$k" --class "$c" \
        --variant "$v" 2>&1)
    if ! echo "$out" | grep -Eq '^ Verification += +SUCCESSFUL$'; then
        echo "run-nas: $k class $c $v np=$np $path did not verify:" >&2
        echo "$out" | tail -15 >&2
        echo "FAILED FAILED"
        return
    fi
    echo "$out" | awk '/^ Time in seconds/ {t=$NF} /^ Mop\/s total/ {m=$NF} END {print t, m}'
}

printf '%-6s %-5s %-3s %-9s %-9s %10s %10s %8s\n' kernel class np path variant seconds Mop/s vs_mpi
for kc in $runs; do
    k=${kc%%:*} c=${kc#*:}
    for np in $nps; do
        for path in $paths; do
            # the variants take turns, rep by rep, so that a slow spell of the machine
            # falls on all of them alike; then the median of each
            tmp=$(mktemp -d)
            i=0
            while [ $i -lt "$reps" ]; do
                for v in mpi armci armci-nb; do
                    once "$k" "$c" "$np" "$path" "$v" >>"$tmp/$v"
                done
                i=$((i + 1))
            done
            base=
            for v in mpi armci armci-nb; do
                set -- $(sort -n "$tmp/$v" | awk -v n="$reps" 'NR == int((n + 1) / 2) {print}')
                t=$1 m=$2
                [ "$v" = mpi ] && base=$t
                sp=$(awk -v b="$base" -v t="$t" 'BEGIN {if (t + 0 > 0 && b + 0 > 0) printf "%.2fx", b / t; else print "-"}')
                printf '%-6s %-5s %-3s %-9s %-9s %10s %10s %8s\n' "$k" "$c" "$np" "$path" "$v" "$t" "$m" "$sp"
                [ -n "$csv" ] && echo "$k,$c,$np,$path,$v,$t,$m,${sp%x}" >>"$csv"
            done
            rm -rf "$tmp"
        done
    done
done
