#!/usr/bin/env python3
"""NVSHMEM's API on Symmetra against NVSHMEM itself: the rows of bench/nvshmem/nvshmem_perf.cu
built twice and run in one tools/gpu-check call, the two programs alternating, matched by (op,
bytes, form); each side's time of a row is its median over the runs given, so that a drift of
the GPU's clocks during the call falls on both. Prints a table, one JSON line per row with the
ratio (Symmetra / NVSHMEM: below 1 is faster), and a summary.

    ratio.py --nvshmem RUN.log... --symmetra RUN.log... [--remote RUN.log...]

--remote: runs of the Symmetra build compiled with SYMMETRA_DEVICE_REMOTE=1 (kernels that can
reach other hosts); a second table gives what that costs on one host, remote / default.
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


def remote_table(default, remote):
    """The remote path's cost on one host: each row of the build with SYMMETRA_DEVICE_REMOTE=1
    against the same row without it."""
    keys = [k for k in default if k in remote]
    print(f"\nSYMMETRA_DEVICE_REMOTE=1 against without, one host")
    print(f"{'op':<8} {'bytes':>8} {'form':<9} {'default us':>11} {'remote us':>10} {'ratio':>6}")
    ratios = []
    for op, size, form in keys:
        a, b = default[(op, size, form)], remote[(op, size, form)]
        ratios.append(b / a if a > 0 else float("inf"))
        print(f"{op:<8} {size:>8} {form:<9} {a:>11.3f} {b:>10.3f} {ratios[-1]:>6.2f}")
    for (op, size, form), ratio in zip(keys, ratios):
        print(json.dumps({"op": op, "bytes": size, "form": form,
                          "default_us": default[(op, size, form)],
                          "remote_us": remote[(op, size, form)], "ratio": round(ratio, 4),
                          "compare": "remote/default"}))
    worst = max(range(len(keys)), key=lambda i: ratios[i])
    print(f"remote summary: {len(keys)} rows, median {sorted(ratios)[len(ratios) // 2]:.2f}x, "
          f"worst {ratios[worst]:.2f}x ({keys[worst][0]} {keys[worst][1]} B {keys[worst][2]})\n")


def main():
    args = sys.argv[1:]
    if "--nvshmem" not in args or "--symmetra" not in args:
        print(__doc__)
        return 2
    lists, flag = {}, None
    for a in args:
        if a.startswith("--"):
            flag = a
            lists[flag] = []
        elif flag:
            lists[flag].append(a)
    nv, sym = rows(lists["--nvshmem"]), rows(lists["--symmetra"])
    remote = rows(lists.get("--remote", []))
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
    if remote:
        remote_table(sym, remote)
    at_most_1 = sum(r <= 1.0 for r in ratios)
    worst = max(range(len(keys)), key=lambda i: ratios[i])
    print(f"summary: {len(keys)} rows (medians of the runs), {at_most_1} at most 1.0x NVSHMEM; median "
          f"{sorted(ratios)[len(ratios) // 2]:.2f}x; worst {ratios[worst]:.2f}x "
          f"({keys[worst][0]} {keys[worst][1]} B {keys[worst][2]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
