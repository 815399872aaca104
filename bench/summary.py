#!/usr/bin/env python3
"""One screen after tools/bench's long output: per comparison, how many rows, how many faster and
slower, the geometric mean ratio and the worst row, with its cause where the docs name one
(bench/causes.txt).

    summary.py DIR

Reads every comparison that tools/bench and bench/remote_compare.sh wrote under DIR (the JSON
lines of bench/compare.py in *.txt files). ratio = Symmetra's time / the baseline's; below 1,
Symmetra is faster. Where a comparison has paired runs, faster and slower count the rows that the
sign test marks (compare.py); else every row whose ratio is below or above 1.
"""
import glob
import json
import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def load_causes(path):
    causes = []
    with open(path) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                comp, op, doc, text = line.split(None, 3)
                causes.append((re.compile(comp), re.compile(op), doc, text.strip()))
    return causes


def rows_of(path):
    with open(path) as f:
        return [r for r in (json.loads(l) for l in f if l.startswith("{")) if r.get("ratio")]


def baseline_of(row):
    # compare.py names the baseline by its backend; Symmetra against itself (served vs RMA)
    # leaves one key.
    return next((k[:-len("_p50_us")] for k in row
                 if k.endswith("_p50_us") and k != "symmetra_p50_us"), "symmetra")


def main():
    out = sys.argv[1]
    causes = load_causes(os.path.join(HERE, "causes.txt"))
    files = sorted(glob.glob(os.path.join(out, "*.txt")) + glob.glob(os.path.join(out, "*", "*.txt")))
    lines = []
    for path in files:
        rows = rows_of(path)
        if not rows:
            continue
        name = os.path.relpath(path, out)
        paired = all("sign_test" in r for r in rows)
        if paired:
            faster = sum(r["sign_test"] == "FASTER" for r in rows)
            slower = sum(r["sign_test"] == "SLOWER" for r in rows)
        else:
            faster = sum(r["ratio"] < 1 for r in rows)
            slower = sum(r["ratio"] > 1 for r in rows)
        geo = math.exp(sum(math.log(r["ratio"]) for r in rows) / len(rows))
        worst = max(rows, key=lambda r: r["ratio"])
        cause = next((f"{text} ({doc})" for comp, op, doc, text in causes
                      if comp.search(name) and op.search(worst["op"])), "")
        lines.append((name, baseline_of(worst), len(rows), faster, slower, paired, geo, worst, cause))
    if not lines:
        print(f"summary: no comparisons under {out}")
        return 1
    print(f"\n== Summary (ratio = Symmetra's time / the baseline's; below 1, Symmetra is faster)")
    print(f"{'comparison':<34} {'baseline':<12} {'rows':>5} {'faster':>7} {'slower':>7} "
          f"{'geomean':>8}  worst row")
    for name, base, n, faster, slower, paired, geo, w, cause in lines:
        mark = "*" if paired else " "
        print(f"{name:<34} {base:<12} {n:>5} {faster:>6}{mark} {slower:>6}{mark} {geo:>8.2f}  "
              f"{w['op']} {w['bytes']} B {w['pes']} PEs: {w['ratio']:.2f}")
        if cause and w["ratio"] > 1:
            print(f"{'':<34}   cause: {cause}")
    if any(l[5] for l in lines):
        print("* counted by the sign test over paired runs (compare.py); else by the ratio alone")
    return 0


if __name__ == "__main__":
    sys.exit(main())
