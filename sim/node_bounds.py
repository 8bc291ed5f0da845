"""Lower bounds for the many-core-node platforms (sim/platforms.py
describe_nodes) and the node-aware issue's targets judged against them,
for sim/analyze_nodes.py."""
import math
from collections import defaultdict


def node_bounds(info, m):
    """Lower bounds for blocks of m bytes on N nodes of Q ranks (p = N Q).

    injection: every node's NIC sends what its Q ranks send to the other
      nodes' ranks: Q * (N - 1) * Q * m = (N - 1) / N * Q * p * m bytes, at
      LINK_BW (and receives as much, on the other direction of its link);
      on a torus over the node's injection_links links (2d) at once.
    network: the largest of injection, the bisection and the group cut.
      Bisection: each half of the nodes sends (N/2) * (N/2) * Q^2 * m bytes
      across the cut, over bisection_links links each way. Group cut: a
      group of G nodes (a fat tree's leaf, a dragonfly's group) sends
      G * (N - G) * Q^2 * m bytes out over its L links (a leaf's up-links,
      a group's global links); on a 2:1 tapered fat tree this cut, not the
      bisection, is the tightest (16 x 16: 1.6x the injection bound).
    latency: the larger of (a) one receive overhead and the diameter in
      hops and (b) the receive-count bound, ceil(log2 p) receive overheads
      o plus the shortest message latency: SMPI charges o (smpi/or) to the
      receiving rank after the message has arrived, one receive after
      another, and the rank can send nothing meanwhile, so a message whose
      overhead ends at t carries what its sender knew at t - o at the
      latest and its receiver knew no more than at t - o itself; the
      number of ranks whose blocks one rank can hold thus at most doubles
      every o, and each rank must hold blocks of all p ranks. Independent
      of the block size and of the algorithm (any combining, any window),
      for messages below SMPI's detached threshold (64 KiB; larger ones
      pay no o in SMPI at all: sim/README.md, Bounds).
    routed (dragonflies only, else None): routed_dragonfly.
    Returns (latency, injection, network, routed)."""
    n, q, bw = info["nodes"], info["q"], info["bw"]
    o = info["recv_overhead"]
    fastest = min(info["shm_lat"], info["lat"]) if q > 1 else info["lat"]
    t_recv = math.ceil(math.log2(info["p"])) * o + fastest if info["p"] > 1 else 0.0
    t_lat = max(o + info["diameter"] * info["lat"], t_recv)
    t_inj = (n - 1) * q * q * m / (info["injection_links"] * bw)
    t_bis = (n / 2) * (n / 2) * q * q * m / (info["bisection_links"] * bw)
    t_grp = 0.0
    if info.get("group"):
        g, links = info["group"]
        t_grp = g * (n - g) * q * q * m / (links * bw)
    routed = routed_dragonfly(info, m) if info.get("dragonfly") else None
    return t_lat, t_inj, max(t_inj, t_bis, t_grp), routed


def _dragonfly_route(info, a, b):
    """The directed links SimGrid 3.32's DragonflyZone::get_local_route
    (minimal routing) takes from node a to node b, each as (key, parallel
    links). A node's id is ((group * C + chassis) * B + blade) * H + host.
    Leaving the group: to the blade of the own chassis whose number is the
    target group (green), to chassis 0 (black), over the one global link
    of the group pair (blue), arriving at the target group's chassis 0 on
    the blade numbered after the source group; then to the target blade
    (green) and the target chassis (black)."""
    d = info["dragonfly"]
    C, B, H = d["chassis"], d["blades"], d["hosts"]

    def coords(x):
        return x // (C * B * H), x // (B * H) % C, x // H % B

    (g, c, r), (tg, tc, tr) = coords(a), coords(b)
    links = [(("node-up", a), 1)]
    if (g, c, r) != (tg, tc, tr):
        if tg != g:
            if r != tg:
                links.append((("green", g, c, r, tg), d["green"]))
                r = tg
            if c != 0:
                links.append((("black", g, r, c, 0), d["black"]))
                c = 0
            links.append((("blue", g, tg), d["blue"]))
            g, c, r = tg, 0, coords(a)[0]
        if tr != r:
            links.append((("green", g, c, r, tr), d["green"]))
            r = tr
        if tc != c:
            links.append((("black", g, r, c, tc), d["black"]))
    links.append((("node-down", b), 1))
    return links


