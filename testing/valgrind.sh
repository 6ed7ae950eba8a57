#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Valgrind memcheck over the matrix's set @valgrind (contiguous, strided, get-cache and
# collective tests; testing/mpi/matrix) at 2 processes, with node shared memory and over libfabric's tcp provider; any error fails
# (suppressions, each explained, only for MPI's process-manager library:
# testing/valgrind.supp). Part of `make check` in builds without sanitizers; `make
# valgrind` runs it alone.
here=$(cd "$(dirname "$0")" && pwd)
build=${top_builddir:-.}
run="$here/run-mpi.sh"
. "$here/report.sh"
command -v valgrind >/dev/null || skip_all "valgrind: not installed (apt-get install -y valgrind)"
grep -q '^SAN_CFLAGS = .*-fsanitize' "$build/Makefile" 2>/dev/null &&
    skip_all "valgrind: not in a sanitizer build (the two do not mix)"
. "$here/launcher.sh" # MPI_FAMILY
ompi_supp=
[ "$MPI_FAMILY" != openmpi ] || ompi_supp=--suppressions=/usr/share/openmpi/openmpi-valgrind.supp
# UCX (MPICH's transport in Debian) asks for huge pages for its shared memory, and valgrind
# says once per process that it ignores the flag: a note on valgrind itself, not an error.
benign='WARNING: valgrind ignores shmget(shmflg) SHM_HUGETLB$'
. "$here/matrix.sh"
for t in $(matrix_set "$here/mpi/matrix" valgrind); do
    for cfg in "ARMCI_SHM=1" "ARMCI_SHM=0 FI_PROVIDER=tcp"; do
        # a small heap: valgrind tracks every page of the address space it is given; any
        # line of valgrind's but the benign one fails the case (run_case: report.sh)
        run_case "valgrind $t $cfg" \
            --then '! grep "^==[0-9]*== " "$log" | grep -vq "$benign"' -- \
            env $cfg ARMCI_SHM_HEAP_SIZE=1G TEST_TIMEOUT=600 "$run" 2 "$build/libtool" \
            --mode=execute valgrind -q --error-exitcode=9 $ompi_supp \
            --suppressions="$here/valgrind.supp" "$build/testing/mpi/$t"
    done
done
finish valgrind
