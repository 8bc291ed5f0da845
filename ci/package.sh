#!/usr/bin/env bash
# Builds topoa2a's Debian packages (CPack) into build/package/, installs them
# into the system with apt-get, and checks what a user gets from them:
#   - the demo program, unmodified, with LD_PRELOAD=libtopoa2a.so found by
#     the loader (no build tree) and the algorithm chosen by MPICH's CVAR;
#   - a program linked with find_package(topoa2a), and one linked with
#     pkg-config --libs topoa2a (the library before -lmpi: no preload);
#   - topoa2a-info and topoa2a-bench on the PATH, their man pages;
# then removes the packages again. Needs root (it installs into /usr);
# exits 77 (skipped) otherwise. Usage: ci/package.sh [--keep] (keep them
# installed).
set -euo pipefail
cd "$(dirname "$0")/.."
keep=0
[ "${1:-}" = "--keep" ] && keep=1
if [ "$(id -u)" -ne 0 ]; then
  echo "ci/package.sh: needs root (installs packages); skipped"
  exit 77
fi
bash ci/setup.sh
src=$PWD
out=$PWD/build/package
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pkgs=(libtopoa2a topoa2a-tools)
remove() {
  local installed=()
  for p in "${pkgs[@]}"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" && installed+=("$p"); done
  if ((${#installed[@]})); then
    DEBIAN_FRONTEND=noninteractive apt-get remove -y -q "${installed[@]}" </dev/null >/dev/null
  fi
}
remove  # a previous run's, if any

# A build for /usr (multiarch libdir), libraries and tools only.
cmake -S . -B "$out" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=/usr \
  -DTOPOA2A_BUILD_TESTS=OFF -DTOPOA2A_WERROR=ON >/dev/null
cmake --build "$out" -j "$(nproc)" >/dev/null
rm -f "$out"/*.deb
(cd "$out" && cpack -G DEB >/dev/null)
debs=("$out"/libtopoa2a_*.deb "$out"/topoa2a-tools_*.deb)
for d in "${debs[@]}"; do
  [ -f "$d" ] || { echo "ci/package.sh: missing $d"; exit 1; }
  echo "== $(basename "$d")"
  dpkg-deb -f "$d" Package Version Depends
  dpkg-deb -c "$d" | awk '{print "   " $6}' | grep -v '/$'
done
[ "$keep" = 1 ] || trap 'remove; rm -rf "$work"' EXIT
DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${debs[@]}" </dev/null >/dev/null

fail() { echo "ci/package.sh: FAIL: $*"; exit 1; }
# Runs an MPI program on 2 ranks with ring forced; the statistics line
# proves topoa2a ran it, the program checks its own result.
check_run() {
  local what=$1
  shift
  local log=$work/run.log
  local rc=0
  MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM=ring MPIR_CVAR_TOPOA2A_STATS=1 timeout 120 "$@" >"$log" 2>&1 || rc=$?
  [ "$rc" = 0 ] || { cat "$log"; fail "$what: exit status $rc"; }
  grep -q "result correct" "$log" || { cat "$log"; fail "$what: no correct result"; }
  grep -q "topoa2a-stats rank=0 op=alltoall algorithm=ring calls=" "$log" ||
    { cat "$log"; fail "$what: topoa2a did not run ring"; }
  echo "ok: $what"
}

[ "$(command -v topoa2a-info)" = /usr/bin/topoa2a-info ] || fail "topoa2a-info not on PATH"
[ "$(command -v topoa2a-bench)" = /usr/bin/topoa2a-bench ] || fail "topoa2a-bench not on PATH"
[ "$(command -v topoa2a-calibrate)" = /usr/bin/topoa2a-calibrate ] ||
  fail "topoa2a-calibrate not on PATH"
for m in topoa2a-info topoa2a-bench topoa2a-calibrate topoa2a; do
  man -w "$m" >/dev/null 2>&1 || fail "no man page for $m"
done
echo "ok: tools on PATH, man pages topoa2a-info(1) topoa2a-bench(1) topoa2a-calibrate(1) topoa2a(7)"
timeout 120 mpiexec -n 2 topoa2a-info >"$work/info.txt" 2>&1 || { cat "$work/info.txt"; fail "topoa2a-info"; }
grep -q "topo_auto" "$work/info.txt" || { cat "$work/info.txt"; fail "topoa2a-info printed no choice"; }
echo "ok: mpiexec -n 2 topoa2a-info"

mpicc -O2 examples/transpose.c -o "$work/transpose"
check_run "LD_PRELOAD=libtopoa2a.so (installed), unmodified program" \
  env LD_PRELOAD=libtopoa2a.so mpiexec -n 2 "$work/transpose" 64 1
LD_PRELOAD=libtopoa2a.so MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM=ring timeout 120 \
  mpiexec -n 2 topoa2a-bench -m 8:8 -i 2 -x 1 -r 1 -c ring,mpich:auto >"$work/bench.txt" 2>&1 ||
  { cat "$work/bench.txt"; fail "topoa2a-bench"; }
echo "ok: topoa2a-bench with the installed library"

# pkg-config: the library before MPICH's (mpicc appends -lmpich).
pkg-config --exists topoa2a || fail "pkg-config does not know topoa2a"
# shellcheck disable=SC2046
mpicc -O2 examples/transpose.c $(pkg-config --cflags --libs topoa2a) -o "$work/transpose_pc"
check_run "linked with pkg-config --libs topoa2a (no preload)" mpiexec -n 2 "$work/transpose_pc" 64 1

# find_package(topoa2a): a project outside this tree.
mkdir -p "$work/consumer"
cp examples/transpose.c "$work/consumer/"
cat >"$work/consumer/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.16)
project(consumer C)
find_package(MPI REQUIRED COMPONENTS C)
find_package(topoa2a 0.1 REQUIRED)
add_executable(transpose transpose.c)
target_link_libraries(transpose PRIVATE topoa2a::topoa2a MPI::MPI_C)
# topoa2a_select's header comes with the package.
file(WRITE ${CMAKE_BINARY_DIR}/uses_header.c "#include <topoa2a/control.h>\nint main(void) { topoa2a_select_fn f = 0; return f != 0; }\n")
add_executable(uses_header ${CMAKE_BINARY_DIR}/uses_header.c)
target_link_libraries(uses_header PRIVATE topoa2a::topoa2a MPI::MPI_C)
CMAKE
cmake -S "$work/consumer" -B "$work/consumer/build" >/dev/null
cmake --build "$work/consumer/build" >/dev/null
check_run "linked with find_package(topoa2a) (no preload)" mpiexec -n 2 "$work/consumer/build/transpose" 64 1
cd "$src"
if [ "$keep" = 1 ]; then
  echo "package: installed and kept: ${pkgs[*]}"
else
  remove
  ! dpkg-query -W -f='${Status}' libtopoa2a 2>/dev/null | grep -q "ok installed" || fail "not removed"
  [ ! -e /usr/bin/topoa2a-info ] || fail "topoa2a-info left after removal"
  echo "package: built, installed, checked and removed: ${pkgs[*]}"
fi
