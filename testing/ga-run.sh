#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The LOG_COMPILER of Global Arrays' own make check when ga-check.sh runs it on armci-ofi:
# GA's serial tests (MA's, which start no MPI) alone, under timeout; every other program
# through run-mpi.sh at GA_NP processes (4, GA's NPROCS), so that the launcher settings are
# the suite's own. (GA's own LOG_COMPILER is written for automake's old serial harness.)
prog=$1
shift
case $prog in
*ma/test-coalesce.x | *ma/test-inquire.x | *ma/testf.x)
    exec timeout "${TEST_TIMEOUT:-300}" "$prog" "$@"
    ;;
esac
exec "$(dirname "$0")/run-mpi.sh" "${GA_NP:-4}" "$prog" "$@"
