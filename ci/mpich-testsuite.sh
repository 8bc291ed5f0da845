#!/usr/bin/env bash
# Runs MPICH 4.0.2's own test suite (test/mpi/coll, and test/mpi/comm and
# test/mpi/attr with --suite) with topoa2a's algorithms selected through
# LD_PRELOAD of libtopoa2a.so (or the native door, --native); --mpich-src
# takes test/mpi from another MPICH source (MPICH 5.0's own tests).
#
# Usage: ci/mpich-testsuite.sh [--full | --suite "comm attr"] [--maxnp N] [--no-preload | --native PREFIX] [--mpich-src DIR] [--algs "A B ..."] [--verbose]
#   (default)     the blocking MPI_Alltoall/MPI_Alltoallv tests listed in
#                 ci/mpich-testsuite/alltoall.testlist, once per algorithm:
#                 ring ring_bidir mesh hypercube onefactor onefactor_xor node_aware
#                 multileader torus direct_scheduled node_aware_log topo_auto
#   --full        MPICH's whole coll/testlist once, with topo_auto, np capped
#                 at 4 (--maxnp), less the entries listed in
#                 ci/mpich-testsuite/full-excluded.txt (each with its reason;
#                 see docs/mpich-testsuite.md)
#   --suite LIST  instead of coll/: the whole testlist of each directory of
#                 test/mpi named in LIST (comm, attr), np capped as with
#                 --full (--maxnp), less the entries listed in
#                 ci/mpich-testsuite/<dir>-excluded.txt; programs in
#                 <dir>-keepnp.txt are never capped; entries in
#                 <dir>-reduced.txt ("name np newnp reason") run with fewer
#                 processes (where np 4 exceeds the time limit even with
#                 stock MPICH). Default algorithms
#                 "ring topo_auto" (with the library: its communicator
#                 hooks, attribute handling and context-id use are what
#                 these suites test; they make no MPI_Alltoall calls, so no
#                 stats are required), "auto" with --no-preload
#   --nonblocking the nonblocking and persistent tests listed in
#                 ci/mpich-testsuite/nonblocking.testlist, once per algorithm,
#                 selected by MPIR_CVAR_IALLTOALL_INTRA_ALGORITHM (and
#                 MPIR_CVAR_IALLTOALLV_INTRA_ALGORITHM where it applies); the
#                 stats must show op=ialltoall and op=alltoall_init (and the v
#                 forms). Stock MPICH (--no-preload): "auto tsp_scattered"
#   --no-preload  stock MPICH, no LD_PRELOAD; default algorithms "brucks pairwise"
#                 (MPICH's own values), "auto" with --full. Also chosen, with a
#                 warning, when TOPOA2A_LIB is unset and the default library
#                 does not exist.
#   --native PREFIX  the native front door instead of LD_PRELOAD: the programs
#                 (built against Debian's MPICH) run on the patched MPICH
#                 installed in PREFIX (ci/build-mpich.sh) through
#                 LD_LIBRARY_PATH, with MPIR_CVAR_COLL_PLUGIN naming
#                 TOPOA2A_NATIVE_LIB (default <repo>/build/plugin/libtopoa2a_native.so)
#   --mpich-src DIR  MPICH's test/mpi from the MPICH source tree DIR instead
#                 of Debian's source package (same as MPICH_SRC=DIR): a
#                 release tarball or a generated tree, or a git checkout of
#                 pmodels/mpich (its test/mpi is then generated once into the
#                 cache by test/mpi/autogen.sh, which needs autoconf, automake,
#                 libtool and python3). The test programs are built against
#                 the MPICH of --native PREFIX when that is the source's
#                 version (e.g. MPICH 5.0's tests on the patched 5.0.1), else
#                 against Debian's. Tests run individually
#                 (MPITEST_RUN_INDIVIDUAL: MPICH 5.0's runtests would
#                 otherwise run them inside one run_mpitests program)
#   --maxnp N     --full and --suite: run every testlist entry with more than N
#                 processes with N instead, dropping entries that then repeat
#                 one already listed (default 4, TOPOA2A_FULL_MAXNP; 0 keeps
#                 MPICH's counts, up to 16). Programs that need a particular
#                 count (ci/mpich-testsuite/full-keepnp.txt) are never capped.
#                 On 2 oversubscribed cores, where ch4 busy-polls, MPICH's
#                 counts take well over an hour.
#   --algs LIST   the algorithm values to run (space separated)
#   --verbose     runtests -verbose (every program's output in runtests.log)
#
# Environment:
#   TOPOA2A_LIB        library to preload (default <repo>/build/plugin/libtopoa2a.so;
#                      an explicitly given path that does not exist is an error)
#   TOPOA2A_CACHE      cache outside the clone (default /var/cache/topoa2a): the
#                      MPICH source (apt-get source) and the built test trees,
#                      testtree-<hash of this script's build section, the
#                      configure arguments, the MPICH source tree, the MPICH
#                      package version, mpicc -show> (the list files choose
#                      what runs, not how the tree is built: editing them
#                      does not rebuild)
#   MPICH_SRC          use this MPICH source tree instead of fetching one
#                      (see --mpich-src)
#   TOPOA2A_ARTIFACTS  output directory (default <repo>/build/mpich-testsuite)
#   MPITEST_TIMEOUT    per-test limit in seconds (default here 120, 180 with
#                      --full), enforced by mpiexec (MPIEXEC_TIMEOUT, set by
#                      runtests); a testlist timeLimit= overrides it
#   TOPOA2A_ALLTOALLV_ALGS  topoa2a values that also select the MPI_Alltoallv
#                      algorithm (default "ring onefactor node_aware multileader direct_scheduled
#                      node_aware_log"); MPICH's own
#                      alltoallv values (auto nb pairwise_sendrecv_replace
#                      scattered) always do
#   JOBS               make parallelism (default nproc)
#
# Per algorithm the environment is MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM=<alg>,
# MPIR_CVAR_ALLTOALLV_INTRA_ALGORITHM=<alg> where it applies, and
# MPIR_CVAR_TOPOA2A_STATS=1. runtests merges each program's stderr into its
# output and fails a test on any line other than "No Errors", so programs run
# under a wrapper (MPITEST_PROGRAM_WRAPPER) that sets LD_PRELOAD for the MPI
# program only (not for mpiexec, make or perl) and moves "topoa2a-stats ..."
# stderr lines into runs/<alg>/stats.log; all other output reaches runtests.
#
# The library (TOPOA2A_LIB, or the native plugin) is copied at start and the
# copy is what runs, so rebuilding build/ during a run does not mix versions.
#
# Artifacts (TOPOA2A_ARTIFACTS): testlist (as run), excluded.txt (--full: the
# coll/testlist entries left out, with reasons), summary.txt, and per
# algorithm runs/<alg>/{summary.xml,summary.tap,summary.junit.xml,runtests.log,
# stats.log,seconds}.
#
# Result: a table per algorithm (tests run, passed, failed, stats seen) and a
# last line "N passed, N failed". Failed counts failed tests, listed tests that
# did not run (runtests stops early after too many timeouts), and, with
# preload or --native, each algorithm whose stats lines never appeared
# (op=alltoall algorithm=<alg>, and op=alltoallv too where the alltoallv
# variable is set; topo_auto: any stats line). Exit status 1 when anything
# failed, 2 on a setup error.
#
# Needs root for apt-get (packages are installed only when missing; apt-get
# update runs only then or when the source must be fetched). Non-interactive.
set -euo pipefail

