#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# GA's own ARMCI on ComEx, the peer most Global Arrays and NWChem users run, built three
# ways for the benchmarks' peer columns:
#   build-comex.sh GA_SRC OUTDIR
# GA_SRC is a Global Arrays source tree (a 5.8.2 git checkout or release; only its comex/
# directory is read, never written). OUTDIR (in the build tree) receives:
#   OUTDIR/src               a copy of GA_SRC/comex, its configure made by the system's
#                            autotools (a git tag has none, and GA's autogen.sh downloads
#                            its own pinned ones)
#   OUTDIR/build-BACKEND     ComEx configured --with-BACKEND, static, mpicc
#   OUTDIR/BACKEND           its install: include/armci.h, lib/libarmci.a, lib/libcomex.a
#   OUTDIR/armci_bench_comex-BACKEND, OUTDIR/busy_bench_comex-BACKEND
#                            testing/perf/armci_bench.c and busy_bench.c built against
#                            that install
# for BACKEND in COMEX_BACKENDS (default "mpi-pr mpi-ts mpi3": a progress rank per node,
# NWChem's default on clusters; two-sided MPI with the target answering when it enters
# ComEx; MPI-3 one-sided windows). Every step is skipped when its product is newer than
# its input, so a second call costs nothing. ComEx needs a BLAS for its accumulates
# (Debian's libblas, 32-bit integers: --with-blas4=-lblas). Exits 77 without GA_SRC.
set -e
ga=${1:?usage: build-comex.sh GA_SRC OUTDIR}
out=${2:?usage: build-comex.sh GA_SRC OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
[ -f "$ga/comex/configure.ac" ] || { echo "SKIP: no ComEx at $ga/comex"; exit 77; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
log=$out/log
mkdir -p "$log"

if [ ! -x "$out/src/configure" ]; then
    echo "build-comex: copying $ga/comex and running autoreconf ($log/autoreconf.log)"
    rm -rf "$out/src"
    cp -R "$ga/comex" "$out/src"
    (cd "$out/src" && autoreconf -fi) >"$log/autoreconf.log" 2>&1 ||
        { tail -20 "$log/autoreconf.log"; exit 1; }
fi

for b in ${COMEX_BACKENDS:-mpi-pr mpi-ts mpi3}; do
    inst=$out/$b
    if [ ! -f "$inst/lib/libcomex.a" ]; then
        echo "build-comex: ComEx --with-$b ($log/$b.log)"
        rm -rf "$out/build-$b"
        mkdir -p "$out/build-$b"
        (cd "$out/build-$b" &&
            "$out/src/configure" --prefix="$inst" --with-"$b" --enable-static --disable-shared \
                CC=mpicc --with-blas4=-lblas &&
            make -j"${MAKE_JOBS:-2}" && make install) >"$log/$b.log" 2>&1 ||
            { tail -30 "$log/$b.log"; exit 1; }
    fi
    for prog in armci_bench busy_bench; do
        bin=$out/${prog}_comex-$b
        if [ ! -x "$bin" ] || [ "$here/$prog.c" -nt "$bin" ] || [ "$here/bench.h" -nt "$bin" ] ||
            [ "$inst/lib/libcomex.a" -nt "$bin" ]; then
            echo "build-comex: $bin"
            mpicc -O2 -std=gnu11 -DBENCH_COMEX="\"comex-$b\"" -I"$inst/include" \
                "$here/$prog.c" -o "$bin" -L"$inst/lib" -larmci -lcomex -lblas -lm
        fi
    done
done
