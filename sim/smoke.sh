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
# scattered, two sizes.
lines=$(wc -l <"$csv")
good=$(grep -cE ',ok$|,topo_auto,.*,skip$' "$csv" || true)
if [[ $lines -ne 18 || $good -ne 18 ]]; then
  echo "sim_smoke: FAILED: $good of $lines lines ok (want 18 of 18)"
  exit 1
fi
echo "sim_smoke: PASSED"
