#!/usr/bin/env python3
"""Prints Symmetra / other time ratios from two files of benchmark JSON lines.

    compare.py symmetra.jsonl oshmem.jsonl

Rows are matched on (op, bytes, pes). ratio = Symmetra p50 / other p50 (below 1: Symmetra is
faster). Also prints one JSON line per matched row with both times and the ratio.
"""
import json
import sys


def load(path):
    rows = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                r = json.loads(line)
                rows[(r["op"], r["bytes"], r["pes"])] = r
    return rows


def main():
    mine, other = load(sys.argv[1]), load(sys.argv[2])
    keys = [k for k in mine if k in other]
    if not keys:
        print("compare: no matching rows")
        return 1
    name = other[keys[0]]["backend"]
    print(f"\n{'op':<22} {'bytes':>9} {'pes':>4} {'symmetra us':>12} {name + ' us':>12} {'ratio':>7}")
    for k in keys:
        a, b = mine[k]["p50_us"], other[k]["p50_us"]
        ratio = a / b if b > 0 else float("inf")
        print(f"{k[0]:<22} {k[1]:>9} {k[2]:>4} {a:>12.3f} {b:>12.3f} {ratio:>7.2f}")
    for k in keys:
        a, b = mine[k]["p50_us"], other[k]["p50_us"]
        print(json.dumps({"op": k[0], "bytes": k[1], "pes": k[2], "symmetra_p50_us": a,
                          f"{name}_p50_us": b, "ratio": round(a / b, 4) if b > 0 else None}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
