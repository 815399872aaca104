#!/usr/bin/env python3
"""NVSHMEM's API on Symmetra against NVSHMEM itself: the rows of bench/nvshmem/nvshmem_perf.cu
built twice and run in one tools/gpu-check call, matched by (op, bytes, form). Prints a table,
one JSON line per row with the ratio (Symmetra / NVSHMEM: below 1 is faster), and a summary.

    ratio.py NVSHMEM.jsonl SYMMETRA.jsonl
"""
import json
import sys


def rows(path):
    out = {}
    with open(path) as f:
        for line in f:
            if line.startswith("{"):
                r = json.loads(line)
                out[(r["op"], r["bytes"], r["form"])] = r["p50_us"]
    return out


def main():
    nv, sym = rows(sys.argv[1]), rows(sys.argv[2])
    keys = [k for k in nv if k in sym]
    if not keys:
        print("ratio.py: no rows in common")
        return 1
    print(f"{'op':<8} {'bytes':>8} {'form':<7} {'nvshmem us':>11} {'symmetra us':>12} {'ratio':>6}")
    ratios = []
    for op, size, form in keys:
        a, b = nv[(op, size, form)], sym[(op, size, form)]
        ratio = b / a if a > 0 else float("inf")
        ratios.append(ratio)
        print(f"{op:<8} {size:>8} {form:<7} {a:>11.3f} {b:>12.3f} {ratio:>6.2f}")
    for (op, size, form), ratio in zip(keys, ratios):
        print(json.dumps({"op": op, "bytes": size, "form": form, "nvshmem_us": nv[(op, size, form)],
                          "symmetra_us": sym[(op, size, form)], "ratio": round(ratio, 4)}))
    at_most_1 = sum(r <= 1.0 for r in ratios)
    worst = max(range(len(keys)), key=lambda i: ratios[i])
    print(f"summary: {len(keys)} rows, {at_most_1} at most 1.0x NVSHMEM; median "
          f"{sorted(ratios)[len(ratios) // 2]:.2f}x; worst {ratios[worst]:.2f}x "
          f"({keys[worst][0]} {keys[worst][1]} B {keys[worst][2]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
