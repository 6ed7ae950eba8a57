#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The include rules of docs/layers.md ("What a layer may include"), checked: every quoted
# #include of every C file under armci/ and src/ is matched against what its layer may
# name. System and public headers (<...>) are not concerned.
here=$(cd "$(dirname "$0")" && pwd)
top=${top_srcdir:-$here/..}
. "$here/report.sh"
# (a sanitizer build compiles the same sources into objects with its own checks added:
# the build without sanitizers answers for both)
grep -q '^SAN_CFLAGS = .*-fsanitize' "${top_builddir:-.}/Makefile" 2>/dev/null &&
    skip_all "layers: a sanitizer build (the build without sanitizers checks the same sources)"

# allowed DIR: the quoted includes a file in DIR may name (extended regular expressions).
# Outside its own folder, a module is reached through its one header: transport.h,
# getcache.h, collectives.h, agg.h, health.h.
allowed() {
    case $1 in
    armci) echo '^(check\.h|\.\./src/(core|base|ops)/[a-z_]+\.h|\.\./src/(agg/agg|transport/transport|cache/getcache|coll/collectives)\.h)$' ;;
    src/base) echo '^([a-z_]+\.h)$' ;;
    src/core) echo '^([a-z_]+\.h|\.\./base/[a-z_]+\.h|\.\./transport/transport\.h|\.\./(cache/getcache|coll/collectives|health/health)\.h)$' ;;
    src/ops) echo '^([a-z_]+\.h|\.\./(base|core)/[a-z_]+\.h|\.\./transport/transport\.h|\.\./(cache/getcache|health/health)\.h)$' ;;
    src/transport) echo '^([a-z_]+\.h|\.\./base/[a-z_]+\.h)$' ;;
    src/health) echo '^([a-z_]+\.h|\.\./base/[a-z_]+\.h)$' ;;
    src/cache) echo '^([a-z_]+\.h|\.\./base/[a-z_]+\.h)$' ;;
    src/agg | src/coll) echo '^([a-z_]+\.h|\.\./(core|base|ops)/[a-z_]+\.h|\.\./(transport/transport|cache/getcache|coll/collectives|health/health)\.h)$' ;;
    src/tools) echo '^([a-z_]+\.h|\.\./(core|base|transport)/[a-z_]+\.h)$' ;;
    *) echo '^$' ;;
    esac
}

# every C file and header of the library (the paths hold no blanks)
lib_files=$(ls "$top"/armci/*.[ch] "$top"/src/*/*.[ch])

