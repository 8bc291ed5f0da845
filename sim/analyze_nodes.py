#!/usr/bin/env python3
"""Tables and plots of the many-core-node sweep (sim/nodes.py).

  analyze_nodes.py DIR

Reads DIR/raw.csv (sim_a2a's lines) and DIR/timing.csv; writes
DIR/results.csv (every point with its bounds and ratios), DIR/summary.md
(per platform: every candidate at every block size, with its ratio to
MPICH 4.0.2's default choice and to the best of everything; the bounds; one
line per block size with the verdicts) and DIR/plot-PLATFORM.png. DIR/explain.csv (sim_a2a --explain, written by
nodes.py) gives topo_auto's pick where its own run is not done yet: the
table then names the pick and the time of that candidate's own run.

Bounds for N nodes of Q ranks (p = N Q), blocks of m bytes, NIC bandwidth B
(node_bounds.node_bounds): each node's NIC sends what its Q ranks send to the
(N - 1) Q ranks of other nodes, Q (N - 1) Q m = (N - 1)/N * Q * p * m
bytes: injection = (N - 1) Q^2 m / B. network = max(injection, bisection,
a leaf's or group's cut). routed (dragonflies): the busiest link when each
block crosses once on SimGrid's own route.
latency: the larger of one receive and the diameter, and the receive-count
bound ceil(log2 p) o + the fastest message's latency (o: SMPI's per-receive
overhead; what one rank holds can at most double per receive). Whether the
node-aware issue's targets are in reach at all is judged against the larger
of the latency and network bounds (node_bounds.targets()).
The simulation is deterministic (same platform, same binary: the same time
to the nanosecond), so each point is one call and has no spread.
"""
import csv
import math
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import node_bounds  # noqa: E402
from node_bounds import fmt_bytes, fmt_us, targets  # noqa: E402
import platforms  # noqa: E402
import plot_nodes  # noqa: E402

DEFAULT = "mpich:default"


def ours(name):
    return not name.startswith(("smpi:", "mpich:")) and name != "topo_auto"


def raw_name(run):
    """raw.csv's algorithm for a timing.csv run label (nodes.candidates)."""
    if run.startswith("smpi-"):
        return "smpi:" + run[5:]
    return DEFAULT if run == "mpich_default" else run


def load(outdir):
    rows = []
    with open(os.path.join(outdir, "raw.csv")) as f:
        for r in csv.reader(f):
            if len(r) < 9 or not r[4]:
                continue
            rows.append({"platform": r[0], "p": int(r[1]), "alg": r[2], "bytes": int(r[3]),
                         "time": float(r[4]), "rounds": int(r[5]), "choice": r[6],
                         "model": float(r[7]), "check": r[8]})
    picks = {}  # (platform, bytes) -> topo_auto's pick per sim_a2a --explain
    epath = os.path.join(outdir, "explain.csv")
    if os.path.exists(epath):
        with open(epath) as f:
            for r in csv.reader(f):
                if len(r) >= 9 and r[8] == "chosen":
                    picks[(r[0], int(r[3]))] = (r[2], float(r[4]))
    timing = []
    tpath = os.path.join(outdir, "timing.csv")
    if os.path.exists(tpath):
        with open(tpath) as f:
            timing = list(csv.DictReader(f))
    return rows, timing, picks


def order(names):
    mine = sorted((n for n in names if ours(n)), key=lambda n: n)
    return (mine + [n for n in ("topo_auto", DEFAULT) if n in names]
            + sorted(n for n in names if n.startswith(("smpi:", "mpich:")) and n != DEFAULT))


