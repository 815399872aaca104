#!/usr/bin/env python3
"""Prints Symmetra / other time ratios from two files of benchmark JSON lines.

    compare.py symmetra.jsonl oshmem.jsonl

Rows are matched on (op, bytes, pes). ratio = Symmetra p50 / other p50 (below 1: Symmetra is
faster). A file may hold several runs (tools/bench's BENCH_RUNS appends them, alternating the
two sides): a row's time is then the median of its runs' p50s, since on a small shared machine
the spread between runs of one binary is as large as the gaps being measured. Also prints one
JSON line per matched row with both times, the ratio and the run count.

With 3 or more runs on each side, run i of one file is paired with run i of the other (the two
sides alternate, so a pair ran minutes apart at most and shares the machine's state) and the
column `slower` counts the pairs in which Symmetra was slower: a sign test. When the two are
equally fast each pair is a coin toss; Symmetra slower in all of 5 pairs happens by chance 1 time
in 32, in 7 of 7 1 in 128, in 8 or more of 9 1 in 26. Such rows are marked `SLOWER` (`FASTER`
the other way), at a one-sided 5% level. A summary line after the table counts the marks and
says how many rows chance alone would mark each way (with 7 pairs, 1 in 128 rows): a mark that a
second sweep does not repeat is chance.
"""
import json
import math
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
        r["each"] = [x["p50_us"] for x in rs]
        rows[k] = r
    return rows


def tail(n, k):
    """P(X >= k) for X ~ Binomial(n, 1/2)."""
    return sum(math.comb(n, i) for i in range(k, n + 1)) / 2 ** n


def sign_test(mine, other):
    """(pairs, pairs where mine is slower, mark): the mark at a one-sided 5% level."""
    pairs = list(zip(mine, other))
    if min(len(mine), len(other)) < 3:
        return 0, 0, ""
    n = len(pairs)
    slower = sum(a > b for a, b in pairs)
    faster = sum(a < b for a, b in pairs)
    mark = "SLOWER" if tail(n, slower) < 0.05 else "FASTER" if tail(n, faster) < 0.05 else ""
    return n, slower, mark


def chance_level(n):
    """P(a tied row gets marked SLOWER) with n pairs: the tail at the smallest marking count."""
    return max((t for t in (tail(n, k) for k in range(n + 1)) if t < 0.05), default=0.0)


def main():
    mine, other = load(sys.argv[1]), load(sys.argv[2])
    keys = [k for k in mine if k in other]
    if not keys:
        print("compare: no matching rows")
        return 1
    name = other[keys[0]]["backend"]
    runs = min(min(mine[k]["runs"], other[k]["runs"]) for k in keys)
    paired = runs >= 3
    tests = {k: sign_test(mine[k]["each"], other[k]["each"]) for k in keys}
    print(f"\nratio = Symmetra's time / {name}'s time, median p50 per row: below 1, Symmetra is faster")
    print(f"{'op':<22} {'bytes':>9} {'pes':>4} {'symmetra us':>12} {name + ' us':>12} {'ratio':>7}"
          + (f" {'slower':>7}" if paired else "")
          + (f"   (medians of {runs} runs)" if runs > 1 else ""))
    for k in keys:
        a, b = mine[k]["p50_us"], other[k]["p50_us"]
        ratio = a / b if b > 0 else float("inf")
        n, slower, mark = tests[k]
        print(f"{k[0]:<22} {k[1]:>9} {k[2]:>4} {a:>12.3f} {b:>12.3f} {ratio:>7.2f}"
              + (f" {f'{slower}/{n}':>7} {mark}" if paired else "").rstrip())
    if paired:
        # Many rows are tested at once: even with no difference at all some get marked, about
        # rows x chance_level each way. A mark that a second sweep does not repeat is chance.
        marks = [tests[k][2] for k in keys]
        chance = sum(chance_level(tests[k][0]) for k in keys)
        print(f"sign test over {len(keys)} rows: {marks.count('FASTER')} FASTER, "
              f"{marks.count('')} tie, {marks.count('SLOWER')} SLOWER; with no difference at all, "
              f"chance alone would mark about {chance:.1f} rows each way")
    for k in keys:
        a, b = mine[k]["p50_us"], other[k]["p50_us"]
        n, slower, mark = tests[k]
        line = {"op": k[0], "bytes": k[1], "pes": k[2], "symmetra_p50_us": a,
                f"{name}_p50_us": b, "ratio": round(a / b, 4) if b > 0 else None,
                "runs": min(mine[k]["runs"], other[k]["runs"])}
        if n:
            line.update({"pairs": n, "pairs_slower": slower, "sign_test": mark or "tie"})
        print(json.dumps(line))
    return 0


if __name__ == "__main__":
    sys.exit(main())