SELF=$(readlink -f "${BASH_SOURCE[0]}")
CI_DIR=$(dirname "$SELF")
REPO=$(cd "$CI_DIR/.." && pwd)
DATA_DIR=$CI_DIR/mpich-testsuite
TESTLIST_SRC=$DATA_DIR/alltoall.testlist
EXCLUDED_SRC=$DATA_DIR/excluded.txt
FULL_EXCLUDED_SRC=$DATA_DIR/full-excluded.txt

TOPOA2A_ALGS_DEFAULT="ring ring_bidir mesh hypercube onefactor onefactor_xor node_aware multileader torus direct_scheduled node_aware_log topo_auto"
TOPOA2A_ALGS_ALL="$TOPOA2A_ALGS_DEFAULT"
STOCK_ALGS_DEFAULT="brucks pairwise"
ALLTOALLV_ALGS=${TOPOA2A_ALLTOALLV_ALGS:-"ring onefactor node_aware multileader direct_scheduled node_aware_log"}
MPICH_ALLTOALLV_VALUES="auto nb pairwise_sendrecv_replace scattered"

CACHE=${TOPOA2A_CACHE:-/var/cache/topoa2a}
ART=${TOPOA2A_ARTIFACTS:-$REPO/build/mpich-testsuite}
JOBS=${JOBS:-$(nproc)}
TEST_MPI=/usr   # the MPI the test programs are built against (see --mpich-src)
CONFIGURE_ARGS=(--disable-fortran --disable-cxx --disable-romio
                --disable-spawn --disable-dtpools --disable-ft-tests --disable-perftest)
PACKAGES=(mpich libmpich-dev perl make gcc libc6-dev dpkg-dev xz-utils procps
          debian-archive-keyring)
export DEBIAN_FRONTEND=noninteractive

LOG_TAG=mpich-testsuite
# shellcheck source=lib/mpich-source.sh
source "$CI_DIR/lib/mpich-source.sh"
has_word() { local w; for w in $2; do [[ $w == "$1" ]] && return 0; done; return 1; }

