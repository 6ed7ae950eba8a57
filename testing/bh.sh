#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Barnes-Hut (testing/apps/barnes_hut.c) on the get cache. Its forces must equal a direct
# O(N^2) sum: to rounding with theta 0 (every cell opened), within the monopole error with
# theta 0.5 (RMS 4.4e-3 at 2000 bodies). Over libfabric, where gets are cached, every cache
# configuration must give the final positions and accelerations of the run with the cache
# off, bit for bit:
# a small fixed cache that evicts, the adaptive scheme, and ARMCI-MPI; and the
# walk with its gets issued ahead by ARMCI_NbGet must give those of blocking gets.
here=$(cd "$(dirname "$0")" && pwd)
bh=${top_builddir:-.}/testing/apps/barnes_hut
bh_mpi=${top_builddir:-.}/testing/apps/barnes_hut_mpi
run="$here/run-mpi.sh"
. "$here/report.sh"
# The sanitizer build checks the code of every path once: 2 processes only.
nps="2 4"
grep -q '^SAN_CFLAGS = .*-fsanitize=address' "${top_builddir:-.}/Makefile" 2>/dev/null && nps=2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# case NAME NPROCS ENV... -- ARGS...: the run exits 0; its output is kept in $tmp/NAME
case_run() {
    name=$1
    np=$2
    shift 2
    log="$tmp/$(echo "$name" | tr -c 'a-zA-Z0-9\n' _)"
    envs=
    while [ "$1" != -- ]; do
        envs="$envs $1"
        shift
    done
    shift
    env $envs "$run" "$np" "$bh" "$@" >"$log" 2>&1
}

field() { # field LOG KEY: the value of KEY= on the result line
    sed -n "s/^barnes_hut label=.* $2=\([^ ]*\).*/\1/p" "$1"
}

check() { # check NAME NPROCS THETA TOL CACHE ENV...: the forces against the direct sum
    name=$1
    np=$2
    theta=$3
    tol=$4
    cache=$5
    shift 5
    case_run "$name" "$np" "$@" -- --bodies 600 --steps 1 --theta "$theta" --check "$tol" \
        --cache "$cache"
    st=$?
    grep -q "^barnes_hut check theta=$theta .* ok$" "$log" && [ $st = 0 ] &&
        { [ "$cache" = off ] || [ "$(field "$log" hits)" -gt 0 ]; }
    report $? "$name" "$log"
}

check "theta 0 equals the direct sum (shm, 2 processes)" 2 0 1e-12 off
check "theta 0.5 is within its monopole error (shm, 3 processes)" 3 0.5 1e-2 off
check "theta 0 through a small cache that evicts (tcp)" 2 0 1e-12 64:8K ARMCI_SHM=0 FI_PROVIDER=tcp

# The same run under every cache configuration, over tcp with shared memory off.
for np in $nps; do
    args="--bodies 400 --steps 2"
    case_run "off np=$np" $np ARMCI_SHM=0 FI_PROVIDER=tcp -- $args --cache off
    st=$?
    ref=$(field "$log" checksum)/$(field "$log" acc_checksum)
    [ $np = 2 ] && ref2=$ref
    [ $st = 0 ] && [ "$ref" != / ]
    report $? "cache off np=$np runs" "$log"
    configs="64:8K adaptive off+nb 64:8K+nb"
    [ $np = 2 ] || configs="64:8K adaptive+nb"
    for c in $configs; do
        # CACHE+nb: the walk issues its gets ahead with ARMCI_NbGet (--gets nb)
        gets=blocking
        case $c in *+nb) gets=nb ;; esac
        case_run "$c np=$np" $np ARMCI_SHM=0 FI_PROVIDER=tcp -- $args --cache ${c%+nb} --gets $gets
        st=$?
        sum=$(field "$log" checksum)/$(field "$log" acc_checksum)
        hits=$(field "$log" hits)
        ok=1
        if [ $st = 0 ] && [ "$ref" != / ] && [ "$sum" = "$ref" ] &&
            { [ "${hits:-0}" -gt 0 ] || [ "${c%+nb}" = off ]; }; then
            ok=0
        fi
        # the small cache must actually evict, or it tests nothing more than the large one
        cap=$(field "$log" capacity)
        if [ "${c%+nb}" = 64:8K ] && ! [ "${cap:-0}" -gt 0 ] 2>/dev/null; then
            ok=1 # (a run that printed no capacity field fails too)
        fi
        what="hits, and the positions and forces of the run without cache"
        [ "${c%+nb}" = off ] && what="the positions and forces of blocking gets"
        report $ok "cache $c np=$np: $what" "$log"
    done
done

. "$here/launcher.sh" # MPI_FAMILY
if [ "$MPI_FAMILY" = mpich ]; then
    # docs/conformance.md: ARMCI-MPI on Debian's MPICH gives wrong data (its one-sided
    # over UCX), here too in 1 run of about 10; an oracle that is sometimes wrong is none
    skip "ARMCI-MPI build: the same positions and forces as ours" \
        "ARMCI-MPI on MPICH's one-sided is not a reliable reference (docs/conformance.md)"
elif [ -x "$bh_mpi" ] && [ -n "${ref2:-}" ]; then
    log="$tmp/armci_mpi"
    MPI_ONESIDED=messages "$run" 2 "$bh_mpi" --bodies 400 --steps 2 >"$log" 2>&1
    st=$?
    [ $st = 0 ] && [ "$(field "$log" checksum)/$(field "$log" acc_checksum)" = "$ref2" ]
    report $? "ARMCI-MPI build: the same positions and forces as ours" "$log"
else
    skip "ARMCI-MPI build: the same positions and forces as ours" \
        "ARMCI-MPI (libarmci-mpi-dev) not installed, or no 2-process run above"
fi

# misuse is refused with a message
for bad in "--cache bogus:cache takes off, adaptive" "--bodies 0:--bodies takes a positive" \
    "--theta:without its value" "--gets sideways:--gets takes blocking or nb"; do
    args=${bad%%:*}
    want=${bad#*:}
    log="$tmp/bad"
    ! "$run" 1 "$bh" $args >"$log" 2>&1 && grep -q -- "$want" "$log"
    report $? "barnes_hut refuses '$args'" "$log"
done
finish bh
