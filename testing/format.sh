#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Every C file of the project follows .clang-format (as clang-format 14, Debian 12's, reads
# it). Without clang-format the check is skipped and says so; quickstart.sh installs it.
here=$(cd "$(dirname "$0")" && pwd)
top=${top_srcdir:-$here/..}
. "$here/report.sh"
# (the sources are the build's own: a sanitizer build of the same tree has nothing to add)
grep -q '^SAN_CFLAGS = .*-fsanitize' "${top_builddir:-.}/Makefile" 2>/dev/null &&
    skip_all "format: a sanitizer build (the build without sanitizers checks the same sources)"
if ! command -v clang-format >/dev/null; then
    skip_all "format: clang-format is not installed (apt-get install clang-format)"
fi
log=$(mktemp)
files=$(cd "$top" && find include armci src testing nas_kernels -name '*.[ch]' ! -name config.h |
    sort)
n=0
bad=0
for f in $files; do
    n=$((n + 1))
    if ! clang-format --dry-run -Werror "$top/$f" >/dev/null 2>&1; then
        echo "$f: differs from clang-format's layout; clang-format -i $f" >>"$log"
        bad=$((bad + 1))
    fi
done
echo "$bad of $n files" >>"$log"
[ "$n" -gt 50 ] || echo "only $n files found under $top" >>"$log"
status=1
[ "$bad" -eq 0 ] && [ "$n" -gt 50 ] && status=0
report $status "the $n C files follow .clang-format" "$log"
rm -f "$log"
finish format
