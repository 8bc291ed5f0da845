"""smpirun for the sweeps of sim/nodes.py: the simulated network's settings,
the driver's build, its algorithm table, topoa2a-calibrate on a platform
and the cost model's explanation of every point."""
import contextlib
import io
import os
import signal
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
import platforms  # noqa: E402

# The simulated network, as in sim/run.sh: CM02 (latency + max-min
# bandwidth sharing) without TCP window or ack cross-traffic; 1 us of
# software overhead per receive (smpi/or); computation not simulated.
# smpi/iprobe, smpi/test: the simulated cost of one MPI_Iprobe and of one
# MPI_Test* call (SMPI's defaults are 100 us each, which would dominate:
# the executor polls its window with Testsome and probes receives of
# unknown length); 0.1 us, a real library's order of magnitude, and not
# grown on repeated calls (smpi/grow-injected-times, SMPI's default, makes
# each further poll cost more, so a rank that polls falls behind).
# The receive overhead is platforms.RECV_OVERHEAD (1 us unless --machine).
def smpi_cfg():
    return ["--cfg=smpi/simulate-computation:no", "--cfg=network/model:CM02",
            "--cfg=network/TCP-gamma:0", "--cfg=network/crosstraffic:0",
            f"--cfg=smpi/or:0:{platforms.RECV_OVERHEAD:g}:0", "--cfg=smpi/iprobe:1e-7",
            "--cfg=smpi/test:1e-7", "--cfg=smpi/grow-injected-times:no",
            "--log=root.thres:critical"]


def run_limited(cmd, out, timeout):
    """Runs cmd (stdout and stderr to the file out) for at most timeout
    seconds; returns its exit status, or None if it ran out of time. The
    command gets its own process group and the whole group is killed on
    time-out: smpirun is a shell script, and killing only it leaves its
    smpimain simulating on (taking the CPU from the next run)."""
    proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, cwd=ROOT,
                            start_new_session=True)
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        return None

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
    # Two ranks per node even where a node has one core (SMPI simulates no
    # computation, so they do not compete): the same-node level (the
    # host's loopback) is then measured on every platform. With one rank
    # per node it was not, and the model kept its default copy cost
    # (tw_intra 0.1 ns/B), slower than 25 GB/s links (sim/README.md).
    per = 2
    with open(hosts, "w") as f:
        f.write("n0\n" * per + "n1\n" * per)
    cmd = ["smpirun", "-no-privatize", "-np", str(2 * per), "-platform",
           os.path.join(pdir, name + ".xml"), "-hostfile", hosts] + smpi_cfg() + [
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
