#!/usr/bin/env python3
"""Turns the sweep's raw.csv into results.csv, summary.md and gnuplot PNGs.

  analyze.py OUTDIR

Reads OUTDIR/raw.csv (sim_a2a's lines) and OUTDIR/timing.csv; writes
OUTDIR/results.csv (one line per platform, p, size, algorithm with the seed
formula and the topology's lower bound), OUTDIR/summary.md and
OUTDIR/plot-*.png.
"""
import csv
import math
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gnuplot  # noqa: E402
import platforms  # noqa: E402

OURS = ["ring", "ring_bidir", "mesh", "hypercube", "onefactor", "onefactor_xor"]
# topo_auto's candidates that are MPICH's, and SMPI's equivalent here.
# scattered: sim_a2a's reproduction of MPICH's (batches of 32 peers), which
# SMPI lacks; SMPI's basic_linear (all p-1 at once) is shown beside it.
MPICH_AS_SMPI = {"brucks": "smpi:bruck", "pairwise": "smpi:pair", "scattered": "mpich:scattered"}


def smpi_seed(name, p, ts, tw, m):
    """The seed-style formula of SMPI's algorithms (single-ported)."""
    lg = math.log2(p)
    if name in ("smpi:pair", "smpi:ring", "smpi:basic_linear", "mpich:scattered"):
        return (p - 1) * (ts + tw * m)  # direct exchanges, one per round
    if name == "smpi:bruck":
        return math.ceil(lg) * (ts + tw * m * p / 2)
    if name == "smpi:2dmesh":
        r = math.sqrt(p)
        return 2 * (r - 1) * (ts + tw * m * r)
    if name == "smpi:3dmesh":
        r = p ** (1 / 3)
        return 3 * (r - 1) * (ts + tw * m * r * r)
    return float("nan")


def fmt_us(t):
    if t is None or t != t:
        return "-"
    us = t * 1e6
    return f"{us:.3g}" if us < 1000 else f"{us:.0f}"


def fmt_bytes(b):
    if b >= 1 << 20 and b % (1 << 20) == 0:
        return f"{b >> 20} MiB"
    if b >= 1024 and b % 1024 == 0:
        return f"{b >> 10} KiB"
    return f"{b} B"


def load(outdir):
    rows = []
    with open(os.path.join(outdir, "raw.csv")) as f:
        for r in csv.reader(f):
            if len(r) < 9:
                continue
            plat, p, alg, m, t, rounds, choice, model, check = r[:9]
            rows.append({
                "platform": plat, "kind": plat.rsplit("-", 1)[0], "p": int(p), "alg": alg,
                "bytes": int(m), "time": float(t) if t else None, "rounds": int(rounds),
                "choice": choice, "model": float(model), "check": check,
            })
    return rows


def analyze(outdir):
    rows = load(outdir)
    by_key = defaultdict(dict)  # (platform, p, bytes) -> alg -> row
    for r in rows:
        by_key[(r["platform"], r["p"], r["bytes"])][r["alg"]] = r
    infos = {}
    out_rows = []
    decisions = []
    for key in sorted(by_key, key=lambda k: (k[0].rsplit("-", 1)[0], k[1], k[2])):
        plat, p, m = key
        algs = by_key[key]
        kind = plat.rsplit("-", 1)[0]
        info = infos.setdefault(plat, platforms.describe(kind, p))
        t_lat, t_bw = platforms.bounds(info, m)
        bound = max(t_lat, t_bw)
        auto = algs.get("topo_auto")
        if auto and auto["check"] == "skip":  # MPICH's choice: SMPI's equivalent's time
            twin = algs.get(MPICH_AS_SMPI.get(auto["choice"], ""))
            auto["time"] = twin["time"] if twin else None
            auto["check"] = twin["check"] if twin else "missing"
        for name, r in algs.items():
            if name in OURS:
                seed = r["model"]
            elif name == "topo_auto":
                seed = r["model"]  # the cost model's prediction
            else:
                seed = smpi_seed(name, p, info["ts"], info["tw"], m)
            r["seed"] = seed
            r["bound"] = bound
            out_rows.append(r)
        cands = {n: algs[n]["time"] for n in OURS if n in algs and algs[n]["time"]}
        for mp, sm in MPICH_AS_SMPI.items():
            if sm in algs and algs[sm]["time"]:
                cands[mp] = algs[sm]["time"]
        everything = {n: r["time"] for n, r in algs.items() if r["time"] and n != "topo_auto"}
        if auto and auto["time"] and cands:
            best = min(cands, key=cands.get)
            best_all = min(everything, key=everything.get)
            ratio = auto["time"] / cands[best]
            decisions.append({
                "platform": plat, "kind": kind, "p": p, "bytes": m, "choice": auto["choice"],
                "auto": auto["time"], "predicted": auto["model"], "best": best,
                "best_time": cands[best], "ratio": ratio, "best_all": best_all,
                "best_all_time": everything[best_all], "bound": bound,
            })
    return out_rows, decisions, infos


