#!/usr/bin/env bash
# CTest smoke test (sim_smoke): builds sim_a2a with smpicxx and simulates
#  1. 8 ranks, one per host, on a 4x2 torus;
#  2. 8 ranks on 4 hosts of 2 cores (a fat tree, intra-node traffic on the
#     hosts' loopback; topo_auto sees nodes:4x2,fat_tree);
# for 8-byte and 4 KiB blocks, and checks that every algorithm of the table,
# topo_auto, MPI_Alltoall and the reproductions of MPICH's algorithms
# completed and delivered every word to its place (the driver validates
# payloads that encode source, destination and index). No timing is
# checked.   usage: sim/smoke.sh BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build/sim-smoke}
mkdir -p "$out"
make -s -f sim/Makefile BUILD="$out" -j"$(nproc)"
CFG=(--cfg=smpi/simulate-computation:no --cfg=smpi/iprobe:1e-7 --cfg=smpi/test:1e-7 --cfg=smpi/grow-injected-times:no --log=root.thres:critical)

# The algorithm table, from the driver (an algorithm added there is tested).
printf 'n0\n' >"$out/one.hosts"
python3 sim/platforms.py write "$out" fattree 4x2 >/dev/null
ntable=$(smpirun -no-privatize -np 1 -platform "$out/fattree-4x2.xml" -hostfile "$out/one.hosts" \
  "${CFG[@]}" "$out/sim_a2a" --list | wc -l)
echo "sim_smoke: $ntable algorithms in the table"

# check CSV WANT: every row "ok", WANT rows; topo_auto ran one of ours at
# least once (otherwise its run path went untested).
# Columns: platform,p,algorithm,bytes,time_s,rounds,choice,model_s,check.
check() {
  local csv=$1 want=$2 lines report good auto_ours
  cat "$csv"
  lines=$(wc -l <"$csv")
  report=$(awk -F, '
    $9 == "ok" { ok++; if ($3 == "topo_auto" && $7 !~ /^(brucks|pairwise|scattered)$/) ours++; next }
    { printf "sim_smoke: bad row (check=%s): %s\n", $9, $0 }
    END { printf "good=%d auto_ours=%d\n", ok, ours }' "$csv")
  echo "$report"
  good=$(sed -n 's/^good=\([0-9]*\) .*/\1/p' <<<"$report")
  auto_ours=$(sed -n 's/.* auto_ours=\([0-9]*\)$/\1/p' <<<"$report")
  if [[ $lines -ne $want || $good -ne $want ]]; then
    echo "sim_smoke: FAILED: $csv: $good of $lines lines ok (want $want of $want)"
    exit 1
  fi
  if [[ ${auto_ours:-0} -lt 1 ]]; then
    echo "sim_smoke: FAILED: $csv: topo_auto chose MPICH's algorithm for every size; none of ours ran"
    exit 1
  fi
}

# 1. One rank per host: the table + topo_auto + MPI_Alltoall + MPICH's
# scattered, two sizes.
topo=$(python3 sim/platforms.py write "$out" torus2d 8)
csv=$out/smoke.csv
: >"$csv"
smpirun -no-privatize -np 8 -platform "$out/torus2d-8.xml" -hostfile "$out/torus2d-8.hosts" \
  "${CFG[@]}" "$out/sim_a2a" --platform torus2d-8 --sizes 8,4096 \
  --algs all,mpi,mpich_scattered --topology "$topo" --cost ts_inter=1.1us,tw_inter=0.1ns --csv "$csv"
check "$csv" $(((ntable + 3) * 2))

# 2. Two ranks per host: the table + topo_auto + MPICH's default, brucks,
# scattered, pairwise + MPI_Alltoall, two sizes.
topo=$(python3 sim/platforms.py write "$out" fattree 4x2)
cost=$(python3 sim/platforms.py info fattree 4x2 | python3 -c 'import json,sys; print(json.load(sys.stdin)["cost"])')
csv=$out/smoke-nodes.csv
: >"$csv"
smpirun -no-privatize -np 8 -platform "$out/fattree-4x2.xml" -hostfile "$out/fattree-4x2.hosts" \
  "${CFG[@]}" "$out/sim_a2a" --platform fattree-4x2 --sizes 8,4096 \
  --algs all,mpich_default,mpich_brucks,mpich_scattered,mpich_pairwise,mpi --topology "$topo" \
  --cost "$cost" --csv "$csv"
check "$csv" $(((ntable + 6) * 2))
echo "sim_smoke: PASSED"
