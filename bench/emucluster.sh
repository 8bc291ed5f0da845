#!/usr/bin/env bash
# emucluster.sh: an emulated cluster on one machine, and MPI_Alltoall over it.
#
# Every host is a network namespace with its own host name; the hosts are
# wired as a ring, a 2-D torus, a hypercube or a single switch with veth
# pairs, every link direction is shaped with tc, the namespaces forward IP
# along shortest (dimension-order) routes, and one MPICH rank runs per host,
# started by mpiexec through a launcher wrapper that enters the namespace.
# MPI data goes over UCX's TCP transport on the shaped links only; mpiexec
# reaches its proxies over a separate, unshaped management bridge. Then the
# benchmark runs once per algorithm, and the results become tables
# (topo_auto against the fastest candidate) and, with gnuplot, plots.
#
# Must run as root. Everything it creates (namespaces, veths, bridges,
# qdiscs, temporary files) is removed on exit, on failure and on Ctrl-C.
# Nothing is added to the root network namespace.
#
# usage: bench/emucluster.sh [options]      (see --help; bench/EMULATION.md)

set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)

TOPOS="ring"
HOSTS="4"
DIMS=""
RATE="100mbit"
DELAY="0"
OVERHEAD=0
TS=""
SIZES="1,256,4096,65536"
ALGS="ring ring_bidir mesh hypercube onefactor onefactor_xor topo_auto brucks pairwise auto scattered"
ITERS=10
BUDGET=5
RUN_TIMEOUT=900
OUT=""
BENCH_CMD=""
PRELOAD="$ROOT/build/plugin/libtopoa2a.so"
IDLE="sleep"
COST=""
WARMUP=1
SMOKE=0
SHELL_AFTER=0
VERBOSE=0
PPN=1

