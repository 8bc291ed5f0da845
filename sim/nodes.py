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
(one-core nodes too: SMPI simulates no computation), and passes its cost file
(DIR/platforms/PLATFORM.cost, kept: delete it to calibrate again);
--costs constants passes the simulator's own link constants
(platforms.describe_nodes' "cost", as the sweeps published before
calibration did). timing.csv's note says which.

--machine KEY=VALUE,... runs the sweep on other constants than
sim/platforms.py's (link_bw, shm_bw in bytes/s; link_lat, shm_lat,
recv_overhead in s): a machine the model was never tuned on, which
topo_auto learns through topoa2a-calibrate alone. They are kept in
DIR/machine.txt; later runs into DIR and its analysis use them, and
--publish refuses directories of different machines.

Files in DIR: raw.csv (sim_a2a's lines), timing.csv (wall time and status
of every smpirun), logs/, platforms/, machine.txt (--machine only).
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
from smpi_tools import (smpi_cfg, build, cost_args, explain, run_limited,  # noqa: E402
                        table_algorithms)

SMPI_ALGS = ["bruck", "pair", "basic_linear", "mvapich2_scatter_dest", "2dmesh", "3dmesh", "ring",
             "mpich", "ompi"]
DEFAULT_PLATFORMS = ["fattree-16x16", "fattree2-16x16", "dragonfly-16x16"]
DEFAULT_SIZES = [8, 512, 2048, 32768]
# Payloads are checked up to this block size; above it the buffers are
# SMPI_SHARED_MALLOC (p^2 m bytes twice would not fit: 4 GiB at 16x16 and
# 32 KiB) and the check column says "unchecked".
CHECK_MAX = 2048
# maxmin/precision for a point, then its retries (see run_point).
PRECISION_LADDER = [[]] + [[f"--cfg=maxmin/precision:{p}"] for p in ("1e-4", "1e-3", "1e-2")]


def solver_stop(log_text):
    """Whether a failed smpirun looks like the max-min solver's rounding stop
    (an abort with its message, or a segfault: the critical-only log keeps
    no backtrace). A segfault of our own code fails at every precision, so a
    retry cannot hide it."""
    return "saturate" in log_text or "Segmentation fault" in log_text


def parse_platform(name):
    kind, spec = name.rsplit("-", 1)
    if kind not in platforms.NODE_KINDS or not re.fullmatch(r"\d+x\d+", spec):
        raise SystemExit(f"nodes.py: bad platform {name} (KIND-NxQ, KIND in "
                         f"{', '.join(platforms.NODE_KINDS)})")
    return kind, spec



def candidates(ours):
    """(label, sim_a2a --algs, extra smpirun args, raw.csv algorithm name)."""
    c = [(a, a, [], a) for a in ours]
    c.append(("topo_auto", "topo_auto", [], "topo_auto"))
    c.append(("mpich_default", "mpich_default", [], "mpich:default"))
    for a in SMPI_ALGS:
        c.append((f"smpi-{a}", "mpi", [f"--cfg=smpi/alltoall:{a}"], f"smpi:{a}"))
    return c



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


def use_machine(out, spec):
    """The machine of sweep directory `out`: DIR/machine.txt where an
    earlier run wrote one (a --machine that differs stops: one directory,
    one machine), else --machine, written there."""
    path = os.path.join(out, "machine.txt")
    kept = ""
    if os.path.exists(path):
        with open(path) as f:
            kept = f.read().strip()
    wanted = platforms.set_machine(spec) if spec else ""
    if kept and spec and platforms.set_machine(kept) != wanted:
        raise SystemExit(f"nodes: {out} holds runs on --machine {kept}; "
                         f"--machine {spec} needs a directory of its own")
    if kept:
        platforms.set_machine(kept)
    elif spec:
        os.makedirs(out, exist_ok=True)
        with open(path, "w") as f:
            f.write(wanted + "\n")


