#!/usr/bin/env bash
# One command for topoa2a-bench: builds what is missing, runs the benchmark
# under mpiexec with libtopoa2a preloaded, and writes the table, the CSV and
# a latency plot (PNG, gnuplot) into an output directory.
#
#   bench/run.sh [-n NP] [-o DIR] [--no-preload] [topoa2a-bench options...]
#   bench/run.sh -n 4 -m 1:1048576 -i 50 -r 5
#
# Files: DIR/<op>_np<NP>.txt (stdout: OSU table + comparison), .csv, .png.
# Defaults: NP 2, DIR build/bench.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
np=2
out="$root/build/bench"
preload=1
args=()
while (($#)); do
  case "$1" in
    -n) np="$2"; shift 2 ;;
    -o) out="$2"; shift 2 ;;
    --no-preload) preload=0; shift ;;
    *) args+=("$1"); shift ;;
  esac
done

bench="$root/build/bench/topoa2a-bench"
lib="$root/build/plugin/libtopoa2a.so"
if [ -f "$root/build/CMakeCache.txt" ]; then
  cmake --build "$root/build" --target topoa2a-bench topoa2a -j "$(nproc)" >/dev/null
else
  bash "$root/ci/build.sh"
fi

op=alltoall
for a in "${args[@]+"${args[@]}"}"; do
  case "$a" in -a | --alltoallv) op=alltoallv ;; esac
done
mkdir -p "$out"
base="$out/${op}_np$np"
env=()
((preload)) && env=(-genv LD_PRELOAD "$lib")
echo "bench/run.sh: mpiexec -n $np ${env[*]+"${env[*]}"} $bench --progress --csv $base.csv ${args[*]+"${args[*]}"}"
mpiexec -n "$np" "${env[@]+"${env[@]}"}" "$bench" --progress --csv "$base.csv" \
  "${args[@]+"${args[@]}"}" | tee "$base.txt"

if ! command -v gnuplot >/dev/null; then
  echo "bench/run.sh: installing gnuplot-nox for the plot"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  { $SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive \
      $SUDO apt-get install -y -q --no-install-recommends gnuplot-nox; } </dev/null >/dev/null ||
    echo "bench/run.sh: could not install gnuplot-nox; no plot" >&2
fi
if command -v gnuplot >/dev/null; then
  gnuplot -e "csv='$base.csv'; png='$base.png'; title='MPI_${op^} latency, $np ranks'" \
    "$root/bench/plot.gp"
  echo "bench/run.sh: wrote $base.txt $base.csv $base.png"
else
  echo "bench/run.sh: wrote $base.txt $base.csv"
fi