usage() {
  cat <<'EOF'
usage: bench/emucluster.sh [options]

  --topo LIST        ring, torus, hypercube, switch (space or comma separated;
                     default ring)
  -n, --hosts LIST   numbers of hosts, 2..16 (default 4); one cluster per
                     topology and number
  --dims AxB         torus dimensions (default: closest to square)
  --ppn K            MPI ranks per emulated host, 1..8 (default 1); ranks of a
                     host share its namespace and talk over MPICH's shared
                     memory, ranks of different hosts over the shaped links
  --rate RATE        bandwidth of every link direction, tc units (default 100mbit)
  --delay TIME       per-link one-way delay, tc units (e.g. 200us, 1ms;
                     default 0); needs netem (CONFIG_NET_SCH_NETEM): the script
                     stops when the kernel lacks it (a token bucket cannot
                     delay an isolated packet)
  --overhead BYTES   per-packet charge on every link (tbf overhead, default 0):
                     each packet costs (len + BYTES) / RATE of link time, so
                     small messages cost more under load; not a delay
  --ts TIME          ts_inter told to topo_auto (default 300us + DELAY: the
                     per-message cost of TCP between namespaces on this
                     machine plus the link delay)
  --sizes LIST       block sizes in bytes, comma separated (default 1,256,4096,65536)
  --algs LIST        values of MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM to run
                     (default: ring ring_bidir mesh hypercube onefactor
                     onefactor_xor topo_auto brucks pairwise auto scattered)
  --iters N          timed calls per size (default 10)
  --warmup N         untimed calls per size after the checked one (default 1)
  --budget SEC       time budget per size, fewer calls when exceeded (default 5)
  --bench CMD        the benchmark to run on every rank instead of the built-in
                     probe; it runs once per algorithm with the algorithm in the
                     environment and must print osu_alltoall-style lines
                     "SIZE AVG_US ..." (e.g. "/path/osu_alltoall -m 1:65536")
  --preload PATH     topoa2a preload library (default build/plugin/libtopoa2a.so)
  --idle MODE        what an idle rank does between polls (bench/emu_shim.c):
                     sleep (default: 20 us after 20 idle polls; the cores go
                     idle and the kernel forwards packets at once), yield
                     (sched_yield), spin (MPICH's own busy polling)
  --cost STR         MPIR_CVAR_TOPOA2A_COST for topo_auto; default: the
                     emulated link, ts_inter=DELAY and tw_inter= the time per
                     byte including the per-packet charge; "none": leave
                     topoa2a's defaults; "calibrate": no costs typed in: on
                     each cluster topoa2a-calibrate (next to the preload
                     library's build, build/calibrate/) runs first on all its
                     ranks and topo_auto reads the cost file it writes
                     (MPIR_CVAR_TOPOA2A_COST_FILE; kept as TOPO-HOSTS.cost
                     in the results directory)
  --timeout SEC      limit of one mpiexec run (default 900)
  --out DIR          results directory (default bench/emu-results/DATE)
  --smoke            2 hosts on a switch, one size, ring + pairwise; exit 77
                     when not root or network namespaces are unavailable
  --shell            after the runs of the first cluster, open a shell in its
                     head namespace (exit the shell to tear down)
  -v                 print every command that builds the cluster
EOF
}

die() { echo "emucluster: $*" >&2; exit 1; }

while [ $# -gt 0 ]; do
  case $1 in
    --topo) TOPOS=${2//,/ }; shift 2 ;;
    -n|--hosts) HOSTS=${2//,/ }; shift 2 ;;
    --dims) DIMS=$2; shift 2 ;;
    --ppn) PPN=$2; shift 2 ;;
    --rate) RATE=$2; shift 2 ;;
    --delay) DELAY=$2; shift 2 ;;
    --overhead) OVERHEAD=$2; shift 2 ;;
    --ts) TS=$2; shift 2 ;;
    --sizes) SIZES=$2; shift 2 ;;
    --algs) ALGS=${2//,/ }; shift 2 ;;
    --iters) ITERS=$2; shift 2 ;;
    --budget) BUDGET=$2; shift 2 ;;
    --bench) BENCH_CMD=$2; shift 2 ;;
    --preload) PRELOAD=$2; shift 2 ;;
    --idle) IDLE=$2; shift 2 ;;
    --cost) COST=$2; shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --timeout) RUN_TIMEOUT=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --smoke) SMOKE=1; shift ;;
    --shell) SHELL_AFTER=1; shift ;;
    -v) VERBOSE=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown option '$1'" ;;
  esac
done

if [ "$SMOKE" = 1 ]; then
  TOPOS=switch; HOSTS=2; SIZES=1024; ALGS="ring pairwise"; ITERS=2; BUDGET=2
  RUN_TIMEOUT=120; RATE=1gbit; DELAY=0
fi

skip() { echo "emucluster: SKIP: $*"; exit 77; }
if [ "$(id -u)" != 0 ]; then
  [ "$SMOKE" = 1 ] && skip "not root (network namespaces need root)"
  die "must run as root (it creates network namespaces, veth pairs and qdiscs)"
fi
for tool in ip tc unshare mpiexec mpicc python3 timeout; do
  command -v "$tool" >/dev/null || { [ "$SMOKE" = 1 ] && skip "$tool not found"; die "$tool not found"; }
done

# ---------------------------------------------------------------------------
# Names and cleanup. Everything carries TAG; cleanup removes exactly that.

TAG="ea$$"
TMP=$(mktemp -d "/tmp/emucluster.$TAG.XXXXXX")
NAMESPACES=()

run() { [ "$VERBOSE" = 1 ] && echo "+ $*" >&2; "$@"; }

