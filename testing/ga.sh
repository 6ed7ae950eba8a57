#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Global Arrays (Debian's prebuilt libga-openmpi) on our libarmci: the link must take
# armci-ofi and nothing of ARMCI-MPI, and the GA test programs (C, and Fortran as NWChem
# calls GA) must pass with shared memory on and off and over several providers.
here=$(cd "$(dirname "$0")" && pwd)
run="$here/run-mpi.sh"
NO_LEAK_CHECK=1 # its programs let Open MPI unload its components (report.sh)
. "$here/report.sh"
# configure builds the GA programs only where it found Debian's GA for this MPI family
[ -x "${top_builddir:-.}/testing/ga/t_ga" ] ||
    skip_all "ga: Global Arrays is not installed (apt-get install libglobalarrays-dev libscalapack-openmpi-dev or -mpich-dev, gfortran; then configure again)"

# ARMCI-MPI's library is static: had the link taken it, its internal ARMCII_ symbols
# would be in the program and no libarmci.so in its dependencies.
linked() { # linked PROGRAM
    real=$(dirname "$1")/.libs/$(basename "$1")
    [ -x "$real" ] || real=$1
    if nm "$real" 2>/dev/null | grep -q ' ARMCII_'; then
        result "ARMCI-MPI code is linked in" "ga/link of $(basename "$1") takes armci-ofi"
    elif ! ldd "$real" | grep -q 'libarmci.so'; then
        result "libarmci.so is not a dependency" "ga/link of $(basename "$1") takes armci-ofi"
    else
        result ok "ga/link of $(basename "$1") takes armci-ofi"
    fi
}
bin=${top_builddir:-.}/testing/ga/t_ga
linked "$bin"
linked "${top_builddir:-.}/testing/ga/t_gaf"

one() { # one NAME NPROCS ENV...
    name=$1
    np=$2
    shift 2
    run_case "$name" --want " 0 failed" -- env "$@" "$run" "$np" "$bin"
}
one "ga np=4 shm" 4 ARMCI_SHM=1
one "ga np=3 shm" 3 ARMCI_SHM=1
one "ga np=4 fabric tcp" 4 ARMCI_SHM=0 FI_PROVIDER=tcp
# NGA_NbTest must say "not yet" while 6 MiB are in flight (t_ga.c, T_INFLIGHT)
one "ga np=4 fabric tcp, NbTest in flight" 4 ARMCI_SHM=0 FI_PROVIDER=tcp T_INFLIGHT=1
one "ga np=2 fabric shm-provider" 2 ARMCI_SHM=0 FI_PROVIDER=shm
one "ga np=3 fabric sockets" 3 ARMCI_SHM=0 FI_PROVIDER=sockets
one "ga np=3 fabric tcp, native atomics" 3 ARMCI_SHM=0 FI_PROVIDER=tcp ARMCI_ACC_NATIVE=1
# registration as verbs, efa and cxi require it (ARMCI_MR_MODE=strict; shm: by virtual address)
one "ga np=4 fabric tcp, strict registration" 4 ARMCI_SHM=0 FI_PROVIDER=tcp ARMCI_MR_MODE=strict
one "ga np=2 fabric shm-provider, strict registration" 2 ARMCI_SHM=0 FI_PROVIDER=shm ARMCI_MR_MODE=strict
# MPI on the fabric beside us (Open MPI's ofi MTL; under MPICH, UCX as always)
one "ga np=4 fabric tcp, MPI on the fabric" 4 ARMCI_SHM=0 FI_PROVIDER=tcp MPI_NET=fabric
one "ga np=4 shm, MPI on the fabric" 4 ARMCI_SHM=1 MPI_NET=fabric
one "ga np=4 shm, one domain per process" 4 ARMCI_SHM=1 ARMCI_DOMAIN_NODE=0
one "ga np=4, two nodes of 2 (shared memory within, tcp between)" 4 ARMCI_NODE_SIZE=2 FI_PROVIDER=tcp
one "ga np=3, nodes of 2 and 1" 3 ARMCI_NODE_SIZE=2 FI_PROVIDER=tcp
# GA from Fortran (t_gaf.F), as NWChem calls it: operators that end in no NUL
bin=${top_builddir:-.}/testing/ga/t_gaf
one "gaf np=2 shm" 2 ARMCI_SHM=1
one "gaf np=4 shm" 4 ARMCI_SHM=1
one "gaf np=3 fabric tcp" 3 ARMCI_SHM=0 FI_PROVIDER=tcp
one "gaf np=3 fabric tcp, strict registration" 3 ARMCI_SHM=0 FI_PROVIDER=tcp ARMCI_MR_MODE=strict
one "gaf np=4, two nodes of 2" 4 ARMCI_NODE_SIZE=2 FI_PROVIDER=tcp
finish ga
