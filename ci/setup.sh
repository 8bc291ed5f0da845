#!/usr/bin/env bash
# Installs the Debian 12 packages topoa2a needs (idempotent: skips apt when
# everything is already there). Run as root, or with sudo available.
set -euo pipefail
# libjson-c-dev: the rules file is read with json-c, as MPICH reads it;
# libsimgrid-dev: the sim_smoke test (SimGrid SMPI); iproute2: the emulated
# cluster's smoke test (network namespaces); gnuplot-nox: benchmark plots.
packages=(build-essential cmake pkg-config mpich libmpich-dev libgtest-dev libhwloc-dev
          libjson-c-dev hwloc-nox perl libsimgrid-dev iproute2 gnuplot-nox)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "ci/setup.sh: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" </dev/null
fi
