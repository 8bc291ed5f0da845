#!/usr/bin/env bash
# CTest smoke test (sim_smoke): builds sim_a2a with smpicxx, simulates 8 ranks
# on a 4x2 torus for two block sizes, and checks that every algorithm and
# MPI_Alltoall completed and delivered every word to its place (the driver
# validates payloads that encode source, destination and index). No timing
# is checked.   usage: sim/smoke.sh BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build/sim-smoke}
mkdir -p "$out"
make -s -f sim/Makefile BUILD="$out" -j"$(nproc)"
topo=$(python3 sim/platforms.py write "$out" torus2d 8)
csv=$out/smoke.csv
: >"$csv"
smpirun -no-privatize -np 8 -platform "$out/torus2d-8.xml" -hostfile "$out/torus2d-8.hosts" \
  --cfg=smpi/simulate-computation:no --log=root.thres:critical \
  "$out/sim_a2a" --platform torus2d-8 --sizes 8,4096 --algs all,mpi,mpich_scattered --topology "$topo" \
  --cost ts_inter=1.1us,tw_inter=0.1ns --csv "$csv"
cat "$csv"
# 6 algorithms + topo_auto + MPI_Alltoall + the reproduction of MPICH's
# scattered, two sizes: 18 rows, each "ok". The one genuine exception: a
# topo_auto row is "skip" when topo_auto chose one of MPICH's algorithms
# (brucks, pairwise, scattered), which the driver does not run (the analysis
# times SMPI's equivalent). Such a row must name that choice; any other skip
# (an algorithm of ours, or topo_auto with one of ours or no choice) fails.
# Columns: platform,p,algorithm,bytes,time_s,rounds,choice,model_s,check.
lines=$(wc -l <"$csv")
report=$(awk -F, '
  $9 == "ok" { ok++; if ($3 == "topo_auto") auto_ran++; next }
  $9 == "skip" && $3 == "topo_auto" && ($7 == "brucks" || $7 == "pairwise" || $7 == "scattered") {
    ok++; printf "sim_smoke: expected skip: topo_auto chose MPICH'"'"'s %s for %s bytes (not run by the driver)\n", $7, $4; next }
  { printf "sim_smoke: bad row (%s): %s\n", ($9 == "skip" ? "unexpected skip" : "check=" $9), $0 }
  END { printf "good=%d auto_ran=%d\n", ok, auto_ran }' "$csv")
echo "$report"
good=$(sed -n 's/^good=\([0-9]*\) .*/\1/p' <<<"$report")
if [[ $lines -ne 18 || $good -ne 18 ]]; then
  echo "sim_smoke: FAILED: $good of $lines lines ok (want 18 of 18)"
  exit 1
fi
# topo_auto must have run one of ours at least once (otherwise its run path
# went untested: change --sizes so that one size picks one of ours).
auto_ran=$(sed -n 's/.* auto_ran=\([0-9]*\)$/\1/p' <<<"$report")
if [[ ${auto_ran:-0} -lt 1 ]]; then
  echo "sim_smoke: FAILED: topo_auto chose MPICH's algorithm for every size; none of ours ran"
  exit 1
fi
echo "sim_smoke: PASSED"
