#!/usr/bin/env python3
"""Ratios of the GPU-initiated remote rows (symmetra-gpu-perf --remote) to what bounds them.

    gpu_remote_ratios.py device.jsonl [ucx_raw.jsonl [cpu_heap.jsonl]]

For each device row: its time over (the host-initiated twin + the doorbell floor) and over
(raw UCX's row of the same bytes + the floor), both measured in the same run. A ratio of 1 means
the ring adds nothing beyond one GPU -> CPU -> GPU round trip. p_rate (one quiet per batch) is
a rate, so its ratios add no floor; its raw UCX row is put_bw of 8 B (each put waited for
locally): time per message over raw UCX's, so below 1.25 is the issue's 0.8x of UCX's rate. The all-reduce over 2 hosts x 2 PEs:
each flat algorithm's time over the hierarchy's (above 1: the hierarchy is faster).

cpu_heap.jsonl, symmetra-perf's rows between CPU-backend PEs on the same two forced hosts, splits
a device row's excess over raw UCX into three measured parts: Symmetra's UCX layer (CPU heap
minus raw), serving the GPU heap (the host form to the GPU heap minus the CPU heap), and the
ring with the proxy (device minus host form).
Prints a table and one JSON line per row.
"""
import json
import sys


def load(path):
    rows = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{") and '"op"' in line:
                rows.append(json.loads(line))
    return rows


def main():
    dev = load(sys.argv[1])
    raw = load(sys.argv[2]) if len(sys.argv) > 2 else []
    cpu = {(r["op"], r["bytes"]): r["p50_us"]
           for r in (load(sys.argv[3]) if len(sys.argv) > 3 else [])}
    floor = next((r["p50_us"] for r in dev if r["op"] == "doorbell_rtt"), None)
    if floor is None:
        sys.exit("no doorbell_rtt row: is this symmetra-gpu-perf --remote's output?")
    host = {(r["op"], r["bytes"]): r["p50_us"] for r in dev if r["form"] == "host"}
    ucx = {(r["op"], r["bytes"]): r["p50_us"] for r in raw}
    print(f"doorbell floor {floor:.2f} us")
    print(f"{'op':16} {'bytes':>9} {'device us':>10} {'host us':>9} {'raw us':>9} "
          f"{'dev/(host+floor)':>17} {'dev/(raw+floor)':>16} {'cpu heap us':>11}  "
          "excess over raw: UCX layer + GPU heap service + ring and proxy")
    for r in dev:
        if r["form"] != "device" or r["op"] == "doorbell_rtt":
            continue
        key = (r["op"], r["bytes"])
        h = host.get(key)
        u = ucx.get(("put_bw", r["bytes"]) if r["op"] == "p_rate" else key)
        d = r["p50_us"]
        f = 0 if r["op"] == "p_rate" else floor  # a rate pays no round trip per message
        vs_host = d / (h + f) if h else None
        vs_raw = d / (u + f) if u else None
        cell = lambda x, w: f"{x:>{w}.2f}" if x is not None else f"{'-':>{w}}"
        c = None if r["op"] == "p_rate" else cpu.get(key)
        parts = None
        if c is not None and h is not None and u is not None:
            parts = {"ucx_layer_us": c - u, "gpu_heap_service_us": h - c, "ring_proxy_us": d - h}
        split = (f"  {parts['ucx_layer_us']:+.1f} {parts['gpu_heap_service_us']:+.1f} "
                 f"{parts['ring_proxy_us']:+.1f}") if parts else ""
        print(f"{r['op']:16} {r['bytes']:>9} {d:>10.2f} {cell(h, 9)} {cell(u, 9)} "
              f"{cell(vs_host, 17)} {cell(vs_raw, 16)} {cell(c, 11)}{split}")
        print(json.dumps({"ratio": "remote_device", "op": r["op"], "bytes": r["bytes"],
                          "device_us": d, "host_us": h, "ucx_raw_us": u, "floor_us": floor,
                          "vs_host_plus_floor": vs_host, "vs_raw_plus_floor": vs_raw,
                          "cpu_heap_us": c, **(parts or {})}))
    hier = {r["bytes"]: r["p50_us"] for r in dev
            if r["op"] == "allreduce_2x2" and r["form"] == "hierarchical"}
    for r in dev:
        if r["op"] != "allreduce_2x2" or r["form"] == "hierarchical" or r["bytes"] not in hier:
            continue
        ratio = r["p50_us"] / hier[r["bytes"]]
        print(f"allreduce_2x2 {r['bytes']:>9} {r['form']:>20} {r['p50_us']:>9.1f} us, "
              f"hierarchical {hier[r['bytes']]:.1f} us: ratio {ratio:.2f}")
        print(json.dumps({"ratio": "allreduce_2x2", "bytes": r["bytes"], "flat": r["form"],
                          "flat_us": r["p50_us"], "hierarchical_us": hier[r["bytes"]],
                          "flat_over_hierarchical": ratio}))


if __name__ == "__main__":
    main()
