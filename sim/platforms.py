#!/usr/bin/env python3
"""SimGrid platforms for the all-to-all sweep, and what the analysis needs
to know about them.

  platforms.py write DIR KIND P   writes DIR/KIND-P.xml and DIR/KIND-P.hosts
                                  and prints one line: the topoa2a forced
                                  topology (MPIR_CVAR_TOPOA2A_TOPOLOGY syntax)
  platforms.py info KIND P        prints the platform facts as JSON
  platforms.py write DIR KIND NxQ / info KIND NxQ: the same for N nodes of
                                  Q cores (ranks) each; KIND: fattree,
                                  fattree2 (2:1 tapered), dragonfly,
                                  torus2d, torus3d (N a power of two)

KIND: ring, torus2d, torus3d, fattree, dragonfly. One MPI rank per host.
Every link: LINK_BW bytes/s and LINK_LAT seconds, full duplex (SPLITDUPLEX:
each direction has the full bandwidth).

SimGrid numbers torus hosts with the FIRST dimension varying fastest and
routes dimension by dimension from the first; topoa2a's model numbers
endpoints row-major (the LAST dimension fastest), so the forced topology
lists the dimensions in reverse.
"""
import json
import math
import os
import sys

LINK_BW = 10e9  # bytes per second per link and direction (t_w = 0.1 ns/B)
LINK_LAT = 0.1e-6  # seconds per link (hop)
RECV_OVERHEAD = 1e-6  # smpi/or: software cost of each receive (part of t_s)

# The machine's constants by name, for set_machine (nodes.py --machine).
MACHINE_KEYS = {"link_bw": "LINK_BW", "link_lat": "LINK_LAT", "recv_overhead": "RECV_OVERHEAD",
                "shm_bw": "SHM_BW", "shm_lat": "SHM_LAT"}


def set_machine(spec):
    """Replaces the machine's constants named in spec ("link_bw=2.5e9,
    link_lat=1e-6,...": bytes/s and seconds; MACHINE_KEYS) for every
    platform described or written afterwards: a machine whose costs the
    model has never been shown (topo_auto learns them from topoa2a-calibrate
    alone). Returns the whole machine, as machine() does."""
    for item in (s.strip() for s in spec.split(",")):
        if not item:
            continue
        key, eq, value = item.partition("=")
        if key not in MACHINE_KEYS or not eq:
            raise SystemExit(f"--machine {item}: expected KEY=VALUE with KEY one of "
                             f"{', '.join(MACHINE_KEYS)}")
        try:
            v = float(value)
        except ValueError:
            v = 0.0
        if not v > 0 or math.isinf(v):
            raise SystemExit(f"--machine {item}: the value must be a positive number")
        globals()[MACHINE_KEYS[key]] = v
    return machine()


def machine():
    """The machine's constants as a set_machine spec (every key)."""
    return ",".join(f"{k}={globals()[g]:g}" for k, g in MACHINE_KEYS.items())


