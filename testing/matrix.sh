# SPDX-License-Identifier: BSD-3-Clause
# Reading testing/mpi/matrix (sourced by suite.sh and cluster.sh). `read` without -r joins
# a line that ends in a backslash to the next.

# matrix_lines FILE: the run lines, one a line, with every @SET of their programs written
# out; the lines that name a set ("@NAME = PROGRAMS") and the comments left out.
matrix_lines() {
    awk '
        { line = $0 }
        # a line ending in a backslash goes on in the next (as `read` would join them)
        sub(/\\$/, "", line) { held = held line; next }
        { line = held line; held = "" }
        line ~ /^[ \t]*(#|$)/ { next }
        line ~ /^[ \t]*@[A-Za-z0-9_-]+[ \t]*=/ {
            name = line; sub(/^[ \t]*@/, "", name); sub(/[ \t]*=.*/, "", name)
            progs = line; sub(/^[^=]*=[ \t]*/, "", progs); sub(/[ \t]*$/, "", progs)
            set[name] = progs
            next
        }
        {
            n = split(line, f, "|")
            out = ""
            m = split(f[1], p, ",")
            for (i = 1; i <= m; i++) {
                w = p[i]; gsub(/^[ \t]+|[ \t]+$/, "", w)
                if (w ~ /^@/) {
                    s = substr(w, 2)
                    if (!(s in set)) { print "matrix: no set @" s " defined before its use" > "/dev/stderr"; exit 2 }
                    w = set[s]
                }
                out = out (out == "" ? "" : ",") w
            }
            for (i = 2; i <= n; i++) out = out "|" f[i]
            print out
        }' "$1"
}

# matrix_programs FILE: the names of the programs its lines run, one a line, without their
# arguments.
matrix_programs() {
    matrix_lines "$1" | while IFS='|' read progs rest; do
        echo "$progs" | tr ',' '\n' | awk 'NF { print $1 }'
    done | sort -u
}

# matrix_set_names FILE: the names of its sets ("@NAME = PROGRAMS"), one a line.
matrix_set_names() {
    sed -n 's/^[ \t]*@\([A-Za-z0-9_-]*\)[ \t]*=.*/\1/p' "$1"
}

# matrix_set FILE NAME: the programs of the set @NAME, one a line, without arguments.
matrix_set() {
    awk -v want="$2" '
        { line = $0 }
        sub(/\\$/, "", line) { held = held line; next }
        { line = held line; held = "" }
        line ~ "^[ \t]*@" want "[ \t]*=" {
            sub(/^[^=]*=[ \t]*/, "", line)
            n = split(line, p, ",")
            for (i = 1; i <= n; i++) { split(p[i], w, " "); if (w[1] != "") print w[1] }
        }' "$1"
}

# matrix_has_tag TAGS WORD: whether the last column of a line (TAGS) holds WORD.
matrix_has_tag() {
    for w in $1; do [ "$w" = "$2" ] && return 0; done
    return 1
}
