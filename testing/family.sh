#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A program built for one MPI family that loads this library built for the other (the same
# soname, libarmci.so.0, first in the library path) must stop at ARMCI_Init with a message
# that names both families and what to do: before, it died inside MPI_Comm_dup ("Invalid
# communicator") with no word from us (issue 61). testing/pkg/ring.c, built with the other
# family's mpicc against this build's library and run as a single process (MPI's singleton
# start, no launcher), is the program; built with this family's mpicc it runs (the control).
here=$(cd "$(dirname "$0")" && pwd)
top=${top_srcdir:-$here/..}
b=$(cd "${top_builddir:-.}" && pwd)
NO_LEAK_CHECK=1 # the mismatched program ends by _exit, and MPI's singletons keep theirs
. "$here/report.sh"
lib=$b/.libs/libarmci.so
[ -f "$lib" ] || { report 1 "family: $lib is not built"; finish family; exit 1; }
case $(ldd "$lib") in
*libmpi.so.40*) this="Open MPI" other="MPICH" this_cc=mpicc.openmpi other_cc=mpicc.mpich ;;
*libmpich.so*) this="MPICH" other="Open MPI" this_cc=mpicc.mpich other_cc=mpicc.openmpi ;;
*)
    report 1 "family: cannot tell which MPI $lib links"
    finish family
    exit 1
    ;;
esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# a sanitizer build's library wants its runtime in the program too
san=$(sed -n 's/^SAN_CFLAGS = //p' "$b/Makefile" 2>/dev/null)
flags="$san -I$top/include -I$b/include -L$b/.libs -Wl,-rpath,$b/.libs -larmci"
# (OMPI_ALLOW_RUN_AS_ROOT: an Open MPI singleton as root, as the launcher settings allow)
run_env="env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader,tcp"
if "$this_cc" "$top/testing/pkg/ring.c" -o "$work/same" $flags >"$work/cc.log" 2>&1; then
    run_case "family/$this program, $this library: runs" --want "rank 0: got 1000, right" -- \
        $run_env timeout 60 "$work/same"
else
    report 1 "family/$this program, $this library: $this_cc builds it" "$work/cc.log"
fi
if ! command -v "$other_cc" >/dev/null; then
    skip "family/$other program, $this library" "$other's compiler $other_cc is not installed"
elif "$other_cc" "$top/testing/pkg/ring.c" -o "$work/other" $flags >"$work/cc.log" 2>&1; then
    run_case "family/$other program, $this library: stops at ARMCI_Init, naming both" --fails \
        --text "armci: ARMCI_Init: this libarmci ($b/.libs/libarmci.so" \
        --text "was built for $this, but the program runs on another MPI (\"" \
        --text "Put the armci-ofi build for $other first in the library path" \
        -- $run_env timeout 60 "$work/other"
else
    report 1 "family/$other program, $this library: $other_cc builds it" "$work/cc.log"
fi
finish family
