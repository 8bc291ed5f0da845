#!/usr/bin/env python3
"""Tables (markdown) and plots (gnuplot PNG) from emucluster's results.csv.

usage: emu_report.py RESULTS.csv OUTDIR
       emu_report.py --parse RAW TOPO HOSTS RATE DELAY ALGORITHM   (CSV rows of one run)

One table per (topology, hosts, rate, delay): block sizes down, algorithms
across (mean time per MPI_Alltoall in ms), then the fastest candidate, what
topo_auto chose, topo_auto's time over the fastest, and whether it is within
10%. The candidates are every algorithm run except topo_auto and MPICH's
`auto` (topo_auto chooses from ours and MPICH's brucks, pairwise and
scattered); `auto` is shown for reference but is not a candidate.
"""
import csv
import os
import re
import shutil
import subprocess
import sys
from collections import OrderedDict

NOT_CANDIDATES = ("topo_auto", "auto")
ORDER = ["ring", "ring_bidir", "mesh", "hypercube", "onefactor", "onefactor_xor", "torus",
         "direct_scheduled", "node_aware", "node_aware_log", "multileader", "topo_auto",
         "brucks", "pairwise", "auto", "scattered"]


def parse(raw, kind, n, rate, delay, alg):
    """CSV rows from one run's output: osu-style "SIZE AVG_US ..." lines, and
    topoa2a's verbose lines for what ran at each size."""
    chosen = {}
    rows = []
    for line in open(raw, errors="replace"):
        m = re.search(r"topoa2a: MPI_Alltoall comm=\d+ size=\d+ msg=(\d+) bytes algorithm=([\w:]+)",
                      line)
        if m:
            chosen.setdefault(int(m.group(1)), m.group(2))
            continue
        f = line.split()
        if len(f) >= 2 and not line.startswith("#"):
            try:
                rows.append((int(f[0]), float(f[1])))
            except ValueError:
                pass
    for size, us in rows:
        print("%s,%s,%s,%s,%s,%d,%.2f,%s" % (kind, n, rate, delay, alg, size, us,
                                             chosen.get(size, "")))


def main():
    if sys.argv[1] == "--parse":
        parse(*sys.argv[2:8])
        return
    path, outdir = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    groups = OrderedDict()
    for r in csv.DictReader(open(path)):
        key = (r["topo"], int(r["hosts"]), r["rate"], r["delay"])
        g = groups.setdefault(key, {"t": {}, "runs": {}, "chosen": {}, "algs": []})
        alg, size = r["algorithm"], int(r["size"])
        if alg not in g["algs"]:
            g["algs"].append(alg)
        # Repeated runs of a point (the same results.csv, several
        # emucluster runs): the median stands for the point, the table
        # shows min-max beside it.
        g["runs"].setdefault((alg, size), []).append(float(r["avg_us"]))
        v = sorted(g["runs"][(alg, size)])
        g["t"][(alg, size)] = v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2
        if alg == "topo_auto" and r.get("chosen"):
            g["chosen"][size] = r["chosen"]
    summary = []
    for (topo, hosts, rate, delay), g in groups.items():
        algs = sorted(g["algs"], key=lambda a: (ORDER.index(a) if a in ORDER else len(ORDER), a))
        sizes = sorted({s for (_, s) in g["t"]})
        print("\n### %s, %d hosts, links %s, delay %s\n" % (topo, hosts, rate, delay))
        n_runs = max((len(v) for v in g["runs"].values()), default=1)
        print("Mean time per MPI_Alltoall in ms (block = bytes per peer)%s.\n" %
              ("" if n_runs == 1 else "; median of %d runs, (min-max) beside it" % n_runs))
        head = ["block"] + algs + ["fastest candidate", "topo_auto ran", "topo_auto / fastest",
                                   "within 10%", "its pick's own run / fastest"]
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        within = 0
        counted = 0
        pick_within = 0
        for s in sizes:
            row = [str(s)]
            for a in algs:
                v = g["t"].get((a, s))
                runs = g["runs"].get((a, s), [])
                cell = "-" if v is None else "%.2f" % (v / 1000)
                if len(runs) > 1:
                    cell += " (%.2f-%.2f)" % (min(runs) / 1000, max(runs) / 1000)
                row.append(cell)
            cands = [(g["t"][(a, s)], a) for a in algs
                     if a not in NOT_CANDIDATES and (a, s) in g["t"]]
            ta = g["t"].get(("topo_auto", s))
            if cands:
                best, besta = min(cands)
                row.append(besta)
                ran = g["chosen"].get(s, "?")
                row.append(ran)
                # The algorithm topo_auto ran, timed in its own column
                # ("mpich:scattered" -> scattered): run-to-run spread aside,
                # was the choice right?
                own = g["t"].get((ran.split(":", 1)[-1], s))
                if ta is not None:
                    ratio = ta / best
                    ok = ratio <= 1.10
                    counted += 1
                    within += ok
                    pick_within += own is not None and own / best <= 1.10
                    row += ["%.2f" % ratio, "yes" if ok else "no",
                            "-" if own is None else "%.2f" % (own / best)]
                else:
                    row += ["-", "-", "-"]
            else:
                row += ["-", "-", "-", "-", "-"]
            print("| " + " | ".join(row) + " |")
        summary.append((topo, hosts, rate, delay, within, pick_within, counted))
        plot(outdir, topo, hosts, rate, delay, algs, sizes, g["t"])
    if summary:
        print("\n### topo_auto within 10% of the fastest candidate\n")
        print("| topology | hosts | rate | delay | sizes within 10% | its pick's own run within "
              "10% |")
        print("|---|---|---|---|---|---|")
        for topo, hosts, rate, delay, w, pw, c in summary:
            print("| %s | %d | %s | %s | %d of %d | %d of %d |" % (topo, hosts, rate, delay, w, c,
                                                                   pw, c))


def plot(outdir, topo, hosts, rate, delay, algs, sizes, t):
    if not shutil.which("gnuplot") or len(sizes) < 2:
        return
    name = ("%s-%d-%s-%s" % (topo, hosts, rate, delay)).replace("/", "-")
    dat = os.path.join(outdir, name + ".dat")
    with open(dat, "w") as f:
        f.write("# size " + " ".join(algs) + "\n")
        for s in sizes:
            f.write("%d %s\n" % (s, " ".join("%.3f" % (t[(a, s)] / 1000) if (a, s) in t else "NaN"
                                               for a in algs)))
    png = os.path.join(outdir, name + ".png")
    lines = []
    for i, a in enumerate(algs):
        style = "lw 3 dt 1" if a == "topo_auto" else "lw 1"
        lines.append("'%s' using 1:%d with linespoints %s title '%s'" % (dat, i + 2, style, a))
    script = "\n".join([
        "set terminal png noenhanced size 900,600",
        "set output '%s'" % png,
        "set title 'MPI_Alltoall, %s, %d hosts, %s links, delay %s'" % (topo, hosts, rate, delay),
        "set logscale xy",
        "set xlabel 'block size (bytes per peer)'",
        "set ylabel 'ms per call'",
        "set key left top",
        "plot " + ", ".join(lines),
    ])
    subprocess.run(["gnuplot"], input=script.encode(), check=False)


if __name__ == "__main__":
    main()
