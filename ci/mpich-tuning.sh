#!/usr/bin/env bash
# Prints the directory holding MPICH's shipped collective tuning files
# (maint/tuning/coll/{mpir,ch4}/*.json) of the installed MPICH's source
# package, unpacked once into the cache outside the clone (as
# ci/build-mpich.sh's source). Rules.MpichShippedFilesParse reads them
# (CMake: -DTOPOA2A_MPICH_TUNING_DIR=..., set by ci/test.sh).
# Environment: TOPOA2A_CACHE (default /var/cache/topoa2a).
set -euo pipefail
CI_DIR=$(cd "$(dirname "$0")" && pwd)
CACHE=${TOPOA2A_CACHE:-/var/cache/topoa2a}
LOG_TAG=mpich-tuning
# shellcheck source=lib/mpich-source.sh
source "$CI_DIR/lib/mpich-source.sh"

ensure_packages libmpich-dev dpkg-dev xz-utils debian-archive-keyring
OUT=$CACHE/src/mpich-tuning-$(mpich_source_version)
if [[ ! -f $OUT/.complete ]]; then
  download_mpich_source
  orig=$(compgen -G "$DL/mpich_*.orig.tar.*" | head -n1) || die "no .orig.tar in $DL"
  rm -rf "$OUT"; mkdir -p "$OUT"
  log "unpacking maint/tuning/coll from $(basename "$orig")"
  tar -xf "$orig" -C "$OUT" --strip-components=4 --wildcards '*/maint/tuning/coll/*' ||
    die "no maint/tuning/coll in $orig"
  [[ -f $OUT/mpir/generic.json && -f $OUT/ch4/generic.json ]] ||
    die "maint/tuning/coll/{mpir,ch4}/generic.json missing from $orig"
  touch "$OUT/.complete"
fi
echo "$OUT"