for dir in armci src/base src/core src/ops src/transport src/health src/agg src/cache src/coll src/tools; do
    log=$(mktemp)
    re=$(allowed "$dir")
    n=0
    for f in "$top/$dir"/*.[ch]; do
        [ -f "$f" ] || continue
        n=$((n + 1))
        sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" |
            while read -r inc; do
                # armcii.h, the core's umbrella, is the API layer's alone
                if ! echo "$inc" | grep -Eq "$re" ||
                    { [ "$dir" != armci ] && echo "$inc" | grep -Eq '(^|/)armcii\.h$'; }; then
                    echo "$dir/$(basename "$f") includes \"$inc\", which $dir may not" >>"$log"
                fi
            done
    done
    [ "$n" -gt 0 ] || echo "no C files in $top/$dir" >>"$log"
    [ -s "$log" ] && status=1 || status=0
    report $status "$dir includes only what docs/layers.md allows it ($n files)" "$log"
    rm -f "$log"
done
# The transport sees a request only as its completion token (src/base/token.h): never
# the request itself (armcii_req_t) or the pool that holds it (pool.h).
log=$(mktemp)
grep -nE 'armcii_req_t|armcii_req_[a-z_]+\(|pool\.h' "$top"/src/transport/*.[ch] |
    grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/\*|\*)' | sed "s|^$top/||" >>"$log"
[ -s "$log" ] && status=1 || status=0
report $status "the transport sees a request as its completion token alone" "$log"
rm -f "$log"
# Every file under src/ includes the project's headers whose names it uses and no other,
# not through another header (testing/includes.py --strict); the API layer includes
# nothing it does not use (it takes the core whole, through armcii.h).
if ! command -v python3 >/dev/null; then
    skip "each file includes the headers it uses and no other" \
        "python3 is not installed (apt-get install python3)"
else
    log=$(mktemp)
    python3 "$here/includes.py" --strict "$top" src/base src/transport src/health src/cache \
        src/core src/ops src/agg src/coll >>"$log" 2>&1
    python3 "$here/includes.py" "$top" armci >>"$log" 2>&1
    [ -s "$log" ] && status=1 || status=0
    report $status "each file includes the headers it uses and no other (armci: no other)" "$log"
    rm -f "$log"
fi
# Each global variable of the library is written by one file, its owner (docs/layers.md,
# "Who writes the runtime's state"). Anywhere else, an assignment to it or to one of its
# fields (and what they point to: `armcii_reqs.peers[t].out_sw--`), an increment or a
# decrement, or its address taken fails the check. Another file may take a field's
# address to read through it only: into a pointer it declares const, or as an argument
# of one of the functions below, which take it const (the compiler holds them to that); the
# address of what a pointer in it points to (&armcii_ofi.ep->fid) is no address of it.
# One line per global: its name, its owner, and the header whose inline functions count
# as the owner's, if any writes it (stats.h's counters, ofi_internal.h's helpers).
owners='armcii_rt src/core/runtime.c
armcii_topo src/core/topo.c
armcii_reqs src/core/req.c
armcii_mem src/core/alloc.c
armcii_prog src/core/progress.c src/core/progress.h
armcii_stats src/base/stats.c src/base/stats.h
armcii_put_open_count src/ops/open.c
armcii_place_min src/base/place.c
armcii_place_mode src/base/place.c
armcii_env_rows src/base/env.c
armcii_env_foreign src/base/env.c
armcii_ofi src/transport/ofi.c src/transport/ofi_internal.h
armcii_ofi_reg src/transport/ofi_mr.c
armcii_ofi_post src/transport/ofi_post.c src/transport/ofi_internal.h
armcii_fi src/transport/ofi_load.c
armcii_tp src/transport/host.c
armcii_hh src/health/health_host.c
armcii_node src/transport/shm.c
armcii_am_deferred src/transport/am.c
armcii_serve_due_flag src/transport/serve.c src/transport/transport.h
armcii_serve_out_target src/transport/serve.c src/transport/transport.h
armcii_serve_open_target src/transport/serve.c src/transport/transport.h
armcii_agg_addrs src/agg/agg.c
armcii_agg_table src/agg/agg.c src/agg/agg.h
armcii_agg_lane src/agg/agg.c
armcii_cache_engine src/cache/getcache.c'
readers='armcii_(pool_nbound|pool_bytes|hdl_state|region_find|region_find_fast|region_bytes|region_touch|select_get|select_put|select_put_rma|select_acc|env_first_difference|env_user|wait_zero)|touch_counted|touch_pool'
log=$(mktemp)
echo "$owners" | while read -r name owner header; do
    grep -Eq "^(const )?[A-Za-z_][A-Za-z_0-9]* \**$name( |;|\[)" "$top/$owner" ||
        echo "$name is not defined in its owner, $owner" >>"$log"
    written="\\b$name\\b((\\.|->)[A-Za-z_][A-Za-z_0-9]*|\\[[^]]*\\])*[[:space:]]*(([-+*/%&|^]|<<|>>)?=([^=]|\$)|\\+\\+|--)"
    written="$written|(\\+\\+|--)[[:space:]]*$name\\b|(^|[^&])&[[:space:]]*$name\\b"
    for f in $lib_files; do
        rel=${f#"$top"/}
        [ "$rel" = "$owner" ] || [ "$rel" = "${header:-}" ] && continue
        sed -E -e "s/\\b($readers)\\(([^(),]*,[[:space:]]*)?&[[:space:]]*$name\\b/\\1(/g" \
            -e "s/(^|[^&])&[[:space:]]*($name(\\.[A-Za-z_][A-Za-z_0-9]*)*->)/\\1\\2/g" \
            -e "s/\\bconst [A-Za-z_]+ \\*[A-Za-z_]+ = &[[:space:]]*$name\\b/const/g" "$f" |
            grep -nE "$written" | sed "s|^|$rel:|; s|\$|   ($name is written by $owner alone)|" >>"$log"
    done
done
# ... and the table names every one: a global the library defines (what nm calls data,
# bss or common; the read-only ones are the compiler's to guard) must have its line.
impl=${top_builddir:-.}/.libs/libarmci_impl.a
if [ ! -f "$impl" ]; then
    echo "$impl is not built" >>"$log"
else
    # (a sanitizer build adds its own globals, __odr_asan.NAME, one per global: not ours)
    nm -g --defined-only "$impl" | awk '$2 ~ /^[BCDGSV]$/ && $3 !~ /^__/ { print $3 }' | sort -u |
        while read -r sym; do
            echo "$owners" | grep -q "^$sym " ||
                echo "global $sym has no owner in testing/layers.sh (nor docs/layers.md)" >>"$log"
        done
fi
[ -s "$log" ] && status=1 || status=0
report $status "each global of the library is written by its owner alone" "$log"
rm -f "$log"

# A caller's handle is written and read through pool.h's named transitions
# (armcii_hdl_init, _waited, _tested, _collect...): its encoding (slots, tag bits) is the
# core's, which binds handles to requests (pool.h, req.c, and req.h's inlines).
log=$(mktemp)
for f in $lib_files; do
    rel=${f#"$top"/}
    case $rel in src/base/pool.h | src/core/req.c | src/core/req.h) continue ;; esac
    grep -nE 'ARMCII_HDL_(SLOT_|MAGIC|GEN_MASK|AGG_BIT)|armcii_hdl_set\(|(->|\.)(slot|tag)\b' "$f" |
        grep -vE '^[0-9]+:[[:space:]]*(/\*|\*)' |
        sed "s|^|$rel:|; s|\$|   (a handle's encoding, outside pool.h)|" >>"$log"
done
[ -s "$log" ] && status=1 || status=0
report $status "handles are read and written through pool.h's transitions alone" "$log"
rm -f "$log"
# Every operation's prologue is the executor's (docs/layers.md, "The executor"): the open
# message sent first, ARMCI's ordering promise and the statistics' count are called there
# and nowhere else (their own files define them).
log=$(mktemp)
for f in $lib_files; do
    rel=${f#"$top"/}
    case $rel in src/ops/exec.[ch] | src/ops/open.[ch] | src/core/order.[ch] | src/base/stats.[ch]) continue ;; esac
    sed -e 's|/\*.*\*/||g' -e '/^[[:space:]]*\*/d' -e '/^[[:space:]]*\/\*/d' "$f" |
        grep -nE '\b(armcii_order_before|armcii_put_open_send|armcii_stat_op)\(' |
        sed "s|^|$rel:|; s|\$|   (the executor's, src/ops/exec.c)|" >>"$log"
done
[ -s "$log" ] && status=1 || status=0
report $status "the open message, the ordering promise and the count are the executor's calls" "$log"
rm -f "$log"
# Calls between files form no circle but the one named here (docs/layers.md, "Calls go one
# way"): file A uses B when A's object needs a function or a global B's defines (reading
# another file's state is depending on it), or when A names an inline function of B's
# header. A circle is a set of files each of which reaches every other so; one of more than
# one file not in this list fails the check.
circles='src/transport/am.c src/transport/am_build.c'
# The inline functions of a header count as its .c file's (runtime.h's as runtime.c's): one
# "def" line for each, and a "use" line for each file of the library that names one, its
# comments left out (a header's own inlines count as uses by its .c file).
inline_edges() {
    names=$(cat "$top"/src/*/*.h | sed -nE 's/^(static inline|ARMCII_INLINE)[^(]*[^A-Za-z_0-9]([a-z_0-9]+)\(.*/\2/p' | sort -u)
    re=$(echo $names | tr ' ' '|')
    for h in "$top"/src/*/*.h; do
        c=${h%.h}.c
        [ -f "$c" ] || continue
        sed -nE 's/^(static inline|ARMCII_INLINE)[^(]*[^A-Za-z_0-9]([a-z_0-9]+)\(.*/\2/p' "$h" |
            sed "s|^|def ${c#"$top"/} |"
    done
    for f in "$top"/armci/*.c "$top"/src/*/*.c "$top"/src/*/*.h; do
        as=${f#"$top"/}
        as=${as%.h}.c
        case $as in src/tools/*) continue ;; esac
        [ -f "$top/$as" ] || continue
        sed -e 's|/\*.*\*/||g' -e '/^[[:space:]]*\*/d' -e '/^[[:space:]]*\/\*/d' "$f" |
            grep -owE "$re" | sort -u | sed "s|^|use $as |"
    done
}
edges=$(mktemp)
log=$(mktemp)
objs=$(ls "${top_builddir:-.}"/armci/.libs/libarmci_impl_la-*.o \
    "${top_builddir:-.}"/src/*/.libs/libarmci_impl_la-*.o 2>/dev/null)
if [ -z "$objs" ]; then
    echo "no objects of libarmci_impl under ${top_builddir:-.}: the library is not built" >>"$log"
else
    for o in $objs; do
        d=${o%%/.libs/*}
        d=${d#"${top_builddir:-.}"/}
        n=${o##*/libarmci_impl_la-}
        nm "$o" | awk -v f="$d/${n%.o}.c" 'NF == 3 && $2 ~ /^[TWBDRCGSV]$/ { print "def", f, $3 }
            NF == 2 && $1 == "U" { print "use", f, $2 }'
    done >"$edges"
    inline_edges >>"$edges"
    awk '
        $1 == "def" { owner[$3] = $2; files[$2] = 1 }
        $1 == "use" { use[++u] = $2 " " $3 }
        END {
            for (i = 1; i <= u; i++) {
                split(use[i], a, " ")
                if ((a[2] in owner) && owner[a[2]] != a[1])
                    reach[a[1], owner[a[2]]] = 1
            }
            n = 0
            for (f in files)
                name[++n] = f
            for (k = 1; k <= n; k++)
                for (i = 1; i <= n; i++)
                    if (reach[name[i], name[k]])
                        for (j = 1; j <= n; j++)
                            if (reach[name[k], name[j]])
                                reach[name[i], name[j]] = 1
            for (i = 1; i <= n; i++) {
                if (seen[i])
                    continue
                s = ""
                for (j = 1; j <= n; j++)
                    if (j != i && reach[name[i], name[j]] && reach[name[j], name[i]]) {
                        s = s " " name[j]
                        seen[j] = 1
                    }
                if (s != "")
                    print name[i] s
            }
        }' "$edges" |
        while read -r circle; do
            sorted=$(echo "$circle" | tr ' ' '\n' | sort | tr '\n' ' ' | sed 's/ $//')
            echo "$circles" | grep -qxF "$sorted" ||
                echo "the calls of these files form a circle: $sorted" >>"$log"
        done
fi
[ -s "$log" ] && status=1 || status=0
report $status "calls between files form no circle but am.c/am_build.c" "$log"
rm -f "$log" "$edges"
# Folders depend one way (docs/layers.md, "Folders, bottom up"): a file may use a function
# or a global of its own folder or of a folder below it, never of one above or beside it.
# Read from the objects as the circle check is, data included (reading another folder's
# state is depending on it).
folders='src/base 0
src/transport 1
src/health 1
src/cache 1
src/core 2
src/ops 3
src/agg 4
src/coll 4
armci 5'
log=$(mktemp)
if [ -z "$objs" ]; then
    echo "no objects of libarmci_impl under ${top_builddir:-.}: the library is not built" >>"$log"
else
    for o in $objs; do
        d=${o%%/.libs/*}
        d=${d#"${top_builddir:-.}"/}
        nm "$o" | awk -v f="$d" 'NF == 3 && $2 ~ /^[TWBDRCGSV]$/ { print "def", f, $3 }
            NF == 2 && $1 == "U" { print "use", f, $2 }'
    done | awk -v folders="$folders" '
        BEGIN {
            n = split(folders, line, "\n")
            for (i = 1; i <= n; i++) {
                split(line[i], w, " ")
                rank[w[1]] = w[2]
            }
        }
        $1 == "def" { owner[$3] = $2 }
        $1 == "use" { use[++u] = $2 " " $3 }
        END {
            for (i = 1; i <= u; i++) {
                split(use[i], a, " ")
                if (!(a[2] in owner) || owner[a[2]] == a[1])
                    continue
                from = a[1]; to = owner[a[2]]
                if (!(from in rank) || !(to in rank))
                    print from " or " to " has no place in the folders of testing/layers.sh"
                else if (rank[from] <= rank[to])
                    print from " uses " a[2] " of " to ", which is " (rank[from] == rank[to] ? "beside" : "above") " it"
            }
        }' | sort -u >>"$log"
fi
[ -s "$log" ] && status=1 || status=0
report $status "folders depend one way: base, then transport, health and cache, then core, then ops, then agg and coll, then armci" "$log"
rm -f "$log"
# make dist ships the sources Makefile.am names and no other: every C file and header of
# the library is named there (a header left out builds here and fails from the tarball).
log=$(mktemp)
for f in $lib_files; do
    rel=${f#"$top"/}
    grep -qF "$rel" "$top/Makefile.am" || echo "$rel is not named in Makefile.am" >>"$log"
done
[ -s "$log" ] && status=1 || status=0
report $status "every source file of the library is named in Makefile.am" "$log"
rm -f "$log"
# libfabric is opened when the fabric is first needed (src/transport/ofi_load.c), not
# when a program is loaded: Debian's libfabric pulls in PSM libraries whose constructors
# sleep 0.2 s in every process. The library must neither depend on it nor refer to it.
lib=${top_builddir:-.}/.libs/libarmci.so
log=$(mktemp)
if [ ! -f "$lib" ]; then
    echo "$lib is not built" >"$log"
else
    readelf -d "$lib" | grep 'NEEDED.*libfabric' >>"$log"
    nm -D --undefined-only "$lib" | grep ' fi_' >>"$log"
fi
[ -s "$log" ] && status=1 || status=0
report $status "libarmci.so loads libfabric only when the fabric is needed" "$log"
rm -f "$log"
# The library exports the API's names alone (Makefile.am): a program that defines a
# function of the runtime's own name (am_send_small, armcii_fatal) keeps it to itself.
log=$(mktemp)
if [ ! -f "$lib" ]; then
    echo "$lib is not built" >"$log"
else
    nm -D --defined-only "$lib" | awk '{ print $3 }' | grep -Ev '^(ARMCIX?|PARMCI|armcix?|parmci)_' |
        sed 's/^/exported, not an API name: /' >>"$log"
    nm -D --defined-only "$lib" | grep -q ' ARMCI_Init$' || echo "ARMCI_Init is not exported" >>"$log"
fi
[ -s "$log" ] && status=1 || status=0
report $status "libarmci.so exports only the API's names" "$log"
rm -f "$log"
# No two of the library's source files share a name: a name says which file, in a
# backtrace, a profile or the static archive (whose members go by file name alone).
log=$(mktemp)
find "$top/src" "$top/armci" -name '*.c' | sed 's#.*/##' | sort | uniq -d |
    sed 's/^/used twice: /' >"$log"
[ -s "$log" ] && status=1 || status=0
report $status "no two of the library's .c files share a name" "$log"
rm -f "$log"
finish layers
