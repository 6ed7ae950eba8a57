# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the test scripts: one TAP line per case, which automake's tap-driver.sh turns
# into a PASS:/FAIL: line of `make check` naming the case, and the plan at the end. A
# failure's diagnostics follow it as TAP comments: the program's own error lines, then the
# end of its output.
ntests=0
pass=0
fail=0

report() { # report STATUS NAME [LOG]   (STATUS 0 is a pass)
    ntests=$((ntests + 1))
    if [ "$1" = 0 ]; then
        echo "ok $ntests - $2"
        pass=$((pass + 1))
    else
        echo "not ok $ntests - $2"
        if [ -n "${3:-}" ] && [ -f "$3" ]; then
            grep -E 'check failed|leak of|ERROR: |armci: rank' "$3" | head -15 | sed 's/^/# ! /'
            tail -25 "$3" | sed 's/^/#   /'
        fi
        fail=$((fail + 1))
    fi
}

result() { # result ok|WHY NAME: as report, the reason of a failure in its name
    if [ "$1" = ok ]; then
        report 0 "$2"
    else
        report 1 "$2 ($1)"
    fi
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