def _near_cube(p, n):
    """n extents, product p, as equal as powers of two allow (largest first)."""
    k = int(round(math.log2(p)))
    if 2**k != p:
        raise SystemExit(f"p={p}: the tori here need a power of two")
    exps = [k // n + (1 if i < k % n else 0) for i in range(n)]
    return [2**e for e in exps]


def describe(kind, p):
    """Facts about one platform: SimGrid cluster attributes, the model's
    topology string, the diameter in links and the bandwidth bounds."""
    bw, lat = LINK_BW, LINK_LAT
    if kind in ("ring", "torus2d", "torus3d"):
        dims = {"ring": [p], "torus2d": _near_cube(p, 2), "torus3d": _near_cube(p, 3)}[kind]
        dims = [d for d in dims if d > 1] or [1]
        attrs = {"topology": "TORUS", "topo_parameters": ",".join(map(str, dims))}
        model = ("ring:%d" % p) if len(dims) == 1 else "torus:" + "x".join(
            map(str, reversed(dims)))
        diameter = sum(d // 2 for d in dims)
        kmax = max(dims)
        # Cut across the longest dimension: 2 * p / kmax links each way.
        bisection_links = 2 * p // kmax if kmax > 2 else p // kmax
        injection_links = 2 * len(dims)
    elif kind == "fattree":
        # Two levels, full bisection: k leaves of k hosts, k spines.
        k = int(round(math.sqrt(p)))
        if k * k != p:
            leaves = 2 ** int(math.ceil(math.log2(p) / 2))
            k = p // leaves
            down = f"{k},{leaves}"
            up = f"1,{k}"
        else:
            leaves = k
            down = f"{k},{k}"
            up = f"1,{k}"
        attrs = {"topology": "FAT_TREE", "topo_parameters": f"2;{down};{up};1,1"}
        model = "fat_tree"
        diameter = 4
        bisection_links = p // 2
        injection_links = 1
    elif kind == "dragonfly":
        # g groups of c chassis of r routers with h hosts each (SimGrid needs
        # r >= g); 4 global links between each pair of groups: a tapered
        # dragonfly (bisection below the hosts' injection bandwidth).
        layouts = {64: (4, 2, 4, 2), 128: (4, 2, 4, 4), 256: (4, 4, 4, 4),
                   512: (8, 4, 8, 2), 1024: (8, 4, 8, 4), 2048: (8, 8, 8, 4)}
        if p not in layouts:
            raise SystemExit(f"dragonfly: no layout for p={p}")
        groups, chassis, routers, hosts = layouts[p]
        glinks = 4
        attrs = {"topology": "DRAGONFLY",
                 "topo_parameters": f"{groups},{glinks};{chassis},2;{routers},1;{hosts}"}
        model = f"dragonfly:{groups}x{p // groups}x{glinks}"
        diameter = 6  # host link, local, global, local, host link (+1 chassis hop)
        half = groups // 2
        bisection_links = half * half * glinks
        injection_links = 1
    else:
        raise SystemExit(f"unknown platform kind {kind}")
    return {
        "kind": kind,
        "p": p,
        "attrs": attrs,
        "model_topology": model,
        "bw": bw,
        "lat": lat,
        "recv_overhead": RECV_OVERHEAD,
        "diameter": diameter,
        "bisection_links": bisection_links,
        "injection_links": injection_links,
        # t_s, t_w for the seed formulas and topo_auto's cost model: one
        # receive overhead plus one hop; one link's bandwidth; and the
        # latency of each further link on a route (topo_auto's ts_hop).
        "ts": RECV_OVERHEAD + lat,
        "tw": 1.0 / bw,
        "hop": lat,
    }


def bounds(info, m):
    """Lower bounds on the all-to-all time for blocks of m bytes: latency
    (one receive overhead plus the diameter in hops) and bandwidth (the
    bisection: half the ranks send (p/2) blocks across it each way; and each
    host injecting (p-1) blocks over its links)."""
    p, bw = info["p"], info["bw"]
    t_lat = info["recv_overhead"] + info["diameter"] * info["lat"]
    t_bis = (p / 2) * (p / 2) * m / (info["bisection_links"] * bw)
    t_inj = (p - 1) * m / (info["injection_links"] * bw)
    return t_lat, max(t_bis, t_inj)


def write(outdir, kind, p):
    info = describe(kind, p)
    name = f"{kind}-{p}"
    a = " ".join(f'{k}="{v}"' for k, v in info["attrs"].items())
    xml = f"""<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<!-- {name}: generated by sim/platforms.py -->
<platform version="4.1">
  <cluster id="{kind}" prefix="h" suffix="" radical="0-{p - 1}" speed="1Gf"
           bw="{info['bw']:.6g}Bps" lat="{info['lat']:.6g}s" sharing_policy="SPLITDUPLEX"
           {a}/>
</platform>
"""
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, name + ".xml"), "w") as f:
        f.write(xml)
    with open(os.path.join(outdir, name + ".hosts"), "w") as f:
        f.write("".join(f"h{i}\n" for i in range(p)))
    print(info["model_topology"])


# --- Clusters of many-core nodes (KIND-NxQ: N nodes of Q ranks each) -------
#
# Each SimGrid host is one node with Q cores; the hostfile repeats it Q times
# (block placement: ranks q*i .. q*i+Q-1 on node i). The host's private link
# is its NIC (LINK_BW each way, SPLITDUPLEX); the network links are as above.
# Traffic between two ranks of one node takes the host's loopback link
# (cluster attributes loopback_bw / loopback_lat): SHM_BW per message and
# SHM_LAT, a shared-memory copy between two cores. SimGrid makes a cluster's
# loopback a FATPIPE: every intra-node message gets SHM_BW whatever else the
# node copies at the same time (no memory-bandwidth limit per node).
SHM_BW = 20e9  # bytes/s per intra-node message (one core's shm copy)
SHM_LAT = 0.2e-6  # seconds, intra-node latency (receive overhead on top)

NODE_KINDS = ("fattree", "fattree2", "dragonfly", "torus2d", "torus3d")


def _node_spec(spec):
    n, q = (int(x) for x in spec.split("x"))
    return n, q