MPIPID=""
teardown_cluster() {
  local ns pid
  [ -n "$MPIPID" ] && kill -TERM "$MPIPID" 2>/dev/null || true
  for ns in "${NAMESPACES[@]}"; do
    # processes we started inside our namespaces (mpiexec, proxies, ranks)
    for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -TERM "$pid" 2>/dev/null || true; done
  done
  if [ ${#NAMESPACES[@]} -gt 0 ]; then
    sleep 0.5
    for ns in "${NAMESPACES[@]}"; do
      for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null || true; done
    done
  fi
  # deleting a namespace deletes its veths (and their peers) and qdiscs
  for ns in "${NAMESPACES[@]}"; do ip netns del "$ns" 2>/dev/null || true; done
  NAMESPACES=()
}

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  teardown_cluster
  rm -rf "$TMP"
  exit "$rc"
}
trap cleanup EXIT
trap 'echo "emucluster: interrupted" >&2; exit 130' INT
trap 'echo "emucluster: terminated" >&2; exit 143' TERM

if ! ip netns add "$TAG-probe" 2>/dev/null; then
  [ "$SMOKE" = 1 ] && skip "cannot create network namespaces here"
  die "cannot create network namespaces here"
fi
NAMESPACES+=("$TAG-probe")
if ! ip link add t0 netns "$TAG-probe" type veth peer name t1 netns "$TAG-probe" 2>/dev/null; then
  [ "$SMOKE" = 1 ] && skip "cannot create veth pairs here"
  die "cannot create veth pairs here"
fi
HAVE_NETEM=0
ip netns exec "$TAG-probe" tc qdisc add dev t0 root netem delay 1ms 2>/dev/null && HAVE_NETEM=1
ip netns exec "$TAG-probe" tc qdisc add dev t1 root tbf rate 1gbit burst 32k limit 1m 2>/dev/null ||
  die "tc cannot add a tbf qdisc (CONFIG_NET_SCH_TBF)"
teardown_cluster

# ---------------------------------------------------------------------------
# Rates and times in tc units -> numbers

to_bps() {  # tc rate -> bits per second
  python3 - "$1" <<'EOF'
import re, sys
s = sys.argv[1].lower()
m = re.fullmatch(r"([0-9.]+)\s*([kmgt]?)(bit|bps)?", s)
if not m:
    sys.exit("bad rate '%s' (e.g. 100mbit, 1gbit)" % sys.argv[1])
v = float(m.group(1)) * {"": 1, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12}[m.group(2)]
if m.group(3) == "bps":
    v *= 8
print(int(v))
EOF
}
to_sec() {  # tc time -> seconds
  python3 - "$1" <<'EOF'
import re, sys
m = re.fullmatch(r"([0-9.]+)\s*(s|ms|us|ns)?", sys.argv[1].lower())
if not m:
    sys.exit("bad time '%s' (e.g. 200us, 1ms)" % sys.argv[1])
print("%.9f" % (float(m.group(1)) * {None: 1, "s": 1, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}[m.group(2)]))
EOF
}
RATE_BPS=$(to_bps "$RATE") || die "bad --rate"
DELAY_S=$(to_sec "$DELAY") || die "bad --delay"
MTU=1500
[[ "$OVERHEAD" =~ ^[0-9]+$ ]] && [ "$OVERHEAD" -le 65535 ] || die "--overhead takes 0..65535 bytes"
if [ "$DELAY_S" != "0.000000000" ] && [ "$HAVE_NETEM" = 0 ]; then
  die "--delay needs the netem qdisc, which this kernel lacks (CONFIG_NET_SCH_NETEM); only --rate (and --overhead) can be emulated here"
fi
TS_S=$(to_sec "${TS:-0}") || die "bad --ts"
[ -n "$TS" ] || TS_S=$(python3 -c "print(300e-6 + $DELAY_S)")
# tbf: a bucket of two full packets (so GSO super-packets are segmented and
# charged packet by packet) and a queue long enough never to drop (a drop
# costs TCP a 200 ms retransmission timeout, which would swamp everything)
BURST=$(( 2 * (MTU + 14 + OVERHEAD) ))
LIMIT=$(( 8 * 1024 * 1024 ))
SHAPING="tbf rate $RATE"
[ "$DELAY_S" != "0.000000000" ] && SHAPING="netem delay $DELAY, $SHAPING"
[ "$OVERHEAD" -gt 0 ] && SHAPING="$SHAPING, per-packet charge $OVERHEAD B"
case $IDLE in sleep|yield|spin) ;; *) die "--idle takes sleep, yield or spin, not '$IDLE'" ;; esac
CALIBRATE=""
COST_FILE=""
if [ "$COST" = calibrate ]; then
  CALIBRATE="$(dirname "$PRELOAD")/../calibrate/topoa2a-calibrate"
  [ -x "$CALIBRATE" ] || die "--cost calibrate: $CALIBRATE not found (run bash ci/build.sh)"
