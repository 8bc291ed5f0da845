#!/usr/bin/env bash
# CTest smoke test (sim_smoke): builds sim_a2a with smpicxx and simulates
#  1. 8 ranks, one per host, on a 4x2 torus;
#  2. 8 ranks on 4 hosts of 2 cores (a fat tree, intra-node traffic on the
#     hosts' loopback; topo_auto sees nodes:4x2,fat_tree);
# for 8-byte and 4 KiB blocks, and checks that every algorithm of the table,
# topo_auto, MPI_Alltoall and the reproductions of MPICH's algorithms
# completed and delivered every word to its place (the driver validates
# payloads that encode source, destination and index). No timing is
# checked. topo_auto's costs come from topoa2a-calibrate run under SMPI on
# the same platform (sim_calibrate --quick -> a cost file -> sim_a2a
# --cost-file), never from the simulator's constants. Last, the analysis's
# lower bounds against hand-derived values (sim/test_node_bounds.py).
#   usage: sim/smoke.sh BUILD_DIR
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

# calibrate NAME NP: runs topoa2a-calibrate (sim_calibrate --quick) on the
# first NP ranks of platform NAME's hostfile and checks that its cost file
# has at least one level's t_s and t_w, every value positive.
calibrate() {
  local name=$1 np=$2 file=$out/$1.cost
  rm -f "$file"
  smpirun -no-privatize -np "$np" -platform "$out/$name.xml" -hostfile "$out/$name.hosts" \
    "${CFG[@]}" "$out/sim_calibrate" --quick -o "$file" >"$out/$name.calibrate.log" 2>&1 ||
    { cat "$out/$name.calibrate.log"; echo "sim_smoke: FAILED: sim_calibrate on $name"; exit 1; }
  sed -n '/^[a-z_]* [0-9]/p' "$file"
  awk '/^[a-z_]+ [0-9]/ { if (!($2 + 0 > 0) && $1 != "o") bad = 1; seen[$1] = 1 }
       END { exit bad || !((seen["ts_intra"] && seen["tw_intra"]) ||
                           (seen["ts_inter"] && seen["tw_inter"])) }' "$file" ||
    { cat "$file"; echo "sim_smoke: FAILED: $file: no level with positive t_s and t_w"; exit 1; }
}

# 1. One rank per host: the table + topo_auto + MPI_Alltoall + MPICH's
# scattered, two sizes; costs from two hosts (the network level only).
topo=$(python3 sim/platforms.py write "$out" torus2d 8)
calibrate torus2d-8 2
csv=$out/smoke.csv
: >"$csv"
smpirun -no-privatize -np 8 -platform "$out/torus2d-8.xml" -hostfile "$out/torus2d-8.hosts" \
  "${CFG[@]}" "$out/sim_a2a" --platform torus2d-8 --sizes 8,4096 \
  --algs all,mpi,mpich_scattered --topology "$topo" --cost-file "$out/torus2d-8.cost" --csv "$csv"
check "$csv" $(((ntable + 3) * 2))

# 2. Two ranks per host: the table + topo_auto + MPICH's default, brucks,
# scattered, pairwise + MPI_Alltoall, two sizes; costs from two hosts of
# two ranks (both levels).
topo=$(python3 sim/platforms.py write "$out" fattree 4x2)
calibrate fattree-4x2 4
csv=$out/smoke-nodes.csv
: >"$csv"
smpirun -no-privatize -np 8 -platform "$out/fattree-4x2.xml" -hostfile "$out/fattree-4x2.hosts" \
  "${CFG[@]}" "$out/sim_a2a" --platform fattree-4x2 --sizes 8,4096 \
  --algs all,mpich_default,mpich_brucks,mpich_scattered,mpich_pairwise,mpi --topology "$topo" \
  --cost-file "$out/fattree-4x2.cost" --csv "$csv"
check "$csv" $(((ntable + 6) * 2))
# The sweep's lower bounds against hand-derived values (no simulation).
python3 sim/test_node_bounds.py
echo "sim_smoke: PASSED"