def describe_nodes(kind, spec):
    """Facts about one many-core-node platform: N nodes, Q ranks each."""
    n, q = _node_spec(spec)
    bw, lat = LINK_BW, LINK_LAT
    injection_links = 1  # the node's NIC (a torus node: its 2d links)
    if kind in ("fattree", "fattree2"):
        # Two levels: `leaves` leaf switches of `k` nodes; full bisection
        # (fattree): k up-links per leaf to k spines; 2:1 tapered
        # (fattree2): k/2 up-links per leaf to k/2 spines.
        leaves = {4: 2, 8: 2, 16: 4, 32: 4, 64: 8, 128: 8}.get(n)
        if not leaves:
            raise SystemExit(f"{kind}: no layout for {n} nodes")
        k = n // leaves
        up = k if kind == "fattree" else k // 2
        attrs = {"topology": "FAT_TREE", "topo_parameters": f"2;{k},{leaves};1,{up};1,1"}
        # The model is told the taper as the network file says it: LEAFxUP
        # (endpoints, here nodes, per leaf switch and its up-links).
        net = "fat_tree" if up == k else f"fat_tree:{k}x{up}"
        diameter = 4
        bisection_links = leaves // 2 * up  # links each way across the cut
        group = (k, up)  # a leaf's nodes and its up-links
        dragonfly = None
        desc = (f"{leaves} leaves of {k} nodes, {up} spines, "
                + ("full bisection" if up == k else f"{k}:{up} tapered"))
    elif kind in ("torus2d", "torus3d"):
        # The nodes on a 2-D or 3-D torus (as describe()): each node's links
        # to its 2d neighbours are its injection, no NIC link in front.
        t = describe(kind, n)
        attrs = t["attrs"]
        net = t["model_topology"]
        diameter = t["diameter"]
        bisection_links = t["bisection_links"]
        injection_links = t["injection_links"]
        group = None
        dragonfly = None
        desc = f"a {net.split(':')[1]} torus of nodes"
    else:
        # g groups, c chassis, r routers, h nodes per router; 4 global links
        # per pair of groups (SimGrid needs r >= g).
        layouts = {8: (2, 2, 2, 1), 16: (2, 2, 2, 2), 32: (2, 2, 4, 2), 64: (4, 2, 4, 2),
                   128: (4, 2, 4, 4)}
        if n not in layouts:
            raise SystemExit(f"dragonfly: no layout for {n} nodes")
        groups, chassis, routers, hosts = layouts[n]
        glinks = 4
        # SimGrid's DRAGONFLY: groups, chassis, blades (routers) per chassis,
        # nodes per blade, and the parallel links of the global (blue),
        # chassis (black) and blade (green) links (node_bounds.routed_dragonfly).
        dragonfly = {"groups": groups, "chassis": chassis, "blades": routers, "hosts": hosts,
                     "blue": glinks, "black": 2, "green": 1}
        d = dragonfly
        attrs = {"topology": "DRAGONFLY",
                 "topo_parameters": f"{groups},{d['blue']};{chassis},{d['black']};"
                                    f"{routers},{d['green']};{hosts}"}
        net = f"dragonfly:{groups}x{n // groups}x{glinks}"
        diameter = 6
        half = groups // 2
        bisection_links = half * half * glinks if groups > 2 else glinks
        group = (n // groups, glinks * (groups - 1))  # a group's nodes, its global links
        desc = f"{groups} groups of {n // groups} nodes, {glinks} global links per group pair"
    p = n * q
    return {
        "kind": kind, "spec": spec, "nodes": n, "q": q, "p": p,
        "attrs": dict(attrs, core=str(q), loopback_bw=f"{SHM_BW:.6g}Bps",
                      loopback_lat=f"{SHM_LAT:.6g}s"),
        "network": desc,
        # The model sees the node-level network (MPIR_CVAR_TOPOA2A_TOPOLOGY).
        "model_topology": f"nodes:{n}x{q},{net}",
        "bw": bw, "lat": lat, "shm_bw": SHM_BW, "shm_lat": SHM_LAT,
        "recv_overhead": RECV_OVERHEAD, "diameter": diameter,
        "bisection_links": bisection_links, "injection_links": injection_links,
        "group": group, "dragonfly": dragonfly,
        # Cost parameters for topo_auto, as for the one-rank platforms:
        # t_s = receive overhead + first link; t_w of one link / one copy.
        "cost": (f"ts_intra={(RECV_OVERHEAD + SHM_LAT) * 1e6:g}us,"
                 f"tw_intra={1e9 / SHM_BW:g}ns,"
                 f"ts_inter={(RECV_OVERHEAD + lat) * 1e6:g}us,"
                 f"tw_inter={1e9 / bw:g}ns,ts_hop={lat * 1e6:g}us"),
    }


def write_nodes(outdir, kind, spec):
    info = describe_nodes(kind, spec)
    name = f"{kind}-{spec}"
    a = " ".join(f'{k}="{v}"' for k, v in info["attrs"].items())
    n, q = info["nodes"], info["q"]
    xml = f"""<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<!-- {name}: generated by sim/platforms.py ({info['network']}; {q} cores per node) -->
<platform version="4.1">
  <cluster id="{kind}" prefix="n" suffix="" radical="0-{n - 1}" speed="1Gf"
           bw="{info['bw']:.6g}Bps" lat="{info['lat']:.6g}s" sharing_policy="SPLITDUPLEX"
           {a}/>
</platform>
"""
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, name + ".xml"), "w") as f:
        f.write(xml)
    with open(os.path.join(outdir, name + ".hosts"), "w") as f:
        f.write("".join(f"n{i}\n" * q for i in range(n)))
    print(info["model_topology"])


def main(argv):
    if len(argv) == 4 and argv[0] == "write" and "x" in argv[3]:
        write_nodes(argv[1], argv[2], argv[3])
    elif len(argv) == 4 and argv[0] == "write":
        write(argv[1], argv[2], int(argv[3]))
    elif len(argv) == 3 and argv[0] == "info" and "x" in argv[2]:
        print(json.dumps(describe_nodes(argv[1], argv[2])))
    elif len(argv) == 3 and argv[0] == "info":
        print(json.dumps(describe(argv[1], int(argv[2]))))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
