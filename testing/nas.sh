#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# NAS MG and CG, class S, on every communication variant at 1, 2 and 4 processes with
# shared memory on, and at 2 and 4 with it off (everything over libfabric's tcp provider).
# A run passes when it exits 0 and prints NPB's "Verification = SUCCESSFUL" line, which it
# does only when the result matches NPB's official value. Misuse (a process count that is
# not a power of two, an unknown class) must be refused with a message.
here=$(cd "$(dirname "$0")" && pwd)
bin=${top_builddir:-.}/nas_kernels
run="$here/run-mpi.sh"
NO_LEAK_CHECK=1 # its programs let Open MPI unload its components (report.sh)
. "$here/report.sh"

# NPB 3.3's own verification values for class S and its tolerances (CG: zeta, relative
# 1e-10; MG: the L2 norm of the residual, 1e-8), here and not only in the kernels: the
# printed result is held to them by this script, so a kernel that checked itself against
# a wrong table would not pass.
npb_agrees() { # npb_agrees LOG
    awk '/^ Zeta is/ { v = $3; ref = 8.5971775078648; eps = 1e-10 }
         /^ L2 Norm is/ { v = $4; ref = 0.5307707005734e-04; eps = 1e-8 }
         END { if (ref == "") exit 1; d = (v - ref) / ref; if (d < 0) d = -d; exit !(d <= eps) }' "$1"
}

verify() { # verify NAME NPROCS ENV... COMMAND...: NPB's verification, then ours
    name=$1
    shift 2
    run_case "$name" --want '^ Verification += +SUCCESSFUL$' --want '^ Class += +S$' \
        --then 'npb_agrees "$log"' -- env "$@"
}

refuse() { # refuse NAME PATTERN NPROCS KERNEL ARGS...
    name=$1
    pattern=$2
    np=$3
    shift 3
    run_case "$name" --fails --want "$pattern" -- "$run" "$np" "$@"
}

# exact NAME NPROCS LINE KERNEL ARGS...: the run prints LINE, to the last digit.
exact() {
    name=$1
    np=$2
    line=$3
    shift 3
    run_case "$name" --then 'grep -Fqx -- "$line" "$log"' -- "$run" "$np" "$@" --class S --verbose
}

# Each grid value of MG and each row sum of CG is computed in NPB's order, so how the
# kernels are built (vectorised, in the AVX2 or the SSE2 version, CG's 16-bit columns) must
# not move a bit of the result. The lines are what the plain scalar build printed for the
# last iteration of class S (rnm2 in hex): a regression check of this project's own, not
# an oracle (that is NPB's values, npb_agrees above, which every run below meets); between
# process counts only the reductions' order differs. At 2 processes the ARMCI variants must give the bits of the MPI variant,
# which moves its data without ARMCI (CG's nonblocking variant sums ||r|| in another order
# and is left to NPB's verification below).
exact "mg class S np=1: the scalar build's rnm2, bit for bit" 1 \
    "  iter    4  rnm2  5.3077070057349E-05 (0x1.bd3e23d9218d7p-15)  rnmu  1.1217668764696E-03" \
    "$bin/mg" --variant armci
for v in mpi armci armci-nb; do
    exact "mg class S np=2 $v: the scalar build's rnm2, bit for bit" 2 \
        "  iter    4  rnm2  5.3077070057349E-05 (0x1.bd3e23d9218dp-15)  rnmu  1.1217668764696E-03" \
        "$bin/mg" --variant $v
done
exact "cg class S np=1: the scalar build's last ||r|| and zeta" 1 \
    "       15       1.81459990880741E-15     8.5971775078648" "$bin/cg" --variant armci-nb
for v in mpi armci; do
    exact "cg class S np=2 $v: the scalar build's last ||r|| and zeta" 2 \
        "       15       1.81843735859762E-15     8.5971775078648" "$bin/cg" --variant $v
done

for k in mg cg; do
    for v in mpi armci armci-nb; do
        for np in 1 2 4; do
            verify "$k class S $v np=$np shm" $np ARMCI_SHM=1 "$run" $np "$bin/$k" --class S --variant $v
        done
        for np in 2 4; do
            verify "$k class S $v np=$np fabric tcp" $np ARMCI_SHM=0 FI_PROVIDER=tcp \
                MPI_NET=tcp "$run" $np "$bin/$k" --class S --variant $v
        done
        [ "$v" = mpi ] || verify "$k class S $v np=4, two nodes of 2" 4 ARMCI_NODE_SIZE=2 \
            FI_PROVIDER=tcp "$run" 4 "$bin/$k" --class S --variant $v
    done
    refuse "$k refuses 3 processes" "power of two" 3 "$bin/$k" --class S
    refuse "$k refuses class Q" "bad argument '--class Q'" 1 "$bin/$k" --class Q
done
finish nas
