#!/usr/bin/env bash
# The native door and the preload door make the same topo_auto choice on
# the same machine (issue 11).
#
# usage: doors_same_choice.sh MPIEXEC PROGRAM NP TOPOLOGY PRELOAD_LIB -- NATIVE_ARGS...
#
# PROGRAM (examples/transpose.c: N, iterations) runs on NP ranks with
# MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM=topo_auto, MPIR_CVAR_TOPOA2A_VERBOSE=1
# and MPIR_CVAR_TOPOA2A_TOPOLOGY=TOPOLOGY, for several N (blocks of 32 B,
# 2 KiB, 32 KiB and the 4-byte counts), once through the preload door
# (LD_PRELOAD=PRELOAD_LIB on the stock MPICH) and once through the native
# door (NATIVE_ARGS: the mpiexec arguments that load the patched MPICH and
# the plugin). Each door's verbose lines name the algorithm run per block
# size ("msg=B bytes algorithm=A", A ours or mpich:NAME); the two lists
# must be equal and name at least two block sizes. Nothing is hard-coded:
# a change of the cost model moves both doors together.
set -uo pipefail
if (($# < 6)) || [[ $6 != -- ]]; then
  echo "usage: $0 MPIEXEC PROGRAM NP TOPOLOGY PRELOAD_LIB -- NATIVE_ARGS..." >&2
  exit 2
fi
mpiexec=$1 prog=$2 np=$3 topology=$4 preload=$5
shift 6
fail() { echo "doors_same_choice: FAILED: $*"; exit 1; }
common=(-genv MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM topo_auto -genv MPIR_CVAR_TOPOA2A_VERBOSE 1
        -genv MPIR_CVAR_TOPOA2A_TOPOLOGY "$topology")
choices() {  # $@: mpiexec arguments; prints "msg=B algorithm=A" lines, sorted
  local out=""
  for n in 8 64 256; do
    local o
    o=$(timeout 120 "$mpiexec" -n "$np" "${common[@]}" "$@" "$prog" "$n" 1 2>&1) ||
      fail "run with N=$n failed: $o"
    grep -q "result correct" <<<"$o" || fail "N=$n: result not correct: $o"
    out+=$(grep -oE "size=$np msg=[0-9]+ bytes algorithm=[a-z_:]+" <<<"$o" | sed 's/^size=[0-9]* //')
    out+=$'\n'
  done
  sort -u <<<"$out" | grep .
}
pre=$(choices -genv LD_PRELOAD "$preload") || fail "no choice reported by the preload door"
nat=$(choices "$@") || fail "no choice reported by the native door"
echo "doors_same_choice: preload door ($topology, $np ranks):"
echo "$pre"
echo "doors_same_choice: native door:"
echo "$nat"
(($(wc -l <<<"$pre") >= 2)) || fail "fewer than two block sizes reported"
[[ $pre == "$nat" ]] || fail "the doors chose differently"
echo "doors_same_choice: PASSED"
