#!/usr/bin/env python3
"""The many-core-node sweep: N nodes of Q ranks on fat trees and dragonflies.

  python3 sim/nodes.py [--out DIR] [--platforms P,P,...] [--sizes B,B,...]
                       [--only REGEX] [--skip REGEX] [--redo] [--quick] [--timeout S] [--list]
  python3 sim/nodes.py [--out DIR[,DIR...]] --publish sim/results/nodes

One smpirun per (platform, candidate, block size), so that every point has
its own wall time and a stopped sweep resumes where it stopped: a point
whose last line in DIR/timing.csv says `ok` is not run again (--redo runs
it again). --only REGEX keeps the points whose "PLATFORM CANDIDATE BYTES"
matches (e.g. --only 'fattree-16x16 (topo_auto|mpich_default) '). --list
prints the plan and runs nothing. After the runs, sim/analyze_nodes.py DIR
writes the tables and plots.

Candidates, in this order, all on the same platform and configuration:
  - topoa2a's algorithms: the algorithm table as sim_a2a --list prints it
    (coll/algorithms.h; an algorithm added there joins the sweep), and
    topo_auto (the cost model over the node-level network, which runs
    MPICH's reproduced algorithm when it picks one of MPICH's);
  - mpich_default: what MPICH 4.0.2's shipped tuning picks at that size,
    run as MPICH runs it (sim/mpich_algs.h);
  - SMPI's MPI_Alltoall algorithms and its mpich / ompi selectors.

topo_auto's costs (every run is given them; only topo_auto uses them):
--costs calibrate (the default) runs topoa2a-calibrate (sim_calibrate,
default options) once per platform on two of its nodes, two ranks each
where nodes have two cores or more, and passes its cost file
(DIR/platforms/PLATFORM.cost, kept: delete it to calibrate again);
--costs constants passes the simulator's own link constants
(platforms.describe_nodes' "cost", as the sweeps published before
calibration did). timing.csv's note says which.

Files in DIR: raw.csv (sim_a2a's lines), timing.csv (wall time and status
of every smpirun), logs/, platforms/.
"""
import argparse
import contextlib
import io
import csv
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import platforms  # noqa: E402

SMPI_ALGS = ["bruck", "pair", "basic_linear", "mvapich2_scatter_dest", "2dmesh", "3dmesh", "ring",
             "mpich", "ompi"]
DEFAULT_PLATFORMS = ["fattree-16x16", "fattree2-16x16", "dragonfly-16x16"]
DEFAULT_SIZES = [8, 512, 2048, 32768]
# Payloads are checked up to this block size; above it the buffers are
# SMPI_SHARED_MALLOC (p^2 m bytes twice would not fit: 4 GiB at 16x16 and
# 32 KiB) and the check column says "unchecked".
CHECK_MAX = 2048

# The simulated network, as in sim/run.sh: CM02 (latency + max-min
# bandwidth sharing) without TCP window or ack cross-traffic; 1 us of
# software overhead per receive (smpi/or); computation not simulated.
# smpi/iprobe, smpi/test: the simulated cost of one MPI_Iprobe and of one
# MPI_Test* call (SMPI's defaults are 100 us each, which would dominate:
# the executor polls its window with Testsome and probes receives of
# unknown length); 0.1 us, a real library's order of magnitude, and not
# grown on repeated calls (smpi/grow-injected-times, SMPI's default, makes
# each further poll cost more, so a rank that polls falls behind).
SMPI_CFG = ["--cfg=smpi/simulate-computation:no", "--cfg=network/model:CM02",
            "--cfg=network/TCP-gamma:0", "--cfg=network/crosstraffic:0",
            "--cfg=smpi/or:0:1e-6:0", "--cfg=smpi/iprobe:1e-7", "--cfg=smpi/test:1e-7",
            "--cfg=smpi/grow-injected-times:no",
            "--log=root.thres:critical"]


def parse_platform(name):
    kind, spec = name.rsplit("-", 1)
    if kind not in platforms.NODE_KINDS or not re.fullmatch(r"\d+x\d+", spec):
        raise SystemExit(f"nodes.py: bad platform {name} (KIND-NxQ, KIND in "
                         f"{', '.join(platforms.NODE_KINDS)})")
    return kind, spec


