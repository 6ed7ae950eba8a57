# SPDX-License-Identifier: BSD-3-Clause
# What the runs across hosts share (sourced by cluster.sh and slurm.sh, POSIX sh, with
# $here their folder, testing/): the scripts they read, the paths of the build, the start
# every such script makes, a program that must succeed, and a fault that the survivors
# must notice. They report through report.sh; $dir is the cluster (hosts.sh).
top=${top_builddir:-.}
bin=$top/testing/mpi
run="$here/run-mpi.sh"
. "$here/report.sh"
. "$here/matrix.sh"
. "$here/launcher.sh" # MPI_FAMILY

# preamble NAME SKIP_VARIABLE ARGS...: ends the script as skipped where SKIP_VARIABLE=0 or
# in a sanitizer build (the fabric paths it takes are the ones the sanitizer build checks
# on one host), and runs it again through sudo where that needs no password (quickstart.sh
# check run by a user), since hosts need root
preamble() {
    name=$1 var=$2
    shift 2
    eval "[ \"\${$var:-1}\" != 0 ]" || skip_all "$name: $var=0"
    ! grep -q '^SAN_CFLAGS = .*-fsanitize' "$top/Makefile" 2>/dev/null ||
        skip_all "$name: not in a sanitizer build"
    if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
        exec sudo -n -E env PATH="$PATH" top_builddir="$top" "$0" "$@"
    fi
}

# case_done: what a run left on the hosts is ended; under Slurm, its job too (a killed srun
# leaves its allocation behind), and the nodes are idle again for the next case
case_done() {
    [ "${ARMCI_TEST_LAUNCHER:-}" != srun ] || "$here/cluster/slurm.sh" idle "$dir" >&2 ||
        echo "# cases.sh: the Slurm nodes did not come back to idle" >&2
    "$here/cluster/hosts.sh" sweep "$dir"
}

one() { # one NAME HOSTS NPROCS PATTERN ENV... -- PROGRAM ARGS...: must succeed and print PATTERN
    name=$1 hosts=$2 np=$3 pattern=$4
    shift 4
    envs=
    while [ "$1" != -- ]; do
        envs="$envs $1"
        shift
    done
    shift
    log=$(mktemp)
    t0=$(date +%s)
    env ARMCI_TEST_HOSTS="$hosts" $envs "$run" "$np" "$@" </dev/null >"$log" 2>&1
    rc=$?
    # report.sh's verdict, the time taken in the name
    if [ -n "$pattern" ]; then
        why=$(verdict "$log" $rc --want "$pattern")
    else
        why=$(verdict "$log" $rc)
    fi
    result "$why" "$name ($(($(date +%s) - t0)) s)" "$log"
    rm -f "$log"
    case_done
}

# Faults across hosts (MPI_KEEP_GOING, so that only we end the survivors): the
# last rank's memory is read by every other process, the same-host ones through the node
# heap, until something outside hits it. Every survivor must end within LIMIT seconds of
# the fault with a message naming a lost rank of the stricken host, and that host.
# (The launcher itself does not always end once they have: the job's own processes, and
# only they, are stopped here.)
alive() {
    [ -r "/proc/$1/stat" ] && [ "$(sed 's/^.*) \(.\).*$/\1/' "/proc/$1/stat" 2>/dev/null)" != Z ]
}
below() { # below PID: every process descended from PID, listed before any is ended
    for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do
        echo "$c"
        below "$c"
    done
}

