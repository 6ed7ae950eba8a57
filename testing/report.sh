# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the test scripts: one TAP line per case, which automake's tap-driver.sh turns
# into a PASS:/FAIL: line of `make check` naming the case, and the plan at the end. A
# failure's diagnostics follow it as TAP comments: the program's own error lines, then the
# end of its output.
ntests=0
pass=0
fail=0

# In the AddressSanitizer build every program a case runs is checked for leaks at its
# exit, and verdict (below) fails a leak made through our code: one whose allocation stack
# holds a frame of the runtime (src/, armci/) or was allocated by the test program itself.
# A leak made wholly inside MPI, PMIx, libfabric, hwloc or libevent is theirs, and passes:
# they keep allocations for the process's life by design. The runtime's own objects (its
# communicators, keyvals, fabric objects) are thus freed and checked, however deep in a
# library their memory lies. LeakSanitizer only reports (exitcode=0); the slow unwinder,
# as Debian's libraries have no frame pointers. Scripts whose cases end jobs by errors set
# NO_LEAK_CHECK (what a process holds as ARMCI_Error ends it is not a leak), and so do
# those whose programs let Open MPI unload its components (only tester.h keeps them): the
# frames of a report through an unloaded component name whatever module lies there
# later (a leak of MPI_Init's was seen named libarmci.so in NAS MG).
asan_build=0 # (scripts read it: suite.sh's plain lines, bh.sh's process counts)
grep -q '^SAN_CFLAGS = .*-fsanitize=address' "${top_builddir:-.}/Makefile" 2>/dev/null &&
    asan_build=1
leak_check=0
if [ -z "${NO_LEAK_CHECK:-}" ] && [ "$asan_build" = 1 ]; then
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1:fast_unwind_on_malloc=0"
    export LSAN_OPTIONS="exitcode=0"
    leak_check=1
fi

ours_leaked() { # ours_leaked LOG: the first frame of a leak report in LOG in our code
    # (frame by frame, after LeakSanitizer's banner: the reports of several processes may
    # interleave, and every such frame belongs to a leak made through our code)
    # (armci/init.c's frames do not count: ARMCI_Init starts MPI when the program has not,
    # and MPI_Init's own allocations pass through it; a leak of what the runtime starts
    # there has a frame of its own in src/)
    awk '/ERROR: LeakSanitizer/ { on = 1 }
         on && /^ *#[0-9]+ / && !/ \.\.\/\.\.\/armci\/init\.c:/ &&
         (/ \.\.\/\.\.\/(src|armci)\// || /libarmci\.so/ || (/^ *#1 / && /\/testing\//)) {
             print; found = 1; exit
         }
         END { exit !found }' "$1"
}

report() { # report STATUS NAME [LOG]   (STATUS 0 is a pass)
    ntests=$((ntests + 1))
    if [ "$1" = 0 ]; then
        echo "ok $ntests - $2"
        pass=$((pass + 1))
    else
        echo "not ok $ntests - $2"
        if [ -n "${3:-}" ] && [ -f "$3" ]; then
            grep -E 'check failed|leak of|ERROR: |armci: rank|WARNING: ThreadSanitizer|SUMMARY: |runtime error: ' "$3" |
                head -15 | sed 's/^/# ! /'
            tail -25 "$3" | sed 's/^/#   /'
        fi
        fail=$((fail + 1))
    fi
}

result() { # result ok|WHY NAME [LOG]: as report, the reason of a failure in its name
    if [ "$1" = ok ]; then
        report 0 "$2"
    else
        report 1 "$2 ($1)" "${3:-}"
    fi
}