def publish(srcs, dest):
    """The sweep directories' raw.csv, timing.csv, explain.csv and cost
    files -> dest, then analyze_nodes.py there (runs nothing)."""
    # --out may list several sweep directories (comma separated, e.g.
    # sweeps run side by side over different platforms or sizes): their
    # lines are concatenated (timing.csv: the first directory's header), so
    # a later directory's run of a point supersedes an earlier one;
    # explain.csv: each (platform, block size)'s lines from the last
    # directory that has them, for the same reason (a model rerun's).
    os.makedirs(dest, exist_ok=True)
    # One machine for all (machine.txt: sim/platforms.py's constants where absent).
    machines = set()
    for d in srcs:
        path = os.path.join(d, "machine.txt")
        machines.add(open(path).read().strip() if os.path.exists(path) else "")
    if len(machines) > 1:
        raise SystemExit(f"nodes: --publish: the directories ran on different machines "
                         f"({'; '.join(sorted(m or 'the default' for m in machines))})")
    (machine,) = machines
    if machine:
        with open(os.path.join(dest, "machine.txt"), "w") as f:
            f.write(machine + "\n")
    elif os.path.exists(os.path.join(dest, "machine.txt")):
        os.remove(os.path.join(dest, "machine.txt"))  # an earlier publication's
    for f in ("raw.csv", "timing.csv", "explain.csv"):
        lines, explained = [], set()
        order = list(enumerate(srcs))
        for i, d in reversed(order) if f == "explain.csv" else order:
            path = os.path.join(d, f)
            if not os.path.exists(path):
                continue
            with open(path) as fh:
                got = fh.readlines()
            if f == "explain.csv":
                def key(line):
                    f = line.split(",")
                    return (f[0], f[3] if len(f) > 3 else "")
                mine = {key(l) for l in got} - explained
                explained |= mine
                got = [l for l in got if key(l) in mine]
                lines[:0] = got  # the directories' order, each point once
                continue
            lines += got if (i == 0 or f != "timing.csv") else got[1:]
        with open(os.path.join(dest, f), "w") as fh:
            fh.writelines(lines)
    # The cost files topo_auto was given (--costs calibrate): a sweep's
    # platforms/, a published directory's costs/ (the later directory's).
    os.makedirs(os.path.join(dest, "costs"), exist_ok=True)
    for d in srcs:
        for sub in ("costs", "platforms"):
            pdir = os.path.join(d, sub)
            if not os.path.isdir(pdir) or os.path.samefile(pdir, os.path.join(dest, "costs")):
                continue
            for f in sorted(os.listdir(pdir)):
                if f.endswith(".cost"):
                    shutil.copy(os.path.join(pdir, f), os.path.join(dest, "costs", f))
    subprocess.run([sys.executable, os.path.join(HERE, "analyze_nodes.py"), dest], check=True)


def make_plan(plats, sizes, ours, done, args):
    """The points to run, in order: (kind, spec, bytes, label, --algs,
    extra smpirun args, raw.csv algorithm)."""
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
                    point = f"{name} {label} {m}"
                    if args.only and not re.search(args.only, point):
                        continue
                    if args.skip and re.search(args.skip, point):
                        continue
                    if done.get((name, label, str(m))) == "ok" and not args.redo:
                        continue
                    plan.append((kind, spec, m, label, algs, extra, alg))
    return plan