# ---- arguments ---------------------------------------------------------------
FULL=0 NONBLOCKING=0 PRELOAD=1 ALGS="" VERBOSE=0 NATIVE="" MAXNP=${TOPOA2A_FULL_MAXNP:-4} SUITES=""
SUITES_KNOWN="comm attr"
SUITE_ALGS_DEFAULT="ring topo_auto"
while (($#)); do
  case $1 in
    --full) FULL=1 ;;
    --nonblocking) NONBLOCKING=1 ;;
    --suite) (($# >= 2)) || die "--suite needs a value"; SUITES=$2; shift ;;
    --suite=*) SUITES=${1#--suite=} ;;
    --no-preload) PRELOAD=0 ;;
    --native) (($# >= 2)) || die "--native needs a prefix"; NATIVE=$2; PRELOAD=0; shift ;;
    --mpich-src) (($# >= 2)) || die "--mpich-src needs a directory"; MPICH_SRC=$2; shift ;;
    --mpich-src=*) MPICH_SRC=${1#--mpich-src=} ;;
    --algs) (($# >= 2)) || die "--algs needs a value"; ALGS=$2; shift ;;
    --algs=*) ALGS=${1#--algs=} ;;
    --verbose) VERBOSE=1 ;;
    --maxnp) (($# >= 2)) || die "--maxnp needs a value"; MAXNP=$2; shift ;;
    --maxnp=*) MAXNP=${1#--maxnp=} ;;
    -h|--help) sed -n '2,/^set -euo/p' "$SELF" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument: $1 (see --help)" ;;
  esac
  shift
done

LIB=""
if ((PRELOAD)); then
  if [[ -n ${TOPOA2A_LIB:-} ]]; then
    [[ -f $TOPOA2A_LIB ]] || die "TOPOA2A_LIB=$TOPOA2A_LIB does not exist"
    LIB=$(readlink -f "$TOPOA2A_LIB")
  elif [[ -f $REPO/build/plugin/libtopoa2a.so ]]; then
    LIB=$REPO/build/plugin/libtopoa2a.so
  else
    log "WARNING: $REPO/build/plugin/libtopoa2a.so not found: running stock MPICH (--no-preload)"
    PRELOAD=0
  fi
fi
if [[ -n $NATIVE ]]; then
  [[ -f $NATIVE/lib/libmpich.so.12 ]] || die "--native $NATIVE: no lib/libmpich.so.12 there"
  NATIVE=$(readlink -f "$NATIVE")
  LIB=$(readlink -f "${TOPOA2A_NATIVE_LIB:-$REPO/build/plugin/libtopoa2a_native.so}")
  [[ -f $LIB ]] || die "native plugin $LIB does not exist (build it, or set TOPOA2A_NATIVE_LIB)"
fi
OURS=$PRELOAD; [[ -n $NATIVE ]] && OURS=1   # topoa2a takes part: its stats are expected
[[ $MAXNP =~ ^[0-9]+$ ]] || die "--maxnp: not a number: $MAXNP"
for s in $SUITES; do has_word "$s" "$SUITES_KNOWN" || die "--suite: unknown directory $s (known: $SUITES_KNOWN)"; done
((FULL)) && [[ -n $SUITES ]] && die "--full and --suite exclude each other"
((NONBLOCKING)) && { ((FULL)) || [[ -n $SUITES ]]; } && die "--nonblocking excludes --full and --suite"
((NONBLOCKING)) && TESTLIST_SRC=$DATA_DIR/nonblocking.testlist
((NONBLOCKING)) && ((!PRELOAD)) && [[ -z $NATIVE ]] && STOCK_ALGS_DEFAULT="auto tsp_scattered"
# MPICH's own values of the nonblocking variables (passed through).
MPICH_IALLTOALLV_VALUES="auto sched_auto sched_blocked sched_inplace tsp_scattered tsp_blocked tsp_inplace"
if [[ -z $ALGS ]]; then
  if [[ -n $SUITES ]]; then
    if ((OURS)); then ALGS=$SUITE_ALGS_DEFAULT; else ALGS=auto; fi
  elif ((FULL)); then
    if ((OURS)); then ALGS=topo_auto; else ALGS=auto; fi
  elif ((OURS)); then ALGS=$TOPOA2A_ALGS_DEFAULT
  else ALGS=$STOCK_ALGS_DEFAULT
  fi
fi
if ((FULL)) || [[ -n $SUITES ]]; then export MPITEST_TIMEOUT=${MPITEST_TIMEOUT:-180}
else export MPITEST_TIMEOUT=${MPITEST_TIMEOUT:-120}
fi

# ---- packages ----------------------------------------------------------------
# ---- MPICH source ------------------------------------------------------------
# A git checkout of MPICH has no test/mpi/configure: generate one (once, in
# the cache, keyed by the files it is made from) with test/mpi/autogen.sh in
# a copy of test/mpi beside the confdb and maint/version.m4 it takes; sets SRC.
generate_test_source() {
  local from=$1 key gen
  ensure_packages autoconf automake libtool python3
  key=$( { (cd "$from" && find test/mpi confdb maint/version.m4 -type f ! -path '*/.git/*' -print0 |
             LC_ALL=C sort -z | xargs -0 sha256sum); } | sha256sum | cut -c1-16)
  gen=$CACHE/src/mpich-testsrc-$key
  if [[ ! -f $gen/.topoa2a-complete ]]; then
    log "generating test/mpi of $from (test/mpi/autogen.sh) in $gen"
    rm -rf "$gen" "$gen.tmp"; mkdir -p "$gen.tmp/maint" "$gen.tmp/test"
    cp -a "$from/test/mpi" "$gen.tmp/test/mpi"
    cp -a "$from/confdb" "$gen.tmp/confdb"
    cp -a "$from/maint/version.m4" "$gen.tmp/maint/version.m4"
    (cd "$gen.tmp/test/mpi" && ./autogen.sh) > "$gen.tmp/autogen.log" 2>&1 ||
      { tail -n 30 "$gen.tmp/autogen.log" >&2; die "test/mpi/autogen.sh failed, see $gen.tmp/autogen.log"; }
    touch "$gen.tmp/.topoa2a-complete"
    mv "$gen.tmp" "$gen"
  fi
  SRC=$gen
}
# The MPICH version of a test source ("" if it does not say) and of an
# installed MPICH.
source_version() {
  sed -n 's/^m4_define(\[MPICH_VERSION_m4\],\[\([^]]*\)\]).*/\1/p' "$1/test/mpi/version.m4" 2>/dev/null | head -n1
}
prefix_version() {
  sed -n 's/^#define MPICH_VERSION "\(.*\)"$/\1/p' "$1/include/mpi.h" 2>/dev/null | head -n1
}
fetch_source() {  # sets SRC
  if [[ -n ${MPICH_SRC:-} ]]; then
    SRC=$(readlink -f "$MPICH_SRC")
    # runtests.in up to 4.x; MPICH 5.0 ships runtests itself
    if [[ -f $SRC/test/mpi/configure && ( -f $SRC/test/mpi/runtests.in || -f $SRC/test/mpi/runtests ) ]]; then
      return 0
    fi
    [[ -f $SRC/test/mpi/autogen.sh && -d $SRC/confdb && -f $SRC/maint/version.m4 ]] ||
      die "MPICH_SRC=$MPICH_SRC: neither a generated test/mpi (configure) nor an MPICH checkout (test/mpi/autogen.sh, confdb, maint/version.m4)"
    generate_test_source "$SRC"
    return 0
  fi
  local upver dl tmp orig DL
  upver=$(mpich_upstream_version)
  SRC=$CACHE/src/mpich-$upver
  [[ -f $SRC/.topoa2a-complete ]] && return 0
  download_mpich_source
  dl=$DL
  tmp=$SRC.tmp
  rm -rf "$SRC" "$tmp"; mkdir -p "$tmp"
  orig=$(find "$dl" -maxdepth 1 -name "mpich_${upver}.orig.tar.*" | head -n1)
  # Only test/mpi is needed: extract just that (22 MB instead of 440 MB) unless
  # a Debian patch touches it, in which case unpack and patch the whole source.
  mkdir -p "$tmp/debian-tar"
  tar -xf "$(find "$dl" -maxdepth 1 -name 'mpich_*.debian.tar.*' | head -n1)" -C "$tmp/debian-tar"
  if [[ -n $orig ]] && ! grep -rqsE '^\+\+\+ ([^/]*/)?test/mpi/' "$tmp/debian-tar/debian/patches/"; then
    log "extracting test/mpi from $(basename "$orig")"
    tar -xf "$orig" -C "$tmp" --strip-components=1 "mpich-$upver/test/mpi"
  else
    log "unpacking the whole source with dpkg-source"
    rm -rf "$tmp"
    dpkg-source --no-check -x "$(find "$dl" -maxdepth 1 -name 'mpich_*.dsc' | head -n1)" "$tmp" >&2
  fi
  rm -rf "$tmp/debian-tar"
  [[ -f $tmp/test/mpi/configure ]] || die "fetched source has no test/mpi/configure"
  touch "$tmp/.topoa2a-complete"
  mv "$tmp" "$SRC"
}

# ---- test list ---------------------------------------------------------------
# Entries "name np [args]" of a list file, comments and blank lines dropped.
list_entries() { sed -e 's/#.*//' -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$1"; }
check_selection() {  # every coll source calling a blocking alltoall[v] is listed or excluded
  local f name bad=0
  local known
  known=$( { list_entries "$DATA_DIR/alltoall.testlist"; list_entries "$EXCLUDED_SRC"; } | awk '{print $1}' | sort -u)
  for f in $(grep -lE '\b(MPI|MTest)_Alltoallv?[[:space:]]*\(' "$SRC"/test/mpi/coll/*.c || true); do
    name=$(basename "$f" .c)
    if ! grep -qxF "$name" <<<"$known"; then
      log "coll/$name.c calls a blocking MPI_Alltoall[v] but is neither in alltoall.testlist nor in $(basename "$EXCLUDED_SRC")"
      bad=1
    fi
  done
  ((bad == 0)) || die "update ci/mpich-testsuite/ for this MPICH source"
}

# Writes a testlist ($1, e.g. coll/testlist) less the entries of the exclusion
# list $4 (default full-excluded.txt) to $2 and the excluded entries with their
# reasons to $3; $5 is the keep list (default full-keepnp.txt, may be absent);
# $6, optional, a reduce list: "name np newnp reason": that entry runs with
# newnp processes instead (marked "# np N reduced to M"; an entry that
# matches nothing, or has no reason, is an error).
# Exclusion list: "name np
# reason...", np "*" for every process count (MPICH's count, before the cap);
# an entry that matches nothing in coll/testlist, or has no reason, is an
# error. With MAXNP > 0 a larger process count becomes MAXNP (marked with a
# comment) and an entry that then repeats an earlier one is dropped (marked
# "# merged"), except for programs listed in the keep list ("name reason":
# programs that need a particular process count).
full_testlist() {
  local src=$1 out=$2 excl=$3 exlist=${4:-$FULL_EXCLUDED_SRC} keeplist=${5:-$DATA_DIR/full-keepnp.txt}
  local reducelist=${6:-/nonexistent}
  : > "$excl"
  awk -v listfile="$exlist" -v exclout="$excl" -v maxnp="$MAXNP" -v keepfile="$keeplist" \
      -v exname="$(basename "$exlist")" -v keepname="$(basename "$keeplist")" \
      -v reducefile="$reducelist" -v reducename="$(basename "$reducelist")" '
    function fields(line) {  # sets nf, f[]: the words of line without its comment
      sub(/#.*/, "", line); sub(/^[[:space:]]+/, "", line); sub(/[[:space:]]+$/, "", line)
      nf = (line == "") ? 0 : split(line, f, /[[:space:]]+/)
      return line
    }
    BEGIN {
      while ((getline raw < listfile) > 0) {
        fields(raw)
        if (nf == 0) continue
        if (nf < 3) { print exname ": no reason given: " raw > "/dev/stderr"; bad = 1; continue }
        k = f[1] " " f[2]; reason = f[3]; for (i = 4; i <= nf; i++) reason = reason " " f[i]
        ex[k] = reason; used[k] = 0; order[++ne] = k
      }
      while ((getline raw < keepfile) > 0) {   # "name reason": never capped
        fields(raw)
        if (nf == 0) continue
        if (nf < 2) { print keepname ": no reason given: " raw > "/dev/stderr"; bad = 1; continue }
        keep[f[1]] = 1
      }
      while ((getline raw < reducefile) > 0) {   # "name np newnp reason"
        fields(raw)
        if (nf == 0) continue
        if (nf < 4 || f[3] !~ /^[0-9]+$/) { print reducename ": want \"name np newnp reason\": " raw > "/dev/stderr"; bad = 1; continue }
        k = f[1] " " f[2]; reduce[k] = f[3]; rused[k] = 0; rorder[++nr] = k
      }
    }
    {
      entry = fields($0)
      if (nf == 0) { print; next }
      k = f[1] " " f[2]
      if (!(k in ex)) k = f[1] " *"
      if (k in ex) { used[k]++; printf "%-36s %s\n", entry, ex[k] >> exclout; print "# excluded: " $0; next }
      k = f[1] " " f[2]
      if (k in reduce) {
        rused[k]++
        line = f[1] " " reduce[k]; for (i = 3; i <= nf; i++) line = line " " f[i]
        seen[line] = 1; print line "    # np " f[2] " reduced to " reduce[k] " (" reducename ")"; next
      }
      if (maxnp > 0 && !(f[1] in keep) && f[2] ~ /^[0-9]+$/ && f[2] + 0 > maxnp) {
        capped = f[1] " " maxnp; for (i = 3; i <= nf; i++) capped = capped " " f[i]
        if (capped in seen) { print "# merged (np " f[2] " capped to " maxnp "): " $0; next }
        seen[capped] = 1; print capped "    # np " f[2] " capped to " maxnp; next
      }
      seen[entry] = 1
      print
    }
    END {
      for (i = 1; i <= ne; i++) if (!used[order[i]]) {
        print exname ": \"" order[i] "\" matches no entry of " FILENAME > "/dev/stderr"; bad = 1 }
      for (i = 1; i <= nr; i++) if (!rused[rorder[i]]) {
        print reducename ": \"" rorder[i] "\" matches no entry of " FILENAME > "/dev/stderr"; bad = 1 }
      exit bad
    }' "$src" > "$out" || die "fix the list file named above ($(basename "$exlist"), $(basename "$keeplist") or $(basename "$reducelist"))"
}

# ---- build (cached) ----------------------------------------------------------
cache_key() {
  {
    sed -n '/^# ---- build (cached)/,/^# ---- wrapper/p' "$SELF" | sha256sum | awk '{print $1}'
    dpkg-query -W -f='${Package} ${Version}\n' mpich libmpich-dev
    "$TEST_MPI/bin/mpicc" -show
    printf '%s\n' "--with-mpi=$TEST_MPI" "${CONFIGURE_ARGS[@]}"
    (cd "$SRC/test/mpi" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
  } | sha256sum | cut -c1-16
}
build_tree() {  # sets TREE; caller holds the cache lock
  local key root
  key=$(cache_key)
  root=$CACHE/testtree-$key
  TREE=$root/mpi
  if [[ ! -f $root/.configured ]]; then
    log "configuring test/mpi in $root (cold build)"
    rm -rf "$root"; mkdir -p "$root"
    cp -a "$SRC/test/mpi" "$TREE"
    (cd "$TREE" && ./configure --with-mpi="$TEST_MPI" "${CONFIGURE_ARGS[@]}") > "$root/configure.log" 2>&1 ||
      { tail -n 30 "$root/configure.log" >&2; die "configure failed, see $root/configure.log"; }
    { make -C "$TREE/util" -j"$JOBS" && make -C "$TREE/dtpools" -j"$JOBS"; } > "$root/build.log" 2>&1 ||
      { tail -n 30 "$root/build.log" >&2; die "building util/ failed, see $root/build.log"; }
    touch "$root/.configured"
  else
    log "using cached test tree $root"
  fi
  touch "$root"
  if ((FULL)) || [[ -n $SUITES ]]; then
    # -k: a program that does not build is reported by runtests as a failed test.
    local d
    for d in ${SUITES:-coll}; do
      make -C "$TREE/$d" -k -j"$JOBS" >> "$root/build.log" 2>&1 ||
        log "WARNING: some $d/ programs failed to build (see $root/build.log)"
    done
  else
    local progs
    progs=$(list_entries "$TESTLIST_SRC" | awk '{print $1}' | sort -u)
    # shellcheck disable=SC2086
    make -C "$TREE/coll" -j"$JOBS" $progs >> "$root/build.log" 2>&1 ||
      { tail -n 30 "$root/build.log" >&2; die "building coll/ tests failed, see $root/build.log"; }
  fi
  # keep the three most recently used trees
  ls -dt "$CACHE"/testtree-* 2>/dev/null | tail -n +4 | xargs -r rm -rf
}

# ---- wrapper around each MPI program -----------------------------------------
write_wrapper() {
  cat > "$1" <<'EOF'
#!/bin/bash
# Generated by ci/mpich-testsuite.sh: run one MPI rank; stderr lines starting
# with "topoa2a-stats " go to $TOPOA2A_STATS_LOG (prefixed with test=<program>
# np=<size>), everything else to stderr. LD_PRELOAD only for the program.
prog=${1##*/}
exec 2> >(
  while IFS= read -r line || [[ -n $line ]]; do
    case $line in
      "topoa2a-stats "*) printf 'test=%s np=%s %s\n' "$prog" "${PMI_SIZE:-?}" "$line" >> "$TOPOA2A_STATS_LOG" ;;
      *) printf '%s\n' "$line" >&2 ;;
    esac
  done
)
if [[ -n ${TOPOA2A_PRELOAD:-} ]]; then
  export LD_PRELOAD="$TOPOA2A_PRELOAD${LD_PRELOAD:+:$LD_PRELOAD}"
fi
if [[ -n ${TOPOA2A_NATIVE_PREFIX:-} ]]; then
  export LD_LIBRARY_PATH="$TOPOA2A_NATIVE_PREFIX/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export MPIR_CVAR_COLL_PLUGIN=$TOPOA2A_NATIVE_PLUGIN
fi
exec "$@"
EOF
  chmod +x "$1"
}

# ---- run ---------------------------------------------------------------------
run_alg() {  # $1 = algorithm value; writes $ART/runs/$1/
  local alg=$1 out=$ART/runs/$1 rc=0 v
  mkdir -p "$out"
  : > "$out/stats.log"
  local -a envs=(MPIR_CVAR_TOPOA2A_STATS=1 MPITEST_RUN_INDIVIDUAL=1
                 TOPOA2A_STATS_LOG="$out/stats.log"
                 MPITEST_PROGRAM_WRAPPER="$WRAPPER")
  if ((NONBLOCKING)); then
    envs+=(MPIR_CVAR_IALLTOALL_INTRA_ALGORITHM="$alg")
    if has_word "$alg" "$ALLTOALLV_ALGS topo_auto $MPICH_IALLTOALLV_VALUES"; then
      envs+=(MPIR_CVAR_IALLTOALLV_INTRA_ALGORITHM="$alg")
    fi
  else
    envs+=(MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM="$alg")
    if has_word "$alg" "$ALLTOALLV_ALGS $MPICH_ALLTOALLV_VALUES"; then
      envs+=(MPIR_CVAR_ALLTOALLV_INTRA_ALGORITHM="$alg")
    fi
  fi
  ((PRELOAD)) && envs+=(TOPOA2A_PRELOAD="$LIB")
  [[ -n $NATIVE ]] && envs+=(TOPOA2A_NATIVE_PREFIX="$NATIVE" TOPOA2A_NATIVE_PLUGIN="$LIB")
  local -a unset_args=()
  for v in MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM MPIR_CVAR_ALLTOALLV_INTRA_ALGORITHM \
           MPIR_CVAR_IALLTOALL_INTRA_ALGORITHM MPIR_CVAR_IALLTOALLV_INTRA_ALGORITHM \
           MPIR_PARAM_IALLTOALL_INTRA_ALGORITHM MPIR_PARAM_IALLTOALLV_INTRA_ALGORITHM \
           MPICH_IALLTOALL_INTRA_ALGORITHM MPICH_IALLTOALLV_INTRA_ALGORITHM \
           MPIR_PARAM_ALLTOALL_INTRA_ALGORITHM \
           MPIR_PARAM_ALLTOALLV_INTRA_ALGORITHM MPICH_ALLTOALL_INTRA_ALGORITHM \
           MPICH_ALLTOALLV_INTRA_ALGORITHM TOPOA2A_PRELOAD TOPOA2A_NATIVE_PREFIX \
           MPIR_CVAR_COLL_PLUGIN; do unset_args+=(-u "$v"); done
  local -a rt=(perl "$TREE/runtests" -mpiexec="$(command -v mpiexec)"
               -xmlfile="$out/summary.xml" -tapfile="$out/summary.tap"
               -junitfile="$out/summary.junit.xml")
  ((VERBOSE)) && rt+=(-verbose)
  local dir
  if ((FULL)); then dir=$TREE/coll; else dir=$TREE; fi
  # relative to the directory runtests runs in: MPICH 5.0's runtests reads
  # the list as ./<given path>
  rt+=(-srcdir=. -tests="$(realpath --relative-to="$dir" "$ART/testlist")")
  log "running $alg: ${envs[*]:0:2}$( ((PRELOAD)) && echo " LD_PRELOAD=(copy of) $LIB_SRC")$([[ -n $NATIVE ]] && echo " native: $NATIVE")"
  local t0=$SECONDS
  (cd "$dir" && env "${unset_args[@]}" USER="${USER:-$(id -un)}" "${envs[@]}" "${rt[@]}") \
    > "$out/runtests.log" 2>&1 || rc=$?
  echo "$((SECONDS - t0))" > "$out/seconds"
  ((rc == 0)) || log "runtests for $alg exited with status $rc"
  grep '^not ok ' "$out/summary.tap" 2>/dev/null | sed -e 's/ # time=.*//' -e "s|^|  [$alg] |" >&2 || true
  return 0
}

# Prints "run passed failed skipped" from a TAP file.
tap_counts() {
  awk '/^ok .*# SKIP/ {s++; next} /^ok / {p++} /^not ok / {f++}
       END {printf "%d %d %d %d\n", p+f, p, f, s}' "$1" 2>/dev/null || echo "0 0 0 0"
}
# Prints "ok|MISSING <details>" for the stats check of algorithm $1.
stats_check() {
  local alg=$1 log=$ART/runs/$1/stats.log seen need ok=1 op
  seen=$(awk '{ op=""; a="";
                for (i = 1; i <= NF; i++) { if ($i ~ /^op=/) op = substr($i, 4); if ($i ~ /^algorithm=/) a = substr($i, 11) }
                n[op ":" a]++ }
              END { for (k in n) printf "%s(%d) ", k, n[k] }' "$log" 2>/dev/null | tr ' ' '\n' | sort | tr '\n' ' ')
  seen=${seen% }
  if ((!OURS)); then echo "n/a ${seen:-none}"; return; fi
  # comm/ and attr/ make no MPI_Alltoall calls: nothing to require
  if [[ -n $SUITES ]]; then echo "n/a ${seen:-none}"; return; fi
  if [[ $alg == topo_auto ]] || ! has_word "$alg" "$TOPOA2A_ALGS_ALL"; then
    [[ -n $seen ]] || ok=0
  else
    need="alltoall"
    has_word "$alg" "$ALLTOALLV_ALGS" && need+=" alltoallv"
    ((NONBLOCKING)) && need="ialltoall alltoall_init" &&
      { ! has_word "$alg" "$ALLTOALLV_ALGS" || need+=" ialltoallv alltoallv_init"; }
    for op in $need; do
      grep -qE "(^| )op=$op algorithm=$alg( |$)" "$log" || ok=0
    done
  fi
  if ((ok)); then echo "yes ${seen}"; else echo "MISSING ${seen:-none}"; fi
}

# ---- main --------------------------------------------------------------------
T_START=$SECONDS
ensure_packages "${PACKAGES[@]}"
mkdir -p "$CACHE"
exec 9> "$CACHE/.lock"
flock 9     # one run at a time per cache: the test tree and the 2 cores are shared
fetch_source
SRC_VERSION=$(source_version "$SRC")
if [[ -n $NATIVE && -n $SRC_VERSION && $SRC_VERSION != "$(mpich_upstream_version)" &&
      $SRC_VERSION == "$(prefix_version "$NATIVE")" && -x $NATIVE/bin/mpicc ]]; then
  TEST_MPI=$NATIVE
fi
log "test source: $SRC (MPICH ${SRC_VERSION:-version unknown}), built with $TEST_MPI/bin/mpicc"
# MPICH 5.0's test/mpi/coll no longer builds nballtoall1.
if ((NONBLOCKING)) && [[ $SRC_VERSION == 5.* ]]; then
  TESTLIST_SRC=$DATA_DIR/nonblocking-5.0.testlist
  log "nonblocking tests of MPICH $SRC_VERSION: $TESTLIST_SRC"
fi
check_selection
build_tree
T_BUILD=$((SECONDS - T_START))

mkdir -p "$ART"
rm -rf "$ART/runs"
rm -f "$ART/excluded.txt"
if ((FULL)); then
  full_testlist "$TREE/coll/testlist" "$ART/testlist" "$ART/excluded.txt"
  EXPECTED=$(list_entries "$ART/testlist" | wc -l)
  log "full coll/testlist: $EXPECTED entries to run, $(wc -l < "$ART/excluded.txt") excluded (see $ART/excluded.txt)$( ((MAXNP)) &&
      echo ", $(grep -c '# np [0-9]* capped' "$ART/testlist") with np capped to $MAXNP, $(grep -c '^# merged' "$ART/testlist") merged into an equal entry")"
elif [[ -n $SUITES ]]; then
  : > "$ART/testlist"; : > "$ART/excluded.txt"
  for d in $SUITES; do
    full_testlist "$TREE/$d/testlist" "$ART/testlist.$d" "$ART/excluded.$d" \
      "$DATA_DIR/$d-excluded.txt" "$DATA_DIR/$d-keepnp.txt" "$DATA_DIR/$d-reduced.txt"
    # names relative to test/mpi: runtests runs from there
    sed -E "/^[[:space:]]*(#|\$)/! s|^[[:space:]]*|$d/|" "$ART/testlist.$d" >> "$ART/testlist"
    sed "s|^|$d/|" "$ART/excluded.$d" >> "$ART/excluded.txt"
    rm -f "$ART/testlist.$d" "$ART/excluded.$d"
  done
  EXPECTED=$(list_entries "$ART/testlist" | wc -l)
  log "$SUITES: $EXPECTED entries to run, $(wc -l < "$ART/excluded.txt") excluded (see $ART/excluded.txt)$( ((MAXNP)) &&
      echo ", $(grep -c '# np [0-9]* capped' "$ART/testlist") with np capped to $MAXNP, $(grep -c '^# merged' "$ART/testlist") merged into an equal entry")"
else
  list_entries "$TESTLIST_SRC" | sed 's|^|coll/|' > "$ART/testlist"
  EXPECTED=$(wc -l < "$ART/testlist")
fi
TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT
WRAPPER=$TMPD/topoa2a-wrap
write_wrapper "$WRAPPER"
LIB_SRC=$LIB
if [[ -n $LIB ]]; then   # run a copy: a rebuild of build/ during the run changes nothing
  mkdir -p "$TMPD/lib"
  cp -L "$LIB" "$TMPD/lib/$(basename "$LIB")"
  LIB=$TMPD/lib/$(basename "$LIB")
fi

log "mode: $( ((FULL)) && echo full coll/ || { [[ -n $SUITES ]] && echo "$SUITES, $EXPECTED tests"; } || { ((NONBLOCKING)) && echo "nonblocking/persistent subset, $EXPECTED tests"; } || echo "alltoall subset, $EXPECTED tests"); preload: $( ((PRELOAD)) && echo "$LIB_SRC" || echo none); native: ${NATIVE:-no}; algorithms: $ALGS"
for alg in $ALGS; do run_alg "$alg"; done

TOTAL_P=0 TOTAL_F=0
SUMMARY=$ART/summary.txt
printf '%-26s %5s %6s %6s %5s %5s  %s\n' algorithm run passed failed skip secs "stats seen (op:algorithm(lines))" > "$SUMMARY"
for alg in $ALGS; do
  read -r run p f s < <(tap_counts "$ART/runs/$alg/summary.tap")
  notrun=0
  if ((EXPECTED > 0 && run + s < EXPECTED)); then notrun=$((EXPECTED - run - s)); fi
  if ((EXPECTED == 0 && run == 0)); then notrun=1; fi
  st=$(stats_check "$alg")
  f=$((f + notrun))
  [[ $st == MISSING* ]] && f=$((f + 1))
  TOTAL_P=$((TOTAL_P + p)); TOTAL_F=$((TOTAL_F + f))
  note=""
  ((notrun)) && note=" [$notrun not run, see runs/$alg/runtests.log]"
  printf '%-26s %5d %6d %6d %5d %5s  %s%s\n' "$alg" "$run" "$p" "$f" "$s" \
    "$(cat "$ART/runs/$alg/seconds")" "$st" "$note" >> "$SUMMARY"
done
# runtests names a test "./prog"; with --suite the directory comes from the
# testlist (programs of comm/ and attr/ have distinct names).
suite_dir() {
  awk -v p="$1" '{ sub(/#.*/, "") } NF { n = split($1, a, "/"); if (n == 2 && a[2] == p) { print a[1]; exit } }' "$ART/testlist"
}
for alg in $ALGS; do
  grep '^not ok ' "$ART/runs/$alg/summary.tap" 2>/dev/null |
    sed -e 's/ # time=.*//' -e "s|^not ok [0-9]* - |failed: [$alg] |" |
    while IFS= read -r line; do
      if [[ -n $SUITES && $line =~ ^(failed:\ \[[^]]*\]\ )\./([^ ]+)(.*)$ ]]; then
        d=$(suite_dir "${BASH_REMATCH[2]}")
        line="${BASH_REMATCH[1]}${d:-.}/${BASH_REMATCH[2]}${BASH_REMATCH[3]}"
      fi
      printf '%s\n' "$line"
    done >> "$SUMMARY" || true
