#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# NWChem 7.2.3 on armci-ofi: a minimal NWChem (NWCHEM_MODULES, default "nwdft driver"),
# with the Global Arrays 5.8.2 it bundles, built on an "external ARMCI" that is the build
# tree's libarmci.so, then relinked without recompiling on Debian's ARMCI-MPI (same ABI),
# and a sanity run of both binaries on a small SCF/DFT input (water, STO-3G).
#   testing/apps/nwchem.sh build [NWCHEM_SRC [GA_SRC]]  copy, GA tarball, configure, make,
#                                                       then relink
#   testing/apps/nwchem.sh relink                       bin/nwchem-armci-mpi only
#   testing/apps/nwchem.sh comex                        bin/nwchem-comex-pr: the same objects
#                                                       on GA's own ARMCI, ComEx MPI-PR
#                                                       (nwchem-comex.sh)
#   testing/apps/nwchem.sh run [armci-ofi] [armci-mpi]  the sanity run (default both)
#   testing/apps/nwchem.sh qa [TEST...]                 NWChem's own QA tests, every library
#                                                       in every configuration (below)
#   testing/apps/nwchem.sh table [CSV]                  the table of an earlier qa run
# The sources may be given by NWCHEM_SRC and GA_SRC in the environment instead (defaults
# /work/ext/nwchem, a v7.2.3-release checkout, and /work/ext/ga, a v5.8.2 git tree); if
# either is absent, build prints SKIP and exits 77. WORKDIR is the scratch directory
# (default /work/ext/nwchem-work; outside this repository, as NWChem builds in its tree
# and `make 64_to_32` rewrites the sources), top_builddir the build tree whose
# .libs/libarmci.so is used (default _build/default). Products: WORKDIR/bin/
# nwchem-armci-ofi (finds libarmci.so.0 by its rpath, WORKDIR/armci-ofi/lib, a symlink
# into the build tree: rebuilding the library needs no relink) and
# WORKDIR/bin/nwchem-armci-mpi (ARMCI-MPI linked statically, ARMCI_MPI_LIB, default
# Debian's libarmci-openmpi.a); logs in WORKDIR/log. ARMCI_PREFIX builds on an installed
# armci-ofi instead of the build tree, as a user would: make install's prefix, or a Debian
# package's family prefix (/usr/lib/x86_64-linux-gnu/armci-ofi/openmpi); the binary must
# then load the library that prefix names (a system library needs no rpath). Each build phase is skipped when its
# product exists (the copy, the GA tarball, nwchem_config, 64_to_32, the make, the
# relink): remove WORKDIR/stamp/make to make again, WORKDIR to start over. MAKE_JOBS is
# make's -j (default 2). The run uses testing/run-mpi.sh: NP processes (default 2),
# TEST_TIMEOUT seconds (default 600), ARMCI-MPI with MPI_ONESIDED=messages; it prints each
# run's energies and exits 1 if a run fails.
# qa runs each TEST (default QA_TESTS below: the SCF, DFT, gradient and optimisation
# tests of QA/doqmtests.mpi that need only the built modules and take about 2 minutes or
# less here) from NWCHEM_SRC/QA/tests at each of NPS processes (default "2 4"), in each of
# CONFIGS (default "node tcp hosts"): node = one node, armci-ofi on its node memory;
# tcp = shared memory off, armci-ofi over libfabric's tcp and MPI over TCP (MPI_NET=tcp,
# run-mpi.sh) for every library, the stand-in for one process per node; hosts = 2 hosts
# made of namespaces (testing/cluster, needs root), the processes split between them.
# The libraries (LIBS, default every binary built: armci-ofi, armci-mpi, comex-pr)
# alternate within each test, ROUNDS times (default 1). ARMCI-MPI runs with
# MPI_ONESIDED=messages; ComEx MPI-PR with one more process per node, its progress rank, and
# in tcp with its shared-memory shortcuts off. A run matches when QA/nwparse.pl finds the
# same values in its output as in the test's reference output (diff -w, as
# QA/runtests.mpi.unix judges). Prints test x processes x configuration x library: match
# and wall time (median over rounds; "timeout" when a run outlived TEST_TIMEOUT, default
# 600 s); writes every run to QA_CSV (default
# WORKDIR/qa.csv); exits 1 if a run that matches on ARMCI-MPI fails on armci-ofi.
here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
case ${1:-} in
-h|--help|'') sed -n '2,/^here=/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
build|relink|comex|run|qa|table) phase=$1; shift ;;
*) echo "nwchem.sh: unknown phase '$1' (build, relink, comex, run, qa, table; -h for help)" >&2; exit 2 ;;
esac
WORKDIR=${WORKDIR:-/work/ext/nwchem-work}
case $WORKDIR in /*) ;; *) WORKDIR=$(pwd)/$WORKDIR ;; esac
case $WORKDIR/ in "$srcdir"/*) echo "nwchem.sh: WORKDIR must be outside $srcdir" >&2; exit 2 ;; esac
NP=${NP:-2}
MAKE_JOBS=${MAKE_JOBS:-2}
mpilib=${ARMCI_MPI_LIB:-/usr/lib/x86_64-linux-gnu/libarmci-openmpi.a}
ga_release=5.8.2
top=$WORKDIR/nwchem
log=$WORKDIR/log
stamp=$WORKDIR/stamp
say() { echo "nwchem.sh: $*"; }
die() { echo "nwchem.sh: $*" >&2; exit 1; }
elapsed() { t=$(($(date +%s) - $1)); printf '%dm%02ds' $((t / 60)) $((t % 60)); }

# NWChem's build environment: GNU compilers, MPI found through mpif90, 32-bit-integer
# system BLAS/LAPACK (64_to_32 conversion), GA configured --with-armci=EXTERNAL_ARMCI_PATH.
nwchem_env() { # $1: the ARMCI prefix
    export NWCHEM_TOP="$top" NWCHEM_TARGET=LINUX64 USE_MPI=y
    export ARMCI_NETWORK=ARMCI EXTERNAL_ARMCI_PATH="$1"
    export NWCHEM_MODULES="${NWCHEM_MODULES:-nwdft driver}"
    export BLAS_SIZE=4 USE_64TO32=y BLASOPT=-lblas LAPACK_LIB="-llapack -lblas"
    export FC=gfortran CC=gcc
    unset USE_INTERNALBLAS BUILD_OPENBLAS USE_SCALAPACK SCALAPACK SCALAPACK_LIB \
          BLAS_LIB GA_BRANCH DEV_GA GA_RELEASE_NO TAR_URL EXTERNAL_GA_PATH \
          USE_OPENMP USE_LIBXC USE_TBLITE USE_PYTHONCONFIG PYTHONVERSION LD_RUN_PATH
}

# The ARMCI prefixes: ours by symlinks into the build and source trees (or ARMCI_PREFIX
# as it is), ARMCI-MPI's from the Debian package (its static library only, so the relinked binary needs no path).
make_prefixes() {
    [ -e "$mpilib" ] || die "$mpilib not found (Debian's libarmci-mpi-dev)"
    rm -rf "$WORKDIR/armci-ofi" "$WORKDIR/armci-mpi"
    mkdir -p "$WORKDIR/armci-mpi/include" "$WORKDIR/armci-mpi/lib"
    for h in armci.h message.h armcix.h armciconf.h mp3.h; do
        [ ! -e "/usr/include/$h" ] || ln -s "/usr/include/$h" "$WORKDIR/armci-mpi/include/"
    done
    ln -s "$mpilib" "$WORKDIR/armci-mpi/lib/libarmci.a"
    if [ -n "${ARMCI_PREFIX:-}" ]; then
        [ -e "$ARMCI_PREFIX/lib/libarmci.so" ] && [ -e "$ARMCI_PREFIX/include/armci.h" ] ||
            die "ARMCI_PREFIX=$ARMCI_PREFIX has no lib/libarmci.so and include/armci.h"
        ours=$ARMCI_PREFIX
        return
    fi
    ours=$WORKDIR/armci-ofi
    builddir=$(cd "${top_builddir:-$srcdir/_build/default}" 2>/dev/null && pwd) ||
        die "build tree ${top_builddir:-$srcdir/_build/default} not found"
    [ -e "$builddir/.libs/libarmci.so" ] || die "$builddir/.libs/libarmci.so not found"
    mkdir -p "$ours/include" "$ours/lib"
    for h in "$srcdir"/include/*.h; do ln -s "$h" "$ours/include/"; done
    for l in libarmci.so libarmci.so.0; do
        ln -s "$builddir/.libs/$l" "$ours/lib/$l"
    done
}

do_build() {
    NWCHEM_SRC=${1:-${NWCHEM_SRC:-/work/ext/nwchem}}
    GA_SRC=${2:-${GA_SRC:-/work/ext/ga}}
    [ -f "$NWCHEM_SRC/src/GNUmakefile" ] && [ -f "$NWCHEM_SRC/src/tools/get-tools-github" ] ||
        { echo "SKIP: NWChem sources not found at $NWCHEM_SRC"; exit 77; }
    [ -f "$GA_SRC/autogen.sh" ] && [ -f "$GA_SRC/global/src/global.h" ] ||
        { echo "SKIP: Global Arrays sources not found at $GA_SRC"; exit 77; }
    for t in gfortran gcc mpif90 mpicc autoreconf automake libtoolize m4 make patch; do
        command -v $t >/dev/null || die "$t not found"
    done
    mkdir -p "$WORKDIR/bin" "$log" "$stamp"
    make_prefixes
    start=$(date +%s)

    # 1. NWChem's src/ (not QA/, doc/, web/, examples/).
    if [ ! -e "$stamp/copy" ]; then
        say "copying $NWCHEM_SRC/src to $top"
        rm -rf "$top"
        mkdir -p "$top"
        cp -a "$NWCHEM_SRC/src" "$top/" || die "copy failed"
        touch "$stamp/copy"
    fi

    # 2. The GA release tarball that src/tools/get-tools-github unpacks instead of
    # downloading (it downloads only when ga-5.8.2.tar.gz is absent). A git tag has no
    # configure; GA's autogen.sh runs travis/install-autotools.sh to download and build
    # pinned autotools into its argument's bin/: the copy's is replaced by one linking
    # the system's there.
    tarball=$top/src/tools/ga-$ga_release.tar.gz
    if [ ! -s "$tarball" ]; then
        say "making $tarball from $GA_SRC (autogen.sh with the system autotools)"
        gd=$WORKDIR/ga-dist
        rm -rf "$gd"
        mkdir -p "$gd/ga-$ga_release"
        (cd "$GA_SRC" && tar cf - --exclude=.git .) | (cd "$gd/ga-$ga_release" && tar xf -) ||
            die "copy of $GA_SRC failed"
        cat >"$gd/ga-$ga_release/travis/install-autotools.sh" <<'EOF'
#!/bin/sh
# armci-ofi testing/apps/nwchem.sh: the system's autotools, linked where autogen.sh looks
set -e
mkdir -p "$1/bin"
for t in m4 autoconf autoheader autom4te autoreconf autoscan autoupdate ifnames \
         automake aclocal libtoolize; do
    ln -sf "$(command -v $t)" "$1/bin/$t"
done
for f in config.guess config.sub; do
    ln -sf "/usr/share/misc/$f" "$1/bin/$f"
done
EOF
        (cd "$gd/ga-$ga_release" && sh ./autogen.sh "$gd/autotools") >"$log/ga-autogen.log" 2>&1 ||
            { tail -20 "$log/ga-autogen.log"; die "GA autogen.sh failed (log/ga-autogen.log)"; }
        rm -rf "$gd/ga-$ga_release/autom4te.cache"
        tar czf "$tarball.tmp" -C "$gd" "ga-$ga_release" && mv "$tarball.tmp" "$tarball" ||
            die "tar failed"
        rm -rf "$gd"
    fi

    nwchem_env "$ours"
    # The binary's rpath to our prefix (no -rpath is on NWChem's link line, so ld takes
    # LD_RUN_PATH); GA's configure tests that run programs linked with -larmci need it too.
    # A package's library is in the system's folder, where the loader looks anyway.
    export LD_RUN_PATH="$ours/lib"
    cd "$top/src" || exit 1

    # 3. Configuration and the 64-to-32-bit integer conversion of the BLAS/LAPACK calls.
    if [ ! -e "$stamp/config" ] || [ "$(cat "$stamp/config")" != "$NWCHEM_MODULES" ]; then
        say "make nwchem_config NWCHEM_MODULES=\"$NWCHEM_MODULES\""
        make nwchem_config >"$log/config.log" 2>&1 ||
            { tail -20 "$log/config.log"; die "make nwchem_config failed"; }
        echo "$NWCHEM_MODULES" >"$stamp/config"
        rm -f "$stamp/make"
    fi
    if [ ! -e 64_to_32 ]; then # make 64_to_32 leaves this stamp in src/
        say "make 64_to_32"
        make 64_to_32 >"$log/64_to_32.log" 2>&1 ||
            { tail -20 "$log/64_to_32.log"; die "make 64_to_32 failed"; }
        rm -f "$stamp/make"
    fi

    # 4. The build: GA (configured, serially, by tools/), the modules, the link.
    if [ ! -e "$stamp/make" ] || [ ! -x "$WORKDIR/bin/nwchem-armci-ofi" ]; then
        say "make -j$MAKE_JOBS (log $log/make.log)"
        t0=$(date +%s)
        make -j"$MAKE_JOBS" >"$log/make.log" 2>&1 ||
            { grep -n -m 20 -i 'error' "$log/make.log"; tail -30 "$log/make.log"
              die "make failed (log/make.log)"; }
        [ -x "$top/bin/LINUX64/nwchem" ] || die "make left no bin/LINUX64/nwchem"
        cp "$top/bin/LINUX64/nwchem" "$WORKDIR/bin/nwchem-armci-ofi"
        date >"$stamp/make"
        say "make took $(elapsed "$t0")"
    fi
    check_binary armci-ofi
    unset LD_RUN_PATH

    # 5. The same objects on ARMCI-MPI.
    [ -x "$WORKDIR/bin/nwchem-armci-mpi" ] && [ "$WORKDIR/bin/nwchem-armci-mpi" -nt "$stamp/make" ] ||
        do_relink
    say "build done in $(elapsed "$start"): $WORKDIR/bin/nwchem-armci-ofi, $WORKDIR/bin/nwchem-armci-mpi"
}

# NWChem's `make link` recompiles nwchem.F and stubs.F only and links the libraries as they
# are: GA's libga.a is shared, as both ARMCIs have one ABI; only the ARMCI prefix changes.
# That is EXTERNAL_ARMCI_PATH and also COMM_LIBS, which config/makefile.h takes from GA's
# `ga-config --network_ldflags --network_libs` (-L of the prefix GA was configured with,
# ours, then -larmci) plus -lpthread: left alone, the link would find our libarmci.so first.
do_relink() {
    [ -e "$stamp/make" ] || die "nothing built yet: run build first"
    [ -e "$WORKDIR/armci-mpi/lib/libarmci.a" ] || make_prefixes
    nwchem_env "$WORKDIR/armci-mpi"
    cd "$top/src" || exit 1
    say "make link EXTERNAL_ARMCI_PATH=$WORKDIR/armci-mpi (log $log/link-armci-mpi.log)"
    make link COMM_LIBS="-L$WORKDIR/armci-mpi/lib -larmci -lpthread" \
        >"$log/link-armci-mpi.log" 2>&1 ||
        { tail -30 "$log/link-armci-mpi.log"; die "make link failed"; }
    cp "$top/bin/LINUX64/nwchem" "$WORKDIR/bin/nwchem-armci-mpi"
    check_binary armci-mpi
}

# Which libarmci a binary uses: ours dynamically through the rpath, ARMCI-MPI statically.
check_binary() {
    b=$WORKDIR/bin/nwchem-$1
    lib=$(env -u LD_LIBRARY_PATH ldd "$b" | awk '$1 ~ /^libarmci/ { print $3 }')
    case $1 in
    armci-ofi)
        # the file the prefix's libarmci.so names, whatever the loader's path to it
        want=$(readlink -f "$ours/lib/libarmci.so")
        [ -n "$lib" ] && [ "$(readlink -f "$lib")" = "$want" ] ||
            die "$b does not load $want, the library of $ours (ldd: ${lib:-none})" ;;
    armci-mpi)
        [ -z "$lib" ] || die "$b loads a shared libarmci ($lib)"
        nm "$b" | grep -q ' [TW] ARMCI_Init$' || die "$b has no ARMCI_Init" ;;
    esac
}

do_run() {
    [ $# -gt 0 ] || set -- armci-ofi armci-mpi
    export TEST_TIMEOUT=${TEST_TIMEOUT:-600}
    export NWCHEM_BASIS_LIBRARY="$top/src/basis/libraries/"
    failed=0
    for v in "$@"; do
        b=$WORKDIR/bin/nwchem-$v
        [ -x "$b" ] || die "$b not found: run build first"
        d=$WORKDIR/run/$v
        rm -rf "$d"
        mkdir -p "$d"
        cat >"$d/h2o.nw" <<'EOF'
echo
start h2o
title "water STO-3G: SCF, then B3LYP"
memory total 256 mb
geometry units angstrom
  O   0.000000   0.000000   0.117790
  H   0.000000   0.755453  -0.471161
  H   0.000000  -0.755453  -0.471161
end
basis
  * library sto-3g
end
task scf energy
dft
  xc b3lyp
end
task dft energy
EOF
        t0=$(date +%s)
        (cd "$d" || exit 1
         [ "$v" != armci-mpi ] || export MPI_ONESIDED=messages
         "$here/../run-mpi.sh" "$NP" "$b" h2o.nw >h2o.out 2>&1)
        rc=$?
        echo "== $v: $NP processes, exit $rc, $(elapsed "$t0") ($d/h2o.out)"
        grep -E 'Total (SCF|DFT) energy' "$d/h2o.out"
        if [ $rc != 0 ] || [ "$(grep -c -E 'Total (SCF|DFT) energy' "$d/h2o.out")" -lt 2 ]; then
            failed=1
            tail -15 "$d/h2o.out"
        fi
    done
    return $failed
}

QA_TESTS=${QA_TESTS:-"h2o h2o_opt dft_he2+ tagcheck testtab be small_intchk geom_zmatrix
    dft_m05nh2ch3 vectors_rotate h2o_diag_to_cg h2o_cg_to_diag h2o_diag_opt h2o_cg_opt
    h2o_diag_opt_ub3lyp h2o_cg_opt_ub3lyp h2o_cg_opt_rob3lyp h2o_diag_to_cg_ub3lyp
    h2o_cg_to_diag_ub3lyp dft_mpwb1khf sad_ch3hf scf_feco5"}

# The environment of LIBRARY in CONFIG, as words for env(1).
qa_env() { # qa_env LIBRARY CONFIG
    case $2 in
    tcp) printf '%s ' MPI_NET=tcp ;;
    # The hosts share this machine's 2 cores, but each host's processes count only its
    # own and, as many as its cores, spin in their waits, so that every barrier lasts
    # time slices: every library is told to yield its idle polls, as on hosts of their own.
    hosts) printf '%s ' ARMCI_TEST_HOSTS=2 MPI_YIELD=1 ARMCI_YIELD_IDLE=1 ;;
    esac
    case $1-$2 in
    armci-ofi-node) printf '%s ' ARMCI_SHM=1 ;;
    armci-ofi-tcp) printf '%s ' ARMCI_SHM=0 FI_PROVIDER=tcp ;;
    armci-ofi-hosts) printf '%s ' FI_PROVIDER=tcp ;;
    armci-mpi-*) printf '%s ' MPI_ONESIDED=messages ;;
    comex-pr-tcp) printf '%s ' COMEX_ENABLE_PUT_SMP=0 COMEX_ENABLE_GET_SMP=0 \
        COMEX_ENABLE_ACC_SMP=0 ;;
    esac
}

# One run of TEST by LIBRARY: prints "exit match seconds nwchem-seconds".
qa_one() { # qa_one TEST NP CONFIG LIBRARY ROUND
    t=$1 np=$2 cfg=$3 lib=$4
    d=$WORKDIR/qa/$t/$cfg-np$np-$lib-r$5
    rm -rf "$d"
    mkdir -p "$d"
    # the test's files but its reference outputs; restart files left by an earlier run
    # would change what NWChem computes, so every run starts in a directory of its own
    for f in "$qa_src/tests/$t"/*; do
        case $f in *.out | *.out_old) ;; *) cp -r "$f" "$d/" ;; esac
    done
    procs=$np
    if [ "$lib" = comex-pr ]; then # a progress rank per node
        case $cfg in hosts) procs=$((np + 2)) ;; *) procs=$((np + 1)) ;; esac
    fi
    t0=$(date +%s.%N)
    (cd "$d" && env $(qa_env "$lib" "$cfg") "$here/../run-mpi.sh" "$procs" \
        "$WORKDIR/bin/nwchem-$lib" "$t.nw" >"$t.out" 2>"$t.err")
    rc=$?
    t1=$(date +%s.%N)
    match=no
    cp "$qa_src/tests/$t/$t.out" "$d/$t.ok.out"
    if (cd "$d" && perl "$qa_src/nwparse.pl" "$t.out" && perl "$qa_src/nwparse.pl" "$t.ok.out") \
        >/dev/null 2>&1 && diff -w "$d/$t.ok.out.nwparse" "$d/$t.out.nwparse" >"$d/diff" 2>&1 &&
        [ -s "$d/$t.ok.out.nwparse" ]; then
        match=yes
    fi
    # NWChem's own wall time (its "Total times" line): what the run took less start-up
    # and shut-down
    own=$(awk '/^ Total times/ { w = $NF } END { sub("s", "", w); print w == "" ? "-" : w }' \
        "$d/$t.out")
    echo "$rc $match $(awk "BEGIN { printf \"%.2f\", $t1 - $t0 }") $own"
}

do_qa() {
    qa_src=${NWCHEM_SRC:-/work/ext/nwchem}/QA
    [ -f "$qa_src/nwparse.pl" ] || { echo "SKIP: NWChem's QA not found at $qa_src"; exit 77; }
    [ $# -gt 0 ] || set -- $QA_TESTS
    for t in "$@"; do
        [ -f "$qa_src/tests/$t/$t.nw" ] && [ -f "$qa_src/tests/$t/$t.out" ] ||
            die "QA test $t: $qa_src/tests/$t/$t.nw or .out not found"
    done
    libs=${LIBS:-}
    if [ -z "$libs" ]; then
        for l in armci-ofi armci-mpi comex-pr; do
            [ ! -x "$WORKDIR/bin/nwchem-$l" ] || libs="$libs $l"
        done
    fi
    configs=${CONFIGS:-node tcp hosts}
    export TEST_TIMEOUT=${TEST_TIMEOUT:-600}
    export NWCHEM_BASIS_LIBRARY="$top/src/basis/libraries/"
    csv=${QA_CSV:-$WORKDIR/qa.csv}
    echo "test,processes,config,library,round,exit,match,seconds,nwchem_seconds" >"$csv"
    case " $configs " in
    *" hosts "*) # one cluster for every run, brought up once
        cdir=$(OWNER=$$ "$here/../cluster/hosts.sh" up 2) || die "cannot bring up 2 hosts"
        export ARMCI_TEST_CLUSTER_DIR="$cdir"
        trap '"$here/../cluster/hosts.sh" down "$cdir"' EXIT ;;
    esac
    for r in $(seq "${ROUNDS:-1}"); do
        for t in "$@"; do
            for np in ${NPS:-2 4}; do
                for cfg in $configs; do
                    for lib in $libs; do
                        read -r rc match secs own <<EOF
$(qa_one "$t" "$np" "$cfg" "$lib" "$r")
EOF
                        echo "$t,$np,$cfg,$lib,$r,$rc,$match,$secs,$own" >>"$csv"
                        printf '%-22s np=%d %-5s %-9s round %d: exit %d, match %s, %6.1f s (NWChem: %s s)\n' \
                            "$t" "$np" "$cfg" "$lib" "$r" "$rc" "$match" "$secs" "$own"
                    done
                done
            done
        done
    done
    qa_table "$csv" $libs
}

# The table of a QA CSV: one row per test, processes and configuration; per library the
# match over all rounds (yes only if every round matched) and the median wall time.
# Exits 1 if some row matched on ARMCI-MPI and not on armci-ofi.
qa_table() { # qa_table CSV LIBRARY...
    f=$1
    shift
    awk -F, -v libs="$*" '
    NR == 1 { next }
    {
        k = $1 "," $2 "," $3
        if (!(k in seen)) { seen[k] = 1; order[++n] = k }
        if (!($4 in haslib)) { haslib[$4] = 1; seenlibs = seenlibs " " $4 }
        kl = k SUBSEP $4
        if (!(kl in ok))
            ok[kl] = 1
        if ($6 != 0 || $7 != "yes")
            ok[kl] = 0
        if ($6 == 124)
            late[kl] = 1
        times[kl] = times[kl] " " $8
    }
    function median(s,    a, m, i, j, t) {
        m = split(s, a, " ")
        for (i = 2; i <= m; i++)
            for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
        return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
    }
    END {
        nl = split(libs == "" ? seenlibs : libs, L, " ")
        printf "| test | processes | configuration |"
        for (i = 1; i <= nl; i++) printf " %s |", L[i]
        printf "\n|---|---|---|"
        for (i = 1; i <= nl; i++) printf "---|"
        printf "\n"
        bad = 0
        for (r = 1; r <= n; r++) {
            split(order[r], c, ",")
            printf "| %s | %s | %s |", c[1], c[2], c[3]
            for (i = 1; i <= nl; i++) {
                kl = order[r] SUBSEP L[i]
                if (!(kl in ok)) { printf " - |"; continue }
                printf " %s %.1f s |", ok[kl] ? "yes" : kl in late ? "**timeout**" : "**no**",
                    median(times[kl])
            }
            printf "\n"
            if ((order[r] SUBSEP "armci-mpi") in ok && ok[order[r] SUBSEP "armci-mpi"] &&
                !ok[order[r] SUBSEP "armci-ofi"])
                bad = 1
        }
        exit bad
    }' "$f"
}

case $phase in
build) do_build "$@" ;;
relink) do_relink ;;
comex) . "$here/nwchem-comex.sh" && do_comex ;;
run) do_run "$@" ;;
qa) do_qa "$@" ;;
table) qa_table "${1:-$WORKDIR/qa.csv}" ;;
esac
