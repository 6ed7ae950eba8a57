#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Barnes-Hut (barnes_hut.c) under every cache configuration on the fabric path (shared
# memory off, FI_PROVIDER as set, tcp by default): cache off, fixed index and buffer sizes,
# the adaptive scheme from 256 entries and 64 KiB, and the same source on ARMCI-MPI (no
# cache) over TCP. The configurations alternate within each round; each row is the median
# force time of BH_RUNS rounds. Fails if a run fails or if the final positions differ
# between configurations at one process count. Across hosts of this machine
# (testing/cluster): ARMCI_TEST_HOSTS=2, and BH_SHM=1 for node memory between processes
# of one host (only gets that cross hosts are then cached).
#
#   BH_BODIES=8000 BH_STEPS=1 BH_NPS="2 4" BH_RUNS=3 BH_SHM=0 BH_CSV=file run-bh.sh
# (BH_CONFIGS: the configurations to run, off first; CONFIG+nb walks with ARMCI_NbGet
# issued ahead, --gets nb)
here=$(cd "$(dirname "$0")" && pwd)
top=${top_builddir:-.}
run="$here/../run-mpi.sh"
bodies=${BH_BODIES:-8000}
steps=${BH_STEPS:-1}
nps=${BH_NPS:-2 4}
runs=${BH_RUNS:-3}
export FI_PROVIDER=${FI_PROVIDER:-tcp}
export ARMCI_SHM=${BH_SHM:-0}
bh="$top/testing/apps/barnes_hut"
bh_mpi="$top/testing/apps/barnes_hut_mpi"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
configs=${BH_CONFIGS:-off 64:8K 256:64K 1024:256K 8192:2M adaptive off+nb adaptive+nb armci-mpi}
[ -x "$bh_mpi" ] || configs=$(echo "$configs" | sed 's/armci-mpi//')

failed=0
for np in $nps; do
    for r in $(seq "$runs"); do
        for c in $configs; do
            if [ "$c" = armci-mpi ]; then
                # MPI RMA by messages over TCP (by default Open MPI would map the peer's
                # memory, which is the same-node path)
                line=$(MPI_ONESIDED=messages MPI_NET=tcp TEST_TIMEOUT=900 "$run" "$np" \
                    "$bh_mpi" --bodies "$bodies" --steps "$steps" --label armci-mpi 2>&1 |
                    grep '^barnes_hut label=')
            else
                gets=blocking # CONFIG+nb: the walk's gets issued ahead with ARMCI_NbGet
                case $c in *+nb) gets=nb ;; esac
                line=$(TEST_TIMEOUT=900 "$run" "$np" "$bh" --bodies "$bodies" --steps "$steps" \
                    --cache "${c%+nb}" --gets $gets --label "$c" 2>&1 | grep '^barnes_hut label=')
            fi
            if [ -z "$line" ]; then
                echo "run-bh: $c at $np processes failed" >&2
                failed=1
                continue
            fi
            echo "$line" >>"$out/$np"
        done
    done
done
[ $failed = 0 ] || exit 1

where=${ARMCI_TEST_HOSTS:+", across $ARMCI_TEST_HOSTS hosts"}
echo "Barnes-Hut: $bodies bodies (Plummer), $steps step(s), theta 0.5, ARMCI_SHM=$ARMCI_SHM," \
    "FI_PROVIDER=$FI_PROVIDER$where; force phases summed, slowest process, median of $runs rounds"
[ -z "${BH_CSV:-}" ] ||
    echo "procs,configuration,force_time_s,speedup,gets,hit_pct,conflict,capacity,index_resizes,buffer_resizes,buffer_bytes,index_slots,checksum" >"$BH_CSV"
for np in $nps; do
    # one record per run: the key=value fields in a fixed order
    sed 's/[a-z_]*=//g' "$out/$np" | awk -v np="$np" -v runs="$runs" -v csv="${BH_CSV:-}" '
        # fields: label bodies steps procs theta force gets hits misses hit_pct conflict
        #         capacity index_resizes buffer_resizes buffer_bytes index_slots checksum
        { $1 = $2; }
        { n = ++count[$2]; t[$2, n] = $7; row[$2] = $0; if (!($2 in seen)) { seen[$2] = 1; order[++k] = $2 } }
        function median(c,   i, j, a, m, x) {
            m = count[c]
            for (i = 1; i <= m; i++) a[i] = t[c, i]
            for (i = 2; i <= m; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
            return a[int((m + 1) / 2)]
        }
        END {
            off = median("off")
            printf "\n%d processes\n", np
            printf "%-12s %9s %8s %9s %7s %9s %9s %7s %8s %7s %9s\n", "cache", "force s", "speedup",
                   "gets", "hit %", "conflict", "capacity", "resizes", "buffer", "index", "checksum"
            bad = 0
            for (i = 1; i <= k; i++) {
                c = order[i]; split(row[c], f, " ")
                med = median(c)
                same = f[18] == ref || ref == "" ? "same" : "DIFFERS"
                if (ref == "") ref = f[18]
                if (same != "same") bad = 1
                printf "%-12s %9.3f %7.1fx %9d %6.1f%% %9d %9d %3d/%-3d %7.0fK %7d %9s\n", c, med,
                       off / med, f[8], f[11], f[12], f[13], f[14], f[15], f[16] / 1024, f[17], same
                if (csv != "") printf "%d,%s,%.4f,%.2f,%d,%.1f,%d,%d,%d,%d,%d,%d,%s\n", np, c, med,
                       off / med, f[8], f[11], f[12], f[13], f[14], f[15], f[16], f[17], f[18] >> csv
                if (c ~ /:/ && (best == "" || med < best)) { best = med; bestc = c }
                if (c == "adaptive") ad = med
            }
            if (bestc != "" && ad != "")
                printf "best fixed: %s (%.3f s); adaptive / best fixed = %.2f\n", bestc, best,
                       ad / best
            printf "positions %s\n", bad ? "DIFFER" : "identical in every run"
            exit bad
        }' || failed=1
done
exit $failed