def write_results(outdir, out_rows):
    with open(os.path.join(outdir, "results.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["platform", "p", "algorithm", "bytes", "time_s", "seed_s", "bound_s",
                    "rounds", "choice", "check"])
        for r in out_rows:
            w.writerow([r["platform"], r["p"], r["alg"], r["bytes"],
                        "" if r["time"] is None else f"{r['time']:.6e}", f"{r['seed']:.6e}",
                        f"{r['bound']:.6e}", r["rounds"], r["choice"], r["check"]])


def alg_order(names):
    smpi = sorted(n for n in names if n.startswith(("smpi:", "mpich:")))
    return [n for n in OURS if n in names] + (["topo_auto"] if "topo_auto" in names else []) + smpi


def write_summary(outdir, out_rows, decisions, infos):
    lines = ["# Simulated MPI_Alltoall (SimGrid SMPI)", "",
             "Times in microseconds (slowest rank, one call). `sim/seed` is the simulated time "
             "over the seed formula at the platform's t_s, t_w (topo_auto: over its cost-model "
             "prediction). `bound`: max(latency bound, bandwidth bound) of the topology.", ""]
    checks = defaultdict(int)
    for r in out_rows:
        checks[r["check"]] += 1
    lines.append("Payload checks: " + ", ".join(f"{k}: {v}" for k, v in sorted(checks.items())))
    lines.append("")
    lines.append("## topo_auto against the fastest candidate")
    lines.append("")
    lines.append("Candidates: topoa2a's algorithms plus MPICH's brucks / pairwise / scattered "
                 "(timed as SMPI's bruck / pair and as `mpich:scattered`, sim_a2a's reproduction "
                 "of MPICH's batched scattered). `ok` = within 10% of the fastest candidate.")
    lines.append("")
    lines.append("| platform | p | block | topo_auto picks | time | predicted | fastest candidate "
                 "| ratio | | fastest overall | bound |")
    lines.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for d in decisions:
        verdict = "ok" if d["ratio"] <= 1.10 else "**miss**"
        lines.append(
            f"| {d['kind']} | {d['p']} | {fmt_bytes(d['bytes'])} | {d['choice']} | "
            f"{fmt_us(d['auto'])} | {fmt_us(d['predicted'])} | {d['best']} {fmt_us(d['best_time'])} "
            f"| {d['ratio']:.2f} | {verdict} | {d['best_all']} {fmt_us(d['best_all_time'])} | "
            f"{fmt_us(d['bound'])} |")
    n_ok = sum(1 for d in decisions if d["ratio"] <= 1.10)
    lines += ["", f"topo_auto within 10%: {n_ok} of {len(decisions)} cases.", ""]

    groups = defaultdict(list)
    for r in out_rows:
        groups[(r["kind"], r["p"])].append(r)
    order = ["ring", "torus2d", "torus3d", "fattree", "dragonfly"]
    for (kind, p) in sorted(groups, key=lambda k: (order.index(k[0]), k[1])):
        rs = groups[(kind, p)]
        info = infos[f"{kind}-{p}"]
        sizes = sorted({r["bytes"] for r in rs})
        lines.append(f"## {kind}, p = {p}")
        lines.append("")
        lines.append(f"SimGrid `{info['attrs']['topology']}` `{info['attrs']['topo_parameters']}`; "
                     f"model topology `{info['model_topology']}`; diameter {info['diameter']} "
                     f"links; t_s = {info['ts'] * 1e6:g} us, t_w = {info['tw'] * 1e9:g} ns/B.")
        lines.append("")
        lines.append("| algorithm | " + " | ".join(f"{fmt_bytes(s)} sim (sim/seed)" for s in sizes)
                     + " |")
        lines.append("| --- |" + " --- |" * len(sizes))
        cell = {(r["alg"], r["bytes"]): r for r in rs}
        for a in alg_order({r["alg"] for r in rs}):
            cells = []
            for s in sizes:
                r = cell.get((a, s))
                if not r or r["time"] is None:
                    cells.append("-")
                    continue
                ratio = r["time"] / r["seed"] if r["seed"] and r["seed"] == r["seed"] else None
                extra = f" ({ratio:.2f})" if ratio else ""
                pick = f" [{r['choice']}]" if a == "topo_auto" else ""
                cells.append(f"{fmt_us(r['time'])}{extra}{pick}")
            lines.append(f"| {a} | " + " | ".join(cells) + " |")
        bounds = []
        for s in sizes:
            t_lat, t_bw = platforms.bounds(info, s)
            bounds.append(f"{fmt_us(max(t_lat, t_bw))} ({'lat' if t_lat >= t_bw else 'bw'})")
        lines.append("| *bound* | " + " | ".join(bounds) + " |")
        lines.append("")
    timing = os.path.join(outdir, "timing.csv")
    if os.path.exists(timing):
        with open(timing) as f:
            t = list(csv.DictReader(f))
        total = sum(float(x["wall_s"]) for x in t)
        lines.append(f"Simulation wall time: {total:.0f} s in {len(t)} smpirun runs "
                     f"(per run: {outdir}/timing.csv).")
        lines.append("")
    with open(os.path.join(outdir, "summary.md"), "w") as f:
        f.write("\n".join(lines))


