#!/usr/bin/env bash
# Configures and builds topoa2a into build/ (warnings are errors).
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTOPOA2A_WERROR=ON
cmake --build build -j "$(nproc)"
