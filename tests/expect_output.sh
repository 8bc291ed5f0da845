#!/bin/sh
# expect_output.sh [--fail] REGEX... -- COMMAND...: runs COMMAND and passes
# when it exits 0 (non-zero with --fail) and its output (stdout and
# stderr) matches every REGEX (grep -E, each anywhere, in any order).
want_fail=0
[ "$1" = "--fail" ] && { want_fail=1; shift; }
regexes=""
n=0
while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do
  n=$((n + 1))
  eval "re_$n=\$1"
  shift
done
shift
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
if [ "$want_fail" -eq 1 ] && [ "$rc" -eq 0 ]; then echo "expected a failure, got exit 0"; exit 1; fi
if [ "$want_fail" -eq 0 ] && [ "$rc" -ne 0 ]; then echo "exit status $rc"; exit 1; fi
i=1
while [ "$i" -le "$n" ]; do
  eval "re=\$re_$i"
  printf '%s\n' "$out" | grep -Eq -- "$re" || { echo "output does not match: $re"; exit 1; }
  i=$((i + 1))
done