def analyze(rows, picks):
    pts = defaultdict(dict)  # (platform, bytes) -> alg -> row
    for r in rows:
        pts[(r["platform"], r["bytes"])][r["alg"]] = r
    points = []
    for (plat, m) in sorted(pts, key=lambda k: (k[0], k[1])):
        algs = pts[(plat, m)]
        kind, spec = plat.rsplit("-", 1)
        info = platforms.describe_nodes(kind, spec)
        t_lat, t_inj, t_net, t_routed = node_bounds.node_bounds(info, m)
        everything = {n: r["time"] for n, r in algs.items() if n != "topo_auto"}
        best = min(everything, key=everything.get) if everything else None
        mine = {n: t for n, t in everything.items() if ours(n)}
        best_ours = min(mine, key=mine.get) if mine else None
        theirs = {n: t for n, t in everything.items() if not ours(n)}  # MPICH's and SMPI's
        best_theirs = min(theirs, key=theirs.get) if theirs else None
        default = algs.get(DEFAULT)
        # topo_auto's candidates: ours and MPICH's (the default at this size
        # is the one of MPICH's algorithms simulated at every point).
        cands = dict(mine)
        if default:
            cands["mpich:" + default["choice"]] = default["time"]
        auto = algs.get("topo_auto")
        for n, r in algs.items():
            r["inj"], r["net"], r["lat"] = t_inj, t_net, t_lat
            r["vs_default"] = r["time"] / default["time"] if default else None
            r["vs_best"] = r["time"] / everything[best] if best else None
        points.append({
            "platform": plat, "info": info, "bytes": m, "algs": algs, "best": best,
            "best_time": everything.get(best), "best_ours": best_ours,
            "best_ours_time": mine.get(best_ours), "default": default, "auto": auto,
            "best_theirs": best_theirs, "best_theirs_time": theirs.get(best_theirs),
            "best_cand": min(cands, key=cands.get) if cands else None, "cands": cands,
            "inj": t_inj, "net": t_net, "lat": t_lat, "routed": t_routed, "pick": picks.get((plat, m)),
        })
    return points


def write_results(outdir, points):
    with open(os.path.join(outdir, "results.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["platform", "nodes", "ranks_per_node", "p", "algorithm", "bytes", "time_s",
                    "vs_mpich_default", "vs_best", "injection_bound_s", "network_bound_s",
                    "vs_injection", "choice", "check", "routed_bound_s"])
        for pt in points:
            info = pt["info"]
            for n in order(pt["algs"].keys()):
                r = pt["algs"][n]
                w.writerow([pt["platform"], info["nodes"], info["q"], info["p"], n, pt["bytes"],
                            f"{r['time']:.6e}",
                            "" if r["vs_default"] is None else f"{r['vs_default']:.4f}",
                            "" if r["vs_best"] is None else f"{r['vs_best']:.4f}",
                            f"{pt['inj']:.6e}", f"{pt['net']:.6e}",
                            f"{r['time'] / pt['inj']:.4f}", r["choice"], r["check"],
                            "" if pt["routed"] is None else f"{pt['routed']:.6e}"])


def costs_used(outdir, plat, info):
    """The cost file topoa2a-calibrate wrote for the platform (nodes.py
    --costs calibrate), else the simulator's constants."""
    for sub in ("platforms", "costs"):
        path = os.path.join(outdir, sub, plat + ".cost")
        if os.path.exists(path):
            with open(path) as f:
                kv = [l.split()[:2] for l in f if l.strip() and not l.startswith("#")]
            return (f"costs from topoa2a-calibrate (`{sub}/{plat}.cost`: "
                    + ", ".join(f"{k}={v}" for k, v in kv) + ")")
    return f"cost `{info['cost']}` (the simulator's constants)"


def last_runs(timing):
    """Each point's last timing.csv line, in first-run order: a point's
    status is its last run's (a rerun that finished supersedes a timeout)."""
    last = {}
    for t in timing:
        last[(t["platform"], t["run"], t["bytes"])] = t
    return list(last.values())


