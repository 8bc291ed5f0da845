#!/usr/bin/env bash
# Runs MPICH 4.0.2's own test suite (test/mpi/coll) with topoa2a's algorithms
# selected through LD_PRELOAD of libtopoa2a.so.
#
# Usage: ci/mpich-testsuite.sh [--full] [--no-preload] [--algs "A B ..."] [--verbose]
#   (default)     the blocking MPI_Alltoall/MPI_Alltoallv tests listed in
#                 ci/mpich-testsuite/alltoall.testlist, once per algorithm:
#                 ring ring_bidir mesh hypercube onefactor onefactor_xor topo_auto
#   --full        MPICH's whole coll/testlist once, with topo_auto
#   --no-preload  stock MPICH, no LD_PRELOAD; default algorithms "brucks pairwise"
#                 (MPICH's own values), "auto" with --full. Also chosen, with a
#                 warning, when TOPOA2A_LIB is unset and the default library
#                 does not exist.
#   --algs LIST   the algorithm values to run (space separated)
#   --verbose     runtests -verbose (every program's output in runtests.log)
#
# Environment:
#   TOPOA2A_LIB        library to preload (default <repo>/build/plugin/libtopoa2a.so;
#                      an explicitly given path that does not exist is an error)
#   TOPOA2A_CACHE      cache outside the clone (default /var/cache/topoa2a): the
#                      MPICH source (apt-get source) and the built test trees,
#                      testtree-<hash of this script, the list files, the MPICH
#                      source tree, the MPICH package version, mpicc -show>
#   MPICH_SRC          use this unpacked MPICH source instead of fetching one
#   TOPOA2A_ARTIFACTS  output directory (default <repo>/build/mpich-testsuite)
#   MPITEST_TIMEOUT    per-test limit in seconds (default here 120), enforced
#                      by mpiexec (MPIEXEC_TIMEOUT, set by runtests)
#   TOPOA2A_ALLTOALLV_ALGS  topoa2a values that also select the MPI_Alltoallv
#                      algorithm (default "ring onefactor"); MPICH's own
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
# Artifacts (TOPOA2A_ARTIFACTS): testlist (as run), summary.txt, and per
# algorithm runs/<alg>/{summary.xml,summary.tap,summary.junit.xml,runtests.log,
# stats.log}.
#
# Result: a table per algorithm (tests run, passed, failed, stats seen) and a
# last line "N passed, N failed". Failed counts failed tests, listed tests that
# did not run, and, with preload, each algorithm whose stats lines never
# appeared (op=alltoall algorithm=<alg>, and op=alltoallv too where the
# alltoallv variable is set; topo_auto: any stats line). Exit status 1 when
# anything failed, 2 on a setup error.
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

TOPOA2A_ALGS_DEFAULT="ring ring_bidir mesh hypercube onefactor onefactor_xor topo_auto"
TOPOA2A_ALGS_ALL="$TOPOA2A_ALGS_DEFAULT"
STOCK_ALGS_DEFAULT="brucks pairwise"
ALLTOALLV_ALGS=${TOPOA2A_ALLTOALLV_ALGS:-"ring onefactor"}
MPICH_ALLTOALLV_VALUES="auto nb pairwise_sendrecv_replace scattered"

CACHE=${TOPOA2A_CACHE:-/var/cache/topoa2a}
ART=${TOPOA2A_ARTIFACTS:-$REPO/build/mpich-testsuite}
export MPITEST_TIMEOUT=${MPITEST_TIMEOUT:-120}
JOBS=${JOBS:-$(nproc)}
CONFIGURE_ARGS=(--with-mpi=/usr --disable-fortran --disable-cxx --disable-romio
                --disable-spawn --disable-dtpools --disable-ft-tests --disable-perftest)
PACKAGES=(mpich libmpich-dev perl make gcc libc6-dev dpkg-dev xz-utils procps
          debian-archive-keyring)
export DEBIAN_FRONTEND=noninteractive

log() { printf '[mpich-testsuite %3ds] %s\n' "$SECONDS" "$*" >&2; }
die() { log "error: $*"; exit 2; }
has_word() { local w; for w in $2; do [[ $w == "$1" ]] && return 0; done; return 1; }

