#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
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
for v in $(grep -o '^ARMCII_ENV[A-Z_]*([A-Z_0-9]*' "$top/src/base/env_defs.h" | sed 's/ARMCII_ENV[A-Z_]*(/ARMCI_/'); do
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
else
    skip "armci-info --json is valid JSON" "python3 is not installed (apt-get install python3)"
fi
ARMCI_SHM=maybe "$info" >/dev/null 2>&1 && result "accepted" "armci-info rejects a bad value" ||
    result ok "armci-info rejects a bad value"
# --help, --version, a bad option
"$info" --help | grep -q -- "--check" && result ok "armci-info --help describes every option" ||
    result "no --check in it" "armci-info --help describes every option"
# (the version is written once, in the installed header; configure and armci-info take it)
ver=$(sed -n 's/^#define ARMCI_OFI_VERSION_STRING "\(.*\)"$/\1/p' "$top/include/armci_ofi_version.h")
[ -n "$ver" ] && "$info" --version | grep -qx "armci-info (armci-ofi) $ver" &&
    result ok "armci-info --version says the header's version, $ver" ||
    result "not ${ver:-(none in the header)}" "armci-info --version says the header's version"
# NEWS's newest entry is this version: what a build contains is not listed as unreleased
# under a version it claims to be (issue 61)
news=$(grep -m1 -E '^[0-9]+\.[0-9]+\.[0-9]+ ' "$top/NEWS" | cut -d' ' -f1)
[ -n "$ver" ] && [ "$news" = "$ver" ] &&
    result ok "NEWS's newest entry is the header's version, $ver" ||
    result "NEWS's is ${news:-none}" "NEWS's newest entry is the header's version, $ver"
"$info" --sideways >/dev/null 2>&1
[ $? = 2 ] && result ok "armci-info refuses an unknown option (exit 2)" ||
    result "exit not 2" "armci-info refuses an unknown option (exit 2)"
# --check: this node passes; a provider that does not exist fails it, named
chk=$("$info" --check)
rc=$?
[ $rc = 0 ] && echo "$chk" | grep -q '^  ok    provider: tcp;ofi_rxm' &&
    echo "$chk" | grep -q '^  ok    libfabric [0-9]' && echo "$chk" | grep -q '^0 failed' &&
    result ok "armci-info --check passes here, naming libfabric and the provider" ||
    result "exit $rc" "armci-info --check passes here, naming libfabric and the provider"
chk=$(FI_PROVIDER=nosuch "$info" --check)
rc=$?
[ $rc = 1 ] && echo "$chk" | grep -q '^  FAIL  provider: none offers RDM endpoints' &&
    result ok "armci-info --check fails where no provider fits (FI_PROVIDER=nosuch)" ||
    result "exit $rc" "armci-info --check fails where no provider fits (FI_PROVIDER=nosuch)"
# the libfabric opened: the file configure found, or the one ARMCI_FABRIC_LIB names
conf=$(sed -n 's/^#define ARMCII_FI_LIB "\(.*\)"$/\1/p' "${top_builddir:-.}/src/config.h")
chk=$("$info" --check)
echo "$chk" | grep -q "^  ok    libfabric [0-9.]* ($conf)\$" &&
    result ok "armci-info --check: libfabric opened from the configured $conf" ||
    result "another file" "armci-info --check: libfabric opened from the configured ${conf:-(none)}"
chk=$(ARMCI_FABRIC_LIB=/nonexistent/libfabric.so.1 "$info" --check)
rc=$?
[ $rc = 1 ] && echo "$chk" | grep -q '^  FAIL  libfabric: cannot open /nonexistent/libfabric.so.1 (ARMCI_FABRIC_LIB)' &&
    result ok "ARMCI_FABRIC_LIB naming a missing file fails, naming it and the variable" ||
    result "exit $rc" "ARMCI_FABRIC_LIB naming a missing file fails, naming it and the variable"
