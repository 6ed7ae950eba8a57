#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Jobs started the way clusters start them: a real Slurm (cluster/slurm.sh: munge, one
# slurmctld, one slurmd per host) on 2 hosts of this machine (cluster/hosts.sh), and every
# run through srun with the MPI plugin of the build's family, PMIx for Open MPI and PMI-2
# for MPICH's: the programs of the API's main parts (the matrix's @api set) at 2 hosts x 2
# processes, Debian's Global Arrays, the demo, the health check, a killed process and an
# ARMCI_Error, the usual full-node job bound one process per core (where the progress
# thread runs and how long it naps, as ARMCI_VERBOSE says), and the site's job script
# (cluster/job.sbatch) through sbatch to its end. Needs root and Debian's slurm-wlm, munge
# and libpmix-dev: without them this fails, in one line (ARMCI_TEST_SLURM=0 skips it).
# Not in sanitizer builds (cluster.sh says why). Run in the CI's Open MPI and MPICH builds.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/cluster/cases.sh"
preamble slurm ARMCI_TEST_SLURM "$@"
case $MPI_FAMILY in
openmpi) plugin=pmix ;;
mpich) plugin=pmi2 ;;
*) skip_all "slurm: the build's MPI family is $MPI_FAMILY; srun's plugins here are for openmpi and mpich" ;;
esac
if ! dir=$(OWNER=$$ "$here/cluster/hosts.sh" up 2 2>&1); then
    report 1 "slurm: bring up 2 hosts on this machine: $dir (ARMCI_TEST_SLURM=0 skips this)"
    finish slurm
    exit 1
fi
trap '"$here/cluster/hosts.sh" down "$dir"' EXIT
trap 'exit 1' HUP INT TERM
if ! why=$("$here/cluster/slurm.sh" up "$dir" 2>&1); then
    report 1 "slurm: start munge, slurmctld and a slurmd per host: $why (ARMCI_TEST_SLURM=0 skips this)"
    finish slurm
    exit 1
fi
export ARMCI_TEST_CLUSTER_DIR="$dir" ARMCI_TEST_LAUNCHER=srun
unset ARMCI_NODE_SIZE
at="srun --mpi=$plugin, 2 hosts x 2"

# Slurm's PMIx fence that collects no data, the last step of Open MPI's MPI_Init, waits for
# every node (the bed's mpi.conf, cluster/slurm.sh): one that did not let a process leave
# MPI_Init and send to a peer still setting up, which crashed there (cluster/fence_probe.c)
if [ "$plugin" = pmix ]; then
    probe=$(mktemp -d)
    # shellcheck disable=SC2046 # pkg-config prints a list of words
    if cc -O2 -o "$probe/fence_probe" "$here/cluster/fence_probe.c" \
        $(pkg-config --cflags --libs pmix) >"$probe/cc.log" 2>&1; then
        one "srun's PMIx fence without data waits for every node, $at" 2 4 \
            '^fence: node 0 waited [0-9.]+ s \(the last node came 0\.5 s late\)$' -- "$probe/fence_probe"
    else
        report 1 "slurm: build cluster/fence_probe.c against libpmix-dev: $(tail -n 3 "$probe/cc.log")"
    fi
    rm -rf "$probe"
fi
one "demo, $at: all bytes correct on 2 nodes" 2 4 \
    "layout: 4 processes on 2 node\(s\), 2 on this node" ARMCI_VERBOSE=1 -- \
    "$top/testing/demo/demo"
for t in $(matrix_set "$here/mpi/matrix" api); do
    one "$t, $at" 2 4 "" -- "$bin/$t"
done
if [ -x "$top/testing/ga/t_ga" ]; then
    one "Global Arrays (Debian's, for $MPI_FAMILY), $at" 2 4 " 0 failed" -- "$top/testing/ga/t_ga"
    one "Global Arrays from Fortran, $at" 2 4 " 0 failed" -- "$top/testing/ga/t_gaf"
else
    skip "Global Arrays, $at" "Debian's Global Arrays for $MPI_FAMILY is not installed"
fi
one "armci-info --check, $at" 2 4 \
    '^2 host\(s\), 0 failed check\(s\), 2 pair\(s\) of hosts tested, 0 failed$' -- \
    "$top/src/tools/armci-info" --check
# The usual full-node job: every core of the node given a process, each bound to its core
# by Slurm (task/affinity), on one host (the hosts share this machine's 2 cores). The
# progress thread then has no CPU of its own: it stays on its process's core, naps a
# millisecond or more between passes, and ARMCI_VERBOSE says so.
one "a full node bound one process per core (--cpu-bind=cores), srun --mpi=$plugin, 1 host x 2: the progress thread's place and naps said" \
    1 2 "progress thread: on, runs on the process's CPUs \([0-9]+\): every CPU has a process bound to it; naps [0-9]{4,} us when idle \(no CPU of its own" \
    ARMCI_VERBOSE=1 ARMCI_SHM=0 SRUN_ARGS=--cpu-bind=cores -- "$top/testing/demo/demo"

# a process killed, and one that calls ARMCI_Error: srun ends the step once a survivor
# has named the loss (cases.sh; the limits are cluster.sh's)
fault "kill the last rank (h2, with rank 2), $at" 2 4 kill 15 h2 "0 1 2" "0 1 2"
fault "the last rank calls ARMCI_Error, $at" 2 4 error 15 h2 "0 1 2" "0 1 2" T_DEAD_ERROR=1

# The site's job script, as docs/cluster.md shows it, through sbatch to its end: the
# health check between the job's nodes, then the demo.
out=$(mktemp -d)
chmod 755 "$out"
t0=$(date +%s)
PATH="$top/src/tools:$PATH" SRUN_MPI=$plugin FI_TCP_IFACE=eth0 FI_SOCKETS_IFACE=eth0 \
    "$here/cluster/slurm.sh" run "$dir" timeout -k 5 180 \
    sbatch --wait --output="$out/job-%j.out" "$here/cluster/job.sbatch" \
    "$top/testing/demo/demo" </dev/null >"$out/sbatch.log" 2>&1
rc=$?
cat "$out"/job-*.out >>"$out/sbatch.log" 2>/dev/null
why=
[ $rc = 0 ] || why="sbatch --wait exit $rc; "
grep -q '^2 host(s), 0 failed check(s), 2 pair(s) of hosts tested, 0 failed$' "$out/sbatch.log" ||
    why="${why}no passing health check in the job's output; "
grep -q 'all bytes correct' "$out/sbatch.log" || why="${why}the demo did not pass"
result "${why:-ok}" "sbatch cluster/job.sbatch, --mpi=$plugin, 2 nodes: health check, then the demo ($(($(date +%s) - t0)) s)" "$out/sbatch.log"
rm -rf "$out"
finish slurm
