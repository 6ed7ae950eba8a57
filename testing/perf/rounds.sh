# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the benchmark scripts that run several libraries alternately (run-peers.sh,
# run-busy.sh): each round starts one library further along the list, so that none is
# always the one to run first.
# rotate N WORD...: the words from the N-th on, then the first N
rotate() {
    n=$1
    shift
    i=0 head= tail=
    for w in "$@"; do
        if [ "$i" -lt "$n" ]; then head="$head $w"; else tail="$tail $w"; fi
        i=$((i + 1))
    done
    echo $tail $head
}