chk=$(ARMCI_FABRIC_LIB=libfabric.so.1 "$info" --check)
echo "$chk" | grep -q '^  ok    libfabric [0-9.]* (/[^ ]*libfabric.so.1, from ARMCI_FABRIC_LIB)$' &&
    result ok "ARMCI_FABRIC_LIB=libfabric.so.1: the dynamic linker's, said" ||
    result "not said" "ARMCI_FABRIC_LIB=libfabric.so.1: the dynamic linker's, said"
# under a launcher: one line per host (cluster.sh runs it across hosts)
chk=$("$(dirname "$0")/run-mpi.sh" 2 "$info" --check 2>&1)
echo "$chk" | grep -q '^1 host(s), 0 failed check(s)$' &&
    result ok "armci-info --check under a launcher: one line per host" ||
    { result "no host line" "armci-info --check under a launcher: one line per host"; echo "$chk" | tail -5 | sed 's/^/#   /'; }
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
"$info" --migration >"$gen"
sed -n '/<!-- migration-table:begin -->/,/<!-- migration-table:end -->/p' "$top/docs/cluster.md" | sed '1d;$d' >"$doc"
if [ -s "$gen" ] && cmp -s "$gen" "$doc"; then
    result ok "docs/cluster.md table of other ARMCIs' settings is current"
else
    result "stale: run make docs" "docs/cluster.md table of other ARMCIs' settings is current"
    diff "$doc" "$gen" | sed 's/^/#   /' | head -10
fi
rm -f "$gen" "$doc"
# The site guide's Slurm pieces (docs/cluster.md): the job script is the one slurm.sh runs
# through sbatch, and the HealthCheckProgram script does what it says when run as slurmd
# would (its scontrol a stand-in that records its arguments): nothing on a good node, the
# node drained with the failed check as the reason on a bad one.
hc=$(mktemp -d)
sed -n '/<!-- job-sbatch:begin -->/,/<!-- job-sbatch:end -->/p' "$top/docs/cluster.md" |
    sed '1,2d;$d' | sed '$d' >"$hc/job.sbatch"
cmp -s "$hc/job.sbatch" "$top/testing/cluster/job.sbatch" &&
    result ok "docs/cluster.md's job script is testing/cluster/job.sbatch, which slurm.sh runs" ||
    result "they differ" "docs/cluster.md's job script is testing/cluster/job.sbatch, which slurm.sh runs"
# ... and the mpi.conf it shows is the bed's (cluster/slurm.sh writes it)
conf=$(sed -n 's/^ *echo "\(PMIx[A-Za-z]*=[^"]*\)" >"$s\/mpi.conf"$/\1/p' "$top/testing/cluster/slurm.sh")
if [ -n "$conf" ] && grep -qxF "  $conf" "$top/docs/cluster.md"; then
    result ok "docs/cluster.md's mpi.conf line is the bed's ($conf)"
else
    result "slurm.sh writes '${conf:-nothing}' to mpi.conf, docs/cluster.md does not show it" \
        "docs/cluster.md's mpi.conf line is the bed's"
