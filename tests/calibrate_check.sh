#!/bin/sh
# calibrate_check.sh DIR MPIEXEC... -- CALIBRATE INFO: runs topoa2a-calibrate
# --quick on 2 ranks, checks that the cost file it writes has only
# "KEY VALUE" lines with positive, finite values (o may be 0) and at least
# one level's t_s and t_w, and that topoa2a-info prices with those values
# (read from the file). No timing is checked.
dir=$1
shift
mpiexec=""
while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do
  mpiexec="$mpiexec $1"
  shift
done
shift
cal=$1
info=$2
fail() { echo "calibrate_check: FAILED: $*"; exit 1; }
file=$dir/calibrate_quick.cost
rm -f "$file"
timeout 150 $mpiexec -n 2 "$cal" --quick -o "$file" || fail "topoa2a-calibrate exited $?"
[ -s "$file" ] || fail "no cost file written"
echo "--- $file"
cat "$file"
echo "---"
awk '
  /^[ \t]*(#|$)/ { next }
  {
    if (NF != 2) { print "line " NR ": expected KEY VALUE: " $0; bad = 1; next }
    if ($2 !~ /^[0-9]+(\.[0-9]+)?(e[-+]?[0-9]+)?(s|ms|us|ns|ps)$/) {
      print "line " NR ": not a number with a unit: " $2; bad = 1; next
    }
    v = $2 + 0
    if (!(v > 0) && !($1 == "o" && v == 0)) { print "line " NR ": not positive: " $0; bad = 1 }
    seen[$1] = 1
  }
  END {
    if (!((seen["ts_intra"] && seen["tw_intra"]) || (seen["ts_inter"] && seen["tw_inter"]))) {
      print "no level with both t_s and t_w"; bad = 1
    }
    exit bad
  }' "$file" || fail "malformed cost file"
out=$(MPIR_CVAR_TOPOA2A_COST_FILE=$file timeout 60 $mpiexec -n 2 "$info" 2>&1) ||
  fail "topoa2a-info exited $?: $out"
printf '%s\n' "$out" | grep "costs from:" || fail "topoa2a-info printed no 'costs from:'"
# Every key of the file, with its value as written, comes from the file.
keys=$(awk '!/^[ \t]*(#|$)/ { print $1 "=" $2 }' "$file")
for kv in $keys; do
  printf '%s\n' "$out" | grep -F "$kv (file:$file)" >/dev/null ||
    fail "topoa2a-info does not price with $kv from the file"
done
echo "calibrate_check: PASSED"
