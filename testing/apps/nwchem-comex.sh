# SPDX-License-Identifier: BSD-3-Clause
# NWChem on Global Arrays' own ARMCI, ComEx with the MPI-PR (progress rank) backend:
# NWChem's default on clusters (ARMCI_NETWORK=MPI-PR, GA configure --with-mpi-pr), for
# comparison with our ARMCI. Sourced by nwchem.sh, whose $WORKDIR $top $log $stamp
# $ga_release $MAKE_JOBS and say/die/elapsed are used. do_comex builds, out of NWChem's
# tree (which it only reads):
#   WORKDIR/ga-mpi-pr/ga-5.8.2  a copy of the patched GA source NWChem unpacked
#   WORKDIR/ga-mpi-pr/build     GA configured as tools/GNUmakefile does for MPI-PR
#   WORKDIR/ga-mpi-pr/install   its libga.a, libarmci.a, libcomex.a
#   WORKDIR/ga-mpi-pr/link      nwchem.o and stubs.o, recompiled (make removes them)
#   WORKDIR/bin/nwchem-comex-pr the same NWChem libraries linked on that GA
# Each step is skipped when its product is there; the link when the binary is newer than
# the GA install and the NWChem build. MPI-PR takes one process per node for its progress
# rank: NWChem sees NP-1 processes (NP >= 2). That rank waits in a blocking MPI_Recv,
# which Open MPI polls: oversubscribed (NP > cores), Open MPI's automatic
# mpi_yield_when_idle makes it sched_yield; with OMPI_MCA_mpi_yield_when_idle=0 it takes
# a core's share and the run (3 processes, 2 cores) is twice as long.

