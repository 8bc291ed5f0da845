#!/usr/bin/env python3
"""Checks of sim/node_bounds.py against hand-derived values (run by
sim/smoke.sh; exit 1 on a mismatch). Blocks of 2 KiB, 16 ranks per node,
10 GB/s links: one node pair carries Q^2 m = 256 * 2048 bytes."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import node_bounds  # noqa: E402
import platforms  # noqa: E402
import analyze_nodes  # noqa: E402

PAIR = 256 * 2048  # bytes one node sends another
BW = 10e9
failed = []


def expect(what, got, want):
    ok = abs(got - want) <= 1e-9 * want
    print(f"test_node_bounds: {what}: {got * 1e6:.3f} us (want {want * 1e6:.3f}) "
          f"{'ok' if ok else 'MISMATCH'}")
    if not ok:
        failed.append(what)


def bounds(kind, spec):
    return node_bounds.node_bounds(platforms.describe_nodes(kind, spec), 2048)


# Full fat tree 16x16: the NIC, 15 peers.
lat, inj, net, routed = bounds("fattree", "16x16")
expect("fattree-16x16 injection", inj, 15 * PAIR / BW)
expect("fattree-16x16 network", net, 15 * PAIR / BW)
assert routed is None
# 2:1 tapered: a leaf of 4 nodes sends to the 12 others over 2 up-links.
_, inj, net, _ = bounds("fattree2", "16x16")
expect("fattree2-16x16 network (leaf cut)", net, 4 * 12 * PAIR / (2 * BW))
# Dragonfly 16x16 (2 groups of 2 chassis x 2 blades x 2 nodes): all of
# group 0's traffic to group 1 arrives at group 1's router (chassis 0,
# blade 0), whose green link to blade 1 then carries the 8 x 4 node pairs
# bound for blade 1 of group 1 plus, inside the group, the 2 x 4 pairs from
# that router's own 2 nodes: 40 pairs over one 10 GB/s link.
_, inj, net, routed = bounds("dragonfly", "16x16")
expect("dragonfly-16x16 routed", routed, 40 * PAIR / BW)
expect("dragonfly-16x16 network (4 global links)", net, 8 * 8 * PAIR / (4 * BW))
# analyze_nodes: a point's status is its last run's (a rerun that finished
# supersedes the timeout before it; a later timeout supersedes an ok).
runs = [{"platform": "a", "run": "torus", "bytes": "8", "status": "timeout 300s"},
        {"platform": "a", "run": "ring", "bytes": "8", "status": "ok"},
        {"platform": "a", "run": "torus", "bytes": "8", "status": "ok"},
        {"platform": "a", "run": "ring", "bytes": "8", "status": "timeout 9s"}]
got = [(t["run"], t["status"]) for t in analyze_nodes.last_runs(runs)]
want = [("torus", "ok"), ("ring", "timeout 9s")]
print(f"test_node_bounds: last_runs {got} {'ok' if got == want else 'MISMATCH'}")
if got != want:
    failed.append("last_runs")
# nodes.py --machine: other constants reach the platform, its bounds and
# SMPI's receive overhead; a bad spec stops; machine() gives them back.
import smpi_tools  # noqa: E402
default = platforms.machine()
platforms.set_machine("link_bw=2.5e9,recv_overhead=3e-6")
_, inj, _, _ = bounds("fattree", "16x16")
expect("fattree-16x16 injection at 2.5 GB/s", inj, 15 * PAIR / 2.5e9)
info = platforms.describe_nodes("fattree", "16x16")
ok = ("--cfg=smpi/or:0:3e-06:0" in smpi_tools.smpi_cfg() and info["bw"] == 2.5e9
      and info["recv_overhead"] == 3e-6 and "link_bw=2.5e+09" in platforms.machine())
for bad in ("link_bw=0", "link_bw=fast", "bandwidth=1e9", "link_lat"):
    try:
        platforms.set_machine(bad)
        ok = False
    except SystemExit:
        pass
platforms.set_machine(default)
ok = ok and platforms.machine() == default and platforms.LINK_BW == 10e9
print(f"test_node_bounds: set_machine {'ok' if ok else 'MISMATCH'}")
if not ok:
    failed.append("set_machine")
sys.exit(1 if failed else 0)
