#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# After `make check`: the failed cases with their diagnostics, then one closing line
# counting every individual case: the unit tests' own (their PASS:/FAIL: lines) and the
# test scripts' (one TAP line each, which automake's tap-driver records in their .trs),
# and every script that skipped, named with its reason.
#   summary.sh [BUILD_DIR...]   (default: the source tree's own build)
# A unit program that ends badly counts as a failure even when it printed no FAIL: line
# (a crash before its report). Under CI (CI set in the environment) a skip for a tool that
# is not installed is a failure: quickstart.sh installs every one.
[ $# -gt 0 ] || set -- "$(dirname "$0")/.."
pass=0
fail=0
skip=0
skipped=
bad() { # bad LOG PATTERN: show the failures of LOG, and where the whole of it is
    echo "---- failures in $1 (the whole log is there; make's own output in $(dirname "$1")/../make-check.log):"
    grep -A30 -- "$2" "$1" | head -400
}
for d in "$@"; do
    # every build runs these; the others (ga, valgrind, tsan, cluster, format) may skip;
    # a ThreadSanitizer build runs tsan alone (quickstart.sh)
    must="suite errors docs stats nas dead bh layers"
    grep -q '^SAN_CFLAGS = .*-fsanitize=thread' "$d/Makefile" 2>/dev/null && must=tsan
    # the build for the second MPI family runs the part where MPIs differ (quickstart.sh)
    grep -q '^MPI_FAMILY = mpich' "$d/Makefile" 2>/dev/null && must="suite errors dead ga"
    # the plain build also checks the tarball and the Debian packages made from it
    grep -q '^SAN_CFLAGS = *$' "$d/Makefile" 2>/dev/null &&
        grep -q '^MPI_FAMILY = openmpi' "$d/Makefile" && must="$must dist deb"
    for s in $must; do
        [ -f "$d/testing/$s.trs" ] && continue
        echo "FAIL: $d/testing/$s.sh did not run"
        fail=$((fail + 1))
    done
    for l in "$d"/testing/unit/test_*.log; do
        [ -f "$l" ] || continue
        p=$(grep -c '^PASS: ' "$l")
        f=$(grep -c '^FAIL: ' "$l")
        pass=$((pass + p))
        fail=$((fail + f))
        [ "$f" -eq 0 ] || bad "$l" '^FAIL: '
        # the program's own end, as automake's driver saw it
        t=${l%.log}.trs
        if [ "$f" -eq 0 ] && [ -f "$t" ] && grep -q '^:test-result: \(FAIL\|ERROR\)' "$t"; then
            echo "FAIL: $l: the program ended badly after $p passed checks"
            tail -5 "$l"
            fail=$((fail + 1))
        fi
    done
    for t in "$d"/testing/*.trs; do
        [ -f "$t" ] || continue
        p=$(grep -c '^:test-result: PASS' "$t")
        f=$(grep -c '^:test-result: \(FAIL\|ERROR\|XPASS\)' "$t")
        pass=$((pass + p))
        fail=$((fail + f))
        [ "$f" -eq 0 ] || bad "${t%.trs}.log" '^not ok\|^Bail out\|^ERROR'
        # a whole script's skip (1..0 # SKIP why) or single cases' (ok N - name # SKIP why)
        n=$(grep -c '^:test-result: SKIP' "$t")
        [ "$n" -gt 0 ] || continue
        skip=$((skip + n))
        l=${t%.trs}.log
        whys=$( (sed -n 's/^1\.\.0 # SKIP //p' "$l"
            sed -n 's/^ok [0-9]* - \(.*\) # SKIP \(.*\)/\1: \2/p' "$l") | sed 's/$/;/')
        [ -n "$whys" ] || whys="$(basename "${t%.trs}");"
        skipped="$skipped${skipped:+; }$(echo $whys | sed 's/;$//')"
        case $whys in
        *"not installed"*)
            if [ -n "${CI:-}" ]; then
                echo "FAIL: $whys (CI installs it: quickstart.sh)"
                fail=$((fail + 1))
            fi
            ;;
        esac
    done
done
echo "$pass passed, $fail failed, $skip skipped${skipped:+ ($skipped)}"
[ "$fail" -eq 0 ]