fi
awk '/HealthCheckProgram/ { want = 1 } want && /^   ```sh$/ { on = 1; next }
     on && /^   ```$/ { exit } on { sub(/^   /, ""); print }' "$top/docs/cluster.md" >"$hc/health.sh"
printf '#!/bin/sh\necho "$@" >>"%s/scontrol.args"\n' "$hc" >"$hc/scontrol"
chmod +x "$hc/scontrol"
tools=$(cd "$(dirname "$info")" && pwd)
if ! command -v python3 >/dev/null; then
    skip "docs/cluster.md's HealthCheckProgram script" "python3 is not installed (apt-get install python3)"
elif grep -q 'armci-info --check' "$hc/health.sh" &&
    PATH="$hc:$tools:$PATH" sh "$hc/health.sh" && [ ! -f "$hc/scontrol.args" ] &&
    FI_PROVIDER=nosuch PATH="$hc:$tools:$PATH" sh "$hc/health.sh" &&
    grep -q "^update nodename=$(hostname -s) state=drain reason=armci: provider: none offers RDM endpoints" "$hc/scontrol.args"; then
    result ok "docs/cluster.md's HealthCheckProgram script: a good node left alone, a bad one drained with the reason"
else
    result "$(cat "$hc/scontrol.args" 2>/dev/null || echo 'scontrol not called')" \
        "docs/cluster.md's HealthCheckProgram script: a good node left alone, a bad one drained with the reason"
fi
rm -rf "$hc"
# "Is the job on the fabric it should be?": the lines the guide greps for are there, in
# the shape it shows, and the provider the guide tells a site to insist on ends a job that
# cannot have it at ARMCI_Init
lines=$(ARMCI_VERBOSE=1 ARMCI_SHM=0 FI_PROVIDER=tcp "$(dirname "$0")/run-mpi.sh" 2 \
    "${top_builddir:-.}/testing/demo/demo" 2>&1 | grep -E '^armci: (libfabric|start-up): ')
echo "$lines" | grep -q '^armci: libfabric: provider tcp;ofi_rxm, inject ' &&
    echo "$lines" | grep -Eq '^armci: libfabric: libfabric [0-9.]+ \(/[^)]*\); NIC ' &&
    result ok "docs/cluster.md: ARMCI_VERBOSE's libfabric lines name the provider, the file and the NIC" ||
    result "not as shown" "docs/cluster.md: ARMCI_VERBOSE's libfabric lines name the provider, the file and the NIC"
# ARMCI_VERBOSE's layout line counts the machine as sysfs does: the cores and threads this process may run on, the L2 and L3 of its first CPU
# (hwloc reads them without its plugins, which ARMCI_Init leaves out)
layout=$(ARMCI_VERBOSE=1 "$(dirname "$0")/run-mpi.sh" 2 "${top_builddir:-.}/testing/demo/demo" 2>&1 |
    sed -n 's/^armci: layout: .* node has \([0-9]*\) cores, \([0-9]*\) PUs, L2 \([0-9]*\) KiB, L3 \([0-9]*\) KiB.*/\1 \2 \3 \4/p' | head -1)
machine=$(python3 - <<'EOF2'
import os
cpus = sorted(os.sched_getaffinity(0))
def read(c, f):
    try:
        return open("/sys/devices/system/cpu/cpu%d/%s" % (c, f)).read().strip()
    except OSError:
        return ""
cores = {(read(c, "topology/physical_package_id"), read(c, "topology/core_id")) for c in cpus}
def kib(level):
    for i in range(8):
        if read(cpus[0], "cache/index%d/level" % i) == str(level) and \
                read(cpus[0], "cache/index%d/type" % i) != "Instruction":
            v = read(cpus[0], "cache/index%d/size" % i)
            return str(int(v[:-1]) * (1024 if v.endswith("M") else 1))
    return "0"
print(len(cores), len(cpus), kib(2), kib(3))
EOF2
)
[ -n "$layout" ] && [ "$layout" = "$machine" ] &&
    result ok "ARMCI_VERBOSE's layout line counts cores, threads and caches as sysfs does ($layout)" ||
    result "'$layout', sysfs: '$machine'" "ARMCI_VERBOSE's layout line counts cores, threads and caches as sysfs does"
# docs/tuning.md, "Start-up": the line that splits libfabric's start, as shown there, its
# parts adding up to the whole (each printed to a millisecond)
split=$(echo "$lines" | sed -n 's/^armci: libfabric: its start took \([0-9.]*\) s of ARMCI_Init: \([0-9.]*\) s opening it (the libraries it depends on start), \([0-9.]*\) s its first answer (every built-in provider probes the machine).*/\1 \2 \3/p' | head -1)
if [ -n "$split" ] && echo "$split" | awk '{d = $1 - $2 - $3; exit !(d < 0.0015 && d > -0.0015 && $3 > 0)}' &&
    grep -q '^    armci: libfabric: its start took 0\.[0-9]* s of ARMCI_Init: ' "$top/docs/tuning.md"; then
    result ok "docs/tuning.md: ARMCI_VERBOSE splits libfabric's start into opening and first answer ($split)"
else
    result "not as shown: '$split'" "docs/tuning.md: ARMCI_VERBOSE splits libfabric's start into opening and first answer"
fi
# ... and the line of ARMCI_Init's steps: its parts add up to the whole, libfabric's the
# largest over tcp, and docs/tuning.md shows it
steps=$(echo "$lines" | sed -n 's/^armci: start-up: ARMCI_Init took \([0-9.]*\) s here: settings \([0-9.]*\), node layout \([0-9.]*\), health \([0-9.]*\), node memory \([0-9.]*\), libfabric \([0-9.]*\), the rest \([0-9.]*\)$/\1 \2 \3 \4 \5 \6 \7/p' | head -1)
if [ -n "$steps" ] && echo "$steps" | awk '{d = $1 - $2 - $3 - $4 - $5 - $6 - $7
        exit !(d < 0.004 && d > -0.004 && $6 >= $2 && $6 >= $3 && $6 >= $4 && $6 >= $5 && $6 >= $7)}' &&
    grep -q '^    armci: start-up: ARMCI_Init took 0\.[0-9]* s here: settings ' "$top/docs/tuning.md"; then
    result ok "docs/tuning.md: ARMCI_VERBOSE says where ARMCI_Init's time went, step by step ($steps)"
else
    result "not as shown: '$steps'" "docs/tuning.md: ARMCI_VERBOSE says where ARMCI_Init's time went, step by step"
fi
if fi_info -p verbs >/dev/null 2>&1; then
    skip "docs/cluster.md: FI_PROVIDER=verbs where there is none ends the job" "this machine has verbs"
else
    lines=$(FI_PROVIDER=verbs ARMCI_SHM=0 TEST_TIMEOUT=60 "$(dirname "$0")/run-mpi.sh" 2 \
        "${top_builddir:-.}/testing/demo/demo" 2>&1)
    echo "$lines" | grep -q '^armci: rank 0: ARMCI_Init: no libfabric provider offers RDM endpoints' &&
        result ok "docs/cluster.md: FI_PROVIDER=verbs where there is none ends the job at ARMCI_Init, said" ||
        result "not said" "docs/cluster.md: FI_PROVIDER=verbs where there is none ends the job at ARMCI_Init, said"
fi
# The manual pages: armci-ofi(7) is what armci-info --man makes of the same table
if "$info" --man | cmp -s - "$top/docs/man/armci-ofi.7"; then
    result ok "docs/man/armci-ofi.7 is current"
else
    result "stale: run make docs" "docs/man/armci-ofi.7 is current"
fi
# and both pages are valid roff: every variable of the table appears, and man reads them
nmiss=0 nvar=0
for v in $(echo "$out" | sed -n 's/^  \(ARMCI_[A-Z0-9_]*\) *=.*/\1/p'); do
    nvar=$((nvar + 1))
    grep -q "^\.B $v\$" "$top/docs/man/armci-ofi.7" || nmiss=$((nmiss + 1))
done
[ "$nmiss" = 0 ] && [ "$nvar" -gt 20 ] &&
    result ok "armci-ofi(7) describes every variable armci-info lists ($nvar)" ||
    result "$nmiss of $nvar missing" "armci-ofi(7) describes every variable armci-info lists"
if command -v man >/dev/null; then
    for page in armci-info.1 armci-ofi.7; do
        w=$(MANWIDTH=80 man -l "$top/docs/man/$page" 2>&1 >/dev/null)
        [ -z "$w" ] && MANWIDTH=80 man -l "$top/docs/man/$page" 2>/dev/null | grep -q '^NAME' &&
            result ok "man reads $page without a warning" ||
            result "${w:-no NAME section}" "man reads $page without a warning"
    done
else
    skip "man reads the manual pages" "man is not installed (apt-get install man-db)"
fi
# The summary at the top of docs/performance.md is what summary.sh makes of the newest CSV
# (every number in it is read from that CSV; `make perf-summary` regenerates it).
gen=$(mktemp)
doc=$(mktemp)
sh "$top/testing/perf/summary.sh" "$top/docs/data" >"$gen" 2>&1
sed -n '/<!-- perf-summary:begin -->/,/<!-- perf-summary:end -->/p' "$top/docs/performance.md" |
    sed '1d;$d' >"$doc"
if [ -s "$gen" ] && cmp -s "$gen" "$doc"; then
    result ok "docs/performance.md's summary is what the newest CSV says"
else
    result "stale: run make perf-summary" "docs/performance.md's summary is what the newest CSV says"
    diff "$doc" "$gen" | sed 's/^/#   /' | head -10
fi
rm -f "$gen" "$doc"
# README's only measured figures, the aggregate handles over tcp, are what the CSV it cites
# gives: medians over its rounds of armci-ofi's 1000 blocking and aggregated gets and puts.
csv="$top/docs/data/$(sed -n 's/.*\[\(peers-[0-9a-z-]*\.csv\)\](docs\/data\/.*/\1/p' "$top/README.md" | head -1)"
med() { # med OP: the median over the rounds of armci-ofi's OP over tcp, in us
    awk -F, -v op="$1" '$2 == "tcp" && $3 == "armci-ofi" && $5 == op { print $7 }' "$csv" |
        sort -g | awk '{ v[NR] = $1 }
            END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
gb=$(med agg_get_1000_blocking) ga=$(med agg_get_1000_aggregate)
pb=$(med agg_put_1000_blocking) pa=$(med agg_put_1000_aggregate)
if [ -f "$csv" ] && [ -n "$gb" ] && [ -n "$ga" ] && [ -n "$pb" ] && [ -n "$pa" ]; then
    want=$(awk -v gb="$gb" -v ga="$ga" -v pb="$pb" -v pa="$pa" 'BEGIN {
        printf "about %dx|(%d us against %.1f ms)|go out %.1fx faster|(%d against %d us", \
            int(gb / ga / 10 + 0.5) * 10, int(ga + 0.5), gb / 1000, pb / pa, int(pa + 0.5), int(pb + 0.5) }')
    text=$(tr '\n' ' ' <"$top/README.md" | tr -s ' ')
    miss=
    old_ifs=$IFS
    IFS='|'
    for w in $want; do
        case $text in *"$w"*) ;; *) miss="$miss [$w]" ;; esac
    done
    IFS=$old_ifs
    [ -z "$miss" ] && result ok "README's aggregate figures are the medians of $(basename "$csv")" ||
        result "README lacks:$miss" "README's aggregate figures are the medians of $(basename "$csv")"
else
    result "no CSV or no rows" "README's aggregate figures are the medians of the CSV it cites"
fi
# The license: LICENSE at the top, and an SPDX line in the first three lines of every
# source file (C, Fortran, shell, the build's own files), so that no file is left unlicensed.
nolic=$(cd "$top" && {
    find include armci src testing nas_kernels -name '*.[chF]' ! -name config.h
    find . -maxdepth 1 -name '*.sh'
    find testing nas_kernels -name '*.sh'
    echo configure.ac Makefile.am armci.pc.in
} | sort -u | while read -r f; do
    [ -f "$f" ] || continue
    head -3 "$f" | grep -q 'SPDX-License-Identifier: BSD-3-Clause' || echo "$f"
done)
if [ -f "$top/LICENSE" ] && grep -q 'BSD 3-Clause License' "$top/LICENSE" && [ -z "$nolic" ]; then
    result ok "LICENSE is BSD-3-Clause and every source file carries its SPDX line"
else
    result "unlicensed files" "LICENSE is BSD-3-Clause and every source file carries its SPDX line"
    echo "$nolic" | head -20 | sed 's/^/#   without an SPDX line: /'
fi
finish docs
