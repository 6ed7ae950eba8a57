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

# ours_direct NAME: the shared build's testing/perf/NAME itself, not libtool's wrapper
# script, which starts a shell in every process before the program (5 ms of a processor
# each, measured): sets ours_bin, and ours_env to the LD_LIBRARY_PATH that finds the build's
# library; the script itself (and no ours_env) where there is no shared build. Reads $top.
ours_direct() {
    ours_bin=$top/testing/perf/$1 ours_env=
    if [ -x "$top/testing/perf/.libs/$1" ] && [ -e "$top/.libs/libarmci.so.0" ]; then
        ours_bin=$top/testing/perf/.libs/$1
        ours_env="LD_LIBRARY_PATH=$(cd "$top/.libs" && pwd)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    fi
}
