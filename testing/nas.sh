#!/bin/sh
# NAS MG and CG, class S, on every communication variant at 1, 2 and 4 processes with
# shared memory on, and at 2 and 4 with it off (everything over libfabric's tcp provider).
# A run passes when it exits 0 and prints NPB's "Verification = SUCCESSFUL" line, which it
# does only when the result matches NPB's official value. Misuse (a process count that is
# not a power of two, an unknown class) must be refused with a message.
here=$(cd "$(dirname "$0")" && pwd)
bin=${top_builddir:-.}/nas_kernels
run="$here/run-mpi.sh"
. "$here/report.sh"

verify() { # verify NAME NPROCS ENV... -- KERNEL ARGS...
    name=$1
    np=$2
    shift 2
    log=$(mktemp)
    ok=1
    if env "$@" >"$log" 2>&1 && grep -Eq '^ Verification += +SUCCESSFUL$' "$log" &&
        grep -Eq '^ Class += +S$' "$log"; then
        ok=0
    fi
    report $ok "$name" "$log"
    rm -f "$log"
}

refuse() { # refuse NAME PATTERN NPROCS KERNEL ARGS...
    name=$1
    pattern=$2
    np=$3
    shift 3
    log=$(mktemp)
    ok=1
    if ! "$run" "$np" "$@" >"$log" 2>&1 && grep -q "$pattern" "$log"; then
        ok=0
    fi
    report $ok "$name" "$log"
    rm -f "$log"
}

for k in mg cg; do
    for v in mpi armci armci-nb; do
        for np in 1 2 4; do
            verify "$k class S $v np=$np shm" $np ARMCI_SHM=1 "$run" $np "$bin/$k" --class S --variant $v
        done
        for np in 2 4; do
            verify "$k class S $v np=$np fabric tcp" $np ARMCI_SHM=0 FI_PROVIDER=tcp \
                OMPI_MCA_btl=self,tcp "$run" $np "$bin/$k" --class S --variant $v
        done
        [ "$v" = mpi ] || verify "$k class S $v np=4, two nodes of 2" 4 ARMCI_NODE_SIZE=2 \
            FI_PROVIDER=tcp "$run" 4 "$bin/$k" --class S --variant $v
    done
    refuse "$k refuses 3 processes" "power of two" 3 "$bin/$k" --class S
    refuse "$k refuses class Q" "bad argument '--class Q'" 1 "$bin/$k" --class Q
done
finish nas