def plot(outdir, out_rows):
    """Per platform: time vs block size at the smallest p with several sizes,
    and time vs p at 8-byte blocks."""
    if not gnuplot.available("analyze"):
        return
    groups = defaultdict(list)
    for r in out_rows:
        groups[r["kind"]].append(r)
    for kind, rs in groups.items():
        ps = sorted({r["p"] for r in rs})
        # vs size
        p0 = max(ps, key=lambda p: (len({r["bytes"] for r in rs if r["p"] == p}), -p))
        sel = [r for r in rs if r["p"] == p0 and r["time"]]
        _plot(outdir, f"plot-{kind}-{p0}-size", f"{kind}, p = {p0}: simulated all-to-all time",
              "block size (bytes)", sel, "bytes")
        # vs p
        sel = [r for r in rs if r["bytes"] == 8 and r["time"]]
        if len({r["p"] for r in sel}) > 1:
            _plot(outdir, f"plot-{kind}-p", f"{kind}, 8-byte blocks: simulated time vs p",
                  "ranks p", sel, "p")


def _plot(outdir, name, title, xlabel, rows, xkey):
    series = [(a, {r[xkey]: r["time"] for r in rows if r["alg"] == a})
              for a in alg_order({r["alg"] for r in rows})]
    series.append(("bound", {r[xkey]: r["bound"] for r in rows}))
    gnuplot.draw(os.path.join(outdir, name + ".png"), title, xlabel, series, "bound", "720,440")


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    outdir = sys.argv[1]
    out_rows, decisions, infos = analyze(outdir)
    write_results(outdir, out_rows)
    write_summary(outdir, out_rows, decisions, infos)
    plot(outdir, out_rows)
    print(f"analyze: {outdir}/results.csv, {outdir}/summary.md, {outdir}/plot-*.png")


if __name__ == "__main__":
    main()
