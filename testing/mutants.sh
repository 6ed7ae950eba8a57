#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The suite's own test (make check-long): each patch of testing/mutants/ plants one real
# defect in the library; with it applied, the tests its head names must fail. One TAP line
# per patch, "caught" with the first failing run named, or "survived". A patch's head:
#
#   # mutant: what the defect is
#   # suite: t_a,t_b     the MPI programs whose matrix lines must catch it (SUITE_PROGS)
#   # unit: test_core    and/or unit test programs that must
#
# The source is copied (without build trees) into a folder of its own and built there once,
# without sanitizers; each patch is applied to the copy, the library (and the unit tests it
# names) rebuilt, the named tests run, and the patch taken out again. MUTANTS=a,b runs only
# the patches whose names hold one of those words; MUTANTS_DIR keeps the copy and its build
# between runs (it is made when missing). Each run is held to TEST_TIMEOUT seconds (60).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/report.sh"
src=$(cd "$here/.." && pwd)
export TEST_TIMEOUT=${TEST_TIMEOUT:-60}
patches=$(ls "$src"/testing/mutants/*.patch 2>/dev/null)
[ -n "$patches" ] || skip_all "no patches in testing/mutants"
command -v patch >/dev/null || skip_all "patch(1) not installed"

work=${MUTANTS_DIR:-$(mktemp -d)}
[ -n "${MUTANTS_DIR:-}" ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src" "$work/build"
if [ ! -f "$work/build/Makefile" ]; then
    tar -C "$src" --exclude='./_build*' --exclude=./.git --exclude=./autom4te.cache -cf - . |
        tar -C "$work/src" -xf -
    [ -x "$work/src/configure" ] || (cd "$work/src" && ./autogen.sh) >"$work/autogen.log" 2>&1
    (cd "$work/build" && "$work/src/configure" --prefix="$work/inst" &&
        make -j2 && make -j2 check TESTS=) >"$work/build.log" 2>&1 || {
        echo "# the copy did not build: the end of $work/build.log"
        tail -20 "$work/build.log" | sed 's/^/# /'
        result "the copy did not build" "mutants: build"
        finish mutants
    }
fi

for p in $patches; do
    name=$(basename "$p" .patch)
    if [ -n "${MUTANTS:-}" ] && ! echo ",$MUTANTS," | tr ',' '\n' | grep -v '^$' |
        {
            while read -r w; do case $name in *"$w"*) exit 0 ;; esac; done
            exit 1
        }; then
        continue
    fi
    what=$(sed -n 's/^# mutant: //p' "$p")
    suite=$(sed -n 's/^# suite: //p' "$p")
    units=$(sed -n 's/^# unit: //p' "$p" | tr ',' ' ')
    case_name="mutants/$name: $what"
    if ! patch -s --fuzz=0 -p1 -d "$work/src" --dry-run <"$p" >/dev/null 2>&1; then
        result "does not apply to this source" "$case_name"
        continue
    fi
    patch -s --fuzz=0 -p1 -d "$work/src" <"$p"
    log=$work/$name.log
    : >"$log"
    caught= built=1
    make -C "$work/build" -j2 libarmci.la $(for u in $units; do echo "testing/unit/$u"; done) \
        >>"$log" 2>&1 || built=0
    for u in $units; do
        [ "$built" = 1 ] && [ -z "$caught" ] || break
        "$work/build/testing/unit/$u" >>"$log" 2>&1 || caught="unit $u failed"
    done
    if [ "$built" = 1 ] && [ -z "$caught" ] && [ -n "$suite" ]; then
        # the named programs' matrix lines, in a session of their own: ended at the first
        # failure (the rest would only take time)
        setsid sh -c "cd '$work/build' && top_builddir=. top_srcdir='$work/src' \
            SUITE_PROGS='$suite' sh '$work/src/testing/suite.sh'" >>"$log" 2>&1 &
        sid=$!
        while kill -0 "$sid" 2>/dev/null; do
            if grep -q '^not ok' "$log"; then
                pkill -TERM -s "$sid" 2>/dev/null
                sleep 2
                pkill -KILL -s "$sid" 2>/dev/null
                break
            fi
            sleep 1
        done
        wait "$sid" 2>/dev/null
        first=$(grep -m1 '^not ok' "$log" | sed 's/^not ok [0-9]* - //')
        [ -n "$first" ] && caught="$first"
    fi
    patch -s -R -p1 -d "$work/src" <"$p"
    if [ "$built" = 0 ]; then
        result "the library does not build with it" "$case_name" "$log"
    elif [ -n "$caught" ]; then
        result ok "$case_name: caught ($caught)"
    else
        result "survived" "$case_name" "$log"
    fi
done
# the library as it is, for whoever keeps the folder
make -C "$work/build" -j2 libarmci.la >/dev/null 2>&1
finish mutants
