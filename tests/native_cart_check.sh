#!/usr/bin/env bash
# A Cartesian communicator's grid reaches topo_auto in the native front door.
#
# usage: native_cart_check.sh MPIEXEC INFO PROGRAM NP DIMS BYTES TOPOLOGY -- NATIVE_ARGS...
#
# topoa2a-info (INFO) predicts topo_auto's choice for BYTES-byte blocks on
# MPI_COMM_WORLD and on a DIMS Cartesian communicator of NP ranks, under
# MPIR_CVAR_TOPOA2A_TOPOLOGY=TOPOLOGY. The two must differ (otherwise this
# setting cannot tell whether the grid was seen: the test fails and says so).
# Then PROGRAM (tests/cart_alltoall.c) runs on the native door (NATIVE_ARGS:
# mpiexec arguments that load the patched MPICH and the plugin) with
# topo_auto and MPIR_CVAR_TOPOA2A_VERBOSE=1; the algorithm its verbose lines
# report for each communicator must be info's prediction for it, and the
# results must be correct. Nothing is hard-coded: a change of the cost model
# moves prediction and run together.
set -uo pipefail
if (($# < 8)) || [[ $8 != -- ]]; then
  echo "usage: $0 MPIEXEC INFO PROGRAM NP DIMS BYTES TOPOLOGY -- ARGS..." >&2
  exit 2
fi
mpiexec=$1 info=$2 prog=$3 np=$4 dims=$5 bytes=$6 topology=$7
shift 8
fail() { echo "native_cart_check: FAILED: $*"; exit 1; }

# Our algorithms: the algorithm table, as topoa2a-info lists it. Both doors
# report ours by name and MPICH's as mpich:NAME. node_aware_log is not a
# value of the patched MPICH's CVAR, but the native door runs it by name
# when topo_auto picks it, so it is ours here too.
list=$(timeout 60 "$mpiexec" -n 1 "$info" 2>&1) || fail "topoa2a-info failed: $list"
ours=" $(awk '/^algorithms:$/ { on = 1; next }
              on && /^  [a-z_]+ / { print $1; next }
              on { exit }' <<<"$list" | tr '\n' ' ')"
[[ $ours == *" ring "* ]] || fail "topoa2a-info lists no algorithms: $list"

json=$(timeout 120 "$mpiexec" -n "$np" -genv MPIR_CVAR_TOPOA2A_TOPOLOGY "$topology" \
         "$info" --json --cart "$dims") || fail "topoa2a-info failed"
predict() {  # $1: JSON key; prints the algorithm as the native door names it
  local a
  a=$(grep -F "\"$1\": {" <<<"$json" | grep -oE "\"bytes\": $bytes, \"algorithm\": \"[a-z_]+\"" |
      sed -E 's/.*"algorithm": "([a-z_]+)"/\1/')
  [[ -n $a ]] || return 1
  if [[ $ours == *" $a "* ]]; then echo "$a"; else echo "mpich:$a"; fi
}
want_world=$(predict MPI_COMM_WORLD) || fail "no prediction for MPI_COMM_WORLD, $bytes bytes"
want_cart=$(predict "cart $dims") || fail "no prediction for cart $dims, $bytes bytes"
echo "native_cart_check: topoa2a-info predicts world: $want_world, cart $dims: $want_cart ($bytes-byte blocks, $topology)"
[[ $want_world != "$want_cart" ]] ||
  fail "the prediction is the same for world and the Cartesian communicator: this setting cannot show that the grid reaches topo_auto (choose other DIMS/BYTES/TOPOLOGY)"

out=$(timeout 120 "$mpiexec" -n "$np" "$@" -genv MPIR_CVAR_TOPOA2A_TOPOLOGY "$topology" \
        -genv MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM topo_auto -genv MPIR_CVAR_TOPOA2A_VERBOSE 1 \
        "$prog" "$dims" "$bytes" 2>&1)
rc=$?
echo "$out"
((rc == 0)) || fail "$prog exited with status $rc"
grep -q "result correct" <<<"$out" || fail "no \"result correct\""
ran() {  # $1: world | cart; the algorithm of the first verbose line after its marker
  awk -v m="cart_alltoall: comm=$1" '
    $0 == m { on = 1; next }
    /^cart_alltoall: comm=/ { on = 0 }
    on && /^topoa2a: MPI_Alltoall .*algorithm=/ {
      for (i = 1; i <= NF; i++) if ($i ~ /^algorithm=/) { print substr($i, 11); exit } }' <<<"$out"
}
got_world=$(ran world) got_cart=$(ran cart)
[[ $got_world == "$want_world" ]] || fail "world ran ${got_world:-nothing reported}, info predicts $want_world"
[[ $got_cart == "$want_cart" ]] ||
  fail "the Cartesian communicator ran ${got_cart:-nothing reported}, info predicts $want_cart for its grid"
grep -E "^topoa2a: MPI_Alltoall .*algorithm=$want_cart .*topo_auto" <<<"$out" > /dev/null ||
  fail "the Cartesian communicator's choice was not topo_auto's"
echo "native_cart_check: PASSED (world: $got_world, cart $dims: $got_cart)"
