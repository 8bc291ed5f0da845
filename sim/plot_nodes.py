#!/usr/bin/env python3
"""The plots of the many-core-node sweep (sim/analyze_nodes.py calls it):
one PNG per platform, time against block size, one line per candidate and
the injection bound, drawn by gnuplot (no plot when it is missing)."""
import os
from collections import defaultdict

import gnuplot

BOUND = "injection bound"


def plot(outdir, points, order, default):
    """order: the candidates' display order; default: MPICH's default's name."""
    if not gnuplot.available("analyze_nodes"):
        return
    by_plat = defaultdict(list)
    for pt in points:
        by_plat[pt["platform"]].append(pt)
    for plat, pts in by_plat.items():
        info = pts[0]["info"]
        series = [(n, {pt["bytes"]: pt["algs"][n]["time"] for pt in pts if n in pt["algs"]})
                  for n in order({n for pt in pts for n in pt["algs"]})]
        series.append((BOUND, {pt["bytes"]: pt["inj"] for pt in pts}))
        gnuplot.draw(os.path.join(outdir, f"plot-{plat}.png"),
                     f"{plat}: {info['nodes']} nodes x {info['q']} ranks, simulated MPI_Alltoall",
                     "block size (bytes)", series, BOUND, "800,480", default)
