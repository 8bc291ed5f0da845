#!/usr/bin/env bash
# The whole test suite: installs what it needs, builds topoa2a, builds (or
# reuses from the cache) the patched MPICH of the native front door, and
# runs every test through CTest (schedule unit tests, MPI tests direct,
# through the preload library and through the native front door,
# front-door behaviour, MPICH's own alltoall tests with each algorithm).
# Ends with a line that repeats CTest's count of passed and failed tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/build.sh
# Cached outside the clone (ci/build-mpich.sh); cold: about 25 minutes.
prefix=$(bash ci/build-mpich.sh)
# MPICH's shipped tuning files, which the rules parser must read
# (Rules.MpichShippedFilesParse fails, not skips, when this is set and they
# are missing).
tuning=$(bash ci/mpich-tuning.sh)
cmake -S . -B build -DTOPOA2A_PATCHED_MPICH="$prefix" -DTOPOA2A_MPICH_TUNING_DIR="$tuning" > /dev/null
cmake --build build -j "$(nproc)"
cd build
# Oversubscribed ch4 busy-polls: tests run one at a time.
# ctest's own last line is its total time, after the per-label times: the
# closing line repeats its count of passed and failed tests.
rc=0
ctest --output-on-failure --timeout 1800 "$@" 2>&1 | tee ctest.log || rc=$?
summary=$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' ctest.log | tail -1 || true)
echo "ci/test.sh: ${summary:-ctest printed no summary line} (exit status $rc)"
exit "$rc"
