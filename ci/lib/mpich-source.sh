# Shared by ci/mpich-testsuite.sh and ci/build-mpich.sh (sourced, not run):
# logging, Debian package installation and the download of Debian's MPICH
# source package. The caller sets LOG_TAG and CACHE.

log() { printf '[%s %3ds] %s\n' "${LOG_TAG:-ci}" "$SECONDS" "$*" >&2; }
die() { log "error: $*"; exit 2; }

APT_UPDATED=0
apt_update() {
  ((APT_UPDATED)) && return 0
  log "apt-get update"
  apt-get -q -o Dpkg::Use-Pty=0 update >&2
  APT_UPDATED=1
}

# Installs the packages named in the arguments that are missing.
ensure_packages() {
  local p missing=()
  for p in "$@"; do
    [[ $(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true) == installed ]] ||
      missing+=("$p")
  done
  ((${#missing[@]})) || return 0
  apt_update
  log "apt-get install ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get -q -y -o Dpkg::Use-Pty=0 install \
    --no-install-recommends "${missing[@]}" </dev/null >&2
}

ensure_deb_src() {
  if ! grep -rqsE '^(deb-src[[:space:]]|Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    log "adding /etc/apt/sources.list.d/debian-src.sources"
    cat > /etc/apt/sources.list.d/debian-src.sources <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    APT_UPDATED=0
  fi
}

# Debian's source version of the installed MPICH (e.g. 4.0.2-3) and its
# upstream version (4.0.2).
mpich_source_version() { dpkg-query -W -f='${source:Version}' libmpich-dev; }
mpich_upstream_version() { local v; v=$(mpich_source_version); v=${v#*:}; echo "${v%-*}"; }

# Downloads (once) Debian's MPICH source package into $CACHE/src; sets DL to
# the directory holding its .dsc, .orig.tar.* and .debian.tar.*.
download_mpich_source() {
  local srcver
  srcver=$(mpich_source_version)
  DL=$CACHE/src/download-$srcver
  compgen -G "$DL/mpich_*.dsc" > /dev/null && return 0
  log "fetching MPICH source $srcver into $DL"
  ensure_deb_src
  apt_update
  rm -rf "$DL"; mkdir -p "$DL"
  chown _apt "$DL" 2>/dev/null || true   # lets apt download sandboxed
  (cd "$DL" && { apt-get -q source --download-only "mpich=$srcver" ||
                 apt-get -q source --download-only mpich; }) >&2
  compgen -G "$DL/mpich_*.dsc" > /dev/null || die "apt-get source mpich fetched no .dsc"
}
