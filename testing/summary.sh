#!/bin/sh
# After `make check`: list failures with their logs, then one closing line counting every
# individual case (unit tests, MPI runs, misuse cases).
#   summary.sh [BUILD_DIR...]   (default: the source tree's own build)
[ $# -gt 0 ] || set -- "$(dirname "$0")/.."
logs=
for d in "$@"; do
    for l in testing/unit/test_core.log testing/suite.sh.log testing/errors.sh.log \
        testing/docs.sh.log testing/stats.sh.log testing/nas.sh.log \
        testing/dead.sh.log testing/bh.sh.log testing/layers.sh.log; do
        logs="$logs $d/$l"
    done
    # present when Global Arrays was found
    [ -f "$d/testing/ga.sh.log" ] && logs="$logs $d/testing/ga.sh.log"
    # present unless skipped (sanitizer build, no valgrind)
    for l in valgrind tsan cluster format; do
        grep -q '^PASS\|^FAIL' "$d/testing/$l.sh.log" 2>/dev/null && logs="$logs $d/testing/$l.sh.log"
    done
done
pass=0
fail=0
for l in $logs; do
    if [ ! -f "$l" ]; then
        echo "FAIL: $l missing (the test did not run)"
        fail=$((fail + 1))
        continue
    fi
    p=$(grep -c '^PASS: ' "$l")
    f=$(grep -c '^FAIL: ' "$l")
    pass=$((pass + p))
    fail=$((fail + f))
    if [ "$f" -gt 0 ]; then
        echo "---- failures in $l:"
        grep -A12 '^FAIL: ' "$l"
    fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
