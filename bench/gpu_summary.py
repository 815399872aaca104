#!/usr/bin/env python3
"""Ratios of the GPU benchmark rows against their baselines (tools/gpu-check).

    gpu_summary.py gpu_perf.jsonl [nvshmem.jsonl] [gpu_coll_perf.jsonl] [compare.jsonl]

compare.jsonl: rows of bench/nccl/nccl_perf.cu and bench/nvshmem/nvshmem_coll.cu from the same
GPUs (one rank per GPU), set against gpu_coll_perf's rows of the same PE count.
"""
import json
import os
import sys


def load(path):
    rows = []
    if path and os.path.exists(path):
        with open(path) as f:
            rows = [json.loads(l) for l in f if l.startswith("{")]
    return rows


def pick(rows, op, backend, bytes_=None, form=None):
    for r in rows:
        if r["op"] == op and r["backend"] == backend and (bytes_ is None or r["bytes"] == bytes_) \
                and (form is None or r["form"] == form):
            return r
    return None


def main():
    sym = load(sys.argv[1])
    nv = load(sys.argv[2] if len(sys.argv) > 2 else None)
    print(f"\n{'measure':<44} {'symmetra':>12} {'baseline':>12} {'ratio':>7}  target")
    def line(name, a, b, unit, target):
        if a is None or b is None:
            print(f"{name:<44} {'-':>12} {'-':>12} {'-':>7}  {target}")
            return
        print(f"{name:<44} {a:>10.3f}{unit:>2} {b:>10.3f}{unit:>2} {a / b:>7.2f}  {target}")
    a, b = pick(sym, "put_signal_pingpong_rtt", "symmetra"), pick(sym, "put_signal_pingpong_rtt", "raw_flags")
    line("put_signal ping-pong RTT vs raw flags", a and a["p50_us"], b and b["p50_us"], "us", "<= 1.15")
    for r in [r for r in sym if r["op"] == "block_put_bw" and r["backend"] == "symmetra"]:
        c = pick(sym, "block_put_bw", "cudaMemcpy", r["bytes"])
        line(f"block put GB/s vs cudaMemcpy, {r['bytes'] >> 20} MiB", r["GBps"], c and c["GBps"], "", ">= 0.90")
    a, b = pick(sym, "stream_signal_pingpong_rtt", "symmetra"), pick(sym, "stream_signal_pingpong_rtt", "raw_stream_memops")
    line("on-stream signal ping-pong RTT vs raw memops", a and a["p50_us"], b and b["p50_us"], "us", "<= 1.10")
    for form in ("thread", "warp", "block"):
        for size in (8, 8192, 524288):
            a, b = pick(sym, "put_lat", "symmetra_self", size, form), pick(nv, "put_lat", "nvshmem_self", size, form)
            line(f"put+quiet to self {form} {size} B vs NVSHMEM", a and a["p50_us"], b and b["p50_us"], "us", "compare")
    a, b = pick(sym, "p_lat", "symmetra_self"), pick(nv, "p_lat", "nvshmem_self")
    line("p+quiet to self vs NVSHMEM", a and a["p50_us"], b and b["p50_us"], "us", "compare")
    peer_table(sym)
    coll = load(sys.argv[3] if len(sys.argv) > 3 else None)
    if coll:
        allreduce_table(coll, "symmetra", "stream form, back to back")
        allreduce_table(coll, "symmetra_in_kernel", "device form, in one kernel")
    cmp = load(sys.argv[4] if len(sys.argv) > 4 else None)
    if coll and cmp:
        versus_table(coll, cmp)
    return 0


def peer_table(rows):
    """Device-initiated p / g / put / get to the other PE (its GPU where there are two): p50 us,
    and GB/s for the larger sizes."""
    peer = [r for r in rows if r["backend"] == "symmetra_peer"]
    if not peer:
        return
    print("\ndevice-initiated, to the other PE: p50 us (GB/s)")
    for op in ("p_lat", "g_lat"):
        r = pick(peer, op, "symmetra_peer")
        if r:
            print(f"  {op[0]:<4} 8 B thread {r['p50_us']:.2f}")
    sizes = sorted({r["bytes"] for r in peer if r["op"] == "put_lat"})
    print(f"  {'op':<4} {'group':<7} " + " ".join(f"{b:>16}" for b in sizes))
    for op in ("put_lat", "get_lat"):
        for form in ("thread", "warp", "block"):
            cells = []
            for b in sizes:
                r = pick(peer, op, "symmetra_peer", b, form)
                cells.append(f"{r['p50_us']:>8.2f} ({r['GBps']:>5.1f})" if r else f"{'-':>16}")
            print(f"  {op[:-4]:<4} {form:<7} " + " ".join(cells))