done
if [[ -n $SUITES ]]; then
  echo "$SUITES: $(wc -l < "$ART/excluded.txt") entries excluded (<dir>-excluded.txt, listed in excluded.txt), $(grep -c '# np [0-9]* reduced' "$ART/testlist") reduced (<dir>-reduced.txt); np capped at $( ((MAXNP)) && echo "$MAXNP: $(grep -c '# np [0-9]* capped' "$ART/testlist") entries capped, $(grep -c '^# merged' "$ART/testlist") merged" || echo "none (MPICH's counts)"); MPITEST_TIMEOUT=${MPITEST_TIMEOUT}s" >> "$SUMMARY"
fi
if ((FULL)); then
  echo "coll/testlist: $(wc -l < "$ART/excluded.txt") entries excluded ($(basename "$FULL_EXCLUDED_SRC"), listed in excluded.txt); np capped at $( ((MAXNP)) && echo "$MAXNP: $(grep -c '# np [0-9]* capped' "$ART/testlist") entries capped, $(grep -c '^# merged' "$ART/testlist") merged" || echo "none (MPICH's counts)"); MPITEST_TIMEOUT=${MPITEST_TIMEOUT}s" >> "$SUMMARY"
fi
echo "build/setup: ${T_BUILD}s, total: $((SECONDS - T_START))s; artifacts: $ART" >> "$SUMMARY"
echo "$TOTAL_P passed, $TOTAL_F failed" >> "$SUMMARY"
cat "$SUMMARY"
((TOTAL_F == 0))
