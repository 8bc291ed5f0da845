#!/usr/bin/env bash
# The main demo: builds topoa2a and an ordinary MPI program
# (examples/transpose.c, plain mpicc, no topoa2a headers), then runs that
# unmodified binary under each algorithm, chosen only by MPICH's CVAR.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/build.sh
mpicc -O2 -Wall -Wextra examples/transpose.c -o build/transpose
lib=$PWD/build/plugin/libtopoa2a.so
np=${NP:-4}
for alg in auto ring ring_bidir mesh hypercube onefactor onefactor_xor topo_auto; do
  echo "== MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM=$alg (mpiexec -n $np, LD_PRELOAD=libtopoa2a.so)"
  v=auto
  case $alg in ring | onefactor | topo_auto) v=$alg ;; esac
  LD_PRELOAD=$lib MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM=$alg MPIR_CVAR_ALLTOALLV_INTRA_ALGORITHM=$v \
    MPIR_CVAR_TOPOA2A_VERBOSE=1 MPIR_CVAR_TOPOA2A_STATS=1 \
    mpiexec -n "$np" build/transpose 256 3 2>&1 | grep -v "^topoa2a-stats rank=[1-9]"
done
echo "demo: every run above checked its own result"
