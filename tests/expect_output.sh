#!/bin/sh
# expect_output.sh [--fail] [--attempts N] REGEX... -- COMMAND...: runs
# COMMAND and passes when it exits 0 (non-zero with --fail) and its output
# (stdout and stderr) matches every REGEX (grep -E, each anywhere, in any
# order).
# --attempts N: when the exit status is right but the output does not
# match, run COMMAND again, up to N runs in all. Only for jobs that abort:
# hydra's proxy can kill the ranks before it has forwarded the aborting
# rank's message (stock MPICH loses "Message truncated" in about 1 run of
# 15 on 2 cores), so one run cannot prove the message is never printed.
want_fail=0
attempts=1
[ "$1" = "--fail" ] && { want_fail=1; shift; }
[ "$1" = "--attempts" ] && { attempts=$2; shift 2; }
regexes=""
n=0
while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do
  n=$((n + 1))
  eval "re_$n=\$1"
  shift
done
shift
run=1
while :; do
  out=$("$@" 2>&1)
  rc=$?
  printf '%s\n' "$out"
  if [ "$want_fail" -eq 1 ] && [ "$rc" -eq 0 ]; then echo "expected a failure, got exit 0"; exit 1; fi
  if [ "$want_fail" -eq 0 ] && [ "$rc" -ne 0 ]; then echo "exit status $rc"; exit 1; fi
  missing=""
  i=1
  while [ "$i" -le "$n" ]; do
    eval "re=\$re_$i"
    printf '%s\n' "$out" | grep -Eq -- "$re" || { missing=$re; break; }
    i=$((i + 1))
  done
  [ -z "$missing" ] && exit 0
  echo "output does not match: $missing (run $run of $attempts)"
  [ "$run" -ge "$attempts" ] && exit 1
  run=$((run + 1))
done
