#!/usr/bin/env python3
"""Prints Symmetra / other time ratios from two files of benchmark JSON lines.

    compare.py symmetra.jsonl oshmem.jsonl

Rows are matched on (op, bytes, pes). ratio = Symmetra p50 / other p50 (below 1: Symmetra is
faster). A file may hold several runs (tools/bench's BENCH_RUNS appends them, alternating the
two sides): a row's time is then the median of its runs' p50s, since on a small shared machine
the spread between runs of one binary is as large as the gaps being measured. Also prints one
JSON line per matched row with both times, the ratio and the run count.
"""
import json
import statistics
import sys


def load(path):
    runs = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                r = json.loads(line)
                runs.setdefault((r["op"], r["bytes"], r["pes"]), []).append(r)
    rows = {}
    for k, rs in runs.items():
        r = dict(rs[0])
        r["p50_us"] = statistics.median(x["p50_us"] for x in rs)
        r["runs"] = len(rs)
        rows[k] = r
    return rows


def main():
    mine, other = load(sys.argv[1]), load(sys.argv[2])
    keys = [k for k in mine if k in other]
    if not keys:
        print("compare: no matching rows")
        return 1
    name = other[keys[0]]["backend"]
    runs = min(min(mine[k]["runs"], other[k]["runs"]) for k in keys)
    print(f"\n{'op':<22} {'bytes':>9} {'pes':>4} {'symmetra us':>12} {name + ' us':>12} {'ratio':>7}"
          + (f"   (medians of {runs} runs)" if runs > 1 else ""))
    for k in keys:
        a, b = mine[k]["p50_us"], other[k]["p50_us"]
        ratio = a / b if b > 0 else float("inf")
        print(f"{k[0]:<22} {k[1]:>9} {k[2]:>4} {a:>12.3f} {b:>12.3f} {ratio:>7.2f}")
    for k in keys:
        a, b = mine[k]["p50_us"], other[k]["p50_us"]
        print(json.dumps({"op": k[0], "bytes": k[1], "pes": k[2], "symmetra_p50_us": a,
                          f"{name}_p50_us": b, "ratio": round(a / b, 4) if b > 0 else None,
                          "runs": min(mine[k]["runs"], other[k]["runs"])}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
