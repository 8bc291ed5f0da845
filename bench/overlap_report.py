#!/usr/bin/env python3
"""Summarise topoa2a-overlap runs: per door, candidate and size, the median
and the min-max over the runs of the pure communication time, the overall
time with computation, and the overlap. The door is the run file's name
up to the first '-' (bench/overlap_doors.sh: preload-..., native-...).

Usage: overlap_report.py [--sizes A,B,...] RUN.txt ... > summary.md"""
import collections
import os
import statistics
import sys


def parse(path):
    out, cand = [], None
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("# candidate "):
                cand = line[len("# candidate "):]
                cand = None if cand.endswith("skipped") else cand
            elif line and not line.startswith("#") and cand:
                cols = line.split()
                if len(cols) == 5:
                    size, overall, comp, pure, ovl = cols
                    out.append((cand, int(size), float(overall), float(pure), float(ovl)))
    return out


def spread(v):
    return "%.1f (%.1f-%.1f)" % (statistics.median(v), min(v), max(v))


def main(paths, sizes=None):
    rows = collections.defaultdict(lambda: ([], [], []))
    runs = collections.Counter()
    for p in paths:
        door = os.path.basename(p).split("-")[0]
        runs[door] += 1
        for cand, size, overall, pure, ovl in parse(p):
            if sizes and size not in sizes:
                continue
            r = rows[(door, cand, size)]
            r[0].append(pure)
            r[1].append(overall)
            r[2].append(ovl)
    print("Runs: " + ", ".join("%s %d" % kv for kv in sorted(runs.items())) +
          ". Each cell: median (min-max) over the runs; times in us.\n")
    print("| door | candidate | bytes | pure comm. | overall (with compute) | overlap % |")
    print("| --- | --- | --- | --- | --- | --- |")
    for (door, cand, size), (pure, overall, ovl) in sorted(rows.items()):
        print("| %s | %s | %d | %s | %s | %s |" % (door, cand, size, spread(pure), spread(overall),
                                                 spread(ovl)))


if __name__ == "__main__":
    args = sys.argv[1:]
    keep = None
    if len(args) >= 2 and args[0] == "--sizes":
        keep = {int(x) for x in args[1].split(",")}
        args = args[2:]
    if not args:
        sys.exit(__doc__)
    main(args, keep)
