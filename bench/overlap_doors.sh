#!/usr/bin/env bash
# topoa2a-overlap through both front doors, several times, side by side:
# the preload door (libtopoa2a.so over Debian's MPICH) and the native door
# (libtopoa2a_native.so in the patched MPICH), each run listing every
# candidate (ours and MPICH's nonblocking algorithms); then the table of
# medians and spreads (bench/overlap_report.py).
#
# Usage: bench/overlap_doors.sh --prefix PATCHED_MPICH_PREFIX [-n NP] [--runs R]
#          [--build DIR] [--out DIR] [-- topoa2a-overlap options]
#   defaults: -n 2, --runs 3, --build build, --out build/overlap-doors,
#   topoa2a-overlap -m 64:65536 -i 20 -x 3
set -euo pipefail
cd "$(dirname "$0")/.."
NP=2 RUNS=3 BUILD=build OUT=build/overlap-doors PREFIX=""
ARGS=(-m 64:65536 -i 20 -x 3)
while (($#)); do
  case $1 in
    -n) NP=$2; shift ;;
    --runs) RUNS=$2; shift ;;
    --build) BUILD=$2; shift ;;
    --out) OUT=$2; shift ;;
    --prefix) PREFIX=$2; shift ;;
    --) shift; ARGS=("$@"); break ;;
    *) echo "overlap_doors.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
[[ -n $PREFIX && -f $PREFIX/lib/libmpich.so.12 ]] ||
  { echo "overlap_doors.sh: --prefix must name the patched MPICH (ci/build-mpich.sh)" >&2; exit 2; }
BIN=$BUILD/bench/topoa2a-overlap
[[ -x $BIN ]] || { echo "overlap_doors.sh: $BIN not built" >&2; exit 2; }
mkdir -p "$OUT"
for ((r = 1; r <= RUNS; r++)); do
  mpiexec -n "$NP" -genv LD_PRELOAD "$PWD/$BUILD/plugin/libtopoa2a.so" "$BIN" "${ARGS[@]}" \
    > "$OUT/preload-np$NP-run$r.txt"
  mpiexec -n "$NP" -genv LD_LIBRARY_PATH "$PREFIX/lib" \
    -genv MPIR_CVAR_COLL_PLUGIN "$PWD/$BUILD/plugin/libtopoa2a_native.so" "$BIN" "${ARGS[@]}" \
    > "$OUT/native-np$NP-run$r.txt"
  echo "run $r of $RUNS done" >&2
done
python3 bench/overlap_report.py "$OUT"/*-np"$NP"-run*.txt > "$OUT/summary-np$NP.md"
echo "$OUT/summary-np$NP.md"
