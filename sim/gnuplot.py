"""Log-log line plots through gnuplot for the sweep analyses
(sim/analyze.py, sim/plot_nodes.py): one PNG of time against a size or a
rank count, one series per candidate and a dashed bound."""
import os
import subprocess


def available(tool):
    """Whether gnuplot is on PATH; says so on stdout (as `tool`) when not."""
    if subprocess.run(["sh", "-c", "command -v gnuplot"], capture_output=True).returncode:
        print(f"{tool}: gnuplot not found, no plots")
        return False
    return True


def _style(i, name, bound, default):
    if name == bound:
        return "lines dt 2 lw 2 lc rgb 'black'"
    if name == "topo_auto":
        return "points pt 6 ps 2 lc rgb 'red'"
    if default is not None and name == default:
        return "linespoints pt 7 lw 2.5 lc rgb 'blue'"
    if name.startswith(("smpi:", "mpich:")):
        return f"linespoints dt 3 pt {i % 13 + 1} lw 1"
    return f"linespoints pt {i % 13 + 1} lw 1.5"


def draw(png, title, xlabel, series, bound, size, default=None):
    """series: [(name, {x: seconds})] in legend order, the bound among them
    under the name `bound`; default: a series drawn in bold blue (MPICH's
    default choice). Times are plotted in microseconds."""
    data = os.path.splitext(png)[0] + ".dat"
    with open(data, "w") as f:
        for name, pts in series:
            f.write(f'"{name}"\n')
            for x in sorted(pts):
                f.write(f"{x} {pts[x] * 1e6:.6g}\n")
            f.write("\n\n")
    plots = [f"'{data}' index {i} using 1:2 with {_style(i, n, bound, default)} title '{n}'"
             for i, (n, _) in enumerate(series)]
    script = f"""set terminal pngcairo size {size} font ',9' noenhanced
set output '{png}'
set title '{title}'
set logscale xy
set xlabel '{xlabel}'
set ylabel 'time (us)'
set key outside right top
set grid
plot {', '.join(plots)}
"""
    subprocess.run(["gnuplot"], input=script, text=True, check=True)
    os.remove(data)