def write_summary(outdir, points, timing):
    by_plat = defaultdict(list)
    for pt in points:
        by_plat[pt["platform"]].append(pt)
    walls = defaultdict(float)
    runs = defaultdict(int)
    failed = defaultdict(list)  # no row
    late = defaultdict(list)  # a row, but smpirun had not exited by the timeout
    have = {(pt["platform"], pt["bytes"], n) for pt in points for n in pt["algs"]}
    for t in timing:
        walls[t["platform"]] += float(t["wall_s"])
        runs[t["platform"]] += 1
    for t in last_runs(timing):
        if t["status"] != "ok":
            what = f"{t['run']} {fmt_bytes(int(t['bytes']))} ({t['status']})"
            row = (t["platform"], int(t["bytes"]), raw_name(t["run"])) in have
            (late if row else failed)[t["platform"]].append(what)
    checks = defaultdict(int)
    for pt in points:
        for r in pt["algs"].values():
            checks[r["check"]] += 1
    L = ["# Simulated MPI_Alltoall on clusters of many-core nodes (SimGrid SMPI)", "",
         "Generated by `sim/analyze_nodes.py` from `raw.csv` and `timing.csv` (`sim/nodes.py`).",
         "Times in microseconds: all ranks start at one simulated instant, the time is until the "
         "last rank ends (one call; the simulation is deterministic, so repeated runs give the "
         "same time and there is no spread to report). Each cell: time (ratio to MPICH 4.0.2's "
         "default choice / ratio to the best of everything at that size).", "",
         "Payload checks: " + ", ".join(f"{k}: {v}" for k, v in sorted(checks.items()))
         + f" (blocks above {2048} B run on shared buffers, unchecked).", ""]
    if os.path.exists(os.path.join(outdir, "machine.txt")):
        L += [f"Machine (`nodes.py --machine`, in `machine.txt`): `{platforms.machine()}`: link "
              f"bandwidth and latency, receive overhead (smpi/or), intra-node bandwidth and "
              f"latency. With `--costs calibrate` (the default; timing.csv's note says which) topo_auto "
              f"knows them only through topoa2a-calibrate's cost file.", ""]
    ratios = [pt["auto"]["time"] / pt["best_time"] for pt in points
              if pt["auto"] and pt["best_time"]]
    if ratios:
        geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        L += [f"topo_auto against the best of everything (ours, MPICH's, SMPI's) at the "
              f"{len(ratios)} points where it ran: within 10% at "
              f"{sum(r <= 1.10 for r in ratios)}, worst {max(ratios):.2f}x, geometric mean "
              f"{geo:.3f}x.", ""]
    for plat in sorted(by_plat, key=lambda p: (p.rsplit("-", 1)[1], p)):
        pts = by_plat[plat]
        info = pts[0]["info"]
        sizes = [pt["bytes"] for pt in pts]
        L += [f"## {plat}: {info['nodes']} nodes x {info['q']} ranks (p = {info['p']})", "",
              f"{info['network']}; SimGrid `{info['attrs']['topology']}` "
              f"`{info['attrs']['topo_parameters']}`; NIC {info['bw'] / 1e9:g} GB/s each way, "
              f"{info['lat'] * 1e6:g} us per link; intra-node {info['shm_bw'] / 1e9:g} GB/s per "
              f"message, {info['shm_lat'] * 1e6:g} us; topo_auto sees `{info['model_topology']}`, "
              f"{costs_used(outdir, plat, info)}.", ""]
        L.append("| candidate | " + " | ".join(fmt_bytes(s) for s in sizes) + " |")
        L.append("| --- |" + " --- |" * len(sizes))
        names = order({n for pt in pts for n in pt["algs"]})
        for n in names:
            cells = []
            for pt in pts:
                r = pt["algs"].get(n)
                if not r:
                    cells.append("-")
                    continue
                vd = "-" if r["vs_default"] is None else f"{r['vs_default']:.2f}"
                pick = f" [{r['choice']}]" if r["choice"] else ""
                vb = "-" if r["vs_best"] is None else f"{r['vs_best']:.2f}"
                cells.append(f"{fmt_us(r['time'])} ({vd} / {vb}){pick}")
            L.append(f"| {n} | " + " | ".join(cells) + " |")
        L.append("| *injection bound* | " + " | ".join(fmt_us(pt["inj"]) for pt in pts) + " |")
        L.append("| *network bound* | " + " | ".join(fmt_us(pt["net"]) for pt in pts) + " |")
        if any(pt["routed"] for pt in pts):
            L.append("| *routed bound (SimGrid's routes, each block once)* | "
                     + " | ".join(fmt_us(pt["routed"]) for pt in pts) + " |")
        L.append("| *latency / receive-count bound* | "
                 + " | ".join(fmt_us(pt["lat"]) for pt in pts) + " |")
        L.append("")
        L += ["| block | MPICH default | best of everything | best of topoa2a | default / topoa2a "
              "| topoa2a / injection | topoa2a / network | best of MPICH's and SMPI's / topoa2a "
              "| topo_auto picks | topo_auto / best candidate | topo_auto / best of everything |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
        for pt in pts:
            d, a = pt["default"], pt["auto"]
            bo = pt["best_ours_time"]
            row = [fmt_bytes(pt["bytes"]),
                   f"{d['choice']} {fmt_us(d['time'])}" if d else "-",
                   f"{pt['best']} {fmt_us(pt['best_time'])}" if pt["best"] else "-",
                   f"{pt['best_ours']} {fmt_us(bo)}" if bo else "-",
                   f"{d['time'] / bo:.2f}" if d and bo else "-",
                   f"{bo / pt['inj']:.2f}" if bo else "-",
                   f"{bo / pt['net']:.2f}" if bo else "-",
                   f"{pt['best_theirs_time'] / bo:.2f} ({pt['best_theirs']})"
                   if bo and pt["best_theirs"] else "-"]
            pick = pt["pick"]
            stand = None  # topo_auto not simulated: the run of what it picks
            if not a and pick:
                name = pick[0] if pick[0] in pt["cands"] else "mpich:" + pick[0]
                stand = pt["cands"].get(name)
            if a and pt["best_cand"]:
                ratio = a["time"] / pt["cands"][pt["best_cand"]]
                row += [f"{a['choice']} {fmt_us(a['time'])}",
                        f"{ratio:.2f} ({pt['best_cand']}){'' if ratio <= 1.10 else ' **miss**'}"]
            elif stand and pt["best_cand"]:
                ratio = stand / pt["cands"][pt["best_cand"]]
                row += [f"{pick[0]} (not run; predicted {fmt_us(pick[1])}, its own run "
                        f"{fmt_us(stand)})",
                        f"{ratio:.2f} ({pt['best_cand']}){'' if ratio <= 1.10 else ' **miss**'}"]
            elif pick:
                row += [f"{pick[0]} (not run; predicted {fmt_us(pick[1])})", "-"]
            else:
                row += ["-", "-"]
            row.append(f"{a['time'] / pt['best_time']:.2f}" if a and pt["best_time"] else "-")
            L.append("| " + " | ".join(row) + " |")
        L.append("")
        L += targets(pts)
        L.append(f"Wall time: {walls[plat]:.0f} s in {runs[plat]} smpirun runs (per run: "
                 f"`timing.csv`).")
        if failed[plat]:
            L.append("Not simulated (no row above): " + "; ".join(failed[plat]) + ".")
        if late[plat]:
            L.append("Row written, but smpirun had not exited by the timeout (the call itself "
                     "was simulated; its time is above): " + "; ".join(late[plat]) + ".")
        L.append("")
        L.append(f"![{plat}](plot-{plat}.png)")
        L.append("")
    with open(os.path.join(outdir, "summary.md"), "w") as f:
        f.write("\n".join(L))


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    outdir = sys.argv[1]
    machine = os.path.join(outdir, "machine.txt")  # nodes.py --machine
    if os.path.exists(machine):
        with open(machine) as f:
            platforms.set_machine(f.read().strip())
    rows, timing, picks = load(outdir)
    points = analyze(rows, picks)
    write_results(outdir, points)
    write_summary(outdir, points, timing)
    plot_nodes.plot(outdir, points, order, DEFAULT)
    print(f"analyze_nodes: {outdir}/results.csv, summary.md, plot-*.png")


if __name__ == "__main__":
    main()