fi
if [ -z "$COST" ]; then
  # what one message and one byte cost on an emulated link: with the
  # per-packet charge a full packet (1448 payload bytes) pays OVERHEAD more
  COST=$(python3 -c "
print('ts_inter=%.3fus,tw_inter=%.4fns' % ($TS_S * 1e6, 8e9 / $RATE_BPS * (1 + $OVERHEAD / 1448.0)))")
fi

shape() {  # shape NS DEV: egress of DEV in NS
  local ns=$1 dev=$2
  if [ "$DELAY_S" != "0.000000000" ]; then
    run ip netns exec "$ns" tc qdisc add dev "$dev" root handle 1: netem delay "$DELAY" limit 100000
    run ip netns exec "$ns" tc qdisc add dev "$dev" parent 1:1 handle 10: tbf rate "$RATE" burst "$BURST" limit "$LIMIT" overhead "$OVERHEAD"
  elif [ "$OVERHEAD" -gt 0 ]; then
    run ip netns exec "$ns" tc qdisc add dev "$dev" root tbf rate "$RATE" burst "$BURST" limit "$LIMIT" overhead "$OVERHEAD"
  else
    run ip netns exec "$ns" tc qdisc add dev "$dev" root tbf rate "$RATE" burst "$BURST" limit "$LIMIT"
  fi
}

# ---------------------------------------------------------------------------
# Programs

BUILTIN=0
NSIZES=$(echo "$SIZES" | tr ',' '\n' | grep -c .)
if [ -z "$BENCH_CMD" ]; then
  BUILTIN=1
  run mpicc -O2 -o "$TMP/emu_probe" "$HERE/emu_probe.c"
  BENCH_CMD="$TMP/emu_probe -m $SIZES -i $ITERS -x $WARMUP -t $BUDGET"
  [ "$SMOKE" = 1 ] && BENCH_CMD="$BENCH_CMD -v"
fi
PRELOADS=""
if [ -n "$PRELOAD" ]; then
  [ -f "$PRELOAD" ] || die "$PRELOAD not found (run bash ci/build.sh, or give --preload)"
  PRELOADS=$PRELOAD
fi
# the shim goes first: it must see the program's MPI_Finalize before topoa2a
run mpicc -O2 -shared -fPIC -o "$TMP/emu_shim.so" "$HERE/emu_shim.c" -ldl
PRELOADS="$TMP/emu_shim.so${PRELOADS:+ $PRELOADS}"

# ---------------------------------------------------------------------------
# One cluster

HEAD=""; NHOSTS=0; KIND=""; NETFILE=""
hostns() { printf '%s-h%02d' "$TAG" "$1"; }
hostname_of() { printf 'n%02d' "$1"; }
haddr() { echo "10.201.0.$(( $1 + 1 ))"; }   # a host's data address
maddr() { echo "10.202.0.$(( $1 + 2 ))"; }   # a host's management address

setup_cluster() {  # setup_cluster KIND N
  KIND=$1; NHOSTS=$2
  local i ns
  HEAD="$TAG-head"
  NETFILE="$TMP/$KIND-$NHOSTS.net"
  local dims=()
  [ "$KIND" = torus ] && [ -n "$DIMS" ] && dims=(--dims "$DIMS")
  python3 "$HERE/emu_topo.py" "$KIND" "$NHOSTS" "${dims[@]}" --netfile "$NETFILE" > "$TMP/wiring" ||
    die "cannot wire $KIND with $NHOSTS hosts"

  # head: mpiexec's namespace, with the management bridge
  run ip netns add "$HEAD"; NAMESPACES+=("$HEAD")
  run ip -n "$HEAD" link set lo up
  run ip -n "$HEAD" link add mg type bridge
  run ip -n "$HEAD" addr add 10.202.0.1/24 dev mg
  run ip -n "$HEAD" link set mg up

  for ((i = 0; i < NHOSTS; i++)); do
    ns=$(hostns "$i")
    run ip netns add "$ns"; NAMESPACES+=("$ns")
    run ip -n "$ns" link set lo up
    run ip netns exec "$ns" sh -c '
      sysctl -qw net.ipv4.ip_forward=1
      for c in all default; do
        sysctl -qw net.ipv4.conf.$c.rp_filter=0
        sysctl -qw net.ipv4.conf.$c.send_redirects=0
        sysctl -qw net.ipv4.conf.$c.accept_redirects=0
      done'
    run ip link add m0 netns "$ns" type veth peer name "mp$i" netns "$HEAD"
    run ip -n "$HEAD" link set "mp$i" master mg up
    run ip -n "$ns" addr add "$(maddr "$i")/24" dev m0
    run ip -n "$ns" link set m0 up
  done

  if [ "$KIND" = switch ]; then
    local sw="$TAG-sw"
    run ip netns add "$sw"; NAMESPACES+=("$sw")
    run ip -n "$sw" link set lo up
    run ip -n "$sw" link add br0 type bridge
    run ip -n "$sw" link set br0 up
    for ((i = 0; i < NHOSTS; i++)); do
      ns=$(hostns "$i")
      run ip link add d0 netns "$ns" type veth peer name "p$i" netns "$sw"
      run ip -n "$sw" link set "p$i" master br0 up
      run ip -n "$ns" addr add "$(haddr "$i")/24" dev d0
      run ip -n "$ns" link set d0 up
      shape "$ns" d0
      shape "$sw" "p$i"
    done
  else
    local w a pa b pb
    while read -r w a pa b pb; do
      [ "$w" = link ] || continue
      run ip link add "d$pa" netns "$(hostns "$a")" type veth peer name "d$pb" netns "$(hostns "$b")"
    done < "$TMP/wiring"
    for ((i = 0; i < NHOSTS; i++)); do
      ns=$(hostns "$i")
      # the host's address lives on d0; Linux answers for it on every port
      run ip -n "$ns" addr add "$(haddr "$i")/32" dev d0
      for dev in $(ip -n "$ns" -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | grep '^d[0-9]'); do
        run ip -n "$ns" link set "$dev" up
        shape "$ns" "$dev"
      done
    done
    local dst next port
    while read -r w a dst next port; do
      [ "$w" = route ] || continue
      if [ "$dst" = "$next" ]; then
        echo "route add $(haddr "$dst")/32 dev d$port scope link src $(haddr "$a")"
      else
        echo "route add $(haddr "$dst")/32 via $(haddr "$next") dev d$port onlink src $(haddr "$a")"
      fi >> "$TMP/routes.$a"
    done < "$TMP/wiring"
    for ((i = 0; i < NHOSTS; i++)); do
      [ "$VERBOSE" = 1 ] && sed "s/^/+ ip -n $(hostns "$i") /" "$TMP/routes.$i" >&2
      ip -n "$(hostns "$i")" -batch "$TMP/routes.$i"
      rm -f "$TMP/routes.$i"
    done
  fi

  # the launcher: Hydra calls it like ssh (options, host, command words);
  # it runs the command in the host's namespace under the host's name
  cat > "$TMP/launch" <<EOF
#!/bin/bash
while [ "\${1#-}" != "\$1" ]; do shift; done
host=\$1; shift
case \$host in
  n[0-9][0-9]) ns=$TAG-h\${host#n} ;;
  *) echo "emucluster launcher: unknown host '\$host'" >&2; exit 1 ;;
esac
exec ip netns exec "\$ns" unshare --uts sh -c 'hostname "\$0" && exec sh -c "\$1"' "\$host" "\$*"
EOF
  chmod +x "$TMP/launch"

  # the kernel reports a new veth's carrier through its link watcher, which
  # may run up to a second late: until then the link is NO-CARRIER, and UCX
  # skips an interface that is not RUNNING ("network device 'd0' is not
  # available"). Wait until every link of every host is up.
  local waited=0 down
  while :; do
    down=""
    for ((i = 0; i < NHOSTS; i++)); do
      ns=$(hostns "$i")
      down="$down$(ip -n "$ns" -o link show | awk -F': ' '$2 != "lo" && !/state UP/ {sub(/@.*/, "", $2); printf " %s:%s", ns, $2}' ns="$ns")"
    done
    [ -z "$down" ] && break
    [ "$waited" -ge 100 ] && die "links still down after 10 s:$down"
    sleep 0.1; waited=$((waited + 1))
  done

  # every host reaches every other over the data network (a TCP connect to
  # the discard port: nothing listens, so a reset proves the path)
  local bad=0 j dsts
  for ((i = 0; i < NHOSTS; i++)); do
    dsts=""
    for ((j = 0; j < NHOSTS; j++)); do [ "$i" = "$j" ] || dsts="$dsts $(haddr "$j")"; done
    # shellcheck disable=SC2086
    ip netns exec "$(hostns "$i")" python3 - $dsts <<'EOF' || bad=1
import socket, sys
bad = 0
for dst in sys.argv[1:]:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(5)
    try:
        s.connect((dst, 9))
    except ConnectionRefusedError:
        pass
    except OSError as e:
        print("no path to %s: %s" % (dst, e), file=sys.stderr)
        bad = 1
    s.close()
sys.exit(bad)
EOF
  done
  [ "$bad" = 0 ] || die "the data network of $KIND/$NHOSTS is not fully connected"
}

