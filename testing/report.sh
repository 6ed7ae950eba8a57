# Sourced by the test scripts: PASS:/FAIL: lines (counted by summary.sh) and the closing
# count. A failure shows the program's own error lines, then the end of its output.
pass=0
fail=0

report() { # report STATUS NAME LOG   (STATUS 0 is a pass)
    if [ "$1" = 0 ]; then
        echo "PASS: $2"
        pass=$((pass + 1))
    else
        echo "FAIL: $2"
        grep -E 'check failed|leak of|ERROR: |armci: rank' "$3" | head -15 | sed 's/^/    ! /'
        sed 's/^/    /' "$3" | tail -25
        fail=$((fail + 1))
    fi
}

finish() { # finish NAME: the closing line; the exit status of the script
    echo "$1: $pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}
