#!/bin/sh
# After `make check`: the failed cases with their diagnostics, then one closing line
# counting every individual case: the unit tests' own (their PASS:/FAIL: lines) and the
# test scripts' (one TAP line each, which automake's tap-driver records in their .trs).
#   summary.sh [BUILD_DIR...]   (default: the source tree's own build)
[ $# -gt 0 ] || set -- "$(dirname "$0")/.."
pass=0
fail=0
bad() { # bad LOG PATTERN: show the failures of LOG
    echo "---- failures in $1:"
    grep -A12 -- "$2" "$1"
}
for d in "$@"; do
    # every build runs these; the others (ga, valgrind, tsan, cluster, format) may skip
    for s in suite errors docs stats nas dead bh layers; do
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
    done
    for t in "$d"/testing/*.trs; do
        [ -f "$t" ] || continue
        p=$(grep -c '^:test-result: PASS' "$t")
        f=$(grep -c '^:test-result: \(FAIL\|ERROR\|XPASS\)' "$t")
        pass=$((pass + p))
        fail=$((fail + f))
        [ "$f" -eq 0 ] || bad "${t%.trs}.log" '^not ok\|^Bail out\|^ERROR'
    done
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