counters() {  # total tx bytes: "DATA MGMT" over all hosts (and switch ports)
  local ns data=0 mgmt=0 d m
  for ns in "${NAMESPACES[@]}"; do
    [ "$ns" = "$HEAD" ] && continue
    read -r d m < <(ip netns exec "$ns" sh -c '
      d=0; m=0
      for f in /sys/class/net/*/statistics/tx_bytes; do
        dev=${f#/sys/class/net/}; dev=${dev%%/*}
        case $dev in d[0-9]*|p[0-9]*) d=$((d + $(cat "$f"))) ;; m0) m=$((m + $(cat "$f"))) ;; esac
      done
      echo "$d $m"')
    data=$((data + d)); mgmt=$((mgmt + m))
  done
  echo "$data $mgmt"
}

hostlist() { local i l=""; for ((i = 0; i < NHOSTS; i++)); do l="$l${l:+,}$(hostname_of "$i"):$PPN"; done; echo "$l"; }

mpirun_emu() {  # mpirun_emu ALG OUTFILE [CMD...]: CMD (default BENCH_CMD) on every host
  local alg=$1 out=$2 env=()
  shift 2
  # Between hosts only TCP on the data port; inside a host (--ppn > 1)
  # MPICH's own shared memory carries the messages (ch4's posix shmmod,
  # used for ranks of one MPICH node), so UCX needs no shared memory
  # transport either way.
  env+=(-genv UCX_TLS "self,tcp" -genv UCX_NET_DEVICES d0 -genv UCX_WARN_UNUSED_ENV_VARS n)
  case $IDLE in
    sleep) env+=(-genv EMU_YIELD_SPIN 20 -genv EMU_IDLE_SLEEP_US 20) ;;
    yield) env+=(-genv EMU_YIELD_SPIN 1) ;;
    spin) env+=(-genv EMU_YIELD_SPIN 0) ;;
  esac
  for v in EMU_YIELD_SPIN EMU_IDLE_SLEEP_US EMU_REAL_FINALIZE; do
    [ -n "${!v:-}" ] && env+=(-genv "$v" "${!v}")
  done
  env+=(-genv MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM "$alg" -genv MPIR_CVAR_TOPOA2A_VERBOSE 1)
  env+=(-genv MPIR_CVAR_TOPOA2A_NETWORK_FILE "$NETFILE")
  [ -n "$PRELOADS" ] && env+=(-genv LD_PRELOAD "$PRELOADS")
  case $COST in
    none) ;;
    calibrate) [ -n "$COST_FILE" ] && env+=(-genv MPIR_CVAR_TOPOA2A_COST_FILE "$COST_FILE") ;;
    *) env+=(-genv MPIR_CVAR_TOPOA2A_COST "$COST") ;;
  esac
  # shellcheck disable=SC2206
  [ $# -gt 0 ] || set -- $BENCH_CMD
  # in the background, so that a signal reaches our trap at once (bash runs
  # traps only between foreground commands); the trap kills what runs in
  # our namespaces
  timeout -k 10 "$RUN_TIMEOUT" ip netns exec "$HEAD" \
    mpiexec -launcher ssh -launcher-exec "$TMP/launch" -iface mg \
      -hosts "$(hostlist)" -n "$((NHOSTS * PPN))" "${env[@]}" "$@" > "$out" 2>&1 < /dev/null &
  MPIPID=$!
  local rc=0
  wait "$MPIPID" || rc=$?
  MPIPID=""
  return "$rc"
}

# ---------------------------------------------------------------------------
# Runs

[ -n "$OUT" ] || OUT="$HERE/emu-results/$(date -u +%Y%m%d-%H%M%S)"
mkdir -p "$OUT/raw"
CSV="$OUT/results.csv"
[ "$SMOKE" = 1 ] && rm -f "$CSV"
[ -f "$CSV" ] || echo "topo,hosts,rate,delay,algorithm,size,avg_us,chosen" > "$CSV"
{
  echo "# emucluster $(date -u +%FT%TZ) on $(nproc) cores, $(uname -r)"
  echo "# links: $SHAPING; idle ranks: $IDLE; MPIR_CVAR_TOPOA2A_COST=$COST"
  echo "# bench: $BENCH_CMD"
} | tee -a "$OUT/runs.log"

case $PPN in [1-8]) ;; *) die "--ppn must be 1..8, not $PPN" ;; esac
status=0
for kind in $TOPOS; do
  for n in $HOSTS; do
    [ "$n" -ge 2 ] && [ "$n" -le 16 ] || die "hosts must be 2..16, not $n"
    if [ "$kind" = hypercube ] && [ $((n & (n - 1))) != 0 ]; then
      echo "emucluster: skipping hypercube with $n hosts (not a power of two)" | tee -a "$OUT/runs.log"
      continue
    fi
    # the label of this cluster in the tables: "switch", or "switch/ppn2"
    label=$kind
    [ "$PPN" = 1 ] || label="$kind/ppn$PPN"
    echo "== $kind, $n hosts x $PPN ranks ($SHAPING)" | tee -a "$OUT/runs.log"
    setup_cluster "$kind" "$n"
    cp "$NETFILE" "$OUT/$kind-$n.net"
    COST_FILE=""
    if [ -n "$CALIBRATE" ]; then
      # the costs of this cluster, measured on it; 64 KiB is far past where
      # the bytes outweigh the start-up (about 100 B at 10 Mbit/s) and
      # takes 52 ms at 10 Mbit/s, so a calibration takes about a minute
      cost="$OUT/${label//\//-}-$n.cost"
      if mpirun_emu topo_auto "$OUT/${label//\//-}-$n-calibrate.txt" \
        "$CALIBRATE" -m 8:65536 -i 20 -r 3 -o "$cost"; then
        COST_FILE=$cost
        echo "   costs from topoa2a-calibrate: $(grep -v '^#' "$cost" | tr '\n' ' ')" | tee -a "$OUT/runs.log"
      else
        echo "   (topoa2a-calibrate failed, see $OUT/${label//\//-}-$n-calibrate.txt; topo_auto keeps its default costs)" |
          tee -a "$OUT/runs.log"
      fi
    fi
    # what topoa2a detects on the emulated cluster and what topo_auto would pick
    info="$(dirname "$PRELOAD")/topoa2a-info"
    if [ -n "$PRELOAD" ] && [ -x "$info" ]; then
      mpirun_emu topo_auto "$OUT/$kind-$n-info.txt" "$info" ||
        echo "   (topoa2a-info failed, see $OUT/$kind-$n-info.txt)"
    fi
    for alg in $ALGS; do
      raw="$OUT/raw/${label//\//-}-$n-$RATE-$alg.txt"
      read -r d0 m0 < <(counters)
      t0=$(date +%s.%N)
      rc=0
      mpirun_emu "$alg" "$raw" || rc=$?
      t1=$(date +%s.%N)
      read -r d1 m1 < <(counters)
      line=$(printf '%-14s rc=%d %6.1fs  data links %9.3f MB  management %7.1f KB' "$alg" "$rc" \
        "$(echo "$t1 - $t0" | bc)" "$(echo "($d1 - $d0) / 1000000" | bc -l)" "$(echo "($m1 - $m0) / 1000" | bc -l)")
      if [ "$rc" != 0 ] && [ "$BUILTIN" = 1 ] && [ "$(grep -c '^[0-9]' "$raw")" = "$NSIZES" ]; then
        # every size was measured and checked; the failure came at teardown
        line="$line  (all sizes measured; the exit status came after them)"
        rc=0
      fi
      echo "   $line" | tee -a "$OUT/runs.log"
      if [ "$rc" != 0 ]; then
        status=1
        sed 's/^/     | /' "$raw" | tail -15 >&2
        continue
      fi
      python3 "$HERE/emu_report.py" --parse "$raw" "$label" "$n" "$RATE" "$DELAY" "$alg" >> "$CSV"
    done
    if [ "$SHELL_AFTER" = 1 ]; then
      echo "emucluster: shell in $HEAD (hosts n00..; e.g. ip netns exec $(hostns 0) tc -s qdisc); exit to tear down"
      ip netns exec "$HEAD" bash -i || true
      SHELL_AFTER=0
    fi
    teardown_cluster
  done
done

python3 "$HERE/emu_report.py" "$CSV" "$OUT" | tee "$OUT/tables.md"
echo "emucluster: results in $OUT"
if [ "$SMOKE" = 1 ] && [ "$status" = 0 ]; then
  # two hosts that MPICH sees as two nodes, with their own names, and the
  # data on the shaped links
  for alg in $ALGS; do
    f="$OUT/raw/switch-2-$RATE-$alg.txt"
    grep -q "^# 2 ranks on 2 MPI nodes" "$f" && grep -q "^# rank 0 on n00" "$f" &&
      grep -q "^# rank 1 on n01" "$f" && grep -q "^1024 " "$f" ||
      { echo "emucluster smoke: $f lacks the expected lines:" >&2; cat "$f" >&2; status=1; }
  done
  grep -Eq "data links +0\.[0-9]*[1-9]" "$OUT/runs.log" || grep -Eq "data links +[1-9]" "$OUT/runs.log" ||
    { echo "emucluster smoke: no bytes on the data links" >&2; status=1; }
  [ "$status" = 0 ] && echo "emucluster smoke: OK"
fi
exit "$status"