def build(out):
    subprocess.run(["make", "-s", "-f", "sim/Makefile", f"BUILD={out}", f"-j{os.cpu_count()}"],
                   cwd=ROOT, check=True)
    return os.path.join(out, "sim_a2a")


def calibrate(exe, pdir, kind, spec):
    """topoa2a-calibrate on two nodes of the platform -> its cost file."""
    name = f"{kind}-{spec}"
    path = os.path.join(pdir, name + ".cost")
    if os.path.exists(path):
        return path
    info = platforms.describe_nodes(kind, spec)
    hosts = os.path.join(pdir, name + ".calibrate.hosts")
    per = min(2, info["q"])
    with open(hosts, "w") as f:
        f.write("n0\n" * per + "n1\n" * per)
    cmd = ["smpirun", "-no-privatize", "-np", str(2 * per), "-platform",
           os.path.join(pdir, name + ".xml"), "-hostfile", hosts] + SMPI_CFG + [
               os.path.join(os.path.dirname(exe), "sim_calibrate"), "-o", path + ".tmp"]
    with open(os.path.join(pdir, name + ".calibrate.log"), "w") as log:
        subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, check=True, cwd=ROOT)
    os.replace(path + ".tmp", path)
    return path


def table_algorithms(exe, pdir):
    """The algorithm table, from the driver itself."""
    with contextlib.redirect_stdout(io.StringIO()):
        platforms.write_nodes(pdir, "fattree", "16x1")
    hosts = os.path.join(pdir, "one.hosts")
    with open(hosts, "w") as f:
        f.write("n0\n")
    r = subprocess.run(["smpirun", "-no-privatize", "-np", "1", "-platform",
                        os.path.join(pdir, "fattree-16x1.xml"), "-hostfile", hosts,
                        "--log=root.thres:critical", exe, "--list"],
                       capture_output=True, text=True, check=True)
    return [x for x in r.stdout.split() if x]


def candidates(ours):
    """(label, sim_a2a --algs, extra smpirun args, raw.csv algorithm name)."""
    c = [(a, a, [], a) for a in ours]
    c.append(("topo_auto", "topo_auto", [], "topo_auto"))
    c.append(("mpich_default", "mpich_default", [], "mpich:default"))
    for a in SMPI_ALGS:
        c.append((f"smpi-{a}", "mpi", [f"--cfg=smpi/alltoall:{a}"], f"smpi:{a}"))
    return c


def cost_args(exe, pdir, kind, spec, costs):
    if costs == "constants":
        return ["--cost", platforms.describe_nodes(kind, spec)["cost"]]
    return ["--cost-file", calibrate(exe, pdir, kind, spec)]


def explain(exe, pdir, out, plats, sizes, costs):
    """topo_auto's pick and the model's price of every candidate at every
    point (sim_a2a --explain: the cost model only, one process, nothing
    simulated) -> DIR/explain.csv, so that a point whose topo_auto run is
    not done yet still shows what it would run."""
    path = os.path.join(out, "explain.csv")
    rows = []
    if os.path.exists(path):
        with open(path) as f:
            rows = [l for l in f if l.split(",")[0] not in {f"{k}-{s}" for k, s in plats}]
    hosts = os.path.join(pdir, "one.hosts")
    for kind, spec in plats:
        name = f"{kind}-{spec}"
        info = platforms.describe_nodes(kind, spec)
        if not os.path.exists(os.path.join(pdir, name + ".xml")):
            with contextlib.redirect_stdout(io.StringIO()):
                platforms.write_nodes(pdir, kind, spec)
        r = subprocess.run(["smpirun", "-no-privatize", "-np", "1", "-platform",
                            os.path.join(pdir, name + ".xml"), "-hostfile", hosts,
                            "--log=root.thres:critical", exe, "--platform", name, "--explain",
                            str(info["p"]), "--sizes", ",".join(map(str, sizes)), "--topology",
                            info["model_topology"]] + cost_args(exe, pdir, kind, spec, costs),
                           capture_output=True, text=True)
        rows += [l + "\n" for l in r.stdout.splitlines() if l.startswith(name + ",")]
    with open(path, "w") as f:
        f.writelines(rows)


def load_done(timing):
    done = {}
    if os.path.exists(timing):
        with open(timing) as f:
            for r in csv.DictReader(f):
                done[(r["platform"], r["run"], r["bytes"])] = r["status"]
    return done


