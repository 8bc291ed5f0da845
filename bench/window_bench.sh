#!/usr/bin/env bash
# The executor's window, before / after: topoa2a-bench on p=2 and p=4 at
# small and 32 KiB blocks, a direct algorithm (onefactor) round by round and
# with W = 1, 4, 32 messages in flight, next to MPICH's scattered and
# pairwise in the same run (the ratios to mpich:scattered cancel the noise
# of this shared machine). With --before LIB, the same run with an older
# libtopoa2a.so preloaded (one without window control: only the plain
# onefactor candidate), interleaved run by run. Raw CSVs in DIR, one
# summary line per (library, p, size, candidate, run) on stdout.
#
#   bench/window_bench.sh [-o DIR] [--before LIB] [--runs N] [--alg NAME]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root/build/bench/window"
before=""
runs=2
alg=onefactor
while (($#)); do
  case "$1" in
    -o) out="$2"; shift 2 ;;
    --before) before="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --alg) alg="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
bench="$root/build/bench/topoa2a-bench"
after="$root/build/plugin/libtopoa2a.so"
mkdir -p "$out"
libs=(after)
[ -n "$before" ] && libs=(before after)
for run in $(seq 1 "$runs"); do
  for np in 2 4; do
    for size in 8 32768; do
      # p=4 oversubscribes the 2 cores here (busy polling): calls take ms.
      iters=200
      [ "$size" -gt 8192 ] && iters=40
      [ "$np" -gt 2 ] && iters=$((iters / 10))
      for which in "${libs[@]}"; do
        lib=$after
        cands="$alg,$alg@1,$alg@4,$alg@32,mpich:scattered,mpich:pairwise"
        if [ "$which" = before ]; then
          lib=$before
          cands="$alg,mpich:scattered,mpich:pairwise"
        fi
        csv="$out/${which}_np${np}_m${size}_run${run}.csv"
        timeout 600 mpiexec -n "$np" -genv LD_PRELOAD "$lib" "$bench" -m "$size:$size" \
          -i "$iters" -r 5 -c "$cands" --csv "$csv" >/dev/null
      done
    done
  done
done
python3 - "$out" <<'PY'
import csv, glob, os, re, sys
rows = []
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.csv"))):
    which, np, m, run = re.match(r"(\w+)_np(\d+)_m(\d+)_run(\d+)\.csv", os.path.basename(path)).groups()
    data = {r["candidate"]: r for r in csv.DictReader(open(path)) if r["status"] == "ok"}
    ref = float(data["mpich:scattered"]["median_us"])
    for cand, r in data.items():
        rows.append((which, int(np), int(m), cand, int(run), float(r["median_us"]), float(r["median_us"]) / ref))
print("library np bytes candidate run median_us ratio_to_mpich_scattered")
for row in sorted(rows):
    print("%s %d %d %s %d %.2f %.3f" % row)
PY
