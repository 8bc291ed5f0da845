#!/usr/bin/env python3
"""The plots of the many-core-node sweep (sim/analyze_nodes.py calls it):
one PNG per platform, time against block size, one line per candidate and
the injection bound, drawn by gnuplot (no plot when it is missing)."""
import os
import subprocess
from collections import defaultdict


def plot(outdir, points, order, default):
    """order: the candidates' display order; default: MPICH's default's name."""
    if subprocess.run(["sh", "-c", "command -v gnuplot"], capture_output=True).returncode:
        print("analyze_nodes: gnuplot not found, no plots")
        return
    by_plat = defaultdict(list)
    for pt in points:
        by_plat[pt["platform"]].append(pt)
    for plat, pts in by_plat.items():
        info = pts[0]["info"]
        names = order({n for pt in pts for n in pt["algs"]}) + ["injection bound"]
        data = os.path.join(outdir, f"plot-{plat}.dat")
        with open(data, "w") as f:
            for n in names:
                f.write(f'"{n}"\n')
                for pt in pts:
                    if n == "injection bound":
                        f.write(f"{pt['bytes']} {pt['inj'] * 1e6:.6g}\n")
                    elif n in pt["algs"]:
                        f.write(f"{pt['bytes']} {pt['algs'][n]['time'] * 1e6:.6g}\n")
                f.write("\n\n")
        styles = []
        for i, n in enumerate(names):
            if n == "injection bound":
                s = "lines dt 2 lw 2 lc rgb 'black'"
            elif n == "topo_auto":
                s = "points pt 6 ps 2 lc rgb 'red'"
            elif n == default:
                s = "linespoints pt 7 lw 2.5 lc rgb 'blue'"
            elif n.startswith(("smpi:", "mpich:")):
                s = f"linespoints dt 3 pt {i % 13 + 1} lw 1"
            else:
                s = f"linespoints pt {i % 13 + 1} lw 1.5"
            styles.append(f"'{data}' index {i} using 1:2 with {s} title '{n}'")
        script = f"""set terminal pngcairo size 800,480 font ',9' noenhanced
set output '{os.path.join(outdir, f"plot-{plat}.png")}'
set title '{plat}: {info['nodes']} nodes x {info['q']} ranks, simulated MPI_Alltoall'
set logscale xy
set xlabel 'block size (bytes)'
set ylabel 'time (us)'
set key outside right top
set grid
plot {', '.join(styles)}
"""
        subprocess.run(["gnuplot"], input=script, text=True, check=True)
        os.remove(data)
