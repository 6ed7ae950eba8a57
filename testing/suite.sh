#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The MPI test programs under every configuration that takes a different path through
# the runtime: shared memory on; shared memory off over libfabric's tcp, shm and
# sockets providers; several nodes (ARMCI_NODE_SIZE: shared memory within, libfabric
# between); the buffered protocol; software and native accumulates; the get cache.
# The runs are listed in testing/mpi/matrix. Prints one TAP line per run (report.sh),
# after two for the programs themselves (each built, each run); exits non-zero if any
# failed.
here=$(cd "$(dirname "$0")" && pwd)
bin=${top_builddir:-.}/testing/mpi
run="$here/run-mpi.sh"
. "$here/report.sh"
# (In the sanitizer build every program here is also checked for leaks: report.sh.)
san=$asan_build

one() { # one NAME NPROCS ENV...: runs $prog (run_case: report.sh's pass rule)
    name=$1
    np=$2
    shift 2
    run_case "$name" -- env "$@" "$run" "$np" $prog
}

# The runs are data: testing/mpi/matrix, one line per setting (its head says how to read
# it; matrix.sh writes its sets out). SUITE_TAG=WORD runs only the lines tagged WORD (the
# CI's part under a second MPI family: every-mpi); SUITE_PROGS=t_a,t_b only those
# programs, under every line that runs them (for a change that concerns a few).
matrix=$here/mpi/matrix
default_ifs=$IFS
only=${SUITE_TAG:-}
progs_only=${SUITE_PROGS:-}

# Makefile.am builds every testing/mpi/t_*.c, and the matrix says how each runs; nothing
# else lists them. So: every program there is built; each runs, by a line of the matrix or
# by a script here that names it (errors.sh, dead.sh, stats.sh); and every program the
# matrix names has its source.
. "$here/matrix.sh"
named=$(matrix_programs "$matrix")
unbuilt=$(mktemp)
unrun=$(mktemp)
for src in "$here"/mpi/t_*.c; do
    t=$(basename "$src" .c)
    [ -x "$bin/$t" ] || echo "$bin/$t is not built (from testing/mpi/$t.c)" >>"$unbuilt"
    echo "$named" | grep -qx "$t" ||
        grep -Eq "testing/mpi/$t([^a-z0-9_]|\$)" "$here"/*.sh ||
        echo "testing/mpi/$t.c: no line of testing/mpi/matrix runs it, nor a script" >>"$unrun"
done
for t in $named; do
    [ -f "$here/mpi/$t.c" ] ||
        echo "testing/mpi/matrix runs $t, which has no source testing/mpi/$t.c" >>"$unrun"
done
for s in $(matrix_set_names "$matrix"); do # the sets other scripts run, too
    for t in $(matrix_set "$matrix" "$s"); do
        [ -f "$here/mpi/$t.c" ] ||
            echo "testing/mpi/matrix's set @$s names $t, which has no source testing/mpi/$t.c" >>"$unrun"
    done
done
[ -s "$unbuilt" ] && status=1 || status=0
report $status "every testing/mpi/t_*.c is built" "$unbuilt"
[ -s "$unrun" ] && status=1 || status=0
report $status "every testing/mpi/t_*.c runs, and every program of the matrix and its sets has its source" "$unrun"
rm -f "$unbuilt" "$unrun"

lines=$(mktemp)
if ! matrix_lines "$matrix" >"$lines" 2>"$lines.err"; then
    report 1 "testing/mpi/matrix reads" "$lines.err"
    rm -f "$lines" "$lines.err"
    finish suite
    exit 1
fi
rm -f "$lines.err"
while IFS='|' read progs nprocs label envs tags; do
    label=$(echo $label)
    [ "$san" = 1 ] && matrix_has_tag "$tags" plain && continue
    [ -n "$only" ] && ! matrix_has_tag "$tags" "$only" && continue
    IFS=,
    for p in $progs; do # (the list is split once, here)
        IFS=$default_ifs
        p=$(echo $p) # the program and its arguments
        [ -n "$progs_only" ] && ! echo ",$progs_only," | grep -q ",${p%% *}," && continue
        for np in $(echo "$nprocs" | tr ',' ' '); do
            prog="$bin/$p"
            one "${p%% *} np=$np $label" "$np" $envs
        done
    done
    IFS=$default_ifs
done <"$lines"
rm -f "$lines"
finish suite