def versus_table(coll, cmp):
    """All-reduce: Symmetra's best algorithm and the selector's pick against NCCL (plain and with
    symmetric windows) and NVSHMEM on stream; permute against NCCL send/recv. Ratios < 1: Symmetra
    is faster."""
    pes = coll[0]["pes"]
    cmp = [r for r in cmp if r["pes"] == pes]
    others = [("nccl", "allreduce_nccl", "nccl"), ("nccl_sym", "allreduce_nccl", "nccl_symmetric"),
              ("nvshmem", "allreduce_nvshmem", "nvshmem_on_stream")]
    sizes = sorted({r["bytes"] for r in coll if r["op"] == "allreduce_auto"})
    print(f"\nall-reduce p50 us, {pes} PEs, one per GPU, stream form: Symmetra against NCCL and NVSHMEM")
    print(f"{'bytes':>10} {'sym best':>9} {'sym auto':>9} " + " ".join(f"{o[0]:>9}" for o in others) +
          f" {'auto/best other':>16}")
    for size in sizes:
        mine = [r for r in coll if r["op"].startswith("allreduce_") and r["backend"] == "symmetra" and
                r["bytes"] == size and r["form"] == "stream" and r["op"] not in ("allreduce_auto", "allreduce_nccl")]
        best = min((r["p50_us"] for r in mine), default=None)
        auto = pick(coll, "allreduce_auto", "symmetra", size, "stream")
        theirs = [pick(cmp, op, be, size, "stream") for _, op, be in others]
        got = [t["p50_us"] for t in theirs if t]
        cells = " ".join(f"{t['p50_us']:>9.2f}" if t else f"{'-':>9}" for t in theirs)
        ratio = f"{auto['p50_us'] / min(got):>16.2f}" if auto and got else f"{'-':>16}"
        print(f"{size:>10} {best if best is not None else float('nan'):>9.2f} "
              f"{auto['p50_us'] if auto else float('nan'):>9.2f} {cells} {ratio}")
    pair_table(f"all-reduce p50 us per call inside a CUDA graph (20 calls per launch), {pes} PEs",
               ("sym auto", "nccl"), sorted({r["bytes"] for r in coll if r["form"] == "graph"}),
               lambda size: pick(coll, "allreduce_auto", "symmetra", size, "graph"),
               lambda size: pick(cmp, "allreduce_nccl", "nccl", size, "graph"), "p50_us", ".2f")
    pair_table(f"permute (ring shift) GB/s per PE, {pes} PEs: Symmetra against NCCL send/recv",
               ("symmetra", "nccl"), sorted({r["bytes"] for r in coll if r["op"] == "permute_ring_shift"}),
               lambda size: pick(coll, "permute_ring_shift", "symmetra", size),
               lambda size: pick(cmp, "permute_ring_shift", "nccl_sendrecv", size), "GBps", ".1f")


def pair_table(title, names, sizes, mine, theirs, key, fmt):
    """One row per size: mine(size)[key], theirs(size)[key] and their ratio; nothing without sizes."""
    if not sizes:
        return
    print(f"\n{title}")
    print(f"{'bytes':>10} {names[0]:>9} {names[1]:>9} {'ratio':>7}")
    for size in sizes:
        a, b = mine(size), theirs(size)
        print(f"{size:>10} {a[key] if a else float('nan'):>9{fmt}} {b[key] if b else float('nan'):>9{fmt}} "
              f"{(a[key] / b[key]) if a and b else float('nan'):>7.2f}")


def allreduce_table(rows, backend, what):
    """p50 us of every all-reduce algorithm per size, the winner, and the selector's pick (auto)
    against the winner and against the raw one-block reduce with no synchronization."""
    algos = ["one_shot", "two_shot", "recursive_doubling", "ll_two_shot", "hierarchical", "ring",
             "put_ring"]
    if any(r["op"] == "allreduce_nccl" and r["backend"] == backend for r in rows):
        algos.append("nccl")  # one PE per GPU: NCCL side by side
    sizes = sorted({r["bytes"] for r in rows if r["op"].startswith("allreduce_") and r["backend"] == backend})
    if not sizes:
        return
    pes = rows[0]["pes"]
    print(f"\nall-reduce p50 us, {pes} PEs as threads (float sum), {what}")
    print(f"{'bytes':>10} " + " ".join(f"{a[:9]:>9}" for a in algos) + f" {'winner':>18} {'auto':>9} {'auto/win':>8} {'raw':>9}")
    for size in sizes:
        t = {a: pick(rows, "allreduce_" + a, backend, size) for a in algos}
        got = {a: r["p50_us"] for a, r in t.items() if r}
        if not got:
            continue
        win = min(got, key=got.get)
        # The selector's pick is timed in the stream form only: no auto column for the others.
        auto = pick(rows, "allreduce_auto", backend, size, "stream")
        raw = pick(rows, "allreduce_raw_reduce_no_sync", "raw_kernel", size)
        cells = " ".join(f"{got[a]:>9.2f}" if a in got else f"{'-':>9}" for a in algos)
        au = f"{auto['p50_us']:>9.2f} {auto['p50_us'] / got[win]:>8.2f}" if auto else f"{'-':>9} {'-':>8}"
        print(f"{size:>10} {cells} {win:>18} {au} {raw['p50_us'] if raw else float('nan'):>9.2f}")


if __name__ == "__main__":
    sys.exit(main())
