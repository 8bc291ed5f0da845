#!/usr/bin/env python3
"""Wiring and routes of an emulated cluster, for bench/emucluster.sh.

usage: emu_topo.py KIND N [--dims AxB] [--netfile PATH] [--prefix NAME]

KIND: ring | torus | hypercube | switch.  Hosts are 0..N-1, named
PREFIX00, PREFIX01, ... (MPI_Get_processor_name inside the emulation).

Prints, one record a line:
  dims D0xD1...                   the network's dimensions (torus / hypercube)
  link I PI J PJ                  port PI of host I is wired to port PJ of host J
  route I DST NEXT PORT           host I reaches host DST through neighbour NEXT on port PORT
For switch there are no links or routes (every host has port 0 on the bridge).

Routes are shortest paths, dimension by dimension in the order topoa2a's
cost model uses (topology/link_loads.h): dimension 0 (the slowest-varying
row-major coordinate) first, ties on a ring dimension go the positive way.
A hypercube is the torus 2x2x...x2, so its routes correct the highest bit
first.  --netfile writes the matching topoa2a network description file
(topology/README.md), one `host NAME INDEX` line per host (none on a
switch, which has no coordinates).
"""
import argparse
import sys


def near_square(n):
    r = int(n ** 0.5)
    while n % r:
        r -= 1
    return [r, n // r]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kind", choices=["ring", "torus", "hypercube", "switch"])
    ap.add_argument("n", type=int)
    ap.add_argument("--dims")
    ap.add_argument("--netfile")
    ap.add_argument("--prefix", default="n")
    a = ap.parse_args()
    n = a.n
    if n < 2:
        sys.exit("emu_topo.py: need at least 2 hosts")
    if a.kind == "ring":
        dims = [n]
    elif a.kind == "torus":
        dims = [int(x) for x in a.dims.split("x")] if a.dims else near_square(n)
    elif a.kind == "hypercube":
        if n & (n - 1):
            sys.exit("emu_topo.py: a hypercube needs a power-of-two number of hosts, not %d" % n)
        dims = [2] * (n.bit_length() - 1)
    else:
        dims = []
    prod = 1
    for d in dims:
        prod *= d
    if dims and prod != n:
        sys.exit("emu_topo.py: dims %s do not multiply to %d" % ("x".join(map(str, dims)), n))

    name = lambda i: "%s%02d" % (a.prefix, i)
    if a.netfile:
        with open(a.netfile, "w") as f:
            f.write("# written by bench/emucluster.sh: %d emulated hosts\n" % n)
            if a.kind == "switch":
                f.write("network switch\n")
            elif a.kind == "hypercube":
                f.write("network hypercube %d\n" % n)
            else:
                f.write("network %s %s\n" % (a.kind, "x".join(map(str, dims))))
            if a.kind != "switch":  # a switch has no coordinates to give
                for i in range(n):
                    f.write("host %s %d\n" % (name(i), i))
    if a.kind == "switch":
        return

    nd = len(dims)
    stride = [1] * nd
    for d in range(nd - 2, -1, -1):
        stride[d] = stride[d + 1] * dims[d + 1]
    coord = lambda i, d: (i // stride[d]) % dims[d]

    def step(i, d, s):  # neighbour of i one step s (+1/-1) along dimension d
        c = coord(i, d)
        return i + ((c + s) % dims[d] - c) * stride[d]

    # Ports: one per distinct neighbour, in dimension order, + before -.
    ports = [dict() for _ in range(n)]  # neighbour -> port
    links = []
    for i in range(n):
        for d in range(nd):
            if dims[d] < 2:
                continue
            for s in (+1, -1):
                j = step(i, d, s)
                if j != i and j not in ports[i]:
                    ports[i][j] = len(ports[i])
    for i in range(n):
        for j, pi in ports[i].items():
            if i < j:
                links.append((i, pi, j, ports[j][i]))
    print("dims " + "x".join(map(str, dims)))
    for l in links:
        print("link %d %d %d %d" % l)
    for i in range(n):
        for dst in range(n):
            if dst == i:
                continue
            cur = i
            for d in range(nd):  # first hop: the first dimension that differs
                a_, b_ = coord(cur, d), coord(dst, d)
                if a_ == b_:
                    continue
                fwd = (b_ - a_) % dims[d]
                s = +1 if fwd <= dims[d] - fwd else -1
                nxt = step(cur, d, s)
                break
            print("route %d %d %d %d" % (i, dst, nxt, ports[i][nxt]))


if __name__ == "__main__":
    main()