# ---- arguments ---------------------------------------------------------------
FULL=0 PRELOAD=1 ALGS="" VERBOSE=0
while (($#)); do
  case $1 in
    --full) FULL=1 ;;
    --no-preload) PRELOAD=0 ;;
    --algs) (($# >= 2)) || die "--algs needs a value"; ALGS=$2; shift ;;
    --algs=*) ALGS=${1#--algs=} ;;
    --verbose) VERBOSE=1 ;;
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
if [[ -z $ALGS ]]; then
  if ((FULL)); then
    if ((PRELOAD)); then ALGS=topo_auto; else ALGS=auto; fi
  elif ((PRELOAD)); then ALGS=$TOPOA2A_ALGS_DEFAULT
  else ALGS=$STOCK_ALGS_DEFAULT
  fi
fi

# ---- packages ----------------------------------------------------------------
APT_UPDATED=0
apt_update() {
  ((APT_UPDATED)) && return 0
  log "apt-get update"
  apt-get -q -o Dpkg::Use-Pty=0 update >&2
  APT_UPDATED=1
}
ensure_packages() {
  local p missing=()
  for p in "${PACKAGES[@]}"; do
    [[ $(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true) == installed ]] ||
      missing+=("$p")
  done
  ((${#missing[@]})) || return 0
  apt_update
  log "apt-get install ${missing[*]}"
  apt-get -q -y -o Dpkg::Use-Pty=0 install --no-install-recommends "${missing[@]}" >&2
}

# ---- MPICH source ------------------------------------------------------------
ensure_deb_src() {
  if ! grep -rqsE '^(deb-src[[:space:]]|Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    log "adding /etc/apt/sources.list.d/debian-src.sources"
    cat > /etc/apt/sources.list.d/debian-src.sources <<'EOF'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    APT_UPDATED=0
  fi
}
fetch_source() {  # sets SRC
  if [[ -n ${MPICH_SRC:-} ]]; then
    SRC=$(readlink -f "$MPICH_SRC")
    [[ -f $SRC/test/mpi/configure && -f $SRC/test/mpi/runtests.in ]] ||
      die "MPICH_SRC=$MPICH_SRC has no test/mpi/configure"
    return 0
  fi
  local srcver upver dl tmp orig
  srcver=$(dpkg-query -W -f='${source:Version}' libmpich-dev)
  upver=${srcver#*:}; upver=${upver%-*}
  SRC=$CACHE/src/mpich-$upver
  [[ -f $SRC/.topoa2a-complete ]] && return 0
  dl=$CACHE/src/download-$srcver
  if ! compgen -G "$dl/mpich_*.dsc" > /dev/null; then
    log "fetching MPICH source $srcver into $dl"
    ensure_deb_src
    apt_update
    rm -rf "$dl"; mkdir -p "$dl"
    chown _apt "$dl" 2>/dev/null || true   # lets apt download sandboxed
    (cd "$dl" && { apt-get -q source --download-only "mpich=$srcver" ||
                   apt-get -q source --download-only mpich; }) >&2
  fi
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
  known=$( { list_entries "$TESTLIST_SRC"; list_entries "$EXCLUDED_SRC"; } | awk '{print $1}' | sort -u)
  for f in $(grep -lE '\b(MPI|MTest)_Alltoallv?[[:space:]]*\(' "$SRC"/test/mpi/coll/*.c || true); do
    name=$(basename "$f" .c)
    if ! grep -qxF "$name" <<<"$known"; then
      log "coll/$name.c calls a blocking MPI_Alltoall[v] but is neither in $(basename "$TESTLIST_SRC") nor in $(basename "$EXCLUDED_SRC")"
      bad=1
    fi
  done
  ((bad == 0)) || die "update ci/mpich-testsuite/ for this MPICH source"
}

# ---- build (cached) ----------------------------------------------------------
cache_key() {
  {
    sha256sum "$SELF" "$TESTLIST_SRC" "$EXCLUDED_SRC" | awk '{print $1}'
    dpkg-query -W -f='${Package} ${Version}\n' mpich libmpich-dev
    mpicc -show
    printf '%s\n' "${CONFIGURE_ARGS[@]}"
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
    (cd "$TREE" && ./configure "${CONFIGURE_ARGS[@]}") > "$root/configure.log" 2>&1 ||
      { tail -n 30 "$root/configure.log" >&2; die "configure failed, see $root/configure.log"; }
    { make -C "$TREE/util" -j"$JOBS" && make -C "$TREE/dtpools" -j"$JOBS"; } > "$root/build.log" 2>&1 ||
      { tail -n 30 "$root/build.log" >&2; die "building util/ failed, see $root/build.log"; }
    touch "$root/.configured"
  else
    log "using cached test tree $root"
  fi
  touch "$root"
  if ((FULL)); then
    # -k: a program that does not build is reported by runtests as a failed test.
    make -C "$TREE/coll" -k -j"$JOBS" >> "$root/build.log" 2>&1 ||
      log "WARNING: some coll/ programs failed to build (see $root/build.log)"
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
exec "$@"
EOF
  chmod +x "$1"
}

# ---- run ---------------------------------------------------------------------
run_alg() {  # $1 = algorithm value; writes $ART/runs/$1/
  local alg=$1 out=$ART/runs/$1 rc=0 v
  mkdir -p "$out"
  : > "$out/stats.log"
  local -a envs=(MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM="$alg"
                 MPIR_CVAR_TOPOA2A_STATS=1
                 TOPOA2A_STATS_LOG="$out/stats.log"
                 MPITEST_PROGRAM_WRAPPER="$WRAPPER")
  if has_word "$alg" "$ALLTOALLV_ALGS $MPICH_ALLTOALLV_VALUES"; then
    envs+=(MPIR_CVAR_ALLTOALLV_INTRA_ALGORITHM="$alg")
  fi
  ((PRELOAD)) && envs+=(TOPOA2A_PRELOAD="$LIB")
  local -a unset_args=()
  for v in MPIR_CVAR_ALLTOALLV_INTRA_ALGORITHM MPIR_PARAM_ALLTOALL_INTRA_ALGORITHM \
           MPIR_PARAM_ALLTOALLV_INTRA_ALGORITHM MPICH_ALLTOALL_INTRA_ALGORITHM \
           MPICH_ALLTOALLV_INTRA_ALGORITHM TOPOA2A_PRELOAD; do unset_args+=(-u "$v"); done
  local -a rt=(perl "$TREE/runtests" -mpiexec="$(command -v mpiexec)"
               -xmlfile="$out/summary.xml" -tapfile="$out/summary.tap"
               -junitfile="$out/summary.junit.xml")
  ((VERBOSE)) && rt+=(-verbose)
  local dir
  if ((FULL)); then dir=$TREE/coll; rt+=(-srcdir=. -tests=testlist)
  else dir=$TREE; rt+=(-srcdir=. -tests="$ART/testlist")
  fi
  log "running $alg: ${envs[*]:0:2}$( ((PRELOAD)) && echo " LD_PRELOAD=$LIB")"
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
  if ((!PRELOAD)); then echo "n/a ${seen:-none}"; return; fi
  if [[ $alg == topo_auto ]] || ! has_word "$alg" "$TOPOA2A_ALGS_ALL"; then
    [[ -n $seen ]] || ok=0
  else
    need="alltoall"
    has_word "$alg" "$ALLTOALLV_ALGS" && need+=" alltoallv"
    for op in $need; do
      grep -qE "(^| )op=$op algorithm=$alg( |$)" "$log" || ok=0
    done
  fi
  if ((ok)); then echo "yes ${seen}"; else echo "MISSING ${seen:-none}"; fi
}

# ---- main --------------------------------------------------------------------
T_START=$SECONDS
ensure_packages
mkdir -p "$CACHE"
exec 9> "$CACHE/.lock"
flock 9     # one run at a time per cache: the test tree and the 2 cores are shared
fetch_source
check_selection
build_tree
T_BUILD=$((SECONDS - T_START))

mkdir -p "$ART"
rm -rf "$ART/runs"
if ((FULL)); then
  cp "$TREE/coll/testlist" "$ART/testlist"
  EXPECTED=0
else
  list_entries "$TESTLIST_SRC" | sed 's|^|coll/|' > "$ART/testlist"
  EXPECTED=$(wc -l < "$ART/testlist")
fi
TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT
WRAPPER=$TMPD/topoa2a-wrap
write_wrapper "$WRAPPER"

log "mode: $( ((FULL)) && echo full coll/ || echo "alltoall subset, $EXPECTED tests"); preload: $( ((PRELOAD)) && echo "$LIB" || echo none); algorithms: $ALGS"
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
echo "build/setup: ${T_BUILD}s, total: $((SECONDS - T_START))s; artifacts: $ART" >> "$SUMMARY"
echo "$TOTAL_P passed, $TOTAL_F failed" >> "$SUMMARY"
cat "$SUMMARY"
((TOTAL_F == 0))
