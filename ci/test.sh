#!/usr/bin/env bash
# The whole test suite: installs what it needs, builds, and runs every test
# through CTest (schedule unit tests, MPI tests direct and through the
# preload library, front-door behaviour, MPICH's own alltoall tests with
# each algorithm). Ends with CTest's summary line.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/build.sh
cd build
# Oversubscribed ch4 busy-polls: tests run one at a time.
ctest --output-on-failure --timeout 1800 "$@"