do_comex() {
    [ -e "$stamp/make" ] || die "nothing built yet: run build first"
    gadir=$WORKDIR/ga-mpi-pr
    gasrc=$gadir/ga-$ga_release
    gainst=$gadir/install
    bin=$WORKDIR/bin/nwchem-comex-pr
    mkdir -p "$gadir" "$log" "$WORKDIR/bin" || die "mkdir $gadir failed"

    # 1. The GA source exactly as NWChem builds it: the release with NWChem's patches
    # (get-tools-github applies them; one, mpipr-too-many, is to comex/src-mpi-pr).
    # cp -p keeps the times, so that make does not want to rerun the autotools.
    if [ ! -x "$gasrc/configure" ]; then
        [ -x "$top/src/tools/ga-$ga_release/configure" ] ||
            die "$top/src/tools/ga-$ga_release/configure not found"
        say "copying $top/src/tools/ga-$ga_release to $gasrc"
        rm -rf "$gasrc" "$gadir/build" "$gainst"
        cp -pR "$top/src/tools/ga-$ga_release" "$gasrc" || die "copy of GA failed"
    fi

    # 2. The configure command of NWChem's own GA build (its config.log's invocation
    # line, shell-quoted by autoconf), with what ARMCI_NETWORK=MPI-PR changes in
    # src/tools/GNUmakefile: --with-mpi-pr for --with-armci=PREFIX, and no -lpthread at
    # the end of --with-mpi= (added for ARMCI_NETWORK=ARMCI only); our --prefix. All else
    # is kept: gcc/gfortran, --with-mpi= the flags of Open MPI's mpif90 (so no MPICC),
    # the 32-bit-integer system BLAS/LAPACK (--with-blas4=-lblas, NWChem's 64_to_32),
    # the Fortran integer size GA finds by default on x86_64 (8: -fdefault-integer-8, as
    # NWChem's -DEXT_INT objects), FFLAGS, ARMCI_DEFAULT_SHMMAX_UBOUND; the doubled
    # SCOREP_WRAPPER=OFF is GNUmakefile's (findstring matches gcc in scorep-gcc).
    cl=$(sed -n 's/^  \$ \(\.\.\/ga-[^ ]*\/configure .*\)$/\1/p' "$top/src/tools/build/config.log")
    [ -n "$cl" ] || die "no configure line in $top/src/tools/build/config.log"
    eval "set -- $cl" || die "cannot parse the configure line of $top/src/tools/build/config.log"
    shift # ../ga-5.8.2/configure
    args=
    for a; do
        case $a in
        --prefix=*) a=--prefix=$gainst ;;
        --with-armci=*|--with-armci) a=--with-mpi-pr ;;
        --with-mpi=*) a=${a% -lpthread} ;;
        esac
        args="$args '$(printf '%s' "$a" | sed "s/'/'\\\\''/g")'"
    done
    case $args in *"'--with-mpi-pr'"*) ;; *) die "the configure line has no --with-armci" ;; esac
    if [ ! -e "$gadir/build/config.status" ] || [ "$(cat "$gadir/configure.args" 2>/dev/null)" != "$args" ]; then
        say "configuring GA --with-mpi-pr in $gadir/build (log $log/ga-mpi-pr-configure.log)"
        rm -rf "$gadir/build" "$gainst" "$gadir/configure.args"
        mkdir -p "$gadir/build"
        echo "../ga-$ga_release/configure$args" >"$log/ga-mpi-pr-configure.log"
        (cd "$gadir/build" && eval "env -u LD_RUN_PATH ../ga-$ga_release/configure $args") \
            >>"$log/ga-mpi-pr-configure.log" 2>&1 ||
            { tail -20 "$log/ga-mpi-pr-configure.log"; die "GA configure failed (log/ga-mpi-pr-configure.log)"; }
        echo "$args" >"$gadir/configure.args"
    fi

    # 3. GA: libga.a, and libarmci.a (ARMCI on ComEx) with libcomex.a.
    if [ ! -e "$gainst/lib/libga.a" ] || [ "$gadir/build/config.status" -nt "$gainst/lib/libga.a" ]; then
        say "make -j${MAKE_JOBS:-2} && make install in $gadir/build (log $log/ga-mpi-pr-make.log)"
        t0=$(date +%s)
        (cd "$gadir/build" && make -j"${MAKE_JOBS:-2}" && make install) >"$log/ga-mpi-pr-make.log" 2>&1 ||
            { grep -n -m 20 -i 'error' "$log/ga-mpi-pr-make.log"; tail -20 "$log/ga-mpi-pr-make.log"
              die "GA make failed (log/ga-mpi-pr-make.log)"; }
        say "GA --with-mpi-pr took $(elapsed "$t0")"
    fi
    for l in libga.a libarmci.a libcomex.a; do
        [ -e "$gainst/lib/$l" ] || die "$gainst/lib/$l not built"
    done

    # 4. The link, as NWChem's last (make.log, or the `make link` of nwchem.sh relink).
    if [ -x "$bin" ] && [ "$bin" -nt "$gainst/lib/libga.a" ] && [ "$bin" -nt "$stamp/make" ]; then
        say "$bin is up to date"
        return 0
    fi
    ll=
    for f in "$log/make.log" "$log/link-armci-mpi.log"; do
        [ -z "$ll" ] || break
        [ -e "$f" ] || continue
        ll=$(grep -E -- ' -o [^ ]*/bin/LINUX64/nwchem nwchem\.o stubs\.o ' "$f" | tail -1)
    done
    [ -n "$ll" ] || die "no NWChem link line in $log/make.log"
    ld=$gadir/link
    rm -rf "$ld"
    mkdir -p "$ld"
    : >"$log/link-comex-pr.log"
    # nwchem.F and stubs.F compiled as make.log shows (`make link` removes the objects),
    # here: in src/ "-I." is src/, and the sources are given by their path.
    for o in nwchem stubs; do
        cc=$(grep -E -- " -c -o $o\.o $o\.F\$" "$log/make.log" | tail -1)
        [ -n "$cc" ] || die "no compile line for $o.F in $log/make.log"
        cc=$(printf '%s\n' "$cc" | sed "s| -I\. | -I$top/src |; s| -c -o $o\.o $o\.F\$| -c -o $ld/$o.o $top/src/$o.F|")
        (cd "$ld" && eval "$cc") >>"$log/link-comex-pr.log" 2>&1 ||
            { tail -20 "$log/link-comex-pr.log"; die "compiling $o.F failed (log/link-comex-pr.log)"; }
    done
    # The link line as config/makefile.h makes it for ARMCI_NETWORK=MPI-PR: in the
    # place of COMM_LIBS (here "-L<armci prefix>/lib -larmci -lpthread") the output of
    # `ga-config --network_ldflags`, `ga-config --network_libs` (both empty for ComEx)
    # and `comex-config --libs` (-lcomex and its MPI libraries), then -lpthread; and
    # without the -L<EXTERNAL_ARMCI_PATH>/lib -larmci that follows it (ARMCI_NETWORK=
    # ARMCI only). The -larmci of the NWChem libraries' "-lga -larmci" is then the
    # MPI-PR install's libarmci.a, which holds ComEx itself (libcomex.a, its copy, is
    # left with nothing to add); the install's lib directory goes ahead of NWChem's GA
    # install so that its libga.a, built for this libarmci, is the one found. Our -o,
    # and the objects in $ld, where the link runs.
    net=$("$gainst/bin/ga-config" --network_ldflags --network_libs) || die "ga-config failed"
    comex=$("$gainst/bin/comex-config" --libs) || die "comex-config failed"
    w=$(printf '%s\n' "$WORKDIR" | sed 's/[].[*^$\\|]/\\&/g')
    t=$(printf '%s\n' "$top" | sed 's/[].[*^$\\|]/\\&/g')
    cmd=$(printf '%s\n' "$ll" | sed \
        -e "s| -o [^ ]*/bin/LINUX64/nwchem nwchem\.o stubs\.o | -o $bin.tmp nwchem.o stubs.o |" \
        -e "s| -L$t/src/tools/install/lib | -L$gainst/lib -L$top/src/tools/install/lib |" \
        -e "s| -L$w/armci-[a-z]*/lib -larmci  *-lpthread | $net $comex -lpthread |" \
        -e "s| -L$w/armci-[a-z]*/lib -larmci | |g")
    case $cmd in
    *" -L$gainst/lib "*" -o $bin.tmp "*" -lcomex "*) ;;
    *) die "unexpected NWChem link line: $ll" ;;
    esac
    case $cmd in *"$WORKDIR/armci-"*) die "armci prefix left in the link line: $cmd" ;; esac
    echo "$cmd" >>"$log/link-comex-pr.log"
    say "linking $bin (log $log/link-comex-pr.log)"
    (cd "$ld" && unset LD_RUN_PATH && eval "$cmd") >>"$log/link-comex-pr.log" 2>&1 ||
        { tail -20 "$log/link-comex-pr.log"; die "link failed (log/link-comex-pr.log)"; }
    # No shared libarmci (LD_RUN_PATH, which would give it our rpath, is not set here),
    # and ComEx in the binary.
    lib=$(env -u LD_LIBRARY_PATH ldd "$bin.tmp" | awk '$1 ~ /^libarmci/ { print $3 }')
    [ -z "$lib" ] || die "$bin.tmp loads a shared libarmci ($lib)"
    nm "$bin.tmp" | grep -q ' T comex_init$' || die "$bin.tmp has no comex_init"
    mv "$bin.tmp" "$bin"
    say "built $bin"
}