def drop_rows(path, keep):
    if not os.path.exists(path):
        return
    with open(path) as f:
        lines = f.readlines()
    with open(path, "w") as f:
        f.writelines(l for i, l in enumerate(lines) if keep(i, l))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "sim-nodes"))
    ap.add_argument("--platforms", default=",".join(DEFAULT_PLATFORMS))
    ap.add_argument("--sizes", default=",".join(map(str, DEFAULT_SIZES)))
    ap.add_argument("--only", default="")
    ap.add_argument("--skip", default="", help="leave out the points matching this regex")
    ap.add_argument("--redo", action="store_true")
    ap.add_argument("--quick", action="store_true",
                    help="fattree-4x4 and dragonfly-8x2, 8 B and 2 KiB: a minute")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--costs", choices=("calibrate", "constants"), default="calibrate",
                    help="topo_auto's costs: topoa2a-calibrate's cost file (default) or the "
                    "simulator's link constants")
    ap.add_argument("--cfg", action="append", default=[], metavar="KEY:VALUE",
                    help="extra SimGrid setting for these runs (noted in timing.csv), "
                    "e.g. maxmin/precision:1e-4")
    ap.add_argument("--publish", metavar="DIR",
                    help="copy --out's raw.csv and timing.csv to DIR (e.g. sim/results/nodes), "
                    "regenerate the tables and plots there, run nothing")
    args = ap.parse_args()
    if args.quick:
        args.platforms, args.sizes = "fattree-4x4,dragonfly-8x2", "8,2048"
        if args.out == ap.get_default("out"):
            args.out = os.path.join(ROOT, "build", "sim-nodes-quick")
    if args.publish:
        # --out may list several sweep directories (comma separated, e.g.
        # two sweeps run side by side over different sizes): their lines
        # are concatenated, the first directory's header and explain.csv.
        os.makedirs(args.publish, exist_ok=True)
        srcs = [os.path.abspath(d) for d in args.out.split(",") if d]
        for f in ("raw.csv", "timing.csv", "explain.csv"):
            lines = []
            for i, d in enumerate(srcs):
                path = os.path.join(d, f)
                if not os.path.exists(path) or (f == "explain.csv" and i):
                    continue
                with open(path) as fh:
                    got = fh.readlines()
                lines += got if (i == 0 or f != "timing.csv") else got[1:]
            with open(os.path.join(args.publish, f), "w") as fh:
                fh.writelines(lines)
        # The cost files topo_auto was given (--costs calibrate).
        os.makedirs(os.path.join(args.publish, "costs"), exist_ok=True)
        for d in srcs:
            pdir = os.path.join(d, "platforms")
            for f in sorted(os.listdir(pdir)) if os.path.isdir(pdir) else []:
                if f.endswith(".cost"):
                    shutil.copy(os.path.join(pdir, f), os.path.join(args.publish, "costs", f))
        subprocess.run([sys.executable, os.path.join(HERE, "analyze_nodes.py"), args.publish],
                       check=True)
        return
    out = os.path.abspath(args.out)
    pdir, ldir = os.path.join(out, "platforms"), os.path.join(out, "logs")
    os.makedirs(pdir, exist_ok=True)
    os.makedirs(ldir, exist_ok=True)
    exe = build(out)
    ours = table_algorithms(exe, pdir)
    plats = [parse_platform(p) for p in args.platforms.split(",") if p]
    sizes = [int(s) for s in args.sizes.split(",") if s]
    raw, timing = os.path.join(out, "raw.csv"), os.path.join(out, "timing.csv")
    if not os.path.exists(timing):
        with open(timing, "w") as f:
            f.write("platform,p,run,bytes,wall_s,status,note\n")
    open(raw, "a").close()
    done = load_done(timing)
    only = re.compile(args.only) if args.only else None
    skip = re.compile(args.skip) if args.skip else None

    # Cheap and central points first: topoa2a's, topo_auto, MPICH's default
    # and SMPI's cheaper algorithms at every size and platform; then SMPI's
    # many-messages-at-once algorithms and selectors (mvapich2_scatter_dest,
    # mpich, ompi: minutes per point at p = 256); SMPI's basic_linear (p^2
    # concurrent flows: over 5 minutes for one 8-byte point at 16x16) last.
    # topo_auto after the others of the first tier: where it picks MPICH's
    # scattered it costs as much as mpich_default (minutes per point).
    def tier(label):
        return {"topo_auto": 1, "smpi-mvapich2_scatter_dest": 2, "smpi-mpich": 2, "smpi-ompi": 2,
                "smpi-basic_linear": 3}.get(label, 0)

    plan = []
    for t in range(4):
        for m in sizes:
            for kind, spec in plats:
                name = f"{kind}-{spec}"
                for label, algs, extra, alg in candidates(ours):
                    if tier(label) != t:
                        continue
                    key = (name, label, str(m))
                    if only and not only.search(f"{name} {label} {m}"):
                        continue
                    if skip and skip.search(f"{name} {label} {m}"):
                        continue
                    if done.get(key) == "ok" and not args.redo:
                        continue
                    plan.append((kind, spec, m, label, algs, extra, alg))
    if args.list:
        for kind, spec, m, label, *_ in plan:
            print(f"{kind}-{spec} {label} {m}")
        print(f"{len(plan)} runs")
        return
    print(f"nodes: {len(plan)} runs -> {out}", flush=True)
    explain(exe, pdir, out, plats, sizes, args.costs)
    start = time.time()
    for kind, spec, m, label, algs, extra, alg in plan:
        name = f"{kind}-{spec}"
        info = platforms.describe_nodes(kind, spec)
        topo = info["model_topology"]
        if not os.path.exists(os.path.join(pdir, name + ".xml")):
            with contextlib.redirect_stdout(io.StringIO()):
                platforms.write_nodes(pdir, kind, spec)
        # Replace this point's earlier rows.
        drop_rows(raw, lambda i, l: not (l.split(",")[:1] == [name] and l.split(",")[2] == alg
                                          and l.split(",")[3] == str(m)))
        drop_rows(timing, lambda i, l: i == 0 or l.split(",")[:4] != [name, str(info["p"]),
                                                                        label, str(m)])
        drv = [exe, "--platform", name, "--sizes", str(m), "--algs", algs, "--iters", "1",
               "--warmup", "0", "--csv", raw, "--topology", topo] + cost_args(
                   exe, pdir, kind, spec, args.costs)
        if alg.startswith("smpi:"):
            drv += ["--mpi-label", alg]
        if m > CHECK_MAX:
            drv.append("--shared")
        status, wall = "ok", 0.0
        user_cfg = [f"--cfg={c}" for c in args.cfg]
        for prec in ([], ["--cfg=maxmin/precision:1e-4"]):
            cmd = (["nice", "smpirun", "-no-privatize", "-np", str(info["p"]), "-platform",
                    os.path.join(pdir, name + ".xml"), "-hostfile",
                    os.path.join(pdir, name + ".hosts")] + SMPI_CFG + user_cfg + prec + extra
                   + drv)
            log = os.path.join(ldir, f"{name}-{label}-{m}.log")
            t0 = time.time()
            with open(log, "w") as f:
                f.write(" ".join(cmd) + "\n")
                f.flush()
                try:
                    rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT,
                                        timeout=args.timeout, cwd=ROOT).returncode
                    status = "ok" if rc == 0 else f"failed rc={rc}"
                except subprocess.TimeoutExpired:
                    status = f"timeout {args.timeout:g}s"
            wall = time.time() - t0
            with open(log) as f:
                text = f.read()
            # SimGrid's max-min solver can abort on a rounding limit at its
            # default precision (1e-5); such a point is redone at 1e-4.
            if status.startswith("failed") and "saturate" in text and not prec:
                continue
            break
        note = " ".join([f"costs={args.costs}"] + args.cfg +
                        (["maxmin/precision:1e-4 (retry)"] if prec else []))
        with open(timing, "a") as f:
            f.write(f"{name},{info['p']},{label},{m},{wall:.1f},{status},{note}\n")
        print(f"nodes: {name:16} {label:26} {m:6} {wall:7.1f}s {status}", flush=True)
    print(f"nodes: sweep took {time.time() - start:.0f} s", flush=True)
    subprocess.run([sys.executable, os.path.join(HERE, "analyze_nodes.py"), out], check=False)


if __name__ == "__main__":
    main()
