#!/bin/sh
# smoke_test.sh CSV "SIZES" "NAME=STATUS ..." [--all BENCH] -- COMMAND...: runs a short
# topoa2a-bench COMMAND (which writes CSV) and checks what it produced, never
# its timings: exit status 0, the OSU header and one table row per size,
# and in the CSV exactly one row per size and candidate, each with the
# expected status (ok or n/a); nothing may be INVALID. --all BENCH: every
# default candidate (BENCH --list) must be ok.
csv=$1 sizes=$2 expect=$3
shift 3
if [ "$1" = "--all" ]; then
  for name in $("$2" --list); do expect="$expect $name=ok"; done
  shift 2
fi
[ "$1" = "--" ] && shift
rm -f "$csv"
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
fail() { echo "smoke_test: $*"; exit 1; }
[ "$rc" -eq 0 ] || fail "exit status $rc"
printf '%s\n' "$out" | grep -Eq '^# OSU MPI All-to-Allv? Personalized Exchange Latency Test$' ||
  fail "no OSU header line"
printf '%s\n' "$out" | grep -q '^# Size       Avg Latency(us)' || fail "no OSU column line"
printf '%s\n' "$out" | grep -qi 'invalid' && fail "a validation failure"
[ -f "$csv" ] || fail "no CSV written"
head -n 1 "$csv" | grep -q '^op,np,size,candidate,status,' || fail "no CSV header"
rows=1
for size in $sizes; do
  printf '%s\n' "$out" | grep -Eq "^$size +[0-9]+\.[0-9]{2}" || fail "no table row for $size"
  for pair in $expect; do
    name=${pair%%=*} status=${pair#*=}
    n=$(awk -F, -v s="$size" -v c="$name" -v st="$status" \
      '$3 == s && $4 == c && $5 == st' "$csv" | wc -l)
    [ "$n" -eq 1 ] || fail "CSV: want one row size=$size candidate=$name status=$status, got $n"
    rows=$((rows + 1))
  done
done
[ "$(wc -l <"$csv")" -eq "$rows" ] || fail "CSV: $(wc -l <"$csv") lines, want $rows"
echo "smoke_test: passed"