# The one pass rule of every case that runs a program (verdict). A case passes when
#  - the command's exit status is what the case expects: 0; with --fails an error exit
#    that is not a timeout (124 or 137: run-mpi.sh's TEST_TIMEOUT), since a misuse must
#    end the job, not hang it; with --ends any exit but a timeout (a fault's job, whose
#    status the launcher decides);
#  - its output holds none of what no case may print: a failed check of tester.h (a
#    summary line with failures, "check failed"), a sanitizer's report
#    (AddressSanitizer, ThreadSanitizer, UBSan's "runtime error:"), and, when it ran to
#    its end, a leak made through our code (ours_leaked, above);
#  - its output holds every --want pattern (grep -E) and --text string (grep -F), and no
#    --reject pattern;
#  - every --then command succeeds: shell code run by eval in a subshell, with the
#    script's functions and "$log" the output.
verdict() { # verdict LOG STATUS [--fails|--ends] [--want RE]... [--text STR]...
    #                            [--reject RE]... [--then CMD]...: prints "ok", or why not
    log=$1 status=$2
    shift 2
    fails=0
    for o in "$@"; do
        case $o in
        --fails) fails=1 ;;
        --ends) fails=any ;;
        esac
    done
    if [ "$fails" = 0 ]; then
        [ "$status" = 0 ] || { echo "exit status $status" && return; }
    elif [ "$status" = 124 ] || [ "$status" = 137 ]; then
        echo "still running after its time limit" && return
    elif [ "$fails" = 1 ] && [ "$status" = 0 ]; then
        echo "ran to completion" && return
    fi
    if grep -Eq ' [0-9]+ checks, [1-9][0-9]* failed|check failed' "$log"; then
        echo "a check failed" && return
    fi
    if grep -Eq 'ERROR: AddressSanitizer|WARNING: ThreadSanitizer|runtime error: ' "$log"; then
        echo "a sanitizer reported" && return
    fi
    if [ "$fails" != 1 ] && [ "$leak_check" = 1 ] && frame=$(ours_leaked "$log"); then
        echo "a leak through our code: $(echo $frame)" && return
    fi
    while [ $# -gt 0 ]; do
        case $1 in
        --want) grep -Eq -- "$2" "$log" || { echo "lacks '$2'" && return; } ;;
        --text) grep -Fq -- "$2" "$log" || { echo "lacks '$2'" && return; } ;;
        --reject) ! grep -Eq -- "$2" "$log" || { echo "has '$2'" && return; } ;;
        --then) (eval "$2") >/dev/null 2>&1 || { echo "its own check failed" && return; } ;;
        --fails | --ends) shift && continue ;;
        *) echo "verdict: unknown option $1" && return ;;
        esac
        shift 2
    done
    echo ok
}

quote() { # quote WORD: WORD as the shell reads it back
    printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}

# The one runner: run_case NAME [--log FILE] [VERDICT OPTIONS...] -- COMMAND...
# runs COMMAND (stdin empty), judges it by verdict and reports it, the reason of a failure
# in its name and the output after it. The output is removed, or kept in --log's FILE.
# Returns 0 when the case passed.
run_case() {
    rc_name=$1
    shift
    rc_opts= rc_log=
    while [ "$1" != -- ]; do
        if [ "$1" = --log ]; then
            rc_log=$2
            shift 2
            continue
        fi
        rc_opts="$rc_opts $(quote "$1")"
        shift
    done
    shift
    rc_out=${rc_log:-$(mktemp)}
    if [ "$asan_build" = 1 ]; then
        # each process's sanitizer report into a file of its own (asan.PID), appended to
        # the output whole: the reports of a job's processes, written to one stream at
        # once, interleaved mid-line, and a frame spliced of two was once read as ours
        rc_san=$(mktemp -d)
        ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=$rc_san/asan" \
            "$@" </dev/null >"$rc_out" 2>&1
        rc_status=$?
        for rc_f in "$rc_san"/asan.*; do
            [ -f "$rc_f" ] && cat "$rc_f" >>"$rc_out"
        done
        rm -rf "$rc_san"
    else
        "$@" </dev/null >"$rc_out" 2>&1
        rc_status=$?
    fi
    rc_why=$(eval "verdict \"\$rc_out\" $rc_status $rc_opts")
    result "$rc_why" "$rc_name" "$rc_out"
    [ -n "$rc_log" ] || rm -f "$rc_out"
    [ "$rc_why" = ok ]
}

skip() { # skip NAME REASON: a case that cannot run here, counted and named as skipped
    ntests=$((ntests + 1))
    echo "ok $ntests - $1 # SKIP $2"
}

skip_all() { # skip_all REASON: this script has nothing to run here
    echo "1..0 # SKIP $1"
    exit 0
}

finish() { # finish NAME: the plan and the closing count; the exit status of the script
    echo "1..$ntests"
    echo "# $1: $pass passed, $fail failed"
    [ "$fail" -eq 0 ] && [ "$ntests" -gt 0 ]
}
