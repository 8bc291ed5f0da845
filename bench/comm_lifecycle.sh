#!/usr/bin/env bash
# What communicators cost with and without libtopoa2a preloaded: creation
# time (dup, split, dup + first all-to-all) and the live-communicator limit,
# each configuration run REPEATS times; the table (median, min-max) is made
# from the raw lines, which are kept beside it.
#
# Usage: bench/comm_lifecycle.sh [-n RANKS] [-r REPEATS] [-i ITERATIONS] [--out DIR] [--lib SO]
#   needs build/ (ci/build.sh); default 4 ranks, 3 repeats, 100 iterations,
#   DIR build/comm-lifecycle, SO build/plugin/libtopoa2a.so (another
#   version's library, to compare). Timings on an oversubscribed machine measure
#   the machine as much as the library: compare the columns of one run.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
np=4 repeats=3 iters=100 out="$root/build/comm-lifecycle"
lib="$root/build/plugin/libtopoa2a.so"
while (($#)); do
  case "$1" in
    -n) np=$2; shift 2 ;;
    -r) repeats=$2; shift 2 ;;
    -i) iters=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --lib) lib=$2; shift 2 ;;
    *) echo "usage: $0 [-n RANKS] [-r REPEATS] [-i ITERATIONS] [--out DIR] [--lib SO]" >&2; exit 2 ;;
  esac
done
[ -e "$lib" ] || { echo "comm_lifecycle.sh: $lib missing: run ci/build.sh" >&2; exit 1; }
mkdir -p "$out"
prog="$out/comm_lifecycle"
mpicc -O2 -o "$prog" "$root/bench/comm_lifecycle.c"
raw="$out/raw.txt"
: > "$raw"
configs=("mpich" "ring" "topo_auto")
for ((r = 1; r <= repeats; ++r)); do
  for c in "${configs[@]}"; do
    env=()
    [ "$c" = mpich ] || env=(-genv LD_PRELOAD "$lib" -genv MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM "$c")
    timeout 600 mpiexec -n "$np" "${env[@]+"${env[@]}"}" "$prog" "$iters" |
      sed "s/^/$c $r /" >> "$raw"
  done
done
python3 - "$raw" "$np" "$iters" "$repeats" "$lib" > "$out/table.md" <<'PY'
import statistics, sys
raw, np, iters, repeats, lib = sys.argv[1:6]
vals = {}
for line in open(raw):
    cfg, rep, name, value, unit = line.split()[:5]
    vals.setdefault((name, unit), {}).setdefault(cfg, []).append(float(value))
cfgs = ["mpich", "ring", "topo_auto"]
print(f"p={np}, {iters} operations per timing, {repeats} runs: median (min-max); library {lib}\n")
print("| measure | MPICH alone | libtopoa2a, ring | libtopoa2a, topo_auto |")
print("| --- | --- | --- | --- |")
for (name, unit), by in vals.items():
    cells = []
    for c in cfgs:
        v = by.get(c, [])
        if not v:
            cells.append("-")
            continue
        fmt = (lambda x: f"{x:.0f}") if unit == "communicators" else (lambda x: f"{x:.1f}")
        cells.append(f"{fmt(statistics.median(v))} ({fmt(min(v))}-{fmt(max(v))}) {unit}")
    print(f"| {name} | " + " | ".join(cells) + " |")
PY
cat "$out/table.md"
echo "comm_lifecycle.sh: wrote $raw and $out/table.md"