def routed_dragonfly(info, m):
    """The busiest link's time when every node sends its Q^2 m bytes to
    every other node once, each on SimGrid's own route (_dragonfly_route):
    what the node-aware schedules' inter-node phase and the direct
    exchanges must carry at least. Not a bound for every algorithm (a
    store-and-forward schedule may take other paths through intermediate
    nodes), and it only holds while SimGrid shares links fairly and routes
    minimally. SimGrid attaches all of a group pair's global links to one
    router of each group, so every byte into a group crosses the green
    links of that router: on the 16 x 16 dragonfly 2.7x the injection
    bound."""
    n, q, bw = info["nodes"], info["q"], info["bw"]
    load = defaultdict(float)
    cap = {}
    for a in range(n):
        for b in range(n):
            if a != b:
                for key, links in _dragonfly_route(info, a, b):
                    load[key] += q * q * m
                    cap[key] = links * bw
    return max(load[k] / cap[k] for k in load)


def fmt_us(t):
    if t is None:
        return "-"
    us = t * 1e6
    return f"{us:.3g}" if us < 1000 else f"{us:.0f}"


def fmt_bytes(b):
    return f"{b >> 10} KiB" if b >= 1024 and b % 1024 == 0 else f"{b} B"


def targets(pts):
    """The node-aware issue's targets at each point where MPICH's default
    ran: 8 B .. 512 B, 2x under the default (or no algorithm can: half the
    default's time is below the lower bound); 2 KiB .. 32 KiB, within 1.25x
    of the injection bound and not slower than the default."""
    out = []
    for pt in pts:
        d, bo, m = pt["default"], pt["best_ours_time"], pt["bytes"]
        if not d or not bo or m > 32768:
            continue
        floor = max(pt["lat"], pt["net"])
        if m <= 512:
            need = d["time"] / 2
            if need < floor:
                verdict = (f"out of reach: 2x needs {fmt_us(need)}, below the lower bound "
                           f"{fmt_us(floor)} (best of topoa2a {fmt_us(bo)}, "
                           f"{d['time'] / bo:.2f}x under the default)")
            else:
                verdict = (f"{'met' if bo <= need else 'not met'}: 2x needs {fmt_us(need)} "
                           f"(lower bound {fmt_us(floor)}), best of topoa2a {fmt_us(bo)}, "
                           f"{d['time'] / bo:.2f}x")
        else:
            ok = bo <= 1.25 * pt["inj"] and bo <= d["time"]
            state = ("met" if ok else "out of reach" if floor > 1.25 * pt["inj"] else "not met")
            verdict = (f"{state}: best of topoa2a {bo / pt['inj']:.2f}x the injection bound, "
                       f"{d['time'] / bo:.2f}x under the default")
            if floor > 1.25 * pt["inj"]:
                verdict += (f"; the network bound {fmt_us(pt['net'])} is "
                            f"{pt['net'] / pt['inj']:.2f}x the injection bound, "
                            f"topoa2a {bo / pt['net']:.2f}x the network bound")
        if pt["routed"]:
            verdict += (f"; {bo / pt['routed']:.2f}x the routed bound {fmt_us(pt['routed'])} "
                        f"({pt['routed'] / pt['inj']:.2f}x the injection bound)")
        out.append(f"- {fmt_bytes(m)}: {verdict}.")
    if out:
        out = ["Targets (8 B .. 512 B: 2x under MPICH's default; 2 KiB .. 32 KiB: within "
               "1.25x of the injection bound and not slower than the default):", ""] + out + [""]
    return out
