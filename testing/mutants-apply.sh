#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Every patch of testing/mutants/ still applies to the library as it is: make check-long
# plants each one (testing/mutants.sh), and a patch whose context the code has left behind
# tests nothing, or, applied with fuzz, plants its defect somewhere else (both apply them
# without fuzz). Checked here, in every make check, so that the change that moves the code
# also rebuilds the patch.
here=$(cd "$(dirname "$0")" && pwd)
top=${top_srcdir:-$here/..}
. "$here/report.sh"
command -v patch >/dev/null || skip_all "mutants-apply: patch(1) is not installed"
patches=$(ls "$top"/testing/mutants/*.patch 2>/dev/null)
[ -n "$patches" ] || skip_all "mutants-apply: no patches in testing/mutants"
for p in $patches; do
    log=$(mktemp)
    patch -p1 --fuzz=0 --dry-run --force -d "$top" <"$p" >"$log" 2>&1
    report $? "mutants/$(basename "$p" .patch) applies to the current source" "$log"
    rm -f "$log"
done
finish mutants-apply
