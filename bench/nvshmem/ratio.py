#!/usr/bin/env python3
"""NVSHMEM's API on Symmetra against NVSHMEM itself: the rows of bench/nvshmem/nvshmem_perf.cu
built twice and run in one tools/gpu-check call, the two programs alternating, matched by (op,
bytes, form); each side's time of a row is its median over the runs given, so that a drift of
the GPU's clocks during the call falls on both. Prints a table, one JSON line per row with the
ratio (Symmetra / NVSHMEM: below 1 is faster), and a summary.

    ratio.py --nvshmem RUN.log... --symmetra RUN.log...
"""
import json
import sys


def rows(paths):
    """{(op, bytes, form): the median of the row's p50 over the runs}."""
    times = {}
    for path in paths:
        with open(path) as f:
            for line in f:
                if line.startswith("{"):
                    r = json.loads(line)
                    times.setdefault((r["op"], r["bytes"], r["form"]), []).append(r["p50_us"])
    return {k: sorted(v)[len(v) // 2] for k, v in times.items()}


def main():
    args = sys.argv[1:]
    if "--nvshmem" not in args or "--symmetra" not in args:
        print(__doc__)
        return 2
    i, j = args.index("--nvshmem"), args.index("--symmetra")
    nv = rows(args[i + 1:j] if i < j else args[i + 1:])
    sym = rows(args[j + 1:i] if j < i else args[j + 1:])
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
    # Symmetra's own C++ device API (the context a kernel parameter) against its context-free
    # NVSHMEM form, both in the Symmetra build.
    ctx_free, with_ctx = sym.get(("p_lat", 8, "thread")), sym.get(("p_lat", 8, "device::p"))
    if ctx_free and with_ctx:
        print(f"context-free nvshmem_ulonglong_p {ctx_free:.3f} us, symmetra::device::p "
              f"{with_ctx:.3f} us: {ctx_free / with_ctx:.2f}x")
        print(json.dumps({"op": "p_lat", "bytes": 8, "form": "context-free/device::p",
                          "nvshmem_api_us": ctx_free, "device_p_us": with_ctx,
                          "ratio": round(ctx_free / with_ctx, 4)}))
    at_most_1 = sum(r <= 1.0 for r in ratios)
    worst = max(range(len(keys)), key=lambda i: ratios[i])
    print(f"summary: {len(keys)} rows (medians of the runs), {at_most_1} at most 1.0x NVSHMEM; median "
          f"{sorted(ratios)[len(ratios) // 2]:.2f}x; worst {ratios[worst]:.2f}x "
          f"({keys[worst][0]} {keys[worst][1]} B {keys[worst][2]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
