#!/bin/sh
# armci-info tells the truth, and docs/tuning.md carries the environment table the runtime
# actually has (regenerate with `make docs`).
top=${top_srcdir:-$(dirname "$0")/..}
info=${top_builddir:-.}/src/tools/armci-info
. "$(dirname "$0")/report.sh"
out=$("$info") || { result "exit status $?" "armci-info runs"; out=; }
[ -n "$out" ] && result ok "armci-info runs without mpirun"
echo "$out" | grep -q "tcp;ofi_rxm" && result ok "armci-info lists the tcp provider" ||
    result "tcp;ofi_rxm missing" "armci-info lists the tcp provider"
echo "$out" | grep -q "armci-ofi would use: " && result ok "armci-info names its choice" ||
    result "no choice line" "armci-info names its choice"
missing=0
for v in $(grep -o '^ARMCII_ENV[A-Z_]*([A-Z_0-9]*' "$top/src/core/env_defs.h" | sed 's/ARMCII_ENV[A-Z_]*(/ARMCI_/'); do
    echo "$out" | grep -q "^  $v " || { echo "#   $v missing"; missing=$((missing + 1)); }
done
[ "$missing" -eq 0 ] && result ok "armci-info shows every environment variable" ||
    result "$missing missing" "armci-info shows every environment variable"
val=$(ARMCI_AGG_MAX=77 "$info" | grep "^  ARMCI_AGG_MAX ")
echo "$val" | grep -q "= 77 " && result ok "armci-info shows current values" ||
    result "got '$val'" "armci-info shows current values"
if command -v python3 >/dev/null; then
    "$info" --json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["providers"] and d["environment"]' &&
        result ok "armci-info --json is valid JSON" || result "invalid" "armci-info --json is valid JSON"
fi
ARMCI_SHM=maybe "$info" >/dev/null 2>&1 && result "accepted" "armci-info rejects a bad value" ||
    result ok "armci-info rejects a bad value"
gen=$(mktemp)
"$info" --markdown >"$gen"
doc=$(mktemp)
sed -n '/<!-- env-table:begin -->/,/<!-- env-table:end -->/p' "$top/docs/tuning.md" | sed '1d;$d' >"$doc"
if cmp -s "$gen" "$doc"; then
    result ok "docs/tuning.md environment table is current"
else
    result "stale: run make docs" "docs/tuning.md environment table is current"
    diff "$doc" "$gen" | sed 's/^/#   /' | head -10
fi
rm -f "$gen" "$doc"
finish docs
