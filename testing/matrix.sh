# The programs of testing/mpi/matrix (sourced by suite.sh and cluster.sh): the names of
# those its lines run, one a line, without their arguments. `read` without -r joins a
# line that ends in a backslash to the next.
matrix_programs() {
    while IFS='|' read progs rest; do
        case $progs in '#'* | '') continue ;; esac
        echo "$progs" | tr ',' '\n' | awk 'NF { print $1 }'
    done <"$1" | sort -u
}