fault() { # fault NAME HOSTS NPROCS ACTION LIMIT LOST_HOST NAMING ENDING ENV...
    # NAMING: the ranks that must name the lost process (their output reaches us);
    # ENDING: all that must end (on a host cut off, they cannot tell us what they said)
    name=$1 hosts=$2 np=$3 action=$4 limit=$5 lost_host=$6 survivors=$7 ending=$8
    shift 8
    log=$(mktemp)
    pid_of() { sed -n "s/^t_dead: rank $1: running (read), process \([0-9]*\)$/\1/p" "$log"; }
    end_job() { # the job's processes, stopped ones too, and its launcher
        for r in $(seq 0 $((np - 1))); do kill -9 "$(pid_of $r)" 2>/dev/null; done
        kill -9 $(below $job) $job 2>/dev/null
        wait $job 2>/dev/null
    }
    # The fault needs a running job. A launch whose MPI did not start (Open MPI's TCP
    # connect between hosts can fail under load, "Operation now in progress") is ended and
    # launched once more, and the case's name says so: the fault is still judged in full.
    relaunch=
    for launch in 1 2; do
        env ARMCI_TEST_HOSTS="$hosts" T_DEAD_EXTERNAL=1 TEST_TIMEOUT=100 MPI_KEEP_GOING=1 "$@" \
            "$run" "$np" "$bin/t_dead" read >"$log" 2>&1 &
        job=$!
        for i in $(seq 300); do
            [ "$(grep -c ': running (read), process ' "$log")" -ge "$np" ] && break
            alive $job || break
            sleep 0.1
        done
        [ "$(grep -c ': running (read), process ' "$log")" -lt "$np" ] || break
        [ $launch = 1 ] || break
        first=$(grep -m1 -E 'Error:|error|failed' "$log" | sed 's/^[ #]*//' | tr -s ' ' | cut -c1-120)
        relaunch=" [launched twice: the first did not start${first:+: $first}]"
        end_job
        case_done
    done
    why=
    victim=$(pid_of $((np - 1)))
    [ -n "$victim" ] || why="the job did not start"
    # the fault comes once every survivor has completed a read of the victim's memory
    for i in $(seq 300); do
        [ "$(grep -c ': reading$' "$log")" -ge $((np - 1)) ] && break
        sleep 0.1
    done
    [ "$(grep -c ': reading$' "$log")" -ge $((np - 1)) ] || why="${why:-the reads did not start}"
    t0=$(date +%s.%N)
    case $action in
    kill) [ -z "$victim" ] || kill -9 "$victim" ;;
    linkdown) ip -n "acl-$(basename "$dir")-head" link set "v$hosts" down ;;
    stop) for r in $(seq $((np - np / hosts)) $((np - 1))); do kill -STOP "$(pid_of $r)"; done ;;
    error) ;; # the last rank calls ARMCI_Error itself (T_DEAD_ERROR=1)
    esac
    pids=
    for r in $ending; do pids="$pids $(pid_of $r)"; done
    left=$pids
    while [ -n "$left" ] && [ "$(echo "$(date +%s.%N) - $t0 < 60" | bc)" = 1 ]; do
        still=
        for p in $left; do alive "$p" && still="$still $p"; done
        left=$still
        [ -z "$left" ] || sleep 0.1
    done
    took=$(echo "$(date +%s.%N) - $t0" | bc)
    [ -z "$left" ] || why="survivors$left still running after 60 s"
    [ "$(echo "$took <= $limit" | bc)" = 1 ] || why="${why:-took ${took} s, over ${limit} s}"
    names_lost() { # names_lost RANK: its message names a process of the stricken host
        grep -Eq "^armci: rank $1: .*rank [0-9]+ \(process [0-9]+ on [^)]*-$lost_host[,)].*(has died|has not been heard from|ended the job with an error)" "$log"
    }
    # Under hydra and srun the first survivor that ends through ARMCI_Error (MPI_Abort)
    # has the launcher end the others at once, before they notice for themselves: there
    # the job must end, and one survivor name the loss (launcher.sh)
    if [ "$MPI_FAMILY" = mpich ] || [ "${ARMCI_TEST_LAUNCHER:-}" = srun ]; then
        one_named=
        for r in $survivors; do names_lost "$r" && one_named=$r; done
        # a rank that calls ARMCI_Error ends the job itself there: its own word is the news
        [ "$action" = error ] && grep -q "^armci: rank $((np - 1)): t_dead: ending the job on purpose" "$log" &&
            one_named=$((np - 1))
        [ -n "$one_named" ] || why="${why:-no survivor named a lost process of $lost_host}"
        survivors=
    fi
    for r in $survivors; do
        names_lost "$r" && continue
        # A cascade: the survivor saw first another survivor end, one that itself named
        # the stricken host (4 hosts x 1: rank 0 may notice rank 1, gone over rank 3,
        # before rank 3). The first survivor then names the root cause; this one names
        # its messenger, whose own message says why.
        k=$(sed -n "s/^armci: rank $r: .*rank \([0-9]*\) (process [0-9]* on [^)]*) has died.*/\1/p" "$log" | head -1)
        [ -n "$k" ] && [ "$k" != "$r" ] && names_lost "$k" && continue
        why="${why:-rank $r did not name a lost process of $lost_host}"
    done
    ! grep -q "no error" "$log" || why="${why:-a survivor reported success}"
    # what is left: the launcher, stopped processes, the link
    end_job
    [ "$action" != linkdown ] || ip -n "acl-$(basename "$dir")-head" link set "v$hosts" up
    case_done
    echo "fault: $action, survivors ended $(printf %.1f "$took") s after it" >>"$log"
    report "$([ -z "$why" ] && echo 0 || echo 1)" "$name: ended in $(printf %.1f "$took") s${why:+ ($why)}$relaunch" "$log"
    [ -z "${KEEP_FAULT_LOGS:-}" ] || cp "$log" "$KEEP_FAULT_LOGS.$action"
    rm -f "$log"
}