def run_point(exe, out, point, args):
    """One smpirun: the point's rows in raw.csv and its line in timing.csv
    replace the earlier ones."""
    kind, spec, m, label, algs, extra, alg = point
    pdir, ldir = os.path.join(out, "platforms"), os.path.join(out, "logs")
    raw, timing = os.path.join(out, "raw.csv"), os.path.join(out, "timing.csv")
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
    for prec in PRECISION_LADDER:
        cmd = (["nice", "smpirun", "-no-privatize", "-np", str(info["p"]), "-platform",
                os.path.join(pdir, name + ".xml"), "-hostfile",
                os.path.join(pdir, name + ".hosts")] + smpi_cfg() + user_cfg + prec + extra
               + drv)
        log = os.path.join(ldir, f"{name}-{label}-{m}.log")
        t0 = time.time()
        with open(log, "w") as f:
            f.write(" ".join(cmd) + "\n")
            f.flush()
            rc = run_limited(cmd, f, args.timeout)
            status = (f"timeout {args.timeout:g}s" if rc is None else
                      "ok" if rc == 0 else f"failed rc={rc}")
        wall = time.time() - t0
        with open(log) as f:
            text = f.read()
        # SimGrid 3.32's max-min solver can stop on a rounding limit at its
        # default precision (1e-5): an abort ("Cannot saturate more a
        # constraint") or, with the log at critical, a segfault inside
        # MaxMin::do_solve (dragonflies from 512 B blocks). Such a point is
        # redone at a coarser precision; where both finished the times were
        # identical (sim/README.md).
        if status.startswith("failed") and solver_stop(text) and prec != PRECISION_LADDER[-1]:
            continue
        break
    note = " ".join([f"costs={args.costs}"] + args.cfg +
                    ([f"{prec[0].split('=', 1)[1]} (retry)"] if prec else []))
    with open(timing, "a") as f:
        f.write(f"{name},{info['p']},{label},{m},{wall:.1f},{status},{note}\n")
    print(f"nodes: {name:16} {label:26} {m:6} {wall:7.1f}s {status}", flush=True)


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
    ap.add_argument("--machine", metavar="KEY=VALUE,...", default="",
                    help="other link and node constants than sim/platforms.py's: link_bw, "
                    "shm_bw (bytes/s), link_lat, shm_lat, recv_overhead (s); kept in "
                    "DIR/machine.txt, which every later run and the analysis of DIR use")
    ap.add_argument("--publish", metavar="DIR",
                    help="copy --out's raw.csv and timing.csv to DIR (e.g. sim/results/nodes), "
                    "regenerate the tables and plots there, run nothing")
    args = ap.parse_args()
    if args.quick:
        args.platforms, args.sizes = "fattree-4x4,dragonfly-8x2", "8,2048"
        if args.out == ap.get_default("out"):
            args.out = os.path.join(ROOT, "build", "sim-nodes-quick")
    if args.publish:
        publish([os.path.abspath(d) for d in args.out.split(",") if d], args.publish)
        return
    out = os.path.abspath(args.out)
    use_machine(out, args.machine)
    pdir, ldir = os.path.join(out, "platforms"), os.path.join(out, "logs")
    os.makedirs(pdir, exist_ok=True)
    os.makedirs(ldir, exist_ok=True)
    exe = build(out)
    plats = [parse_platform(p) for p in args.platforms.split(",") if p]
    sizes = [int(s) for s in args.sizes.split(",") if s]
    raw, timing = os.path.join(out, "raw.csv"), os.path.join(out, "timing.csv")
    if not os.path.exists(timing):
        with open(timing, "w") as f:
            f.write("platform,p,run,bytes,wall_s,status,note\n")
    open(raw, "a").close()
    plan = make_plan(plats, sizes, table_algorithms(exe, pdir), load_done(timing), args)
    if args.list:
        for kind, spec, m, label, *_ in plan:
            print(f"{kind}-{spec} {label} {m}")
        print(f"{len(plan)} runs")
        return
    print(f"nodes: {len(plan)} runs -> {out}", flush=True)
    explain(exe, pdir, out, plats, sizes, args.costs)
    start = time.time()
    for point in plan:
        run_point(exe, out, point, args)
    print(f"nodes: sweep took {time.time() - start:.0f} s", flush=True)
    subprocess.run([sys.executable, os.path.join(HERE, "analyze_nodes.py"), out], check=False)


if __name__ == "__main__":
    main()
